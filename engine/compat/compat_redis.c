/*
 * compat_redis.c -- Redis Cluster's 16384 slots: from CLUSTER NODES (the
 * builder's slot owners) or redis-cli --cluster create's even split.
 */
#include <math.h>
#include <stdint.h>

#include "alloc.h"
#include "compat_layouts.h"
#include "compat_program.h"
#include "compat_snapshot.h"
#include "placer.h"

void plc_compat_redis_even_split(uint32_t masters, uint32_t owner[PLC_REDIS_SLOTS])
{
    /* redis-cli.c clusterManagerCommandCreate(): float cursor, lround. */
    float per = (float)PLC_REDIS_SLOTS / (float)masters;
    float cursor = 0.0f;
    long first = 0;
    for (uint32_t i = 0; i < masters; i++) {
        float end = cursor + per; /* one float step at a time (compat_ketama.c) */
        end = end - 1;
        long last = lround(end);
        if (last > (long)PLC_REDIS_SLOTS || i == masters - 1)
            last = (long)PLC_REDIS_SLOTS - 1;
        if (last < first)
            last = first;
        for (long s = first; s <= last && s < (long)PLC_REDIS_SLOTS; s++)
            owner[s] = i;
        first = last + 1;
        cursor += per;
    }
}

int plc_compat_redis_table(const plc_compat_config *c, plc_compat_layout *l)
{
    l->kind = PLC_CL_TABLE;
    l->n = PLC_REDIS_SLOTS;
    l->owners = plc_malloc(sizeof *l->owners * PLC_REDIS_SLOTS);
    if (!l->owners)
        return PLACER_ENOMEM;
    if (!c->slot_owner) {
        plc_compat_redis_even_split(c->nnodes, l->owners);
        return 0;
    }
    for (uint32_t s = 0; s < PLC_REDIS_SLOTS; s++) {
        if (c->slot_owner[s] >= c->nnodes)
            return PLACER_EINVAL; /* every slot needs a live owner */
        l->owners[s] = c->slot_owner[s];
    }
    return 0;
}

/* ---- Redis Cluster's ops (compat_program.h) ---- */

static int redis_size(const plc_compat_config *c, const plc_compat_layout *l, uint64_t *n)
{
    (void)c, (void)l;
    *n = PLC_REDIS_SLOTS;
    return 0;
}

static int redis_build(const plc_compat_config *c, plc_compat_layout *l, uint64_t max_points)
{
    (void)max_points; /* always its 16384 slots */
    return plc_compat_redis_table(c, l);
}

static uint32_t redis_key_hash(const plc_compat_layout *l, const unsigned char *k, size_t len)
{
    (void)l;
    plc_compat_tag('{', '}', &k, &len);
    return plc_hash_redis_crc16(k, len) & (PLC_REDIS_SLOTS - 1u);
}

/* Slots, no distribution to choose. */
static const plc_compat_distribution redis_slots[] = {
    {NULL, PLC_CD_DEFAULT, PLC_CL_TABLE, PLC_CH_REDIS_CRC16, 0},
};

static const plc_compat_hash_entry redis_hashes[] = {{"crc16", PLC_CH_REDIS_CRC16}};
static const char *const redis_labels[] = {"redis-crc16"};

const plc_compat_program plc_compat_redis = {
    .id = PLACER_COMPAT_REDIS,
    .name = "redis",
    .title = "Redis Cluster",
    .distributions = redis_slots,
    .ndistributions = 1,
    .hashes = redis_hashes,
    .nhashes = 1,
    .tag = "{}",
    .max_weight = 0,
    .size = redis_size,
    .build = redis_build,
    .key_hash = redis_key_hash,
    .batch_rule = PLC_CK_SLOTS,
    .fields = PLC_CF_SLOTS | PLC_CF_MOVES,
    .importer = "import-redis",
    /* its snapshots are placer's partitions, keyed by PLACER_HASH_REDIS */
    .key_hash_base = PLC_KEY_HASH_OF_CH(0),
    .labels = redis_labels,
};
