/*
 * platform.c -- the public face of simd/: the hash functions, CPU features,
 * kernel names and version. simd/ knows nothing of placer.h; this file maps
 * between the two.
 */
#define PLACER_STATIC_LINKING_ONLY
#include "cpu.h"
#include "jump.h"
#include "kernels.h"
#include "placer.h"

#define STR_(x) #x
#define STR(x) STR_(x)

_Static_assert(PLACER_CPU_SSE42 == PLC_CPU_SSE42 && PLACER_CPU_PCLMUL == PLC_CPU_PCLMUL &&
                   PLACER_CPU_AVX2 == PLC_CPU_AVX2 && PLACER_CPU_AVX512 == PLC_CPU_AVX512 &&
                   PLACER_CPU_ARM_CRC == PLC_CPU_ARM_CRC &&
                   PLACER_CPU_ARM_NEON == PLC_CPU_ARM_NEON,
               "placer.h and simd/cpu.h feature bits must agree");

uint32_t placer_crc32c(uint32_t crc, const void *data, size_t len)
{
    if (!data)
        len = 0;
    return plc_kernels_get()->crc32c(crc, data, len);
}

uint32_t placer_crc32(uint32_t crc, const void *data, size_t len)
{
    if (!data)
        len = 0;
    return plc_kernels_get()->crc32(crc, data, len);
}

int32_t placer_jump_hash(uint64_t key, int32_t buckets)
{
    return plc_jump_hash(key, buckets);
}

uint64_t placer_hash64(uint64_t seed, const void *key, size_t len)
{
    if (!key)
        len = 0;
    return plc_kernels_get()->hash64_v2(seed, key, len);
}

uint64_t placer_siphash13(const unsigned char key[16], const void *data, size_t len)
{
    if (!data)
        len = 0;
    plc_hash_key k = {0, 0, 0};
    for (int i = 7; key && i >= 0; i--) {
        k.k0 = k.k0 << 8 | key[i];
        k.k1 = k.k1 << 8 | key[8 + i];
    }
    return plc_kernels_get()->siphash13(&k, data, len);
}

unsigned placer_cpu_features(void)
{
    return plc_cpu_features();
}

const char *placer_kernel_name(int job)
{
    const plc_kernels *k = plc_kernels_get();
    switch (job) {
    case PLACER_KERNEL_CRC32C: return k->crc32c_name;
    case PLACER_KERNEL_HASH64: return k->hash64_name;
    case PLACER_KERNEL_SEARCH: return k->search_name;
    case PLACER_KERNEL_CRC32: return k->crc32_name;
    case PLACER_KERNEL_RENDEZVOUS: return k->hrw_name;
    case PLACER_KERNEL_SIPHASH13: return k->siphash_name;
    case PLACER_KERNEL_MD5: return k->md5_name;
    case PLACER_KERNEL_BYTEHASH: return k->bytehash_name;
    case PLACER_KERNEL_CRC_BATCH: return k->crc_batch_name;
    default: return NULL;
    }
}

int placer_set_cpu_mask(unsigned mask)
{
    plc_cpu_set_mask(mask);
    plc_kernels_reselect();
    return 0;
}

unsigned placer_version_number(void)
{
    return PLACER_VERSION_NUMBER;
}

const char *placer_version_string(void)
{
    return STR(PLACER_VERSION_MAJOR) "." STR(PLACER_VERSION_MINOR) "." STR(PLACER_VERSION_PATCH);
}
