/*
 * bench_lookup.c -- ring lookup on the seed scenario's ring (120 nodes x 256
 * tokens = 30,720 tokens), beside the baseline every C++ ring uses:
 * CRC32C of the key, std::lower_bound over the same sorted tokens, owner
 * read. Same tokens, same keys, same binary, so the ratio is meaningful on
 * a noisy machine.
 *   lookup/key/...   : 32-byte keys, hash + search + owner
 *   lookup/hash/...  : pre-hashed keys, search + owner only
 */
#include <stdio.h>
#include <stdlib.h>

#include "benches.h"
#include "kernels.h"
#include "peers.h"
#include "placer.h"
#include "shim.h"

#define NODES 120u
#define VNODES 256u
#define KEYS 8192u
#define KEY_LEN 32u

typedef struct ring_fixture {
    placer_snapshot *s;
    uint64_t *tokens; /* the same sorted tokens, as a plain array */
    uint32_t *owners;
    uint32_t ntokens;
    unsigned char *keys;
    uint64_t *hashes;
} ring_fixture;

static ring_fixture fx;

static void setup(void)
{
    if (fx.s)
        return;
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, VNODES);
    char id[32], zone[16];
    for (unsigned i = 0; i < NODES; i++) {
        snprintf(id, sizeof id, "node-%03u", i);
        snprintf(zone, sizeof zone, "zone-%u", i % 3);
        placer_builder_add_node(b, id, zone, 1.0);
    }
    placer_builder_build(b, 1, &fx.s);
    placer_builder_free(b);
    fx.ntokens = placer_token_count(fx.s);
    fx.tokens = malloc(fx.ntokens * sizeof *fx.tokens);
    fx.owners = malloc(fx.ntokens * sizeof *fx.owners);
    for (uint32_t i = 0; i < fx.ntokens; i++)
        placer_token_at(fx.s, i, &fx.tokens[i], &fx.owners[i]);
    fx.keys = malloc(KEYS * KEY_LEN);
    fx.hashes = malloc(KEYS * sizeof *fx.hashes);
    uint64_t x = 0x2545F4914F6CDD1Du;
    for (size_t i = 0; i < KEYS * KEY_LEN; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        fx.keys[i] = (unsigned char)('a' + x % 26);
    }
    for (uint32_t i = 0; i < KEYS; i++)
        fx.hashes[i] = placer_snapshot_hash(fx.s, fx.keys + i * KEY_LEN, KEY_LEN);
}

enum { PLACER_KEY, BASELINE_KEY, PLACER_HASH, BASELINE_HASH };

static void bench_lookup(plc_bench *b, const void *arg)
{
    setup();
    int which = *(const int *)arg;
    const plc_kernels *k = plc_kernels_get();
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, KEYS)) {
        const unsigned char *key = fx.keys;
        switch (which) {
        case PLACER_KEY:
            for (uint32_t i = 0; i < KEYS; i++, key += KEY_LEN)
                acc += (uint64_t)placer_lookup(fx.s, key, KEY_LEN);
            break;
        case BASELINE_KEY:
            /* A 32-bit CRC must be spread over the 64-bit token space, or
             * every search takes the same (perfectly predicted) path. */
            for (uint32_t i = 0; i < KEYS; i++, key += KEY_LEN) {
                uint64_t c = k->crc32c(0, key, KEY_LEN);
                acc += fx.owners[peer_std_lower_bound(fx.tokens, fx.ntokens, c << 32 | c)];
            }
            break;
        case PLACER_HASH:
            for (uint32_t i = 0; i < KEYS; i++)
                acc += (uint64_t)placer_lookup_hash(fx.s, fx.hashes[i]);
            break;
        default:
            for (uint32_t i = 0; i < KEYS; i++)
                acc += fx.owners[peer_std_lower_bound(fx.tokens, fx.ntokens, fx.hashes[i])];
        }
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_label(b, placer_kernel_name(PLACER_KERNEL_SEARCH));
}

void register_lookup_benches(void)
{
    static const int which[] = {PLACER_KEY, BASELINE_KEY, PLACER_HASH, BASELINE_HASH};
    plc_bench_register("lookup/key/30720/placer", bench_lookup, &which[0]);
    plc_bench_register("lookup/key/30720/crc32c+std_lower_bound", bench_lookup, &which[1]);
    plc_bench_register("lookup/hash/30720/placer", bench_lookup, &which[2]);
    plc_bench_register("lookup/hash/30720/std_lower_bound", bench_lookup, &which[3]);
}
