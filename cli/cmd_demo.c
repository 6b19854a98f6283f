/*
 * cmd_demo.c -- `placer demo`: the seed scenario of ../shared/seeds/001 on
 * one core. Builds a 120-node, 3-zone ring at 256 tokens per node, looks up
 * fixed-seed 32-byte keys one at a time with placer_lookup, and prints the
 * rate against the 2,000,000 lookups/s the scenario needs, plus how evenly
 * the keys fell on the nodes; then the same keys through placer_lookup_batch
 * (which must agree, key for key); then a 121st node, node-120, joining: the fraction of
 * the hash space that moves and one key's owner and next owner during the
 * handoff; then a router: two reader threads look
 * up through it for a while a writer publishes a new epoch (one node more
 * or fewer each time) every millisecond.
 *
 * Keys are generated in chunks outside the timed region, so the rate counts
 * hashing, search and owner read only.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
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
            "usage: placer demo [--keys N] [--seed S] [--router-ms MS]\n"
            "\n"
            "Build a ring of %u nodes in %u zones with %u tokens each, look up N\n"
            "fixed-seed %u-byte keys on one thread with placer_lookup, and print the\n"
            "rate as '<N> lookups/s' beside the %.0f/s target, then each node's share\n"
            "of the keys (min, max/mean, coefficient of variation), then the rate of\n"
            "the same keys through placer_lookup_batch; then the join of node-120 (the\n"
            "fraction of the hash space that moves beside 1/121, and one key's owner and\n"
            "next owner during the handoff); then runs a router for\n"
            "--router-ms milliseconds: 2 reader threads looking up while a writer\n"
            "publishes a new epoch every millisecond, and prints aggregate lookups/s,\n"
            "epochs published and epochs seen by the readers (and, when building the\n"
            "rings fell behind, how many epochs it published against that target).\n"
            "\n"
            "  --keys N        keys to look up (default 10000000, 1..10000000000)\n"
            "  --seed S        seed of the key generator (default 1)\n"
            "  --router-ms MS  how long the router part runs (default 1000, 0 skips it)\n"
            "  -h, --help      this help\n",
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

/* The demo ring at `epoch` with `nodes` nodes; with `joining`, the last one
 * is joining. */
static int build_ring(unsigned nodes, uint64_t epoch, int joining, placer_snapshot **out)
{
    placer_builder *b = placer_builder_new();
    if (!b)
        return PLACER_ENOMEM;
    int err = placer_builder_set_vnodes(b, DEMO_VNODES);
    char id[32], zone[32];
    for (unsigned i = 0; i < nodes && err >= 0; i++) {
        snprintf(id, sizeof id, "node-%03u", i);
        snprintf(zone, sizeof zone, "zone-%c", 'a' + (int)(i % DEMO_ZONES));
        err = placer_builder_add_node(b, id, zone, 1.0);
    }
    if (err >= 0 && joining)
        err = placer_builder_set_state(b, nodes - 1, PLACER_NODE_JOINING);
    if (err >= 0)
        err = placer_builder_build(b, epoch, out);
    placer_builder_free(b);
    return err;
}

/* A 121st node (node-120) joins: what moves, and one key in flight. */
static int show_join(void)
{
    placer_snapshot *s = NULL;
    placer_move *m = NULL;
    size_t n = 0;
    int err = build_ring(DEMO_NODES + 1, 2, 1, &s);
    if (err >= 0)
        err = placer_diff_transition(s, &m, &n);
    if (err < 0) {
        fprintf(stderr, "placer demo: %s\n", placer_strerror(err));
        placer_snapshot_free(s);
        return CLI_FAILURE;
    }
    int all_to_new = 1;
    for (size_t i = 0; i < n; i++)
        all_to_new &= m[i].to == DEMO_NODES;
    printf("join of %s: %zu ranges, %.4f of the hash space moves (1/%u = %.4f), %s\n",
           placer_node_id(s, DEMO_NODES), n, placer_moves_coverage(m, n), DEMO_NODES + 1,
           1.0 / (DEMO_NODES + 1), all_to_new ? "all to it" : "NOT all to it");
    char key[32];
    for (unsigned i = 0; i < 100000; i++) {
        int len = snprintf(key, sizeof key, "user:%u", i);
        uint32_t owner, next;
        placer_lookup_handoff(s, key, (size_t)len, &owner, &next);
        if (owner != next) {
            printf("during the handoff, key %s is read from %s (owner) and moves to %s (next "
                   "owner)\n",
                   key, placer_node_id(s, owner), placer_node_id(s, next));
            break;
        }
    }
    placer_moves_free(m);
    placer_snapshot_free(s);
    return CLI_OK;
}

typedef struct router_reader {
    placer_router *r;
    atomic_int *stop;
    uint64_t seed;
    uint64_t lookups, epochs_seen, last_epoch;
} router_reader;

static void *router_reader_main(void *p)
{
    router_reader *rr = p;
    enum { READER_KEYS = 4096 };
    static _Thread_local char keys[READER_KEYS * DEMO_KEY_LEN];
    uint64_t rng = rr->seed;
    make_keys(keys, READER_KEYS, &rng); /* generated once: the loop times lookups */
    size_t at = 0;
    while (!atomic_load_explicit(rr->stop, memory_order_relaxed)) {
        for (size_t i = 0; i < 256; i++, at = (at + 1) % READER_KEYS) {
            uint64_t epoch;
            placer_router_lookup(rr->r, keys + at * DEMO_KEY_LEN, DEMO_KEY_LEN, &epoch);
            if (epoch != rr->last_epoch) {
                rr->epochs_seen++;
                rr->last_epoch = epoch;
            }
        }
        rr->lookups += 256;
    }
    return NULL;
}

/* Two readers look up through a router while this thread publishes a new
 * epoch (120 nodes, then 121, 120, ...) every millisecond. */
static int run_router(uint64_t ms, uint64_t seed)
{
    placer_snapshot *first = NULL;
    if (build_ring(DEMO_NODES, 1, 0, &first) < 0)
        return CLI_FAILURE;
    placer_router *r = placer_router_new(first);
    if (!r)
        return CLI_FAILURE;
    atomic_int stop = 0;
    router_reader rr[2] = {{r, &stop, seed + 100, 0, 0, 0}, {r, &stop, seed + 200, 0, 0, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, router_reader_main, &rr[i]);
    double start = cli_now(), end = start + (double)ms / 1e3;
    uint64_t epoch = 1, published = 0, stale = 0;
    while (cli_now() < end) {
        placer_snapshot *next = NULL;
        epoch++;
        if (build_ring(DEMO_NODES + (unsigned)(epoch % 2), epoch, 0, &next) < 0)
            break;
        int rc = placer_router_publish(r, next);
        published += rc == 0;
        stale += rc == PLACER_ESTALE;
        double wait = start + (double)published / 1000.0 - cli_now();
        if (wait > 0) { /* sleep, so the readers have the cores */
            struct timespec ts = {0, (long)(wait * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    double secs = cli_now() - start;
    printf("router: 2 reader threads, %.0f lookups/s together, %" PRIu64
           " epochs published (%" PRIu64 " stale), epochs seen by readers: %" PRIu64 " and %" PRIu64
           ", last epoch %" PRIu64 "\n",
           (double)(rr[0].lookups + rr[1].lookups) / secs, published, stale, rr[0].epochs_seen,
           rr[1].epochs_seen, placer_router_epoch(r));
    /* the target is one epoch a millisecond; a loaded machine (or slow
     * builds under a sanitizer) falls behind it: say so, with the count */
    uint64_t target = (uint64_t)(secs * 1000.0);
    if (published + published / 10 < target)
        printf("router: behind the target of an epoch every millisecond: %" PRIu64
               " epochs published in %.0f ms (%.0f%% of %" PRIu64 "; building a 120-node ring "
               "takes longer on a busy machine)\n",
               published, secs * 1e3, 100.0 * (double)published / (double)target, target);
    placer_router_free(r);
    return CLI_OK;
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

enum { OPT_KEYS = 256, OPT_SEED, OPT_ROUTER_MS };

static const struct option options[] = {
    {"keys", required_argument, NULL, OPT_KEYS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"router-ms", required_argument, NULL, OPT_ROUTER_MS},
    CLI_HELP_OPTION,
    {0},
};

int cmd_demo(int argc, char **argv)
{
    uint64_t nkeys = 10000000, seed = 1, router_ms = 1000;
    int c;
    while ((c = cli_getopt("demo", argc, argv, options, cmd_demo_usage)) != -1) {
        if (c == OPT_KEYS) {
            if (cli_parse_u64("demo", "--keys", optarg, 1, UINT64_C(10000000000), &nkeys))
                return CLI_USAGE;
        } else if (c == OPT_SEED) {
            if (cli_parse_u64("demo", "--seed", optarg, 0, UINT64_MAX, &seed))
                return CLI_USAGE;
        } else if (c == OPT_ROUTER_MS) {
            if (cli_parse_u64("demo", "--router-ms", optarg, 0, 3600000, &router_ms))
                return CLI_USAGE;
        } else {
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
        }
    }
    if (optind < argc) {
        cli_usage_error("demo", "unexpected '%s' (demo takes no operands)", argv[optind]);
        return CLI_USAGE;
    }

    placer_snapshot *s = NULL;
    double t0 = cli_now();
    int err = build_ring(DEMO_NODES, 1, 0, &s);
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
    printf("search layout: %s, %zu bytes, %.2fx plain sorted tokens + owners\n",
           placer_snapshot_layout_name(s), layout,
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
    if (disagree || show_join() != CLI_OK)
        return CLI_FAILURE;
    return router_ms ? run_router(router_ms, seed) : CLI_OK;
}
