/*
 * test_replica_sets.c -- the ring's replica sets computed all at once
 * (plc_replicas_walk_all, O(slots x R^2)) are the walk from each slot
 * (plc_replicas_walk), slot by slot, on random rings: skewed token counts
 * (one node owning almost every token, where the walk per slot crossed the
 * ring each time: a 800 KB snapshot took 4.7 s to build or decode, issue
 * 29), zones from none to more than R, down, joining and draining nodes, R
 * from 1 to PLACER_MAX_REPLICAS. Then that skewed ring's decode, whose
 * replica sets are checked against the walk, counted by its size.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"
#include "replica_test_kit.h"
#include "snapshot_internal.h"

static placer_snapshot *random_ring(uint64_t *st, uint32_t R)
{
    placer_builder *b = placer_builder_new();
    uint32_t nodes = 1 + (uint32_t)(check_rand(st) % 12);
    uint32_t zones = (uint32_t)(check_rand(st) % 5); /* 0: no zones */
    int skew = check_rand(st) % 3 == 0;
    for (uint32_t i = 0; i < nodes; i++) {
        char zone[8];
        snprintf(zone, sizeof zone, "z%u", zones ? (uint32_t)(check_rand(st) % zones) : 0);
        random_node(b, st, i, zones ? zone : NULL, skew);
    }
    placer_builder_set_vnodes(b, 1 + (uint32_t)(check_rand(st) % 24));
    CHECK_EQ(placer_builder_set_replicas(b, R), 0);
    return built_or_null(b);
}

static void compare_random(void)
{
    uint64_t st = 2929;
    long rings = 0, slots = 0;
    for (int round = 0; round < 600; round++) {
        uint32_t R = 1 + (uint32_t)(check_rand(&st) % PLACER_MAX_REPLICAS);
        placer_snapshot *s = random_ring(&st, R);
        if (!s)
            continue;
        uint32_t n = s->tree.n;
        uint32_t *all = malloc(sizeof *all * (size_t)n * R), set[PLACER_MAX_REPLICAS], zones;
        CHECK_EQ(plc_replicas_walk_all(s, R, all), 0);
        int same = 1;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t k = plc_replicas_walk(s, i, set, R, &zones);
            for (uint32_t j = k; j < R; j++)
                set[j] = UINT32_MAX;
            same &= memcmp(set, all + (size_t)i * R, sizeof set[0] * R) == 0;
            /* the snapshot's stored sets are the all-at-once ones */
            same &= memcmp(s->rep + (size_t)i * R, all + (size_t)i * R, sizeof set[0] * R) == 0;
        }
        CHECK_ALL(same, "replica sets all at once == the walk from each slot");
        slots += n;
        rings++;
        free(all);
        placer_snapshot_free(s);
    }
    printf("replica_sets: %ld rings, %ld slots compared\n", rings, slots);
    CHECK(rings > 500);
}

/* 40,000 tokens of one node and one of another, R = 2: every walk used to
 * cross the ring. Built and decoded, the sets are the walk's. */
static void skewed(void)
{
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_add_node(b, "a", "z1", 1), 0);
    CHECK_EQ(placer_builder_add_node(b, "b", "z2", 1), 1);
    for (uint32_t i = 0; i < 40000; i++)
        CHECK_EQ(placer_builder_add_token(b, 0, (uint64_t)i * 1000 + 5), 0);
    CHECK_EQ(placer_builder_add_token(b, 1, UINT64_MAX - 5), 0);
    CHECK_EQ(placer_builder_set_replicas(b, 2), 0);
    placer_snapshot *s = NULL, *d = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    void *buf = NULL;
    size_t len = 0;
    CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
    CHECK_EQ(placer_snapshot_decode(buf, len, &d), 0);
    uint32_t set[2];
    CHECK_EQ(placer_replicas_hash(d, 0, set, 2, NULL), 2);
    CHECK_EQ(set[1], 1);
    placer_buffer_free(buf);
    placer_snapshot_free(d);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

int main(void)
{
    compare_random();
    skewed();
    return check_done("replica_sets");
}
