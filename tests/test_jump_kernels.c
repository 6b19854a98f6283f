/*
 * test_jump_kernels.c -- every jump hash kernel of simd/ (kernels.h's jump
 * and jump_batch: the portable lanes, the double-carried loop with
 * SSE4.1, the AVX2 lanes) against the paper's loop written out here, on
 * random keys and bucket counts from 1 to 2^31 - 1, and batches of every
 * length up to 40 (the AVX2 kernel's groups of eight and its remainder).
 * And JumpBackHash's first-step kernels (kernels.h's jumpback_first: the
 * portable loop, SSE4.1, AVX2, AVX-512) against the first point written out here
 * bit by bit, for every mask width and batches of every length up to 40,
 * random positions and ones made to give the range bits' edge cases.
 * A kernel the machine cannot run is skipped, and said so.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"
#include "ref_buckets.h"

int32_t plc_jump_hash(uint64_t key, int32_t buckets);
void plc_jump_batch_scalar(const uint64_t *keys, size_t n, int32_t buckets, uint32_t *out);
void plc_jumpback_first_scalar(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
#if defined(__x86_64__)
int32_t plc_jump_sse41(uint64_t key, int32_t buckets);
void plc_jump_batch_avx2(const uint64_t *keys, size_t n, int32_t buckets, uint32_t *out);
void plc_jumpback_first_sse41(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
void plc_jumpback_first_avx2(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
void plc_jumpback_first_avx512(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
#endif
typedef void (*first_fn)(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);

typedef void (*batch_fn)(const uint64_t *keys, size_t n, int32_t buckets, uint32_t *out);
typedef int32_t (*one_fn)(uint64_t key, int32_t buckets);

/* Lamping & Veach's loop, as printed. */
static int32_t paper_jump(uint64_t key, int32_t num_buckets)
{
    int64_t b = -1, j = 0;
    while (j < num_buckets) {
        b = j;
        key = key * 2862933555777941757ULL + 1;
        j = (int64_t)((b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1)));
    }
    return (int32_t)b;
}

static int32_t buckets_of(uint64_t r, int i)
{
    switch (i % 5) {
    case 0: return (int32_t)((r >> 33) | 1);       /* up to 2^31 - 1 */
    case 1: return (int32_t)(1 + r % 16);
    case 2: return (int32_t)(1 + r % 100000);
    case 3: return i & 8 ? INT32_MAX : 1;
    default: return (int32_t)(1 + r % 2000);
    }
}

static void check_one(const char *name, one_fn f)
{
    uint64_t rng = 7;
    int same = 1;
    for (int i = 0; i < 1000000; i++) {
        uint64_t k = check_rand(&rng), r = check_rand(&rng);
        int32_t n = buckets_of(r, i);
        same &= f(k, n) == paper_jump(k, n);
    }
    CHECK_ALL(same, name);
}

static void check_batch(const char *name, batch_fn f)
{
    enum { MAXLEN = 40 };
    uint64_t rng = 11, keys[MAXLEN];
    uint32_t out[MAXLEN + 1];
    int same = 1;
    for (int i = 0; i < 60000; i++) {
        size_t len = (size_t)i % (MAXLEN + 1);
        int32_t n = buckets_of(check_rand(&rng), i / 41);
        for (size_t j = 0; j < len; j++)
            keys[j] = check_rand(&rng);
        out[len] = 0xdeadbeef;
        f(keys, len, n, out);
        for (size_t j = 0; j < len; j++)
            same &= out[j] == (uint32_t)paper_jump(keys[j], n);
        same &= out[len] == 0xdeadbeef; /* nothing written past the batch */
    }
    CHECK_ALL(same, name);
}

/* The position whose r0 is r: SplitMix64's finaliser undone (each
 * x ^= x >> s by repeating it, each multiply by the constant's inverse
 * mod 2^64), then the golden step taken off. */
static uint64_t unshift(uint64_t y, int s)
{
    uint64_t x = y;
    for (int k = 0; k < 64 / s + 1; k++)
        x = y ^ (x >> s);
    return x;
}

static uint64_t inverse(uint64_t c)
{
    uint64_t v = c; /* Newton: each step doubles the correct low bits */
    for (int k = 0; k < 6; k++)
        v *= 2 - c * v;
    return v;
}

static uint64_t position_of(uint64_t r)
{
    r = unshift(r, 31) * inverse(0x94d049bb133111ebull);
    r = unshift(r, 27) * inverse(0xbf58476d1ce4e5b9ull);
    return unshift(r, 30) - 0x9e3779b97f4a7c15ull;
}

/* position_of undoes the mix: the edge cases below are the ones meant. */
static void check_position_of(void)
{
    uint64_t rng = 17;
    int same = 1;
    for (int i = 0; i < 1000; i++) {
        uint64_t r = check_rand(&rng), z = position_of(r) + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        same &= (z ^ (z >> 31)) == r;
    }
    CHECK_ALL(same, "the positions made for the edge cases give their r0");
}

/* Positions whose range bits x are the edge cases of a kernel's highest
 * bit and parity: every 2^k, 2^k - 1 (all ones below the top: a float
 * would round it up), 2^k + 1, alternate bits, 0 and all ones, each with
 * a random low half. */
static size_t edge_positions(uint64_t *keys, uint64_t *rng)
{
    size_t n = 0;
    for (int k = 0; k <= 32; k++) {
        uint64_t p = k == 32 ? 0 : UINT64_C(1) << k;
        uint32_t xs[5] = {(uint32_t)p, (uint32_t)(p - 1), (uint32_t)(p + 1),
                          (uint32_t)(0x55555555u >> (k % 2)) & (uint32_t)(p - 1), (uint32_t)~p};
        for (int j = 0; j < 5; j++) {
            uint32_t lo = (uint32_t)check_rand(rng);
            keys[n++] = position_of(((uint64_t)(lo ^ xs[j]) << 32) | lo);
        }
    }
    return n;
}

static void check_first(const char *name, first_fn f)
{
    enum { MAXLEN = 40 };
    uint64_t rng = 13, keys[MAXLEN];
    uint32_t out[MAXLEN + 1];
    int same = 1;
    for (int i = 0; i < 60000; i++) {
        size_t len = (size_t)i % (MAXLEN + 1);
        uint32_t mask = UINT32_MAX >> ((i / 41) % 32); /* every width, 1 .. 32 bits */
        for (size_t j = 0; j < len; j++)
            keys[j] = check_rand(&rng);
        out[len] = 0xdeadbeef;
        f(keys, len, mask, out);
        for (size_t j = 0; j < len; j++)
            same &= out[j] == ref_jumpback_first(keys[j], mask);
        same &= out[len] == 0xdeadbeef;
    }
    uint64_t edges[5 * 33];
    uint32_t got[5 * 33];
    size_t ne = edge_positions(edges, &rng);
    for (int w = 0; w < 32; w++) {
        uint32_t mask = UINT32_MAX >> w;
        f(edges, ne, mask, got);
        for (size_t j = 0; j < ne; j++)
            same &= got[j] == ref_jumpback_first(edges[j], mask);
    }
    CHECK_ALL(same, name);
}

int main(void)
{
    unsigned have = placer_cpu_features();
    check_one("plc_jump_hash == the paper's loop", plc_jump_hash);
    check_batch("jump-scalar batch (four lanes) == the paper's loop", plc_jump_batch_scalar);
    check_position_of();
    check_first("jumpback-scalar first points == bit by bit", plc_jumpback_first_scalar);
#if defined(__x86_64__)
    if (have & PLACER_CPU_SSE42)
        check_one("jump-sse4.1 (double-carried loop) == the paper's loop", plc_jump_sse41);
    else
        printf("jump-sse4.1: no SSE4.2 on this machine, skipped\n");
    if (have & PLACER_CPU_AVX2)
        check_batch("jump-avx2 batch (eight lanes) == the paper's loop", plc_jump_batch_avx2);
    else
        printf("jump-avx2: no AVX2 on this machine, skipped\n");
    if (have & PLACER_CPU_SSE42)
        check_first("jumpback-sse4.1 first points == bit by bit", plc_jumpback_first_sse41);
    else
        printf("jumpback-sse4.1: no SSE4.2 on this machine, skipped\n");
    if (have & PLACER_CPU_AVX2)
        check_first("jumpback-avx2 first points == bit by bit", plc_jumpback_first_avx2);
    else
        printf("jumpback-avx2: no AVX2 on this machine, skipped\n");
    if (have & PLACER_CPU_AVX512)
        check_first("jumpback-avx512 first points == bit by bit", plc_jumpback_first_avx512);
    else
        printf("jumpback-avx512: no AVX-512 on this machine, skipped\n");
#else
    (void)have;
#endif
    return check_done("jump_kernels");
}
