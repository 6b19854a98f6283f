/*
 * test_jump_kernels.c -- every jump hash kernel of simd/ (kernels.h's jump
 * and jump_batch: the portable lanes, the double-carried loop with
 * SSE4.1, the AVX2 lanes) against the paper's loop written out here, on
 * random keys and bucket counts from 1 to 2^31 - 1, and batches of every
 * length up to 40 (the AVX2 kernel's groups of eight and its remainder).
 * And JumpBackHash's first-step kernels (kernels.h's jumpback_first: the
 * portable loop, AVX2, AVX-512) against the first point written out here
 * bit by bit, for every mask width and batches of every length up to 40.
 * A kernel the machine cannot run is skipped, and said so.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"

int32_t plc_jump_hash(uint64_t key, int32_t buckets);
void plc_jump_batch_scalar(const uint64_t *keys, size_t n, int32_t buckets, uint32_t *out);
void plc_jumpback_first_scalar(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
#if defined(__x86_64__)
int32_t plc_jump_sse41(uint64_t key, int32_t buckets);
void plc_jump_batch_avx2(const uint64_t *keys, size_t n, int32_t buckets, uint32_t *out);
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

/* JumpBackHash's first point of position h, bit by bit: SplitMix64's
 * first output r0, the range bits (r0's halves xored, masked), the highest
 * set one 2^i plus the low i bits of r0's low half (an even count of set
 * bits) or high half (odd); 0 when none is set. */
static uint32_t plain_first(uint64_t h, uint32_t mask)
{
    uint64_t r0 = h + 0x9e3779b97f4a7c15ull;
    r0 = (r0 ^ (r0 >> 30)) * 0xbf58476d1ce4e5b9ull;
    r0 = (r0 ^ (r0 >> 27)) * 0x94d049bb133111ebull;
    r0 ^= r0 >> 31;
    uint32_t x = ((uint32_t)r0 ^ (uint32_t)(r0 >> 32)) & mask;
    if (!x)
        return 0;
    int top = 31, set = 0;
    while (!((x >> top) & 1))
        top--;
    for (int j = 0; j < 32; j++)
        set += (x >> j) & 1;
    uint32_t half = set % 2 ? (uint32_t)(r0 >> 32) : (uint32_t)r0;
    return (UINT32_C(1) << top) | (half & ((UINT32_C(1) << top) - 1));
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
            same &= out[j] == plain_first(keys[j], mask);
        same &= out[len] == 0xdeadbeef;
    }
    CHECK_ALL(same, name);
}

int main(void)
{
    unsigned have = placer_cpu_features();
    check_one("plc_jump_hash == the paper's loop", plc_jump_hash);
    check_batch("jump-scalar batch (four lanes) == the paper's loop", plc_jump_batch_scalar);
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
