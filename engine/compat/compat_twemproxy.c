/*
 * compat_twemproxy.c -- twemproxy's (nutcracker's) ops (compat_program.h):
 * ketama or modula over the servers' names, sorted by name, its `hash:`
 * values, its hash_tag. The ring is compat_ketama.c's, the table
 * compat_tables.c's.
 */
#include "alloc.h"
#include "compat_layouts.h"
#include "compat_program.h"

static int size(const plc_compat_config *c, const plc_compat_layout *l, uint64_t *n)
{
    uint64_t total;
    int rc = plc_compat_check_weights(c, UINT32_MAX, &total);
    if (!rc)
        *n = l->distribution == PLC_CD_MODULA ? total : plc_compat_twemproxy_size(c, total);
    return rc;
}

/* Its servers in its order (by name), then its ring or its modula table. */
static int build(const plc_compat_config *c, plc_compat_layout *l, uint64_t max_points)
{
    uint32_t *order = plc_malloc(sizeof *order * c->nnodes);
    if (!order)
        return PLACER_ENOMEM;
    uint64_t n;
    int rc = plc_compat_twemproxy_order(c, order);
    if (!rc)
        rc = size(c, l, &n);
    if (!rc && n > max_points)
        rc = PLACER_ETOOMANY;
    plc_compat_points a;
    if (!rc && l->distribution == PLC_CD_MODULA)
        rc = plc_compat_table_build(c, l, order, max_points);
    else if (!rc && (rc = plc_compat_ring_room(l, &a, n)) == 0)
        rc = plc_compat_ring_finish(l, &a, plc_compat_twemproxy_ring(c, order, &a), NULL);
    plc_free(order);
    return rc;
}

static uint32_t key_hash(const plc_compat_layout *l, const unsigned char *k, size_t len)
{
    if (l->hash_tag[0])
        plc_compat_tag(l->hash_tag[0], l->hash_tag[1], &k, &len);
    /* nc_server.c server_pool_hash(): one server or an empty key is 0. */
    if (l->nnodes == 1 || len == 0)
        return 0;
    return plc_compat_hash_function(l->key_hash)(k, len);
}

static const plc_compat_distribution distributions[] = {
    {"ketama", PLC_CD_KETAMA, PLC_CL_RING, PLC_CH_FNV1A_64, 0}, /* nc_conf.c CONF_DEFAULT_HASH */
    {"modula", PLC_CD_MODULA, PLC_CL_TABLE, PLC_CH_FNV1A_64, 0},
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
    .id = PLACER_COMPAT_TWEMPROXY,
    .name = "twemproxy",
    .title = "twemproxy",
    .distributions = distributions,
    .ndistributions = sizeof distributions / sizeof distributions[0],
    .hashes = hashes,
    .nhashes = sizeof hashes / sizeof hashes[0],
    .max_weight = UINT32_MAX,
    .max_name_len = PLC_TWEMPROXY_MAX_HOSTLEN,
    .size = size,
    .build = build,
    .key_hash = key_hash,
    .batch_rule = PLC_CK_EMPTY_ZERO,
    .fields = PLC_CF_HASH_TAG,
    .importer = "import-twemproxy",
};
