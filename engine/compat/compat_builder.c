/*
 * compat_builder.c -- the builder's side of the compatibility modes:
 * choosing a mode and a haproxy server id (names checked at once), and at
 * build the check of every other setting against the mode -- what the
 * program has no room for is PLACER_EINVAL with the reason in
 * placer_builder_error -- before the program's ring or table is built
 * (strategy_compat.c) or, for Redis, its partitions snapshot.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"
#include "validate.h"

int plc_builder_refuse(placer_builder *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->why_buf, sizeof b->why_buf, fmt, ap);
    va_end(ap);
    b->why = b->why_buf;
    return PLACER_EINVAL;
}

const char *placer_builder_error(const placer_builder *b)
{
    return b && b->why ? b->why : "";
}

int placer_compat_has_distribution(int program, const char *name)
{
    if (!name)
        return 0;
    int d = plc_compat_distribution_id(name);
    switch (program) {
    case PLACER_COMPAT_LIBMEMCACHED: return d == PLC_CD_KETAMA_WEIGHTED || d == PLC_CD_KETAMA;
    case PLACER_COMPAT_TWEMPROXY: return d == PLC_CD_KETAMA || d == PLC_CD_MODULA;
    case PLACER_COMPAT_NGINX: return d == PLC_CD_CONSISTENT || d == PLC_CD_HASH;
    case PLACER_COMPAT_HAPROXY: return d == PLC_CD_CONSISTENT || d == PLC_CD_MAP_BASED;
    default: return 0; /* Redis has slots, not a distribution */
    }
}

int placer_compat_has_key_hash(int program, const char *name)
{
    return name && program >= PLACER_COMPAT_LIBMEMCACHED && program <= PLACER_COMPAT_REDIS &&
           plc_compat_hash_id(program, name) != 0;
}

int placer_builder_set_compat(placer_builder *b, int program, const placer_compat_options *opt)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    b->why = NULL;
    if (program == PLACER_COMPAT_NONE) {
        b->compat = b->compat_dist = b->compat_hash = b->compat_avalanche = 0;
        b->compat_tag[0] = b->compat_tag[1] = '\0';
        return 0;
    }
    const char *name = placer_compat_name(program);
    if (!name)
        return plc_builder_refuse(b, "unknown compatibility program %d", program);
    placer_compat_options none = {NULL, NULL, PLACER_COMPAT_AS_PROGRAM, NULL};
    if (!opt)
        opt = &none;
    if (opt->distribution && !placer_compat_has_distribution(program, opt->distribution))
        return plc_builder_refuse(b, "%s has no distribution \"%s\"", name, opt->distribution);
    if (opt->key_hash && !placer_compat_has_key_hash(program, opt->key_hash))
        return plc_builder_refuse(b, "%s has no key hash \"%s\"", name, opt->key_hash);
    if (opt->avalanche < PLACER_COMPAT_AS_PROGRAM)
        return plc_builder_refuse(b, "avalanche %d: 1, 0 or PLACER_COMPAT_AS_PROGRAM (-1)",
                                  opt->avalanche);
    if (opt->avalanche > 0 && program != PLACER_COMPAT_HAPROXY)
        return plc_builder_refuse(b, "avalanche is haproxy's; %s has none", name);
    if (opt->hash_tag && program != PLACER_COMPAT_TWEMPROXY)
        return plc_builder_refuse(b, "hash_tag is twemproxy's; %s has none", name);
    if (opt->hash_tag && (strlen(opt->hash_tag) != 2))
        return plc_builder_refuse(b, "hash_tag \"%s\": exactly two characters, such as \"{}\"",
                                  opt->hash_tag);
    b->compat = program;
    b->compat_dist = opt->distribution ? plc_compat_distribution_id(opt->distribution) : 0;
    b->compat_hash = opt->key_hash ? plc_compat_hash_id(program, opt->key_hash) : 0;
    /* As haproxy 2.6's cfgparse.c: "hash-type consistent" with no function
     * named is sdbm with avalanche; map-based, or any function named
     * without the word, has none. */
    int as_program = program == PLACER_COMPAT_HAPROXY && !opt->key_hash &&
                     (!opt->distribution || !strcmp(opt->distribution, "consistent"));
    b->compat_avalanche = opt->avalanche == PLACER_COMPAT_AS_PROGRAM ? as_program
                                                                     : opt->avalanche > 0;
    b->compat_tag[0] = opt->hash_tag ? opt->hash_tag[0] : '\0';
    b->compat_tag[1] = opt->hash_tag ? opt->hash_tag[1] : '\0';
    return 0;
}

int placer_builder_set_hash_id(placer_builder *b, uint32_t node, uint32_t hash_id)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(node < b->nnodes, PLACER_ERANGE);
    if (hash_id > PLC_HAPROXY_MAX_ID)
        return plc_builder_refuse(b, "hash id %u: haproxy's ids are 1 .. %u", hash_id,
                                  PLC_HAPROXY_MAX_ID);
    b->nodes[node].hash_id = hash_id;
    return 0;
}

/* The settings of placer's own placement that the mode has no room for. */
static int check_settings(placer_builder *b, const char *name)
{
    int redis = b->compat == PLACER_COMPAT_REDIS;
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

/* The nodes' fields the mode reads, and those it has no use for. */
int plc_compat_check_nodes(placer_builder *b)
{
    const char *name = placer_compat_name(b->compat);
    for (uint32_t i = 0; i < b->nnodes; i++) {
        const plc_bnode *n = &b->nodes[i];
        double w = n->weight;
        if (b->compat == PLACER_COMPAT_REDIS && w != 1.0)
            return plc_builder_refuse(b, "node %s: a weight of %g: Redis takes no weights", n->id,
                                      w);
        if (w != floor(w) || w < 1.0 || w > 4294967295.0)
            return plc_builder_refuse(b, "node %s: a weight of %g: %s's weights are integers",
                                      n->id, w, name);
        if (n->hash_id && b->compat != PLACER_COMPAT_HAPROXY)
            return plc_builder_refuse(b, "node %s: a hash id: only haproxy numbers its servers",
                                      n->id);
        int moving = n->state == PLACER_NODE_JOINING || n->state == PLACER_NODE_DRAINING;
        if (moving && !(b->compat == PLACER_COMPAT_REDIS && b->map))
            return plc_builder_refuse(b, "node %s joins or drains: %s has no such state", n->id,
                                      name);
        if (!n->addr_len &&
            (b->compat == PLACER_COMPAT_LIBMEMCACHED || b->compat == PLACER_COMPAT_NGINX))
            return plc_builder_refuse(b, "node %s has no address: %s hashes \"host:port\"", n->id,
                                      name);
    }
    return 0;
}

/* Redis: a partitions snapshot of the slot map (the builder's, or the even
 * split), keys hashed to slots. The builder is read through a copy whose
 * strategy, key hash and map are Redis': b itself is not changed. */
static int build_redis(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    placer_builder v = *b;
    v.strategy = PLACER_PARTITIONS;
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
    int rc = plc_strategy_get(PLACER_PARTITIONS)->build(&v, epoch, &s);
    plc_free(split);
    if (!rc && (rc = plc_redis_attach(s)) != 0)
        placer_snapshot_free(s);
    if (!rc)
        *out = s;
    return rc;
}

int plc_compat_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    const char *name = placer_compat_name(b->compat);
    int rc = check_settings(b, name);
    if (!rc)
        rc = plc_compat_check_nodes(b);
    if (rc)
        return rc;
    if (b->compat == PLACER_COMPAT_REDIS)
        return build_redis(b, epoch, out);
    return plc_compat_snapshot_build(b, epoch, out);
}
