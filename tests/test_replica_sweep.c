/*
 * test_replica_sweep.c -- every slot's set from the backward sweep
 * (plc_replica_sweep) against plain references on random rings: placer's
 * walk from each slot (plc_replicas_walk) and the walk's all-at-once lists
 * (plc_replicas_walk_all); SimpleStrategy's first R distinct hosts and
 * NetworkTopologyStrategy in one datacenter (hosts of new racks, then at
 * most RF - racks repeats), walked token by token here. The sweep declines
 * NetworkTopologyStrategy with fewer racks than RF (the stored sets, from
 * replica_rules.c's lists then, are still compared). Rings of 1 to 40 nodes in 1 to 8 zones (some in 70,
 * past the walk's 64-zone mask), fewer nodes or zones than R, weights,
 * down, joining and draining nodes, a node owning most tokens, R from 1 to
 * PLACER_MAX_REPLICAS, and every slot compared, the last ones' sets
 * wrapping past the ring's end. The snapshots' stored sets (the build's
 * call) are the sweep's too, for both rules. NetworkTopologyStrategy over
 * 1 to 3 datacenters: the datacenters' sweep (replica_sweep_dcs.c; rack
 * lists, or host lists in a datacenter of one rack) against
 * replica_rules.c's lists (which test_datacenter_replication.c holds to a
 * plain reference of Cassandra's rule), every slot, sets of 1 to
 * PLACER_MAX_REPLICAS (narrower and wider than the factors' sum).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"
#include "replica_test_kit.h"
#include "snapshot_internal.h"

static placer_snapshot *random_ring(uint64_t *st, uint32_t R, int rule, uint32_t *zones_out)
{
    placer_builder *b = placer_builder_new();
    uint32_t nodes = 1 + (uint32_t)(check_rand(st) % (check_rand(st) % 4 ? 12 : 40));
    uint32_t zones = 1 + (uint32_t)(check_rand(st) % 8);
    if (check_rand(st) % 16 == 0)
        zones = 70, nodes = 40 + (uint32_t)(check_rand(st) % 60);
    int skew = check_rand(st) % 4 == 0;
    for (uint32_t i = 0; i < nodes; i++) {
        char zone[8];
        snprintf(zone, sizeof zone, "z%u", (uint32_t)(check_rand(st) % zones));
        random_node(b, st, i, zones > 1 || i % 2 ? zone : NULL, skew);
    }
    placer_builder_set_vnodes(b, 1 + (uint32_t)(check_rand(st) % 32));
    if (rule)
        CHECK_EQ(placer_builder_set_replication(b, rule, R), 0);
    CHECK_EQ(placer_builder_set_replicas(b, R), 0);
    *zones_out = zones;
    return built_or_null(b);
}

/* Cassandra's rule from slot i in one datacenter, plainly: every token
 * once; a new host is taken when its rack is new (racks: 1, SimpleStrategy:
 * any new host), else while fewer than R - racks repeats were, until
 * min(R, hosts). */
static void cassandra(const placer_snapshot *s, uint32_t i, uint32_t R, int racks, uint32_t *set)
{
    uint32_t n = s->tree.n, count = 0, hosts = 0, nracks = 0;
    unsigned char *host = calloc(s->nnodes, 1), *rack = calloc(s->zone_ids + 1, 1);
    CHECK(host && rack);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t o = plc_stree_owner_at(&s->tree, k), z = racks ? s->nodes[o].zone_id : 0;
        hosts += !host[o];
        nracks += !rack[z];
        host[o] = rack[z] = 1;
    }
    memset(host, 0, s->nnodes);
    memset(rack, 0, s->zone_ids + 1);
    uint32_t target = R < hosts ? R : hosts;
    int repeats = (int)R - (int)nracks;
    for (uint32_t k = 0; k < n && count < target; k++) {
        uint32_t o = plc_stree_owner_at(&s->tree, (i + k) % n), z = racks ? s->nodes[o].zone_id : 0;
        if (host[o])
            continue;
        if (rack[z] && repeats-- <= 0)
            continue;
        host[o] = rack[z] = 1;
        set[count++] = o;
    }
    while (count < R)
        set[count++] = UINT32_MAX;
    free(host);
    free(rack);
}

static void compare_random(void)
{
    uint64_t st = 4242;
    long rings = 0, slots = 0, short_sets = 0, many_zones = 0, nts_swept = 0, nts_declined = 0;
    for (int round = 0; round < 2000; round++) {
        uint32_t R = 1 + (uint32_t)(check_rand(&st) % PLACER_MAX_REPLICAS), zones;
        int rule = round % 4 == 2   ? PLACER_REPLICATION_SIMPLE
                   : round % 4 == 3 ? PLACER_REPLICATION_NETWORK_TOPOLOGY
                                    : PLACER_REPLICATION_PLACER;
        placer_snapshot *s = random_ring(&st, R, rule, &zones);
        if (!s)
            continue;
        uint32_t n = s->tree.n;
        uint32_t *swept = malloc(sizeof *swept * (size_t)n * R);
        uint32_t *all = malloc(sizeof *all * (size_t)n * R);
        CHECK(swept && all);
        uint32_t set[PLACER_MAX_REPLICAS], z;
        int same = 1;
        if (rule == PLACER_REPLICATION_PLACER) {
            CHECK_EQ(plc_replica_sweep(s, R, swept), 0);
            CHECK_EQ(plc_replicas_walk_all(s, R, all), 0);
            for (uint32_t i = 0; i < n; i++) {
                uint32_t k = plc_replicas_walk(s, i, set, R, &z);
                short_sets += k < R;
                for (uint32_t j = k; j < R; j++)
                    set[j] = UINT32_MAX;
                same &= memcmp(set, swept + (size_t)i * R, sizeof set[0] * R) == 0;
                same &= memcmp(all + (size_t)i * R, swept + (size_t)i * R, sizeof set[0] * R) == 0;
            }
        } else {
            int nts = rule == PLACER_REPLICATION_NETWORK_TOPOLOGY, rc = plc_replica_sweep(s, R, swept);
            CHECK(rc == 0 || (nts && rc == PLC_SWEEP_DECLINED));
            nts_swept += nts && rc == 0;
            nts_declined += rc == PLC_SWEEP_DECLINED;
            if (rc == PLC_SWEEP_DECLINED) /* the stored sets from the lists, against the rule */
                memcpy(swept, s->rep, sizeof *swept * (size_t)n * R);
            for (uint32_t i = 0; i < n; i++) {
                cassandra(s, i, R, nts, set);
                short_sets += set[R - 1] == UINT32_MAX;
                same &= memcmp(set, swept + (size_t)i * R, sizeof set[0] * R) == 0;
            }
        }
        /* the build's stored sets are the sweep's */
        same &= memcmp(s->rep, swept, sizeof *swept * (size_t)n * R) == 0;
        CHECK_ALL(same, "the sweep's sets == the walk (Cassandra's rules: their plain walk)");
        many_zones += zones > 64;
        slots += n;
        rings++;
        free(swept);
        free(all);
        placer_snapshot_free(s);
    }
    printf("replica_sweep: %ld rings (%ld in 70 zones; NetworkTopologyStrategy %ld swept, %ld "
           "declined), %ld slots compared, %ld sets short\n",
           rings, many_zones, nts_swept, nts_declined, slots, short_sets);
    CHECK(rings > 1700);
    CHECK(nts_swept > 100 && nts_declined > 100);
    CHECK(many_zones > 20);
    CHECK(short_sets > 1000); /* rings with fewer nodes than R were compared */
}

/* 3 zones and sets of 3 (the common case: the zone list alone) on a ring
 * of 4,096 tokens, with the walk from every slot. */
static void three_zones(void)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, 64);
    for (uint32_t i = 0; i < 64; i++) {
        char id[16], zone[8];
        snprintf(id, sizeof id, "node-%u", i);
        snprintf(zone, sizeof zone, "z%u", i % 3);
        CHECK_EQ(placer_builder_add_node(b, id, zone, 1.0), i);
    }
    for (uint32_t R = 1; R <= PLACER_MAX_REPLICAS; R++) {
        CHECK_EQ(placer_builder_set_replicas(b, R), 0);
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        uint32_t set[PLACER_MAX_REPLICAS], z;
        int same = 1;
        for (uint32_t i = 0; i < s->tree.n; i++) {
            uint32_t k = plc_replicas_walk(s, i, set, R, &z);
            CHECK_EQ(k, R);
            same &= memcmp(set, s->rep + (size_t)i * R, sizeof set[0] * R) == 0;
        }
        CHECK_ALL(same, "3 zones, 4,096 tokens: the stored sets are the walk's");
        placer_snapshot_free(s);
    }
    placer_builder_free(b);
}

/* A ring of 1 to 3 datacenters (and nodes of none), 1 to 4 racks each
 * whose names repeat across them, factors 0 to 3 a datacenter (some
 * datacenters not replicated to), weights and node states. */
static placer_snapshot *random_datacenters(uint64_t *st)
{
    placer_builder *b = placer_builder_new();
    uint32_t dcs = 1 + (uint32_t)(check_rand(st) % 3), racks[3], nodes;
    for (uint32_t d = 0; d < 3; d++)
        racks[d] = 1 + (uint32_t)(check_rand(st) % 4);
    nodes = 1 + (uint32_t)(check_rand(st) % 30);
    for (uint32_t i = 0; i < nodes; i++) {
        uint32_t d = (uint32_t)(check_rand(st) % (dcs + (check_rand(st) % 8 == 0)));
        char rack[16], dc[16];
        snprintf(rack, sizeof rack, "r%u", (uint32_t)(check_rand(st) % racks[d < 3 ? d : 0]));
        random_node(b, st, i, rack, check_rand(st) % 8 == 0);
        snprintf(dc, sizeof dc, "dc%u", d);
        CHECK_EQ(placer_builder_set_datacenter(b, i, d < dcs ? dc : NULL), 0);
    }
    placer_builder_set_vnodes(b, 1 + (uint32_t)(check_rand(st) % 32));
    uint32_t sum = 0;
    for (uint32_t d = 0; d < dcs; d++) {
        char dc[16];
        snprintf(dc, sizeof dc, "dc%u", d);
        uint32_t rf = (uint32_t)(check_rand(st) % 4);
        CHECK_EQ(placer_builder_set_datacenter_replication(b, dc, rf), 0);
        sum += rf;
    }
    if (!sum)
        CHECK_EQ(placer_builder_set_datacenter_replication(b, "dc0", 1), 0);
    return built_or_null(b);
}

static void compare_datacenters(void)
{
    uint64_t st = 977;
    long rings = 0, swept = 0, declined = 0, narrow = 0, slots = 0;
    for (int round = 0; round < 1500; round++) {
        placer_snapshot *s = random_datacenters(&st);
        if (!s)
            continue;
        uint32_t n = s->tree.n, R = 1 + (uint32_t)(check_rand(&st) % PLACER_MAX_REPLICAS);
        uint32_t *sweep = malloc(sizeof *sweep * (size_t)n * R);
        uint32_t *lists = malloc(sizeof *lists * (size_t)n * R);
        CHECK(sweep && lists);
        int rc = plc_replica_sets_by_dc_sweep(s, R, sweep);
        CHECK(rc == 0 || rc == PLC_SWEEP_DECLINED);
        CHECK_EQ(plc_replica_sets_by_lists(s, R, lists), 0);
        if (rc == 0) {
            CHECK_ALL(memcmp(sweep, lists, sizeof *sweep * (size_t)n * R) == 0,
                      "the datacenters' sweep == the lists, every slot");
            swept++;
            narrow += R < s->rep_r;
            slots += n;
        } else {
            declined++;
        }
        /* the build's stored sets are the lists' (whichever way they came) */
        if (s->rep_r && s->rep_rule == PLACER_REPLICATION_NETWORK_TOPOLOGY) {
            uint32_t *stored = malloc(sizeof *stored * (size_t)n * s->rep_r);
            CHECK(stored != NULL);
            CHECK_EQ(plc_replica_sets_by_lists(s, s->rep_r, stored), 0);
            CHECK_ALL(memcmp(stored, s->rep, sizeof *stored * (size_t)n * s->rep_r) == 0,
                      "the stored sets == the lists'");
            free(stored);
        }
        rings++;
        free(sweep);
        free(lists);
        placer_snapshot_free(s);
    }
    printf("replica_sweep: %ld datacenter rings, %ld swept (%ld cut narrower than the factors' "
           "sum; %ld slots compared), %ld declined\n",
           rings, swept, narrow, slots, declined);
    CHECK(rings > 1000);
    CHECK(swept > 300 && declined > 100 && narrow > 100);
}

int main(void)
{
    compare_random();
    compare_datacenters();
    three_zones();
    return check_done("replica_sweep");
}
