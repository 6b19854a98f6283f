/*
 * fixtures.h -- rings of the benchmark matrix, built once per process and
 * shared by every benchmark of that size, so placer and its peers always
 * see the same tokens and the same keys.
 */
#ifndef PLACER_BENCH_FIXTURES_H
#define PLACER_BENCH_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "eytzinger.h"
#include "placer.h"
#include "stree.h"

#define BENCH_KEYS 65536u
#define BENCH_KEY_LEN 32u
#define BENCH_NSIZES 6

typedef struct ring_fixture {
    uint32_t size;  /* tokens */
    uint32_t nodes; /* physical nodes: 120 for the seed ring, else 128 */
    placer_snapshot *snap;
    const plc_stree *tree; /* the snapshot's own layout */
    uint64_t *tokens;      /* the same tokens, sorted, as a plain array */
    uint32_t *owners;
    plc_eytzinger eyt;
    unsigned char *keys;   /* BENCH_KEYS keys of BENCH_KEY_LEN bytes */
    const void **key_ptrs;
    size_t *key_lens;
    uint64_t *hashes;      /* placer's hash of each key */
    double build_ms;
} ring_fixture;

extern const uint32_t bench_sizes[BENCH_NSIZES];

/* The fixture for bench_sizes[i]; built on first use. */
const ring_fixture *bench_fixture(int i);

/* The seed scenario's ring (120 nodes in 3 zones, 256 tokens each) at
 * `epoch`; NULL when the build fails. The caller owns it. */
placer_snapshot *bench_seed_ring(uint64_t epoch);
/* The same ring without node left_out (0-119; 120 leaves none out): a
 * ring that differs from the seed ring as after one node's departure. */
placer_snapshot *bench_seed_ring_less(uint64_t epoch, unsigned left_out);

/* This thread's CPU time in ns: a paired pass's cost on a shared machine. */
double bench_thread_ns(void);
/* The median of v[0..n) (sorted in place); 0 when n is 0. */
double bench_median(double *v, uint32_t n);

/* n distinct 32-byte keys, "sess::%026zu" of i * 2654435761 (the public
 * rows' streams), into malloc'd *bytes, *ptrs and *lens; exits when out
 * of memory. */
void bench_session_keys(uint32_t n, unsigned char **bytes, const void ***ptrs, size_t **lens);

/* The name used in benchmark names: "1024", "30720", "2^18", ... */
const char *bench_size_name(int i);

#endif
