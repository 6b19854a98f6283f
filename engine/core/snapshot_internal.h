/*
 * snapshot_internal.h -- the layout of an immutable snapshot.
 *
 * One 64-byte-aligned allocation holds everything, in this order:
 *   struct placer_snapshot   kernel pointers and the tree's description first
 *   payload                  the strategy's placement, 64-byte aligned:
 *     ring:        internal tree nodes (64-byte lines, root level first,
 *                  simd/stree.h), leaves (5 tokens and their 5 owners), the
 *                  target tree while a node joins or drains, the line
 *                  table or directory, replica sets when precomputed and
 *                  their line sets (replica_lines.c) and wide line sets
 *                  (replica_wide.c);
 *     partitions, Maglev, jump: the owner table (and the target table);
 *     rendezvous:  the candidates' seeds, inverse weights and node indices
 *                  (and the target's);
 *   nodes[nnodes]            plc_node records
 *   strings                  ids, zones, addresses and datacenters, NUL-terminated
 * so freeing is one call and a reader never chases memory that another
 * snapshot could share. Nothing in it changes after placer_builder_build
 * returns: readers need no synchronisation.
 */
#ifndef PLC_ENGINE_SNAPSHOT_INTERNAL_H
#define PLC_ENGINE_SNAPSHOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "placer.h"
#include "rendezvous.h"
#include "buckets.h"
#include "dir.h"
#include "stree.h"

#define PLC_NO_NODE PLACER_NO_NODE /* the public name, for the engine's tables */

struct plc_strategy_ops; /* strategy_ops.h */

struct plc_compat_index; /* compat_index.h */

/* A strategy's own placer_lookup and placer_lookup_hash (strategy_ops.h):
 * the owner of a key or of a position now, or PLACER_ENOLIVE. */
typedef int (*plc_module_key_fn)(const placer_snapshot *s, const void *key, size_t len);
typedef int (*plc_module_hash_fn)(const placer_snapshot *s, uint64_t h);

/* The owners of a table strategy: slot i's copies are own[i * width ...],
 * the active one first; PLC_NO_NODE where a map has none. Partitions have
 * one row per partition (width = copies), Maglev one entry per table slot
 * and jump one per bucket (width 1). */
typedef struct plc_table {
    const uint32_t *own;
    uint32_t n, width;
    /* all ones up to the top bit of (n - 1) | 1: the range bits a
     * JumpBack lookup keeps (strategy_jumpback.c), computed once here */
    uint32_t range_mask;
} plc_table;

static inline plc_table plc_table_of(const uint32_t *own, uint32_t n, uint32_t width)
{
    return (plc_table){own, n, width, UINT32_MAX >> __builtin_clz((n - 1) | 1)};
}

typedef struct plc_node {
    const char *id;
    const char *zone;
    const char *address;    /* "" when none */
    const char *datacenter; /* "" when none: the level above the zone (its rack) */
    double weight;
    uint32_t ntokens; /* in the current placement */
    uint32_t zone_id; /* equal for equal zone names */
    int state;        /* PLACER_NODE_* */
    uint32_t dc_rf;   /* NetworkTopologyStrategy: its datacenter's factor; else 0 */
} plc_node;

struct placer_snapshot {
    /* what every lookup reads. A ring with the bucketed line table
     * (simd/buckets.h) is looked up through bkt_search, and its batches
     * through bkt_lookup_batch when the key hash is placer-v2 (NULL
     * otherwise); a ring with a radix directory (simd/dir.h, rings of more
     * nodes than 16-bit owners hold) through dir_search; the four S+ tree
     * kernels are NULL unless the strategy's lookups use them (the ring:
     * strategy_ops.h) */
    plc_bkt_fn bkt_search;
    plc_bkt_key_fn bkt_lookup; /* hash + line, fused (placer-v2 only) */
    plc_bkt_key_batch_fn bkt_lookup_batch;
    plc_bkt_batch_fn bkt_search_batch;
    plc_bkt bkt; /* its fallback is `tree` */
    plc_dir_fn dir_search;
    plc_dir_batch_fn dir_search_batch;
    plc_dir dir; /* its entries point into `tree`'s leaves */
    plc_stree_key_fn lookup; /* hash + search, fused (placer-v2 only) */
    plc_stree_fn search;
    uint64_t seed;
    plc_stree_key_batch_fn lookup_batch;
    plc_stree_batch_fn search_batch;
    plc_hash_fn hash; /* the key hash: hash(&hkey, key, len) */
    plc_stree tree;
    plc_hash_batch_fn hash_batch;
    plc_hash_key hkey; /* seed, or the SipHash secret of a keyed snapshot */
    plc_crc32c_fn crc32; /* IEEE: Couchbase's key -> vBucket */
    plc_stree_fn index; /* slot of the first token >= h: replica walks */
    const uint32_t *rep; /* rep_r precomputed replicas per slot, UINT32_MAX-padded */
    uint32_t rep_r;
    int rep_rule; /* PLACER_REPLICATION_*: the rule of the sets (replica_rules.c); 0: placer's walk */
    /* the single lookups of a strategy without the ring's kernels (NULL
     * for the ring): copied from its ops when the snapshot is made
     * (plc_snapshot_new), so that placer_lookup tests one pointer after
     * the ring's line table (placer_lookup_hash before it) and makes one
     * indirect call, with no ops table read; here, after what the ring's lookups
     * read, so that their offsets stay as they were */
    plc_module_key_fn module_lookup;
    plc_module_hash_fn module_lookup_hash;
    /* the slot of a hash from the line table (NULL without one): replica
     * walks start there (plc_slot) */
    plc_bkt_index_fn bkt_index;
    /* the replica walk's first lap over three leaf lines at a time, without
     * a branch a token (simd/walk.h): the ring's, NULL for other strategies
     * and zones the kernels cannot read (plc_replicas_walk_kernels) */
    plc_walk_window_fn walk_window;
    /* the same from the line table alone (NULL without it) */
    plc_walk_lines_fn walk_lines;
    /* 16 bytes of sets beside each line of the line table
     * (replica_lines.c), NULL unless the ring has both the lines and sets
     * of 2 or more */
    const uint8_t *rep_lines;
    /* the line sets' fused kernels, hashing with placer-v2 (NULL without
     * line sets or with another key hash), and the largest count they
     * serve (min(rep_r, 3), 3 for a replication strategy's sets; 0 when
     * there are no line sets) */
    plc_bkt_key_set_fn bkt_set;
    plc_bkt_key_sets_fn bkt_sets_batch;
    uint32_t rep_lines_want;
    /* wide line sets (replica_wide.c): sets of 4 or 5 read beside the
     * line table, 16 entries a line of four lanes of rep_wide_lane bytes
     * (1 or 2); NULL unless the ring has the lines and sets of that size */
    const void *rep_wide;
    uint32_t rep_wide_lane;
    /* the wants they serve are 4 .. 3 + rep_wide_span: rep_r - 3, or
     * UINT32_MAX - 3 for a replication strategy's sets (rep_r nodes
     * whatever is asked); 0 without them */
    uint32_t rep_wide_span;
    /* the zones of nodes 0..127 as 16-bit words (zone_id, when below
     * PLC_WALK_MAX_ZONES) for the walk's window on rings of that few
     * nodes (simd/walk.h) */
    uint16_t walk_zone16[PLC_WALK_SMALL_NODES];
    /* cold */
    uint64_t epoch;
    const plc_node *nodes;
    uint32_t nnodes;
    uint32_t nzones; /* distinct zones among nodes that own tokens now */
    uint32_t zone_ids; /* distinct zone names among all nodes: zone_id < zone_ids */
    uint32_t nbounded; /* active and draining nodes: those bounded lookups may pick */
    int has_target;  /* a node is joining or draining: `target` is valid */
    plc_stree target; /* the placement after the transition */
    size_t layout_bytes; /* lines or directory + internal nodes + leaves; the tables or candidates otherwise */
    /* The strategy's module, and what the others hold; the ring's lookups
     * read none of it. */
    const struct plc_strategy_ops *ops;
    int strategy; /* PLACER_RING ... */
    int key_hash; /* PLACER_HASH_* */
    uint32_t format_version; /* what encode writes: 2, or 1 when decoded from 1 */
    plc_table table, ttable; /* partitions, Maglev, jump: now and in the target */
    plc_hrw_set hrw, thrw;   /* rendezvous candidates: now and in the target */
    /* memento, anchor, dx: the buckets, their removals in order and the
     * lookup arrays (bucket_history.h), now and in the target; `table` and
     * `ttable` hold their owners. */
    const struct plc_bhist *bh, *tbh;
    /* A compatibility mode's layout, search tree and key hash kernels (its
     * own allocation, released by placer_snapshot_free): the program's
     * ring or table (PLACER_EMULATED; `tree` is its tree), or the slot hash
     * of a Redis partitions snapshot. NULL otherwise. */
    struct plc_compat_index *compat;
    /* The router's deferred free: a struct rcu_head (router.c checks that it
     * fits) and the router that replaced this snapshot. */
    _Alignas(16) unsigned char rcu_head[32];
    void *replaced_by;
};

/* Relations across a decoded snapshot's sections (decode_relations.c):
 * ring replica sets are the walk from their token. 0, PLACER_ECORRUPT with
 * the reason in why, or PLACER_ENOMEM. */
int plc_snapshot_relations(const placer_snapshot *s, char *why, size_t why_len);

/* Every slot's precomputed replica set under s->rep_rule (replica_rules.c):
 * R entries a slot, UINT32_MAX-padded. 0 or PLACER_ENOMEM. A sweep where
 * the rule allows one (plc_replica_sweep, then plc_replica_sweep_dcs),
 * else the move-to-front lists. The two below take one way only, for the
 * tests that hold them to each other: the lists (any ring and rule) and
 * the datacenters' sweep (PLC_SWEEP_DECLINED where it does not apply). */
int plc_replica_sets(const placer_snapshot *s, uint32_t R, uint32_t *sets);
int plc_replica_sets_by_lists(const placer_snapshot *s, uint32_t R, uint32_t *sets);
int plc_replica_sets_by_dc_sweep(const placer_snapshot *s, uint32_t R, uint32_t *sets);

/* The replica walk from slot `start` of the ring (replica_walk.c): writes
 * at most want nodes, returns how many, and the distinct zones among them
 * in *zones. */
uint32_t plc_replicas_walk(const placer_snapshot *s, uint32_t start, uint32_t *out, uint32_t want,
                           uint32_t *zones);

/* Give s the walk's window kernels (simd/walk.h) when they can read its
 * zones (ids below 32, nodes within the gather's indexes), else NULL: the
 * walk then goes a token at a time. After s's nodes are numbered. */
void plc_replicas_walk_kernels(placer_snapshot *s, plc_walk_window_fn window,
                               plc_walk_lines_fn lines);

/* The walk of hash h on a ring with the line table (s->bkt_index), want
 * >= 1: from the lines alone when they hold the set (s->walk_lines), else
 * from h's slot. */
uint32_t plc_replicas_walk_hash(const placer_snapshot *s, uint64_t h, uint32_t *out,
                                uint32_t want);

/* The same walk over a flat owner sequence seq[0..n), starting at `start`
 * and wrapping (Maglev, jump). */
uint32_t plc_replicas_walk_flat(const placer_snapshot *s, const uint32_t *seq, uint32_t n,
                                uint32_t start, uint32_t *out, uint32_t want, uint32_t *zones);

/* The walk from every slot of the ring at once, into sets[i * want ..]
 * (padded with UINT32_MAX): what plc_replicas_walk gives from each slot, in
 * O(slots x want^2) instead of up to O(slots^2). 0 or PLACER_ENOMEM. */
int plc_replicas_walk_all(const placer_snapshot *s, uint32_t want, uint32_t *sets);

/* Every slot's set under s->rep_rule in one backward sweep
 * (replica_sweep.c), into sets[i * want ..] padded with UINT32_MAX: placer's
 * walk, SimpleStrategy, and NetworkTopologyStrategy in one datacenter of
 * enough racks, in O(slots x want). 0, PLACER_ENOMEM, or PLC_SWEEP_DECLINED
 * (another NetworkTopologyStrategy ring: nothing written). */
#define PLC_SWEEP_DECLINED 1
int plc_replica_sweep(const placer_snapshot *s, uint32_t want, uint32_t *sets);

/* NetworkTopologyStrategy's sets over datacenters of at least their
 * factor of racks owning tokens, or of one rack, in one backward sweep
 * (replica_sweep_dcs.c): key_of each node's key (its rack's id, or a host
 * id past every rack's in a datacenter of one rack), place its
 * datacenter's list among the nd kept (UINT32_MAX: not replicated to) and
 * widths each list's width (the factor, or fewer hosts), in the order
 * replica_rules.c cuts a set at R. 0 or PLC_SWEEP_DECLINED (a list short
 * after a lap: nothing written). */
int plc_replica_sweep_dcs(const placer_snapshot *s, uint32_t R, const uint32_t *key_of,
                          const uint32_t *place, const uint32_t *widths, uint32_t nd,
                          uint32_t *sets);

/* The line sets of a ring (replica_lines.c): their bytes for a line table
 * of 2^bkt_bits lines and sets of rep_r (0 when it gets none), and their
 * build from s->rep and s->bkt into `sets` (that many bytes, 64-byte
 * aligned). */
size_t plc_replica_lines_bytes(uint32_t bkt_bits, uint32_t rep_r);
void plc_replica_lines_build(const placer_snapshot *s, uint8_t *sets);

/* The wide line sets of a ring (replica_wide.c): the bytes of a lane for
 * nnodes nodes (1 up to 255 nodes, else 2); their bytes for a line table
 * of 2^bkt_bits lines, sets of rep_r (0 unless 4 <= rep_r <= PLC_WIDE_MAX)
 * and nnodes nodes; and their build from s->rep and s->bkt into `wide`
 * (that many bytes, 64-byte aligned). An entry whose first lane is all
 * ones cannot answer. */
#define PLC_WIDE_MAX 5u
uint32_t plc_replica_wide_lane_bytes(uint32_t nnodes);
size_t plc_replica_wide_bytes(uint32_t bkt_bits, uint32_t rep_r, uint32_t nnodes);
void plc_replica_wide_build(const placer_snapshot *s, void *wide);

/* Distinct zones among the k nodes of set (replica_walk.c). */
uint32_t plc_distinct_zones(const placer_snapshot *s, const uint32_t *set, uint32_t k);

/* Through the snapshot's strategy (strategies.c). plc_position: the 64-bit
 * position of a key in the hash space (placer_snapshot_hash); plc_owner:
 * the active owner of a position now (target 0) or after the transition
 * (target 1; the current one when there is none), PLC_NO_NODE when a map
 * has none; plc_replicas_at: the replica set of a position;
 * plc_lookup_unfused: placer_lookup of a ring whose key hash has no fused
 * kernel and no line table or directory. */
uint64_t plc_position(const placer_snapshot *s, const void *key, size_t len);
uint32_t plc_owner(const placer_snapshot *s, uint64_t h, int target);
uint32_t plc_replicas_at(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                         uint32_t *zones);
int plc_lookup_unfused(const placer_snapshot *s, const void *key, size_t len);

/* The slot of the first token >= h in the ring's tree (0 past the last):
 * from the line table when the snapshot has one, else the tree's descent. */
static inline uint32_t plc_slot(const placer_snapshot *s, uint64_t h)
{
    if (s->bkt_index)
        return s->bkt_index(&s->bkt, h);
    return s->index(&s->tree, h);
}

/* plc_lookup_key's paths after the line table's: another strategy's own
 * lookup (one indirect call), else the ring's hash and the line table or
 * directory (two), else the fused tree kernel (one), else the ring's ops. */
static inline int plc_lookup_key_rest(const placer_snapshot *s, const void *key, size_t len)
{
    plc_module_key_fn module = s->module_lookup;
    if (module)
        return module(s, key, len);
    if (s->bkt_search)
        return (int)s->bkt_search(&s->bkt, s->hash(&s->hkey, key, len));
    plc_dir_fn dir = s->dir_search;
    if (__builtin_expect(dir != NULL, 1))
        return (int)dir(&s->dir, s->hash(&s->hkey, key, len));
    plc_stree_key_fn fused = s->lookup;
    if (__builtin_expect(fused != NULL, 1))
        return (int)fused(&s->tree, s->seed, key, len);
    return plc_lookup_unfused(s, key, len);
}

typedef int (*plc_lookup_rest_fn)(const placer_snapshot *s, const void *key, size_t len);

/* The one choice of the line table, for placer_lookup and the router: the
 * fused hash + line kernel when the snapshot has the table (one indirect
 * call, one line read for nearly every key), else `rest`. Always inlined
 * with a constant `rest`: placer_lookup passes plc_lookup_key_rest, which
 * is inlined too; the router passes an out-of-line copy of it, so that
 * nothing the other paths need lives across its read-side section. */
__attribute__((always_inline)) static inline int plc_lookup_key_with(const placer_snapshot *s,
                                                                     const void *key, size_t len,
                                                                     plc_lookup_rest_fn rest)
{
    plc_bkt_key_fn lines = s->bkt_lookup;
    if (__builtin_expect(lines != NULL, 1))
        return (int)lines(&s->bkt, s->seed, key, len);
    return rest(s, key, len);
}

/* placer_lookup without the argument checks. */
static inline int plc_lookup_key(const placer_snapshot *s, const void *key, size_t len)
{
    return plc_lookup_key_with(s, key, len, plc_lookup_key_rest);
}

/* The ring's batch through its line table or directory when the key hash
 * has no fused kernel: keys hashed a chunk at a time by the snapshot's
 * batch hash (several keys' chains in flight), then the chunk's owners
 * from the hashes (lookup.c). */
void plc_dir_lookup_batch(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                          size_t n, uint32_t *owners);

/* Count of live snapshots (placer_snapshots_alive); every snapshot made
 * calls plc_snapshot_born, placer_snapshot_free decrements. */
void plc_snapshot_born(void);

#endif
