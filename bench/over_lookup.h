/* over_lookup.h -- a replica call and placer_lookup on the same snapshot,
 * their passes alternating in one process: the paired ratio the replica
 * rows' goal (within 1.5x of a lookup) is read from. */
#ifndef PLACER_BENCH_OVER_LOOKUP_H
#define PLACER_BENCH_OVER_LOOKUP_H

#include <stdint.h>

#include "fixtures.h"
#include "shim.h"

/* One pass over the fixture's BENCH_KEYS keys in the caller's mode; a
 * value the compiler cannot drop. */
typedef uint64_t (*bench_pass_fn)(int mode, const placer_snapshot *s, const ring_fixture *f);

/* Passes of mode `mine` and mode `lookup` alternating (the order swapped
 * each pair), each timed in this thread's CPU time: counters over_lookup
 * (the median of the pairs' ratios mine / lookup), over_lookup_p90 (their
 * 90th percentile) and pairs. The row's time is per key of both passes. */
void bench_over_lookup(plc_bench *b, const placer_snapshot *s, const ring_fixture *f, int mine,
                       int lookup, bench_pass_fn pass);

#endif
