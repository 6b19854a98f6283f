/*
 * bucket_history.h -- what the strategies that let any bucket leave share
 * (memento, anchor, dx): buckets mapped to nodes as jump's, and the
 * removals, in order, that their answers depend on.
 *
 * A placement's state is n buckets (memento: jump's range, which shrinks
 * when its last bucket leaves while nothing else is removed; anchor and
 * dx: the capacity), the node of each bucket in use (PLC_NO_NODE for a
 * removed one) and the removed buckets oldest first. Every change is a
 * removal of a bucket, or an addition, which takes back the last bucket
 * removed (dx: any removed bucket) or, for memento with nothing removed,
 * grows n. An addition undoes the last removal exactly, so the algorithms'
 * lookup arrays are a function of (n, removed buckets in order): each
 * module derives them (aux_fill) when a snapshot is made, built or
 * decoded, and the snapshot file carries only the table and the order
 * (docs/FORMAT.md, sections 8, 9, 15 and 16).
 */
#ifndef PLC_ENGINE_BUCKET_HISTORY_H
#define PLC_ENGINE_BUCKET_HISTORY_H

#include "jump.h"
#include "strategy_ops.h"

/* One placement, in the snapshot's payload. */
typedef struct plc_bhist {
    uint32_t n;     /* buckets */
    uint32_t nhist; /* removed buckets */
    uint32_t nwork; /* buckets in use: n - nhist */
    uint32_t mask;  /* memento: its replacement table's slots - 1 */
    const uint32_t *own;  /* [n]: node of each bucket, PLC_NO_NODE when removed */
    const uint32_t *hist; /* [nhist]: removed buckets, oldest first */
    const uint32_t *work; /* [nwork]: buckets in use, ascending (placer_token_at) */
    const uint32_t *aux;  /* the module's lookup arrays */
    plc_jump_fn jump;     /* the dispatched jump kernels (kernels.h), for memento */
    plc_jump_batch_fn jump_batch;
} plc_bhist;

/* memento's bound on buckets per working bucket (its rules' max_ratio). */
#define PLC_BHIST_MAX_RATIO 64

typedef struct plc_bhist_rules {
    int strategy;
    int fixed;   /* anchor, dx: n is a fixed capacity; memento: n grows and shrinks */
    int pow2;    /* dx: the capacity is a power of two */
    int any_add; /* dx: an explicit bucket may come back out of order */
    /* the lookup arrays of a state: their size in u32, and their values */
    size_t (*aux_words)(uint32_t n, uint32_t nhist);
    int (*aux_fill)(const plc_bhist *st, uint32_t *aux, uint32_t *mask); /* 0 or PLACER_ENOMEM */
    /* the bucket of a position (replicas walk from it) */
    uint32_t (*bucket)(const plc_bhist *st, uint64_t pos);
    /* The longest walk in steps one draw can lead a lookup through (the
     * forced part: memento's replacement chain, anchor's K chain, dx's
     * probes and scan), from n, nhist, own and hist alone, in linear time
     * with scratch of 4 n words. */
    uint64_t (*walk)(const plc_bhist *st, uint32_t *scratch);
    /* memento: n / working buckets at most this (its draws grow as
     * ln(n / w)); 0: no bound (anchor's draws grow as ln(n / w) too, but
     * its walk is bounded by the K chains; dx's probes are in its walk) */
    uint32_t max_ratio;
    /* The steps one lookup of pos takes (tests count them, no timer). */
    uint64_t (*steps)(const plc_bhist *st, uint64_t pos);
} plc_bhist_rules;

/* The longest walk of a placement (rules->walk) and whether it is over
 * the bound (PLACER_MAX_WALK, rules->max_ratio): 1 over, 0 within,
 * PLACER_ENOMEM. *walk receives the walk. */
int plc_bhist_over_bound(const plc_bhist_rules *r, const plc_bhist *h, uint64_t *walk);


/* A module's rules are its ops' `module` (strategy_ops.h), so the build,
 * decode and replica calls below are the modules' ops themselves. */

/* The current or target placement of s. */
static inline const plc_bhist *plc_bhist_of(const placer_snapshot *s, int target)
{
    return target ? s->tbh : s->bh;
}

int plc_bhist_build(placer_builder *b, uint64_t epoch, placer_snapshot **out);

/* The replica walk from the position's bucket over the buckets in use. */
uint32_t plc_bhist_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want,
                            uint32_t *zones);

/* Codec (sections 8, 9, 15, 16) and tokens, for the three modules' ops. */
uint32_t plc_bhist_encode_sections(const placer_snapshot *s, plc_fmt_section *out);
void plc_bhist_encode_section(const placer_snapshot *s, const plc_fmt_section *sec,
                              unsigned char *p);
void plc_bhist_decode_sections(int transition, unsigned *must, unsigned *may);
int plc_bhist_decode_check(plc_dec *d, const placer_builder *b);
int plc_bhist_decode_build(plc_dec *d, placer_builder *b, uint64_t epoch, placer_snapshot **out);
uint32_t plc_bhist_token_count(const placer_snapshot *s);
void plc_bhist_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner);

#endif
