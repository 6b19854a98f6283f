/*
 * compat_build.c -- a program's layout, built as the program builds it
 * (docs/COMPAT.md names the source file each rule comes from): the
 * program's defaults resolved and its settings checked from its ops
 * (compat_program.h), then its ops' size and build (compat_<name>.c), which
 * count the size from the weights before anything is made:
 *
 *   libmemcached, twemproxy  compat_ketama.c (rings), compat_tables.c
 *                            (twemproxy's modula)
 *   nginx                    compat_nginx.c (ring), compat_tables.c (hash)
 *   haproxy                  compat_haproxy.c (ring, server ids),
 *                            compat_haproxy_map.c (map)
 *   Redis                    compat_redis.c (16384 slots)
 *
 * What they share is compat_layout_kit.c (the rings' room and finish
 * among it) and compat_tables.c. Equal points keep the order the program inserted
 * them in (its qsort is glibc's stable merge sort), so ties resolve as the
 * program resolves them.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "compat_layouts.h"
#include "compat_program.h"

/* The program's defaults and rules, from its ops (compat_program.h): the
 * fields it takes, its distributions (the first its default) and, with
 * each, its default key hash; the key hashes it takes. */
static int resolve(const plc_compat_config *c, plc_compat_layout *l)
{
    l->program = c->program;
    l->distribution = c->distribution;
    l->key_hash = c->key_hash;
    l->avalanche = c->avalanche ? 1 : 0;
    l->nnodes = c->nnodes;
    const plc_compat_program *p = plc_compat_program_get(c->program);
    if (!p || p->partitions_check) /* (a program without a layout: Kafka's partitions) */
        return PLACER_EINVAL;
    if (l->avalanche && !(p->fields & PLC_CF_AVALANCHE))
        return PLACER_EINVAL;
    if ((c->hash_tag[0] || c->hash_tag[1]) && !(p->fields & PLC_CF_HASH_TAG))
        return PLACER_EINVAL;
    if (c->slot_owner && !(p->fields & PLC_CF_SLOTS))
        return PLACER_EINVAL;
    const plc_compat_distribution *d = plc_compat_program_distribution(p, c->distribution);
    if (!d)
        return PLACER_EINVAL;
    int h = c->key_hash ? c->key_hash : d->key_hash;
    if (!plc_compat_program_hash_name(p, h))
        return PLACER_EINVAL;
    if (p->fields & PLC_CF_HASH_TAG) {
        if ((c->hash_tag[0] == 0) != (c->hash_tag[1] == 0))
            return PLACER_EINVAL;
        l->hash_tag[0] = c->hash_tag[0];
        l->hash_tag[1] = c->hash_tag[1];
    }
    if (p->tag) {
        l->hash_tag[0] = p->tag[0];
        l->hash_tag[1] = p->tag[1];
    }
    /* its numeric settings: 0 is the default, anything else in range */
    if (p->nparams > PLC_COMPAT_MAX_PARAMS)
        return PLACER_EINVAL;
    for (size_t i = 0; i < PLC_COMPAT_MAX_PARAMS; i++) {
        uint32_t v = c->params[i];
        if (i >= p->nparams) {
            if (v)
                return PLACER_EINVAL;
            continue;
        }
        if (!v)
            v = p->params[i].dflt;
        if (v < p->params[i].min || v > p->params[i].max)
            return PLACER_EINVAL;
        l->params[i] = v;
    }
    l->distribution = d->id;
    l->key_hash = h;
    return 0;
}

int plc_compat_layout_size(const plc_compat_config *cfg, uint64_t *n)
{
    if (!cfg || !n || (cfg->nnodes && !cfg->nodes))
        return PLACER_ENULL;
    if (cfg->nnodes == 0)
        return PLACER_ENONODES;
    plc_compat_layout l;
    memset(&l, 0, sizeof l);
    int rc = resolve(cfg, &l);
    if (rc)
        return rc;
    return plc_compat_program_get(cfg->program)->size(cfg, &l, n);
}

static int build(const plc_compat_config *c, plc_compat_layout *l)
{
    int rc = resolve(c, l);
    if (rc)
        return rc;
    if (c->nnodes > PLACER_MAX_NODES)
        return PLACER_ETOOMANY;
    for (uint32_t i = 0; i < c->nnodes; i++)
        if ((c->nodes[i].id_len && !c->nodes[i].id) || (c->nodes[i].address_len && !c->nodes[i].address))
            return PLACER_ENULL;
    uint64_t max_points = c->max_points && c->max_points < PLACER_MAX_COMPAT_POINTS
                              ? c->max_points
                              : PLACER_MAX_COMPAT_POINTS;
    return plc_compat_program_get(c->program)->build(c, l, max_points);
}

int plc_compat_layout_build(const plc_compat_config *cfg, plc_compat_layout *out)
{
    if (!cfg || !out)
        return PLACER_ENULL;
    memset(out, 0, sizeof *out);
    if (cfg->nnodes == 0)
        return PLACER_ENONODES;
    if (!cfg->nodes)
        return PLACER_ENULL;
    int rc = build(cfg, out);
    if (rc)
        plc_compat_layout_free(out);
    return rc;
}

int plc_compat_layout_resolve(const plc_compat_config *cfg, plc_compat_layout *out)
{
    if (!cfg || !out)
        return PLACER_ENULL;
    memset(out, 0, sizeof *out);
    if (cfg->nnodes == 0)
        return PLACER_ENONODES;
    int rc = resolve(cfg, out);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}

void plc_compat_layout_free(plc_compat_layout *l)
{
    if (!l)
        return;
    plc_free(l->points);
    plc_free(l->owners);
    plc_free(l->hash_ids);
    plc_free(l->node_vnodes);
    plc_free(l->extra);
    memset(l, 0, sizeof *l);
}
