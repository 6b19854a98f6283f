/*
 * test_crc32_jump.c -- placer_crc32 is zlib's crc32() bit for bit at every
 * CPU level (tests/isa.h: PCLMULQDQ folding, and the tables a CPU without
 * it gets): every
 * length 0..4096 at every alignment 0..15, chaining, 1 MiB, and Couchbase's
 * key -> vBucket examples ("hello" -> 528, "foo" -> 115 of 1024).
 * placer_jump_hash: the published vectors of the paper's function, its
 * range, and its growth property (n -> n+1 moves about 1/(n+1) of the keys,
 * all to the new bucket).
 */
#define PLACER_STATIC_LINKING_ONLY
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "isa.h"
#include "placer.h"
#include "reference.h"

static unsigned vbucket(const char *key)
{
    return ((placer_crc32(0, key, strlen(key)) >> 16) & 0x7fff) % 1024;
}

static void crc32_path(const char *path)
{
    printf("crc32 path: %s\n", placer_kernel_name(PLACER_KERNEL_CRC32));
    enum { MAXLEN = 4096, ALIGN = 16, BIG = 1 << 20 };
    unsigned char *buf = malloc(BIG + 64);
    uint64_t rng = 3;
    for (size_t i = 0; i < BIG + 64; i++)
        buf[i] = (unsigned char)check_rand(&rng);
    long bad = 0;
    for (size_t off = 0; off < ALIGN; off++)
        for (size_t len = 0; len <= MAXLEN; len++)
            if (placer_crc32(0, buf + off, len) != (uint32_t)crc32(0, buf + off, (uInt)len) &&
                bad++ < 5)
                fprintf(stderr, "%s: len %zu off %zu differs from zlib\n", path, len, off);
    CHECK_ALL(bad == 0, "every length 0..4096 at every alignment == zlib");
    CHECK_EQ(placer_crc32(0, buf, BIG), crc32(0, buf, BIG));
    CHECK_EQ(placer_crc32(0, buf, 1000), ref_crc32(0, buf, 1000));
    bad = 0;
    for (int t = 0; t < 300; t++) {
        size_t len = (size_t)(check_rand(&rng) % 20000), split = len ? check_rand(&rng) % len : 0;
        uint32_t whole = (uint32_t)crc32(0, buf, (uInt)len);
        bad += placer_crc32(placer_crc32(0, buf, split), buf + split, len - split) != whole;
    }
    CHECK_ALL(bad == 0, "chaining at random split points");
    CHECK_EQ(placer_crc32(0, NULL, 0), 0);
    CHECK_EQ(placer_crc32(0, "123456789", 9), 0xCBF43926);
    CHECK_EQ(vbucket("hello"), 528);
    CHECK_EQ(vbucket("foo"), 115);
    free(buf);
}

static void jump(void)
{
    CHECK_EQ(placer_jump_hash(123456, 1000), 984);
    CHECK_EQ(placer_jump_hash(256, 1024), 520);
    CHECK_EQ(placer_jump_hash(42, 1), 0);
    CHECK_EQ((uint32_t)placer_jump_hash(42, 0), (uint32_t)-1);
    CHECK_EQ((uint32_t)placer_jump_hash(42, -5), (uint32_t)-1);
    uint64_t rng = 11;
    enum { KEYS = 200000 };
    long out_of_range = 0, bad_move = 0, moved = 0;
    int32_t n = 120;
    for (int i = 0; i < KEYS; i++) {
        uint64_t k = check_rand(&rng);
        int32_t a = placer_jump_hash(k, n), b = placer_jump_hash(k, n + 1);
        out_of_range += a < 0 || a >= n || b < 0 || b > n;
        bad_move += a != b && b != n; /* a key only ever moves to the new bucket */
        moved += a != b;
    }
    double f = (double)moved / KEYS;
    printf("jump 120 -> 121 buckets: %.4f of keys moved (1/121 = %.4f)\n", f, 1.0 / 121);
    CHECK_EQ(out_of_range, 0);
    CHECK_EQ(bad_move, 0);
    CHECK(fabs(f - 1.0 / 121) < 0.2 / 121); /* 200,000 keys: ~2.5% relative noise */

    /* placer's rearranged loop == the paper's loop, for random keys and
     * bucket counts from 1 to 2^31 - 1 (small ones most often). */
    int same = 1;
    for (int i = 0; i < 1000000; i++) {
        uint64_t k = check_rand(&rng), r = check_rand(&rng);
        int32_t buckets = (int32_t)(i % 4 == 0 ? (r >> 33) | 1 : 1 + r % (i % 4 == 1 ? 16 : 100000));
        same &= placer_jump_hash(k, buckets) == ref_jump_hash(k, buckets);
    }
    CHECK_ALL(same, "placer_jump_hash == the paper's loop on 1,000,000 (key, buckets)");
}

/* One CPU level's CRC-32 path: the tables wherever the level lacks
 * PCLMULQDQ. */
static void crc32_level(void *ctx, const cpu_level *level)
{
    (void)ctx;
    if (!(level->mask & PLACER_CPU_PCLMUL))
        CHECK(strcmp(placer_kernel_name(PLACER_KERNEL_CRC32), "slicing-by-8") == 0);
    crc32_path(level->name);
}

int main(void)
{
    CHECK(for_each_cpu_level(crc32_level, NULL) >= 1);
    jump();
    return check_done("test_crc32_jump");
}
