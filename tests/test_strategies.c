/*
 * test_strategies.c -- jump, Maglev and rendezvous behind the one API, each
 * against its published property and a plain reference; and every
 * strategy through the shared calls (batch == single, hash == key,
 * handoff, live, replicas, diff, moved fraction, router).
 */
#define PLACER_STATIC_LINKING_ONLY
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isa.h"
#include "kernels.h"
#include "placer.h"
#include "reference.h"

static placer_builder *make(int strategy, uint32_t nodes, uint32_t zones, int weighted)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    for (uint32_t i = 0; i < nodes; i++) {
        char id[32], zone[16];
        snprintf(id, sizeof id, "node-%03u", i);
        snprintf(zone, sizeof zone, "z%u", zones ? i % zones : 0);
        placer_builder_add_node(b, id, zones ? zone : NULL, weighted ? 1.0 + i % 4 : 1.0);
    }
    return b;
}

static placer_snapshot *build(placer_builder *b, uint64_t epoch)
{
    placer_snapshot *s = NULL;
    int err = placer_builder_build(b, epoch, &s);
    if (err)
        fprintf(stderr, "build: %s\n", placer_strerror(err));
    return s;
}

/* ---- jump -------------------------------------------------------------- */

static void test_jump(void)
{
    placer_builder *b = make(PLACER_JUMP, 120, 0, 0);
    placer_snapshot *s = build(b, 1);
    CHECK_EQ(placer_token_count(s), 120);
    uint32_t table[128];
    for (uint32_t i = 0; i < 120; i++) {
        uint64_t t;
        placer_token_at(s, i, &t, &table[i]);
    }
    /* buckets in id order: node-000 has bucket 0 ... */
    CHECK(strcmp(placer_node_id(s, table[7]), "node-007") == 0);
    uint64_t r = 1;
    int ok = 1;
    for (int i = 0; i < 100000; i++) {
        uint64_t h = check_rand(&r);
        ok &= placer_lookup_hash(s, h) == (int)table[placer_jump_hash(h, 120)];
    }
    CHECK_ALL(ok, "jump: owner = table[placer_jump_hash(h, buckets)]");

    /* Growth 120 -> 121: about 1/121 moves, all to the new node. */
    placer_builder_add_node(b, "node-120", NULL, 1.0);
    placer_snapshot *grown = build(b, 2);
    double f = 0;
    CHECK_EQ(placer_moved_fraction(s, grown, 1000000, &f), 0);
    printf("jump 120 -> 121 nodes: %.5f moved (1/121 = %.5f)\n", f, 1.0 / 121);
    CHECK(fabs(f - 1.0 / 121) < 0.001);
    ok = 1;
    r = 2;
    for (int i = 0; i < 100000; i++) {
        uint64_t h = check_rand(&r);
        int a = placer_lookup_hash(s, h), c = placer_lookup_hash(grown, h);
        ok &= a == c || c == 120;
    }
    CHECK_ALL(ok, "jump growth: every moved key goes to the new node");

    /* A node in the middle drains: its bucket is taken by the last bucket's
     * node; nobody else is renumbered; about 2/n moves. */
    placer_builder_set_state(b, 50, PLACER_NODE_DRAINING);
    placer_snapshot *drain = build(b, 3);
    CHECK_EQ(placer_snapshot_in_transition(drain), 1);
    uint32_t moved = 0, others = 0;
    r = 3;
    for (int i = 0; i < 200000; i++) {
        char key[24];
        int kl = snprintf(key, sizeof key, "key-%d", i);
        uint32_t o, n;
        placer_lookup_handoff(drain, key, (size_t)kl, &o, &n);
        moved += o != n;
        others += o != n && o != 50 && o != 120; /* 120 held the last bucket */
    }
    printf("jump drain of a middle node (121 nodes): %.4f moved (2/121 = %.4f)\n",
           moved / 200000.0, 2.0 / 121);
    CHECK_EQ(others, 0);
    CHECK(fabs(moved / 200000.0 - 2.0 / 121) < 0.004);
    CHECK_EQ(placer_diff_transition(drain, &(placer_move *){NULL}, &(size_t){0}), PLACER_ENOTSUP);

    /* Explicit buckets: two nodes claiming one bucket is refused. */
    placer_builder *x = make(PLACER_JUMP, 3, 0, 0);
    placer_builder_add_token(x, 0, 1);
    placer_builder_add_token(x, 1, 1);
    placer_snapshot *bad = NULL;
    CHECK_EQ(placer_builder_build(x, 1, &bad), PLACER_EINVAL);
    placer_builder_free(x);
    /* Explicit buckets with a hole (a node left): closed from the top. */
    x = make(PLACER_JUMP, 3, 0, 0);
    placer_builder_add_token(x, 0, 0);
    placer_builder_add_token(x, 1, 3);
    placer_builder_add_token(x, 2, 1);
    placer_snapshot *holes = build(x, 1);
    CHECK_EQ(placer_token_count(holes), 3); /* buckets 0, 1, and 3 moved into 2 */
    uint64_t t;
    uint32_t o;
    placer_token_at(holes, 2, &t, &o);
    CHECK_EQ(o, 1);
    placer_snapshot_free(holes);
    placer_builder_free(x);

    placer_snapshot_free(s);
    placer_snapshot_free(grown);
    placer_snapshot_free(drain);
    placer_builder_free(b);
}

/* ---- Maglev ------------------------------------------------------------ */

static void test_maglev(void)
{
    placer_builder *b = make(PLACER_MAGLEV, 120, 0, 0);
    placer_snapshot *s = build(b, 1);
    CHECK_EQ(placer_token_count(s), PLACER_DEFAULT_MAGLEV_SIZE);
    double even = (double)PLACER_DEFAULT_MAGLEV_SIZE / 120, worst = 0;
    for (uint32_t i = 0; i < 120; i++) {
        double dev = fabs(placer_node_tokens(s, i) - even) / even;
        worst = dev > worst ? dev : worst;
    }
    printf("maglev M=65537, 120 nodes: entries per node within %.3f%% of even\n", worst * 100);
    CHECK(worst < 0.01);
    /* One table read: owner of h = entry floor(h * M / 2^64). */
    uint64_t r = 5;
    int ok = 1;
    for (int i = 0; i < 100000; i++) {
        uint64_t h = check_rand(&r), tok;
        uint32_t slot = (uint32_t)(((unsigned __int128)h * PLACER_DEFAULT_MAGLEV_SIZE) >> 64), o;
        placer_token_at(s, slot, &tok, &o);
        ok &= placer_lookup_hash(s, h) == (int)o && h <= tok;
    }
    CHECK_ALL(ok, "maglev: owner = table[floor(h * M / 2^64)]");

    /* Disruption of one removal, reported: the removed node's entries must
     * move; Maglev moves a few more (the paper's trade for balance). */
    placer_builder_set_state(b, 17, PLACER_NODE_DRAINING);
    placer_snapshot *drain = build(b, 2);
    placer_move *m = NULL;
    size_t n = 0;
    CHECK_EQ(placer_diff_transition(drain, &m, &n), 0);
    double f = placer_moves_coverage(m, n), own = placer_node_tokens(drain, 17) /
                                                   (double)PLACER_DEFAULT_MAGLEV_SIZE;
    printf("maglev removal of 1 of 120 nodes: %.5f of keys move (its own share %.5f, %.2fx)\n",
           f, own, f / own);
    CHECK(f >= own - 1e-9 && f < 3 * own);
    placer_moves_free(m);

    /* Weighted: entries follow weights 1:2:3:4 within 1%. */
    placer_builder *w = make(PLACER_MAGLEV, 8, 0, 1);
    placer_snapshot *ws = build(w, 1);
    double W = 0;
    for (uint32_t i = 0; i < 8; i++)
        W += placer_node_weight(ws, i);
    ok = 1;
    for (uint32_t i = 0; i < 8; i++) {
        double want = PLACER_DEFAULT_MAGLEV_SIZE * placer_node_weight(ws, i) / W;
        ok &= fabs(placer_node_tokens(ws, i) - want) / want < 0.01;
    }
    CHECK_ALL(ok, "weighted maglev: entries within 1% of each weight's share");

    /* Size: a prime is required. */
    placer_builder_set_partitions(w, 65536);
    placer_snapshot *bad = NULL;
    CHECK_EQ(placer_builder_build(w, 1, &bad), PLACER_EINVAL);
    placer_builder_set_partitions(w, 251);
    placer_snapshot *small = build(w, 1);
    CHECK_EQ(placer_token_count(small), 251);
    placer_snapshot_free(small);

    placer_snapshot_free(ws);
    placer_builder_free(w);
    placer_snapshot_free(s);
    placer_snapshot_free(drain);
    placer_builder_free(b);
}

/* ---- rendezvous -------------------------------------------------------- */

/* Shares of 1,000,000 hashes over a weighted rendezvous membership: the
 * worst relative deviation from the weights, and the worst z-score. */
static void hrw_shares(const double *w, uint32_t n, double *worst, double *worst_z)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, PLACER_RENDEZVOUS);
    double W = 0;
    for (uint32_t i = 0; i < n; i++) {
        char id[16];
        snprintf(id, sizeof id, "node-%u", i);
        placer_builder_add_node(b, id, NULL, w[i]);
        W += w[i];
    }
    placer_snapshot *s = build(b, 1);
    uint32_t count[16] = {0};
    uint64_t r = 9;
    for (int i = 0; i < 1000000; i++)
        count[placer_lookup_hash(s, check_rand(&r))]++;
    *worst = *worst_z = 0;
    for (uint32_t i = 0; i < n; i++) {
        double p = w[i] / W, dev = fabs(count[i] - 1e6 * p);
        *worst = fmax(*worst, dev / (1e6 * p));
        *worst_z = fmax(*worst_z, dev / sqrt(1e6 * p * (1 - p)));
    }
    placer_snapshot_free(s);
    placer_builder_free(b);
}

/* At one CPU level: the rendezvous kernel it dispatches gives the same bits
 * as the scalar reference for every candidate count 1 .. 40 (tails) and
 * random seeds/weights; weight classes (120 nodes, weights 1..4: 4 classes
 * of 30) and every ranking mode give owners by the formula, and the same
 * owners as the portable kernels (CPU features hidden). */
static void hrw_level(void *ctx, const cpu_level *level)
{
    uint64_t *r = ctx;
    const plc_kernels *k = plc_kernels_get();
    uint64_t seeds[40];
    double inv[40], a[40], c[40];
    int ok = 1;
    for (uint32_t n = 1; n <= 40; n++)
        for (int trial = 0; trial < 200; trial++) {
            for (uint32_t i = 0; i < n; i++) {
                seeds[i] = check_rand(r);
                inv[i] = 1.0 / (0.1 + (double)(check_rand(r) % 1000) / 10);
            }
            uint64_t h = check_rand(r);
            k->hrw_scores(seeds, inv, n, h, a);
            plc_hrw_scores_scalar(seeds, inv, n, h, c);
            ok &= memcmp(a, c, n * sizeof *a) == 0;
            ok &= k->hrw_best(seeds, inv, n, h) == plc_hrw_best_scalar(seeds, inv, n, h);
            k->hrw_scores_uniform(seeds, inv, n, h, a);
            plc_hrw_scores_uniform_scalar(seeds, inv, n, h, c);
            ok &= memcmp(a, c, n * sizeof *a) == 0;
            ok &= k->hrw_best_uniform(seeds, inv, n, h) ==
                  plc_hrw_best_uniform_scalar(seeds, inv, n, h);
        }
    CHECK_ALL(ok, k->hrw_name);
    /* Ties go to the lowest index in both. */
    for (uint32_t i = 0; i < 40; i++) {
        seeds[i] = 77;
        inv[i] = 1.0;
    }
    CHECK_EQ(k->hrw_best(seeds, inv, 40, 5), 0);
    CHECK_EQ(k->hrw_best_uniform(seeds, inv, 40, 5), 0);

    static const uint32_t sizes[] = {120, 120, 13, 1000};
    static const int weighted[] = {1, 0, 1, 2};
    for (size_t m = 0; m < sizeof sizes / sizeof sizes[0]; m++) {
        placer_builder *wb = placer_builder_new();
        placer_builder_set_strategy(wb, PLACER_RENDEZVOUS);
        for (uint32_t i = 0; i < sizes[m]; i++) {
            char id[16];
            snprintf(id, sizeof id, "n%u", i);
            /* mode 2: 13 nodes, too few for classes; mode 3: 1000 distinct weights */
            double w = weighted[m] == 2 ? 1.0 + i * 0.001 : weighted[m] ? 1.0 + i % 4 : 1.0;
            placer_builder_add_node(wb, id, NULL, w);
        }
        placer_snapshot *chosen = build(wb, 1);
        placer_set_cpu_mask(0);
        placer_snapshot *scalar = build(wb, 1);
        placer_set_cpu_mask(level->mask);
        int same = 1, formula = 1;
        for (int i = 0; i < 20000; i++) {
            uint64_t h = check_rand(r);
            int o = placer_lookup_hash(chosen, h);
            same &= o == placer_lookup_hash(scalar, h);
            if (i < 5000 || sizes[m] < 1000)
                formula &= (uint32_t)o == ref_rendezvous_owner(chosen, h);
            uint32_t set[3];
            same &= placer_replicas(chosen, "k", 1, set, 3) == 3 &&
                    set[0] == (uint32_t)placer_lookup(chosen, "k", 1);
        }
        CHECK_ALL(same, "rendezvous: scalar kernels == chosen kernels, replicas[0] == owner");
        CHECK_ALL(formula, "rendezvous: owners by -w/ln(u) in every ranking mode");
        placer_snapshot_free(chosen);
        placer_snapshot_free(scalar);
        placer_builder_free(wb);
    }

}

static void test_rendezvous(void)
{
    placer_builder *b = make(PLACER_RENDEZVOUS, 10, 0, 1);
    placer_snapshot *s = build(b, 1);
    double W = 0;
    for (uint32_t i = 0; i < 10; i++)
        W += placer_node_weight(s, i);
    uint64_t r = 9;
    int ok = 1;
    for (int i = 0; i < 100000; i++) {
        uint64_t h = check_rand(&r);
        ok &= (uint32_t)placer_lookup_hash(s, h) == ref_rendezvous_owner(s, h);
    }
    CHECK_ALL(ok, "rendezvous: 100,000 owners equal to -w/ln(u) with libm's log");
    /* Seed 003's weighting 1:2:4: shares within 1% of 1/7, 2/7, 4/7. */
    double worst, z;
    hrw_shares((const double[]){1, 2, 4}, 3, &worst, &z);
    printf("rendezvous 1:2:4 over 1,000,000 keys: shares within %.3f%% of the weights\n",
           worst * 100);
    CHECK(worst < 0.01);
    /* Ten nodes, weights 1..4: smaller shares carry more sampling noise
     * (about 0.5% for a share of 1/23), so check the deviation against
     * the binomial's spread instead: every node within 4.5 sigma. */
    hrw_shares((const double[]){1, 2, 3, 4, 1, 2, 3, 4, 1, 2}, 10, &worst, &z);
    printf("rendezvous weights 1..4 on 10 nodes: within %.3f%% (%.2f sigma)\n", worst * 100, z);
    CHECK(z < 4.5);

    for_each_cpu_level(hrw_level, &r);

    /* Equal weights take the logarithm-free kernels: still the formula. */
    placer_builder *u = make(PLACER_RENDEZVOUS, 120, 0, 0);
    placer_snapshot *us = build(u, 1);
    ok = 1;
    for (int i = 0; i < 20000; i++) {
        uint64_t h = check_rand(&r);
        ok &= (uint32_t)placer_lookup_hash(us, h) == ref_rendezvous_owner(us, h);
    }
    CHECK_ALL(ok, "rendezvous, equal weights: owners equal to -w/ln(u) with libm's log");
    placer_snapshot_free(us);
    placer_builder_free(u);
    printf("rendezvous kernel: %s\n", placer_kernel_name(PLACER_KERNEL_RENDEZVOUS));

    /* Growth: about w_new / W' moves, all to the new node. */
    placer_builder_add_node(b, "node-new", NULL, 2.0);
    placer_snapshot *grown = build(b, 2);
    double f;
    CHECK_EQ(placer_moved_fraction(s, grown, 1000000, &f), 0);
    printf("rendezvous join (weight 2 of %.0f): %.5f moved (ideal %.5f)\n", W + 2, f, 2 / (W + 2));
    CHECK(fabs(f - 2 / (W + 2)) < 0.003);
    placer_snapshot_free(grown);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

/* ---- every strategy through the shared calls ---------------------------- */

static const int all[] = {PLACER_RING, PLACER_PARTITIONS, PLACER_JUMP, PLACER_RENDEZVOUS,
                          PLACER_MAGLEV};

static void test_shared_calls(void)
{
    enum { N = 3000 };
    static char keybuf[N][24];
    const void *keys[N];
    size_t lens[N];
    for (int i = 0; i < N; i++) {
        lens[i] = (size_t)snprintf(keybuf[i], sizeof keybuf[i], "object-%d", i * 7919);
        keys[i] = keybuf[i];
    }
    for (size_t si = 0; si < sizeof all / sizeof all[0]; si++) {
        const char *name = placer_strategy_name(all[si]);
        placer_builder *b = make(all[si], 12, 3, 1);
        placer_builder_set_seed(b, 99);
        placer_snapshot *s = build(b, 1);
        CHECK_EQ(placer_snapshot_strategy(s), all[si]);
        uint32_t owners[N], counts[N], sets[N * 3];
        uint64_t hashes[N];
        CHECK_EQ(placer_lookup_batch(s, keys, lens, N, owners), 0);
        CHECK_EQ(placer_replicas_batch(s, keys, lens, N, 3, sets, counts), 0);
        for (int i = 0; i < N; i++)
            hashes[i] = placer_snapshot_hash(s, keys[i], lens[i]);
        uint32_t from_hash[N];
        CHECK_EQ(placer_lookup_hash_batch(s, hashes, N, from_hash), 0);
        int ok = 1, rep_ok = 1;
        for (int i = 0; i < N; i++) {
            int o = placer_lookup(s, keys[i], lens[i]);
            ok &= o >= 0 && owners[i] == (uint32_t)o && from_hash[i] == (uint32_t)o &&
                  placer_lookup_hash(s, hashes[i]) == o;
            uint32_t now, next;
            ok &= placer_lookup_handoff(s, keys[i], lens[i], &now, &next) == 0 &&
                  now == (uint32_t)o && next == now;
            /* replicas: owner first, distinct nodes, distinct zones (3 zones) */
            placer_replica_report rep = {.size = sizeof rep};
            uint32_t set[3];
            int k = placer_replicas_ex(s, keys[i], lens[i], set, 3, &rep);
            rep_ok &= k == 3 && set[0] == (uint32_t)o && !rep.under_replicated &&
                      rep.zones == 3 && counts[i] == 3 && memcmp(set, sets + 3 * i, sizeof set) == 0;
            for (int x = 0; x < k; x++)
                for (int y = 0; y < x; y++)
                    rep_ok &= set[x] != set[y] &&
                              strcmp(placer_node_zone(s, set[x]), placer_node_zone(s, set[y])) != 0;
        }
        CHECK_ALL(ok, name);
        CHECK_ALL(rep_ok, name);
        if (!ok || !rep_ok)
            fprintf(stderr, "  ... strategy %s\n", name);

        /* A node joins: handoff names the next owner exactly where the
         * target placement differs; the live owner skips a down node. */
        placer_builder_add_node(b, "newcomer", "z1", 2.0);
        placer_builder_set_state(b, 12, PLACER_NODE_JOINING);
        placer_snapshot *join = build(b, 2);
        placer_builder_set_state(b, 12, PLACER_NODE_ACTIVE);
        placer_builder_set_previous(b, join);
        placer_snapshot *done = build(b, 3);
        int hand_ok = 1;
        uint32_t moved = 0;
        for (int i = 0; i < N; i++) {
            uint32_t now, next;
            placer_lookup_handoff(join, keys[i], lens[i], &now, &next);
            hand_ok &= now == owners[i] && next == (uint32_t)placer_lookup(done, keys[i], lens[i]);
            hand_ok &= now == next || next == 12 || all[si] == PLACER_JUMP ||
                       all[si] == PLACER_MAGLEV;
            moved += now != next;
        }
        CHECK_ALL(hand_ok, "handoff: owner now, owner after the join (as the next build says)");
        printf("%-10s join of 1 weighted node to 12: %.4f of keys move\n", name, moved / (double)N);

        placer_builder_set_state(b, owners[0], PLACER_NODE_DOWN);
        placer_snapshot *down = build(b, 4);
        int live = placer_lookup_live(down, keys[0], lens[0]);
        CHECK(live >= 0 && (uint32_t)live != owners[0]);
        CHECK_EQ(placer_node_state(down, owners[0]), PLACER_NODE_DOWN);

        /* diff: exact ranges for range strategies, consistent with the
         * sampled moved fraction; ENOTSUP for the others. */
        placer_move *m = NULL;
        size_t n = 0;
        int derr = placer_diff(s, done, &m, &n);
        double sampled;
        CHECK_EQ(placer_moved_fraction(s, done, 1u << 20, &sampled), 0);
        if (all[si] == PLACER_JUMP || all[si] == PLACER_RENDEZVOUS) {
            CHECK_EQ(derr, PLACER_ENOTSUP);
        } else {
            CHECK_EQ(derr, 0);
            double exact = placer_moves_coverage(m, n);
            CHECK(fabs(exact - sampled) < 0.002);
            int in_ok = 1;
            for (int i = 0; i < N; i++) {
                uint64_t h = placer_snapshot_hash(s, keys[i], lens[i]);
                int changed = strcmp(placer_node_id(s, (uint32_t)placer_lookup(s, keys[i], lens[i])),
                                     placer_node_id(done, (uint32_t)placer_lookup(done, keys[i], lens[i]))) != 0;
                int listed = 0;
                for (size_t j = 0; j < n; j++) {
                    const placer_move *mv = &m[j];
                    listed |= mv->lo < mv->hi ? (h > mv->lo && h <= mv->hi) : (h > mv->lo || h <= mv->hi);
                }
                in_ok &= changed == listed;
            }
            CHECK_ALL(in_ok, "diff: a key changes owner iff its position is in a listed range");
            placer_moves_free(m);
        }
        /* The router serves every strategy. */
        placer_router *r = placer_router_new(s);
        uint64_t epoch;
        CHECK_EQ(placer_router_lookup(r, keys[5], lens[5], &epoch), (int)owners[5]);
        CHECK_EQ(placer_router_publish(r, done), 0);
        CHECK_EQ(placer_router_epoch(r), 3);
        placer_router_free(r);
        placer_snapshot_free(join);
        placer_snapshot_free(down);
        placer_builder_free(b);
    }
}

/* Seeds and key hashes must match for ranges to mean anything; the
 * moved fraction is then measured by keys. */
static void test_diff_guards(void)
{
    placer_builder *b = make(PLACER_RING, 4, 0, 0);
    placer_snapshot *a = build(b, 1);
    placer_builder_set_seed(b, 7);
    placer_snapshot *c = build(b, 2);
    placer_move *m;
    size_t n;
    double f;
    CHECK_EQ(placer_diff(a, c, &m, &n), PLACER_EINVAL);
    /* by keys, as each seed hashes them: 4 equal nodes reseeded move ~3/4 */
    CHECK_EQ(placer_moved_fraction(a, c, 10000, &f), 0);
    CHECK(f > 0.6 && f < 0.9);
    CHECK_EQ(placer_moved_fraction(a, a, 0, &f), PLACER_EINVAL);
    CHECK_EQ(placer_moved_fraction(a, a, 100, &f), 0);
    CHECK(f == 0.0);
    /* ring vs partitions (same seed): both are ranges, so a diff exists. */
    placer_builder_set_seed(b, 0);
    placer_builder_set_strategy(b, PLACER_PARTITIONS);
    placer_snapshot *p = build(b, 3);
    CHECK_EQ(placer_diff(a, p, &m, &n), 0);
    double exact = placer_moves_coverage(m, n);
    CHECK_EQ(placer_moved_fraction(a, p, 1u << 20, &f), 0);
    CHECK(fabs(exact - f) < 0.002);
    placer_moves_free(m);
    placer_snapshot_free(a);
    placer_snapshot_free(c);
    placer_snapshot_free(p);
    placer_builder_free(b);
}

/* A transition that leaves nobody placed is refused by every strategy. */
static void test_nobody_placed(void)
{
    for (size_t si = 0; si < sizeof all / sizeof all[0]; si++) {
        placer_builder *b = make(all[si], 2, 0, 0);
        placer_builder_set_state(b, 0, PLACER_NODE_DRAINING);
        placer_builder_set_state(b, 1, PLACER_NODE_DRAINING);
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_ENONODES);
        placer_builder_set_state(b, 0, PLACER_NODE_JOINING);
        placer_builder_set_state(b, 1, PLACER_NODE_JOINING);
        CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_ENONODES);
        CHECK(s == NULL);
        placer_builder_free(b);
    }
}

int main(void)
{
    test_nobody_placed();
    test_jump();
    test_maglev();
    test_rendezvous();
    test_shared_calls();
    test_diff_guards();
    CHECK_EQ(placer_snapshots_alive(), 0);
    return check_done("strategies");
}
