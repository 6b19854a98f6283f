/*
 * test_compat_haproxy_scale.c -- haproxy's server ids and its map-based
 * table, computed fast (engine/compat/compat_haproxy.c: O(n log n) ids;
 * compat_haproxy_map.c: an event-driven fill), held to the O(n^2) and O(slots x nodes) code they
 * replaced, kept here as written before, on random pools: the
 * same ids, the same table slot for slot, the same refusals. Then sizes
 * the old code could not reach in a test's time: 10,000 servers of weights
 * 255 and 256 (the forged snapshot that took 129 s to decode) and ids
 * that all collide with explicit ones, checked against properties (each
 * node's slot count is its weight over the gcd).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compat.h"
#include "placer.h"

/* The former haproxy_ids(), verbatim. */
static int old_haproxy_ids(const plc_compat_config *c, uint32_t *ids)
{
    for (uint32_t i = 0; i < c->nnodes; i++) {
        ids[i] = c->nodes[i].hash_id;
        if (ids[i] > PLC_HAPROXY_MAX_ID)
            return PLACER_EINVAL;
        for (uint32_t k = 0; ids[i] && k < i; k++)
            if (ids[k] == ids[i])
                return PLACER_EINVAL;
    }
    uint32_t next = 1;
    for (uint32_t i = 0; i < c->nnodes; i++, next++) {
        if (ids[i])
            continue;
        for (;;) {
            uint32_t k = 0;
            while (k < c->nnodes && ids[k] != next)
                k++;
            if (k == c->nnodes)
                break;
            next++;
        }
        if (next > PLC_HAPROXY_MAX_ID)
            return PLACER_EINVAL;
        ids[i] = next;
    }
    return 0;
}

/* The former recalc_server_map() loop, verbatim (weights over div, tot slots). */
static void old_map(const plc_compat_config *c, uint32_t div, int64_t tot, uint32_t *owners)
{
    int64_t *score = calloc(c->nnodes, sizeof *score);
    for (int64_t o = 0; o < tot; o++) {
        int64_t max = 0;
        uint32_t best = UINT32_MAX;
        for (uint32_t i = 0; i < c->nnodes; i++) {
            if (tot == 1) {
                best = i;
                break;
            }
            score[i] += c->nodes[i].weight / div;
            int64_t v = (score[i] + tot) / tot;
            if (best == UINT32_MAX || v > max) {
                max = v;
                best = i;
            }
        }
        owners[o] = best;
        score[best] -= tot;
    }
    free(score);
}

static uint32_t gcd_of(const plc_compat_config *c)
{
    uint32_t g = c->nodes[0].weight;
    for (uint32_t i = 1; i < c->nnodes && g > 1; i++) {
        uint32_t w = c->nodes[i].weight;
        while (w) {
            uint32_t t = g % w;
            g = w;
            w = t;
        }
    }
    return g;
}

static plc_compat_config config(plc_compat_node *n, uint32_t count, int dist)
{
    plc_compat_config c = {PLACER_COMPAT_HAPROXY, dist, 0, 0, {0, 0}, count, n, NULL, 0, {0}};
    return c;
}

static void random_pool(uint64_t *st, plc_compat_node *n, uint32_t count)
{
    uint32_t factor = check_rand(st) % 3 == 0 ? 1 + (uint32_t)(check_rand(st) % 8) : 1;
    uint32_t wmax = 1 + (uint32_t)(check_rand(st) % (256 / factor));
    uint32_t idspan = count + (uint32_t)(check_rand(st) % (count * count + 8)); /* collisions now and then */
    int explicit_share = (int)(check_rand(st) % 4); /* none, a few, half, most */
    for (uint32_t i = 0; i < count; i++) {
        n[i] = (plc_compat_node){"s", 1, "10.0.0.1:80", 11, 0, 0, 0};
        n[i].weight = factor * (1 + (uint32_t)(check_rand(st) % wmax));
        if ((int)(check_rand(st) % 4) < explicit_share)
            n[i].hash_id = 1 + (uint32_t)(check_rand(st) % idspan); /* duplicates too */
    }
    if (check_rand(st) % 16 == 0) /* an id past haproxy's range */
        n[check_rand(st) % count].hash_id = PLC_HAPROXY_MAX_ID + 1;
}

static void compare_random(void)
{
    uint64_t st = 29;
    long agreed = 0, refused = 0;
    for (int round = 0; round < 400; round++) {
        uint32_t count = 1 + (uint32_t)(check_rand(&st) % (round < 300 ? 40 : 400));
        plc_compat_node *n = calloc(count, sizeof *n);
        uint32_t *ids = calloc(count, sizeof *ids);
        random_pool(&st, n, count);
        plc_compat_config c = config(n, count, PLC_CD_MAP_BASED);
        int want = old_haproxy_ids(&c, ids);
        plc_compat_layout l;
        int got = plc_compat_layout_build(&c, &l);
        CHECK_EQ(got, want);
        if (!want && !got) {
            int same = memcmp(l.hash_ids, ids, sizeof *ids * count) == 0;
            CHECK_ALL(same, "haproxy ids as the former O(n^2) code gave them");
            uint32_t div = gcd_of(&c);
            uint64_t tot = 0;
            for (uint32_t i = 0; i < count; i++)
                tot += n[i].weight / div;
            CHECK_EQ(l.n, tot);
            uint32_t *owners = calloc(tot, sizeof *owners);
            old_map(&c, div, (int64_t)tot, owners);
            CHECK_ALL(memcmp(owners, l.owners, sizeof *owners * tot) == 0,
                      "map-based table as the former O(slots x nodes) fill");
            free(owners);
            agreed++;
        } else {
            refused++;
        }
        plc_compat_layout_free(&l);
        free(ids);
        free(n);
    }
    printf("compat_haproxy_scale: %ld random pools agree, %ld refused by both\n", agreed, refused);
    CHECK(agreed > 250 && refused > 10); /* both paths were exercised */
}

/* 10,000 servers of weights 255 and 256: 2,555,000 slots (the forged file
 * that took 129 s to refuse), each node's slot count its weight, as haproxy's map gives
 * (recalc_server_map's scores even out exactly over a period). */
static void mid_map(void)
{
    /* 1,000 of the same servers against the former fill (255,500 slots) */
    uint32_t count = 1000;
    plc_compat_node *n = calloc(count, sizeof *n);
    for (uint32_t i = 0; i < count; i++)
        n[i] = (plc_compat_node){"s", 1, "10.0.0.1:80", 11, i % 2 ? 255u : 256u, 0, 0};
    plc_compat_config c = config(n, count, PLC_CD_MAP_BASED);
    plc_compat_layout l;
    CHECK_EQ(plc_compat_layout_build(&c, &l), 0);
    uint32_t *owners = calloc(l.n, sizeof *owners);
    old_map(&c, 1, (int64_t)l.n, owners);
    CHECK_ALL(memcmp(owners, l.owners, sizeof *owners * l.n) == 0, "1,000-node map as the former fill");
    free(owners);
    plc_compat_layout_free(&l);
    free(n);
}

static void big_map(void)
{
    uint32_t count = 10000;
    plc_compat_node *n = calloc(count, sizeof *n);
    for (uint32_t i = 0; i < count; i++)
        n[i] = (plc_compat_node){"s", 1, "10.0.0.1:80", 11, i % 2 ? 255u : 256u, 0, 0};
    plc_compat_config c = config(n, count, PLC_CD_MAP_BASED);
    plc_compat_layout l;
    CHECK_EQ(plc_compat_layout_build(&c, &l), 0);
    CHECK_EQ(l.n, 2555000);
    uint32_t *per = calloc(count, sizeof *per);
    for (uint32_t s = 0; s < l.n; s++)
        per[l.owners[s]]++;
    int exact = 1;
    for (uint32_t i = 0; i < count; i++)
        exact &= per[i] == n[i].weight;
    CHECK_ALL(exact, "each node's slots are its weight");
    /* auto ids after 10,000 explicit ones 1..10,000 (every candidate taken) */
    for (uint32_t i = 0; i < count; i++)
        n[i].hash_id = i < count / 2 ? count - i : 0;
    plc_compat_layout_free(&l);
    CHECK_EQ(plc_compat_layout_build(&c, &l), 0);
    /* next_id is 5001 at the first auto id; 5001..10000 are explicit */
    CHECK_EQ(l.hash_ids[count / 2], 10001);
    CHECK_EQ(l.hash_ids[count - 1], 15000);
    plc_compat_layout_free(&l);
    free(per);
    free(n);
}

int main(void)
{
    compare_random();
    mid_map();
    big_map();
    return check_done("compat_haproxy_scale");
}
