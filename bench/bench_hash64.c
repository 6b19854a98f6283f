/*
 * bench_hash64.c -- placer_hash64 on 32-byte keys (hardware and software
 * paths), beside a plain hardware CRC32C of the same keys: the hash's price
 * for 64 bits of entropy over a 32-bit CRC. Items are keys hashed.
 * hardware_batch hashes 4096 keys per call with the hash inlined in the
 * loop, which is how batched lookups use it: no call per key.
 */
#include <stdlib.h>

#include "benches.h"
#include "kernels.h"
#include "shim.h"

#define KEYS 4096u
#define KEY_LEN 32u

enum { PLAIN_CRC, HASH_HW, HASH_SW, HASH_HW_BATCH };

static unsigned char *make_keys(void)
{
    unsigned char *k = malloc(KEYS * KEY_LEN);
    uint64_t x = 88172645463325252u;
    for (size_t i = 0; i < KEYS * KEY_LEN; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        k[i] = (unsigned char)x;
    }
    return k;
}

static void bench_hash(plc_bench *b, const void *arg)
{
    int which = *(const int *)arg;
    const plc_kernels *hw = plc_kernels_get(), *sw = plc_kernels_sw();
    if (which != HASH_SW && hw->crc32c == sw->crc32c) {
        plc_bench_skip(b, "no CRC32C instruction on this CPU");
        return;
    }
    unsigned char *keys = make_keys();
    const void *ptrs[KEYS];
    size_t lens[KEYS];
    uint64_t out[KEYS];
    for (uint32_t i = 0; i < KEYS; i++) {
        ptrs[i] = keys + i * KEY_LEN;
        lens[i] = KEY_LEN;
    }
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, KEYS)) {
        const unsigned char *k = keys;
        switch (which) {
        case PLAIN_CRC:
            for (uint32_t i = 0; i < KEYS; i++, k += KEY_LEN)
                acc += hw->crc32c(0, k, KEY_LEN);
            break;
        case HASH_HW:
            for (uint32_t i = 0; i < KEYS; i++, k += KEY_LEN)
                acc += hw->hash64(0, k, KEY_LEN);
            break;
        case HASH_HW_BATCH:
            hw->hash64_batch(acc, ptrs, lens, KEYS, out);
            acc += out[KEYS - 1];
            break;
        default:
            for (uint32_t i = 0; i < KEYS; i++, k += KEY_LEN)
                acc += sw->hash64(0, k, KEY_LEN);
        }
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_set_bytes(b, plc_bench_iterations(b) * KEY_LEN);
    free(keys);
}

void register_hash64_benches(void)
{
    static const int which[] = {PLAIN_CRC, HASH_HW, HASH_SW, HASH_HW_BATCH};
    plc_bench_register("hash64/32B/crc32c_hw_baseline", bench_hash, &which[0]);
    plc_bench_register("hash64/32B/hardware", bench_hash, &which[1]);
    plc_bench_register("hash64/32B/software", bench_hash, &which[2]);
    plc_bench_register("hash64/32B/hardware_batch", bench_hash, &which[3]);
}
