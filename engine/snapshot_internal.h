/*
 * snapshot_internal.h -- the layout of an immutable snapshot.
 *
 * One 64-byte-aligned allocation holds everything, in this order:
 *   struct placer_snapshot   kernel pointers and the tree's description first
 *   internal tree nodes      64-byte lines, root level first (simd/stree.h)
 *   leaves                   64-byte lines: 5 tokens and their 5 owners
 *   target tree              the same, while a node is joining or draining
 *   replica sets             when precomputed
 *   nodes[nnodes]            plc_node records
 *   strings                  ids and zones, NUL-terminated
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
#include "stree.h"

typedef struct plc_node {
    const char *id;
    const char *zone;
    double weight;
    uint32_t ntokens; /* in the current placement */
    uint32_t zone_id; /* equal for equal zone names */
    int state;        /* PLACER_NODE_* */
    uint32_t pad_;
} plc_node;

struct placer_snapshot {
    /* what every lookup reads */
    plc_stree_key_fn lookup; /* hash + search, fused */
    plc_stree_fn search;
    uint64_t seed;
    plc_stree_key_batch_fn lookup_batch;
    plc_stree_batch_fn search_batch;
    plc_hash64_fn hash64;
    plc_stree tree;
    plc_stree_fn index; /* slot of the first token >= h: replica walks */
    const uint32_t *rep; /* rep_r precomputed replicas per slot, UINT32_MAX-padded */
    uint32_t rep_r;
    /* cold */
    uint64_t epoch;
    const plc_node *nodes;
    uint32_t nnodes;
    uint32_t nzones; /* distinct zones among nodes that own tokens now */
    int has_target;  /* a node is joining or draining: `target` is valid */
    plc_stree target; /* the placement after the transition */
    size_t layout_bytes; /* internal nodes + leaves */
    /* The router's deferred free: a struct rcu_head (router.c checks that it
     * fits) and the router that replaced this snapshot. */
    _Alignas(16) unsigned char rcu_head[32];
    void *replaced_by;
};

/* The replica walk from slot `start` (replicas.c): writes at most want
 * nodes, returns how many, and the distinct zones among them in *zones. */
uint32_t plc_replicas_walk(const placer_snapshot *s, uint32_t start, uint32_t *out, uint32_t want,
                           uint32_t *zones);

/* Count of live snapshots (placer_snapshots_alive); every snapshot made
 * calls plc_snapshot_born, placer_snapshot_free decrements. */
void plc_snapshot_born(void);

#endif
