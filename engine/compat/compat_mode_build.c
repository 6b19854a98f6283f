/*
 * compat_mode_build.c -- a compatibility mode's build (placer_builder_build
 * with placer_builder_set_compat): the check of every other setting
 * against the mode -- what the program has no room for is PLACER_EINVAL
 * with the reason in placer_builder_error -- and of the nodes
 * (compat_setters.c), then the program's ring or table
 * (compat_snapshot_build.c) or, for Redis, a partitions snapshot through
 * the registry, or for a program of partitions (Kafka: its ops'
 * partitions_check) a partitions snapshot of its map.
 * Only builder.c calls it: the compat build runs one way.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "compat_program.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"
#include "validate.h"

/* The settings of placer's own placement that the mode has no room for. */
static int check_settings(placer_builder *b, const char *name)
{
    /* a program of fixed slots is placer's partitions (Redis Cluster) */
    int redis = (plc_compat_program_get(b->compat)->fields & PLC_CF_SLOTS) != 0;
    int own = redis ? PLACER_PARTITIONS : PLACER_EMULATED;
    if (b->strategy_set && b->strategy != own)
        return plc_builder_refuse(b, "strategy %s with %s: the mode's is %s",
                                  placer_strategy_name(b->strategy), name, placer_strategy_name(own));
    if (b->key_hash)
        return plc_builder_refuse(b, "a key hash (%s) with %s: the mode hashes keys as %s does",
                                  placer_key_hash_name(b->key_hash), name, name);
    if (b->has_secret)
        return plc_builder_refuse(b, "a secret with %s: its placement is public", name);
    if (b->seed != PLACER_DEFAULT_SEED)
        return plc_builder_refuse(b, "a seed with %s: the program has none", name);
    if (b->vnodes != PLACER_DEFAULT_VNODES)
        return plc_builder_refuse(b, "vnodes with %s: the program sets its own points", name);
    if (b->nexplicit)
        return plc_builder_refuse(b, "explicit tokens with %s: the program sets its own points",
                                  name);
    if (b->replicas && !(redis && b->replicas == 1))
        return plc_builder_refuse(b, "precomputed replicas with %s", name);
    if (redis ? b->table_size && b->table_size != PLC_REDIS_SLOTS : b->table_size)
        return plc_builder_refuse(b, "%u partitions with %s (Redis has 16384 slots)",
                                  b->table_size, name);
    if (b->map && !redis)
        return plc_builder_refuse(b, "a partition map with %s: only Redis has one", name);
    if (b->map && b->map_parts != PLC_REDIS_SLOTS)
        return plc_builder_refuse(b, "a partition map of %u rows: Redis has 16384 slots",
                                  b->map_parts);
    return 0;
}

/* Redis: a partitions snapshot of the slot map (the builder's, or the even
 * split), keys hashed to slots. The builder is read through a copy whose
 * strategy, key hash and map are Redis': b itself is not changed. */
static int build_redis(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    placer_builder v = *b;
    v.strategy = PLACER_PARTITIONS;
    v.ops = plc_strategy_get(PLACER_PARTITIONS);
    v.key_hash = v.eff_hash = PLACER_HASH_REDIS;
    v.eff_key = (plc_hash_key){0, 0, 0};
    v.table_size = PLC_REDIS_SLOTS;
    v.previous = NULL;
    uint32_t *split = NULL;
    if (!b->map) {
        split = plc_malloc(sizeof *split * PLC_REDIS_SLOTS);
        if (!split)
            return PLACER_ENOMEM;
        plc_compat_redis_even_split(b->nnodes, split);
        v.map = split;
        v.fwd = NULL;
        v.map_parts = PLC_REDIS_SLOTS;
        v.map_copies = 1;
    }
    placer_snapshot *s = NULL;
    int rc = v.ops->build(&v, epoch, &s);
    plc_free(split);
    if (!rc && (rc = plc_redis_attach(s)) != 0)
        placer_snapshot_free(s);
    if (!rc)
        *out = s;
    return rc;
}

/* A program of partitions (Kafka): its settings, the strategy and the
 * nodes checked, then a partitions snapshot of the builder's map or, with
 * a partition count alone, partition p led by node p % nodes, read
 * through a copy whose key hash is the program's (key_hash_base + the
 * builder's). */
static int build_partitions(placer_builder *b, const plc_compat_program *p, uint64_t epoch,
                            placer_snapshot **out)
{
    const plc_strategy_ops *own = plc_strategy_get(PLACER_PARTITIONS);
    char why[256];
    if (p->partitions_check(b, why, sizeof why))
        return plc_builder_refuse(b, "%s", why);
    if (b->strategy_set && b->ops != own)
        return plc_builder_refuse(b, "strategy %s with %s: the mode's is %s",
                                  placer_strategy_name(b->strategy), p->name, own->name);
    int rc = plc_compat_check_nodes(b);
    if (rc)
        return rc;
    placer_builder v = *b;
    v.strategy = own->id;
    v.ops = own;
    v.key_hash = v.eff_hash = p->key_hash_base + b->compat_hash;
    v.eff_key = (plc_hash_key){0, 0, 0};
    v.previous = NULL;
    uint32_t *map = NULL;
    if (!b->map) {
        if (!b->nnodes)
            return PLACER_ENONODES;
        map = plc_malloc(sizeof *map * b->table_size);
        if (!map)
            return PLACER_ENOMEM;
        for (uint32_t i = 0; i < b->table_size; i++)
            map[i] = i % b->nnodes;
        v.map = map;
        v.fwd = NULL;
        v.map_parts = b->table_size;
        v.map_copies = 1;
    }
    v.table_size = v.map_parts;
    rc = v.ops->build(&v, epoch, out);
    plc_free(map);
    return rc;
}

int plc_compat_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    const plc_compat_program *p = plc_compat_program_get(b->compat);
    if (p->partitions_check)
        return build_partitions(b, p, epoch, out);
    const char *name = placer_compat_name(b->compat);
    int rc = check_settings(b, name);
    if (!rc)
        rc = plc_compat_check_nodes(b);
    if (!rc)
        rc = plc_compat_check_key_rule(b);
    if (rc)
        return rc;
    if (plc_compat_program_get(b->compat)->fields & PLC_CF_SLOTS)
        return build_redis(b, epoch, out);
    return plc_compat_snapshot_build(b, plc_strategy_get(PLACER_EMULATED), epoch, out);
}
