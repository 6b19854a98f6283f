/*
 * test_decode_budget.c -- the heaviest snapshots under 1 MB that each
 * strategy's decoder can be handed, honest and forged, decode or are
 * refused within a budget proportional to their size (no forged
 * snapshot under 1 MB may take more than 1 s of CPU; docs/FORMAT.md, "What
 * decoding costs", gives the work per strategy):
 *   - every strategy and every compat mode (each distribution) at its
 *     largest under 1 MB: rings of 2,000 nodes x 16 tokens, balanced and
 *     random, with 3 replica sets per token (the walk is O(T x R^2)), and
 *     a keyed one of 2,000 x 32; jump, jumpback and binomial with 20,000
 *     nodes, jump with 2,000 weighted ones (a table row per unit); 24,000
 *     rendezvous nodes; Maglev's table of 239,999 rows; 65,536 partitions
 *     x 3 copies; memento, anchor and dx with 15,000 of 20,000 buckets
 *     removed (their lookup arrays are rebuilt from the history); compat
 *     modes at their largest (haproxy's map of 201,000 slots and ring of
 *     112,000 points, nginx's ring and hash table, libmemcached's ketama
 *     weighted and not, twemproxy's ketama and modula table, Redis's
 *     16,384 slots over 15,000 nodes);
 *   - each as built, then 25 forgeries of it: every weight 255/256 (the
 *     compat layouts then ask for far more than the file lists), and words
 *     overwritten inside the tables, histories and node records, the
 *     checksum made right again (docs/FORMAT.md says anyone can), each
 *     refused or decoded.
 *   - the lookup bound (PLACER_MAX_WALK): memento's 65,536 nodes then
 *     --previous keeping only the last bucket's node (honest; re-based by
 *     the builder, refused by the decoder as a build without the bound
 *     wrote it), 2^20 buckets with one working (its history in order, and
 *     shuffled and re-signed), anchor's and dx's capacity of 2^20 with
 *     one node: refused or re-based, their steps counted (the modules'
 *     own walks with a counter, no timer) before and after.
 * The budget is CPU time, generous (the decodes take milliseconds): 1 s per
 * MiB of file, x20 under a sanitizer. With a directory argument every case
 * is built 16 times smaller and written there, as built and with its
 * weights forged (how fuzz/corpus/decode/heavy-* were made: seeds of each
 * shape for fuzz_decode, small enough to mutate quickly).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bucket_history.h"
#include "builder_internal.h"
#include "check.h"
#include "codec_format.h"
#include "encoded_section.h"
#include "placer.h"
#include "snapshot_internal.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLOWDOWN 20.0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SLOWDOWN 20.0
#endif
#endif
#ifndef SLOWDOWN
#define SLOWDOWN 1.0
#endif

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double worst_per_mib; /* seconds per MiB over every decode */

/* Decode buf under the budget; the result code. */
static int decode_timed(const unsigned char *buf, size_t len, const char *what, int forged)
{
    placer_snapshot *s = NULL;
    double t0 = cpu_seconds();
    int rc = placer_snapshot_decode(buf, len, &s);
    double spent = cpu_seconds() - t0, budget = SLOWDOWN * (double)len / (1 << 20);
    double per = spent / ((double)len / (1 << 20));
    worst_per_mib = per > worst_per_mib ? per : worst_per_mib;
    CHECK_ALL(spent <= budget, "decoded or refused within 1 s of CPU per MiB");
    if (spent > budget)
        fprintf(stderr, "decode_budget: %s%s: %.3f s for %zu bytes\n", what, forged ? " (forged)" : "",
                spent, len);
    if (!forged)
        CHECK_ALL(rc == 0, "the honest file decodes");
    placer_snapshot_free(s);
    return rc;
}

static uint64_t st = 29;
static uint32_t shrink = 1; /* 16 when writing the corpus */

/* The node records' section of an encoded snapshot, and its count. */
static unsigned char *node_records(unsigned char *buf, uint64_t *count)
{
    return encoded_section(buf, PLC_SEC_NODES, count);
}

static void write_file(const char *dir, const char *name, const char *suffix,
                       const unsigned char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/heavy-%s%s", dir, name, suffix);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(buf, 1, len, f) == len);
    if (f)
        fclose(f);
}

/* Build, encode, check the size, decode it and 24 forgeries of it. */
static void heavy(placer_builder *b, const char *name, const char *dir)
{
    placer_snapshot *s = NULL;
    int rc = placer_builder_build(b, 7, &s);
    CHECK_ALL(rc == 0, "the heavy snapshot builds");
    if (rc) {
        fprintf(stderr, "decode_budget: %s: %s (%s)\n", name, placer_strerror(rc),
                placer_builder_error(b));
        return;
    }
    unsigned char *buf = NULL;
    size_t len = 0;
    CHECK_EQ(placer_snapshot_encode(s, (void **)&buf, &len), 0);
    placer_snapshot_free(s);
    CHECK_ALL(len < 1000000, "under 1 MB");
    if (dir)
        write_file(dir, name, "", buf, len);
    double t0 = cpu_seconds();
    decode_timed(buf, len, name, 0);
    double honest = cpu_seconds() - t0;
    unsigned char *f = malloc(len);
    int refused = 0;
    /* every weight 255 and 256 in turn, as the forged haproxy map of test_compat_sizes.c:
     * the compat modes' layouts then ask for far more than the file lists */
    memcpy(f, buf, len);
    uint64_t n = 0;
    unsigned char *rec = node_records(f, &n);
    for (uint64_t i = 0; rec && i < n; i++)
        memcpy(rec + i * PLC_FMT_NODE, &(const double[2]){256, 255}[i % 2], 8);
    plc_wr32(f + PLC_H_CRC, plc_fmt_crc(f, len));
    refused += decode_timed(f, len, name, 1) != 0;
    if (dir)
        write_file(dir, name, "-reweighted", f, len);
    for (int k = 0; k < 24; k++) {
        memcpy(f, buf, len);
        /* a few words past the header and section table: tables, histories,
         * records; sometimes a count-like large value, sometimes a small one */
        for (int j = 0; j < 1 + k % 4; j++) {
            size_t at = PLC_FMT_HEADER + (size_t)(check_rand(&st) % (len - PLC_FMT_HEADER - 4));
            uint32_t v = k % 3 == 0 ? UINT32_MAX - (uint32_t)(check_rand(&st) % 4)
                         : k % 3 == 1 ? (uint32_t)(check_rand(&st) % 8)
                                      : (uint32_t)check_rand(&st);
            memcpy(f + at, &v, 4);
        }
        plc_wr32(f + PLC_H_CRC, plc_fmt_crc(f, len));
        refused += decode_timed(f, len, name, 1) != 0;
    }
    printf("decode_budget: %-23s %7zu bytes, decoded in %.1f ms; %d of 25 forgeries refused\n", name,
           len, honest * 1e3, refused);
    free(f);
    placer_buffer_free(buf);
}

/* n nodes of weight `weight` (0: weights 1 .. 200), in 3 zones. */
static placer_builder *nodes(uint32_t n, double weight, int addresses)
{
    placer_builder *b = placer_builder_new();
    for (uint32_t i = 0; i < n; i++) {
        char id[32], zone[8], a[40];
        snprintf(id, sizeof id, "n%u", i);
        snprintf(zone, sizeof zone, "z%u", i % 3);
        double w = weight > 0 ? weight : 1 + i % 200; /* 0: 1 .. 200, no common divisor */
        CHECK_ALL(placer_builder_add_node(b, id, zone, w) == (int)i, "node added");
        if (addresses) {
            snprintf(a, sizeof a, "10.%u.%u.%u:11211", i >> 16, (i >> 8) & 255, i & 255);
            placer_builder_set_address(b, i, a);
        }
    }
    return b;
}

/* A bucket strategy with 15,000 of 20,000 buckets removed: the first
 * build, then one following it without the removed nodes. */
static void bucket_history(int strategy, const char *name, const char *dir)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    if (strategy != PLACER_MEMENTO)
        placer_builder_set_capacity(b, 32768 / shrink);
    for (uint32_t i = 0; i < 20000 / shrink; i++) {
        char id[32];
        snprintf(id, sizeof id, "n%u", i);
        placer_builder_add_node(b, id, NULL, 1);
    }
    placer_snapshot *first = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &first), 0);
    placer_builder_free(b);
    b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    for (uint32_t i = 0; i < 20000 / shrink; i++)
        if (i % 4 == 3 || i == 20000 / shrink - 1) { /* the last bucket stays, so memento's range does too */
            char id[32];
            snprintf(id, sizeof id, "n%u", i);
            placer_builder_add_node(b, id, NULL, 1);
        }
    placer_builder_set_previous(b, first);
    heavy(b, name, dir);
    placer_builder_free(b);
    placer_snapshot_free(first);
}

/* A strategy whose files grow with their nodes (a node record and an id
 * each) and, for jump and its kin, their weights (a table row per unit):
 * as many as fit. */
static void many_nodes(int strategy, uint32_t n, double weight, const char *name, const char *dir)
{
    placer_builder *b = nodes(n / shrink, weight, 0);
    placer_builder_set_strategy(b, strategy);
    heavy(b, name, dir);
    placer_builder_free(b);
}

/* A compat mode of n nodes of `weight` (0: 1 .. 200), with key_hash `hash`
 * (NULL: the program's default). */
static void compat(int program, const char *dist, const char *hash, uint32_t n, double weight,
                   const char *name, const char *dir)
{
    placer_builder *b = nodes(n / shrink, weight, 1);
    placer_compat_options o = {.size = sizeof o, .distribution = dist, .key_hash = hash};
    CHECK_EQ(placer_builder_set_compat(b, program, &o), 0);
    heavy(b, name, dir);
    placer_builder_free(b);
}

/* The most steps over `keys` lookups at random positions, counted by the
 * module's walk with a counter (rules->steps). */
static uint64_t most_steps(const placer_snapshot *s, uint32_t keys)
{
    const plc_bhist_rules *r = s->ops->module;
    uint64_t most = 0, x = 71;
    for (uint32_t i = 0; i < keys; i++) {
        uint64_t k = r->steps(s->bh, check_rand(&x));
        most = k > most ? k : most;
    }
    return most;
}

/* n nodes "n0" .. of weight 1, or the ids of `only` alone (only >= 0). */
static placer_builder *numbered(int strategy, uint32_t n, int64_t only, uint32_t capacity)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    if (capacity)
        placer_builder_set_capacity(b, capacity);
    for (uint32_t i = 0; i < n; i++)
        if (only < 0 || i == only) {
            char id[32];
            snprintf(id, sizeof id, "n%u", i);
            placer_builder_add_node(b, id, NULL, 1);
        }
    return b;
}

/* s encoded and decoded: refused as over the bound (1), or decoded (0). */
static int refused_over_bound(const placer_snapshot *s, const char *what, int shuffle)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    CHECK_EQ(placer_snapshot_encode(s, (void **)&buf, &len), 0);
    if (shuffle) { /* the history's order shuffled, the file re-signed */
        uint64_t n = 0, x = 5;
        unsigned char *h = encoded_section(buf, PLC_SEC_HISTORY, &n);
        for (uint64_t i = n; h && i > 1; i--) {
            uint64_t j = check_rand(&x) % i;
            uint32_t a = plc_rd32(h + 4 * (i - 1)), c = plc_rd32(h + 4 * j);
            plc_wr32(h + 4 * (i - 1), c);
            plc_wr32(h + 4 * j, a);
        }
        plc_wr32(buf + PLC_H_CRC, plc_fmt_crc(buf, len));
    }
    placer_snapshot *d = NULL;
    char why[256] = "";
    int err = placer_snapshot_decode_ex(buf, len, &d, why, sizeof why);
    printf("decode_budget: %s, %zu bytes: %s\n", what, len, err ? why : "decoded");
    placer_snapshot_free(d);
    placer_buffer_free(buf);
    return err == PLACER_ECORRUPT && strstr(why, "over the bound of 256") != NULL;
}

/* A history a build without the bound made (the hook: b->unbounded) and
 * the same build now: the file refused, the build re-based, both
 * counted. `who` keeps the node of this id alone, of n buckets. */
static void walk_bound(int strategy, uint32_t n, double weight_first, uint32_t capacity,
                       const char *what, int over)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    if (capacity)
        placer_builder_set_capacity(b, capacity);
    if (weight_first > 1) { /* one heavy node, then the last one's: 2 nodes, n buckets */
        placer_builder_add_node(b, "heavy", NULL, weight_first);
        placer_builder_add_node(b, "n1", NULL, 1);
    } else {
        placer_builder_free(b);
        b = numbered(strategy, n, -1, capacity);
    }
    placer_snapshot *first = NULL, *old = NULL, *now = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &first), 0);
    placer_builder_free(b);
    /* the node of the last bucket (ids in string order: not n<n-1>) */
    uint64_t token = 0;
    uint32_t owner = 0;
    placer_token_at(first, placer_token_count(first) - 1, &token, &owner);
    b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    placer_builder_add_node(b, placer_node_id(first, owner), NULL, 1);
    placer_builder_set_previous(b, first);
    b->unbounded = 1;
    CHECK_EQ(placer_builder_build(b, 2, &old), 0);
    CHECK_EQ(placer_builder_rebased(b, NULL), 0);
    b->unbounded = 0;
    CHECK_EQ(placer_builder_build(b, 2, &now), 0);
    double moved = -1;
    int rebased = placer_builder_rebased(b, &moved);
    uint64_t before = old ? most_steps(old, 16) : 0, after = now ? most_steps(now, 100000) : 0;
    printf("decode_budget: %s: %llu steps at most over 16 lookups as a build without the bound "
           "left it; re-based %d (%.4f of the keys moved), then %llu at most over 100,000\n",
           what, (unsigned long long)before, rebased, moved, (unsigned long long)after);
    CHECK(after <= PLACER_MAX_WALK);
    if (!over) { /* anchor: its K chains stay short, its draws grow as ln(n / w) */
        CHECK(before <= PLACER_MAX_WALK);
        CHECK_EQ(rebased, 0);
        CHECK_ALL(!refused_over_bound(old, what, 0), "within the bound: decoded");
        placer_builder_free(b);
        placer_snapshot_free(first);
        placer_snapshot_free(old);
        placer_snapshot_free(now);
        return;
    }
    CHECK(before > PLACER_MAX_WALK);
    CHECK_EQ(rebased, 1);
    CHECK(moved > 0.99 && moved <= 1); /* one node left of many: nearly every key moves */
    CHECK_ALL(refused_over_bound(old, what, 0), "the decoder refuses it, naming the bound");
    if (strategy == PLACER_MEMENTO)
        CHECK_ALL(refused_over_bound(old, "  its history shuffled", 1), "shuffled: refused too");
    CHECK_ALL(!refused_over_bound(now, "  re-based", 0), "the re-based one decodes");
    placer_builder_free(b);
    placer_snapshot_free(first);
    placer_snapshot_free(old);
    placer_snapshot_free(now);
}

/* Within the bound nothing changes: every third node of 65,536 leaving
 * is no re-base, and its steps stay under the bound. */
static void walk_bound_kept(void)
{
    placer_builder *b = numbered(PLACER_MEMENTO, 65536, -1, 0);
    placer_snapshot *first = NULL, *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &first), 0);
    placer_builder_free(b);
    b = placer_builder_new();
    placer_builder_set_strategy(b, PLACER_MEMENTO);
    for (uint32_t i = 0; i < 65536; i++)
        if (i % 3) {
            char id[32];
            snprintf(id, sizeof id, "n%u", i);
            placer_builder_add_node(b, id, NULL, 1);
        }
    placer_builder_set_previous(b, first);
    CHECK_EQ(placer_builder_build(b, 2, &s), 0);
    CHECK_EQ(placer_builder_rebased(b, NULL), 0);
    uint64_t most = s ? most_steps(s, 100000) : 0;
    printf("decode_budget: memento, a third of 65,536 nodes gone: not re-based, %llu steps at "
           "most over 100,000 lookups\n", (unsigned long long)most);
    CHECK(most <= PLACER_MAX_WALK);
    placer_builder_free(b);
    placer_snapshot_free(first);
    placer_snapshot_free(s);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : NULL;
    shrink = dir ? 16 : 1;
    placer_builder *b = nodes(2000 / shrink, 1, 0);
    placer_builder_set_token_allocation(b, PLACER_TOKENS_BALANCED);
    placer_builder_set_vnodes(b, 16);
    placer_builder_set_replicas(b, 3);
    heavy(b, "ring-balanced", dir);
    placer_builder_free(b);

    b = nodes(2000 / shrink, 1, 0); /* random tokens */
    placer_builder_set_vnodes(b, 16);
    placer_builder_set_replicas(b, 3);
    heavy(b, "ring", dir);
    placer_builder_free(b);

    /* NetworkTopologyStrategy where racks hold one token of many: a walk of
     * tokens per set would cost O(T) a set */
    b = placer_builder_new();
    placer_builder_set_key_hash(b, PLACER_HASH_CASSANDRA_MURMUR3);
    placer_builder_set_datacenter_replication(b, "dc1", 3);
    placer_builder_set_datacenter_replication(b, "dc2", 2);
    static const struct { const char *id, *rack, *dc; uint32_t tokens; } skew[] = {
        {"a", "r0", "dc1", 24000}, {"b", "r1", "dc1", 1}, {"c", "r2", "dc1", 1},
        {"d", "r0", "dc2", 4000}, {"e", "r1", "dc2", 1}};
    for (uint32_t i = 0; i < 5; i++) {
        placer_builder_add_node(b, skew[i].id, skew[i].rack, 1);
        placer_builder_set_datacenter(b, i, skew[i].dc);
        for (uint32_t v = 0; v < (skew[i].tokens + shrink - 1) / shrink; v++)
            placer_builder_add_token(b, i, check_rand(&st));
    }
    heavy(b, "ring-nts-skewed-racks", dir);
    placer_builder_free(b);

    b = nodes(2000 / shrink, 1, 0);
    placer_builder_set_vnodes(b, 32);
    static const unsigned char secret[16] = "0123456789abcdef";
    placer_builder_set_secret(b, secret);
    heavy(b, "ring-keyed", dir);
    placer_builder_free(b);

    if (!dir) {
        walk_bound(PLACER_MEMENTO, 65536, 0, 0, "memento, 65,536 nodes down to the last bucket's", 1);
        walk_bound(PLACER_MEMENTO, 1 << 20, (1 << 20) - 1, 0, "memento, 2^20 buckets, one working", 1);
        walk_bound(PLACER_DX, 65536, 0, 0, "dx, 65,536 nodes down to the last bucket's", 1);
        walk_bound(PLACER_ANCHOR, 65536, 0, 1 << 20, "anchor, capacity 2^20, 65,536 nodes down to one", 0);
        walk_bound_kept();
    }
    many_nodes(PLACER_JUMP, 20000, 1, "jump", dir);
    many_nodes(PLACER_JUMP, 2000, 0, "jump-weighted", dir);
    many_nodes(PLACER_RENDEZVOUS, 24000, 0, "rendezvous", dir);
    many_nodes(PLACER_JUMPBACK, 20000, 1, "jumpback", dir);
    many_nodes(PLACER_BINOMIAL, 20000, 1, "binomial", dir);

    b = nodes(64, 1, 0);
    placer_builder_set_strategy(b, PLACER_MAGLEV);
    placer_builder_set_partitions(b, dir ? 14983 : 239999); /* primes */
    heavy(b, "maglev", dir);
    placer_builder_free(b);

    b = nodes(500 / shrink, 1, 0);
    placer_builder_set_strategy(b, PLACER_PARTITIONS);
    placer_builder_set_partitions(b, 65536 / shrink);
    placer_builder_set_replicas(b, 3);
    heavy(b, "partitions", dir);
    placer_builder_free(b);

    bucket_history(PLACER_MEMENTO, "memento-history", dir);
    bucket_history(PLACER_ANCHOR, "anchor-history", dir);
    bucket_history(PLACER_DX, "dx-history", dir);

    compat(PLACER_COMPAT_HAPROXY, "map-based", NULL, 2000, 0, "haproxy-map", dir);
    compat(PLACER_COMPAT_HAPROXY, "consistent", NULL, 500, 7, "haproxy-consistent", dir);
    compat(PLACER_COMPAT_NGINX, "consistent", NULL, 360, 2, "nginx-consistent", dir);
    compat(PLACER_COMPAT_LIBMEMCACHED, "ketama_weighted", NULL, 700, 1, "libmemcached-ketama", dir);
    compat(PLACER_COMPAT_TWEMPROXY, "ketama", NULL, 700, 1, "twemproxy-ketama", dir);
    compat(PLACER_COMPAT_LIBMEMCACHED, "ketama", "fnv1a_32", 1100, 1, "libmemcached-ketama-fnv", dir);
    compat(PLACER_COMPAT_TWEMPROXY, "modula", "murmur", 2000, 0, "twemproxy-modula", dir);
    compat(PLACER_COMPAT_NGINX, "hash", NULL, 2000, 0, "nginx-hash", dir);
    compat(PLACER_COMPAT_REDIS, NULL, NULL, 15000, 1, "redis", dir);
    printf("decode_budget: worst %.3f s of CPU per MiB (budget %.0f)\n", worst_per_mib, SLOWDOWN);
    return check_done("decode_budget");
}
