/*
 * builder_internal.h -- what a placer_builder holds, shared by builder.c
 * (mutation, validation, the public build), builder_query.c (what the
 * strategies' builds ask of it) and the builds that turn it into a
 * snapshot.
 */
#ifndef PLC_ENGINE_BUILDER_INTERNAL_H
#define PLC_ENGINE_BUILDER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "placer.h"
#include "key_rule.h"
#include "snapshot_internal.h"

typedef struct plc_bnode {
    char *id;
    char *zone;
    char *addr; /* NULL: none */
    char *dc;   /* the datacenter (placer_builder_set_datacenter); NULL: none */
    uint32_t id_len;
    uint32_t zone_len;
    uint32_t addr_len;
    uint32_t dc_len;
    uint32_t dc_rf; /* its datacenter's NetworkTopologyStrategy factor, set at build
                     * (plc_replication_resolve); 0 under any other rule */
    double weight;
    uint32_t explicit_tokens; /* > 0: no generated tokens */
    int state;                /* PLACER_NODE_* */
    uint32_t hash_id;         /* haproxy's server id (placer_builder_set_hash_id); 0: none */
    uint32_t vnodes;          /* uhashring's own vnodes (placer_builder_set_node_vnodes); 0: none */
} plc_bnode;

typedef struct plc_btoken {
    uint64_t token;
    uint32_t node;
} plc_btoken;

struct placer_builder {
    uint64_t seed;
    uint32_t vnodes;
    int rep_rule;      /* PLACER_REPLICATION_* of the precomputed sets; 0: placer's walk */
    uint32_t rep_all;  /* NetworkTopologyStrategy: the factor of a datacenter not in dc_map */
    /* NetworkTopologyStrategy's factors by datacenter name
     * (placer_builder_set_datacenter_replication), in call order */
    char **dc_map;
    uint32_t *dc_map_rf;
    uint32_t dc_map_n, dc_map_cap;
    uint32_t replicas; /* ring: replica sets to precompute (0: none); partitions: copies (0: 3) */
    int strategy;      /* PLACER_RING ... */
    /* plc_strategy_get(strategy), set with it: the builds read the module
     * from here, so that they need not call the registry (no file cycle) */
    const struct plc_strategy_ops *ops;
    int strategy_set;  /* placer_builder_set_strategy was called: a compat mode checks it */
    int key_hash;      /* PLACER_HASH_*; 0: unset (previous's, or the default) */
    int has_secret;    /* placer_builder_set_secret: SipHash-1-3 under (k0, k1) */
    uint64_t secret_k0, secret_k1;
    uint32_t format_version; /* 0: the current; decode sets the file's */
    /* What a build hashes with, resolved by plc_builder_resolve_hash from
     * the above and the previous snapshot: the builds read only these. */
    int eff_hash;
    plc_hash_key eff_key;
    int tokens;        /* PLACER_TOKENS_*: how a ring's tokens are chosen */
    uint32_t table_size; /* placer_builder_set_partitions: the rows of a table strategy's
                          * table (partitions' count, Maglev's slots); 0: its default */
    uint32_t capacity;   /* anchor, dx: buckets of room (placer_builder_set_capacity); 0: default */
    const placer_snapshot *previous; /* partitions: the map to start from */
    /* An explicit partition map (placer_builder_set_partition_map): map_parts rows of
     * map_copies node indices, active first, PLC_NO_NODE for none; fwd, when
     * not NULL, is the map after the transition. Owned by the builder. */
    uint32_t *map, *fwd;
    uint32_t map_parts, map_copies;
    plc_bnode *nodes;
    uint32_t nnodes, cap_nodes;
    plc_btoken *explicit_tokens; /* in call order */
    uint32_t nexplicit, cap_explicit;
    /* A compatibility mode (placer_builder_set_compat): PLACER_COMPAT_*, 0
     * for none; the engine's PLC_CD_* / PLC_CH_* ids (0: the program's
     * default), haproxy's avalanche, twemproxy's hash tag (NULs: none). */
    int compat, compat_dist, compat_hash, compat_avalanche;
    char compat_tag[2];
    uint32_t compat_params[4]; /* the program's numeric settings (PLC_COMPAT_MAX_PARAMS); 0: default */
    uint64_t compat_max_points; /* plc_compat_config.max_points (the decoder's bound); 0: none */
    int rebased;          /* the last build re-based (placer_builder_rebased) */
    int unbounded;        /* test hook: no walk bound, so tests make old builds' files */
    double rebased_moved; /* the fraction of keys it moved from previous */
    plc_key_rule key_rule; /* haproxy: placer_builder_set_key_rule's; kind 0: none */
    const char *why; /* placer_builder_error: static text, or why_buf */
    char why_buf[160];
    uint32_t *id_index; /* open addressing over ids: node index + 1, 0 = empty */
    uint32_t id_index_cap; /* power of two, > 2 * nnodes */
};

/* Is a node in state `state` part of the current placement (target 0:
 * every node but joining ones) or of the target one (target 1: every node
 * but draining ones)? */
static inline int plc_in_placement(int state, int target)
{
    return target ? state != PLACER_NODE_DRAINING : state != PLACER_NODE_JOINING;
}

/* 1 when a node joins or drains: the snapshot carries a target placement. */
int plc_builder_in_transition(const placer_builder *b);

/* Node indices in ascending order of id (by_zone 0) or zone name
 * (by_zone 1), byte-wise as strcmp; NULL when out of memory. Ids are
 * unique, so the id order is total; among equal zones any order will do. */
uint32_t *plc_builder_order(const placer_builder *b, int by_zone);

/* Settle b->eff_hash and b->eff_key from the key hash, the secret and the
 * previous snapshot (placer_builder_set_key_hash says how). Returns 0 or
 * PLACER_EINVAL. */
int plc_builder_resolve_hash(placer_builder *b);

/* The position of a key or node name under the build's hash (eff_*). */
uint64_t plc_builder_hash(const placer_builder *b, const void *key, size_t len);

/* The kernels of a key hash of the table (key_hashes.c). fused: the ring's
 * fused hash + search kernels hash with it (placer-v2 only). 0, or
 * PLACER_EINVAL for an id the table does not know (nothing written). */
int plc_hash_kernels(int key_hash, const plc_kernels *k, plc_hash_fn *one, plc_hash_batch_fn *batch,
                     int *fused);

/* Index of the node with this id, or -1. */
int plc_builder_find(const placer_builder *b, const char *id);

/* The slot of id in the open-addressing index (its own, or the empty one
 * where it would go): for plc_builder_find and builder.c's insertions. */
uint32_t plc_builder_id_slot(const uint32_t *index, uint32_t cap, const placer_builder *b,
                             const char *id, size_t len);

/* NetworkTopologyStrategy's factors settled for a build
 * (replica_rules.c): each node's dc_rf from its datacenter (dc_map, else
 * rep_all), and b->replicas their sum over the ring's datacenters (the
 * width of a set). 0, or PLACER_EINVAL with b->why (a sum of 0 or above
 * PLACER_MAX_REPLICAS). Any other rule: every dc_rf 0. */
int plc_replication_resolve(placer_builder *b);

/* Each strategy's build is reached through its plc_strategy_ops and
 * declared in its module (engine/strategies/NAME_build.h): nothing here
 * lists the strategies. */

/* A compatibility mode's build (compat_mode_build.c): the builder's settings
 * checked against the mode (PLACER_EINVAL with b->why), then the program's
 * ring or table (compat_snapshot_build.c), or Redis' partitions snapshot. */
int plc_compat_build(placer_builder *b, uint64_t epoch, placer_snapshot **out);

/* The checks of a mode's nodes (weights, hash ids, states, addresses), for
 * plc_compat_build and the decoder (compat_setters.c): 0 or PLACER_EINVAL
 * with b->why. */
int plc_compat_check_nodes(placer_builder *b);

/* The key rule against the mode and its key hash (compat_key_rule.c): 0 or
 * PLACER_EINVAL with the reason. */
int plc_compat_check_key_rule(placer_builder *b);

/* The program's ring or table of b's nodes (b->compat set, not Redis, the
 * settings checked), as a PLACER_EMULATED snapshot whose module is ops
 * (the caller's, from the registry: compat_snapshot_build.c is below it). */
int plc_compat_snapshot_build(placer_builder *b, const struct plc_strategy_ops *ops, uint64_t epoch,
                              placer_snapshot **out);

/* The points or slots b's mode would make of its nodes (plc_compat_layout_size). */
int plc_compat_builder_size(const placer_builder *b, uint64_t *n);

/* Record why a call refused its input (placer_builder_error); returns
 * PLACER_EINVAL (builder_query.c). */
int plc_builder_refuse(placer_builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same, returning code (PLACER_ETOOMANY for a cap passed). */
int plc_builder_refuse_code(placer_builder *b, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One placement of a ring: n sorted tokens and their owners, read with
 * strides (plain arrays or arrays of structs); n = 0 for none. */
typedef struct plc_ring_input {
    const void *tokens;
    size_t token_stride;
    const void *owners;
    size_t owner_stride;
    uint32_t n;
} plc_ring_input;

/* A ring snapshot of b's nodes from its current placement (and target,
 * when tgt.n > 0): replica sets of rep_r copied from rep_src, or walked
 * when rep_src is NULL. NULL when out of memory. */
placer_snapshot *plc_ring_assemble(const placer_builder *b, uint64_t epoch, plc_ring_input cur,
                                   plc_ring_input tgt, const uint32_t *rep_src, uint32_t rep_r);

/* A snapshot of the builder's nodes with `payload` bytes (64-byte aligned)
 * after the header, for the strategy to fill; nodes' ntokens are 0. NULL
 * when out of memory. */
placer_snapshot *plc_snapshot_new(const placer_builder *b, size_t payload, uint64_t epoch,
                                  unsigned char **payload_at);

/* A table strategy's snapshot: copies cur (n rows of width entries) and
 * tgt (when not NULL: tn rows, the target placement) into it and counts
 * each node's active slots. */
int plc_table_snapshot(const placer_builder *b, uint64_t epoch, uint32_t width, const uint32_t *cur,
                       uint32_t n, const uint32_t *tgt, uint32_t tn, placer_snapshot **out);

#endif
