/*
 * bench_bounded.c -- the costs of bounded loads and balanced tokens.
 *
 * Bounded-load lookups on the seed ring (120 nodes in 3 zones x 256
 * tokens), beside the plain lookup of the same keys in the same binary
 * (the goal: at most 2x while the owner is under the capacity):
 *   bounded/30720/plain     placer_lookup
 *   bounded/30720/under     placer_lookup_bounded, every node under the
 *                           capacity (the common case: lookup + two reads)
 *   bounded/30720/full_10pc the same with 12 of the 120 nodes at capacity
 *                           (keys of theirs walk on to the next node)
 * And the build of balanced rings from scratch (every node allocated in
 * turn), beside random tokens: build/balanced/120x16, /120x256.
 * Items are lookups or builds.
 */
#include <stdio.h>
#include <string.h>

#include "benches.h"
#include "fixtures.h"
#include "shim.h"

enum { PLAIN, UNDER, FULL_10PC };

static void bench_bounded(plc_bench *b, const void *arg)
{
    int mode = *(const int *)arg;
    const ring_fixture *f = bench_fixture(1);
    const placer_snapshot *s = f->snap;
    uint32_t loads[120] = {0}, o = 0;
    uint64_t total = 1000000; /* capacity ceil(1.25 * 1000001 / 120) = 10417 */
    if (mode == FULL_10PC)
        for (uint32_t i = 0; i < 120; i += 10)
            loads[i] = 10418;
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS))
        for (uint32_t i = 0; i < BENCH_KEYS; i++) {
            if (mode == PLAIN) {
                acc += (uint64_t)placer_lookup(s, f->key_ptrs[i], BENCH_KEY_LEN);
            } else {
                placer_lookup_bounded(s, f->key_ptrs[i], BENCH_KEY_LEN, loads, total, 1.25, &o);
                acc += o;
            }
        }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
}

typedef struct build_case {
    uint32_t vnodes;
    int tokens;
} build_case;

static void bench_build_balanced(plc_bench *b, const void *arg)
{
    const build_case *c = arg;
    placer_builder *bld = placer_builder_new();
    placer_builder_set_vnodes(bld, c->vnodes);
    placer_builder_set_token_allocation(bld, c->tokens);
    char id[32], zone[16];
    for (unsigned n = 0; n < 120; n++) {
        snprintf(id, sizeof id, "node-%03u", n);
        snprintf(zone, sizeof zone, "zone-%u", n % 3);
        placer_builder_add_node(bld, id, zone, 1.0);
    }
    while (plc_bench_keep_running(b, 1)) {
        placer_snapshot *s = NULL;
        placer_builder_build(bld, 1, &s);
        placer_snapshot_free(s);
    }
    plc_bench_set_items(b, plc_bench_iterations(b));
    placer_builder_free(bld);
}

void register_bounded_benches(void)
{
    static const int modes[] = {PLAIN, UNDER, FULL_10PC};
    plc_bench_register("bounded/30720/plain", bench_bounded, &modes[0]);
    plc_bench_register("bounded/30720/under", bench_bounded, &modes[1]);
    plc_bench_register("bounded/30720/full_10pc", bench_bounded, &modes[2]);
    static const build_case builds[] = {{16, PLACER_TOKENS_RANDOM},
                                        {16, PLACER_TOKENS_BALANCED},
                                        {256, PLACER_TOKENS_RANDOM},
                                        {256, PLACER_TOKENS_BALANCED}};
    plc_bench_register("build/random/120x16", bench_build_balanced, &builds[0]);
    plc_bench_register("build/balanced/120x16", bench_build_balanced, &builds[1]);
    plc_bench_register("build/random/120x256", bench_build_balanced, &builds[2]);
    plc_bench_register("build/balanced/120x256", bench_build_balanced, &builds[3]);
}
