/*
 * compat_names.c -- the names membership files and the command use for
 * compatibility programs, distributions and key hashes: each program's own
 * spelling (twemproxy's `hash:` values, libmemcached's MEMCACHED_HASH_*
 * in lower case, haproxy's hash-type functions).
 */
#include <string.h>

#include "compat.h"

typedef struct name_id {
    const char *name;
    int id;
} name_id;

static int find(const name_id *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return t[i].id;
    return 0;
}

static const char *name_of(const name_id *t, size_t n, int id)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].id == id)
            return t[i].name;
    return NULL;
}

#define COUNT(t) (sizeof(t) / sizeof((t)[0]))

static const name_id programs[] = {
    {"libmemcached", PLC_COMPAT_LIBMEMCACHED}, {"twemproxy", PLC_COMPAT_TWEMPROXY},
    {"nginx", PLC_COMPAT_NGINX},               {"haproxy", PLC_COMPAT_HAPROXY},
    {"redis", PLC_COMPAT_REDIS},
};

static const name_id distributions[] = {
    {"ketama_weighted", PLC_CD_KETAMA_WEIGHTED}, {"ketama", PLC_CD_KETAMA},
    {"modula", PLC_CD_MODULA},                   {"consistent", PLC_CD_CONSISTENT},
    {"hash", PLC_CD_HASH},                       {"map-based", PLC_CD_MAP_BASED},
};

/* libmemcached and twemproxy share names where they share functions. */
static const name_id ketama_hashes[] = {
    {"one_at_a_time", PLC_CH_ONE_AT_A_TIME}, {"default", PLC_CH_ONE_AT_A_TIME},
    {"md5", PLC_CH_MD5},           {"crc16", PLC_CH_CRC16},       {"crc32", PLC_CH_CRC32},
    {"crc", PLC_CH_CRC32},         {"crc32a", PLC_CH_CRC32A},     {"fnv1_64", PLC_CH_FNV1_64},
    {"fnv1a_64", PLC_CH_FNV1A_64}, {"fnv1_32", PLC_CH_FNV1_32},   {"fnv1a_32", PLC_CH_FNV1A_32},
    {"hsieh", PLC_CH_HSIEH},       {"murmur", PLC_CH_MURMUR},     {"jenkins", PLC_CH_JENKINS},
    {"murmur3", PLC_CH_MURMUR3},
};

static const name_id haproxy_hashes[] = {
    {"sdbm", PLC_CH_HAP_SDBM}, {"djb2", PLC_CH_HAP_DJB2},
    {"wt6", PLC_CH_HAP_WT6},   {"crc32", PLC_CH_HAP_CRC32},
    {"source", PLC_CH_HAP_SOURCE}, /* balance source's address hash, no hash-type function */
};

int plc_compat_program_id(const char *name)
{
    return find(programs, COUNT(programs), name);
}

const char *plc_compat_program_name(int id)
{
    return name_of(programs, COUNT(programs), id);
}

int plc_compat_distribution_id(const char *name)
{
    return find(distributions, COUNT(distributions), name);
}

const char *plc_compat_distribution_name(int id)
{
    return name_of(distributions, COUNT(distributions), id);
}

int plc_compat_hash_id(int program, const char *name)
{
    int id;
    switch (program) {
    case PLC_COMPAT_LIBMEMCACHED:
        /* libmemcached calls it "crc" and "default"; twemproxy's names are
         * "crc32" and "one_at_a_time", and crc16/crc32a are twemproxy's. */
        id = find(ketama_hashes, COUNT(ketama_hashes), name);
        if (!strcmp(name, "crc32") || !strcmp(name, "one_at_a_time") || id == PLC_CH_CRC16 ||
            id == PLC_CH_CRC32A || id == PLC_CH_HSIEH) /* Debian's libhashkit has no hsieh */
            return 0;
        return id;
    case PLC_COMPAT_TWEMPROXY:
        id = find(ketama_hashes, COUNT(ketama_hashes), name);
        if (!strcmp(name, "crc") || !strcmp(name, "default") || id == PLC_CH_MURMUR3)
            return 0;
        return id;
    case PLC_COMPAT_HAPROXY:
        return find(haproxy_hashes, COUNT(haproxy_hashes), name);
    case PLC_COMPAT_NGINX:
        return !strcmp(name, "crc32") ? PLC_CH_NGX_CRC32 : 0;
    case PLC_COMPAT_REDIS:
        return !strcmp(name, "crc16") ? PLC_CH_REDIS_CRC16 : 0;
    default:
        return 0;
    }
}

const char *plc_compat_hash_name(int program, int id)
{
    switch (program) {
    case PLC_COMPAT_LIBMEMCACHED:
        if (id == PLC_CH_ONE_AT_A_TIME)
            return "default";
        if (id == PLC_CH_CRC32)
            return "crc";
        return name_of(ketama_hashes, COUNT(ketama_hashes), id);
    case PLC_COMPAT_TWEMPROXY:
        return name_of(ketama_hashes, COUNT(ketama_hashes), id);
    case PLC_COMPAT_HAPROXY:
        return name_of(haproxy_hashes, COUNT(haproxy_hashes), id);
    case PLC_COMPAT_NGINX:
        return id == PLC_CH_NGX_CRC32 ? "crc32" : NULL;
    case PLC_COMPAT_REDIS:
        return id == PLC_CH_REDIS_CRC16 ? "crc16" : NULL;
    default:
        return NULL;
    }
}
