/*
 * test_replicas.c -- replica sets against a plain reference walk over the
 * sorted tokens (zones compared by name), on random rings with random
 * zones and wants; the properties on the seed ring (120 nodes, 3 zones):
 * owner first, distinct nodes, distinct zones; under-replication reported,
 * never padded; batches; errors.
 */
#define PLACER_STATIC_LINKING_ONLY /* placer_set_cpu_mask */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isa.h"
#include "placer.h"
#include "reference.h"
#include "replica_test_kit.h"

/* The reference: the walk of placer.h's contract, written plainly
 * (tests/reference.c). */
static uint32_t ref_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want)
{
    return ref_ring_replicas(s, h, out, want);
}

static placer_snapshot *zoned_ring(int nodes, int zones, uint32_t vnodes)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, vnodes);
    char id[16], zone[16];
    for (int i = 0; i < nodes; i++) {
        snprintf(id, sizeof id, "node-%03d", i);
        snprintf(zone, sizeof zone, "zone-%02d", i % zones);
        placer_builder_add_node(b, id, zone, 1.0);
    }
    placer_snapshot *s = NULL;
    placer_builder_build(b, 1, &s);
    placer_builder_free(b);
    return s;
}

static void against_reference(void)
{
    uint64_t rng = 4242;
    long bad = 0;
    for (int trial = 0; trial < 200; trial++) {
        int nodes = 1 + (int)(check_rand(&rng) % 12), zones = 1 + (int)(check_rand(&rng) % 5);
        if (trial % 4 == 3) { /* around the walk's 64-zone bit mask: 60..69 zone names */
            zones = 60 + (int)(check_rand(&rng) % 10);
            nodes = zones - 5 + (int)(check_rand(&rng) % 40);
        }
        placer_snapshot *s = zoned_ring(nodes, zones, 1 + (uint32_t)(check_rand(&rng) % 8));
        for (int q = 0; q < 50; q++) {
            char key[24];
            int len = snprintf(key, sizeof key, "k%d", q * 977 + trial);
            uint32_t want = (uint32_t)(check_rand(&rng) % 16), got[16], ref[16];
            int n = placer_replicas(s, key, (size_t)len, got, want);
            uint32_t rn = ref_replicas(s, placer_snapshot_hash(s, key, (size_t)len), ref, want);
            bad += n != (int)rn || memcmp(got, ref, rn * sizeof *got) != 0;
        }
        placer_snapshot_free(s);
    }
    CHECK_ALL(bad == 0, "replicas == reference walk on 200 random rings");
}

/* Rings of 64 tokens and more have the line table, whose keys the ring's
 * own path answers (slot from the line, then the walk or the precomputed
 * set; the batch in prefetching stages): every call, single, _ex, _hash
 * and batched, against the reference, walked and precomputed. */
static void lines_against_reference(void)
{
    uint64_t rng = 777;
    long bad = 0, sets_checked = 0;
    enum { K = 150, WMAX = 12 };
    static char kb[K][16];
    static uint32_t sets[K * WMAX], counts[K];
    const void *keys[K];
    size_t lens[K];
    for (int q = 0; q < K; q++) {
        lens[q] = (size_t)snprintf(kb[q], sizeof kb[q], "line%d", q);
        keys[q] = kb[q];
    }
    for (int trial = 0; trial < 24; trial++) {
        int nodes = 8 + (int)(check_rand(&rng) % 120), zones = 1 + (int)(check_rand(&rng) % 6);
        if (trial % 4 == 3)
            zones = 60 + (int)(check_rand(&rng) % 10);
        uint32_t vnodes = 8 + (uint32_t)(check_rand(&rng) % 40);
        uint32_t r = trial % 2 ? 1 + (uint32_t)(check_rand(&rng) % 5) : 0;
        placer_builder *b = placer_builder_new();
        placer_builder_set_vnodes(b, vnodes);
        placer_builder_set_replicas(b, r);
        char id[16], zone[16];
        for (int i = 0; i < nodes; i++) {
            snprintf(id, sizeof id, "node-%03d", i);
            snprintf(zone, sizeof zone, "zone-%02d", i % zones);
            placer_builder_add_node(b, id, zone, 1.0 + (i % 3));
        }
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        placer_builder_free(b);
        bad += strcmp(placer_snapshot_layout_name(s), "buckets") != 0; /* the path under test */
        /* sets of 2 or more get 16 bytes of line sets a line (1-4 bytes a
         * token), sets of 4 and 5 of up to 255 nodes a line of wide
         * entries, all counted with the per-slot sets */
        size_t nt = placer_token_count(s), bytes = placer_snapshot_replica_bytes(s);
        size_t lines_max = r >= 4 ? 20 * nt : 4 * nt;
        bad += r >= 2 ? bytes <= nt * r * 4 || bytes > nt * r * 4 + lines_max : bytes != nt * r * 4;
        for (uint32_t want = 1; want < WMAX; want += 1 + (uint32_t)(check_rand(&rng) % 3)) {
            CHECK_EQ(placer_replicas_batch(s, keys, lens, K, want, sets, counts), 0);
            for (int q = 0; q < K; q++) {
                uint32_t got[WMAX], ref[WMAX], ex[WMAX], byh[WMAX];
                uint64_t h = placer_snapshot_hash(s, keys[q], lens[q]);
                uint32_t rn = ref_replicas(s, h, ref, want);
                placer_replica_report rep = {.size = sizeof rep};
                int n = placer_replicas(s, keys[q], lens[q], got, want);
                int ne = placer_replicas_ex(s, keys[q], lens[q], ex, want, &rep);
                int nh = placer_replicas_hash(s, h, byh, want, NULL);
                bad += n != (int)rn || ne != (int)rn || nh != (int)rn || counts[q] != rn;
                bad += rep.nodes != rn;
                for (uint32_t i = 0; i < rn && i < (uint32_t)n; i++)
                    bad += got[i] != ref[i] || ex[i] != ref[i] || byh[i] != ref[i] ||
                           sets[(size_t)q * want + i] != ref[i];
                sets_checked++;
            }
        }
        /* positions at, just below and just after tokens: ties on the
         * line's 16 bits, which the line cannot decide */
        uint32_t nt32 = placer_token_count(s);
        for (uint32_t t = 0; t < nt32; t += 1 + nt32 / 97) {
            uint64_t tok;
            uint32_t own, got[3], ref[3];
            placer_token_at(s, t, &tok, &own);
            for (int d = -1; d <= 1; d++) {
                uint64_t h = tok + (uint64_t)(int64_t)d;
                uint32_t rn = ref_replicas(s, h, ref, 3);
                int n = placer_replicas_hash(s, h, got, 3, NULL);
                bad += n != (int)rn || memcmp(got, ref, rn * sizeof *got) != 0;
            }
        }
        placer_snapshot_free(s);
    }
    CHECK(sets_checked > 1000);
    /* 300,000 keys batched on a ring with sets of 3: some tie with a token
     * on its line's 16 bits (about 1 in 10,000), which the batch's plain
     * rank cannot decide; every set equal to the single call's */
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, 256);
    placer_builder_set_replicas(b, 3);
    for (int i = 0; i < 120; i++) {
        char id[16], zone[16];
        snprintf(id, sizeof id, "node-%03d", i);
        snprintf(zone, sizeof zone, "zone-%d", i % 3);
        placer_builder_add_node(b, id, zone, 1.0);
    }
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    placer_builder_free(b);
    enum { M = 300000 };
    char *kbytes = malloc((size_t)M * 8);
    const void **kp = malloc(M * sizeof *kp);
    size_t *kl = malloc(M * sizeof *kl);
    uint32_t *bsets = malloc((size_t)M * 3 * sizeof *bsets), *bcounts = malloc(M * sizeof *bcounts);
    for (int q = 0; q < M; q++) {
        memcpy(kbytes + (size_t)q * 8, &q, sizeof q);
        memcpy(kbytes + (size_t)q * 8 + 4, "tie!", 4);
        kp[q] = kbytes + (size_t)q * 8;
        kl[q] = 8;
    }
    CHECK_EQ(placer_replicas_batch(s, kp, kl, M, 3, bsets, bcounts), 0);
    long mismatched = 0;
    for (int q = 0; q < M; q++) {
        uint32_t one[3];
        int n = placer_replicas(s, kp[q], 8, one, 3);
        mismatched += n != 3 || bcounts[q] != 3 || memcmp(one, bsets + (size_t)q * 3, sizeof one) != 0;
    }
    CHECK_ALL(mismatched == 0, "300,000 keys: batch == single, ties on the line included");
    free(kbytes);
    free(kp);
    free(kl);
    free(bsets);
    free(bcounts);
    placer_snapshot_free(s);
    CHECK_ALL(bad == 0, "line-table rings: replicas, _ex, _hash and batch == reference walk");
}

static void seed_ring_properties(void)
{
    placer_snapshot *s = zoned_ring(120, 3, 256);
    long bad = 0;
    for (int q = 0; q < 20000; q++) {
        char key[24];
        int len = snprintf(key, sizeof key, "user:%d", q);
        uint32_t out[5];
        placer_replica_report r = {.size = sizeof r};
        int n = placer_replicas_ex(s, key, (size_t)len, out, 3, &r);
        bad += n != 3 || out[0] != (uint32_t)placer_lookup(s, key, (size_t)len);
        bad += out[0] == out[1] || out[1] == out[2] || out[0] == out[2];
        const char *z0 = placer_node_zone(s, out[0]), *z1 = placer_node_zone(s, out[1]),
                   *z2 = placer_node_zone(s, out[2]);
        bad += !strcmp(z0, z1) || !strcmp(z1, z2) || !strcmp(z0, z2);
        bad += r.nodes != 3 || r.zones != 3 || r.zones_possible != 3 || r.under_replicated;
        /* five replicas: three zones first, then two more distinct nodes */
        n = placer_replicas_ex(s, key, (size_t)len, out, 5, &r);
        bad += n != 5 || r.zones != 3 || r.under_replicated;
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < i; j++)
                bad += out[i] == out[j];
    }
    CHECK_ALL(bad == 0, "seed ring: owner first, 3 distinct nodes in 3 distinct zones");
    placer_snapshot_free(s);
}

static void under_replication(void)
{
    placer_snapshot *two = zoned_ring(2, 2, 16), *one_zone = zoned_ring(4, 1, 16),
                    *two_zones = zoned_ring(3, 2, 16);
    uint32_t out[8] = {0};
    placer_replica_report r = {.size = sizeof r};
    CHECK_EQ(placer_replicas_ex(two, "k", 1, out, 3, &r), 2); /* never padded */
    CHECK(out[0] != out[1] && r.under_replicated && r.nodes == 2 && r.zones == 2);
    CHECK_EQ(placer_replicas_ex(one_zone, "k", 1, out, 3, &r), 3);
    CHECK(r.zones == 1 && r.zones_possible == 1 && !r.under_replicated);
    CHECK_EQ(placer_replicas_ex(two_zones, "k", 1, out, 3, &r), 3);
    CHECK(r.zones == 2 && r.zones_possible == 2 && !r.under_replicated);
    CHECK_EQ(placer_replicas(two, "k", 1, out, 0), 0);
    CHECK_EQ(placer_replicas(two, "k", 1, NULL, 3), PLACER_ENULL);
    CHECK_EQ(placer_replicas(NULL, "k", 1, out, 3), PLACER_ENULL);
    CHECK_EQ(placer_replicas(two, NULL, 1, out, 3), PLACER_ENULL);
    placer_snapshot_free(two);
    placer_snapshot_free(one_zone);
    placer_snapshot_free(two_zones);
}

static void batches(void)
{
    placer_snapshot *s = zoned_ring(30, 3, 32);
    enum { N = 200, W = 3 };
    static char buf[N][16];
    const void *keys[N];
    size_t lens[N];
    uint32_t out[N * W], counts[N], one[W];
    for (int i = 0; i < N; i++) {
        lens[i] = (size_t)snprintf(buf[i], sizeof buf[i], "b%d", i);
        keys[i] = buf[i];
    }
    CHECK_EQ(placer_replicas_batch(s, keys, lens, N, W, out, counts), 0);
    long bad = 0;
    for (int i = 0; i < N; i++) {
        int n = placer_replicas(s, keys[i], lens[i], one, W);
        bad += (int)counts[i] != n || memcmp(one, out + i * W, (size_t)n * sizeof *one) != 0;
    }
    CHECK_ALL(bad == 0, "replica batch == single calls");
    counts[0] = 77;
    keys[100] = NULL;
    CHECK_EQ(placer_replicas_batch(s, keys, lens, N, W, out, counts), PLACER_ENULL);
    CHECK_EQ(counts[0], 77); /* nothing written */
    CHECK_EQ(placer_replicas_batch(s, NULL, NULL, 0, W, NULL, NULL), 0);
    placer_snapshot_free(s);
}

/* Precomputed sets answer exactly as the walk, for every want. */
static void precomputed(void)
{
    uint64_t rng = 99;
    long bad = 0;
    for (int trial = 0; trial < 60; trial++) {
        int nodes = 1 + (int)(check_rand(&rng) % 10), zones = 1 + (int)(check_rand(&rng) % 4);
        uint32_t r = 1 + (uint32_t)(check_rand(&rng) % PLACER_MAX_REPLICAS);
        placer_builder *b = placer_builder_new();
        placer_builder_set_vnodes(b, 1 + (uint32_t)(check_rand(&rng) % 8));
        char id[16], zone[16];
        for (int i = 0; i < nodes; i++) {
            snprintf(id, sizeof id, "n%d", i);
            snprintf(zone, sizeof zone, "z%d", i % zones);
            placer_builder_add_node(b, id, zone, 1.0);
        }
        placer_snapshot *walked = NULL, *table = NULL;
        placer_builder_build(b, 1, &walked);
        CHECK_EQ(placer_builder_set_replicas(b, r), 0);
        placer_builder_build(b, 1, &table);
        CHECK_EQ(placer_snapshot_replica_bytes(table), (size_t)placer_token_count(table) * r * 4);
        CHECK_EQ(placer_snapshot_replica_bytes(walked), 0);
        for (int q = 0; q < 100; q++) {
            char key[16];
            int len = snprintf(key, sizeof key, "q%d", q);
            for (uint32_t want = 1; want <= r + 1; want++) {
                uint32_t a[16], c[16];
                placer_replica_report ra = {.size = sizeof ra}, rc = {.size = sizeof rc};
                int na = placer_replicas_ex(walked, key, (size_t)len, a, want, &ra);
                int nc = placer_replicas_ex(table, key, (size_t)len, c, want, &rc);
                bad += na != nc || memcmp(a, c, (size_t)na * sizeof *a) != 0 ||
                       memcmp(&ra, &rc, sizeof ra) != 0;
            }
        }
        /* the batch (chunks of 64 keys, precomputed sets prefetched) gives
         * each key's single set, for every want, from both snapshots */
        enum { K = 150 };
        static char kb[K][16];
        const void *keys[K];
        size_t lens[K];
        for (int q = 0; q < K; q++) {
            lens[q] = (size_t)snprintf(kb[q], sizeof kb[q], "q%d", q);
            keys[q] = kb[q];
        }
        for (uint32_t want = 0; want <= r + 1; want++) {
            static uint32_t sets[K * (PLACER_MAX_REPLICAS + 1)], counts[K];
            uint32_t one[PLACER_MAX_REPLICAS + 1];
            const placer_snapshot *both[2] = {walked, table};
            for (int w = 0; w < 2; w++) {
                CHECK_EQ(placer_replicas_batch(both[w], keys, lens, K, want, sets, counts), 0);
                for (int q = 0; q < K; q++) {
                    int n1 = placer_replicas(both[w], keys[q], lens[q], one, want);
                    bad += (int)counts[q] != n1 ||
                           memcmp(one, sets + (size_t)q * want, (size_t)n1 * sizeof *one) != 0;
                }
            }
        }
        placer_snapshot_free(walked);
        placer_snapshot_free(table);
        placer_builder_free(b);
    }
    CHECK_ALL(bad == 0, "precomputed replica sets == the walk, every want and report, batched");
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_set_replicas(b, PLACER_MAX_REPLICAS + 1), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_replicas(NULL, 3), PLACER_ENULL);
    placer_builder_free(b);
}

/* More zones than the walk keeps in its small array: still distinct. */
/* The walk's windows (simd/walk.h: the first lap from the key's line and
 * the next, else three leaf lines at a time) under every CPU level,
 * against the reference: rings of 1 to 8 zones and of 30 to 34 (around
 * the windows' 32), from 1 node to 300, a few tokens to thousands, node
 * states, wants past the zones and past the nodes; hashes at random, at
 * tokens and beside them (ties on the line), and at both ends of the ring
 * (the last line, the last leaves, the wrap); single, by hash, batched. */
typedef struct windows_ctx {
    long bad, checked;
} windows_ctx;

static void windows_level(void *ctx, const cpu_level *level)
{
    windows_ctx *c = ctx;
    uint64_t rng = 9001;
    enum { K = 32, WMAX = 10 };
    static unsigned char kb[K][32];
    static uint32_t sets[K * WMAX], counts[K];
    const void *keys[K];
    size_t lens[K];
    long bad = 0;
    for (int trial = 0; trial < 30; trial++) {
        uint32_t zones = 1 + (uint32_t)(check_rand(&rng) % 8);
        if (trial % 5 == 4)
            zones = 30 + (uint32_t)(check_rand(&rng) % 5);
        uint32_t nodes = 1 + (uint32_t)(check_rand(&rng) % (trial % 3 ? 60 : 300));
        uint32_t vnodes = 1 + (uint32_t)(check_rand(&rng) % (trial % 2 ? 8 : 64));
        placer_snapshot *s = replica_ring(&rng, nodes, vnodes, zones, 0, trial % 3 == 1);
        uint32_t nt = placer_token_count(s);
        for (int q = 0; q < K; q++) {
            for (int j = 0; j < 32; j += 8) {
                uint64_t v = check_rand(&rng);
                memcpy(kb[q] + j, &v, 8);
            }
            keys[q] = kb[q];
            lens[q] = 32;
        }
        for (uint32_t want = 1; want <= WMAX; want += want < 3 ? 1 : want - 1) { /* 1 2 3 5 9 */
            CHECK_EQ(placer_replicas_batch(s, keys, lens, K, want, sets, counts), 0);
            for (int q = 0; q < K; q++) {
                uint32_t got[WMAX], ref[WMAX];
                uint32_t rn = ref_replicas(s, placer_snapshot_hash(s, keys[q], 32), ref, want);
                int n = placer_replicas(s, keys[q], 32, got, want);
                bad += n != (int)rn || counts[q] != rn;
                for (uint32_t i = 0; i < rn && i < (uint32_t)n; i++)
                    bad += got[i] != ref[i] || sets[(size_t)q * want + i] != ref[i];
                c->checked++;
            }
            /* hashes: at random, at every few tokens and beside them, the
             * ring's two ends */
            for (uint32_t t = 0; t < nt; t += 1 + nt / 25) {
                uint64_t tok, hs[5];
                uint32_t own;
                placer_token_at(s, t, &tok, &own);
                hs[0] = tok;
                hs[1] = tok - 1;
                hs[2] = tok + 1;
                hs[3] = check_rand(&rng);
                hs[4] = t % 2 ? UINT64_MAX - (uint64_t)t : (uint64_t)t;
                for (int k = 0; k < 5; k++) {
                    uint32_t got[WMAX], ref[WMAX];
                    uint32_t rn = ref_replicas(s, hs[k], ref, want);
                    int n = placer_replicas_hash(s, hs[k], got, want, NULL);
                    bad += n != (int)rn || memcmp(got, ref, rn * sizeof *got) != 0;
                    c->checked++;
                }
            }
        }
        placer_snapshot_free(s);
    }
    if (bad)
        printf("windows: level %s: %ld sets differ from the reference\n", level->name, bad);
    c->bad += bad;
}

static void windows_against_reference(void)
{
    windows_ctx c = {0, 0};
    CHECK(for_each_cpu_level(windows_level, &c) >= 1);
    CHECK(c.checked > 20000);
    CHECK_ALL(c.bad == 0, "the walk's windows == reference walk, every CPU level");
}

static void many_zones(void)
{
    placer_snapshot *s = zoned_ring(100, 90, 4);
    uint32_t out[100];
    placer_replica_report r = {.size = sizeof r};
    int n = placer_replicas_ex(s, "many", 4, out, 80, &r);
    CHECK_EQ(n, 80);
    CHECK(r.zones == 80 && r.zones_possible == 80 && !r.under_replicated);
    int repeated = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            repeated += !strcmp(placer_node_zone(s, out[i]), placer_node_zone(s, out[j]));
    CHECK_EQ(repeated, 0);
    n = placer_replicas_ex(s, "many", 4, out, 100, &r); /* 90 zones, then 10 more nodes */
    CHECK(n == 100 && r.zones == 90 && !r.under_replicated);
    placer_snapshot_free(s);
}

int main(void)
{
    against_reference();
    lines_against_reference();
    windows_against_reference();
    seed_ring_properties();
    under_replication();
    batches();
    precomputed();
    many_zones();
    return check_done("test_replicas");
}
