/*
 * bench_build_sets.c -- what precomputed replica sets
 * (placer_builder_set_replicas) add to a ring's build, paired in one
 * process: the same nodes built without sets and with sets of 3 (or 5),
 * alternating (which goes first alternates too), each build timed by the
 * thread's CPU time (page faults count). Rings of 120 and 4,096 nodes x
 * 256 tokens; the rule placer's walk in 3 zones (the sets from the zone
 * list alone) and in one zone (the node list alone), Cassandra's
 * SimpleStrategy (all three by replica_sweep.c), NetworkTopologyStrategy
 * in one datacenter of 3 racks (replica_sweep.c too), in one of one rack
 * (the deployment without racks: replica_sweep_dcs.c's host list) and in
 * two datacenters of 3 racks, factors 3 and 2 (replica_sweep_dcs.c; sets
 * of 5, the wide line sets of replica_wide.c beside the narrow ones; a
 * node's datacenter alternates, its rack the next of 3 every other node).
 * Counters: sets_over_plain is the median of the pairs' ratios, plain_ms
 * and sets_ms the builds' medians; the benchmark's time is the builds with
 * sets.
 */
#include <stdio.h>

#include "benches.h"
#include "fixtures.h"
#include "placer.h"
#include "shim.h"

typedef struct sets_case {
    uint32_t nodes, zones;
    int rule;      /* PLACER_REPLICATION_* */
    uint32_t dcs;  /* 1, or 2: the datacenters' factors SETS_DC0 and SETS_DC1 */
    uint32_t sets; /* the set's size, placer_builder_set_replicas */
} sets_case;

#define SETS_DC0 3u
#define SETS_DC1 2u
#define MAX_PAIRS 512u

static placer_builder *case_builder(const sets_case *c, uint32_t sets)
{
    placer_builder *b = placer_builder_new();
    if (!b || placer_builder_set_vnodes(b, 256) != 0)
        goto fail;
    char id[32], zone[16];
    for (uint32_t n = 0; n < c->nodes; n++) {
        snprintf(id, sizeof id, "node-%05u", n);
        snprintf(zone, sizeof zone, "z%u", n / c->dcs % c->zones);
        int node = placer_builder_add_node(b, id, zone, 1.0);
        if (node < 0)
            goto fail;
        if (c->dcs > 1) {
            char dc[16];
            snprintf(dc, sizeof dc, "dc%u", n % c->dcs);
            if (placer_builder_set_datacenter(b, (uint32_t)node, dc) != 0)
                goto fail;
        }
    }
    if (sets && c->dcs > 1 &&
        (placer_builder_set_datacenter_replication(b, "dc0", SETS_DC0) != 0 ||
         placer_builder_set_datacenter_replication(b, "dc1", SETS_DC1) != 0))
        goto fail;
    else if (sets && c->dcs == 1 && c->rule &&
             placer_builder_set_replication(b, c->rule, sets) != 0)
        goto fail;
    if (placer_builder_set_replicas(b, sets) != 0)
        goto fail;
    return b;
fail:
    placer_builder_free(b);
    return NULL;
}

/* One build's CPU time in ns, or a negative number when it fails. */
static double timed_build(placer_builder *b)
{
    placer_snapshot *s = NULL;
    double t0 = bench_thread_ns();
    int err = placer_builder_build(b, 1, &s);
    double t = bench_thread_ns() - t0;
    placer_snapshot_free(s);
    return err ? -1 : t;
}

static void bench_build_sets(plc_bench *b, const void *arg)
{
    const sets_case *c = arg;
    placer_builder *plain = case_builder(c, 0), *sets = case_builder(c, c->sets);
    static double ratio[MAX_PAIRS], plain_ms[MAX_PAIRS], sets_ms[MAX_PAIRS];
    uint32_t np = 0;
    if (!plain || !sets || timed_build(plain) < 0 || timed_build(sets) < 0) {
        plc_bench_skip(b, "build failed");
        goto out;
    }
    while (plc_bench_keep_running(b, 1)) {
        double t[2] = {0, 0}; /* plain, sets */
        for (int k = 0; k < 2; k++) {
            int with_sets = (k + (int)np) % 2 == 0;
            if (!with_sets)
                plc_bench_pause(b); /* the benchmark's own time is the builds with sets */
            t[with_sets] = timed_build(with_sets ? sets : plain);
            if (!with_sets)
                plc_bench_resume(b);
        }
        if (t[0] <= 0 || t[1] <= 0) {
            plc_bench_skip(b, "build failed");
            goto out;
        }
        if (np < MAX_PAIRS) {
            ratio[np] = t[1] / t[0];
            plain_ms[np] = t[0] / 1e6;
            sets_ms[np] = t[1] / 1e6;
            np++;
        }
    }
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_counter(b, "sets_over_plain", bench_median(ratio, np), 0);
    plc_bench_counter(b, "plain_ms", bench_median(plain_ms, np), 0);
    plc_bench_counter(b, "sets_ms", bench_median(sets_ms, np), 0);
    plc_bench_counter(b, "pairs", np, 0);
    plc_bench_counter(b, "tokens", 256.0 * c->nodes, 0);
out:
    placer_builder_free(plain);
    placer_builder_free(sets);
}

void register_build_sets_benches(void)
{
    static const sets_case cases[] = {
        {120, 3, PLACER_REPLICATION_PLACER, 1, 3},
        {120, 1, PLACER_REPLICATION_PLACER, 1, 3},
        {120, 3, PLACER_REPLICATION_SIMPLE, 1, 3},
        {120, 3, PLACER_REPLICATION_NETWORK_TOPOLOGY, 1, 3},
        {120, 1, PLACER_REPLICATION_NETWORK_TOPOLOGY, 1, 3},
        {120, 3, PLACER_REPLICATION_NETWORK_TOPOLOGY, 2, SETS_DC0 + SETS_DC1},
        {4096, 3, PLACER_REPLICATION_PLACER, 1, 3},
        {4096, 1, PLACER_REPLICATION_PLACER, 1, 3},
        {4096, 3, PLACER_REPLICATION_SIMPLE, 1, 3},
        {4096, 3, PLACER_REPLICATION_NETWORK_TOPOLOGY, 1, 3},
        {4096, 1, PLACER_REPLICATION_NETWORK_TOPOLOGY, 1, 3},
        {4096, 3, PLACER_REPLICATION_NETWORK_TOPOLOGY, 2, SETS_DC0 + SETS_DC1},
    };
    static const char *const names[] = {
        "build/sets3/120x256/placer_3zones",  "build/sets3/120x256/placer_1zone",
        "build/sets3/120x256/simple",         "build/sets3/120x256/nts_3racks",
        "build/sets3/120x256/nts_1rack",      "build/sets5/120x256/nts_2dcs",
        "build/sets3/4096x256/placer_3zones", "build/sets3/4096x256/placer_1zone",
        "build/sets3/4096x256/simple",        "build/sets3/4096x256/nts_3racks",
        "build/sets3/4096x256/nts_1rack",     "build/sets5/4096x256/nts_2dcs",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        plc_bench_register(names[i], bench_build_sets, &cases[i]);
}
