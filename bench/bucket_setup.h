/*
 * bucket_setup.h -- the snapshots the bucket-strategy benchmarks and
 * programs share (bench_buckets.c, bucket_evenness.c, icount_buckets.c):
 * nodes "node-%04u" of equal weight, optionally following a previous
 * snapshot, and the bucket a node owns.
 */
#ifndef PLACER_BENCH_BUCKET_SETUP_H
#define PLACER_BENCH_BUCKET_SETUP_H

#include <stdint.h>

#include "placer.h"

/* A snapshot of strategy st with the nodes "node-%04u" of ids[0..n), built
 * from prev (NULL: none); NULL, with the builder's reason on stderr, when
 * the build fails. */
placer_snapshot *bench_bucket_build(int st, const uint32_t *ids, uint32_t n,
                                    const placer_snapshot *prev);

/* The first bucket node `id` owns in s; 0 when it owns none. */
uint32_t bench_bucket_of_node(const placer_snapshot *s, const char *id);

#endif
