/*
 * diff_internal.h -- what the diffs share (diff.c: ranges; diff_measure.c:
 * the moved fraction, per node and per pair, for every pair of snapshots).
 */
#ifndef PLC_ENGINE_DIFF_INTERNAL_H
#define PLC_ENGINE_DIFF_INTERNAL_H

#include "strategy_ops.h"

/* s's placement (target 0: now, 1: after its transition) as a diff view
 * (strategy_ops.h); PLACER_ENOTSUP when it has no ranges (the view may
 * still be a table read as hash % n). */
int plc_diff_view_of(const placer_snapshot *s, int target, plc_diff_view *v);

/* Do a and b place the same keys at the same positions? */
int plc_diff_same_positions(const placer_snapshot *a, const placer_snapshot *b);

/* map[i] = index in b of a's node i (matched by id), or PLC_NO_NODE; NULL
 * when out of memory. Released with plc_free. */
uint32_t *plc_diff_map_nodes(const placer_snapshot *a, const placer_snapshot *b);

/* The moved ranges between two views of ranges; map from
 * plc_diff_map_nodes (or the identity). placer_diff's contract. */
int plc_diff_views(const plc_diff_view *ta, const plc_diff_view *tb, const uint32_t *map,
                   placer_move **moves, size_t *count);

/* Exact counts of two tables read as hash % n over the values of spans
 * (diff_residues.c; strategy_ops.h's plc_hash_span: every value of
 * [lo, hi) `times` times): adds each moving (from, to) pair's number of
 * hash values through add(ctx, from, to, count), from a's index (mod_own
 * of va), to b's; map as above. Returns 0, PLACER_ENOTSUP when their
 * period passes 2^26 residues, or an error of add. */
typedef int plc_diff_add_fn(void *ctx, uint32_t from, uint32_t to, uint64_t count);
int plc_diff_residues(const plc_diff_view *va, const plc_diff_view *vb, const uint32_t *map,
                      const plc_hash_span *spans, size_t nspans, plc_diff_add_fn *add, void *ctx);

/* The generated keys the diffs sample (diff_keys.c): "key:" and 16 hex
 * digits of splitmix64 from 0, PLC_DIFF_CHUNK at a time. */
#define PLC_DIFF_CHUNK 512u
typedef struct plc_diff_keys {
    uint64_t seed; /* start at 0 */
    char text[PLC_DIFF_CHUNK][20];
    const void *keys[PLC_DIFF_CHUNK];
    size_t lens[PLC_DIFF_CHUNK];
} plc_diff_keys;

/* The next min(left, PLC_DIFF_CHUNK) keys into k->keys / k->lens. */
size_t plc_diff_next_keys(plc_diff_keys *k, uint64_t left);

/* How many keys a sample of a against b takes by default: 100,000, fewer
 * (at least 16,384) when the lookups score every node of many. */
uint64_t plc_diff_default_keys(const placer_snapshot *a, const placer_snapshot *b);

/* Wilson's score interval at 95% of moved / keys: inside [0, 1], honest
 * near 0 and 1 ([0, 1] for no keys). */
void plc_diff_wilson95(uint64_t moved, uint64_t keys, double *lo, double *hi);

#endif
