/*
 * bench_hash64.c -- the placement hashes on 32-byte keys, each beside its
 * baselines in one process. Items are keys hashed.
 *
 *   hash64/32B/crc32c_hw_baseline   a plain hardware CRC32C per key;
 *   hash64/32B/crc32c_fmix64_batch  CRC32C + murmur3's fmix64 over 4096 keys,
 *                                   inlined: the floor's hash (bench_directory.c),
 *                                   the batch goal of placer-v2;
 *   hash64/32B/v1_hardware ...      placer-v1 (legacy) single calls and batch;
 *   hash64/32B/v2_hardware ...      placer-v2 (placer_hash64) single calls
 *                                   (goal: no slower than v1) and batch (goal:
 *                                   no slower than crc32c_fmix64_batch);
 *   hash64/32B/siphash13_single     SipHash-1-3, one call per key;
 *   hash64/32B/siphash13_batch/K    the batch kernel K (scalar, sse, avx2,
 *                                   avx512), skipped where the CPU lacks it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "cpu.h"
#include "kernels.h"
#include "shim.h"

#define KEYS 4096u
#define KEY_LEN 32u

enum { PLAIN_CRC, V1_HW, V1_SW, V1_HW_BATCH, V2_HW, V2_SW, V2_HW_BATCH, CRC_FMIX_BATCH, SIP_SINGLE };

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

/* make_keys() and each key's pointer and length, for the batch kernels. */
static unsigned char *make_key_batch(const void **ptrs, size_t *lens)
{
    unsigned char *keys = make_keys();
    for (uint32_t i = 0; i < KEYS; i++) {
        ptrs[i] = keys + i * KEY_LEN;
        lens[i] = KEY_LEN;
    }
    return keys;
}

/* The floor's hash: CRC32C of the key (three-instruction chain per 8 bytes)
 * then fmix64, the body inlined in the loop as a batch kernel would. */
#if defined(__x86_64__)
#define HAVE_CRC_FMIX 1
__attribute__((target("sse4.2"))) static void crc_fmix_batch(const void *const *keys, size_t n,
                                                             uint64_t *out)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = keys[i];
        uint64_t c = 0xffffffffu;
        for (unsigned w = 0; w < KEY_LEN; w += 8) {
            uint64_t v;
            memcpy(&v, p + w, 8);
            c = __builtin_ia32_crc32di(c, v);
        }
        uint64_t h = c ^ ((uint64_t)KEY_LEN << 32);
        h ^= h >> 33;
        h *= UINT64_C(0xFF51AFD7ED558CCD);
        h ^= h >> 33;
        h *= UINT64_C(0xC4CEB9FE1A85EC53);
        out[i] = h ^ (h >> 33);
    }
}
#else
#define HAVE_CRC_FMIX 0
static void crc_fmix_batch(const void *const *keys, size_t n, uint64_t *out)
{
    (void)keys, (void)n, (void)out;
}
#endif

static void bench_hash(plc_bench *b, const void *arg)
{
    int which = *(const int *)arg;
    const plc_kernels *hw = plc_kernels_get(), *sw = plc_kernels_sw();
    int needs_hw = which != V1_SW && which != V2_SW && which != SIP_SINGLE;
    if ((needs_hw && hw->crc32c == sw->crc32c) || (which == CRC_FMIX_BATCH && !HAVE_CRC_FMIX)) {
        plc_bench_skip(b, "no CRC32C instruction on this CPU");
        return;
    }
    const void *ptrs[KEYS];
    size_t lens[KEYS];
    uint64_t out[KEYS];
    unsigned char *keys = make_key_batch(ptrs, lens);
    plc_hash_key hk = {0, 0x0706050403020100u, 0x0f0e0d0c0b0a0908u};
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, KEYS)) {
        const unsigned char *k = keys;
        switch (which) {
        case PLAIN_CRC:
            for (uint32_t i = 0; i < KEYS; i++, k += KEY_LEN)
                acc += hw->crc32c(0, k, KEY_LEN);
            break;
        case V1_HW:
            for (uint32_t i = 0; i < KEYS; i++, k += KEY_LEN)
                acc += hw->hash64_v1(0, k, KEY_LEN);
            break;
        case V1_SW:
            for (uint32_t i = 0; i < KEYS; i++, k += KEY_LEN)
                acc += sw->hash64_v1(0, k, KEY_LEN);
            break;
        case V1_HW_BATCH:
            hw->hash64_v1_batch(acc, ptrs, lens, KEYS, out);
            acc += out[KEYS - 1];
            break;
        case V2_HW:
            for (uint32_t i = 0; i < KEYS; i++, k += KEY_LEN)
                acc += hw->hash64_v2(0, k, KEY_LEN);
            break;
        case V2_SW:
            for (uint32_t i = 0; i < KEYS; i++, k += KEY_LEN)
                acc += sw->hash64_v2(0, k, KEY_LEN);
            break;
        case V2_HW_BATCH:
            hw->hash64_v2_batch(acc, ptrs, lens, KEYS, out);
            acc += out[KEYS - 1];
            break;
        case CRC_FMIX_BATCH:
            crc_fmix_batch(ptrs, KEYS, out);
            acc += out[KEYS - 1];
            break;
        default:
            for (uint32_t i = 0; i < KEYS; i++, k += KEY_LEN)
                acc += hw->siphash13(&hk, k, KEY_LEN);
        }
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_set_bytes(b, plc_bench_iterations(b) * KEY_LEN);
    free(keys);
}

static void bench_sip_batch(plc_bench *b, const void *arg)
{
    const plc_siphash_kernel *kern = arg;
    if ((plc_cpu_detected() & kern->needs) != kern->needs) {
        plc_bench_skip(b, "this CPU lacks the kernel's instruction set");
        return;
    }
    const void *ptrs[KEYS];
    size_t lens[KEYS];
    uint64_t out[KEYS];
    unsigned char *keys = make_key_batch(ptrs, lens);
    plc_hash_key hk = {0, 0x0706050403020100u, 0x0f0e0d0c0b0a0908u};
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, KEYS)) {
        hk.k0 += acc & 1;
        kern->sip13(&hk, ptrs, lens, KEYS, out);
        acc += out[KEYS - 1];
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_set_bytes(b, plc_bench_iterations(b) * KEY_LEN);
    free(keys);
}

void register_hash64_benches(void)
{
    static const int which[] = {PLAIN_CRC, V1_HW,  V1_SW,          V1_HW_BATCH, V2_HW,
                                V2_SW,     V2_HW_BATCH, CRC_FMIX_BATCH, SIP_SINGLE};
    static const char *names[] = {
        "hash64/32B/crc32c_hw_baseline", "hash64/32B/v1_hardware", "hash64/32B/v1_software",
        "hash64/32B/v1_hardware_batch",  "hash64/32B/v2_hardware", "hash64/32B/v2_software",
        "hash64/32B/v2_hardware_batch",  "hash64/32B/crc32c_fmix64_batch",
        "hash64/32B/siphash13_single",
    };
    for (size_t i = 0; i < sizeof which / sizeof which[0]; i++)
        plc_bench_register(names[i], bench_hash, &which[i]);
    size_t n;
    const plc_siphash_kernel *k = plc_siphash_kernels(&n);
    static char sip_names[8][64];
    for (size_t i = 0; i < n && i < 8; i++) {
        snprintf(sip_names[i], sizeof sip_names[i], "hash64/32B/siphash13_batch/%s", k[i].name + 10);
        plc_bench_register(sip_names[i], bench_sip_batch, &k[i]);
    }
}
