/*
 * placer_compat.h -- libplacer's compatibility modes (placer_builder_set_compat
 * and the calls around it): place keys exactly as another program does.
 * Part of placer.h, which includes it where its declarations belong:
 * include placer.h, not this file.
 */
#ifndef PLACER_COMPAT_H
#define PLACER_COMPAT_H

#ifndef PLACER_H
#error "include placer.h, which includes placer_compat.h"
#endif

/* ------------------------------------------------------------------------ */
/* Compatibility modes: place keys exactly as another program does          */
/* ------------------------------------------------------------------------ */

/* A compatibility mode rebuilds the ring (or table) and the key hash of
 * libmemcached, twemproxy (nutcracker), nginx, haproxy or Redis Cluster from
 * the inputs that program is given, so that every key goes to the server
 * the program sends it to (docs/COMPAT.md: each program's rules, quirks and
 * the source files they follow; tests/compat_programs.py compares against
 * the real programs). Every lookup, batch, handoff, live, replica, router,
 * inspection and codec call serves such snapshots:
 *   - placer_snapshot_hash returns the program's 32-bit key hash (after
 *     hash tags, avalanche and its special cases; Redis: the slot), and
 *     placer_lookup_hash / placer_replicas_hash / placer_lookup_hash_handoff
 *     take it back (only its low 32 bits are read);
 *   - the snapshot's strategy is PLACER_EMULATED ("compat"), except Redis:
 *     PLACER_PARTITIONS with 16,384 partitions (slots), so placer_partition,
 *     the slot map's replicas and placer_router_check_partition
 *     (NOT_MY_VBUCKET, or Redis' MOVED) work as for vBuckets;
 *   - its key hash id is 16 or above (docs/FORMAT.md; placer_key_hash_name
 *     names it, placer_snapshot_compat_key_hash gives the program's name);
 *   - "tokens" (placer_token_count, placer_token_at, placer_node_tokens) are
 *     the program's points in ascending order, point p given as p << 32
 *     (where hash p sits in the 64-bit space of the diff calls; haproxy's
 *     rings include the midpoints that turn its nearest-point rule into
 *     "first point >= hash"), or the table's slots, slot i given as the
 *     largest position of the i-th of n equal ranges, as for partitions
 *     (it holds the hashes h % n == i: 1/n of them);
 *   - replicas walk the program's ring clockwise to distinct physical nodes
 *     and zones, as placer's ring does (tables: their slots in order);
 *   - placer_diff works on rings, in the 64-bit space where a key of
 *     program hash h sits at h << 32 (so placer_moves_coverage stays a
 *     fraction of keys); tables placed by hash % n have no ranges, and a
 *     ring searched by a 15-bit hash (crc32-15bit) keys no coverage would
 *     measure: PLACER_ENOTSUP, as jump (placer_diff_measure and
 *     placer_moved_fraction count them over the program's hash values);
 *   - node states: down nodes keep their points (placer_lookup_live skips
 *     them); joining and draining are PLACER_EINVAL at build (the programs
 *     have no such states: a move is two snapshots and their diff), except
 *     Redis with an explicit partition map, which may carry a target map.
 * pymemcache's rendezvous (PLACER_COMPAT_PYMEMCACHE) has no points: each
 * lookup scores every node. Its "hash" (placer_snapshot_hash) is the index
 * of the key's winner, its "tokens" one slot per node (slot i is node i),
 * its replicas the winner then the following nodes in membership order
 * (HashClient keeps one copy), and placer_diff says PLACER_ENOTSUP
 * (placer_diff_measure samples keys). */
#define PLACER_COMPAT_NONE 0
#define PLACER_COMPAT_LIBMEMCACHED 1
#define PLACER_COMPAT_TWEMPROXY 2
#define PLACER_COMPAT_NGINX 3
#define PLACER_COMPAT_HAPROXY 4
#define PLACER_COMPAT_REDIS 5
#define PLACER_COMPAT_KAFKA 6
#define PLACER_COMPAT_GROUPCACHE 7
#define PLACER_COMPAT_UHASHRING 8
#define PLACER_COMPAT_PYMEMCACHE 9

/* The strategy of a compatibility mode's snapshot (its program's own ring
 * or table; Redis' are PLACER_PARTITIONS): placer_snapshot_strategy
 * returns it, placer_strategy_name calls it "compat". Chosen by
 * placer_builder_set_compat: placer_builder_set_strategy refuses it. */
#define PLACER_EMULATED 6

/* Key hash ids of the compatibility modes start here (docs/FORMAT.md). */
#define PLACER_HASH_COMPAT_FIRST 16

/* Size-prefixed (as placer_replica_report and placer_follower_status), so
 * that fields can be added without breaking callers: set size to
 * sizeof(placer_compat_options) and name the fields you set, e.g.
 *   placer_compat_options o = {.size = sizeof o, .distribution = "modula"};
 * A size below that of this first version is PLACER_EINVAL. */
typedef struct placer_compat_options {
    size_t size;
    const char *distribution; /* the program's own name ("ketama_weighted", "ketama", "modula",
                                 "consistent", "hash", "map-based"); NULL: the program's default */
    const char *key_hash;     /* the program's own name ("md5", "fnv1a_64", "sdbm", ...);
                                 NULL: the program's default */
    int avalanche;            /* haproxy only: 1 applies full_hash() over the key hash, 0 not;
                                 PLACER_COMPAT_AS_PROGRAM: as haproxy 2.6 parses hash-type
                                 (with consistent and no key hash named, else without) */
    const char *hash_tag;     /* twemproxy only: exactly two characters such as "{}"; NULL: none */
} placer_compat_options;

/* placer_compat_options.avalanche: what the program itself would do with
 * the given distribution and key hash (opt NULL means this too). */
#define PLACER_COMPAT_AS_PROGRAM (-1)

/* Select a compatibility mode (opt NULL: every default). Names are checked
 * here: PLACER_EINVAL for an unknown program, a distribution or key hash
 * the program does not have, avalanche or hash_tag where the program has
 * none (the builder is then unchanged). PLACER_COMPAT_NONE returns to
 * placer's own placement (opt is not read).
 *
 * The mode's ring/table and key hash are the program's; at build
 * (PLACER_EINVAL, placer_builder_error says which) these conflict with it:
 * a strategy set to anything but PLACER_EMULATED (Redis: PLACER_PARTITIONS),
 * vnodes or a seed other than the defaults, a key hash, a secret, explicit
 * tokens, precomputed replicas, a partition count (Redis: other than
 * 16384), a partition map (but for Redis), a weight that is not an integer
 * (the programs' weights are integers; haproxy's 1..256; Redis takes none:
 * every weight must be 1), a hash id on a node outside haproxy, a node
 * joining or draining, and what the program itself refuses (a server name
 * twemproxy cannot hold, an address without a port, ...). Node inputs:
 * libmemcached and nginx hash the node's address (placer_builder_set_address,
 * "host:port" as written in their configuration), twemproxy the node's id
 * (its server name: a named server's name, else "host:port", or "host" for
 * port 11211), haproxy its numeric id (placer_builder_set_hash_id).
 *
 * Redis builds a PLACER_PARTITIONS snapshot of 16,384 partitions (slots)
 * whose partition map is placer_builder_set_partition_map's (16384 rows) or,
 * when none is set, redis-cli --cluster create's even split over the nodes
 * in order (one copy per slot). Returns 0, PLACER_ENULL or PLACER_EINVAL.
 * A mode whose ring or table would pass PLACER_MAX_COMPAT_POINTS fails to
 * build with PLACER_ETOOMANY.
 *
 * Kafka (PLACER_COMPAT_KAFKA) builds a PLACER_PARTITIONS snapshot of the
 * topic's partitions whose keys go where librdkafka 2.0's producer
 * partitioner sends them: opt->key_hash names it (required: "murmur2",
 * "murmur2_random", "consistent", "consistent_random", "fnv1a",
 * "fnv1a_random"; docs/COMPAT.md). The partitions are
 * placer_builder_set_partition_map's rows (the leader first, PLACER_NO_NODE
 * for a partition without one, then its other replicas) or, with
 * placer_builder_set_partitions alone, partition p led by node p % nodes;
 * nodes take no weight (every weight must be 1). placer_partition gives a
 * key's partition, the map's row its leader and replicas;
 * placer_compat_key_scatters says which keys a real producer would not
 * hash. */
PLACER_API int placer_builder_set_compat(placer_builder *b, int program,
                                         const placer_compat_options *opt);

/* 1 when the program s follows would not place this key by its hash but
 * scatter it (Kafka's _random partitioners: a null key, key == NULL, and
 * for consistent_random an empty key too, go to a random or sticky
 * partition), else 0 (s NULL, another program or none). s's answer for
 * such a key is the deterministic partitioner's. Thread-safe. */
PLACER_API int placer_compat_key_scatters(const placer_snapshot *s, const void *key, size_t len);

/* A program's numeric setting (docs/COMPAT.md; groupcache's "replicas"),
 * set after placer_builder_set_compat (choosing another program clears
 * the settings; unset ones take the program's default). Returns 0,
 * PLACER_ENULL, or PLACER_EINVAL (no compatibility mode, a setting the
 * program does not have, a value outside its range: placer_builder_error
 * says which). */
PLACER_API int placer_builder_set_compat_param(placer_builder *b, const char *name,
                                               uint32_t value);

/* The settings a program takes, for membership files and tools:
 * placer_compat_param_name gives the i-th one's name (NULL past the last,
 * or for an unknown program); placer_compat_param_range its range and
 * default into the non-NULL pointers, 0, or PLACER_EINVAL when the
 * program has no such setting. Static strings. */
PLACER_API const char *placer_compat_param_name(int program, uint32_t i);
PLACER_API int placer_compat_param_range(int program, const char *name, uint32_t *min,
                                         uint32_t *max, uint32_t *dflt);

/* What a membership file of a program may hold, for membership files and
 * tools (stated once, in the program's ops): placer_compat_describe fills
 * *out (its size set by the caller to sizeof(placer_compat_info)) and
 * returns 0, PLACER_ENULL (out NULL), or PLACER_EINVAL for an unknown
 * program (or PLACER_COMPAT_NONE) or a size below the struct's. Static
 * strings; any thread. */
#define PLACER_COMPAT_FIELD_ADDRESS 0x1u        /* each node's "address" is required */
#define PLACER_COMPAT_FIELD_HOST_PORT 0x2u      /* ... as "host:port", a port of digits */
#define PLACER_COMPAT_FIELD_HASH_ID 0x4u        /* a node's "hash_id", 1 .. max_hash_id */
#define PLACER_COMPAT_FIELD_AVALANCHE 0x8u      /* "avalanche" */
#define PLACER_COMPAT_FIELD_HASH_TAG 0x10u      /* "hash_tag", two characters */
#define PLACER_COMPAT_FIELD_SLOTS 0x20u         /* "slots": owners of fixed slots */
#define PLACER_COMPAT_FIELD_KEY_RULE 0x40u      /* "key_rule" */
#define PLACER_COMPAT_FIELD_BALANCE_FACTOR 0x80u /* "hash_balance_factor" */
#define PLACER_COMPAT_FIELD_MOVES 0x100u        /* joining and draining nodes (with a slot map) */
#define PLACER_COMPAT_FIELD_ADDRESS_ONCE 0x200u /* addresses UTF-8, no two nodes' the same */
#define PLACER_COMPAT_FIELD_NODE_VNODES 0x400u /* a node's own "vnodes", in the range of the
                                               * program's "vnodes" setting (0: that setting) */
typedef struct placer_compat_info {
    size_t size;           /* set by the caller: sizeof(placer_compat_info) */
    const char *name;      /* "haproxy" */
    const char *title;     /* what messages call it: "Redis Cluster" */
    unsigned fields;       /* PLACER_COMPAT_FIELD_* */
    uint32_t max_weight;   /* node weights 1 .. max_weight; 0: no weights */
    uint32_t max_hash_id;  /* with PLACER_COMPAT_FIELD_HASH_ID */
    uint32_t max_name_len; /* the longest point name with its NUL (twemproxy's 86); 0: none */
    const char *tag;       /* the hash tag it always cuts keys with ("{}": Redis), or NULL */
} placer_compat_info;
PLACER_API int placer_compat_describe(int program, placer_compat_info *out);

/* A compat snapshot's setting `name` (its default resolved) into *value:
 * 0, PLACER_ENULL, or PLACER_EINVAL (not compat, or not the program's). */
PLACER_API int placer_snapshot_compat_param(const placer_snapshot *s, const char *name,
                                            uint32_t *value);

/* haproxy: node `node`'s numeric server id ("id" in haproxy's config), 1 ..
 * 1048575, or 0 for none; nodes without one get the id haproxy would give
 * (the first not taken by an explicit one, in declaration order; a
 * counter that advances past every server). Returns 0, PLACER_ENULL,
 * PLACER_ERANGE (no such node) or PLACER_EINVAL (above 1048575). Equal ids
 * are PLACER_EINVAL at build, as is an id in any other mode. */
PLACER_API int placer_builder_set_hash_id(placer_builder *b, uint32_t node, uint32_t hash_id);

/* uhashring: node `node`'s own vnodes (its constructor's per-node
 * "vnodes"), 1 up to the program's "vnodes" setting's largest (65535), or
 * 0 for the ring's vnodes setting. Returns 0, PLACER_ENULL, PLACER_ERANGE
 * (no such node) or PLACER_EINVAL (above the largest). A node's own vnodes
 * in a mode without them (PLACER_COMPAT_FIELD_NODE_VNODES) is PLACER_EINVAL
 * at build. */
PLACER_API int placer_builder_set_node_vnodes(placer_builder *b, uint32_t node, uint32_t vnodes);

/* The programs' limits, stated once for libplacer, membership files and
 * the importers: haproxy's server ids (placer's: id * 4096 + point must
 * stay below 2^32) and weights (its SRV_UWGHT_MAX), Redis Cluster's slots,
 * twemproxy's point names (its KETAMA_MAX_HOSTLEN, the NUL included). */
#define PLACER_HAPROXY_MAX_ID 1048575u
#define PLACER_HAPROXY_MAX_WEIGHT 256u
#define PLACER_REDIS_SLOTS 16384u
#define PLACER_TWEMPROXY_MAX_HOSTLEN 86u

/* The program's key rule: how it turns a request into the bytes it hashes
 * (docs/COMPAT.md, "The key rule"), in haproxy's `balance` words:
 * "source" (a dotted IPv4 or an IPv6 address -> its 4 or 16 bytes in
 * network order; the key hash must be "source"), "uri" with any of
 * "whole", "path-only", "len N", "depth N" (the request target cut as
 * haproxy 2.6 cuts it), "url_param NAME" (the parameter's value in a
 * request target), "hdr(NAME)" with or without "use_domain_only" (the
 * header value's first element; its domain's main part). NULL, "" or
 * "none": no rule, the bytes as given. Only haproxy has one: the mode must
 * be PLACER_COMPAT_HAPROXY first (placer_builder_set_compat with another
 * program clears the rule). The snapshot carries it (format v2 section 11:
 * docs/FORMAT.md). Returns 0, PLACER_ENULL or PLACER_EINVAL (the reason in
 * placer_builder_error; the builder keeps its previous rule). At build,
 * "source" with another key hash, or another rule with key hash "source",
 * is PLACER_EINVAL. */
PLACER_API int placer_builder_set_key_rule(placer_builder *b, const char *rule);

/* A snapshot's key rule, in the canonical words above ("uri whole depth
 * 2"), or "" when it has none (placer's own placement, the programs other
 * than haproxy, a snapshot built or encoded without one). The string is the
 * snapshot's and lives as long as it. NULL when s is NULL. */
PLACER_API const char *placer_snapshot_key_rule(const placer_snapshot *s);

/* The bytes s's program hashes for the request value in[0 .. len) (what a
 * user types: an address, a request target such as "/a/b?x=1" or
 * "http://h/a/b?x=1", a header's value), by the snapshot's key rule: at
 * most max(len, 16) bytes into out, their count into *out_len. Without a
 * rule the bytes are in's, unchanged, so a caller may always pass keys
 * through it. Returns 0; PLACER_ENULL (s or out_len NULL, in NULL with len
 * > 0, out NULL with cap > 0); PLACER_EINVAL when the request has no key
 * under the rule (not an address; no '?' or no such parameter; an empty
 * header value: haproxy sends such a request round robin, no placement
 * follows it); PLACER_ERANGE when cap is too small (*out_len says how
 * many bytes it needs). O(len); in and out may be the same buffer. */
PLACER_API int placer_key_from_request(const placer_snapshot *s, const void *in, size_t len,
                                       void *out, size_t cap, size_t *out_len);

/* Names <-> ids, for membership files and the CLI: "libmemcached",
 * "twemproxy", "nginx", "haproxy", "redis", "groupcache", "uhashring",
 * "pymemcache". placer_compat_from_name
 * returns PLACER_COMPAT_* or PLACER_EINVAL (NULL or unknown); placer_compat_name
 * returns NULL when `program` is unknown (or PLACER_COMPAT_NONE). */
PLACER_API int placer_compat_from_name(const char *name);
PLACER_API const char *placer_compat_name(int program);

/* 1 when `name` is a distribution / key hash of `program` (its own
 * spelling: docs/COMPAT.md), else 0 (NULL names included). */
PLACER_API int placer_compat_has_distribution(int program, const char *name);
PLACER_API int placer_compat_has_key_hash(int program, const char *name);

/* What a snapshot is: PLACER_COMPAT_* (PLACER_COMPAT_NONE for placer's own
 * placement, and when s is NULL), and the program's own names of its
 * distribution and key hash, defaults resolved (NULL when not compat;
 * Redis has no distribution: NULL; its key hash is "crc16"). Static
 * strings. */
PLACER_API int placer_snapshot_compat(const placer_snapshot *s);
PLACER_API const char *placer_snapshot_compat_distribution(const placer_snapshot *s);
PLACER_API const char *placer_snapshot_compat_key_hash(const placer_snapshot *s);

#endif /* PLACER_COMPAT_H */
