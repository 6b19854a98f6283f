/*
 * diff_buckets.h -- `placer diff` of two snapshots of one bucket strategy
 * (jump, memento, anchor, dx, jumpback, binomial: PLACER_TRAIT_BUCKETS):
 * the fraction of keys their buckets say should move, beside the sampled
 * one (diff_buckets.c has the model).
 */
#ifndef PLACER_CLI_DIFF_BUCKETS_H
#define PLACER_CLI_DIFF_BUCKETS_H

#include <stdint.h>

#include "placer.h"

typedef struct cli_bucket_diff {
    uint32_t old_buckets, new_buckets; /* buckets in use in OLD, in NEW */
    uint32_t removed;    /* in use in OLD only */
    uint32_t added;      /* in use in NEW only */
    uint32_t reassigned; /* in use in both, another node's (by id) in NEW */
    double expected;     /* the expected moved fraction of keys */
} cli_bucket_diff;

/* Fill *d for a and b; 1 when both are snapshots of one bucket strategy,
 * 0 when not (nothing filled), -1 when out of memory. */
int cli_diff_buckets(const placer_snapshot *a, const placer_snapshot *b, cli_bucket_diff *d);

#endif
