/*
 * test_balanced_ring.c -- rings built with PLACER_TOKENS_BALANCED through
 * the public builder, and placer_lookup_bounded / the router's call:
 *   - the builder's tokens are exactly the allocator's, node after node in
 *     membership order, and 120 nodes x 16 tokens in 3 zones are within
 *     1.05 (exact shares from placer_token_at);
 *   - with a previous snapshot, a join keeps every other node's tokens and
 *     moves (placer_moved_fraction) at most 1.1x the ideal; a removal keeps
 *     everyone else's tokens and hands the leaver's to nodes under their
 *     share (only its share moves); a drain's target is exactly the ring
 *     the removal then builds, and a drain called off gives back the ring
 *     before it; a node joining in previous keeps its tokens;
 *     explicit tokens are kept; the same history gives the same bytes;
 *   - placer_lookup_bounded equals the plain rule of tests/reference.c read
 *     through the public inspection calls (for every key hash: placer-v2
 *     rings take the fused kernels and the directory, placer-v1 and keyed
 *     rings the hash pointer), keeps the bound over a whole
 *     insert sequence, and reports its errors.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"
#include "reference.h"
#include "token_balance.h"

static placer_builder *members(uint32_t n, uint32_t v, uint32_t skip)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, v);
    placer_builder_set_seed(b, 99);
    CHECK_EQ(placer_builder_set_token_allocation(b, PLACER_TOKENS_BALANCED), 0);
    for (uint32_t i = 0; i < n; i++) {
        if (i == skip)
            continue;
        char id[32], zone[8];
        snprintf(id, sizeof id, "node-%03u", i);
        snprintf(zone, sizeof zone, "z%u", i % 3);
        CHECK(placer_builder_add_node(b, id, zone, 1.0) >= 0);
    }
    return b;
}

/* The snapshot's tokens and owners, and exact max/mean of share / weight share. */
typedef struct ring {
    uint64_t *tok;
    uint32_t *own, n;
} ring;

static ring ring_of(const placer_snapshot *s)
{
    ring r = {malloc(placer_token_count(s) * sizeof(uint64_t)),
              malloc(placer_token_count(s) * sizeof(uint32_t)), placer_token_count(s)};
    for (uint32_t i = 0; i < r.n; i++)
        placer_token_at(s, i, &r.tok[i], &r.own[i]);
    return r;
}

static double max_over_mean(const placer_snapshot *s)
{
    ring r = ring_of(s);
    uint32_t N = placer_node_count(s);
    double *share = calloc(N, sizeof *share), W = 0, mx = 0, sum = 0;
    plc_token_shares((plc_token_ring){r.tok, r.own, r.n}, N, share);
    for (uint32_t i = 0; i < N; i++)
        W += placer_node_weight(s, i);
    for (uint32_t i = 0; i < N; i++) {
        double q = share[i] / (placer_node_weight(s, i) / W);
        mx = fmax(mx, q);
        sum += q;
    }
    free(share);
    free(r.tok);
    free(r.own);
    return mx / (sum / N);
}

/* Node `id`'s tokens in s, ascending, into out (returns how many). */
static uint32_t tokens_of(const placer_snapshot *s, const char *id, uint64_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < placer_token_count(s); i++) {
        uint64_t t;
        uint32_t o;
        placer_token_at(s, i, &t, &o);
        if (strcmp(placer_node_id(s, o), id) == 0)
            out[k++] = t;
    }
    return k;
}

/* Every node with tokens in a's current placement that is in b has the
 * same tokens in both. */
static int same_tokens(const placer_snapshot *a, const placer_snapshot *b)
{
    uint64_t ta[64], tb[64];
    for (uint32_t i = 0; i < placer_node_count(a); i++) {
        const char *id = placer_node_id(a, i);
        uint32_t na = tokens_of(a, id, ta), nb = tokens_of(b, id, tb);
        if (na == 0 || nb == 0)
            continue; /* joining in a, or not in b */
        if (na != nb || memcmp(ta, tb, na * sizeof *ta))
            return 0;
    }
    return 1;
}

static void test_builder_matches_allocator(void)
{
    placer_builder *b = members(120, 16, UINT32_MAX);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    double mm = max_over_mean(s);
    printf("builder, 120 nodes x 16 balanced tokens, 3 zones: max/mean %.4f\n", mm);
    CHECK(mm <= 1.05);
    /* the allocator by hand, node after node */
    double w[120];
    uint32_t z[120];
    for (uint32_t i = 0; i < 120; i++) {
        w[i] = 1;
        z[i] = i % 3;
    }
    uint64_t *tok = malloc(120 * 16 * sizeof *tok), t[16];
    uint32_t *own = malloc(120 * 16 * sizeof *own), n = 0;
    for (uint32_t x = 0; x < 120; x++) {
        char id[32];
        snprintf(id, sizeof id, "node-%03u", x);
        CHECK_EQ(plc_tokens_balance((plc_token_ring){tok, own, n}, (plc_token_nodes){w, z, 120}, x,
                                    16, placer_hash64(99, id, strlen(id)), t),
                 0);
        uint32_t i = n, j = 16, at = n + 16;
        while (j > 0) {
            if (i > 0 && tok[i - 1] > t[j - 1]) {
                at--, i--;
                tok[at] = tok[i];
                own[at] = own[i];
            } else {
                at--, j--;
                tok[at] = t[j];
                own[at] = x;
            }
        }
        n += 16;
    }
    ring r = ring_of(s);
    CHECK_EQ(r.n, n);
    CHECK(memcmp(r.tok, tok, n * sizeof *tok) == 0);
    CHECK(memcmp(r.own, own, n * sizeof *own) == 0);
    free(r.tok);
    free(r.own);
    free(tok);
    free(own);
    /* the same history, the same bytes */
    placer_snapshot *s2 = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s2), 0);
    void *e1, *e2;
    size_t l1, l2;
    placer_snapshot_encode(s, &e1, &l1);
    placer_snapshot_encode(s2, &e2, &l2);
    CHECK(l1 == l2 && memcmp(e1, e2, l1) == 0);
    placer_buffer_free(e1);
    placer_buffer_free(e2);
    placer_snapshot_free(s2);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

/* The owner's id of position h in a's current placement (next 0) or after
 * its transition (next 1). */
static const char *owner_id(const placer_snapshot *a, uint64_t h, int next)
{
    uint32_t now, after;
    CHECK_EQ(placer_lookup_hash_handoff(a, h, &now, &after), 0);
    return placer_node_id(a, next ? after : now);
}

/* a's placement (current, or target with next 1) and b's current one give
 * every position the same owner (by id). Ownership is constant between
 * consecutive tokens of the two rings together, so asking at every token
 * of both covers every range, the wrapping one included. */
static int same_owners(const placer_snapshot *a, int next, const placer_snapshot *b)
{
    const placer_snapshot *both[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < placer_token_count(both[k]); i++) {
            uint64_t t;
            uint32_t o;
            placer_token_at(both[k], i, &t, &o);
            if (strcmp(owner_id(a, t, next), owner_id(b, t, 0)) != 0)
                return 0;
        }
    return 1;
}

/* Exact share of node `id` in s's current placement. */
static double share_of(const placer_snapshot *s, const char *id)
{
    ring r = ring_of(s);
    uint32_t N = placer_node_count(s);
    double *share = calloc(N, sizeof *share), x = 0;
    plc_token_shares((plc_token_ring){r.tok, r.own, r.n}, N, share);
    for (uint32_t i = 0; i < N; i++)
        if (strcmp(placer_node_id(s, i), id) == 0)
            x = share[i];
    free(share);
    free(r.tok);
    free(r.own);
    return x;
}

/*
 * Removing node-040 from s1 (121 nodes): everyone else keeps every token,
 * the leaver's tokens go, each at its position, to nodes under their share
 * (spread over many heirs, not piled onto its successors), so exactly its
 * share moves and the ring stays within 1.10. Draining it first gives, in
 * the target, the very ring the removal then builds: the drain moves its
 * share once, the removal nothing more; and a drain called off gives back
 * the ring before it.
 */
static void test_removal(const placer_snapshot *s1)
{
    placer_snapshot *gone = NULL, *drain = NULL, *after = NULL, *back = NULL;
    placer_builder *b = members(121, 16, 40);
    placer_builder_set_previous(b, s1);
    CHECK_EQ(placer_builder_build(b, 5, &gone), 0);
    CHECK_EQ(placer_node_count(gone), 120);
    uint64_t t1[64], t2[64], leaver[64];
    uint32_t nl = tokens_of(s1, "node-040", leaver), gained = 0, heirs = 0;
    for (uint32_t i = 0; i < placer_node_count(gone); i++) {
        const char *id = placer_node_id(gone, i);
        uint32_t n1 = tokens_of(s1, id, t1), n2 = tokens_of(gone, id, t2), j = 0, got = 0;
        for (uint32_t k = 0; k < n2; k++) { /* t1 in t2, the rest node-040's */
            if (j < n1 && t1[j] == t2[k]) {
                j++;
                continue;
            }
            int from_leaver = 0;
            for (uint32_t l = 0; l < nl; l++)
                from_leaver |= leaver[l] == t2[k];
            CHECK_ALL(from_leaver, "a node's new tokens are the leaver's");
            got++;
        }
        CHECK_ALL(j == n1, "a removal keeps every other node's tokens");
        gained += got;
        heirs += got > 0;
    }
    CHECK_EQ(gained, nl);
    double moved = 0, leaver_share = share_of(s1, "node-040");
    CHECK_EQ(placer_moved_fraction(s1, gone, 1u << 20, &moved), 0);
    printf("node-040 removed: its %u tokens to %u heirs, moved %.5f (its share %.5f), max/mean %.4f\n",
           nl, heirs, moved, leaver_share, max_over_mean(gone));
    CHECK(heirs >= nl / 2);
    CHECK(fabs(moved - leaver_share) <= 0.01 * leaver_share); /* the sample's error */
    /* whole ranges move, and the leaver's widest are about a tenth of a
     * mean share: the goal of 1.10 for drains */
    CHECK(max_over_mean(gone) <= 1.10);
    placer_builder_free(b);

    /* drained first: the current ring is s1's, the target the removal's */
    b = members(121, 16, UINT32_MAX);
    placer_builder_set_previous(b, s1);
    CHECK_EQ(placer_builder_set_state(b, 40, PLACER_NODE_DRAINING), 0);
    CHECK_EQ(placer_builder_build(b, 6, &drain), 0);
    CHECK(same_owners(s1, 0, drain));
    CHECK(same_owners(drain, 1, gone));
    placer_move *mv = NULL;
    size_t k = 0;
    CHECK_EQ(placer_diff_transition(drain, &mv, &k), 0);
    for (size_t i = 0; i < k; i++)
        CHECK_ALL(strcmp(placer_node_id(drain, mv[i].from), "node-040") == 0,
                  "a drain moves only the drained node's ranges");
    CHECK(fabs(placer_moves_coverage(mv, k) - leaver_share) <= 1e-12);
    placer_moves_free(mv);
    /* the drain called off: node-040 active again keeps its tokens */
    placer_builder_set_state(b, 40, PLACER_NODE_ACTIVE);
    placer_builder_set_previous(b, drain);
    CHECK_EQ(placer_builder_build(b, 7, &back), 0);
    CHECK(same_owners(s1, 0, back));
    placer_builder_free(b);
    /* then removed: the same heirs, nothing more moves */
    b = members(121, 16, 40);
    placer_builder_set_previous(b, drain);
    CHECK_EQ(placer_builder_build(b, 8, &after), 0);
    CHECK(same_owners(drain, 1, after));
    CHECK(same_owners(gone, 0, after));
    placer_builder_free(b);
    placer_snapshot_free(gone);
    placer_snapshot_free(drain);
    placer_snapshot_free(after);
    placer_snapshot_free(back);
}

static void test_previous(void)
{
    placer_builder *b = members(121, 16, 120); /* node-120 joins later */
    placer_snapshot *s0 = NULL, *s1 = NULL, *s2 = NULL, *s3 = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s0), 0);
    placer_builder_free(b);
    /* a join: everyone keeps their tokens, the move is the newcomer's share */
    b = members(121, 16, UINT32_MAX);
    CHECK_EQ(placer_builder_set_previous(b, s0), 0);
    CHECK_EQ(placer_builder_build(b, 2, &s1), 0);
    CHECK(same_tokens(s0, s1));
    double moved = 0;
    CHECK_EQ(placer_moved_fraction(s0, s1, 1u << 20, &moved), 0);
    printf("join to 121 with --previous: moved %.5f (ideal %.5f), max/mean %.4f\n", moved,
           1.0 / 121, max_over_mean(s1));
    CHECK(moved <= 1.1 / 121);
    CHECK(max_over_mean(s1) <= 1.05);
    /* the same join, node-120 joining first (a transition), then active:
     * the tokens it was given while joining stay */
    CHECK_EQ(placer_builder_set_state(b, 120, PLACER_NODE_JOINING), 0);
    CHECK_EQ(placer_builder_build(b, 3, &s2), 0);
    placer_builder_set_state(b, 120, PLACER_NODE_ACTIVE);
    placer_builder_set_previous(b, s2);
    CHECK_EQ(placer_builder_build(b, 4, &s3), 0);
    CHECK(same_tokens(s2, s3));
    CHECK(same_tokens(s1, s3));
    placer_snapshot_free(s2);
    placer_snapshot_free(s3);
    placer_builder_free(b);
    test_removal(s1);
    /* explicit tokens are kept */
    b = members(4, 16, UINT32_MAX);
    placer_builder_add_token(b, 2, 12345);
    CHECK_EQ(placer_builder_build(b, 6, &s2), 0);
    uint64_t t[64];
    CHECK_EQ(tokens_of(s2, "node-002", t), 1);
    CHECK_EQ(t[0], 12345);
    CHECK_EQ(tokens_of(s2, "node-003", t), 16);
    placer_snapshot_free(s2);
    placer_builder_free(b);
    placer_snapshot_free(s0);
    placer_snapshot_free(s1);
}

static void test_errors(void)
{
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_set_token_allocation(NULL, PLACER_TOKENS_BALANCED), PLACER_ENULL);
    CHECK_EQ(placer_builder_set_token_allocation(b, 0), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_token_allocation(b, 3), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_token_allocation(b, PLACER_TOKENS_BALANCED), 0);
    placer_builder_add_node(b, "a", NULL, 1);
    placer_builder_set_strategy(b, PLACER_JUMP);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_EINVAL);
    CHECK(s == NULL);
    placer_builder_free(b);
}

/* The bounded lookup against the plain rule, read through public calls,
 * for each key hash (hash: PLACER_HASH_*; SipHash-1-3 through a secret):
 * the unfused ones take another lookup path. */
static void test_bounded(int hash)
{
    placer_builder *b = members(30, 8, UINT32_MAX);
    static const unsigned char secret[16] = "0123456789abcde";
    if (hash == PLACER_HASH_SIPHASH13)
        CHECK_EQ(placer_builder_set_secret(b, secret), 0);
    else
        CHECK_EQ(placer_builder_set_key_hash(b, hash), 0);
    placer_builder_set_state(b, 4, PLACER_NODE_DOWN);
    placer_builder_set_state(b, 9, PLACER_NODE_DRAINING);
    placer_builder_set_state(b, 11, PLACER_NODE_JOINING);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    ring r = ring_of(s);
    uint32_t N = placer_node_count(s), loads[30] = {0}, m = 0;
    int states[30];
    for (uint32_t i = 0; i < N; i++) {
        states[i] = placer_node_state(s, i);
        m += states[i] == PLACER_NODE_ACTIVE || states[i] == PLACER_NODE_DRAINING;
    }
    uint64_t total = 0, st = 7;
    int ok_ref = 1, ok_bound = 1, ok_usual = 1;
    for (uint32_t i = 0; i < 20000; i++) {
        char key[24];
        /* a hot key half of the time */
        int len = snprintf(key, sizeof key, "k%u", i % 2 ? 7u : (uint32_t)(check_rand(&st) % 5000));
        uint32_t o = PLACER_NO_NODE;
        CHECK_ALL(placer_lookup_bounded(s, key, (size_t)len, loads, total, 1.25, &o) == 0,
                  "lookup_bounded succeeds");
        uint64_t h = placer_snapshot_hash(s, key, (size_t)len);
        ok_ref &= o == ref_bounded_owner(r.tok, r.own, r.n, states, N, loads, total, 1.25, h);
        uint32_t usual = (uint32_t)placer_lookup(s, key, (size_t)len);
        double cap = ceil(1.25 * ((double)total + 1) / m);
        if ((states[usual] == PLACER_NODE_ACTIVE || states[usual] == PLACER_NODE_DRAINING) &&
            loads[usual] < cap)
            ok_usual &= o == usual;
        loads[o]++;
        total++;
        for (uint32_t k = 0; k < N; k++)
            ok_bound &= loads[k] <= ceil(1.25 * (double)total / m);
    }
    CHECK(ok_ref);
    CHECK(ok_bound);
    CHECK(ok_usual);
    CHECK_EQ(loads[4], 0);
    CHECK_EQ(loads[11], 0);
    /* errors */
    uint32_t o = 77;
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, total, 0.99, &o), PLACER_EINVAL);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, total, NAN, &o), PLACER_EINVAL);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, total, -INFINITY, &o), PLACER_EINVAL);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, total, -1.0, &o), PLACER_EINVAL);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, total, -0.0, &o), PLACER_EINVAL);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, total, 0.0, &o), PLACER_EINVAL);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, total, DBL_TRUE_MIN, &o), PLACER_EINVAL);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, total, DBL_MIN, &o), PLACER_EINVAL);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, total, nextafter(1.0, 0.0), &o), PLACER_EINVAL);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, total, -NAN, &o), PLACER_EINVAL);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, 0, 1.25, &o), PLACER_EINVAL); /* all full */
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, NULL, total, 1.25, &o), PLACER_ENULL);
    CHECK_EQ(placer_lookup_bounded(NULL, "k", 1, loads, total, 1.25, &o), PLACER_ENULL);
    CHECK_EQ(placer_lookup_bounded(s, NULL, 1, loads, total, 1.25, &o), PLACER_ENULL);
    CHECK_EQ(o, 77);
    /* c past 2^32, up to +inf (placer.h): acts as 2^32, no node is full, so
     * the key stays with its owner however loaded (here the owner of "k"
     * holds every key placed so far, where c = 1.25 walks on) */
    {
        uint32_t heavy[30] = {0}, usual = (uint32_t)placer_lookup(s, "k", 1), walked = 0;
        heavy[usual] = 1000000;
        CHECK_EQ(placer_lookup_bounded(s, "k", 1, heavy, 1000000, 1.25, &walked), 0);
        CHECK(walked != usual);
        const double big[] = {4294967296.0, 1e18, 1e300, 1e301, DBL_MAX, INFINITY};
        for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
            uint32_t got = 77;
            CHECK_ALL(placer_lookup_bounded(s, "k", 1, heavy, 1000000, big[i], &got) == 0 && got == usual,
                      "c from 2^32 to +inf: the usual owner");
        }
        /* loads far past total (inconsistent), every node full even at
         * 2^32 (capacity 2^32 / m): refused, not wrapped */
        for (int k = 0; k < 30; k++)
            heavy[k] = UINT32_MAX;
        CHECK_EQ(placer_lookup_bounded(s, "k", 1, heavy, 0, INFINITY, &o), PLACER_EINVAL);
        CHECK_EQ(o, 77);
    }
    /* the router: same answer; a loads array too short for the snapshot */
    placer_router *rt = placer_router_new(s);
    uint64_t epoch = 0;
    memset(loads, 0, sizeof loads);
    CHECK_EQ(placer_router_lookup_bounded(rt, "k", 1, loads, N, 0, 1.25, &o, &epoch), 0);
    const placer_snapshot *cur = placer_router_acquire(rt);
    CHECK_EQ(o, (uint32_t)placer_lookup(cur, "k", 1));
    placer_router_release(rt, cur);
    CHECK_EQ(epoch, 1);
    CHECK_EQ(placer_router_lookup_bounded(rt, "k", 1, loads, N - 1, 0, 1.25, &o, &epoch),
             PLACER_ERANGE);
    placer_router_free(rt);
    free(r.tok);
    free(r.own);
    placer_builder_free(b);
    /* not a ring; no node that may take keys */
    b = placer_builder_new();
    placer_builder_set_strategy(b, PLACER_JUMP);
    placer_builder_add_node(b, "a", NULL, 1);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, 0, 1.25, &o), PLACER_ENOTSUP);
    placer_snapshot_free(s);
    placer_builder_set_strategy(b, PLACER_RING);
    placer_builder_set_state(b, 0, PLACER_NODE_DOWN);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_lookup_bounded(s, "k", 1, loads, 0, 1.25, &o), PLACER_ENOLIVE);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

int main(void)
{
    test_builder_matches_allocator();
    test_previous();
    test_errors();
    test_bounded(PLACER_HASH_PLACER_V2);
    test_bounded(PLACER_HASH_PLACER_V1);
    test_bounded(PLACER_HASH_SIPHASH13);
    return check_done("balanced_ring");
}
