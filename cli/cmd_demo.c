/*
 * cmd_demo.c -- `placer demo`: the seed scenario of ../shared/seeds/001 on
 * one core. Builds a 120-node, 3-zone ring at 256 tokens per node, looks up
 * fixed-seed 32-byte keys one at a time with placer_lookup, and prints the
 * rate against the 2,000,000 lookups/s the scenario needs, plus how evenly
 * the keys fell on the nodes; then the same keys through placer_lookup_batch
 * (which must agree, key for key).
 *
 * Keys are generated in chunks outside the timed region, so the rate counts
 * hashing, search and owner read only.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "placer.h"

#define DEMO_NODES 120u
#define DEMO_ZONES 3u
#define DEMO_VNODES 256u
#define DEMO_KEY_LEN 32u
#define DEMO_CHUNK 65536u
#define DEMO_TARGET 2000000.0

void cmd_demo_usage(FILE *out)
{
    fprintf(out,
            "usage: placer demo [--keys N] [--seed S]\n"
            "\n"
            "Build a ring of %u nodes in %u zones with %u tokens each, look up N\n"
            "fixed-seed %u-byte keys on one thread with placer_lookup, and print the\n"
            "rate as '<N> lookups/s' beside the %.0f/s target, then each node's share\n"
            "of the keys (min, max/mean, coefficient of variation), then the rate of\n"
            "the same keys through placer_lookup_batch.\n"
            "\n"
            "  --keys N   keys to look up (default 10000000, 1..10000000000)\n"
            "  --seed S   seed of the key generator (default 1)\n",
            DEMO_NODES, DEMO_ZONES, DEMO_VNODES, DEMO_KEY_LEN, DEMO_TARGET);
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* n keys of DEMO_KEY_LEN characters from [0-9a-z]. */
static void make_keys(char *keys, size_t n, uint64_t *rng)
{
    static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    for (size_t i = 0; i < n; i++)
        for (unsigned j = 0; j < DEMO_KEY_LEN; j += 8) {
            uint64_t r = splitmix64(rng);
            for (unsigned k = 0; k < 8; k++, r >>= 8)
                keys[i * DEMO_KEY_LEN + j + k] = alphabet[(r & 0xff) % 36];
        }
}

static int build_ring(placer_snapshot **out)
{
    placer_builder *b = placer_builder_new();
    if (!b)
        return PLACER_ENOMEM;
    int err = placer_builder_set_vnodes(b, DEMO_VNODES);
    char id[32], zone[32];
    for (unsigned i = 0; i < DEMO_NODES && err >= 0; i++) {
        snprintf(id, sizeof id, "node-%03u", i);
        snprintf(zone, sizeof zone, "zone-%c", 'a' + (int)(i % DEMO_ZONES));
        err = placer_builder_add_node(b, id, zone, 1.0);
    }
    if (err >= 0)
        err = placer_builder_build(b, 1, out);
    placer_builder_free(b);
    return err;
}

static void print_balance(const placer_snapshot *s, const uint64_t *count, uint64_t total)
{
    uint32_t n = placer_node_count(s);
    double mean = (double)total / n, var = 0;
    uint64_t min = UINT64_MAX, max = 0;
    for (uint32_t i = 0; i < n; i++) {
        min = count[i] < min ? count[i] : min;
        max = count[i] > max ? count[i] : max;
        var += ((double)count[i] - mean) * ((double)count[i] - mean);
    }
    double cv = sqrt(var / n) / mean;
    printf("keys per node: min %" PRIu64 ", mean %.0f, max %" PRIu64
           ", max/mean %.3f, coefficient of variation %.4f\n",
           min, mean, max, (double)max / mean, cv);
    uint64_t zone_keys[DEMO_ZONES] = {0};
    for (uint32_t i = 0; i < n; i++)
        zone_keys[i % DEMO_ZONES] += count[i];
    printf("keys per zone:");
    for (unsigned z = 0; z < DEMO_ZONES; z++)
        printf(" %s %.2f%%", placer_node_zone(s, z), 100.0 * (double)zone_keys[z] / (double)total);
    printf("\n");
}

int cmd_demo(int argc, char **argv)
{
    uint64_t nkeys = 10000000, seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--keys") && i + 1 < argc) {
            if (cli_parse_u64("demo", "--keys", argv[++i], 1, UINT64_C(10000000000), &nkeys))
                return CLI_USAGE;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            if (cli_parse_u64("demo", "--seed", argv[++i], 0, UINT64_MAX, &seed))
                return CLI_USAGE;
        } else {
            fprintf(stderr, "placer demo: unknown option or missing value '%s'\n", argv[i]);
            cmd_demo_usage(stderr);
            return CLI_USAGE;
        }
    }

    placer_snapshot *s = NULL;
    double t0 = cli_now();
    int err = build_ring(&s);
    double build_s = cli_now() - t0;
    char *keys = malloc((size_t)DEMO_CHUNK * DEMO_KEY_LEN);
    uint64_t *count = calloc(DEMO_NODES, sizeof *count);
    if (err < 0 || !keys || !count) {
        fprintf(stderr, "placer demo: %s\n", placer_strerror(err < 0 ? err : PLACER_ENOMEM));
        free(keys);
        free(count);
        placer_snapshot_free(s);
        return CLI_FAILURE;
    }
    printf("ring: %u nodes in %u zones, %u tokens per node, %u tokens, built in %.2f ms\n",
           placer_node_count(s), DEMO_ZONES, DEMO_VNODES, placer_token_count(s), build_s * 1e3);
    printf("kernels: hash64=%s search=%s\n", placer_kernel_name(PLACER_KERNEL_HASH64),
           placer_kernel_name(PLACER_KERNEL_SEARCH));

    size_t layout = placer_snapshot_layout_bytes(s);
    printf("search layout: %zu bytes, %.2fx plain sorted tokens + owners\n", layout,
           (double)layout / (12.0 * placer_token_count(s)));

    static const void *ptrs[DEMO_CHUNK];
    static size_t lens[DEMO_CHUNK];
    static uint32_t owners[DEMO_CHUNK];
    uint64_t rng = seed, done = 0, disagree = 0;
    double timed = 0, timed_batch = 0;
    while (done < nkeys) {
        size_t n = nkeys - done < DEMO_CHUNK ? (size_t)(nkeys - done) : DEMO_CHUNK;
        make_keys(keys, n, &rng);
        for (size_t i = 0; i < n; i++) {
            ptrs[i] = keys + i * DEMO_KEY_LEN;
            lens[i] = DEMO_KEY_LEN;
        }
        double start = cli_now();
        for (size_t i = 0; i < n; i++)
            count[placer_lookup(s, keys + i * DEMO_KEY_LEN, DEMO_KEY_LEN)]++;
        double mid = cli_now();
        placer_lookup_batch(s, ptrs, lens, n, owners);
        timed_batch += cli_now() - mid;
        timed += mid - start;
        for (size_t i = 0; i < n; i++)
            disagree += owners[i] != (uint32_t)placer_lookup(s, ptrs[i], DEMO_KEY_LEN);
        done += n;
    }
    double rate = (double)nkeys / timed;
    printf("looked up %" PRIu64 " keys of %u bytes on 1 thread in %.3f s (%.1f ns each)\n", nkeys,
           DEMO_KEY_LEN, timed, timed * 1e9 / (double)nkeys);
    printf("%.0f lookups/s (target %.0f lookups/s: %.1fx, %s)\n", rate, DEMO_TARGET,
           rate / DEMO_TARGET, rate >= DEMO_TARGET ? "met" : "NOT met");
    print_balance(s, count, nkeys);
    printf("batched: %.0f lookups/s with placer_lookup_batch (%.1f ns each), %s\n",
           (double)nkeys / timed_batch, timed_batch * 1e9 / (double)nkeys,
           disagree ? "DISAGREES with single lookups" : "same owners as single lookups");

    free(keys);
    free(count);
    placer_snapshot_free(s);
    return disagree ? CLI_FAILURE : CLI_OK;
}
