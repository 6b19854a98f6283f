/* reference.c -- see reference.h. */
#include "reference.h"

#include <math.h>
#include <string.h>

uint32_t ref_crc32c(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
    }
    return ~crc;
}

uint32_t ref_crc32(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

/* -1, 0, 1 as (token, id, vnode) of a is below, equal to, above b's. */
static int order(const ref_token *a, const ref_token *b, const char *const *ids)
{
    if (a->token != b->token)
        return a->token < b->token ? -1 : 1;
    int c = strcmp(ids[a->node], ids[b->node]);
    if (c)
        return c < 0 ? -1 : 1;
    if (a->vnode != b->vnode)
        return a->vnode < b->vnode ? -1 : 1;
    return 0;
}

uint32_t ref_ring_owner(const ref_token *t, size_t n, const char *const *ids, uint64_t h)
{
    const ref_token *best = NULL, *smallest = &t[0];
    for (size_t i = 0; i < n; i++) {
        if (order(&t[i], smallest, ids) < 0)
            smallest = &t[i];
        if (t[i].token >= h && (!best || order(&t[i], best, ids) < 0))
            best = &t[i];
    }
    return best ? best->node : smallest->node;
}

uint32_t ref_lower_bound_wrap(const uint64_t *tokens, uint32_t n, uint64_t h)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tokens[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == n ? 0 : lo;
}

int ref_in_moves(const placer_move *m, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].lo < m[i].hi ? (h > m[i].lo && h <= m[i].hi) : (h > m[i].lo || h <= m[i].hi))
            return 1;
    return 0;
}

int32_t ref_jump_hash(uint64_t key, int32_t buckets)
{
    int64_t b = -1, j = 0;
    while (j < buckets) {
        b = j;
        key = key * 2862933555777941757ULL + 1;
        j = (int64_t)((double)(b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1)));
    }
    return (int32_t)b;
}

static uint64_t range_start(uint32_t i, uint32_t n)
{
    return (uint64_t)((((unsigned __int128)i << 64) + n - 1) / n);
}

uint32_t ref_range_slot(uint64_t h, uint32_t n)
{
    uint32_t lo = 0, hi = n; /* the last i with start(i) <= h */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (range_start(mid, n) <= h)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

uint32_t ref_rendezvous_owner(const placer_snapshot *s, uint64_t h)
{
    uint32_t best = UINT32_MAX;
    double best_score = -1;
    for (uint32_t i = 0; i < placer_node_count(s); i++) {
        if (placer_node_state(s, i) == PLACER_NODE_JOINING)
            continue;
        const char *id = placer_node_id(s, i);
        uint64_t x = h ^ placer_hash64(placer_snapshot_seed(s), id, strlen(id));
        x ^= x >> 33;
        x *= UINT64_C(0xff51afd7ed558ccd);
        x ^= x >> 33;
        x *= UINT64_C(0xc4ceb9fe1a85ec53);
        x ^= x >> 33;
        double u = (double)((x >> 11) | 1) / 9007199254740992.0;
        double score = -placer_node_weight(s, i) / log(u);
        if (score > best_score) {
            best_score = score;
            best = i;
        }
    }
    return best;
}

uint32_t ref_owner(const placer_snapshot *s, uint64_t h)
{
    uint64_t tok;
    uint32_t o, n = placer_token_count(s);
    switch (placer_snapshot_strategy(s)) {
    case PLACER_JUMP:
        placer_token_at(s, (uint32_t)ref_jump_hash(h, (int32_t)n), &tok, &o);
        return o;
    case PLACER_PARTITIONS:
    case PLACER_MAGLEV:
        placer_token_at(s, ref_range_slot(h, n), &tok, &o);
        return o;
    case PLACER_RENDEZVOUS:
        return ref_rendezvous_owner(s, h);
    default:
        for (uint32_t i = 0; i < n; i++) {
            placer_token_at(s, i, &tok, &o);
            if (tok >= h)
                return o;
        }
        placer_token_at(s, 0, &tok, &o);
        return o;
    }
}

uint32_t ref_bounded_owner(const uint64_t *tokens, const uint32_t *owners, uint32_t n,
                           const int *states, uint32_t nnodes, const uint32_t *loads,
                           uint64_t total, double c, uint64_t h)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < nnodes; i++)
        m += states[i] == PLACER_NODE_ACTIVE || states[i] == PLACER_NODE_DRAINING;
    if (!m || !n)
        return PLACER_NO_NODE;
    double cap = ceil(c * ((double)total + 1) / m);
    uint32_t first = 0;
    while (first < n && tokens[first] < h)
        first++;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t o = owners[(first + k) % n];
        if ((states[o] == PLACER_NODE_ACTIVE || states[o] == PLACER_NODE_DRAINING) &&
            (double)loads[o] < cap)
            return o;
    }
    return PLACER_NO_NODE;
}
