/*
 * replica_test_kit.h -- what the replica set tests (test_replica_lines.c,
 * test_replica_wide.c) build their cases from: keys as users send them
 * (mostly 32 bytes, some of other lengths, empty NULL keys) and a ring of
 * placer's walk with precomputed sets, weights 1 to 3 and, on request,
 * down, joining and draining nodes; and for test_replica_sets.c and
 * test_replica_sweep.c, a node of a random weight and state. All draw
 * from check_rand.
 */
#ifndef PLACER_TESTS_REPLICA_TEST_KIT_H
#define PLACER_TESTS_REPLICA_TEST_KIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"

typedef struct keyset {
    unsigned char *bytes;
    const void **ptrs;
    size_t *lens;
} keyset;

/* n keys: runs of 32-byte keys with some of other lengths and empty NULL
 * keys. */
static inline void make_keys(keyset *k, uint64_t *st, size_t n)
{
    k->bytes = malloc(n * 40);
    k->ptrs = malloc(n * sizeof *k->ptrs);
    k->lens = malloc(n * sizeof *k->lens);
    CHECK(k->bytes && k->ptrs && k->lens);
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = k->bytes + i * 40;
        for (int j = 0; j < 40; j += 8) {
            uint64_t v = check_rand(st);
            memcpy(p + j, &v, 8);
        }
        uint64_t r = check_rand(st) % 64;
        k->ptrs[i] = p;
        k->lens[i] = i % 500 < 400 ? 32 : r < 60 ? (size_t)(r % 41) : 0;
        if (k->lens[i] == 0 && r % 2)
            k->ptrs[i] = NULL;
    }
}

static inline void free_keys(keyset *k)
{
    free(k->bytes);
    free(k->ptrs);
    free(k->lens);
}

/* A ring of `nodes` in `zones` zones, `vnodes` each, sets of `sets`
 * precomputed; with states, about 3 nodes in 10 (never the first) down,
 * joining or draining. */
static inline placer_snapshot *replica_ring(uint64_t *st, uint32_t nodes, uint32_t vnodes,
                                            uint32_t zones, uint32_t sets, int states)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, vnodes);
    CHECK_EQ(placer_builder_set_replicas(b, sets), 0);
    for (uint32_t i = 0; i < nodes; i++) {
        char id[16], zone[16];
        snprintf(id, sizeof id, "node-%04u", i);
        snprintf(zone, sizeof zone, "zone-%u", i % zones);
        CHECK_EQ(placer_builder_add_node(b, id, zone, 1.0 + (double)(check_rand(st) % 3)), i);
        uint64_t r = states ? check_rand(st) % 10 : 9;
        if (i && r < 3)
            placer_builder_set_state(b, i, r == 0   ? PLACER_NODE_DOWN
                                           : r == 1 ? PLACER_NODE_JOINING
                                                    : PLACER_NODE_DRAINING);
    }
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    placer_builder_free(b);
    return s;
}

/* b's snapshot, or NULL when its build fails (a random ring may be one no
 * build takes); b freed either way. */
static inline placer_snapshot *built_or_null(placer_builder *b)
{
    placer_snapshot *s = NULL;
    int rc = placer_builder_build(b, 1, &s);
    placer_builder_free(b);
    return rc ? NULL : s;
}

/* Node i "n<i>" in `zone` (NULL: none): weight 0.25 to 2 (40 for node 0
 * when skew), and a node but the first down, joining or draining one time
 * in eight each. */
static inline void random_node(placer_builder *b, uint64_t *st, uint32_t i, const char *zone,
                               int skew)
{
    char id[16];
    snprintf(id, sizeof id, "n%u", i);
    double w = skew && i == 0 ? 40.0 : 0.25 + (double)(check_rand(st) % 8) / 4;
    CHECK_EQ(placer_builder_add_node(b, id, zone, w), i);
    uint64_t r = check_rand(st) % 8;
    if (r == 0 && i)
        placer_builder_set_state(b, i, PLACER_NODE_DOWN);
    else if (r == 1 && i)
        placer_builder_set_state(b, i, PLACER_NODE_JOINING);
    else if (r == 2 && i)
        placer_builder_set_state(b, i, PLACER_NODE_DRAINING);
}

#endif
