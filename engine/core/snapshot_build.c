/*
 * snapshot_build.c -- what every strategy's build shares: one allocation
 * holding the header, the strategy's payload, the node records and their
 * strings, and the table strategies' snapshot. The builds call it; it
 * calls no build (the dispatch is placer_builder_build's, builder.c).
 */
#include <string.h>

#include "alloc.h"
#include "builder_internal.h"
#include "strategy_ops.h"
#include "validate.h"

static size_t align_up(size_t n)
{
    return (n + PLC_CACHE_LINE - 1) & ~(size_t)(PLC_CACHE_LINE - 1);
}

/* Give equal zone names one id; return how many zones have a node in the
 * current placement (not joining): the zones a replica set can use. */
static uint32_t number_zones(plc_node *nodes, uint32_t n, const uint32_t *order,
                             uint32_t *zone_ids)
{
    uint32_t id = 0, owning = 0;
    int run_owns = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (r && strcmp(nodes[order[r]].zone, nodes[order[r - 1]].zone) != 0) {
            owning += run_owns;
            run_owns = 0;
            id++;
        }
        nodes[order[r]].zone_id = id;
        run_owns |= plc_in_placement(nodes[order[r]].state, 0);
    }
    *zone_ids = n ? id + 1 : 0;
    return owning + run_owns;
}

/* placer_lookup_hash of a strategy with no lookup_hash op: its owner now. */
static int lookup_hash_by_owner(const placer_snapshot *s, uint64_t h)
{
    uint32_t o = s->ops->owner(s, h, 0);
    return o == PLC_NO_NODE ? PLACER_ENOLIVE : (int)o;
}

placer_snapshot *plc_snapshot_new(const placer_builder *b, size_t payload, uint64_t epoch,
                                  unsigned char **payload_at)
{
    size_t strings = 0;
    for (uint32_t n = 0; n < b->nnodes; n++)
        strings += (size_t)b->nodes[n].id_len + b->nodes[n].zone_len + b->nodes[n].addr_len +
                   b->nodes[n].dc_len + 4;
    size_t off_payload = align_up(sizeof(placer_snapshot));
    size_t off_nodes = align_up(off_payload + payload);
    size_t off_strings = off_nodes + (size_t)b->nnodes * sizeof(plc_node);
    size_t bytes = off_strings + strings;

    uint32_t *order = plc_builder_order(b, 1);
    unsigned char *mem = order ? plc_aligned_alloc(bytes) : NULL;
    if (!mem) {
        plc_free(order);
        return NULL;
    }
    /* The strategy writes its whole payload; zero the rest. */
    memset(mem, 0, off_payload);
    memset(mem + off_nodes, 0, bytes - off_nodes);
    placer_snapshot *s = (placer_snapshot *)mem;
    plc_node *nodes = (plc_node *)(mem + off_nodes);
    char *str = (char *)(mem + off_strings);
    for (uint32_t n = 0; n < b->nnodes; n++) {
        const plc_bnode *src = &b->nodes[n];
        nodes[n].id = str;
        memcpy(str, src->id, src->id_len + 1);
        str += src->id_len + 1;
        nodes[n].zone = str;
        memcpy(str, src->zone, src->zone_len + 1);
        str += src->zone_len + 1;
        nodes[n].address = str;
        if (src->addr_len)
            memcpy(str, src->addr, src->addr_len);
        str[src->addr_len] = '\0';
        str += src->addr_len + 1;
        nodes[n].datacenter = str;
        if (src->dc_len)
            memcpy(str, src->dc, src->dc_len);
        str[src->dc_len] = '\0';
        str += src->dc_len + 1;
        nodes[n].dc_rf = src->dc_rf;
        nodes[n].weight = src->weight;
        nodes[n].state = src->state;
        s->nbounded += src->state == PLACER_NODE_ACTIVE || src->state == PLACER_NODE_DRAINING;
    }
    s->nzones = number_zones(nodes, b->nnodes, order, &s->zone_ids);
    for (uint32_t n = 0; n < b->nnodes && n < PLC_WALK_SMALL_NODES; n++)
        s->walk_zone16[n] = (uint16_t)nodes[n].zone_id; /* read only when zone_ids <= 32 */
    plc_free(order);
    const plc_kernels *k = plc_kernels_get();
    const plc_strategy_ops *ops = b->ops; /* not the registry: it calls the modules, which call here */
    s->ops = ops;
    s->index = k->index;
    int fused;
    plc_hash_kernels(b->eff_hash, k, &s->hash, &s->hash_batch, &fused);
    if (ops->fused_stree) { /* the ring: its kernels */
        s->search = k->search;
        s->search_batch = k->search_batch;
        if (fused) { /* the fused kernels hash with placer-v2 */
            s->lookup = k->lookup;
            s->lookup_batch = k->lookup_batch;
        }
    } else { /* any other strategy: its module's single lookups */
        s->module_lookup = ops->lookup;
        s->module_lookup_hash = ops->lookup_hash ? ops->lookup_hash : lookup_hash_by_owner;
    }
    s->crc32 = k->crc32;
    s->hkey = b->eff_key;
    s->seed = b->eff_key.seed;
    s->epoch = epoch;
    s->strategy = b->strategy;
    s->key_hash = b->eff_hash;
    s->format_version = b->format_version ? b->format_version : 2;
    s->nodes = nodes;
    s->nnodes = b->nnodes;
    *payload_at = mem + off_payload;
    plc_snapshot_born();
    return s;
}

int plc_table_snapshot(const placer_builder *b, uint64_t epoch, uint32_t width, const uint32_t *cur,
                       uint32_t n, const uint32_t *tgt, uint32_t tn, placer_snapshot **out)
{
    size_t bytes = (size_t)n * width * sizeof(uint32_t);
    size_t tbytes = tgt ? (size_t)tn * width * sizeof(uint32_t) : 0;
    unsigned char *at;
    placer_snapshot *s = plc_snapshot_new(b, align_up(bytes) + tbytes, epoch, &at);
    if (!s)
        return PLACER_ENOMEM;
    memcpy(at, cur, bytes);
    s->table = plc_table_of((const uint32_t *)at, n, width);
    if (tgt) {
        memcpy(at + align_up(bytes), tgt, tbytes);
        s->ttable = plc_table_of((const uint32_t *)(at + align_up(bytes)), tn, width);
        s->has_target = 1;
    }
    s->layout_bytes = bytes + tbytes;
    plc_node *nodes = (plc_node *)s->nodes;
    for (uint32_t i = 0; i < n; i++)
        if (cur[(size_t)i * width] != PLC_NO_NODE)
            nodes[cur[(size_t)i * width]].ntokens++;
    *out = s;
    return 0;
}
