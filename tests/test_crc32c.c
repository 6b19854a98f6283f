/*
 * test_crc32c.c -- one test body run against every CRC-32C path this CPU
 * has (hardware three-stream, software slicing-by-8), through the public
 * placer_crc32c after masking CPU features, as a CPU without SSE4.2 would
 * choose: RFC 3720 B.4 vectors, "123456789", every length 0..4096 at every
 * alignment 0..15 against the bitwise reference, chaining at random split
 * points, and buffers long enough for the LONG three-stream blocks.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isa.h"
#include "kernels.h"
#include "placer.h"
#include "reference.h"

static void rfc3720_vectors(const char *path)
{
    unsigned char buf[48];
    memset(buf, 0, 32);
    CHECK_EQ(placer_crc32c(0, buf, 32), 0x8A9136AA);
    memset(buf, 0xff, 32);
    CHECK_EQ(placer_crc32c(0, buf, 32), 0x62A8AB43);
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char)i;
    CHECK_EQ(placer_crc32c(0, buf, 32), 0x46DD794E);
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char)(31 - i);
    CHECK_EQ(placer_crc32c(0, buf, 32), 0x113FDB5C);
    static const unsigned char iscsi_read[48] = {
        0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
        0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    CHECK_EQ(placer_crc32c(0, iscsi_read, sizeof iscsi_read), 0xD9963A56);
    CHECK_EQ(placer_crc32c(0, "123456789", 9), 0xE3069283);
    CHECK_EQ(placer_crc32c(0, NULL, 0), 0);
    CHECK_EQ(placer_crc32c(0x12345678, NULL, 0), 0x12345678);
    (void)path;
}

static void every_length_and_alignment(plc_crc32c_fn crc, const char *path)
{
    enum { MAXLEN = 4096, MAXALIGN = 16 };
    unsigned char *src = malloc(MAXLEN), *buf = malloc(MAXLEN + MAXALIGN + 64);
    uint32_t *expect = malloc((MAXLEN + 1) * sizeof *expect);
    uint64_t rng = 42;
    for (size_t i = 0; i < MAXLEN; i++)
        src[i] = (unsigned char)check_rand(&rng);
    /* The reference for every prefix, one byte at a time (it chains). */
    expect[0] = 0;
    for (size_t len = 1; len <= MAXLEN; len++)
        expect[len] = ref_crc32c(expect[len - 1], src + len - 1, 1);
    long bad = 0;
    for (size_t align = 0; align < MAXALIGN; align++) {
        memcpy(buf + align, src, MAXLEN);
        for (size_t len = 0; len <= MAXLEN; len++)
            if (crc(0, buf + align, len) != expect[len] && bad++ < 5)
                fprintf(stderr, "%s: length %zu alignment %zu differs\n", path, len, align);
    }
    CHECK_ALL(bad == 0, "every length 0..4096 at every alignment 0..15");
    free(src);
    free(buf);
    free(expect);
}

static void chaining_and_long_buffers(plc_crc32c_fn crc, const char *path)
{
    enum { BIG = 1 << 20 };
    unsigned char *buf = malloc(BIG);
    uint64_t rng = 7;
    for (size_t i = 0; i < BIG; i++)
        buf[i] = (unsigned char)check_rand(&rng);
    uint32_t whole = ref_crc32c(0, buf, BIG);
    CHECK_EQ(crc(0, buf, BIG), whole);
    long bad = 0;
    for (int trial = 0; trial < 200; trial++) {
        size_t len = (size_t)(check_rand(&rng) % BIG), split = len ? check_rand(&rng) % len : 0;
        size_t off = (size_t)(check_rand(&rng) % (BIG - len + 1));
        uint32_t one = crc(0, buf + off, len);
        uint32_t two = crc(crc(0, buf + off, split), buf + off + split, len - split);
        if (one != two || (trial < 20 && one != ref_crc32c(0, buf + off, len)))
            if (bad++ < 5)
                fprintf(stderr, "%s: len %zu split %zu differs\n", path, len, split);
    }
    CHECK_ALL(bad == 0, "chaining at random split points");
    /* Around the block boundaries of the three-stream path. */
    static const size_t edges[] = {767, 768, 769, 24575, 24576, 24577, 24576 + 768, 49152 + 7};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        for (size_t off = 0; off < 3; off++)
            CHECK_EQ(crc(0, buf + off, edges[i]), ref_crc32c(0, buf + off, edges[i]));
    free(buf);
}

static void run_path(const char *path)
{
    const plc_kernels *k = plc_kernels_get();
    printf("crc32c path: %s\n", k->crc32c_name);
    rfc3720_vectors(path);
    every_length_and_alignment(k->crc32c, path);
    every_length_and_alignment(placer_crc32c, path);
    chaining_and_long_buffers(k->crc32c, path);
}

/* At each CPU level: the hardware path where the level has the CRC
 * instruction, the tables where it has not. */
static void at_level(void *ctx, const cpu_level *level)
{
    (void)ctx;
    int hw = (level->mask & (PLACER_CPU_SSE42 | PLACER_CPU_ARM_CRC)) != 0;
    CHECK_EQ(strcmp(placer_kernel_name(PLACER_KERNEL_CRC32C), "slicing-by-8") != 0, hw);
    run_path(level->name);
}

int main(void)
{
    CHECK(for_each_cpu_level(at_level, NULL) >= 1);
    /* Hardware and software agree bit for bit on random inputs, directly. */
    const plc_kernels *cur = plc_kernels_get(), *sw = plc_kernels_sw();
    unsigned char buf[1000];
    uint64_t rng = 99;
    long bad = 0;
    for (int i = 0; i < 20000; i++) {
        size_t len = check_rand(&rng) % sizeof buf;
        for (size_t j = 0; j < len; j++)
            buf[j] = (unsigned char)check_rand(&rng);
        uint32_t seed = (uint32_t)check_rand(&rng);
        bad += cur->crc32c(seed, buf, len) != sw->crc32c(seed, buf, len);
    }
    CHECK_ALL(bad == 0, "hardware == software on 20000 random buffers and seeds");
    return check_done("test_crc32c");
}
