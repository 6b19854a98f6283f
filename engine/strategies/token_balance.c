/*
 * token_balance.c -- balanced token allocation (token_balance.h).
 *
 * The idea is Cassandra's allocator (allocate_tokens_for_local_replication_
 * factor): a joining node does not throw its tokens at random; each one
 * splits an existing range, taking its lower part from the owner, where
 * that helps the balance most. Here each token takes q = (the new node's
 * share) / (its token count) -- so its ranges come out even and its share
 * ends on target -- from the widest range of some node, that node chosen
 * by its share over its weight share and by how much the split lowers
 * sum_i (own_i - target_i)^2 / target_i in the zone's ring:
 *   - first in the whole ring, where a key's first owner lives: the
 *     nodes furthest above their share;
 *   - then, among those within ZONE_SLACK of the furthest, in the ring of
 *     the joining node's zone alone: with one replica per zone (placer's
 *     zone-aware replica walk when replicas = zones) a node's replicated
 *     load is its share of its zone's ring.
 * Splitting a node's widest range keeps its ranges even, so that a later
 * drain hands out even pieces. Only the split ranges change owner, so a
 * join moves exactly the new node's share, and removing the newest node
 * gives back the ring before it.
 *
 * plc_tokens_balance is one join of the incremental allocator
 * (balancer.h, where the rule is spelled out); the builder keeps one
 * balancer for all its joins. tests/reference_balance.c recomputes the
 * rule from the ring for every token and must give the same tokens.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "balancer.h"
#include "placer.h"
#include "token_balance.h"

#define TWO64 18446744073709551616.0
#define NONE UINT32_MAX
/* How much worse for the whole ring (in relative surplus of the victim) a
 * split may be when it is better for the zone's ring: 1.25% keeps the whole
 * ring within 1.05 of the mean and brings the zone rings from about 1.65
 * (no zone term) to about 1.25 of theirs, for 16 tokens per node. */
#define ZONE_SLACK 0.0125


/* Hashes owned by slot i: (tokens[i-1], tokens[i]], wrapping; returned as
 * hi * 2^64 + lo (hi is 1 only for a single token, or all tokens equal at
 * slot 0). */
static uint64_t range_len(const uint64_t *t, uint32_t n, uint32_t i, uint64_t *hi)
{
    *hi = 0;
    if (i > 0)
        return t[i] - t[i - 1];
    if (t[0] == t[n - 1]) {
        *hi = 1;
        return 0;
    }
    return t[0] - t[n - 1];
}

static void add128(uint64_t *hi, uint64_t *lo, uint64_t h, uint64_t l)
{
    uint64_t s = *lo + l;
    *hi += h + (s < l);
    *lo = s;
}

void plc_token_shares(plc_token_ring ring, uint32_t nnodes, double *share)
{
    uint64_t *acc = plc_calloc((size_t)nnodes * 2, sizeof *acc);
    for (uint32_t i = 0; i < nnodes; i++)
        share[i] = 0;
    if (!ring.n)
        return;
    if (!acc) { /* no memory: the same sums in doubles (exact to 2^-53) */
        for (uint32_t i = 0; i < ring.n; i++) {
            uint64_t hi, lo = range_len(ring.tokens, ring.n, i, &hi);
            share[ring.owners[i]] += (double)hi + (double)lo / TWO64;
        }
        return;
    }
    for (uint32_t i = 0; i < ring.n; i++) {
        uint64_t hi, lo = range_len(ring.tokens, ring.n, i, &hi);
        uint32_t o = ring.owners[i];
        add128(&acc[2 * o], &acc[2 * o + 1], hi, lo);
    }
    for (uint32_t i = 0; i < nnodes; i++)
        share[i] = (double)acc[2 * i] + (double)acc[2 * i + 1] / TWO64;
    plc_free(acc);
}

void plc_token_zone_shares(plc_token_ring ring, plc_token_nodes nodes, uint32_t zone,
                           double *share)
{
    for (uint32_t i = 0; i < nodes.n; i++)
        share[i] = 0;
    /* The zone's tokens, in ring order: each owns back to the previous one. */
    uint32_t first = NONE, last = NONE;
    for (uint32_t i = 0; i < ring.n; i++)
        if (nodes.zones[ring.owners[i]] == zone) {
            if (first == NONE)
                first = i;
            last = i;
        }
    if (first == NONE)
        return;
    uint64_t prev = ring.tokens[last];
    for (uint32_t i = first; i <= last; i++) {
        if (nodes.zones[ring.owners[i]] != zone)
            continue;
        uint64_t len = ring.tokens[i] - prev;
        int whole = i == first && len == 0; /* one token, or all equal: the whole ring */
        share[ring.owners[i]] += whole ? 1.0 : (double)len / TWO64;
        prev = ring.tokens[i];
    }
}

int plc_tokens_balance(plc_token_ring ring, plc_token_nodes nodes, uint32_t node,
                       uint32_t count, uint64_t base, uint64_t *out)
{
    if (!count || node >= nodes.n || !out || !nodes.weights || !nodes.zones ||
        (ring.n && (!ring.tokens || !ring.owners)))
        return PLACER_EINVAL;
    if ((uint64_t)ring.n + count > PLACER_MAX_TOKENS)
        return PLACER_ETOOMANY;
    for (uint32_t i = 0; i < ring.n; i++)
        if (ring.owners[i] >= nodes.n || ring.owners[i] == node)
            return PLACER_EINVAL;
    uint32_t *room = plc_calloc((size_t)nodes.n, sizeof *room);
    if (!room)
        return PLACER_ENOMEM;
    for (uint32_t i = 0; i < ring.n; i++)
        room[ring.owners[i]]++;
    room[node] = count;
    plc_balancer *B = NULL;
    int err = plc_balancer_new(ring, nodes, room, &B);
    if (!err)
        err = plc_balancer_join(B, node, count, base, out);
    plc_balancer_free(B);
    plc_free(room);
    return err;
}

/* A leaving node's token waiting for its heir: its index in the ring and
 * the length of the range it owns. */
typedef struct orphan {
    uint64_t len; /* UINT64_MAX: the whole ring */
    uint32_t at;
} orphan;

/* Widest first, then the lowest slot: a total order, so qsort is
 * deterministic. */
static int widest_first(const void *a, const void *b)
{
    const orphan *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? 1 : -1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* The heir of one token of a leaver of zone z, whose range is len (a share):
 * the eligible node lowest under its weight share once it holds the range;
 * among those within ZONE_SLACK of that, one of the leaver's zone, so the
 * zone's own ring keeps the range whole; then the lowest index. */
static uint32_t heir_of(const double *share, const double *target, plc_token_nodes nodes,
                        const uint8_t *eligible, uint32_t z, double len)
{
    uint32_t best = NONE, best_zone = NONE;
    double best_after = INFINITY, zone_after = INFINITY;
    for (uint32_t o = 0; o < nodes.n; o++) {
        if (!eligible[o])
            continue;
        double after = (share[o] + len) / target[o];
        if (after < best_after) {
            best_after = after;
            best = o;
        }
        if (nodes.zones[o] == z && after < zone_after) {
            zone_after = after;
            best_zone = o;
        }
    }
    return best_zone != NONE && zone_after <= best_after * (1 + ZONE_SLACK) ? best_zone : best;
}

int plc_tokens_hand_over(plc_token_ring ring, plc_token_nodes nodes, const uint8_t *leaving,
                         const uint8_t *eligible, uint32_t *owners_out)
{
    if (!leaving || !eligible || !owners_out || !nodes.weights || !nodes.zones ||
        (ring.n && (!ring.tokens || !ring.owners)))
        return PLACER_EINVAL;
    uint32_t N = nodes.n, nleave = 0, neligible = 0;
    double W = 0;
    for (uint32_t o = 0; o < N; o++) {
        if (leaving[o] && eligible[o])
            return PLACER_EINVAL;
        if (!leaving[o] && !(nodes.weights[o] > 0 && isfinite(nodes.weights[o])))
            return PLACER_EINVAL;
        W += leaving[o] ? 0 : nodes.weights[o];
        neligible += eligible[o] != 0;
    }
    for (uint32_t i = 0; i < ring.n; i++) {
        if (ring.owners[i] >= N || (i && ring.tokens[i] < ring.tokens[i - 1]))
            return PLACER_EINVAL;
        nleave += leaving[ring.owners[i]] != 0;
        owners_out[i] = ring.owners[i];
    }
    if (!nleave)
        return 0;
    if (!neligible)
        return PLACER_EINVAL;
    double *share = plc_malloc((size_t)N * 2 * sizeof *share);
    orphan *orph = plc_malloc((size_t)nleave * sizeof *orph);
    if (!share || !orph) {
        plc_free(share);
        plc_free(orph);
        return PLACER_ENOMEM;
    }
    double *target = share + N;
    plc_token_shares(ring, N, share);
    for (uint32_t k = 0; k < N; k++)
        target[k] = leaving[k] ? 1 : nodes.weights[k] / W;
    uint32_t k = 0;
    for (uint32_t i = 0; i < ring.n; i++)
        if (leaving[ring.owners[i]]) {
            uint64_t hi, len = range_len(ring.tokens, ring.n, i, &hi);
            orph[k++] = (orphan){hi ? UINT64_MAX : len, i};
        }
    qsort(orph, nleave, sizeof *orph, widest_first);
    for (k = 0; k < nleave; k++) {
        double len = orph[k].len == UINT64_MAX ? 1.0 : (double)orph[k].len / TWO64;
        uint32_t at = orph[k].at, heir =
            heir_of(share, target, nodes, eligible, nodes.zones[ring.owners[at]], len);
        owners_out[at] = heir;
        share[heir] += len;
    }
    plc_free(share);
    plc_free(orph);
    return 0;
}
