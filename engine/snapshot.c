/*
 * snapshot.c -- release and inspection of immutable snapshots. Every
 * accessor tolerates NULL and out-of-range indices with a documented value.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdatomic.h>

#include "alloc.h"
#include "fastrange.h"
#include "snapshot_internal.h"
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
    plc_free(s);
}

uint32_t placer_node_count(const placer_snapshot *s)
{
    return s ? s->nnodes : 0;
}

uint32_t placer_token_count(const placer_snapshot *s)
{
    if (!s)
        return 0;
    switch (s->strategy) {
    case PLACER_RING: return s->tree.n;
    case PLACER_RENDEZVOUS: return s->hrw.n;
    default: return s->table.n;
    }
}

size_t placer_snapshot_layout_bytes(const placer_snapshot *s)
{
    return s ? s->layout_bytes : 0;
}

size_t placer_snapshot_replica_bytes(const placer_snapshot *s)
{
    return s ? (size_t)s->tree.n * s->rep_r * sizeof(uint32_t) : 0;
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
    switch (s->strategy) {
    case PLACER_RING:
        *token = plc_stree_token(&s->tree, i);
        *owner = plc_stree_owner_at(&s->tree, i);
        break;
    case PLACER_RENDEZVOUS:
        *token = i;
        *owner = s->hrw.node[i];
        break;
    case PLACER_JUMP:
        *token = i;
        *owner = s->table.own[i];
        break;
    default: /* a range: its largest position */
        *token = plc_range_end(i, s->table.n);
        *owner = s->table.own[(size_t)i * s->table.width];
    }
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
