/*
 * bench_keyed.c -- the price of a secret: the same ring (120 nodes x 256
 * tokens, weights 1, three zones) built three times in one process --
 * placer-v2 (the default, fused hash + search), placer-v1 (legacy, hash
 * then search) and SipHash-1-3 (keyed, hash then search) -- looked up with
 * the same 32-byte keys, single calls and batches of 4096. Each row runs
 * under a CPU mask (all features, AVX2, SSE4.2, none), so the batch SipHash
 * kernel of that instruction set is the one measured; the snapshots are
 * built after the mask is set, as the kernels are copied at build.
 * Goals: keyed batch <= 2x unkeyed batch with AVX2 (1.5x with
 * AVX-512), keyed single <= 2.5x unkeyed single.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdio.h>
#include <stdlib.h>

#include "benches.h"
#include "cpu.h"
#include "kernels.h"
#include "placer.h"
#include "shim.h"

#define KEYS 4096u
#define KEY_LEN 32u

enum { V2, V1, KEYED, NHASH };
static const char *const hash_names[NHASH] = {"v2", "v1", "siphash13"};

typedef struct keyed_case {
    int hash, batch;
    unsigned mask;
    const char *isa;
} keyed_case;

static placer_snapshot *build(int hash)
{
    static const unsigned char secret[16] = "bench secret 16b";
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, 256);
    char id[32], zone[16];
    for (uint32_t n = 0; n < 120; n++) {
        snprintf(id, sizeof id, "node-%05u", n);
        snprintf(zone, sizeof zone, "zone-%u", n % 3);
        placer_builder_add_node(b, id, zone, 1.0);
    }
    if (hash == KEYED)
        placer_builder_set_secret(b, secret);
    else
        placer_builder_set_key_hash(b, hash == V1 ? PLACER_HASH_PLACER_V1 : PLACER_HASH_PLACER_V2);
    placer_snapshot *s = NULL;
    placer_builder_build(b, 1, &s);
    placer_builder_free(b);
    return s;
}

static void bench_keyed(plc_bench *b, const void *arg)
{
    const keyed_case *c = arg;
    if ((plc_cpu_detected() & c->mask) != c->mask) {
        plc_bench_skip(b, "this CPU lacks the instruction set");
        return;
    }
    placer_set_cpu_mask(c->mask ? c->mask | PLACER_CPU_PCLMUL : 0);
    placer_snapshot *s = build(c->hash);
    unsigned char *keys = malloc(KEYS * KEY_LEN);
    const void *ptrs[KEYS];
    size_t lens[KEYS];
    uint32_t owners[KEYS];
    uint64_t x = 88172645463325252u;
    for (size_t i = 0; i < KEYS * KEY_LEN; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        keys[i] = (unsigned char)x;
    }
    for (uint32_t i = 0; i < KEYS; i++)
        ptrs[i] = keys + i * KEY_LEN, lens[i] = KEY_LEN;
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, KEYS)) {
        if (c->batch) {
            placer_lookup_batch(s, ptrs, lens, KEYS, owners);
            acc += owners[acc % KEYS];
        } else {
            for (uint32_t i = 0; i < KEYS; i++)
                acc += (uint64_t)placer_lookup(s, ptrs[i], KEY_LEN);
        }
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    char label[64];
    snprintf(label, sizeof label, "%s", plc_kernels_get()->siphash_name);
    plc_bench_label(b, label);
    placer_snapshot_free(s);
    free(keys);
    placer_set_cpu_mask(~0u);
}

void register_keyed_benches(void)
{
    static const struct {
        unsigned mask;
        const char *isa;
    } isas[] = {
        {PLACER_CPU_SSE42 | PLACER_CPU_AVX2 | PLACER_CPU_AVX512, "avx512"},
        {PLACER_CPU_SSE42 | PLACER_CPU_AVX2, "avx2"},
        {PLACER_CPU_SSE42, "sse4.2"},
        {0, "scalar"},
    };
    static keyed_case cases[4][NHASH][2];
    static char names[4][NHASH][2][64];
    for (int i = 0; i < 4; i++)
        for (int h = 0; h < NHASH; h++)
            for (int batch = 0; batch < 2; batch++) {
                cases[i][h][batch] = (keyed_case){h, batch, isas[i].mask, isas[i].isa};
                snprintf(names[i][h][batch], sizeof names[i][h][batch], "keyed/ring30720/%s/%s/%s",
                         isas[i].isa, hash_names[h], batch ? "batch" : "single");
                plc_bench_register(names[i][h][batch], bench_keyed, &cases[i][h][batch]);
            }
}
