/*
 * compat_twemproxy.c -- twemproxy's (nutcracker's) ops (compat_program.h):
 * ketama or modula over the servers' names, sorted by name, its `hash:`
 * values, its hash_tag. The ring is compat_ketama.c's, the table
 * compat_tables.c's.
 */
#include "compat_program.h"

static const plc_compat_distribution distributions[] = {
    {"ketama", PLC_CD_KETAMA, PLC_CL_RING, PLC_CH_FNV1A_64}, /* nc_conf.c CONF_DEFAULT_HASH */
    {"modula", PLC_CD_MODULA, PLC_CL_TABLE, PLC_CH_FNV1A_64},
};

/* nc_hashkit.h's names: no "default", "crc" or murmur3. */
static const plc_compat_hash_entry hashes[] = {
    {"one_at_a_time", PLC_CH_ONE_AT_A_TIME}, {"md5", PLC_CH_MD5},
    {"crc16", PLC_CH_CRC16},                 {"crc32", PLC_CH_CRC32},
    {"crc32a", PLC_CH_CRC32A},               {"fnv1_64", PLC_CH_FNV1_64},
    {"fnv1a_64", PLC_CH_FNV1A_64},           {"fnv1_32", PLC_CH_FNV1_32},
    {"fnv1a_32", PLC_CH_FNV1A_32},           {"hsieh", PLC_CH_HSIEH},
    {"murmur", PLC_CH_MURMUR},               {"jenkins", PLC_CH_JENKINS},
};

const plc_compat_program plc_compat_twemproxy = {
    .id = PLC_COMPAT_TWEMPROXY,
    .name = "twemproxy",
    .title = "twemproxy",
    .distributions = distributions,
    .ndistributions = sizeof distributions / sizeof distributions[0],
    .hashes = hashes,
    .nhashes = sizeof hashes / sizeof hashes[0],
    .max_weight = UINT32_MAX,
    .max_name_len = PLC_TWEMPROXY_MAX_HOSTLEN,
    .fields = PLC_CF_HASH_TAG,
    .importer = "import-twemproxy",
};
