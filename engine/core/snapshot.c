/*
 * snapshot.c -- release and inspection of immutable snapshots. Every
 * accessor tolerates NULL and out-of-range indices with a documented value.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdatomic.h>

#include "alloc.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"
#include "validate.h"

static atomic_long alive;

void plc_snapshot_born(void)
{
    atomic_fetch_add_explicit(&alive, 1, memory_order_relaxed);
}

long placer_snapshots_alive(void)
{
    return atomic_load_explicit(&alive, memory_order_relaxed);
}

void placer_snapshot_free(placer_snapshot *s)
{
    if (!s)
        return;
    atomic_fetch_sub_explicit(&alive, 1, memory_order_relaxed);
    plc_compat_release(s);
    plc_free(s);
}

uint32_t placer_node_count(const placer_snapshot *s)
{
    return s ? s->nnodes : 0;
}

uint32_t placer_token_count(const placer_snapshot *s)
{
    return s ? s->ops->token_count(s) : 0;
}

size_t placer_snapshot_layout_bytes(const placer_snapshot *s)
{
    return s ? s->layout_bytes : 0;
}

const char *placer_snapshot_layout_name(const placer_snapshot *s)
{
    if (!s)
        return NULL;
    if (s->bkt_search)
        return "buckets";
    if (s->dir_search)
        return "directory";
    if (s->ops->layout)
        return s->ops->layout;
    /* the ring, and the compatibility modes' rings: a tree of their tokens */
    return s->tree.n ? "stree" : "table";
}

int placer_snapshot_directory(const placer_snapshot *s, uint32_t *bits, double *one_read)
{
    if (!s)
        return PLACER_ENULL;
    if (s->bkt_search) { /* lines, and the share of them not crowded */
        uint64_t lines = (uint64_t)1 << s->bkt.bits;
        if (bits)
            *bits = s->bkt.bits;
        if (one_read)
            *one_read = (double)(lines - s->bkt.ncrowded) / (double)lines;
        return 0;
    }
    if (!s->dir_search)
        return PLACER_EINVAL;
    if (bits)
        *bits = s->dir.bits;
    if (one_read) /* OWNER entries, and SPLIT ones (but for 2^-10 of their hashes) */
        *one_read = (double)(s->dir.nowner + s->dir.nsplit) / (double)((uint64_t)1 << s->dir.bits);
    return 0;
}

size_t placer_snapshot_replica_bytes(const placer_snapshot *s)
{
    if (!s)
        return 0;
    return (size_t)s->tree.n * s->rep_r * sizeof(uint32_t) +
           (s->rep_lines ? plc_replica_lines_bytes(s->bkt.bits, s->rep_r) : 0) +
           (s->rep_wide ? plc_replica_wide_bytes(s->bkt.bits, s->rep_r, s->nnodes) : 0);
}

const char *placer_node_id(const placer_snapshot *s, uint32_t node)
{
    return s && node < s->nnodes ? s->nodes[node].id : NULL;
}

const char *placer_node_zone(const placer_snapshot *s, uint32_t node)
{
    return s && node < s->nnodes ? s->nodes[node].zone : NULL;
}

const char *placer_node_address(const placer_snapshot *s, uint32_t node)
{
    return s && node < s->nnodes ? s->nodes[node].address : NULL;
}

const char *placer_node_datacenter(const placer_snapshot *s, uint32_t node)
{
    return s && node < s->nnodes ? s->nodes[node].datacenter : NULL;
}

uint32_t placer_node_replication(const placer_snapshot *s, uint32_t node)
{
    return s && node < s->nnodes ? s->nodes[node].dc_rf : 0;
}

double placer_node_weight(const placer_snapshot *s, uint32_t node)
{
    return s && node < s->nnodes ? s->nodes[node].weight : 0.0;
}

uint32_t placer_node_tokens(const placer_snapshot *s, uint32_t node)
{
    return s && node < s->nnodes ? s->nodes[node].ntokens : 0;
}

int placer_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token, uint32_t *owner)
{
    PLC_VALIDATE_OR_RET(s && token && owner, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(i < placer_token_count(s), PLACER_ERANGE);
    s->ops->token_at(s, i, token, owner);
    return 0;
}

uint64_t placer_snapshot_epoch(const placer_snapshot *s)
{
    return s ? s->epoch : 0;
}

uint64_t placer_snapshot_seed(const placer_snapshot *s)
{
    return s ? s->seed : 0;
}
