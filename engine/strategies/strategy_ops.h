/*
 * strategy_ops.h -- a placement strategy as one module: the operations
 * every strategy implements, and the one registry that maps PLACER_RING ...
 * to them (strategies.c).
 *
 * A new strategy is one file defining a plc_strategy_ops (its build may
 * live in a *_build.c beside it) and one line in strategies.c's registry;
 * nothing else compares strategy ids (tests/test_strategy_ids.py checks).
 * Generic code (lookup.c, replicas.c, states.c, diff.c, encode.c, decode.c,
 * snapshot.c, builder.c) reaches a snapshot's strategy through s->ops, a
 * builder's through plc_strategy_get(b->strategy); code outside libplacer
 * (control/, cli/, python/) through placer_strategy_describe, which reads
 * the options and traits below.
 *
 * The ring keeps its fused hash + S+ tree kernels in the snapshot header
 * (s->lookup, s->lookup_batch, s->search, s->search_batch): a strategy with
 * fused_stree set is looked up through them with one indirect call and no
 * table indirection; any other strategy gets NULL there, and the lookups
 * call its ops instead.
 */
#ifndef PLC_ENGINE_STRATEGY_OPS_H
#define PLC_ENGINE_STRATEGY_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "builder_internal.h"
#include "snapshot_internal.h"

/* A section of the encoded snapshot (docs/FORMAT.md): its type, aux (a
 * table's width, the replica sets' size) and element count. */
typedef struct plc_fmt_section {
    uint32_t type, aux;
    uint64_t count;
} plc_fmt_section;

/* A placement seen as sorted boundaries, for the diffs: boundary i's owner
 * owns every position after boundary i-1 up to boundary i (the first one
 * wraps). Either a ring's tree or a table of n equal ranges, or neither
 * (a table read as hash % n has no ranges).
 *
 * When keys reach the placement through a program's own key hash (the
 * compatibility modes, Couchbase, Redis), hash_bits is its width: the
 * diff counts its 2^hash_bits values (15: nginx's plain hash, the 15-bit
 * crc32, Couchbase; 14: Redis' slots; 32: the others), and mod_own, when
 * not NULL, is the table read as mod_own[(hash % mod_n) * mod_stride].
 * spans, when not NULL, are the values that table reads, as the 2^32
 * values of the 32-bit hash they come from give them (Kafka's
 * partitioners: murmur2 masks the sign bit, FNV-1a takes the absolute
 * value): the program hash is then the key hash id's alone, whatever the
 * table's size; NULL: every value below 2^32 once. */
typedef struct plc_hash_span {
    uint64_t lo, hi; /* the values [lo, hi) */
    uint32_t times;  /* each stands for this many of the 2^32 */
} plc_hash_span;

typedef struct plc_diff_view {
    const plc_stree *tree;
    const plc_table *table;
    uint32_t n;
    uint32_t wrap_owner; /* owner of boundary 0 */
    unsigned hash_bits;  /* 0: placer's own 64-bit positions */
    const uint32_t *mod_own;
    uint32_t mod_n, mod_stride;
    const plc_hash_span *spans;
    uint32_t nspans;
} plc_diff_view;

typedef struct plc_dec plc_dec; /* the decoder's state (codec_decode.h) */

/* The key hashes of placer's own (a bit per PLACER_HASH_* id), which every
 * strategy takes. */
#define PLC_PLACER_HASHES                                                    \
    (1u << PLACER_HASH_PLACER_V1 | 1u << PLACER_HASH_PLACER_V2 |             \
     1u << PLACER_HASH_SIPHASH13)

/* Positions per chunk of placer_replicas_batch (replicas.c). */
#define PLC_REPLICA_CHUNK 64u

typedef struct plc_strategy_ops {
    int id;           /* PLACER_RING ... */
    const char *name; /* placer_strategy_name */
    uint64_t key_hashes; /* bit (1 << PLACER_HASH_*) per key hash it accepts (ids < 64) */
    int fused_stree;     /* lookups use the header's fused S+ tree kernels */
    /* What placer_strategy_describe reports, and what every caller outside
     * the module asks instead of comparing ids: the builder settings it
     * takes (PLACER_OPTION_*), its traits (PLACER_TRAIT_*; PLACER_TRAIT_RANGES
     * is not set here: it is diff_view != NULL), the accepted values of
     * placer_builder_set_partitions and of a capacity, and the name of its
     * layout (placer_snapshot_layout_name; NULL: "stree" when the snapshot
     * has a tree, else "table"). */
    unsigned options, traits;
    placer_strategy_count partitions, capacity;
    const char *layout;

    /* build: a snapshot of the builder (settings already checked against
     * key_hashes; the strategy checks its own). *out untouched on error. */
    int (*build)(placer_builder *b, uint64_t epoch, placer_snapshot **out);

    /* position of a key in the hash space (placer_snapshot_hash); NULL:
     * the snapshot's key hash, s->hash(&s->hkey, key). */
    uint64_t (*position)(const placer_snapshot *s, const void *key, size_t len);
    /* lookup and batch of keys, when not fused: owner index or
     * PLACER_ENOLIVE; the batch writes PLACER_NO_NODE for the latter. */
    int (*lookup)(const placer_snapshot *s, const void *key, size_t len);
    /* placer_lookup_hash when not fused: the owner of position h now, or
     * PLACER_ENOLIVE; NULL: owner(s, h, 0), PLACER_ENOLIVE for
     * PLACER_NO_NODE (snapshot_build.c). Both single lookups are
     * copied into the snapshot's header when it is made. */
    int (*lookup_hash)(const placer_snapshot *s, uint64_t h);
    void (*lookup_batch)(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                         size_t n, uint32_t *owners);
    /* owner of a position now (target 0) or after the transition (target
     * 1, only asked when s->has_target): the handoff; PLACER_NO_NODE where a
     * map has none. The batch is for the current placement. */
    uint32_t (*owner)(const placer_snapshot *s, uint64_t h, int target);
    void (*owner_batch)(const placer_snapshot *s, const uint64_t *h, size_t n, uint32_t *owners);
    /* the replica set of a position: at most want nodes, the count
     * returned, the distinct zones among them in *zones. */
    uint32_t (*replicas)(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                         uint32_t *zones);
    /* replicas of m <= PLC_REPLICA_CHUNK positions, key j's set at
     * out[j * want] and its count in counts[j] (want >= 1); NULL: one
     * replicas call each. */
    void (*replicas_batch)(const placer_snapshot *s, const uint64_t *h, size_t m, uint32_t want,
                           uint32_t *out, uint32_t *counts);
    /* diff: the placement as ranges; NULL when ownership is not made of
     * ranges (placer_diff says PLACER_ENOTSUP). */
    void (*diff_view)(const placer_snapshot *s, int target, plc_diff_view *v);

    /* encode: the strategy's sections after the node table and strings, in
     * type order (returns how many, at most PLC_FMT_MAX_SECTIONS - 2), and
     * the bytes of one of them. */
    uint32_t (*encode_sections)(const placer_snapshot *s, plc_fmt_section *out);
    void (*encode_section)(const placer_snapshot *s, const plc_fmt_section *sec, unsigned char *p);
    /* decode: the section types it must and may have (a bit per type), its
     * checks of their values against the nodes in b, and the snapshot. */
    void (*decode_sections)(int transition, unsigned *must, unsigned *may);
    int (*decode_check)(plc_dec *d, const placer_builder *b);
    int (*decode_build)(plc_dec *d, placer_builder *b, uint64_t epoch, placer_snapshot **out);

    /* stats: placer_token_count and placer_token_at (i already checked). */
    uint32_t (*token_count)(const placer_snapshot *s);
    void (*token_at)(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner);
    /* what code the module shares with others reads of it (bucket_history.c:
     * its plc_bhist_rules); NULL for the rest */
    const void *module;
} plc_strategy_ops;

/* The strategy's operations, or NULL when `strategy` is no registered
 * PLACER_* strategy (strategies.c). */
const plc_strategy_ops *plc_strategy_get(int strategy);

/* The modules' ops (strategy_*.c) are declared beside their registry
 * lines, in strategies.c: nothing else names them. */

/* Lookups through a position, for the modules whose lookup is "owner of
 * the key's hash" (strategies.c): also the ring's when its key hash is not
 * the fused kernels' (placer-v1, SipHash-1-3). */
int plc_lookup_by_hash(const placer_snapshot *s, const void *key, size_t len);
void plc_lookup_batch_by_hash(const placer_snapshot *s, const void *const *keys,
                              const size_t *lens, size_t n, uint32_t *owners);

/* What the table strategies (partitions, Maglev, jump) share
 * (table_strategy.c): owners from plc_table rows, their sections, their
 * snapshot from decoded sections, their count and diff view. */
uint32_t plc_table_encode_sections(const placer_snapshot *s, plc_fmt_section *out);
void plc_table_encode_section(const placer_snapshot *s, const plc_fmt_section *sec,
                              unsigned char *p);
void plc_table_decode_sections(int transition, unsigned *must, unsigned *may);
int plc_table_decode_build(plc_dec *d, placer_builder *b, uint64_t epoch, placer_snapshot **out);
uint32_t plc_table_token_count(const placer_snapshot *s);
void plc_table_diff_view(const placer_snapshot *s, int target, plc_diff_view *v);
void plc_table_range_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                                 uint32_t *owners);

/* The compat module's codec sections (compat_codec.c). */
uint32_t plc_compat_encode_sections(const placer_snapshot *s, plc_fmt_section *out);
void plc_compat_encode_section(const placer_snapshot *s, const plc_fmt_section *sec,
                               unsigned char *p);
void plc_compat_decode_sections(int transition, unsigned *must, unsigned *may);
int plc_compat_decode_check(plc_dec *d, const placer_builder *b);
int plc_compat_decode_build(plc_dec *d, placer_builder *b, uint64_t epoch, placer_snapshot **out);

#endif
