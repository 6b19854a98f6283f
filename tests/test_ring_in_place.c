/*
 * test_ring_in_place.c -- rings sorted inside their snapshot (ring_build.c:
 * no transition; past 64 Ki tokens the names hashed twice, counted, then
 * scattered into buckets sorted in place) against a plain reference: every
 * token and owner of rings of generated tokens (placer-v2 of "<id>-<j>",
 * hashed by ref_hash64_v2, sorted by (token, id, vnode) with qsort), of
 * explicit tokens that share their high bits and repeat across nodes (ties
 * by id, then call order), and of a single repeated token; and against the
 * two-buffer path the same ring takes while a node joins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"
#include "reference.h"

/* Node ids are "n%05u": id order is index order. */
static int cmp_ref(const void *x, const void *y)
{
    const ref_token *a = x, *b = y;
    if (a->token != b->token)
        return a->token < b->token ? -1 : 1;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return (a->vnode > b->vnode) - (a->vnode < b->vnode);
}

/* Every token and owner of s against want[0..n) sorted; 0 when equal. */
static long differences(const placer_snapshot *s, ref_token *want, size_t n)
{
    qsort(want, n, sizeof *want, cmp_ref);
    long bad = placer_token_count(s) != n;
    for (uint32_t i = 0; !bad && i < n; i++) {
        uint64_t t = 0;
        uint32_t o = 0;
        bad += placer_token_at(s, i, &t, &o) != 0 || t != want[i].token || o != want[i].node;
    }
    return bad;
}

static placer_builder *nodes_builder(uint32_t nodes, uint32_t vnodes)
{
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_set_vnodes(b, vnodes), 0);
    char id[16];
    for (uint32_t i = 0; i < nodes; i++) {
        snprintf(id, sizeof id, "n%05u", i);
        CHECK_EQ(placer_builder_add_node(b, id, "z", 1.0), (int)i);
    }
    return b;
}

/* Generated tokens: 70,000 and 300 x 256 = 76,800 (past the scratch), and
 * 64 x 256 (within it). */
static void generated(void)
{
    static const uint32_t shapes[][2] = {{64, 256}, {300, 256}, {70000, 1}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        uint32_t nodes = shapes[k][0], vnodes = shapes[k][1];
        placer_builder *b = nodes_builder(nodes, vnodes);
        size_t n = (size_t)nodes * vnodes;
        ref_token *want = malloc(n * sizeof *want);
        char name[32];
        for (uint32_t i = 0, at = 0; i < nodes; i++)
            for (uint32_t j = 0; j < vnodes; j++, at++) {
                int len = snprintf(name, sizeof name, "n%05u-%u", i, j);
                want[at] = (ref_token){ref_hash64_v2(placer_builder_seed(b), name, (size_t)len), i, j};
            }
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        CHECK_ALL(differences(s, want, n) == 0,
                  "a ring of generated tokens built in place is the reference's, token for token");
        placer_snapshot_free(s);
        free(want);
        placer_builder_free(b);
    }
}

/* Explicit tokens: 3 nodes x 30,000 taking the same values below 2^18
 * (high bits equal: the count jumps down to them; every value three
 * times: ties by id), or all one value; then the same ring while a fourth
 * node joins, whose current placement takes the two-buffer path. */
static void explicit_ties(void)
{
    enum { NODES = 3, PER = 30000, N = NODES * PER };
    for (int all_equal = 0; all_equal < 2; all_equal++) {
        placer_builder *b = nodes_builder(NODES, 1);
        ref_token *want = malloc(N * sizeof *want);
        uint64_t st = 43;
        size_t at = 0;
        for (uint32_t i = 0; i < NODES; i++)
            for (uint32_t j = 0; j < PER; j++) {
                uint64_t t = all_equal ? 5 : (check_rand(&st) % PER) << 3;
                CHECK_EQ(placer_builder_add_token(b, i, t), 0);
                want[at++] = (ref_token){t, i, j};
            }
        placer_snapshot *s = NULL, *joining = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        CHECK_ALL(differences(s, want, N) == 0,
                  "explicit tokens with equal high bits and ties, built in place, are the reference's");
        CHECK_EQ(placer_builder_add_node(b, "n99999", "z", 1.0), NODES);
        CHECK_EQ(placer_builder_add_token(b, NODES, 1), 0);
        CHECK_EQ(placer_builder_set_state(b, NODES, PLACER_NODE_JOINING), 0);
        CHECK_EQ(placer_builder_build(b, 2, &joining), 0);
        long bad = placer_token_count(joining) != N;
        for (uint32_t i = 0; !bad && i < N; i++) {
            uint64_t t1 = 0, t2 = 1;
            uint32_t o1 = 0, o2 = 1;
            placer_token_at(s, i, &t1, &o1);
            placer_token_at(joining, i, &t2, &o2);
            bad += t1 != t2 || o1 != o2;
        }
        CHECK_ALL(bad == 0, "the in-place build and the two-buffer build give the same ring");
        placer_snapshot_free(s);
        placer_snapshot_free(joining);
        free(want);
        placer_builder_free(b);
    }
}

int main(void)
{
    generated();
    explicit_ties();
    return check_done("ring_in_place");
}
