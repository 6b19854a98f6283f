/*
 * compat_libmemcached.c -- libmemcached's ops (compat_program.h): ketama
 * over "host:port" (weighted or plain), its hash names in its own
 * spelling. The ring itself is compat_ketama.c's.
 */
#include "compat_layouts.h"
#include "compat_program.h"

static int size(const plc_compat_config *c, const plc_compat_layout *l, uint64_t *n)
{
    uint64_t total;
    int rc = plc_compat_check_weights(c, UINT32_MAX, &total);
    if (!rc)
        *n = plc_compat_libmemcached_size(c, l, total);
    return rc;
}

static int build(const plc_compat_config *c, plc_compat_layout *l, uint64_t max_points)
{
    uint64_t n;
    int rc = size(c, l, &n);
    if (!rc && n > max_points)
        rc = PLACER_ETOOMANY;
    plc_compat_points a;
    if (!rc)
        rc = plc_compat_ring_room(l, &a, n);
    if (rc)
        return rc;
    return plc_compat_ring_finish(l, &a, plc_compat_libmemcached_ring(c, l, &a), NULL);
}

static uint32_t key_hash(const plc_compat_layout *l, const unsigned char *k, size_t len)
{
    /* hash.cc _generate_hash_wrapper(): one server hashes nothing. */
    if (l->nnodes == 1)
        return 0;
    return plc_compat_hash_function(l->key_hash)(k, len);
}

static const plc_compat_distribution distributions[] = {
    {"ketama_weighted", PLC_CD_KETAMA_WEIGHTED, PLC_CL_RING, PLC_CH_MD5, 0},
    {"ketama", PLC_CD_KETAMA, PLC_CL_RING, PLC_CH_ONE_AT_A_TIME, 0},
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
    .id = PLACER_COMPAT_LIBMEMCACHED,
    .name = "libmemcached",
    .title = "libmemcached",
    .distributions = distributions,
    .ndistributions = sizeof distributions / sizeof distributions[0],
    .hashes = hashes,
    .nhashes = sizeof hashes / sizeof hashes[0],
    .max_weight = UINT32_MAX,
    .size = size,
    .build = build,
    .key_hash = key_hash,
    .batch_rule = PLC_CK_FUNCTION,
    .fields = PLC_CF_ADDRESS | PLC_CF_HOST_PORT,
};
