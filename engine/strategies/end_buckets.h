/*
 * end_buckets.h -- what the strategies with jump's contract share (buckets
 * 0 .. n-1 in a plc_table of width 1, grown and shrunk at the end, built
 * by jump_build.c): jumpback and binomial. Each module gives its bucket
 * function; end_buckets.c turns it into owners, batches, replicas and the
 * decoder's checks.
 */
#ifndef PLC_ENGINE_END_BUCKETS_H
#define PLC_ENGINE_END_BUCKETS_H

#include "strategy_ops.h"

/* The bucket of position h among n >= 1 buckets. */
typedef uint32_t (*plc_bucket_fn)(uint64_t h, uint32_t n);

/* Owner of position h in the current (target 0) or target table. */
static inline uint32_t plc_end_owner(const placer_snapshot *s, uint64_t h, int target,
                                     plc_bucket_fn f)
{
    const plc_table *t = target ? &s->ttable : &s->table;
    return t->own[f(h, t->n)];
}

/* placer_lookup_hash of such a strategy: the node of position h's bucket
 * now, straight from the module's own op (no owner op called through the
 * ops table); f inlines when the module passes its static inline bucket. */
static inline int plc_end_lookup_hash(const placer_snapshot *s, uint64_t h, plc_bucket_fn f)
{
    uint32_t o = s->table.own[f(h, s->table.n)];
    return o == PLC_NO_NODE ? PLACER_ENOLIVE : (int)o;
}

uint32_t plc_end_replicas(const placer_snapshot *s, uint32_t bucket, uint32_t *out, uint32_t want,
                          uint32_t *zones);
int plc_end_decode_check(plc_dec *d, const placer_builder *b);
void plc_end_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner);

#endif
