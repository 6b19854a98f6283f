/*
 * compat_program.h -- a compatibility program's ops: everything placer
 * knows about one program (its names, distributions and key hashes, the
 * shape of its layout, how that layout is sized and built, how it hashes
 * a key, the membership fields it takes and their limits, its importer
 * and key-rule hooks), in one const struct defined in the program's own
 * file, compat_<name>.c. compat_registry.c lists them, one line each;
 * every other part of placer (names, the builder's setters, the layout's
 * build, size and key hash, the batch index, the codec, membership files,
 * the CLI and Python) asks the registry instead of comparing program ids.
 *
 * Adding a program (docs/ARCHITECTURE.md, "Adding a compatibility
 * program"):
 *   1. its id: the next PLACER_COMPAT_* in include/placer_compat.h (the
 *      engine uses the public ids; there is no second list to keep equal);
 *   2. engine/compat/compat_<name>.c defining `const plc_compat_program
 *      plc_compat_<name>` (the fields below) and its build, size and key
 *      hash (a 32-bit ring of sorted points, or a table indexed by
 *      hash % n), and what the batch index may do for that key hash
 *      (batch_rule); listed in meson.build; new key hashes go in
 *      compat_hash.h / compat_hash.c;
 *   3. one line in compat_registry.c, in id order;
 *   4. its tests (tests/compat, tests/known-answer: proven against the
 *      real program on this machine) and its section in docs/COMPAT.md.
 * Nothing else compares its id (tests/test_compat_ids.py).
 */
#ifndef PLC_ENGINE_COMPAT_PROGRAM_H
#define PLC_ENGINE_COMPAT_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "compat.h"

/* A distribution the program takes: its name in the program's own
 * spelling ("distribution" in membership files; NULL for a program with
 * one layout and nothing to choose, such as Redis' slots: then the
 * program's list is that one entry), its id (PLC_CD_*; every id has one
 * name for all programs, compat_names.c), the shape of its layout and the
 * key hash the program uses when none is named. The program's first
 * entry is its default distribution. */
typedef struct plc_compat_distribution {
    const char *name;
    int id;       /* PLC_CD_* */
    int kind;     /* PLC_CL_RING, PLC_CL_TABLE or PLC_CL_SCORES */
    int key_hash; /* PLC_CH_*: the default with this distribution */
    /* The width of the key's hash with this distribution when the program
     * narrows it whatever the function (nginx's plain hash keeps 15 bits);
     * 0: the function's own (32, or 15 for the 15-bit crc32). */
    unsigned hash_bits;
} plc_compat_distribution;

/* A key hash name the program takes ("key_hash" in membership files, its
 * own spelling: libmemcached's "crc" is twemproxy's "crc32") and its
 * function's id (PLC_CH_*, compat_hash.h). An id may have several names;
 * the first is the one placer prints. The ids listed are all the program
 * accepts: a layout with any other is refused. Keep the names in the
 * order of compat_names.c's list of every name (messages list them so). */
typedef struct plc_compat_hash_entry {
    const char *name;
    int id; /* PLC_CH_* (a program of partitions: its own ids) */
} plc_compat_hash_entry;

/* The fields a program takes beyond "compat", "distribution", "key_hash"
 * and the nodes' "id" and "weight" (bits of plc_compat_program.fields).
 * A field a program does not take is refused with the names of the
 * programs that do. */
enum {
    PLC_CF_ADDRESS = 1u << 0,       /* each node's "address" is required: it is hashed */
    PLC_CF_HOST_PORT = 1u << 1,     /* ... and is "host:port" with a port of digits */
    PLC_CF_HASH_ID = 1u << 2,       /* the nodes' "hash_id" (a server id, 1 .. max_hash_id) */
    PLC_CF_AVALANCHE = 1u << 3,     /* "avalanche": a full hash over the key hash */
    PLC_CF_HASH_TAG = 1u << 4,      /* "hash_tag": two characters around the hashed part */
    PLC_CF_SLOTS = 1u << 5,         /* "slots": owners of fixed slots (slot_owner) */
    PLC_CF_KEY_RULE = 1u << 6,      /* "key_rule": what of a request is the key */
    PLC_CF_BALANCE_FACTOR = 1u << 7, /* "hash_balance_factor" */
    PLC_CF_MOVES = 1u << 8,         /* nodes may join or drain (with a slot map) */
    PLC_CF_ADDRESS_ONCE = 1u << 9,  /* each address is UTF-8 text, no two nodes' the same
                                     * (the program keys its servers by it: pymemcache) */
    PLC_CF_NODE_VNODES = 1u << 10,  /* a node's own "vnodes" (plc_compat_node.vnodes), in the
                                     * range of the program's "vnodes" param; codec section 14 */
};

/* How the batch index (compat_index.c) may hash a batch of keys for the
 * program (plc_compat_program.batch_rule). Every kind but PLC_CK_OWN says
 * that the program's key_hash, on layouts of two servers or more, is the
 * function of the key plc_compat_hash_function(l->key_hash) after the
 * program's fixed tag (plc_compat_program.tag) is cut, then the rule the
 * kind names: the index hashes whole batches with its SIMD kernels and
 * applies that rule once a batch. Layouts of one server, and tags the user
 * chooses (PLC_CF_HASH_TAG), are hashed key by key. */
enum {
    PLC_CK_OWN = 0,    /* key_hash one key at a time (its hash is not the
                        * function's: uhashring's points, pymemcache's scores) */
    PLC_CK_FUNCTION,   /* the function's value (libmemcached, groupcache) */
    PLC_CK_EMPTY_ZERO, /* ... but an empty key hashes to 0 (twemproxy) */
    PLC_CK_AVALANCHE,  /* ... with "avalanche", haproxy's full hash over it */
    PLC_CK_SLOTS,      /* ... masked to the 16384 slots (Redis Cluster) */
    PLC_CK_NARROWED,   /* ... narrowed to its bits 16..30 where the distribution's
                        * hash_bits is 15 (nginx's plain hash) */
};

/* A numeric setting the program takes beyond the fields above (a
 * membership file's top-level field of that name, placer_builder_set_
 * compat_param's): its name, its range and the value the program itself
 * uses when none is given. The program's build reads it from
 * config->params[i] (i: its place in the program's list), defaults
 * resolved; the codec carries it in section 11. */
typedef struct plc_compat_param {
    const char *name;
    uint32_t min, max, dflt;
} plc_compat_param;

typedef struct plc_compat_program {
    int id;           /* PLACER_COMPAT_* */
    const char *name; /* "compat": NAME; placer_compat_name */
    const char *title; /* what messages call it ("Redis Cluster") */

    /* Its distributions, the first its default; ndistributions entries. */
    const plc_compat_distribution *distributions;
    size_t ndistributions;
    /* Its key hash names; nhashes entries. */
    const plc_compat_hash_entry *hashes;
    size_t nhashes;
    /* A fixed hash tag the program always cuts the key with ("{}" for
     * Redis), or NULL; PLC_CF_HASH_TAG is a tag the user chooses. */
    const char *tag;

    /* Limits of the membership fields (stated here only: the builder, the
     * decoder, membership files and the importers ask for them).
     * max_weight: node weights are integers 1 .. max_weight; 0: the
     * program takes no weights (each node's is 1). max_hash_id: the
     * largest server id (with PLC_CF_HASH_ID). max_name_len: the longest
     * node name (twemproxy's point names: bytes with the NUL), 0: none. */
    uint32_t max_weight;
    uint32_t max_hash_id;
    uint32_t max_name_len;
    unsigned fields; /* PLC_CF_* */
    /* 1 when size is an upper bound of a ring's points (the program drops
     * repeated points: nginx): a decoder then allows a file's ring up to
     * twice its listed points + 4,096 before rebuilding it. */
    int size_is_bound;

    /* The number of points (ring) or slots (table) the build of c would
     * make, from the weights alone, into *n (an upper bound where the
     * program drops repeated points), l resolved (l->distribution,
     * l->key_hash, l->kind set). The weights are checked as the build
     * checks them. 0 or a PLACER_* error. */
    int (*size)(const plc_compat_config *c, const plc_compat_layout *l, uint64_t *n);
    /* The layout itself into l (resolved as for size): l->n, l->points
     * (rings: ascending, ties in the program's order), l->owners and, for
     * programs with server ids, l->hash_ids. More than max_points points
     * or slots is PLACER_ETOOMANY, found before anything that large is
     * made. On error l may hold allocations (the caller frees l). */
    int (*build)(const plc_compat_config *c, plc_compat_layout *l, uint64_t max_points);
    /* The program's 32-bit hash of a key, what its ring or table is
     * searched with: tags cut, one-server and empty-key rules, avalanche.
     * The plain reference the batch index is held to. */
    uint32_t (*key_hash)(const plc_compat_layout *l, const unsigned char *key, size_t len);

    /* What the batch index may do for key_hash (PLC_CK_*): PLC_CK_OWN,
     * the default, calls it for each key. */
    int batch_rule;

    /* Optional: a key's owner (and count keys' owners) where the search of
     * the 32-bit points for key_hash's value is not the whole answer
     * (uhashring's 128-bit points: l->extra decides the ties); NULL: the
     * index's search of key_hash. The plain form is the reference the
     * batch is held to. keys[i] may be NULL only when lens[i] is 0. */
    uint32_t (*lookup)(const plc_compat_layout *l, const void *key, size_t len);
    void (*lookup_batch)(const plc_compat_layout *l, const void *const *keys, const size_t *lens,
                         size_t count, uint32_t *out);

    /* Its numeric settings (at most PLC_COMPAT_MAX_PARAMS); nparams. */
    const plc_compat_param *params;
    size_t nparams;

    /* Optional hooks (NULL: none). The CLI's importer of the program's
     * own configuration ("placer import-NAME"). */
    const char *importer;
    /* A program whose snapshots are placer's partitions, not a layout
     * (Kafka's topics): the check of the builder's settings against it, 0
     * or PLACER_EINVAL with the reason in why (why_len bytes). The mode's
     * build (compat_mode_build.c) then checks the nodes and builds a
     * partitions snapshot of the builder's partition map (or of its
     * partition count, partition p led by node p % nodes) with the key
     * hash key_hash_base + the builder's; size, build and key_hash are not
     * called. NULL: the program's layout. (A check only, calling nothing
     * of the engine's: the registry stays a leaf of the file graph,
     * tests/test_file_cycles.py.) */
    int (*partitions_check)(const placer_builder *b, char *why, size_t why_len);
    /* A program whose snapshots are placer's partitions (Kafka's topics,
     * Redis' slots): their key hash ids are key_hash_base + a hash entry's
     * id (plc_compat_program_of_key_hash finds the program by them, and a
     * partitions build refuses them without the program's mode); 0: a
     * layout's. labels[i]: what placer_key_hash_name calls hashes[i]'s
     * ("kafka-murmur2"). */
    int key_hash_base;
    const char *const *labels;
} plc_compat_program;

/* The registry (compat_registry.c): the program of an id or a name, NULL
 * when there is none (PLACER_COMPAT_NONE, unknown, NULL name); the next
 * program after `prev` (NULL: the first) in id order, NULL after the
 * last. */
const plc_compat_program *plc_compat_program_get(int id);
const plc_compat_program *plc_compat_program_find(const char *name);
const plc_compat_program *plc_compat_program_next(const plc_compat_program *prev);
/* The first program that takes a field (PLC_CF_*), NULL when none does:
 * for messages naming who takes it. */
const plc_compat_program *plc_compat_program_with(unsigned field);
/* The program whose snapshots carry this key hash id (key_hash_base + one
 * of its hash entries' ids), *entry that entry (entry may be NULL); NULL
 * when none: the snapshot's program, if any, is its layout's. */
const plc_compat_program *plc_compat_program_of_key_hash(int key_hash,
                                                         const plc_compat_hash_entry **entry);

/* The program's entry of a distribution id (PLC_CD_DEFAULT: its first)
 * and of a key hash name or id; NULL or 0 when not the program's. */
const plc_compat_distribution *plc_compat_program_distribution(const plc_compat_program *p,
                                                               int id);
int plc_compat_program_hash_id(const plc_compat_program *p, const char *name);
/* The place of a numeric setting in the program's list, -1 when it has
 * no such setting. */
int plc_compat_program_param(const plc_compat_program *p, const char *name);
const char *plc_compat_program_hash_name(const plc_compat_program *p, int id);

#endif
