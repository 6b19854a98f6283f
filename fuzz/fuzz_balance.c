/*
 * fuzz_balance.c -- balanced rings (PLACER_TOKENS_BALANCED) through a
 * fuzzer-chosen membership history: a first build, a second following it
 * (placer_builder_set_previous) with nodes removed, added and changing
 * state, and a third following the second with its draining nodes gone.
 *
 * Input: seed, vnodes (1-4: shapes, not bulk), replicas (0-1), then up to
 * 6 nodes (an id from a small pool, so ids repeat and are refused; zone of
 * 3; weight; state; rarely an explicit token), a byte per node for the
 * second build (keep, remove, new state), and up to 2 new nodes. Checked:
 *   - builds succeed or say PLACER_ENONODES (nobody placed now or after);
 *   - the same history gives the same bytes (the second build, built
 *     twice for a quarter of the seeds);
 *   - a node that had tokens keeps every one it owned in the previous
 *     current placement (unless joining now: then it owns none now), and
 *     gains only tokens of nodes gone from the membership; a node without
 *     tokens before gets new ones only;
 *   - the gone nodes' tokens go to active nodes (when any is active), and
 *     in the target placement a draining node's tokens belong to an active
 *     node (when any is active), never to a draining one; a node joining
 *     never receives any (the next build reads its tokens from the target);
 *   - a drain and the removal after it agree: with the second build's
 *     draining nodes removed and nothing else changed, the third build's
 *     target is the second's, position for position.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "placer.h"

#define MAX_NODES 8

typedef struct member {
    char id[8], zone[4];
    double weight;
    int state, ntok;
    uint64_t tok;
} member;

static placer_snapshot *build(const member *m, int n, uint8_t seed, uint32_t vnodes, uint32_t replicas,
                              const placer_snapshot *previous, uint64_t epoch, int twice)
{
    placer_builder *b = placer_builder_new();
    FUZZ_ASSERT(b);
    FUZZ_ASSERT(placer_builder_set_token_allocation(b, PLACER_TOKENS_BALANCED) == 0);
    placer_builder_set_seed(b, seed);
    placer_builder_set_vnodes(b, vnodes);
    placer_builder_set_replicas(b, replicas);
    for (int i = 0; i < n; i++) {
        int idx = placer_builder_add_node(b, m[i].id, m[i].zone, m[i].weight);
        FUZZ_ASSERT(idx == i);
        FUZZ_ASSERT(placer_builder_set_state(b, (uint32_t)idx, m[i].state) == 0);
        if (m[i].ntok)
            FUZZ_ASSERT(placer_builder_add_token(b, (uint32_t)idx, m[i].tok) == 0);
    }
    if (previous)
        FUZZ_ASSERT(placer_builder_set_previous(b, previous) == 0);
    placer_snapshot *s = NULL;
    int rc = placer_builder_build(b, epoch, &s);
    FUZZ_ASSERT(rc == 0 || rc == PLACER_ENONODES);
    if (s && twice) { /* the same history, the same bytes */
        placer_snapshot *again = NULL;
        FUZZ_ASSERT(placer_builder_build(b, epoch, &again) == 0);
        void *e1, *e2;
        size_t l1, l2;
        FUZZ_ASSERT(placer_snapshot_encode(s, &e1, &l1) == 0 && placer_snapshot_encode(again, &e2, &l2) == 0);
        FUZZ_ASSERT(l1 == l2 && memcmp(e1, e2, l1) == 0);
        placer_buffer_free(e1);
        placer_buffer_free(e2);
        placer_snapshot_free(again);
    }
    placer_builder_free(b);
    return s;
}

/* Index of node `id` in s, or -1. */
static int find(const placer_snapshot *s, const char *id)
{
    for (uint32_t i = 0; i < placer_node_count(s); i++)
        if (strcmp(placer_node_id(s, i), id) == 0)
            return (int)i;
    return -1;
}

/* A snapshot's current placement as (token, owner), ascending, and where
 * each of its nodes is in another snapshot (by id; -1 when absent). */
typedef struct tok {
    uint64_t t;
    uint32_t o;
} tok;

typedef struct toks {
    tok *v;
    uint32_t n;
    int in_other[MAX_NODES];
} toks;

static toks tokens_of(const placer_snapshot *s, const placer_snapshot *other)
{
    toks r = {malloc((placer_token_count(s) + 1) * sizeof *r.v), placer_token_count(s), {0}};
    FUZZ_ASSERT(r.v && placer_node_count(s) <= MAX_NODES);
    for (uint32_t i = 0; i < r.n; i++)
        placer_token_at(s, i, &r.v[i].t, &r.v[i].o);
    for (uint32_t i = 0; i < placer_node_count(s); i++)
        r.in_other[i] = find(other, placer_node_id(s, i));
    return r;
}

/* The first entry with token >= t. */
static uint32_t lower(const toks *r, uint64_t t)
{
    uint32_t lo = 0, hi = r->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->v[mid].t < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Does node o own token t in r? */
static int owns(const toks *r, int o, uint64_t t)
{
    for (uint32_t i = lower(r, t); i < r->n && r->v[i].t == t; i++)
        if (r->v[i].o == (uint32_t)o)
            return 1;
    return 0;
}

/* The state heirs have: active, or down when no node is active (nodes
 * with explicit tokens are never heirs); -1 when there is neither (nothing
 * is handed over). */
static int heir_state(const placer_snapshot *s, const member *m)
{
    int down = 0;
    for (uint32_t i = 0; i < placer_node_count(s); i++) {
        int st = m[i].ntok ? -1 : placer_node_state(s, i);
        if (st == PLACER_NODE_ACTIVE)
            return st;
        down |= st == PLACER_NODE_DOWN;
    }
    return down ? PLACER_NODE_DOWN : -1;
}

/* Is t some node's explicit token? (Equal tokens: the first in id order
 * owns the range, whoever the heir.) */
static int explicit_token(const member *m, int n, uint64_t t)
{
    for (int i = 0; i < n; i++)
        if (m[i].ntok && m[i].tok == t)
            return 1;
    return 0;
}

/* s (membership m) follows prev: a node's tokens are its own from prev,
 * its explicit ones, or gone nodes' handed to it as an heir (active, or
 * down when no node is; never with explicit tokens); a node keeps its
 * tokens; in the target, a draining node's tokens go to an heir. */
static void check_follows(const placer_snapshot *prev, const placer_snapshot *s, const member *m, int n)
{
    int heir = heir_state(s, m);
    toks P = tokens_of(prev, s), S = tokens_of(s, prev);
    for (uint32_t i = 0; i < S.n; i++) { /* where s's tokens come from */
        uint64_t t = S.v[i].t;
        uint32_t o = S.v[i].o;
        int before = S.in_other[o];
        if (before < 0 || placer_node_tokens(prev, (uint32_t)before) == 0)
            continue; /* new to the ring: new tokens */
        if (owns(&P, before, t) || explicit_token(m, n, t))
            continue; /* its own, or explicit (they win over previous ones) */
        /* not its own: a gone node's, handed to an heir */
        int from_gone = 0;
        for (uint32_t j = lower(&P, t); j < P.n && P.v[j].t == t && !from_gone; j++)
            from_gone = P.in_other[P.v[j].o] < 0;
        FUZZ_ASSERT(from_gone && placer_node_state(s, o) == heir && !m[o].ntok);
    }
    /* a node of prev in s, not joining there and without explicit tokens,
     * keeps every token it owned in prev's current placement */
    for (uint32_t i = 0; i < P.n; i++) {
        int b = P.in_other[P.v[i].o];
        if (b >= 0 && !m[b].ntok && placer_node_state(s, (uint32_t)b) != PLACER_NODE_JOINING)
            FUZZ_ASSERT(owns(&S, b, P.v[i].t));
    }
    free(P.v);
    free(S.v);
    /* a draining node's tokens, in the target: an heir's. Not where another
     * node has an equal token (the first in id order owns the range, and a
     * node allocated in this build does not see the draining tokens), nor
     * while a node joins (its tokens, in the target only, might). */
    int joining = 0;
    for (uint32_t i = 0; i < placer_node_count(s); i++)
        joining |= placer_node_state(s, i) == PLACER_NODE_JOINING;
    for (uint32_t i = 0; i < placer_token_count(s) && heir >= 0 && !joining; i++) {
        uint64_t t, u = 0;
        uint32_t o, q, now, next;
        placer_token_at(s, i, &t, &o);
        uint32_t nt = placer_token_count(s), equal = 0;
        if (nt > 1) { /* equal tokens sit side by side */
            placer_token_at(s, (i + nt - 1) % nt, &u, &q);
            equal = u == t;
            placer_token_at(s, (i + 1) % nt, &u, &q);
            equal |= u == t;
        }
        if (placer_node_state(s, o) != PLACER_NODE_DRAINING || equal || explicit_token(m, n, t))
            continue;
        FUZZ_ASSERT(placer_lookup_hash_handoff(s, t, &now, &next) == 0);
        FUZZ_ASSERT(placer_node_state(s, next) == heir && !m[next].ntok);
    }
}

/* Position for position, a's target and b's target (by node id): ownership
 * is constant between consecutive tokens of both, so each token of either
 * is one probe per range. */
static void check_same_target(const placer_snapshot *a, const placer_snapshot *b)
{
    const placer_snapshot *both[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < placer_token_count(both[k]); i++) {
            uint64_t t;
            uint32_t o, na, nb, xa, xb;
            placer_token_at(both[k], i, &t, &o);
            FUZZ_ASSERT(placer_lookup_hash_handoff(a, t, &na, &xa) == 0);
            FUZZ_ASSERT(placer_lookup_hash_handoff(b, t, &nb, &xb) == 0);
            FUZZ_ASSERT(strcmp(placer_node_id(a, xa), placer_node_id(b, xb)) == 0);
        }
}

/* Add node i of the pool to m (refusing a repeated id); returns the new count. */
static int add_member(member *m, int n, fuzz_producer *p)
{
    member x = {0};
    snprintf(x.id, sizeof x.id, "n%u", (unsigned)(fuzz_u8(p) % 10));
    snprintf(x.zone, sizeof x.zone, "z%u", (unsigned)(fuzz_u8(p) % 3));
    x.weight = 0.5 * (1 + fuzz_u8(p) % 6);
    x.state = fuzz_u8(p) % 4;
    uint8_t t = fuzz_u8(p);
    x.ntok = t % 8 == 0;
    x.tok = (uint64_t)(t >> 3) << 59;
    for (int i = 0; i < n; i++)
        if (strcmp(m[i].id, x.id) == 0)
            return n;
    m[n] = x;
    return n + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    uint8_t seed = fuzz_u8(&p);
    uint32_t vnodes = 1 + fuzz_u8(&p) % 4, replicas = fuzz_u8(&p) % 3 == 2;
    member m0[MAX_NODES], m1[MAX_NODES], m2[MAX_NODES];
    int n0 = 0, want = 1 + fuzz_u8(&p) % 6;
    for (int i = 0; i < want; i++)
        n0 = add_member(m0, n0, &p);
    placer_snapshot *s0 = build(m0, n0, seed, vnodes, replicas, NULL, 1, 0);
    if (!s0)
        return 0;
    /* the second build: each node kept, removed or in a new state; new ones */
    int n1 = 0;
    for (int i = 0; i < n0; i++) {
        uint8_t c = fuzz_u8(&p);
        if (c % 4 == 1)
            continue;
        m1[n1] = m0[i];
        if (c % 4 == 2)
            m1[n1].state = (c >> 2) % 4;
        n1++;
    }
    for (int k = 0, more = fuzz_u8(&p) % 3; k < more; k++)
        n1 = add_member(m1, n1, &p);
    placer_snapshot *s1 = build(m1, n1, seed, vnodes, replicas, s0, 2, (seed & 3) == 0);
    if (s1) {
        check_follows(s0, s1, m1, n1);
        /* the third: the draining nodes gone, nothing else changed */
        int n2 = 0;
        for (int i = 0; i < n1; i++)
            if (m1[i].state != PLACER_NODE_DRAINING)
                m2[n2++] = m1[i];
        placer_snapshot *s2 = n2 < n1 ? build(m2, n2, seed, vnodes, replicas, s1, 3, 0) : NULL;
        if (s2) {
            check_follows(s1, s2, m2, n2);
            check_same_target(s1, s2);
        }
        placer_snapshot_free(s2);
    }
    placer_snapshot_free(s0);
    placer_snapshot_free(s1);
    return 0;
}
