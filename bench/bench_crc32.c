/*
 * bench_crc32.c -- IEEE CRC-32 beside zlib's crc32() in the same binary:
 * 32-byte keys and a 1 MiB buffer, placer's folding path and its tables;
 * and Couchbase's key -> vBucket, ((crc >> 16) & 0x7fff) % 1024, on 32-byte
 * keys with each. Bytes or items per second.
 */
#include <stdlib.h>
#include <zlib.h>

#include "benches.h"
#include "kernels.h"
#include "shim.h"

enum { PLACER_FOLD, PLACER_TABLES, ZLIB };

typedef struct crc32_case {
    int impl;
    size_t len;
    int vbucket;
} crc32_case;

static uint32_t crc_of(int impl, const unsigned char *p, size_t len)
{
    switch (impl) {
    case PLACER_FOLD: return plc_kernels_get()->crc32(0, p, len);
    case PLACER_TABLES: return plc_kernels_sw()->crc32(0, p, len);
    default: return (uint32_t)crc32(0, p, (uInt)len);
    }
}

static void bench_crc32(plc_bench *b, const void *arg)
{
    const crc32_case *c = arg;
    if (c->impl == PLACER_FOLD && plc_kernels_get()->crc32 == plc_kernels_sw()->crc32) {
        plc_bench_skip(b, "no PCLMULQDQ on this CPU");
        return;
    }
    size_t keys = c->len >= 4096 ? 1 : 4096;
    unsigned char *buf = malloc(keys * c->len + 64);
    for (size_t i = 0; i < keys * c->len + 64; i++)
        buf[i] = (unsigned char)('a' + (i * 131 + 7) % 26);
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, keys))
        for (size_t i = 0; i < keys; i++) {
            uint32_t crc = crc_of(c->impl, buf + i * c->len, c->len);
            acc += c->vbucket ? ((crc >> 16) & 0x7fff) % 1024 : crc;
        }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_set_bytes(b, plc_bench_iterations(b) * (int64_t)c->len);
    free(buf);
}

void register_crc32_benches(void)
{
    static const crc32_case cases[] = {
        {PLACER_FOLD, 32, 0},      {PLACER_TABLES, 32, 0},      {ZLIB, 32, 0},
        {PLACER_FOLD, 1 << 20, 0}, {PLACER_TABLES, 1 << 20, 0}, {ZLIB, 1 << 20, 0},
        {PLACER_FOLD, 32, 1},      {ZLIB, 32, 1},
    };
    static const char *const names[] = {
        "crc32/placer_fold/32",      "crc32/placer_tables/32",      "crc32/zlib/32",
        "crc32/placer_fold/1048576", "crc32/placer_tables/1048576", "crc32/zlib/1048576",
        "vbucket/32B/placer",        "vbucket/32B/zlib",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        plc_bench_register(names[i], bench_crc32, &cases[i]);
}
