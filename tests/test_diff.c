/*
 * test_diff.c -- placer_diff: seed 004's join and removal range by range;
 * no moves between equal rings; on random rings (joins, leaves, weight
 * changes, explicit tokens with ties) a key changes owner if and only if
 * its hash lies in a listed range; adding node 121 to 120 equal nodes moves
 * about 1/121 of the space, all to it; removing one moves only its ranges,
 * to many successors; errors and allocation failure.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "check.h"
#include "placer.h"
#include "reference.h"

static placer_snapshot *ring(const char *const *ids, const uint64_t *tokens, int n)
{
    placer_builder *b = placer_builder_new();
    for (int i = 0; i < n; i++) {
        placer_builder_add_node(b, ids[i], "", 1.0);
        placer_builder_add_token(b, (uint32_t)i, tokens[i]);
    }
    placer_snapshot *s = NULL;
    placer_builder_build(b, 1, &s);
    placer_builder_free(b);
    return s;
}

static void seed004(void)
{
    const char *ids3[] = {"A", "B", "C"}, *ids4[] = {"A", "B", "C", "D"}, *idsnob[] = {"A", "C", "D"};
    const uint64_t t3[] = {20, 55, 85}, t4[] = {20, 55, 85, 70}, tnob[] = {20, 85, 70};
    placer_snapshot *s3 = ring(ids3, t3, 3), *s4 = ring(ids4, t4, 4), *snob = ring(idsnob, tnob, 3);
    placer_move *m;
    size_t n;
    CHECK_EQ(placer_diff(s3, s4, &m, &n), 0);
    CHECK_EQ(n, 1);
    CHECK(n == 1 && m[0].lo == 55 && m[0].hi == 70 && m[0].from == 2 && m[0].to == 3);
    placer_moves_free(m);
    CHECK_EQ(placer_diff(s4, snob, &m, &n), 0); /* removing B: (20, 55] goes to D */
    CHECK(n == 1 && m[0].lo == 20 && m[0].hi == 55 && m[0].from == 1 && m[0].to == 2);
    placer_moves_free(m);
    CHECK_EQ(placer_diff(s4, s4, &m, &n), 0);
    CHECK(n == 0 && m == NULL);
    CHECK(placer_moves_coverage(m, n) == 0.0);
    /* The wrap: A's token moves from 20 to 90. (85, 90] stays with A; the
     * wrapping range (90, 20] goes to B, whose 55 is now the smallest. */
    const uint64_t tw[] = {90, 55, 85};
    placer_snapshot *sw = ring(ids3, tw, 3);
    CHECK_EQ(placer_diff(s3, sw, &m, &n), 0);
    CHECK(n == 1 && m[0].lo == 90 && m[0].hi == 20 && m[0].from == 0 && m[0].to == 1);
    CHECK(fabs(placer_moves_coverage(m, n) - (double)(UINT64_MAX - 90 + 1 + 20) / 18446744073709551616.0) < 1e-15);
    /* the deprecated name, kept until soname 2, is the same call */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    CHECK(placer_moves_fraction(m, n) == placer_moves_coverage(m, n));
#pragma GCC diagnostic pop
    placer_moves_free(m);
    placer_snapshot_free(s3);
    placer_snapshot_free(s4);
    placer_snapshot_free(snob);
    placer_snapshot_free(sw);
}

/* A random membership: nodes from a pool of 12, some with explicit small
 * tokens (ties), some generated. */
static placer_snapshot *random_ring(uint64_t *rng, uint32_t vnodes)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, vnodes);
    char id[8];
    int added = 0;
    for (int i = 0; i < 12; i++) {
        if (check_rand(rng) % 3 == 0 && !(i == 11 && added == 0))
            continue;
        snprintf(id, sizeof id, "n%d", i);
        int idx = placer_builder_add_node(b, id, "", 0.5 + (double)(check_rand(rng) % 4));
        added++;
        if (check_rand(rng) % 4 == 0)
            for (int t = 0; t < 3; t++)
                placer_builder_add_token(b, (uint32_t)idx, check_rand(rng) % 64 * (UINT64_MAX / 64));
    }
    placer_snapshot *s = NULL;
    placer_builder_build(b, 1, &s);
    placer_builder_free(b);
    return s;
}

static void property(void)
{
    uint64_t rng = 77;
    long bad = 0, checked = 0;
    for (int trial = 0; trial < 300; trial++) {
        placer_snapshot *a = random_ring(&rng, 1 + trial % 16), *b = random_ring(&rng, 1 + trial % 16);
        placer_move *m;
        size_t n;
        CHECK_EQ(placer_diff(a, b, &m, &n), 0);
        for (int q = 0; q < 600; q++) {
            uint64_t h;
            if (q < 200 && placer_token_count(a)) {
                uint64_t t;
                uint32_t o;
                placer_token_at(q % 2 ? a : b, (uint32_t)(check_rand(&rng) % placer_token_count(q % 2 ? a : b)), &t, &o);
                h = t + (uint64_t)(q % 3) - 1; /* a token and its neighbours */
            } else {
                h = q % 50 == 0 ? (q % 100 ? 0 : UINT64_MAX) : check_rand(&rng);
            }
            const char *ida = placer_node_id(a, (uint32_t)placer_lookup_hash(a, h));
            const char *idb = placer_node_id(b, (uint32_t)placer_lookup_hash(b, h));
            bad += (strcmp(ida, idb) != 0) != ref_in_moves(m, n, h);
            checked++;
        }
        placer_moves_free(m);
        placer_snapshot_free(a);
        placer_snapshot_free(b);
    }
    printf("diff property: %ld hashes on 300 random ring pairs, %ld wrong\n", checked, bad);
    CHECK_ALL(bad == 0, "owner changes iff the hash is in a listed range");
}

static placer_snapshot *equal_ring(int nodes, int skip)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, 256);
    char id[16];
    for (int i = 0; i < nodes; i++) {
        if (i == skip)
            continue;
        snprintf(id, sizeof id, "node-%03d", i);
        placer_builder_add_node(b, id, "z", 1.0);
    }
    placer_snapshot *s = NULL;
    placer_builder_build(b, 1, &s);
    placer_builder_free(b);
    return s;
}

static void join_and_leave(void)
{
    placer_snapshot *s120 = equal_ring(120, -1), *s121 = equal_ring(121, -1), *s119 = equal_ring(120, 7);
    placer_move *m;
    size_t n;
    CHECK_EQ(placer_diff(s120, s121, &m, &n), 0);
    double f = placer_moves_coverage(m, n);
    double *into = calloc(121, sizeof *into), *out_of = calloc(120, sizeof *out_of);
    CHECK_EQ(placer_moves_shares(s120, s121, m, n, out_of, into), 0);
    int all_to_new = 1;
    for (size_t i = 0; i < n; i++)
        all_to_new &= m[i].to == 120;
    printf("join of node 121: %zu ranges, %.4f of the space moved (1/121 = %.4f), all to the new "
           "node: %s\n",
           n, f, 1.0 / 121, all_to_new ? "yes" : "no");
    CHECK(all_to_new);
    CHECK(fabs(f - 1.0 / 121) < 0.25 / 121);
    CHECK(fabs(into[120] - f) < 1e-12);
    placer_moves_free(m);

    CHECK_EQ(placer_diff(s120, s119, &m, &n), 0);
    f = placer_moves_coverage(m, n);
    CHECK_EQ(placer_moves_shares(s120, s119, m, n, out_of, NULL), 0);
    int only_from_removed = 1, receivers = 0;
    int *got = calloc(120, sizeof *got);
    for (size_t i = 0; i < n; i++) {
        only_from_removed &= m[i].from == 7;
        if (!got[m[i].to]++)
            receivers++;
    }
    printf("removal of node-007: %zu ranges, %.4f of the space (its share %.4f), spread over %d "
           "successors\n",
           n, f, out_of[7], receivers);
    CHECK(only_from_removed);
    CHECK(fabs(f - out_of[7]) < 1e-12);
    CHECK(receivers > 50);
    placer_moves_free(m);
    free(got);
    free(into);
    free(out_of);
    placer_snapshot_free(s120);
    placer_snapshot_free(s121);
    placer_snapshot_free(s119);
}

static void errors_and_oom(void)
{
    placer_snapshot *a = equal_ring(10, -1), *b = equal_ring(11, -1);
    placer_move *m = NULL;
    size_t n = 0;
    CHECK_EQ(placer_diff(NULL, b, &m, &n), PLACER_ENULL);
    CHECK_EQ(placer_diff(a, NULL, &m, &n), PLACER_ENULL);
    CHECK_EQ(placer_diff(a, b, NULL, &n), PLACER_ENULL);
    CHECK_EQ(placer_diff(a, b, &m, NULL), PLACER_ENULL);
    placer_move bogus = {1, 2, 99, 0};
    CHECK_EQ(placer_moves_shares(a, b, &bogus, 1, NULL, NULL), PLACER_ERANGE);
    CHECK_EQ(placer_moves_shares(a, b, NULL, 1, NULL, NULL), PLACER_ENULL);
    placer_moves_free(NULL);
    long k = 0;
    for (; k < 1000; k++) {
        plc_alloc_fail_at(k);
        int r = placer_diff(a, b, &m, &n);
        plc_alloc_fail_at(-1);
        if (r == 0)
            break;
        CHECK_EQ(r, PLACER_ENOMEM);
    }
    CHECK(k > 0 && k < 1000);
    placer_moves_free(m);
    placer_snapshot_free(a);
    placer_snapshot_free(b);
}

int main(void)
{
    seed004();
    property();
    join_and_leave();
    errors_and_oom();
    return check_done("test_diff");
}
