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

/*
 * The heirs' classes: the eligible nodes grouped by zone and by target
 * (weight share). A token of length len goes to the node lowest in
 * (share + len) / target; within a class every node divides by the same
 * target, so that order is the order of the shares (rounding is monotone:
 * s <= s' gives (s + len) / t <= (s' + len) / t), and a tournament tree of
 * the class's shares, its members in index order, gives the class's best
 * heir and, among its ties, the lowest index in O(log) steps. Across
 * classes, where the targets differ and the order changes with len, the
 * class bests are compared one by one: O(C + log N) per token for C
 * classes (zones x distinct weights; 3 for a ring of equal weights in 3
 * zones), where scanning every node was O(N).
 */
typedef struct heir_classes {
    uint32_t nclass;
    uint32_t *first;  /* class c's members: members[first[c] .. first[c + 1]), ascending */
    uint32_t *members;
    uint32_t *zone;   /* class c's zone (classes ascending by zone) */
    double *target;   /* class c's target */
    uint32_t *root;   /* class c's tree: tree[root[c] + 1 .. root[c] + 2 * width[c]) */
    uint32_t *width;  /* leaves of class c's tree: a power of two >= its members */
    double *tree;     /* the least share under each tree node; padding INFINITY */
    uint32_t *cls, *pos; /* node o: its class and its leaf (eligible nodes only) */
} heir_classes;

typedef struct class_key {
    uint32_t zone, node;
    double target;
} class_key;

static int by_class(const void *a, const void *b)
{
    const class_key *x = a, *y = b;
    if (x->zone != y->zone)
        return x->zone < y->zone ? -1 : 1;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

static void classes_free(heir_classes *h)
{
    plc_free(h->first);
    plc_free(h->members);
    plc_free(h->zone);
    plc_free(h->target);
    plc_free(h->root);
    plc_free(h->width);
    plc_free(h->tree);
    plc_free(h->cls);
}

/* The classes of the E eligible nodes, their trees holding share[]. */
static int classes_new(heir_classes *h, plc_token_nodes nodes, const uint8_t *eligible, uint32_t E,
                       const double *share, const double *target)
{
    uint32_t N = nodes.n;
    memset(h, 0, sizeof *h);
    class_key *k = plc_malloc((size_t)E * sizeof *k);
    h->first = plc_malloc(((size_t)E + 1) * sizeof *h->first);
    h->members = plc_malloc((size_t)E * sizeof *h->members);
    h->zone = plc_malloc((size_t)E * sizeof *h->zone);
    h->target = plc_malloc((size_t)E * sizeof *h->target);
    h->root = plc_malloc((size_t)E * sizeof *h->root);
    h->width = plc_malloc((size_t)E * sizeof *h->width);
    h->tree = plc_malloc((size_t)E * 4 * sizeof *h->tree); /* 2 x width <= 4 x members */
    h->cls = plc_malloc((size_t)N * 2 * sizeof *h->cls);
    if (!k || !h->first || !h->members || !h->zone || !h->target || !h->root || !h->width ||
        !h->tree || !h->cls) {
        plc_free(k);
        classes_free(h);
        memset(h, 0, sizeof *h);
        return PLACER_ENOMEM;
    }
    h->pos = h->cls + N;
    uint32_t e = 0;
    for (uint32_t o = 0; o < N; o++)
        if (eligible[o])
            k[e++] = (class_key){nodes.zones[o], o, target[o]};
    qsort(k, E, sizeof *k, by_class);
    uint32_t c = 0, at = 0;
    for (uint32_t i = 0; i < E; i++) {
        if (i == 0 || k[i].zone != k[i - 1].zone || k[i].target != k[i - 1].target) {
            h->first[c] = i;
            h->zone[c] = k[i].zone;
            h->target[c] = k[i].target;
            c++;
        }
        h->members[i] = k[i].node;
        h->cls[k[i].node] = c - 1;
        h->pos[k[i].node] = i - h->first[c - 1];
    }
    h->nclass = c;
    h->first[c] = E;
    for (c = 0; c < h->nclass; c++) {
        uint32_t m = h->first[c + 1] - h->first[c], w = 1;
        while (w < m)
            w *= 2;
        h->width[c] = w;
        h->root[c] = at;
        double *t = h->tree + at; /* t[1] the root, t[w + j] member j's leaf */
        for (uint32_t j = 0; j < w; j++)
            t[w + j] = j < m ? share[h->members[h->first[c] + j]] : INFINITY;
        for (uint32_t j = w - 1; j >= 1; j--)
            t[j] = t[2 * j] < t[2 * j + 1] ? t[2 * j] : t[2 * j + 1];
        at += 2 * w;
    }
    plc_free(k);
    return 0;
}

/* Node o's share is now s. */
static void classes_update(heir_classes *h, uint32_t o, double s)
{
    uint32_t c = h->cls[o];
    double *t = h->tree + h->root[c];
    uint32_t j = h->width[c] + h->pos[o];
    t[j] = s;
    for (j /= 2; j >= 1; j /= 2)
        t[j] = t[2 * j] < t[2 * j + 1] ? t[2 * j] : t[2 * j + 1];
}

/* Class c's lowest-index member whose (share + len) / target is `after`,
 * the class's least (the least share gives the least quotient, and a
 * subtree holds such a member exactly when its least share gives it). */
static uint32_t class_heir(const heir_classes *h, uint32_t c, double len, double after)
{
    const double *t = h->tree + h->root[c];
    double tg = h->target[c];
    uint32_t j = 1, w = h->width[c];
    while (j < w)
        j = (t[2 * j] + len) / tg == after ? 2 * j : 2 * j + 1;
    return h->members[h->first[c] + (j - w)];
}

/* Among classes [from, to): the least (share + len) / target in *after
 * (INFINITY when none is finite) and its lowest-index node (NONE then). */
static uint32_t best_in(const heir_classes *h, uint32_t from, uint32_t to, double len, double *after)
{
    double best = INFINITY;
    for (uint32_t c = from; c < to; c++) {
        double a = (h->tree[h->root[c] + 1] + len) / h->target[c];
        best = a < best ? a : best;
    }
    uint32_t node = NONE;
    for (uint32_t c = from; c < to && best < INFINITY; c++)
        if ((h->tree[h->root[c] + 1] + len) / h->target[c] == best) {
            uint32_t o = class_heir(h, c, len, best);
            node = o < node ? o : node;
        }
    *after = best;
    return node;
}

/* The heir of one token of a leaver of zone z, whose range is len (a share):
 * the eligible node lowest under its weight share once it holds the range;
 * among those within ZONE_SLACK of that, one of the leaver's zone, so the
 * zone's own ring keeps the range whole; then the lowest index. NONE when
 * no node's quotient is finite. */
static uint32_t heir_of(const heir_classes *h, uint32_t z, double len)
{
    double best_after, zone_after = INFINITY;
    uint32_t best = best_in(h, 0, h->nclass, len, &best_after), best_zone = NONE;
    uint32_t lo = 0, hi = h->nclass; /* the zone's classes: [lo, hi) */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (h->zone[mid] < z)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (hi = lo; hi < h->nclass && h->zone[hi] == z; hi++)
        ;
    if (lo < hi)
        best_zone = best_in(h, lo, hi, len, &zone_after);
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
    heir_classes h;
    int err = classes_new(&h, nodes, eligible, neligible, share, target);
    for (k = 0; !err && k < nleave; k++) {
        double len = orph[k].len == UINT64_MAX ? 1.0 : (double)orph[k].len / TWO64;
        uint32_t at = orph[k].at, heir = heir_of(&h, nodes.zones[ring.owners[at]], len);
        if (heir == NONE) { /* every quotient infinite: the weights' total overflows */
            err = PLACER_EINVAL;
            break;
        }
        owners_out[at] = heir;
        share[heir] += len;
        classes_update(&h, heir, share[heir]);
    }
    classes_free(&h);
    plc_free(share);
    plc_free(orph);
    return err;
}
