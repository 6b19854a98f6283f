/*
 * bench_build.c -- snapshot build time: placer_builder_build (token
 * generation, sort, layout) for the seed ring (30,720 tokens) and for 2^20
 * tokens; and a balanced ring (PLACER_TOKENS_BALANCED) of 8,000 nodes x 16
 * tokens in 3 zones, held to a goal of under 2 s (it took 38 s when every
 * join rescanned the ring). Items are snapshots built.
 */
#include <stdio.h>

#include "benches.h"
#include "placer.h"
#include "shim.h"

static void bench_build(plc_bench *b, const void *arg)
{
    uint32_t vnodes = *(const uint32_t *)arg, nodes = vnodes == 256 ? 120 : 128;
    placer_builder *bld = placer_builder_new();
    placer_builder_set_vnodes(bld, vnodes);
    char id[32];
    for (uint32_t n = 0; n < nodes; n++) {
        snprintf(id, sizeof id, "node-%03u", n);
        placer_builder_add_node(bld, id, "z", 1.0);
    }
    while (plc_bench_keep_running(b, 1)) {
        placer_snapshot *s = NULL;
        if (placer_builder_build(bld, 1, &s) != 0) {
            plc_bench_skip(b, "build failed");
            break;
        }
        placer_snapshot_free(s);
    }
    plc_bench_counter(b, "tokens", (double)vnodes * nodes, 0);
    plc_bench_set_items(b, plc_bench_iterations(b));
    placer_builder_free(bld);
}

static void bench_build_balanced(plc_bench *b, const void *arg)
{
    uint32_t nodes = *(const uint32_t *)arg;
    placer_builder *bld = placer_builder_new();
    placer_builder_set_vnodes(bld, 16);
    placer_builder_set_token_allocation(bld, PLACER_TOKENS_BALANCED);
    char id[32], zone[8];
    for (uint32_t n = 0; n < nodes; n++) {
        snprintf(id, sizeof id, "node-%u", n);
        snprintf(zone, sizeof zone, "z%u", n % 3);
        placer_builder_add_node(bld, id, zone, 1.0);
    }
    while (plc_bench_keep_running(b, 1)) {
        placer_snapshot *s = NULL;
        if (placer_builder_build(bld, 1, &s) != 0) {
            plc_bench_skip(b, "build failed");
            break;
        }
        placer_snapshot_free(s);
    }
    plc_bench_counter(b, "tokens", 16.0 * nodes, 0);
    plc_bench_set_items(b, plc_bench_iterations(b));
    placer_builder_free(bld);
}

void register_build_benches(void)
{
    static const uint32_t balanced[] = {1000, 8000};
    plc_bench_register("build/balanced/1000x16", bench_build_balanced, &balanced[0]);
    plc_bench_register("build/balanced/8000x16", bench_build_balanced, &balanced[1]);
    static const uint32_t vnodes[] = {256, (1u << 20) / 128};
    plc_bench_register("build/30720", bench_build, &vnodes[0]);
    plc_bench_register("build/2^20", bench_build, &vnodes[1]);
}
