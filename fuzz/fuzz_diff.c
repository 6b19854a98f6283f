/*
 * fuzz_diff.c -- differential: for two fuzzer-built rings, a hash changes
 * owner (by node id) if and only if placer_diff lists a range holding it;
 * the shares add up to the moved fraction.
 *
 * Input: for each of the two rings a node count, then per node an id byte
 * (a small pool, so nodes match, join and leave between the rings), a
 * weight byte and explicit tokens (small values, so ties and shared
 * boundaries are common); the second ring's nodes also get fuzzer-chosen
 * states, so it may be in transition: then a hash's owner and next owner
 * differ if and only if placer_diff_transition lists a range holding it.
 * Then hashes.
 *
 * placer_diff_measure of the two rings, both ways: exact (ranges), its
 * moved fraction, gives, receives and pairs equal to placer_diff's ranges
 * summed by pair. Forced to sample: every count equal to the test's own
 * key-by-key lookups of the keys it documents ("key:" and 16 hex digits of
 * splitmix64 from 0), the moved fraction inside Wilson's interval.
 * placer_diff_replicas of them: each count equal to the harness's own
 * comparison, by node id, of the sets placer_replicas gives key by key.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "placer.h"
#include "reference.h"

#define MAX_NODES 8

static placer_snapshot *ring_from(fuzz_producer *p, int with_states)
{
    placer_builder *b = placer_builder_new();
    FUZZ_ASSERT(b);
    placer_builder_set_vnodes(b, 1 + fuzz_u8(p) % 4);
    int n = 1 + fuzz_u8(p) % MAX_NODES, added = 0;
    char id[8];
    for (int i = 0; i < n; i++) {
        snprintf(id, sizeof id, "n%u", (unsigned)(fuzz_u8(p) % 10));
        int idx = placer_builder_add_node(b, id, "", 0.25 * (1 + fuzz_u8(p) % 8));
        if (idx < 0)
            continue; /* an id already taken */
        added++;
        if (with_states)
            FUZZ_ASSERT(placer_builder_set_state(b, (uint32_t)idx, fuzz_u8(p) % 4) == 0);
        int explicit_tokens = fuzz_u8(p) % 4;
        for (int t = 0; t < explicit_tokens; t++)
            placer_builder_add_token(b, (uint32_t)idx, (uint64_t)(fuzz_u8(p) % 24) << 59);
    }
    placer_snapshot *s = NULL;
    int rc = placer_builder_build(b, 1, &s);
    /* States may leave nobody owning anything now or after: that is the
     * one error a valid membership can get. */
    FUZZ_ASSERT(added > 0 && (rc == 0 || (with_states && rc == PLACER_ENONODES)));
    placer_builder_free(b);
    return s;
}

static void check_hash(const placer_snapshot *a, const placer_snapshot *b, const placer_move *m,
                       size_t n, uint64_t h)
{
    const char *ida = placer_node_id(a, (uint32_t)placer_lookup_hash(a, h));
    const char *idb = placer_node_id(b, (uint32_t)placer_lookup_hash(b, h));
    FUZZ_ASSERT((strcmp(ida, idb) != 0) == ref_in_moves(m, n, h));
}

/* The ranges' shares summed by (from, to) pair: placer_diff's account. */
static void pair_shares(const placer_move *m, size_t n, double share[MAX_NODES][MAX_NODES])
{
    memset(share, 0, sizeof(double) * MAX_NODES * MAX_NODES);
    for (size_t i = 0; i < n; i++) {
        FUZZ_ASSERT(m[i].from < MAX_NODES && m[i].to < MAX_NODES);
        share[m[i].from][m[i].to] += placer_moves_coverage(&m[i], 1);
    }
}

/* A report's pairs against expected shares, largest first, none twice;
 * gives and receives their sums. */
static void check_report(const placer_snapshot *a, const placer_snapshot *b,
                         const placer_diff_report *r, double want[MAX_NODES][MAX_NODES], double eps)
{
    double got[MAX_NODES][MAX_NODES] = {{0}}, gives[MAX_NODES] = {0}, receives[MAX_NODES] = {0};
    double moved = 0;
    for (size_t i = 0; i < r->npairs; i++) {
        const placer_diff_pair *q = &r->pairs[i];
        FUZZ_ASSERT(q->from < placer_node_count(a) && q->to < placer_node_count(b));
        FUZZ_ASSERT(strcmp(placer_node_id(a, q->from), placer_node_id(b, q->to)) != 0);
        FUZZ_ASSERT(got[q->from][q->to] == 0 && q->share > 0);
        FUZZ_ASSERT(i == 0 || r->pairs[i - 1].share >= q->share);
        got[q->from][q->to] = q->share;
        moved += q->share;
    }
    for (uint32_t i = 0; i < MAX_NODES; i++)
        for (uint32_t j = 0; j < MAX_NODES; j++) {
            FUZZ_ASSERT(fabs(got[i][j] - want[i][j]) <= eps);
            gives[i] += want[i][j];
            receives[j] += want[i][j];
        }
    FUZZ_ASSERT(fabs(moved - r->moved) <= eps);
    for (uint32_t i = 0; i < placer_node_count(a); i++)
        FUZZ_ASSERT(fabs(r->gives[i] - gives[i]) <= eps);
    for (uint32_t j = 0; j < placer_node_count(b); j++)
        FUZZ_ASSERT(fabs(r->receives[j] - receives[j]) <= eps);
}

/* Exact, both ways: the same moved fraction and pairs as the ranges. */
static void check_measured(const placer_snapshot *a, const placer_snapshot *b, const placer_move *m,
                           size_t n)
{
    double want[MAX_NODES][MAX_NODES];
    pair_shares(m, n, want);
    placer_diff_report r = {.size = sizeof r};
    FUZZ_ASSERT(placer_diff_measure(a, b, 0, 0, &r) == 0);
    FUZZ_ASSERT(r.method == PLACER_DIFF_RANGES && r.low95 == r.moved && r.high95 == r.moved);
    check_report(a, b, &r, want, 1e-9);
    double forth = r.moved, fraction = -1;
    placer_diff_report_release(&r);
    FUZZ_ASSERT(placer_moved_fraction(a, b, 1, &fraction) == 0 && fraction == forth);
    FUZZ_ASSERT(placer_diff_measure(b, a, 0, 0, &r) == 0);
    FUZZ_ASSERT(r.method == PLACER_DIFF_RANGES && fabs(r.moved - forth) <= 1e-9);
    placer_diff_report_release(&r);
}

/* The next of the keys placer.h says the diffs sample: "key:" and the 16
 * hex digits of splitmix64 from 0 (written here from that text). */
static void next_sample_key(uint64_t *seed, char key[21])
{
    uint64_t z = (*seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    snprintf(key, 21, "key:%016llx", (unsigned long long)(z ^ (z >> 31)));
}

/* Sampled: the documented keys looked up one by one here, counted by
 * pair, give the report's counts exactly. */
static void check_sampled(const placer_snapshot *a, const placer_snapshot *b, uint64_t keys)
{
    double want[MAX_NODES][MAX_NODES] = {{0}};
    uint64_t seed = 0, moved = 0;
    for (uint64_t k = 0; k < keys; k++) {
        char key[21];
        next_sample_key(&seed, key);
        uint32_t oa = (uint32_t)placer_lookup(a, key, 20), ob = (uint32_t)placer_lookup(b, key, 20);
        if (strcmp(placer_node_id(a, oa), placer_node_id(b, ob)) != 0) {
            want[oa][ob] += 1.0 / (double)keys;
            moved++;
        }
    }
    placer_diff_report r = {.size = sizeof r};
    FUZZ_ASSERT(placer_diff_measure(a, b, keys, PLACER_DIFF_FORCE_SAMPLE, &r) == 0);
    FUZZ_ASSERT(r.method == PLACER_DIFF_SAMPLED && r.keys == keys && r.unplaced == 0);
    FUZZ_ASSERT(fabs(r.moved * (double)keys - (double)moved) < 1e-6);
    FUZZ_ASSERT(r.low95 >= 0 && r.low95 <= r.moved && r.moved <= r.high95 && r.high95 <= 1);
    check_report(a, b, &r, want, 1e-9);
    placer_diff_report_release(&r);
}

static int id_in(const placer_snapshot *s, const uint32_t *set, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(placer_node_id(s, set[i]), id))
            return 1;
    return 0;
}

/* Replica sets of R: keys whose set changes members, what each node of b
 * gains and each node of a loses, counted here key by key. */
static void check_replica_sets(const placer_snapshot *a, const placer_snapshot *b, uint32_t R,
                               uint64_t keys)
{
    uint64_t seed = 0, changed = 0, gained[MAX_NODES] = {0}, lost[MAX_NODES] = {0};
    for (uint64_t k = 0; k < keys; k++) {
        char key[21];
        uint32_t sa[MAX_NODES + 1], sb[MAX_NODES + 1];
        next_sample_key(&seed, key);
        int na = placer_replicas(a, key, 20, sa, R), nb = placer_replicas(b, key, 20, sb, R);
        FUZZ_ASSERT(na > 0 && nb > 0 && na <= MAX_NODES && nb <= MAX_NODES); /* every key placed */
        int moved = 0;
        for (int j = 0; j < nb; j++)
            if (!id_in(a, sa, na, placer_node_id(b, sb[j])))
                gained[sb[j]]++, moved = 1;
        for (int i = 0; i < na; i++)
            if (!id_in(b, sb, nb, placer_node_id(a, sa[i])))
                lost[sa[i]]++, moved = 1;
        changed += (uint64_t)moved;
    }
    placer_diff_report r = {.size = sizeof r};
    FUZZ_ASSERT(placer_diff_replicas(a, b, R, keys, &r) == 0);
    FUZZ_ASSERT(r.method == PLACER_DIFF_SAMPLED && r.keys == keys && r.unplaced == 0);
    FUZZ_ASSERT(r.npairs == 0 && fabs(r.moved * (double)keys - (double)changed) < 1e-6);
    FUZZ_ASSERT(r.low95 >= 0 && r.low95 <= r.moved && r.moved <= r.high95 && r.high95 <= 1);
    for (uint32_t i = 0; i < placer_node_count(a); i++)
        FUZZ_ASSERT(fabs(r.gives[i] * (double)keys - (double)lost[i]) < 1e-6);
    for (uint32_t j = 0; j < placer_node_count(b); j++)
        FUZZ_ASSERT(fabs(r.receives[j] * (double)keys - (double)gained[j]) < 1e-6);
    placer_diff_report_release(&r);
    FUZZ_ASSERT(placer_diff_replicas(a, b, 0, keys, &r) == PLACER_EINVAL);
    FUZZ_ASSERT(placer_diff_replicas(a, b, 65, keys, &r) == PLACER_EINVAL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    placer_snapshot *a = ring_from(&p, 0), *b = ring_from(&p, 1);
    if (!b) {
        placer_snapshot_free(a);
        return 0;
    }
    placer_move *m = NULL;
    size_t n = 0;
    FUZZ_ASSERT(placer_diff(a, b, &m, &n) == 0);
    for (const placer_snapshot *s = a; s; s = s == a ? b : NULL)
        for (uint32_t i = 0; i < placer_token_count(s); i++) {
            uint64_t t;
            uint32_t o;
            placer_token_at(s, i, &t, &o);
            check_hash(a, b, m, n, t);
            check_hash(a, b, m, n, t - 1);
            check_hash(a, b, m, n, t + 1);
        }
    check_hash(a, b, m, n, 0);
    check_hash(a, b, m, n, UINT64_MAX);
    for (int q = 0; p.size && q < 64; q++) /* fuzzer-chosen hashes, at most 64 */
        check_hash(a, b, m, n, fuzz_u64(&p));
    double out_of[MAX_NODES], into[MAX_NODES], f = placer_moves_coverage(m, n), sum = 0;
    FUZZ_ASSERT(placer_moves_shares(a, b, m, n, out_of, into) == 0);
    for (uint32_t i = 0; i < placer_node_count(a); i++)
        sum += out_of[i];
    FUZZ_ASSERT(fabs(sum - f) < 1e-9 && f <= 1.0 + 1e-12);
    check_measured(a, b, m, n);
    uint64_t keys = 1 + (uint64_t)(f * 1e6) % 1300; /* across the 512-key chunks */
    check_sampled(a, b, keys);
    check_replica_sets(a, b, 1 + (uint32_t)(keys % MAX_NODES), keys);
    placer_moves_free(m);

    /* b's own transition: owner and next owner differ exactly in the moves. */
    FUZZ_ASSERT(placer_diff_transition(b, &m, &n) == 0);
    FUZZ_ASSERT(placer_snapshot_in_transition(b) || n == 0);
    for (uint32_t i = 0; i < placer_token_count(b); i++) {
        uint64_t t;
        uint32_t o;
        placer_token_at(b, i, &t, &o);
        for (int d = -1; d <= 1; d++) {
            uint64_t h = t + (uint64_t)(int64_t)d;
            uint32_t owner = (uint32_t)placer_lookup_hash(b, h); /* joining nodes own nothing */
            FUZZ_ASSERT(owner < placer_node_count(b) &&
                        placer_node_state(b, owner) != PLACER_NODE_JOINING);
        }
    }
    for (int q = 0; q < 64; q++) {
        char key[16];
        int len = snprintf(key, sizeof key, "k%d", q);
        uint32_t owner, next;
        FUZZ_ASSERT(placer_lookup_handoff(b, key, (size_t)len, &owner, &next) == 0);
        FUZZ_ASSERT((owner != next) == ref_in_moves(m, n, placer_snapshot_hash(b, key, (size_t)len)));
        FUZZ_ASSERT(placer_node_state(b, owner) != PLACER_NODE_JOINING);
        FUZZ_ASSERT(placer_node_state(b, next) != PLACER_NODE_DRAINING);
    }
    placer_moves_free(m);
    placer_snapshot_free(a);
    placer_snapshot_free(b);
    return 0;
}
