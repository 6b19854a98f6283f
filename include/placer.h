/*
 * placer.h -- which node owns this key?
 *
 * The public header of libplacer, the data plane: builders, snapshots,
 * lookups, replicas, diffs, the codec and the router. Membership files,
 * imports and etcd are libplacer-control's (placer_control.h), built on
 * this header alone. Handles are opaque; no struct layout
 * that could freeze the ABI is shown here. Every function that can fail
 * returns an int: >= 0 on success, a negative PLACER_E* code on failure
 * (name it with placer_strerror()). Functions that cannot fail, such as the
 * hashes, return their value directly. The library never prints, aborts or
 * exits.
 *
 * Thread contract, unless a function says otherwise:
 *   - a placer_builder belongs to one thread at a time;
 *   - a placer_snapshot is immutable once built: any number of threads may
 *     look up in it concurrently, without locks, until it is freed;
 *   - the hash functions are pure and may be called from any thread.
 *
 * Compiles as C11 and as C++ (no restrict, no _Atomic in this header).
 */
#ifndef PLACER_H
#define PLACER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PLACER_VERSION_MAJOR 0
#define PLACER_VERSION_MINOR 1
#define PLACER_VERSION_PATCH 0

#if defined(_WIN32) && defined(PLACER_BUILDING_DLL)
#define PLACER_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define PLACER_API __attribute__((visibility("default")))
#else
#define PLACER_API
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

#define PLACER_OK 0
#define PLACER_ENULL (-1)      /* a required pointer argument is NULL */
#define PLACER_ENOMEM (-2)     /* an allocation failed; nothing was changed */
#define PLACER_EIDEMPTY (-3)   /* a node id is empty */
#define PLACER_EIDDUP (-4)     /* a node id is already in the builder */
#define PLACER_EIDLONG (-5)    /* a node id or zone is longer than PLACER_MAX_ID_LEN */
#define PLACER_EWEIGHT (-6)    /* a weight is NaN or outside [PLACER_MIN_WEIGHT, PLACER_MAX_WEIGHT] */
#define PLACER_ENONODES (-7)   /* build asked of a builder with no nodes */
#define PLACER_ETOOMANY (-8)   /* tokens or nodes past PLACER_MAX_TOKENS / PLACER_MAX_NODES */
#define PLACER_ERANGE (-9)     /* a node index is out of range */
#define PLACER_EINVAL (-10)    /* another argument is out of its documented range */
#define PLACER_ENOTSUP (-11)   /* the CPU, build or strategy lacks what was asked for */
#define PLACER_ESTALE (-12)    /* a published epoch is not newer than the router's */
#define PLACER_ENOTMINE (-13)  /* the node does not own the key in the current epoch */
#define PLACER_ENOLIVE (-14)   /* every node that could serve the key is down */
#define PLACER_EFORMAT (-15)   /* an input document is not in the expected format */
#define PLACER_EVERSION (-16)  /* a snapshot's format version is not one this placer reads */
#define PLACER_ETRUNC (-17)    /* a snapshot is shorter than its header says */
#define PLACER_ECHECKSUM (-18) /* a snapshot's CRC-32C does not match its bytes */
#define PLACER_ECORRUPT (-19)  /* a snapshot's checksum holds but its content is inconsistent */
#define PLACER_ECONFLICT (-20) /* another publisher's epoch is as new or newer */
#define PLACER_EUNAVAIL (-21)  /* no etcd endpoint answered in time */
#define PLACER_ECOMPACTED (-22) /* the etcd revision asked for was compacted away */
#define PLACER_EMISSING (-23)  /* nothing is published under the etcd key */
#define PLACER_EAUTH (-24)     /* etcd refused the credentials, the TLS peer or the permission */

/* Name of an error code ("PLACER_EIDDUP: duplicate node id"); never NULL.
 * Unknown codes give "unknown error". The string is static. */
PLACER_API const char *placer_strerror(int err);

/* ------------------------------------------------------------------------ */
/* Limits and defaults                                                      */
/* ------------------------------------------------------------------------ */

#define PLACER_MAX_TOKENS (1u << 25) /* tokens in one snapshot, all nodes together */
#define PLACER_MAX_NODES (1u << 20)  /* nodes in one snapshot */
/* Points of a compatibility mode's ring (haproxy's midpoints included) or
 * slots of its table: about 25,000 libmemcached or twemproxy servers, a
 * total nginx weight of 26,214 (160 points each). Building or decoding
 * that many takes about a second; the decoder rebuilds every point from
 * the nodes and weights, and (but for nginx, whose count the weights do not
 * fix) refuses a file that lists far fewer points than its weights make
 * before it starts (PLACER_ECORRUPT). */
#define PLACER_MAX_COMPAT_POINTS (1u << 22)
#define PLACER_MAX_ID_LEN 255u       /* bytes in a node id or zone name */
#define PLACER_DEFAULT_SEED UINT64_C(0)
#define PLACER_DEFAULT_VNODES 256u   /* tokens per unit of weight */
#define PLACER_MAX_REPLICAS 8u       /* replica sets a snapshot can precompute */
#define PLACER_MIN_WEIGHT (1.0 / 4294967296.0) /* 2^-32: weights are in [2^-32, 2^32] */
#define PLACER_MAX_WEIGHT 4294967296.0

/* ------------------------------------------------------------------------ */
/* Hashes (pure, thread-safe, never fail)                                   */
/* ------------------------------------------------------------------------ */

/* CRC-32C (Castagnoli) as iSCSI uses it (RFC 3720): start with crc = 0.
 * Chaining: placer_crc32c(placer_crc32c(0, a, n), b, m) is the CRC of a
 * followed by b. data may be NULL only when len is 0. Uses the SSE4.2 (or
 * ARMv8 CRC) instruction with three interleaved streams when the CPU has it,
 * a slicing-by-8 table path otherwise; both give the same bits. */
PLACER_API uint32_t placer_crc32c(uint32_t crc, const void *data, size_t len);

/* IEEE CRC-32, bit for bit zlib's crc32(): start with crc = 0; chainable
 * like placer_crc32c. Couchbase's SDKs map a key to its vBucket as
 * ((placer_crc32(0, key, len) >> 16) & 0x7fff) % vbuckets. PCLMULQDQ folding
 * for long inputs where the CPU has it, tables otherwise; same bits. data
 * may be NULL only when len is 0. */
PLACER_API uint32_t placer_crc32(uint32_t crc, const void *data, size_t len);

/* Jump consistent hash (Lamping & Veach, 2014), exactly the paper's
 * function: the bucket in [0, buckets) of a 64-bit key; -1 when buckets
 * <= 0. Growing buckets from n to n + 1 moves about 1/(n+1) of the keys,
 * all to the new bucket. */
PLACER_API int32_t placer_jump_hash(uint64_t key, int32_t buckets);

/* The 64-bit placement hash of a key, key hash "placer-v2" (the default;
 * PLACER_HASH_PLACER_V2): a CRC-32C lane (the crc32 instruction) beside a
 * non-linear 64-bit multiply-fold lane, the seed in every multiplier
 * operand, finished by a product of the two lanes. No collisions that hold
 * for every seed (the legacy placer-v1 had families of them; snapshots of
 * format v1 keep using it). Not keyed: whoever knows the seed can search for
 * collisions (see placer_siphash13). Hardware and software paths give the
 * same bits on every machine. key may be NULL only when len is 0. Pure,
 * thread-safe. */
PLACER_API uint64_t placer_hash64(uint64_t seed, const void *key, size_t len);

/* SipHash-1-3 (Aumasson & Bernstein; one compression and three finalisation
 * rounds, as Rust's and Python's hash tables use) of data under the 128-bit
 * key: bytes 0-7 and 8-15 are the little-endian SipHash keys k0 and k1. The
 * keyed placement hash (PLACER_HASH_SIPHASH13). data may be NULL only when
 * len is 0. Pure, thread-safe; the caller keeps key secret. */
PLACER_API uint64_t placer_siphash13(const unsigned char key[16], const void *data, size_t len);

/* Apache Cassandra's token of a partition key, as its Murmur3Partitioner
 * computes it: the first 64 bits of Cassandra's MurmurHash3 x64_128 (seed
 * 0; its Java widens the tail bytes as signed bytes, which Appleby's C
 * does not), signed, with INT64_MIN (Long.MIN_VALUE) given as INT64_MAX.
 * key is the partition key's serialized bytes: a text column's UTF-8, an
 * int's 4 big-endian bytes, a uuid's 16; a key of several columns as
 * placer_cassandra_key_compose makes it. An empty key is refused
 * (PLACER_EINVAL), as CQL refuses it. Returns 0 and *token, PLACER_ENULL
 * or PLACER_EINVAL. Pure, thread-safe; the same bits on every machine. */
PLACER_API int placer_cassandra_token(const void *key, size_t len, int64_t *token);

/* The partitioner's own answer for any bytes, the empty key included:
 * INT64_MIN (its MINIMUM token) for len 0, else placer_cassandra_token's.
 * key may be NULL only when len is 0. */
PLACER_API int64_t placer_cassandra_partitioner_token(const void *key, size_t len);

/* The bytes of a partition key of n columns, each given serialized
 * (parts[i], lens[i] bytes), as Cassandra's CompositeType makes them: per
 * column a 2-byte big-endian length, the bytes, a 0 byte; one column (n 1)
 * is its bytes as they are. *out_len receives the length needed; out
 * (cap bytes) receives the key when it fits. Returns 0, PLACER_ENULL, or
 * PLACER_EINVAL (n 0, a column past 65,535 bytes in a composite, or cap
 * short of *out_len). */
PLACER_API int placer_cassandra_key_compose(const void *const *parts, const size_t *lens, size_t n,
                                            void *out, size_t cap, size_t *out_len);

/* ------------------------------------------------------------------------ */
/* Building snapshots                                                       */
/* ------------------------------------------------------------------------ */

typedef struct placer_builder placer_builder;
typedef struct placer_snapshot placer_snapshot;

/* A new, empty builder with seed PLACER_DEFAULT_SEED and
 * PLACER_DEFAULT_VNODES tokens per unit of weight; NULL when out of memory.
 * Release with placer_builder_free(). */
PLACER_API placer_builder *placer_builder_new(void);

/* Release a builder; NULL is accepted. Snapshots built from it stay valid. */
PLACER_API void placer_builder_free(placer_builder *b);

/* Seed of the placement hash for keys and generated tokens.
 * Returns 0, or PLACER_ENULL. */
PLACER_API int placer_builder_set_seed(placer_builder *b, uint64_t seed);

/* V, the tokens generated per unit of weight: a node of weight w gets
 * max(1, round(w * V)) tokens. Returns 0, PLACER_ENULL, or PLACER_EINVAL when
 * V is 0 or above PLACER_MAX_TOKENS. */
PLACER_API int placer_builder_set_vnodes(placer_builder *b, uint32_t tokens_per_unit_weight);

/* Precompute, at build time, the replica set of `replicas` nodes for every
 * token slot (0, the default: none). placer_replicas with want <= replicas
 * then costs a lookup and one read instead of a walk; memory: 4 * replicas
 * bytes per token, and with 2 or more on a ring with the line table
 * (placer_snapshot_layout_name "buckets") 16 bytes of line sets per
 * line of the table (1 to 4 bytes per token), from which sets of up to 3
 * are read beside the key's line, and with 4 or 5 the wide line sets: a
 * 64-byte line per line up to 255 nodes, two above (4 to 16 or 8 to 32
 * bytes per token), from which sets of 4 and 5 are read the same way with
 * any key hash (placer_snapshot_replica_bytes counts them all): with the
 * default key hash, placer_replicas and its batch for up to 3 nodes then
 * cost 1.1-1.7x placer_lookup on 120 nodes of 256 tokens, 1.2-1.5x one
 * key at a time and 1.6-1.7x in a batch on 4,096. Not the default, as sets
 * add over half a snapshot and make its build 1.2-1.6x longer
 * (bench/RESULTS.md, "Replica sets and the router, paired";
 * NetworkTopologyStrategy over two datacenters, sets of 5, 1.9-2.1x; a
 * datacenter of 2 racks or more but fewer than its factor takes a slower
 * walk).
 * Returns 0, PLACER_ENULL, or PLACER_EINVAL above PLACER_MAX_REPLICAS. */
PLACER_API int placer_builder_set_replicas(placer_builder *b, uint32_t replicas);

/* The rule of the ring's precomputed replica sets, with rf sets of rf
 * nodes (placer_builder_set_replicas(b, rf) with the rule):
 *   PLACER_REPLICATION_PLACER            placer's walk (placer_replicas);
 *   PLACER_REPLICATION_SIMPLE            Cassandra's SimpleStrategy: the
 *                                        first rf distinct hosts walking
 *                                        the ring from the key's token;
 *   PLACER_REPLICATION_NETWORK_TOPOLOGY  Cassandra's NetworkTopologyStrategy:
 *                                        rf in every datacenter (the nodes'
 *                                        placer_builder_set_datacenter; all
 *                                        nodes without one are one
 *                                        datacenter) unless
 *                                        placer_builder_set_datacenter_
 *                                        replication gives its own factor;
 *                                        per datacenter, the same walk, a
 *                                        host of a rack (zone) met already
 *                                        taken only while fewer than
 *                                        rf - racks were.
 * Both as Cassandra 4's server computes them, in its order: the walk's,
 * the range's owner first (under NetworkTopologyStrategy when its
 * datacenter is replicated to; a set is empty where no datacenter that is
 * has a node owning tokens), the datacenters' hosts interleaved as the
 * walk meets them (docs/COMPAT.md). A set holds up to the sum of the
 * datacenters' factors (at most PLACER_MAX_REPLICAS, checked at build);
 * placer_replicas and its batch give its first `want` nodes. The ring only
 * (another strategy fails at build with PLACER_EINVAL). Returns 0,
 * PLACER_ENULL or PLACER_EINVAL (an unknown rule; rf 0 with a Cassandra
 * rule, or above PLACER_MAX_REPLICAS). */
#define PLACER_REPLICATION_PLACER 0
#define PLACER_REPLICATION_SIMPLE 1
#define PLACER_REPLICATION_NETWORK_TOPOLOGY 2
PLACER_API int placer_builder_set_replication(placer_builder *b, int rule, uint32_t rf);

/* NetworkTopologyStrategy's factor in one datacenter, as a keyspace's
 * {'class': 'NetworkTopologyStrategy', 'dc1': '3', 'dc2': '2'} gives it:
 * sets the rule to PLACER_REPLICATION_NETWORK_TOPOLOGY (a datacenter named
 * by no call takes placer_builder_set_replication's rf, 0 when it was not
 * called with this rule). rf 0 replicates nothing there; a datacenter no
 * node is in is ignored, as Cassandra ignores it. Called again for the same
 * datacenter, the last factor holds. The build fails (PLACER_EINVAL, its
 * reason in placer_builder_error) when the factors of the ring's
 * datacenters sum to 0 or past PLACER_MAX_REPLICAS. Returns 0,
 * PLACER_ENULL, PLACER_EIDLONG (a name past PLACER_MAX_ID_LEN),
 * PLACER_EINVAL (rf above PLACER_MAX_REPLICAS) or PLACER_ENOMEM. */
PLACER_API int placer_builder_set_datacenter_replication(placer_builder *b, const char *datacenter,
                                                         uint32_t rf);

/* Placement strategies. Every strategy is served by the same lookup, batch,
 * replicas, handoff, live, router and inspection calls; the diff calls
 * work on the strategies whose ownership is made of ranges of the hash
 * space (ring, partitions, Maglev) and return PLACER_ENOTSUP for jump and
 * rendezvous, whose owners are scattered across the space (use
 * placer_moved_fraction for those).
 *
 *   PLACER_RING        consistent-hash ring with weighted virtual nodes (the
 *                      default): the first token >= the key's hash owns it.
 *   PLACER_PARTITIONS  fixed logical partitions (Couchbase's vBuckets): a key
 *                      maps to one of P partitions, a map gives each
 *                      partition its active node and replicas.
 *   PLACER_JUMP        jump consistent hash (Lamping & Veach) over a bucket ->
 *                      node table.
 *   PLACER_RENDEZVOUS  highest random weight, weighted by -w / ln(u).
 *   PLACER_MAGLEV      Maglev's lookup table (Eisenbud et al., NSDI 2016).
 *   PLACER_MEMENTO     MementoHash (Coluzzi et al. 2023): jump hash plus a
 *                      table of the removed buckets only.
 *   PLACER_ANCHOR      AnchorHash (Mendelson et al. 2021): a fixed capacity
 *                      of buckets (placer_builder_set_capacity), a few
 *                      integers each.
 *   PLACER_DX          DxHash (Dong & Wang 2023): pseudo-random probes in a
 *                      power-of-two array of buckets.
 *   PLACER_JUMPBACK    JumpBackHash (Ertl 2024): jump's contract with
 *                      integer steps only.
 *   PLACER_BINOMIAL    BinomialHash (Coluzzi et al. 2024): constant time.
 * Those five, like jump, place keys on buckets and map buckets to nodes: a
 * node of weight w has max(1, round(w)) buckets, or its explicit ones
 * (placer_builder_add_token: bucket numbers). Memento, anchor and dx let
 * any bucket leave: a removal moves exactly the leaver's keys and a join
 * moves keys only to the joiner, and the snapshot carries the order of the
 * removals their answers depend on (placer_builder_set_previous carries it
 * forward: build every change from the previous snapshot). Jumpback and
 * binomial grow and shrink at the end, as jump (a node leaving from the
 * middle gives its buckets to the last bucket's node). Their owners are
 * scattered across the hash space: the diff calls say PLACER_ENOTSUP (use
 * placer_moved_fraction), as do bounded-load lookups, which are the ring's.
 *
 * A "token" (placer_token_count, placer_token_at, placer_node_tokens) is the
 * strategy's unit of placement: a ring token, a partition, a Maglev table
 * entry, a jump bucket (or a memento, anchor, dx, jumpback or binomial
 * bucket: of the first three, the buckets in use, in bucket order), a
 * rendezvous candidate node. */
#define PLACER_NO_NODE UINT32_MAX /* "no node" in maps, moves and batch owners */

#define PLACER_RING 1
#define PLACER_PARTITIONS 2
#define PLACER_JUMP 3
#define PLACER_RENDEZVOUS 4
#define PLACER_MAGLEV 5
#define PLACER_MEMENTO 7
#define PLACER_ANCHOR 8
#define PLACER_DX 9
#define PLACER_JUMPBACK 10
#define PLACER_BINOMIAL 11

#define PLACER_DEFAULT_PARTITIONS 1024u   /* Couchbase's vBucket count */
#define PLACER_MAX_PARTITIONS 65536u
#define PLACER_DEFAULT_MAGLEV_SIZE 65537u /* prime */
#define PLACER_MAX_MAGLEV_SIZE 5000011u   /* prime */

/* Choose the strategy (PLACER_RING by default). Returns 0, PLACER_ENULL or
 * PLACER_EINVAL for an unknown strategy or PLACER_EMULATED (a compatibility
 * mode's: placer_builder_set_compat chooses it). */
PLACER_API int placer_builder_set_strategy(placer_builder *b, int strategy);

/* The number of partitions (PLACER_PARTITIONS: 1 .. PLACER_MAX_PARTITIONS,
 * default PLACER_DEFAULT_PARTITIONS) or the Maglev table size
 * (PLACER_MAGLEV: a prime, up to PLACER_MAX_MAGLEV_SIZE, default
 * PLACER_DEFAULT_MAGLEV_SIZE); 0 restores the strategy's default. Checked
 * against the strategy at build (PLACER_EINVAL). Returns 0, PLACER_ENULL or
 * PLACER_EINVAL (above PLACER_MAX_MAGLEV_SIZE). */
PLACER_API int placer_builder_set_partitions(placer_builder *b, uint32_t count);

/* The buckets PLACER_ANCHOR and PLACER_DX hold room for (dx: rounded up to
 * a power of two): every bucket ever in use, removed ones included, must
 * fit. 0 (the default): twice the first build's bucket count, at least 64.
 * The capacity is fixed by the first build: a build from a previous
 * snapshot keeps previous's (another set here is PLACER_EINVAL at build),
 * and a build that needs more buckets than the capacity holds fails with
 * PLACER_EINVAL (placer_builder_error says so): rebuild from scratch with
 * a larger capacity, which moves keys. Other strategies ignore it. Returns
 * 0, PLACER_ENULL or PLACER_EINVAL (above PLACER_MAX_TOKENS). */
PLACER_API int placer_builder_set_capacity(placer_builder *b, uint32_t buckets);

/* How keys (and ring tokens, rendezvous and Maglev node seeds) are hashed
 * to 64-bit positions; the ids are those of the snapshot format
 * (docs/FORMAT.md):
 *   PLACER_HASH_PLACER_V2  placer_hash64(seed, key), the default;
 *   PLACER_HASH_PLACER_V1  the legacy hash of format-v1 snapshots (seed-
 *                          independent collisions: only to keep an old
 *                          cluster's placement);
 *   PLACER_HASH_SIPHASH13  placer_siphash13(secret, key): keyed, set by
 *                          placer_builder_set_secret (a build without a
 *                          secret fails with PLACER_EINVAL);
 *   PLACER_HASH_COUCHBASE  (PLACER_PARTITIONS only) partition =
 *                          ((placer_crc32(0, key) >> 16) & 0x7fff) % P, exactly
 *                          as Couchbase's SDKs do (seed ignored; takes no
 *                          secret: it must match the SDKs);
 *   PLACER_HASH_CASSANDRA_MURMUR3  (PLACER_RING only) Cassandra's
 *                          Murmur3Partitioner token of the key
 *                          (placer_cassandra_partitioner_token) mapped
 *                          order-preservingly to unsigned,
 *                          (uint64_t)token ^ 1 << 63: with node tokens
 *                          mapped the same way (placer_builder_add_token)
 *                          the ring is Cassandra's (the first token >= the
 *                          key's owns it, wrapping). Seed ignored, no
 *                          secret. The empty key hashes to 0 (the
 *                          partitioner's MINIMUM); `placer lookup` refuses
 *                          it as CQL does.
 * With the placer hashes a partition is floor(position * P / 2^64), one
 * range of the hash space. Unset, a build uses the previous snapshot's hash
 * (and secret) when placer_builder_set_previous gave one, so rebuilding a
 * running cluster moves no key; else SipHash-1-3 when a secret is set; else
 * PLACER_HASH_PLACER_V2. Returns 0, PLACER_ENULL or PLACER_EINVAL (an
 * unknown id). Another strategy with PLACER_HASH_COUCHBASE fails at build
 * with PLACER_EINVAL. */
#define PLACER_HASH_PLACER_V1 1
#define PLACER_HASH_COUCHBASE 2
#define PLACER_HASH_PLACER_V2 3
#define PLACER_HASH_SIPHASH13 4
#define PLACER_HASH_CASSANDRA_MURMUR3 5
#define PLACER_HASH_PLACER PLACER_HASH_PLACER_V2 /* placer_hash64, whatever its version */
PLACER_API int placer_builder_set_key_hash(placer_builder *b, int hash);

/* Key the placement with a 128-bit secret: keys and ring tokens are then
 * hashed with placer_siphash13(secret, ...) (PLACER_HASH_SIPHASH13; the
 * seed is not used and the snapshot's is 0), so that whoever chooses keys
 * without the secret cannot aim them at a node. The secret is copied; it
 * travels inside the snapshot (encoded in section 10 of docs/FORMAT.md:
 * protect snapshot files and etcd accordingly) and no accessor returns it.
 * NULL clears it (and a key hash that was SipHash-1-3 returns to unset).
 * Returns 0, PLACER_ENULL (b NULL), or PLACER_EINVAL when the key hash is
 * PLACER_HASH_COUCHBASE or a compatibility mode's: those must reproduce
 * other programs' placements and take no secret (also checked at build). */
PLACER_API int placer_builder_set_secret(placer_builder *b, const unsigned char secret[16]);

/* The snapshot this build follows (nodes matched by id; its target
 * placement when it was in transition), for the strategies whose placement
 * depends on history: PLACER_PARTITIONS starts its map from previous's, so
 * the map built moves only the partitions that must move (those of nodes
 * that left, and the surplus of nodes above their new share); PLACER_JUMP
 * keeps every node's buckets, so a node leaving from the middle of the
 * bucket range renumbers nobody; PLACER_RING with PLACER_TOKENS_BALANCED
 * keeps the tokens every node has in previous. The other strategies' (and
 * random-token rings') placements are functions of the membership alone.
 * Every strategy takes previous's key hash (and secret) when the builder's
 * is unset (placer_builder_set_key_hash), so a rebuild hashes keys as
 * before. previous must be of
 * the same strategy (and partition count), else the build fails with
 * PLACER_EINVAL. The builder keeps a reference: previous must outlive the
 * builds that use it; NULL forgets it. Returns 0 or PLACER_ENULL. */
PLACER_API int placer_builder_set_previous(placer_builder *b, const placer_snapshot *previous);

/* How a ring's tokens are chosen (PLACER_RING only):
 *   PLACER_TOKENS_RANDOM    the default: node i's tokens are
 *                           placer_hash64(seed, "<id>-<j>"), a function of
 *                           the node alone; even loads need many tokens
 *                           (max/mean about 1.04 with 256 per node).
 *   PLACER_TOKENS_BALANCED  chosen to even out the ring, as Cassandra's
 *                           allocator does, so 16 tokens per node give
 *                           max/mean within 1.05: a node keeps the tokens
 *                           it has (explicit ones, else those it has in the
 *                           previous snapshot, placer_builder_set_previous,
 *                           matched by id, whatever its weight now); every
 *                           other node, in index order, gets
 *                           max(1, round(w * V)) tokens, each splitting the
 *                           widest range of the node furthest above its
 *                           weight share (taking at most the new node's
 *                           share over its token count), preferring among
 *                           near-equal splits the one that evens out the
 *                           new node's zone (its load when every key has one
 *                           replica per zone); draining nodes' tokens are
 *                           left out of that ring. Without a previous
 *                           snapshot the nodes are added one at a time in
 *                           membership order, so the same membership history
 *                           gives the same ring. A node leaving (gone
 *                           from the membership since previous, or
 *                           draining: then in the target placement) leaves
 *                           everyone else's tokens alone and hands each of
 *                           its tokens, at its position, widest first, to
 *                           the active node lowest under its weight share
 *                           once it holds the range (its zone preferred
 *                           among near-equal ones; never a joining node or
 *                           one with explicit tokens; down nodes when none
 *                           is active; with no such node the next tokens'
 *                           owners take the ranges). A join moves only the
 *                           new node's share, a removal only the leaver's,
 *                           and the removal after a drain nothing more.
 *                           (The exact rule: engine/strategies/balancer.h.)
 *                           A draining node with no tokens yet gets its
 *                           own after every other node. Cost: O((K +
 *                           log N) log n) per token allocated (K = 32
 *                           candidates; 8,000 nodes x 16 tokens build in
 *                           about 1 s), O(nodes) per token handed over.
 * Returns 0, PLACER_ENULL or PLACER_EINVAL (not a PLACER_TOKENS_*). Building
 * any other strategy with PLACER_TOKENS_BALANCED fails with PLACER_EINVAL. */
#define PLACER_TOKENS_RANDOM 1
#define PLACER_TOKENS_BALANCED 2
PLACER_API int placer_builder_set_token_allocation(placer_builder *b, int mode);

/* Node states. The current placement is made of active, draining and down
 * nodes: a down node keeps its ranges (a brief failure must not rewrite the
 * ring) but callers read from the next live replica. While any node is
 * joining or draining, a snapshot also carries the target placement:
 * active, joining and down nodes. */
#define PLACER_NODE_ACTIVE 0
#define PLACER_NODE_JOINING 1   /* takes no primary traffic until its data has arrived */
#define PLACER_NODE_DRAINING 2  /* still owns its ranges; owns none in the target */
#define PLACER_NODE_DOWN 3

/* Set node `node`'s state (nodes start active). Returns 0, PLACER_ENULL,
 * PLACER_ERANGE (no such node) or PLACER_EINVAL (not a PLACER_NODE_*). */
PLACER_API int placer_builder_set_state(placer_builder *b, uint32_t node, int state);

/* Add a physical node. id: non-empty, at most PLACER_MAX_ID_LEN bytes,
 * unique in the builder. zone: NULL or "" for none, at most
 * PLACER_MAX_ID_LEN bytes. weight: from PLACER_MIN_WEIGHT to
 * PLACER_MAX_WEIGHT (2^-32 .. 2^32: relative weights over 19 decades, and
 * every strategy's arithmetic, rendezvous's 1/w included, stays in normal
 * doubles). Both strings are copied.
 * Returns the node's index (0, 1, 2, ... in call order; snapshots keep these
 * indices), or PLACER_ENULL, PLACER_EIDEMPTY, PLACER_EIDLONG, PLACER_EIDDUP,
 * PLACER_EWEIGHT, PLACER_ETOOMANY (more than PLACER_MAX_NODES nodes), or
 * PLACER_ENOMEM. On error the builder is unchanged. A weight in range whose
 * token count (weight x vnodes, set later) passes PLACER_MAX_TOKENS is
 * refused at build (PLACER_ETOOMANY, placer_builder_error names the node
 * and the count). */
PLACER_API int placer_builder_add_node(placer_builder *b, const char *id, const char *zone,
                                       double weight);

/* Node `node`'s network address (any text up to PLACER_MAX_ID_LEN bytes,
 * such as "10.0.0.7:11210"; NULL or "" for none), carried by snapshots for
 * the routers that connect to it. Returns 0, PLACER_ENULL, PLACER_ERANGE,
 * PLACER_EIDLONG or PLACER_ENOMEM (the builder is unchanged on error). */
PLACER_API int placer_builder_set_address(placer_builder *b, uint32_t node, const char *address);

/* Node `node`'s datacenter: the topology level above its zone (a zone is a
 * rack within its datacenter, as in Cassandra: equal zone names in two
 * datacenters are two racks). Any text up to PLACER_MAX_ID_LEN bytes; NULL
 * or "" for none (the nodes without one are one datacenter). Only
 * NetworkTopologyStrategy replication reads it; placer's walk spreads over
 * zones as before. Returns 0, PLACER_ENULL, PLACER_ERANGE, PLACER_EIDLONG
 * or PLACER_ENOMEM (the builder is unchanged on error). */
PLACER_API int placer_builder_set_datacenter(placer_builder *b, uint32_t node,
                                             const char *datacenter);

/* Give node `node` an explicit token. A node with at least one explicit
 * token gets no generated ones. Its explicit tokens are numbered (vnode index)
 * in call order. Returns 0, PLACER_ENULL, PLACER_ERANGE (no such node),
 * PLACER_ETOOMANY (more than PLACER_MAX_TOKENS explicit tokens) or
 * PLACER_ENOMEM. */
PLACER_API int placer_builder_add_token(placer_builder *b, uint32_t node, uint64_t token);

/* An explicit partition map for PLACER_PARTITIONS, as imports carry it
 * (placer_control.h's Couchbase import): parts rows of copies node
 * indices each, the active node first, PLACER_NO_NODE for a hole; next_map
 * (NULL: none) is the map after the rebalance in progress, the handoff
 * target. The build then uses these maps instead of computing one (parts
 * becomes the partition count). Both arrays are copied; the nodes must
 * have been added already. Returns 0, PLACER_ENULL (b or map NULL),
 * PLACER_EINVAL (parts outside 1 .. PLACER_MAX_PARTITIONS, copies outside
 * 1 .. PLACER_MAX_REPLICAS, or an index that is neither a node nor
 * PLACER_NO_NODE) or PLACER_ENOMEM; the builder is unchanged on error. */
PLACER_API int placer_builder_set_partition_map(placer_builder *b, uint32_t parts, uint32_t copies,
                                                const uint32_t *map, const uint32_t *next_map);

/* Compatibility modes: placer_compat.h (one subject, one file). */
#include "placer_compat.h"

/* What the last call on b that returned PLACER_EINVAL or PLACER_ETOOMANY
 * refused, in words naming the node, the value and the limit ("node a:
 * weight 4.29497e+09 x 256 vnodes is 1099511627776 tokens, past
 * PLACER_MAX_TOKENS (33554432)"); every such return of a placer_builder_*
 * call leaves one. "" before any refusal. The string is b's and lives
 * until the next call on b. */
PLACER_API const char *placer_builder_error(const placer_builder *b);

/* What a builder holds (for tools that read a membership, such as the
 * simulator): its seed, its node count, and node `node`'s id, zone and
 * datacenter ("" when none) and weight. Strings are the builder's and live until the builder
 * is freed. NULL, 0 or 0.0 when b is NULL or node is out of range. The
 * builder's thread contract applies. */
PLACER_API uint64_t placer_builder_seed(const placer_builder *b);
PLACER_API uint32_t placer_builder_node_count(const placer_builder *b);
PLACER_API const char *placer_builder_node_id(const placer_builder *b, uint32_t node);
PLACER_API const char *placer_builder_node_zone(const placer_builder *b, uint32_t node);
PLACER_API const char *placer_builder_node_datacenter(const placer_builder *b, uint32_t node);
PLACER_API double placer_builder_node_weight(const placer_builder *b, uint32_t node);

/* Build an immutable snapshot of the builder's current contents, tagged with
 * `epoch`. Node i generates tokens H("<id>-<j>") for j = 0, 1, ..., where H
 * is the key hash (placer_hash64(seed, ...) by default, placer_siphash13(
 * secret, ...) when keyed); equal tokens are ordered by (token, node id,
 * vnode index).
 * The builder is not changed and may be built again. *out receives a
 * snapshot the caller owns (release with placer_snapshot_free); it is
 * untouched on error. Returns 0, PLACER_ENULL, PLACER_ENONODES (no node in
 * the current or, during a transition, the target placement),
 * PLACER_EINVAL (a key hash the strategy does not take; a secret with a key
 * hash other than SipHash-1-3; SipHash-1-3 without a secret; balanced
 * tokens on a strategy without token allocation; a partition count set on
 * a strategy without partitions or a Maglev size that is not prime),
 * PLACER_ETOOMANY (more than PLACER_MAX_TOKENS tokens in all, or one
 * node's weight x vnodes past it) or PLACER_ENOMEM; placer_builder_error
 * then says which, naming the node and the count. */
PLACER_API int placer_builder_build(placer_builder *b, uint64_t epoch, placer_snapshot **out);

/* Did the last placer_builder_build re-base? A memento, anchor or dx
 * placement whose lookups could take more than PLACER_MAX_WALK steps
 * (docs/FORMAT.md, "What a lookup costs": a previous snapshot's history
 * with most buckets removed) is built instead as a fresh placement of the
 * working nodes, as without a previous snapshot. Returns 1 when it was,
 * with *moved (may be NULL) the fraction of keys whose node changed from
 * the previous snapshot (measured at 65,536 evenly spaced positions), 0
 * when not (*moved 0), PLACER_ENULL when b is NULL. */
PLACER_API int placer_builder_rebased(const placer_builder *b, double *moved);

/* The most steps (replacement-table reads, records, probes) one lookup of a
 * memento, anchor or dx snapshot may be led through by the history alone,
 * from one draw: a decoded snapshot over it is refused, a build re-based. */
#define PLACER_MAX_WALK 256

/* Release a snapshot; NULL is accepted. No thread may still be reading it. */
PLACER_API void placer_snapshot_free(placer_snapshot *s);

/* ------------------------------------------------------------------------ */
/* Lookup (any number of concurrent readers per snapshot)                   */
/* ------------------------------------------------------------------------ */

/* Owner of a key. Ring: the node index of the first token >= the key's
 * position (placer_snapshot_hash), wrapping to the smallest token; other strategies: their
 * rule (see PLACER_RING ...). Returns the index (>= 0), PLACER_ENULL when s
 * is NULL or key is NULL with len > 0, or PLACER_ENOLIVE when a partition
 * map has no active node for the key's partition (an imported -1). */
PLACER_API int placer_lookup(const placer_snapshot *s, const void *key, size_t len);

/* Owner of an already computed hash. Returns the node index, or PLACER_ENULL. */
PLACER_API int placer_lookup_hash(const placer_snapshot *s, uint64_t hash);

/* Owners of n keys at once: owners[i] = placer_lookup(s, keys[i], lens[i]),
 * or PLACER_NO_NODE where that would be PLACER_ENOLIVE.
 * Faster than n single calls: many keys' memory loads are in flight at once
 * (prefetching), which hides memory latency on rings larger than the
 * caches; on a ring's line table ("buckets") each key is hashed and its line
 * prefetched a block of keys before its owner is read from it, in one pass
 * (up to 1,024 keys a call; a larger batch first reads all its key pointers
 * in a pass of their own, for the check below). Every key is
 * checked before any owner is written. n may be 0. Returns 0, or PLACER_ENULL
 * when s is NULL, an array is NULL with n > 0, or some keys[i] is NULL with
 * lens[i] > 0 (then owners is untouched). */
PLACER_API int placer_lookup_batch(const placer_snapshot *s, const void *const *keys,
                                   const size_t *lens, size_t n, uint32_t *owners);

/* Owners of n precomputed hashes: owners[i] = placer_lookup_hash(s,
 * hashes[i]). Returns 0, or PLACER_ENULL (s NULL, or an array NULL with
 * n > 0). */
PLACER_API int placer_lookup_hash_batch(const placer_snapshot *s, const uint64_t *hashes, size_t n,
                                        uint32_t *owners);

/* Owner now and owner after the transition: both differ for keys whose
 * range is moving (read from the old owner, write ahead to the next one),
 * and are the same node otherwise or when no node is joining or draining.
 * Returns 0 or PLACER_ENULL. */
PLACER_API int placer_lookup_handoff(const placer_snapshot *s, const void *key, size_t len,
                                     uint32_t *owner, uint32_t *next_owner);

/* placer_lookup_handoff for a position in the hash space (as
 * placer_snapshot_hash gives it) instead of a key. Returns 0, PLACER_ENULL,
 * or PLACER_ENOLIVE when a partition map has no active node there. */
PLACER_API int placer_lookup_hash_handoff(const placer_snapshot *s, uint64_t hash, uint32_t *owner,
                                          uint32_t *next_owner);

/* The first replica of the key (placer_replicas' order) that is not down:
 * where to read while the owner is down. Returns the node index,
 * PLACER_ENOLIVE when every node that could serve it is down, PLACER_ENULL
 * or PLACER_ENOMEM. */
PLACER_API int placer_lookup_live(const placer_snapshot *s, const void *key, size_t len);

/* Consistent hashing with bounded loads (Mirrokni, Thorup and
 * Zadimoghaddam, SODA 2018; Envoy's hash_balance_factor), PLACER_RING only.
 * loads[i] is the caller's current load of node i (placer_node_count(s)
 * entries: keys, connections, requests in flight...), total their sum, c
 * >= 1 the balance factor (+inf allowed). The nodes that may take keys are
 * the active and draining ones (m of them); the capacity is
 * ceil(c * (total + 1) / m), the new key counted, computed exactly in
 * integers with c read to millionths (1.1 is 11/10). c from 2^32 up to
 * +inf acts as 2^32: the capacity is then past total, so no node whose
 * load is at most total is full and the answer is the first node clockwise
 * that may take keys (the usual owner when it may): unbounded placement.
 * *owner_out receives
 * the first node clockwise from the key's position that may take keys and
 * whose load is below the capacity: the usual owner (placer_lookup) when it
 * is. The caller then adds the key's load to loads[*owner_out] and to
 * total; if every placement goes through this call, no node ever holds
 * more than ceil(c * total / m). Cost: a lookup and two reads while the
 * owner is under the capacity; a walk clockwise otherwise.
 * Returns 0, PLACER_ENULL, PLACER_EINVAL (c NaN or below 1 -- negatives,
 * zeros, subnormals, -inf -- or no node under the capacity: the loads of
 * the eligible nodes sum past total),
 * PLACER_ENOTSUP (not a ring) or PLACER_ENOLIVE (no node active or
 * draining); *owner_out is untouched on error. */
PLACER_API int placer_lookup_bounded(const placer_snapshot *s, const void *key, size_t len,
                                     const uint32_t *loads, uint64_t total, double c,
                                     uint32_t *owner_out);

/* A node's state (PLACER_NODE_*), or PLACER_ENULL / PLACER_ERANGE. */
PLACER_API int placer_node_state(const placer_snapshot *s, uint32_t node);

/* 1 when the snapshot carries a target placement (a node is joining or
 * draining), 0 otherwise or when s is NULL. */
PLACER_API int placer_snapshot_in_transition(const placer_snapshot *s);

/* The position of a key in the snapshot's hash space, which
 * placer_lookup_hash, the diffs and the moves speak of: its key hash of the
 * key -- placer_hash64(its seed, key, len) (placer-v2), the legacy
 * placer-v1, or placer_siphash13(its secret, key, len) when keyed -- or for
 * Couchbase-hash partitions the first position of the key's vBucket. Returns 0 when s is NULL or key is NULL with len > 0:
 * ambiguous, since 0 is also a position a key may have; use
 * placer_snapshot_key_position to tell an error from it. */
PLACER_API uint64_t placer_snapshot_hash(const placer_snapshot *s, const void *key, size_t len);

/* placer_snapshot_hash with the error apart: the key's position in *pos.
 * Returns 0, or PLACER_ENULL (s or pos NULL, or key NULL with len > 0;
 * *pos untouched). */
PLACER_API int placer_snapshot_key_position(const placer_snapshot *s, const void *key, size_t len,
                                            uint64_t *pos);

/* ------------------------------------------------------------------------ */
/* Inspecting snapshots                                                     */
/* ------------------------------------------------------------------------ */

/* Counts; 0 when s is NULL. */
PLACER_API uint32_t placer_node_count(const placer_snapshot *s);
PLACER_API uint32_t placer_token_count(const placer_snapshot *s);

/* Node id, zone, address and datacenter ("" when the node has none). The
 * strings are owned by the snapshot and live as long as it. NULL when s is
 * NULL or node is out of range. */
PLACER_API const char *placer_node_id(const placer_snapshot *s, uint32_t node);
PLACER_API const char *placer_node_zone(const placer_snapshot *s, uint32_t node);
PLACER_API const char *placer_node_address(const placer_snapshot *s, uint32_t node);
PLACER_API const char *placer_node_datacenter(const placer_snapshot *s, uint32_t node);

/* The NetworkTopologyStrategy factor of node `node`'s datacenter in a ring
 * whose sets follow that rule (placer_builder_set_datacenter_replication);
 * 0 under any other rule, when s is NULL or node is out of range. */
PLACER_API uint32_t placer_node_replication(const placer_snapshot *s, uint32_t node);

/* A node's weight (0.0 when out of range) and number of tokens (0 when out
 * of range). */
PLACER_API double placer_node_weight(const placer_snapshot *s, uint32_t node);
PLACER_API uint32_t placer_node_tokens(const placer_snapshot *s, uint32_t node);

/* Token i in ascending order, and its owner. Ring: the token. Partitions and
 * Maglev: the largest position of slot i (its range ends there; the owner
 * is PLACER_NO_NODE where an imported map has none). Jump: bucket i.
 * Rendezvous: i, and candidate i's node. Return 0, or PLACER_ENULL, or
 * PLACER_ERANGE when i >= placer_token_count(s). */
PLACER_API int placer_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token,
                               uint32_t *owner);

/* Bytes of the search layout (the directory, tree nodes and leaves, owners
 * included), for comparison with the 12 bytes per token of plain sorted
 * tokens + owners; 0 when s is NULL. */
PLACER_API size_t placer_snapshot_layout_bytes(const placer_snapshot *s);

/* The search layout the snapshot chose when it was built or decoded, as a
 * static string (NULL when s is NULL):
 *   "buckets"     ring (the usual one): a table of 2^bits 64-byte lines
 *                 indexed by the top bits of the hash, each holding up to
 *                 15 tokens' next 16 bits and their owners, in front of the
 *                 S+ tree; one line answers nearly every hash, ties on
 *                 those bits and crowded lines (16+ tokens) take the tree's
 *                 logarithmic descent;
 *   "directory"   ring of more than 65,536 nodes (owners too wide for the
 *                 lines' 16 bits): a radix directory of 2^bits entries indexed by the
 *                 top bits of the hash, in front of the S+ tree; most
 *                 hashes are answered by one entry (one cache line), the
 *                 others by one or two tree leaves, crowded entries by the
 *                 tree's logarithmic descent;
 *   "stree"       ring: the S+ tree alone (rings of fewer than 64 tokens,
 *                 where the tree is a line or two, or no directory of at
 *                 least 2^8 entries fits the memory budget below);
 *   "table"       partitions, Maglev, jump: an owner table;
 *   "candidates"  rendezvous.
 * The lines (the directory) are sized so that they and the tree stay within
 * 2.5x (2x) the 12 bytes per token of plain sorted tokens + owners, about
 * 1.9x at 30,720 and 2^20 tokens (placer_snapshot_layout_bytes counts
 * both). Thread-safe. */
PLACER_API const char *placer_snapshot_layout_name(const placer_snapshot *s);

/* The ring's line table or directory: its size in bits (2^bits lines or
 * entries) into *bits, and into *one_read the share of the hash space
 * answered by one line or entry: for "buckets", the share of lines not
 * crowded (a tie on a line's 16 bits, about 1 hash in 10,000, also takes
 * the tree); for "directory", entries with no token inside or one owner,
 * and entries holding one token with both owners. Either pointer may be
 * NULL. Returns 0, PLACER_ENULL when s is NULL, or PLACER_EINVAL when the
 * snapshot has neither (placer_snapshot_layout_name is not "buckets" or
 * "directory"). Thread-safe. */
PLACER_API int placer_snapshot_directory(const placer_snapshot *s, uint32_t *bits,
                                         double *one_read);

/* Bytes of precomputed replica sets (placer_builder_set_replicas): the
 * per-slot sets and the line sets beside the line table; 0 when none or s
 * is NULL. */
PLACER_API size_t placer_snapshot_replica_bytes(const placer_snapshot *s);

/* Epoch and hash seed the snapshot was built with; 0 when s is NULL (the
 * seed is 0 for a keyed snapshot, whose secret no call returns). */
PLACER_API uint64_t placer_snapshot_epoch(const placer_snapshot *s);
PLACER_API uint64_t placer_snapshot_seed(const placer_snapshot *s);

/* The snapshot's strategy (PLACER_RING ...) and key hash (PLACER_HASH_*);
 * 0 when s is NULL. */
PLACER_API int placer_snapshot_strategy(const placer_snapshot *s);
PLACER_API int placer_snapshot_key_hash(const placer_snapshot *s);

/* "ring", "partitions", "jump", "rendezvous", "maglev", "compat"
 * (PLACER_EMULATED), "memento", "anchor", "dx", "jumpback", "binomial";
 * NULL when unknown. */
PLACER_API const char *placer_strategy_name(int strategy);

/* The strategy named `name` (as placer_strategy_name spells it, e.g. as
 * membership files' "strategy" field does): its id, or PLACER_EINVAL when
 * no strategy has that name (PLACER_ENULL when name is NULL). */
PLACER_API int placer_strategy_from_name(const char *name);

/* Every strategy id, in ascending order: placer_strategy_next(0) is the
 * first, placer_strategy_next(id) the one after id, 0 after the last:
 *   for (int id = placer_strategy_next(0); id; id = placer_strategy_next(id))
 * The list includes PLACER_EMULATED (PLACER_TRAIT_IMPLIED). */
PLACER_API int placer_strategy_next(int id);

/* What a strategy takes and what it offers (placer_strategy_describe).
 * Options: the builder settings the strategy reads; a membership file's
 * field for one of them applies to the strategies that take it. */
#define PLACER_OPTION_VNODES 0x01u     /* placer_builder_set_vnodes */
#define PLACER_OPTION_TOKENS 0x02u     /* placer_builder_add_token (ring tokens, jump buckets) */
#define PLACER_OPTION_ALLOCATION 0x04u /* placer_builder_set_token_allocation */
#define PLACER_OPTION_REPLICAS 0x08u   /* placer_builder_set_replicas */
#define PLACER_OPTION_PARTITIONS 0x10u /* placer_builder_set_partitions: traits.partitions */
#define PLACER_OPTION_PREVIOUS 0x20u   /* placer_builder_set_previous shapes the placement */
#define PLACER_OPTION_CAPACITY 0x40u   /* a bucket capacity: traits.capacity */
/* Traits: how the strategy places keys and which calls work on it. */
#define PLACER_TRAIT_RANGES 0x01u    /* ownership is ranges of the hash space: placer_diff works */
#define PLACER_TRAIT_WRAPS 0x02u     /* its ranges wrap: the first token also owns past the last */
#define PLACER_TRAIT_BUCKETS 0x04u   /* tokens are bucket numbers of equal share, one owner each */
#define PLACER_TRAIT_REPLICA_MAP 0x08u /* replica sets are part of the placement (placer_replicas
                                          reads them from its map; the count is a setting) */
#define PLACER_TRAIT_BOUNDED 0x10u   /* placer_lookup_bounded works (else PLACER_ENOTSUP) */
#define PLACER_TRAIT_PARTITIONS 0x20u /* placer_partition and the partition calls work */
#define PLACER_TRAIT_IMPLIED 0x40u   /* chosen by another call (placer_builder_set_compat),
                                        refused by placer_builder_set_strategy */
#define PLACER_TRAIT_SCANS_NODES 0x80u /* a lookup scores every node: its cost grows with them */
#define PLACER_TRAIT_TARGET_ALONE 0x100u /* a snapshot may carry a target placement with no node
                                            joining or draining (an imported forward map) */
#define PLACER_TRAIT_HISTORY 0x200u  /* the snapshot carries state beyond its membership (the
                                        order of past changes): rebuild with placer_builder_set_previous */

/* The accepted values of a count setting (0 everywhere when the strategy
 * takes none): min .. max, def when unset; prime: it must be a prime;
 * what: its name in messages ("partitions", "Maglev table size"). */
typedef struct placer_strategy_count {
    uint32_t min, max, def;
    int prime;
    const char *what;
} placer_strategy_count;

/* Size-prefixed, so that it can grow without breaking callers: set size to
 * sizeof(placer_strategy_traits) before the call
 *   placer_strategy_traits t = {.size = sizeof t};
 * the library fills the fields it knows, and zeroes any a newer caller's
 * struct has past them. */
typedef struct placer_strategy_traits {
    size_t size;
    int id;
    const char *name;     /* placer_strategy_name(id) */
    unsigned options;     /* PLACER_OPTION_* */
    unsigned traits;      /* PLACER_TRAIT_* */
    uint64_t key_hashes;  /* bit (1 << PLACER_HASH_*) per key hash it accepts (ids < 64) */
    placer_strategy_count partitions; /* PLACER_OPTION_PARTITIONS */
    placer_strategy_count capacity;   /* PLACER_OPTION_CAPACITY */
} placer_strategy_traits;

/* The oldest size placer_strategy_describe accepts: this first version's
 * (when fields are added, it stays this size, and older callers get the
 * fields their size covers). */
#define PLACER_STRATEGY_TRAITS_MIN_SIZE sizeof(placer_strategy_traits)

/* Fill *out (out->size set by the caller) with what strategy id takes and
 * offers, from its module. Returns 0, PLACER_ENULL, or PLACER_EINVAL for
 * an unknown id or a size below PLACER_STRATEGY_TRAITS_MIN_SIZE. */
PLACER_API int placer_strategy_describe(int id, placer_strategy_traits *out);

/* A key hash's name as membership files spell it: "placer-v1",
 * "couchbase", "placer-v2", "siphash13"; for the compatibility modes' ids
 * (PLACER_HASH_COMPAT_FIRST and up) one name per function ("md5",
 * "fnv1a_64", "haproxy-sdbm", "redis-crc16", ...: docs/FORMAT.md), while
 * placer_snapshot_compat_key_hash gives the program's own spelling; NULL
 * when unknown. */
PLACER_API const char *placer_key_hash_name(int key_hash);

/* ------------------------------------------------------------------------ */
/* Partitions (vBuckets)                                                    */
/* ------------------------------------------------------------------------ */

/* The partition (vBucket) of a key: PLACER_PARTITIONS snapshots only.
 * Returns the partition (>= 0), PLACER_ENULL, or PLACER_EINVAL when s is
 * not a partitions snapshot. */
PLACER_API int placer_partition(const placer_snapshot *s, const void *key, size_t len);

/* Partitions of the snapshot (0 when s is NULL or not partitions), and the
 * copies its map keeps per partition (the active node and its replicas). */
PLACER_API uint32_t placer_partition_count(const placer_snapshot *s);
PLACER_API uint32_t placer_partition_copies(const placer_snapshot *s);

/* Active node of partition p now (*owner) and after the transition
 * (*next_owner: the forward map's, or the same node when there is no
 * transition). Returns 0, PLACER_ENULL, PLACER_EINVAL (not partitions),
 * PLACER_ERANGE (p out of range) or PLACER_ENOLIVE (the map has no active
 * node for p, as an imported map may say with -1). */
PLACER_API int placer_partition_owner(const placer_snapshot *s, uint32_t p, uint32_t *owner,
                                      uint32_t *next_owner);

/* The copies of partition p, active first, as the map lists them (holes
 * skipped): writes at most want node indices and returns how many, or
 * PLACER_ENULL, PLACER_EINVAL or PLACER_ERANGE. */
PLACER_API int placer_partition_replicas(const placer_snapshot *s, uint32_t p, uint32_t *out,
                                         uint32_t want);

/* ------------------------------------------------------------------------ */
/* Replicas                                                                 */
/* ------------------------------------------------------------------------ */

/* How well a replica set met what was asked. under_replicated is 1 when
 * fewer distinct nodes than asked were found, or fewer distinct zones than
 * min(want, zones in the placement). */
typedef struct placer_replica_report {
    size_t size;             /* set by the caller: sizeof(placer_replica_report) */
    uint32_t nodes;          /* distinct nodes written */
    uint32_t zones;          /* distinct zones among them */
    uint32_t zones_possible; /* min(want, zones in the placement) */
    int under_replicated;
} placer_replica_report;

/* The replica set of a key: its owner first, then walking clockwise,
 * distinct physical nodes in zones not used yet while such zones remain,
 * then distinct nodes in zones already used. Deterministic. Writes at most
 * `want` node indices to out, never the same node twice, and returns how
 * many (fewer than want when the placement has fewer nodes; it is never
 * padded), or PLACER_ENULL. */
PLACER_API int placer_replicas(const placer_snapshot *s, const void *key, size_t len,
                               uint32_t *out, uint32_t want);

/* placer_replicas, also filling *report (when not NULL; its size set by
 * the caller, e.g. placer_replica_report r = {.size = sizeof r}) with the
 * number of nodes and zones found and whether the set is under-replicated.
 * PLACER_EINVAL when report->size is below this version's struct. */
PLACER_API int placer_replicas_ex(const placer_snapshot *s, const void *key, size_t len,
                                  uint32_t *out, uint32_t want, placer_replica_report *report);

/* placer_replicas_ex for a position in the hash space (as
 * placer_snapshot_hash gives it) instead of a key: the same set as any key
 * at that position. Returns the count, or PLACER_ENULL (s NULL, or out NULL
 * with want > 0). */
PLACER_API int placer_replicas_hash(const placer_snapshot *s, uint64_t hash, uint32_t *out,
                                    uint32_t want, placer_replica_report *report);

/* Replica sets of n keys: key i's set in out[i * want ...], its size in
 * counts[i]. Every key is checked before anything is written. Returns 0 or
 * PLACER_ENULL. */
PLACER_API int placer_replicas_batch(const placer_snapshot *s, const void *const *keys,
                                     const size_t *lens, size_t n, uint32_t want, uint32_t *out,
                                     uint32_t *counts);

/* ------------------------------------------------------------------------ */
/* Ownership diff: which ranges move where                                  */
/* ------------------------------------------------------------------------ */

/* Hashes h with lo < h <= hi move from node `from` (index in a) to node `to`
 * (index in b). A range with lo >= hi wraps past UINT64_MAX (lo == hi: the
 * whole space). */
typedef struct placer_move {
    uint64_t lo, hi;
    uint32_t from, to;
} placer_move;

/* Every range of the hash space whose owner differs between snapshots a and
 * b, nodes matched by id (a node only in a or only in b always differs).
 * Ranges are in ascending order of hi, except the one that wraps (lo >= hi),
 * which may come first or last; adjacent ranges with the same from and to
 * are merged; a key changes owner if and only if its hash lies in a listed
 * range. *moves receives an array the caller releases with
 * placer_moves_free (NULL when *count is 0). Returns 0, PLACER_ENULL or
 * PLACER_ENOMEM (then *moves and *count are untouched). */
PLACER_API int placer_diff(const placer_snapshot *a, const placer_snapshot *b,
                           placer_move **moves, size_t *count);

/* The ranges a snapshot's transition moves: from owners in its current
 * placement to owners in its target placement (indices of s). No moves when
 * s is not in transition. Same contract as placer_diff. */
PLACER_API int placer_diff_transition(const placer_snapshot *s, placer_move **moves,
                                      size_t *count);

/* Release what placer_diff returned; NULL is accepted. */
PLACER_API void placer_moves_free(placer_move *moves);

/* The fraction of the 2^64 hash space the moves cover (0.0 .. 1.0): the
 * share of positions whose owner changes, computed from the ranges (unlike
 * placer_moved_fraction, which counts keys). */
PLACER_API double placer_moves_coverage(const placer_move *moves, size_t count);

/* The old name of placer_moves_coverage, one letter from
 * placer_moved_fraction: kept until soname 2. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((deprecated("use placer_moves_coverage")))
#endif
PLACER_API double placer_moves_fraction(const placer_move *moves, size_t count);

/* Per node, the fraction of the space it gives away and receives:
 * out_of[i] for node i of a (placer_node_count(a) entries), into[j] for node
 * j of b (placer_node_count(b) entries); either may be NULL. Returns 0,
 * PLACER_ENULL, or PLACER_ERANGE when a move names a node the snapshots do
 * not have. */
PLACER_API int placer_moves_shares(const placer_snapshot *a, const placer_snapshot *b,
                                   const placer_move *moves, size_t count, double *out_of,
                                   double *into);

/* The fraction of keys whose owner differs between a and b (nodes matched by
 * id), for every pair of snapshots: placer_diff_measure's `moved`, with
 * `samples` keys when it samples. Returns 0, PLACER_ENULL, PLACER_EINVAL
 * (samples 0) or PLACER_ENOMEM. */
PLACER_API int placer_moved_fraction(const placer_snapshot *a, const placer_snapshot *b,
                                     uint32_t samples, double *fraction);

/* How placer_diff_measure knows its figures. */
#define PLACER_DIFF_RANGES 1  /* exact: placer_diff's ranges of the position space */
#define PLACER_DIFF_HASHES 2  /* exact: every value of the program's key hash counted */
#define PLACER_DIFF_SAMPLED 3 /* estimated: generated keys looked up in both */

/* placer_diff_measure's flag: sample by keys even where it could count. */
#define PLACER_DIFF_FORCE_SAMPLE 0x1u

/* One from -> to pair of a diff: the share of keys that move from node
 * `from` (index in a) to node `to` (index in b); PLACER_NO_NODE where a
 * map has no owner. */
typedef struct placer_diff_pair {
    uint32_t from, to;
    double share;
} placer_diff_pair;

/* What moves between two snapshots, and how that is known. size is set by
 * the caller (placer_diff_report r = {.size = sizeof r}); the arrays are
 * the library's, released by placer_diff_report_release. */
typedef struct placer_diff_report {
    size_t size;
    int method;           /* PLACER_DIFF_* */
    double moved;         /* the fraction of keys whose owner changes */
    double low95, high95; /* SAMPLED: Wilson's 95% interval; exact: moved */
    uint64_t keys;        /* SAMPLED: keys placed in both snapshots */
    uint64_t unplaced;    /* SAMPLED: keys without an owner in one (left out) */
    uint64_t hash_values; /* HASHES: the key hash values counted (2^32, 2^15, 16384) */
    double *gives;        /* node i of a: the share of keys it gives away */
    double *receives;     /* node j of b: the share of keys it receives */
    placer_diff_pair *pairs; /* every moving pair, largest share first */
    size_t npairs;
} placer_diff_report;

/* Measure what moves from a to b (nodes matched by id), for every pair of
 * snapshots (any strategies, compatibility modes, seeds), as exactly as
 * the placements allow:
 *   - PLACER_DIFF_HASHES when both place keys by the same program hash of
 *     at most 16 bits (nginx's plain hash and the 15-bit crc32: 32,768
 *     values; Couchbase's vBuckets; Redis' 16,384 slots), every value once;
 *     and for two tables read as hash % n over a 32-bit hash (twemproxy
 *     modula, haproxy map-based; two Kafka topics of one partitioner,
 *     whatever their partition counts, over the values its hash takes:
 *     murmur2's sign bit masked, FNV-1a's absolute value), by residues:
 *     each residue of their
 *     period lcm(n, m) weighted by the hashes it stands for, when that
 *     period is at most 2^26 (else sampled);
 *   - PLACER_DIFF_RANGES when both are made of ranges (rings, partitions,
 *     Maglev, the programs' rings) and place keys at the same positions;
 *   - otherwise PLACER_DIFF_SAMPLED: sample_keys generated keys ("key:"
 *     and 16 hex digits of splitmix64 from 0) looked up in both through
 *     placer_lookup_batch, as each snapshot hashes them; 0 chooses 100,000,
 *     fewer (at least 16,384: the interval stays within 1 point) when the
 *     lookups score every node (rendezvous) of large snapshots.
 * flags: 0 or PLACER_DIFF_FORCE_SAMPLE. Returns 0, PLACER_ENULL,
 * PLACER_EINVAL (r->size below this version's struct) or PLACER_ENOMEM (r
 * then holds no arrays). */
PLACER_API int placer_diff_measure(const placer_snapshot *a, const placer_snapshot *b,
                                   uint64_t sample_keys, unsigned flags, placer_diff_report *r);

/* What each node must receive for its new replica sets: replicas nodes
 * a key (placer_replicas_batch), sample_keys generated keys as
 * placer_diff_measure samples them (0: its default). A key's set is
 * compared as a set of node ids: a reordering of the same members moves
 * nothing. r->moved is the share of keys whose set changes members, with
 * its interval; r->receives[j] the share of keys whose set gains b's node
 * j (the copies it must receive), r->gives[i] the share whose set drops
 * a's node i; no pairs. Returns 0, PLACER_ENULL, PLACER_EINVAL (replicas
 * 0 or above 64, r->size too small) or PLACER_ENOMEM. */
PLACER_API int placer_diff_replicas(const placer_snapshot *a, const placer_snapshot *b,
                                    uint32_t replicas, uint64_t sample_keys,
                                    placer_diff_report *r);

/* Release the arrays of a report (the struct itself is the caller's);
 * NULL is accepted. */
PLACER_API void placer_diff_report_release(placer_diff_report *r);

/* ------------------------------------------------------------------------ */
/* Snapshots as bytes (format v1, docs/FORMAT.md)                           */
/* ------------------------------------------------------------------------ */

/* Encode s: *buf receives a buffer the caller releases with
 * placer_buffer_free, *len its length. The encoding is canonical: the same
 * snapshot always gives the same bytes, and encoding a decoded buffer gives
 * that buffer back. Returns 0, PLACER_ENULL or PLACER_ENOMEM. */
PLACER_API int placer_snapshot_encode(const placer_snapshot *s, void **buf, size_t *len);

/* Release what placer_snapshot_encode returned; NULL is accepted. */
PLACER_API void placer_buffer_free(void *buf);

/* Decode len bytes into a new snapshot (*out; release with
 * placer_snapshot_free). Any byte string is safe to pass: magic, version,
 * length and caps are checked, then the CRC-32C, then every count, offset,
 * ordering (tokens sorted), owner, replica entry and string, before a
 * snapshot exists. Returns 0, PLACER_ENULL, PLACER_ENOMEM, PLACER_EFORMAT
 * (not a placer snapshot, or trailing bytes), PLACER_EVERSION,
 * PLACER_ETRUNC, PLACER_ETOOMANY (a count past the caps), PLACER_ECHECKSUM
 * or PLACER_ECORRUPT; on error *out is untouched and nothing stays
 * allocated. buf needs no particular alignment. */
PLACER_API int placer_snapshot_decode(const void *buf, size_t len, placer_snapshot **out);

/* placer_snapshot_decode, also writing into why (when not NULL, at most
 * why_len bytes, NUL-terminated) what a rejected buffer is wrong about. */
PLACER_API int placer_snapshot_decode_ex(const void *buf, size_t len, placer_snapshot **out,
                                         char *why, size_t why_len);

/* ------------------------------------------------------------------------ */
/* Router: lock-free epoch swaps (RCU, liburcu-bp)                          */
/* ------------------------------------------------------------------------ */

/*
 * A router holds the current snapshot of a cluster and swaps in newer ones
 * while any number of threads look up. Readers never block and never see a
 * half-swapped map; a replaced snapshot is freed only after every lookup
 * that could still be reading it has finished (an RCU grace period).
 * Epochs only move forward.
 *
 * Thread contract:
 *  - Any thread may call the lookup, check, epoch and acquire/release
 *    functions at any time, without registering: placer uses liburcu's
 *    "bulletproof" flavour (urcu-bp), which registers a thread on its first
 *    lookup and forgets it when the thread exits.
 *  - Any thread may publish, concurrently with lookups and with other
 *    publishers (publishes are serialised; the newest epoch wins).
 *  - Never call placer_router_publish or placer_router_free between
 *    placer_router_acquire and placer_router_release on the same thread,
 *    and never free a router while other threads still use it.
 *  - fork(): safe from any thread that is not between acquire and release;
 *    placer registers liburcu's call_rcu fork handlers with pthread_atfork,
 *    so routers keep working in the child.
 *  - Signal handlers: the router functions are not async-signal-safe.
 */
typedef struct placer_router placer_router;

/* A router serving `initial` (ownership passes to the router, also when
 * NULL is returned). NULL when initial is NULL or memory runs out. */
PLACER_API placer_router *placer_router_new(placer_snapshot *initial);

/* Wait for pending reclamations, free the current snapshot and the router.
 * NULL is accepted. No other thread may use the router any more. */
PLACER_API void placer_router_free(placer_router *r);

/* Make `next` the current snapshot. Ownership of next always passes to the
 * router: on success the old snapshot is freed after a grace period; on
 * error next is freed at once. Returns 0, PLACER_ENULL, or PLACER_ESTALE
 * when next's epoch is not newer than the current one (the router is
 * unchanged). Does not wait for readers. */
PLACER_API int placer_router_publish(placer_router *r, placer_snapshot *next);

/* placer_lookup on the current snapshot; *epoch (when epoch is not NULL)
 * receives the epoch of the snapshot that answered. Returns the owner's
 * node index, or PLACER_ENULL. */
PLACER_API int placer_router_lookup(placer_router *r, const void *key, size_t len, uint64_t *epoch);

/* placer_lookup_batch on one snapshot (all n answers from the same epoch,
 * reported in *epoch when not NULL). Returns 0 or PLACER_ENULL. */
PLACER_API int placer_router_lookup_batch(placer_router *r, const void *const *keys,
                                          const size_t *lens, size_t n, uint32_t *owners,
                                          uint64_t *epoch);

/* placer_lookup_bounded on the current snapshot. loads has nloads entries;
 * when the snapshot has more nodes than that, nothing is looked up and
 * PLACER_ERANGE is returned (*epoch tells which snapshot: size loads for
 * it). *epoch (when not NULL) receives the epoch of the snapshot that
 * answered. Returns 0 or what placer_lookup_bounded returns, PLACER_ENULL
 * or PLACER_ERANGE. */
PLACER_API int placer_router_lookup_bounded(placer_router *r, const void *key, size_t len,
                                            const uint32_t *loads, uint32_t nloads,
                                            uint64_t total, double c, uint32_t *owner_out,
                                            uint64_t *epoch);

/* Does node `node` own the key now? 0 when it does, PLACER_ENOTMINE when it
 * does not (Couchbase's NOT_MY_VBUCKET), PLACER_ENULL on NULL arguments.
 * *current_epoch (when not NULL) receives the epoch the answer is from. */
PLACER_API int placer_router_check(placer_router *r, uint32_t node, const void *key, size_t len,
                                   uint64_t *current_epoch);

/* Does node `node` hold the active copy of partition p now? 0 when it does,
 * PLACER_ENOTMINE when it does not (NOT_MY_VBUCKET: the caller answers with
 * *current_epoch so the client refreshes its map), PLACER_ENULL, or
 * PLACER_EINVAL / PLACER_ERANGE as placer_partition_owner. */
PLACER_API int placer_router_check_partition(placer_router *r, uint32_t node, uint32_t p,
                                             uint64_t *current_epoch);

/* The current epoch; 0 when r is NULL. */
PLACER_API uint64_t placer_router_epoch(placer_router *r);

/* Hold the current snapshot across several calls (owner, replicas, ids
 * from one epoch): returns it, or NULL when r is NULL. Until the matching
 * placer_router_release on the same thread it stays valid even if newer
 * snapshots are published. Pairs may nest. Keep the section short: it
 * delays the reclamation of replaced snapshots. */
PLACER_API const placer_snapshot *placer_router_acquire(placer_router *r);
PLACER_API void placer_router_release(placer_router *r, const placer_snapshot *s);

/* ------------------------------------------------------------------------ */
/* Packed batches: n keys in one buffer, n + 1 offsets                      */
/* ------------------------------------------------------------------------ */

/* The batch calls for keys packed back to back in one buffer, the layout of
 * Arrow string columns and of a multi-get buffer: key i is the bytes
 * data[offsets[i]] .. data[offsets[i + 1] - 1] (offsets[0] need not be 0).
 * The answers are exactly those of the unpacked call on the same keys.
 * Every offset is checked before anything is written: they must be
 * non-decreasing (PLACER_EINVAL otherwise, also for an offset past
 * SIZE_MAX); data may be NULL only when every key is empty. The caller
 * guarantees that data holds offsets[n] bytes. n may be 0 (offsets is then
 * not read). */

/* placer_lookup_batch on packed keys. Returns 0, PLACER_ENULL (s NULL,
 * offsets or owners NULL with n > 0, data NULL with a non-empty key) or
 * PLACER_EINVAL (offsets decreasing); owners is untouched on error. */
PLACER_API int placer_lookup_batch_packed(const placer_snapshot *s, const void *data,
                                          const uint64_t *offsets, size_t n, uint32_t *owners);

/* placer_router_lookup_batch on packed keys: all n answers from one epoch,
 * reported in *epoch when not NULL. Returns as placer_lookup_batch_packed. */
PLACER_API int placer_router_lookup_batch_packed(placer_router *r, const void *data,
                                                 const uint64_t *offsets, size_t n,
                                                 uint32_t *owners, uint64_t *epoch);

/* placer_replicas_batch on packed keys: key i's set in out[i * want ...],
 * its size in counts[i]. Returns 0, PLACER_ENULL or PLACER_EINVAL, with
 * nothing written on error. */
PLACER_API int placer_replicas_batch_packed(const placer_snapshot *s, const void *data,
                                            const uint64_t *offsets, size_t n, uint32_t want,
                                            uint32_t *out, uint32_t *counts);

/* ------------------------------------------------------------------------ */
/* Memory: the library's one allocation seam                                */
/* ------------------------------------------------------------------------ */

/* The allocator libplacer and libplacer-control use for everything they
 * allocate: the process's malloc (libplacer never links an allocator of its
 * own; a program that links jemalloc gets jemalloc here too), behind the
 * allocation-failure hook of the tests. Code built on libplacer allocates
 * through these so that one injected failure reaches it too; a program may
 * hand them to jansson (json_set_alloc_funcs) or libcurl
 * (curl_global_init_mem), which the libraries themselves never do. Memory
 * from them is malloc's: placer_mem_free and free() both release it.
 * placer_mem_alloc(0) returns a unique pointer; placer_mem_calloc returns
 * NULL when count * size overflows; placer_mem_realloc(NULL, n) is
 * placer_mem_alloc(n). NULL when memory runs out. Thread-safe. */
PLACER_API void *placer_mem_alloc(size_t n);
PLACER_API void *placer_mem_calloc(size_t count, size_t size);
PLACER_API void *placer_mem_realloc(void *p, size_t n);
/* Release memory from the three above; NULL is accepted. */
PLACER_API void placer_mem_free(void *p);

/* ------------------------------------------------------------------------ */
/* Version and CPU                                                          */
/* ------------------------------------------------------------------------ */

/* "MAJOR.MINOR.PATCH"; static. */
PLACER_API const char *placer_version_string(void);

/* The version as one number, MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is
 * 100), for comparisons at run time against PLACER_VERSION_NUMBER, the
 * header's. */
#define PLACER_VERSION_NUMBER \
    (PLACER_VERSION_MAJOR * 10000 + PLACER_VERSION_MINOR * 100 + PLACER_VERSION_PATCH)
PLACER_API unsigned placer_version_number(void);

#define PLACER_CPU_SSE42 (1u << 0)
#define PLACER_CPU_PCLMUL (1u << 1)
#define PLACER_CPU_AVX2 (1u << 2)
#define PLACER_CPU_AVX512 (1u << 3) /* AVX-512 F, BW, VL, DQ with ZMM state saved by the OS */
#define PLACER_CPU_ARM_CRC (1u << 4)
#define PLACER_CPU_ARM_NEON (1u << 5)

/* Features detected once (cpuid, and xgetbv for vector state), masked by
 * placer_set_cpu_mask(). Thread-safe. */
PLACER_API unsigned placer_cpu_features(void);

#define PLACER_KERNEL_CRC32C 0
#define PLACER_KERNEL_HASH64 1
#define PLACER_KERNEL_SEARCH 2 /* single and batched lookups share one layout and kernel family */
#define PLACER_KERNEL_CRC32 3
#define PLACER_KERNEL_RENDEZVOUS 4 /* rendezvous scoring across candidates */
#define PLACER_KERNEL_SIPHASH13 5 /* keyed snapshots' batch hashing: keys across SIMD lanes */
#define PLACER_KERNEL_MD5 6 /* compat modes' MD5 key hash in batches ("nettle": one key at a time) */
#define PLACER_KERNEL_BYTEHASH 7 /* compat modes' byte hashes in SIMD lanes ("bytehash-x4": four in lockstep) */
#define PLACER_KERNEL_CRC_BATCH 8 /* compat modes' CRC-32 / CRC16 key hashes in batches ("none") */

/* Name of the kernel chosen for a job ("sse4.2-3way", "slicing-by-8", ...);
 * NULL for an unknown job. Static string. */
PLACER_API const char *placer_kernel_name(int job);

#ifdef PLACER_STATIC_LINKING_ONLY
/* Testing and diagnosis hook: hide CPU features outside `mask` so that the
 * kernels chosen from then on are the ones a CPU without them would get
 * (pass ~0u to restore). Snapshots built afterwards use the new choice;
 * snapshots built before keep theirs. Call it while no other thread hashes:
 * it is for tests, not for production switching. Returns 0. */
PLACER_API int placer_set_cpu_mask(unsigned mask);

/* Snapshots built or decoded and not yet freed, in this process (tests). */
PLACER_API long placer_snapshots_alive(void);

/* Wait until every snapshot that routers have replaced so far is freed
 * (liburcu's rcu_barrier). Not from inside acquire/release. */
PLACER_API void placer_router_barrier(void);

/* Snapshots this router has replaced and freed so far. */
PLACER_API uint64_t placer_router_reclaimed(placer_router *r);
#endif

#ifdef __cplusplus
}
#endif

#endif /* PLACER_H */
