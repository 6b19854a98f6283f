/*
 * compat_libmemcached.c -- libmemcached's ops (compat_program.h): ketama
 * over "host:port" (weighted or plain), its hash names in its own
 * spelling. The ring itself is compat_ketama.c's.
 */
#include "compat_program.h"

static const plc_compat_distribution distributions[] = {
    {"ketama_weighted", PLC_CD_KETAMA_WEIGHTED, PLC_CL_RING, PLC_CH_MD5},
    {"ketama", PLC_CD_KETAMA, PLC_CL_RING, PLC_CH_ONE_AT_A_TIME},
};

/* MEMCACHED_HASH_* in lower case: "default" and "crc" where twemproxy says
 * one_at_a_time and crc32; no crc16, crc32a or hsieh (Debian's libhashkit
 * has no hsieh). */
static const plc_compat_hash_entry hashes[] = {
    {"default", PLC_CH_ONE_AT_A_TIME}, {"md5", PLC_CH_MD5},           {"crc", PLC_CH_CRC32},
    {"fnv1_64", PLC_CH_FNV1_64},       {"fnv1a_64", PLC_CH_FNV1A_64}, {"fnv1_32", PLC_CH_FNV1_32},
    {"fnv1a_32", PLC_CH_FNV1A_32},     {"murmur", PLC_CH_MURMUR},     {"jenkins", PLC_CH_JENKINS},
    {"murmur3", PLC_CH_MURMUR3},
};

const plc_compat_program plc_compat_libmemcached = {
    .id = PLC_COMPAT_LIBMEMCACHED,
    .name = "libmemcached",
    .title = "libmemcached",
    .distributions = distributions,
    .ndistributions = sizeof distributions / sizeof distributions[0],
    .hashes = hashes,
    .nhashes = sizeof hashes / sizeof hashes[0],
    .max_weight = UINT32_MAX,
    .fields = PLC_CF_ADDRESS | PLC_CF_HOST_PORT,
};
