/*
 * simulate.c -- the simulator (simulate.h): for each strategy and
 * tokens-per-node value, build the membership, place every key, and
 * measure the load by keys, bytes and QPS, the movement of a join, a drain
 * and a failure, replica sets, the snapshot's size and the lookup cost.
 *
 * Loads are compared with each node's weight share: a node's ratio is its
 * share of the load over its share of the weight, so max/mean is 1.0 for a
 * perfect placement whatever the weights. Keys are hashed once
 * (placer_hash64 under the membership's seed); every placement then works
 * on those positions, with the batched lookup where there is one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simulate.h"
#include "simulate_balance.h"

typedef struct sim {
    const plc_sim_config *cfg;
    const placer_builder *m;
    plc_keys keys;
    uint64_t *hash, *hash2; /* hash2: the keys under another seed (seed_runs) */
    uint32_t *owner, *owner2;
    double *acc; /* 3 * (nodes + 1): keys, bytes, qps per node */
    int seed_override; /* builder_for uses seed instead of the membership's */
    uint64_t seed;
} sim;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int is_prime(uint32_t n)
{
    if (n < 2)
        return 0;
    for (uint32_t d = 2; (uint64_t)d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

static placer_strategy_traits traits_of(int strategy)
{
    placer_strategy_traits t = {.size = sizeof t};
    placer_strategy_describe(strategy & ~PLC_SIM_BALANCED_FLAG, &t);
    return t;
}

/* Does the strategy take a tokens-per-node knob (vnodes, or a table size
 * of v per node)? */
static int has_knob(int strategy)
{
    return (traits_of(strategy).options & (PLACER_OPTION_VNODES | PLACER_OPTION_PARTITIONS)) != 0;
}

/* Maglev wants a prime table size. */
static uint32_t next_prime(uint32_t n)
{
    while (!is_prime(n))
        n++;
    return n;
}

/* A builder with the membership's nodes (all active) under one strategy
 * and tokens-per-node value; extra: add the joining node. */
static placer_builder *builder_for(const sim *S, int strategy, uint32_t v, int extra)
{
    const placer_builder *m = S->m;
    placer_builder *b = placer_builder_new();
    if (!b)
        return NULL;
    placer_strategy_traits t = traits_of(strategy);
    placer_builder_set_strategy(b, strategy & ~PLC_SIM_BALANCED_FLAG);
    if (strategy & PLC_SIM_BALANCED_FLAG)
        placer_builder_set_token_allocation(b, PLACER_TOKENS_BALANCED);
    placer_builder_set_seed(b, S->seed_override ? S->seed : placer_builder_seed(m));
    uint32_t N = placer_builder_node_count(m);
    double W = 0;
    for (uint32_t i = 0; i < N; i++)
        W += placer_builder_node_weight(m, i);
    if (t.options & PLACER_OPTION_VNODES) {
        /* v tokens per node of mean weight */
        placer_builder_set_vnodes(b, (uint32_t)fmax(1, round(v * N / W)));
    } else if (t.options & PLACER_OPTION_PARTITIONS) {
        /* v table rows per node, within the strategy's range */
        uint64_t p = (uint64_t)v * N;
        uint32_t rows = (uint32_t)(p < t.partitions.min ? t.partitions.min
                                   : p > t.partitions.max ? t.partitions.max : p);
        placer_builder_set_partitions(b, t.partitions.prime ? next_prime(rows) : rows);
        if (t.traits & PLACER_TRAIT_REPLICA_MAP) /* its replicas are part of the map */
            placer_builder_set_replicas(b, S->cfg->replicas);
    }
    for (uint32_t i = 0; i < N; i++)
        if (placer_builder_add_node(b, placer_builder_node_id(m, i), placer_builder_node_zone(m, i),
                                    placer_builder_node_weight(m, i)) < 0 ||
            placer_builder_set_datacenter(b, i, placer_builder_node_datacenter(m, i))) {
            placer_builder_free(b);
            return NULL;
        }
    if (extra && (placer_builder_add_node(b, "simulated-join", placer_builder_node_zone(m, 0), W / N) < 0 ||
                  placer_builder_set_datacenter(b, N, placer_builder_node_datacenter(m, 0)))) {
        placer_builder_free(b);
        return NULL;
    }
    return b;
}

static void owners_of(const placer_snapshot *s, const sim *S, uint32_t *out)
{
    placer_lookup_hash_batch(s, S->hash, S->keys.n, out);
}

/* Load statistics of one metric: per node sum / weight share. */
static plc_sim_load load_of(const double *sum, const placer_builder *m, double *worst_err)
{
    uint32_t N = placer_builder_node_count(m);
    double total = 0, W = 0;
    for (uint32_t i = 0; i < N; i++) {
        total += sum[i];
        W += placer_builder_node_weight(m, i);
    }
    double max = 0, min = INFINITY, s1 = 0, s2 = 0;
    for (uint32_t i = 0; i < N; i++) {
        double r = total > 0 ? (sum[i] / total) / (placer_builder_node_weight(m, i) / W) : 0;
        max = fmax(max, r);
        min = fmin(min, r);
        s1 += r;
        s2 += r * r;
        if (worst_err)
            *worst_err = fmax(*worst_err, fabs(r - 1));
    }
    double mean = s1 / N;
    return (plc_sim_load){max / mean, min / mean, sqrt(fmax(0, s2 / N - mean * mean)) / mean};
}

/* The row's max/mean by keys under cfg->seeds hash seeds: the
 * membership's (the row's own keys.max_mean) and seeds - 1 others, each
 * placement built and every key rehashed under it. */
static int seed_runs(sim *S, int strategy, uint32_t v, plc_sim_row *row)
{
    uint32_t k = S->cfg->seeds ? S->cfg->seeds : 1;
    uint32_t N = placer_builder_node_count(S->m);
    uint64_t n = S->keys.n, base = placer_builder_seed(S->m);
    double sum = row->keys.max_mean;
    row->seed_min = row->seed_max = row->keys.max_mean;
    int err = 0;
    for (uint32_t r = 1; r < k && !err; r++) {
        S->seed_override = 1;
        S->seed = base + r * UINT64_C(0x9E3779B97F4A7C15);
        placer_builder *b = builder_for(S, strategy, v, 0);
        S->seed_override = 0;
        placer_snapshot *s = NULL;
        err = b ? placer_builder_build(b, 1, &s) : PLACER_ENOMEM;
        placer_builder_free(b);
        if (err)
            break;
        for (uint64_t i = 0; i < n; i++)
            S->hash2[i] = placer_hash64(S->seed, S->keys.bytes + S->keys.offsets[i],
                                        (size_t)(S->keys.offsets[i + 1] - S->keys.offsets[i]));
        placer_lookup_hash_batch(s, S->hash2, n, S->owner2);
        placer_snapshot_free(s);
        memset(S->acc, 0, ((size_t)N + 1) * sizeof *S->acc);
        for (uint64_t i = 0; i < n; i++)
            S->acc[S->owner2[i]] += 1;
        double mm = load_of(S->acc, S->m, NULL).max_mean;
        sum += mm;
        row->seed_min = fmin(row->seed_min, mm);
        row->seed_max = fmax(row->seed_max, mm);
    }
    row->seeds = k;
    row->seed_mean = sum / k;
    return err;
}

static int run_one(sim *S, int strategy, uint32_t v, plc_sim_row *row)
{
    const placer_builder *m = S->m;
    uint64_t n = S->keys.n;
    uint32_t N = placer_builder_node_count(m);
    memset(row, 0, sizeof *row);
    row->strategy = strategy;
    row->vnodes = has_knob(strategy) ? v : 0;
    placer_builder *b = builder_for(S, strategy, v, 0);
    placer_snapshot *s0 = NULL, *s1 = NULL, *s2 = NULL, *s3 = NULL;
    int err = b ? placer_builder_build(b, 1, &s0) : PLACER_ENOMEM;
    if (err)
        goto out;
    row->units = placer_token_count(s0);
    void *enc;
    size_t enc_len;
    if (!placer_snapshot_encode(s0, &enc, &enc_len)) {
        row->snapshot_bytes = enc_len;
        placer_buffer_free(enc);
    }
    owners_of(s0, S, S->owner);
    if (S->cfg->timing) {
        /* batched lookups of keys (hash included), on up to 2^20 keys */
        uint64_t t = n < (1u << 20) ? n : (1u << 20);
        const void **kp = malloc(t * sizeof *kp);
        size_t *kl = malloc(t * sizeof *kl);
        if (kp && kl) {
            for (uint64_t i = 0; i < t; i++) {
                kp[i] = S->keys.bytes + S->keys.offsets[i];
                kl[i] = (size_t)(S->keys.offsets[i + 1] - S->keys.offsets[i]);
            }
            /* the best of three: the machine is shared and noisy */
            for (int rep = 0; rep < 3; rep++) {
                double t0 = now();
                placer_lookup_batch(s0, kp, kl, t, S->owner2);
                double ns = (now() - t0) * 1e9 / (double)t;
                row->lookup_ns = rep ? fmin(row->lookup_ns, ns) : ns;
            }
        }
        free(kp);
        free(kl);
    }
    /* loads */
    double *keys = S->acc, *bytes = keys + N + 1, *qps = bytes + N + 1;
    memset(S->acc, 0, 3 * (N + 1) * sizeof *S->acc);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t o = S->owner[i];
        keys[o] += 1;
        bytes[o] += S->keys.size[i];
        qps[o] += S->keys.qps[i];
    }
    row->keys = load_of(keys, m, &row->weight_error);
    row->bytes = load_of(bytes, m, NULL);
    row->qps = load_of(qps, m, NULL);
    double W = 0;
    for (uint32_t i = 0; i < N; i++)
        W += placer_builder_node_weight(m, i);

    /* join: one node of the mean weight, from this snapshot */
    placer_builder *bj = builder_for(S, strategy, v, 1);
    if (!bj) {
        err = PLACER_ENOMEM;
        goto out;
    }
    placer_builder_set_previous(bj, s0);
    err = placer_builder_build(bj, 2, &s1);
    placer_builder_free(bj);
    if (err)
        goto out;
    owners_of(s1, S, S->owner2);
    if (!(row->join_out = calloc(4 * ((size_t)N + 1), sizeof *row->join_out))) {
        err = PLACER_ENOMEM;
        goto out;
    }
    row->join_in = row->join_out + N + 1;
    row->drain_in = row->join_in + N + 1;
    row->fail_in = row->drain_in + N + 1;
    uint64_t moved = 0, to_new = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (S->owner[i] != S->owner2[i]) {
            moved++;
            row->join_out[S->owner[i]] += 1.0 / (double)n;
            row->join_in[S->owner2[i]] += 1.0 / (double)n;
        }
        to_new += S->owner2[i] == N;
    }
    row->join_moved = (double)moved / (double)n;
    row->join_ideal = 1.0 / (N + 1);
    row->join_max_in = (double)to_new / (double)n;

    /* drain of node 0: current placement vs the target */
    placer_builder_set_state(b, 0, PLACER_NODE_DRAINING);
    placer_builder_set_previous(b, s0);
    if ((err = placer_builder_build(b, 3, &s2)))
        goto out;
    moved = 0;
    memset(S->acc, 0, 3 * (N + 1) * sizeof *S->acc);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t a = 0, c = 0;
        placer_lookup_hash_handoff(s2, S->hash[i], &a, &c);
        if (a != c) {
            moved++;
            S->acc[c] += 1;
        }
    }
    row->drain_moved = (double)moved / (double)n;
    for (uint32_t i = 0; i < N; i++) {
        row->drain_in[i] = S->acc[i] / (double)n;
        row->drain_max_in = fmax(row->drain_max_in, row->drain_in[i]);
    }
    row->drain_ideal = placer_builder_node_weight(m, 0) / W;

    /* failure of node 0: its keys are read from the next live replica */
    memset(S->acc, 0, 3 * (N + 1) * sizeof *S->acc);
    placer_builder_set_state(b, 0, PLACER_NODE_DOWN);
    placer_builder_set_previous(b, NULL);
    if ((err = placer_builder_build(b, 4, &s3)))
        goto out;
    moved = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (S->owner[i] != 0)
            continue;
        uint32_t set[PLACER_MAX_REPLICAS], k = N < 8 ? N : 8;
        int got = placer_replicas_hash(s3, S->hash[i], set, k, NULL);
        uint32_t live = PLACER_NO_NODE;
        for (int j = 0; j < got && live == PLACER_NO_NODE; j++)
            live = set[j] != 0 ? set[j] : PLACER_NO_NODE;
        if (live != PLACER_NO_NODE) {
            moved++;
            S->acc[N + 1 + live] += 1; /* the bytes row, free again */
        }
    }
    row->fail_moved = (double)moved / (double)n;
    for (uint32_t i = 0; i < N; i++) {
        row->fail_in[i] = S->acc[N + 1 + i] / (double)n;
        row->fail_max_in = fmax(row->fail_max_in, row->fail_in[i]);
    }
    row->fail_ideal = row->drain_ideal;

    /* replica sets: distinct nodes, and distinct zones while zones remain */
    uint64_t check = S->cfg->replica_keys < n ? S->cfg->replica_keys : n;
    uint32_t R = S->cfg->replicas ? S->cfg->replicas : 1, want = R < N ? R : N;
    for (uint64_t i = 0; i < check; i++) {
        uint32_t set[PLACER_MAX_REPLICAS];
        placer_replica_report rep = {.size = sizeof rep};
        int got = placer_replicas_hash(s0, S->hash[i], set, R, &rep);
        /* zones_possible is min(R, zones in the placement) = min(want, zones) */
        int bad = got < (int)want || rep.zones < rep.zones_possible;
        for (int a = 0; a < got && !bad; a++)
            for (int c = 0; c < a; c++)
                bad |= set[a] == set[c];
        row->replica_violations += (uint64_t)bad;
    }
    row->replica_checked = check;

    /* rings: churn, and the hot keys with and without bounded loads */
    if (traits_of(strategy).options & PLACER_OPTION_ALLOCATION) {
        int tokens = strategy & PLC_SIM_BALANCED_FLAG ? PLACER_TOKENS_BALANCED : PLACER_TOKENS_RANDOM;
        double c = S->cfg->bound_c >= 1 ? S->cfg->bound_c : 1.25;
        if ((err = plc_sim_churn_run(m, tokens, v, S->cfg->churn_joins, S->cfg->churn_drains,
                                     &row->churn)) ||
            (err = plc_sim_hot_run(s0, &S->keys, c, n < PLC_SIM_HOT_REQUESTS ? n : PLC_SIM_HOT_REQUESTS,
                                   S->cfg->work.seed, &row->hot)))
            goto out;
        row->has_churn = 1;
    }
    err = seed_runs(S, strategy, v, row);
out:
    if (err) { /* a row that is not kept owns nothing */
        free(row->join_out);
        row->join_out = row->join_in = row->drain_in = row->fail_in = NULL;
    }
    placer_snapshot_free(s0);
    placer_snapshot_free(s1);
    placer_snapshot_free(s2);
    placer_snapshot_free(s3);
    placer_builder_free(b);
    return err;
}

int plc_simulate(const plc_sim_config *cfg, plc_sim_result *out)
{
    if (!cfg || !out || !cfg->membership)
        return PLACER_ENULL;
    if (!cfg->nstrategies || cfg->nstrategies > PLC_SIM_MAX_STRATEGIES || !cfg->nvnodes ||
        cfg->nvnodes > PLC_SIM_MAX_VNODES || !placer_builder_node_count(cfg->membership) ||
        cfg->replicas > PLACER_MAX_REPLICAS || cfg->seeds > PLC_SIM_MAX_SEEDS)
        return PLACER_EINVAL;
    double t0 = now();
    memset(out, 0, sizeof *out);
    sim S = {cfg, cfg->membership, {0}, NULL, NULL, NULL, NULL, NULL, 0, 0};
    int err = plc_workload_generate(&cfg->work, &S.keys);
    if (err)
        return err;
    uint64_t n = S.keys.n;
    uint32_t N = placer_builder_node_count(S.m);
    uint32_t runs = 0;
    for (uint32_t i = 0; i < cfg->nstrategies; i++)
        runs += has_knob(cfg->strategies[i]) ? cfg->nvnodes : 1;
    S.hash = malloc(n * sizeof *S.hash);
    S.hash2 = malloc(n * sizeof *S.hash2);
    S.owner = malloc(n * sizeof *S.owner);
    S.owner2 = malloc(n * sizeof *S.owner2);
    S.acc = malloc(3 * ((size_t)N + 1) * sizeof *S.acc);
    out->rows = calloc(runs, sizeof *out->rows);
    err = PLACER_ENOMEM;
    if (S.hash && S.hash2 && S.owner && S.owner2 && S.acc && out->rows) {
        err = 0;
        for (uint64_t i = 0; i < n; i++)
            S.hash[i] = placer_hash64(placer_builder_seed(S.m), S.keys.bytes + S.keys.offsets[i],
                                      (size_t)(S.keys.offsets[i + 1] - S.keys.offsets[i]));
        /* the modulo baseline: hash mod N -> mod N + 1 */
        uint64_t moved = 0;
        for (uint64_t i = 0; i < n; i++)
            moved += S.hash[i] % N != S.hash[i] % (N + 1);
        out->modulo_join_moved = (double)moved / (double)n;
        for (uint32_t i = 0; i < cfg->nstrategies && !err; i++) {
            int st = cfg->strategies[i];
            uint32_t nv = has_knob(st) ? cfg->nvnodes : 1;
            for (uint32_t j = 0; j < nv && !err; j++) {
                err = run_one(&S, st, cfg->vnodes[j], &out->rows[out->nrows]);
                if (!err)
                    out->nrows++;
                if (cfg->progress)
                    cfg->progress(cfg->progress_ctx, out->nrows, runs);
            }
        }
    }
    /* zones and datacenters of the membership */
    uint32_t zones = 0, datacenters = 0;
    for (uint32_t i = 0; i < N; i++) {
        int seen = 0, dc_seen = 0;
        for (uint32_t j = 0; j < i && !(seen && dc_seen); j++) {
            seen |= strcmp(placer_builder_node_zone(S.m, i), placer_builder_node_zone(S.m, j)) == 0;
            dc_seen |= strcmp(placer_builder_node_datacenter(S.m, i),
                              placer_builder_node_datacenter(S.m, j)) == 0;
        }
        zones += !seen;
        datacenters += !dc_seen;
    }
    out->node_ids = calloc((size_t)N + 1, sizeof *out->node_ids);
    for (uint32_t i = 0; out->node_ids && i <= N && !err; i++)
        if (!(out->node_ids[i] = strdup(i < N ? placer_builder_node_id(S.m, i) : "simulated-join")))
            err = PLACER_ENOMEM;
    if (!out->node_ids)
        err = PLACER_ENOMEM;
    out->keys = n;
    out->nodes = N;
    out->zones = zones;
    out->datacenters = datacenters;
    out->hottest_qps_share = S.keys.hottest;
    free(S.hash);
    free(S.hash2);
    free(S.owner);
    free(S.owner2);
    free(S.acc);
    plc_keys_free(&S.keys);
    if (err)
        plc_sim_result_free(out);
    out->seconds = now() - t0;
    return err;
}

int plc_sim_recommend(const plc_sim_result *r, int strategy, plc_sim_advice *out)
{
    const plc_sim_row *best = NULL;
    for (uint32_t i = 0; i < r->nrows; i++)
        if (r->rows[i].strategy == strategy && (!best || r->rows[i].seed_mean < best->seed_mean))
            best = &r->rows[i];
    if (!best)
        return -1;
    out->best = best->seed_mean;
    out->best_vnodes = best->vnodes;
    out->row = NULL;
    for (uint32_t i = 0; i < r->nrows; i++) {
        const plc_sim_row *x = &r->rows[i];
        if (x->strategy == strategy && x->seed_mean <= best->seed_mean + PLC_SIM_WITHIN &&
            (!out->row || x->vnodes < out->row->vnodes))
            out->row = x;
    }
    return 0;
}

const char *plc_sim_strategy_name(int strategy)
{
    const char *name = placer_strategy_name(strategy & ~PLC_SIM_BALANCED_FLAG);
    if (!(strategy & PLC_SIM_BALANCED_FLAG) || !name)
        return name;
    /* "<name>-balanced", in one of a few per-thread buffers, so that a
     * caller may hold several names at once (a row and its header) */
    static _Thread_local char buf[4][48];
    static _Thread_local unsigned next;
    char *out = buf[next++ % 4];
    snprintf(out, sizeof buf[0], "%s-balanced", name);
    return out;
}

uint32_t plc_sim_all_strategies(int *out, uint32_t max)
{
    uint32_t n = 0;
    for (int id = placer_strategy_next(0); id; id = placer_strategy_next(id)) {
        placer_strategy_traits t = traits_of(id);
        if (t.traits & PLACER_TRAIT_IMPLIED)
            continue;
        if (n < max)
            out[n++] = id;
        if ((t.options & PLACER_OPTION_ALLOCATION) && n < max)
            out[n++] = id | PLC_SIM_BALANCED_FLAG;
    }
    return n;
}

void plc_sim_result_free(plc_sim_result *r)
{
    for (uint32_t i = 0; r->rows && i < r->nrows; i++)
        free(r->rows[i].join_out);
    for (uint32_t i = 0; r->node_ids && i <= r->nodes; i++)
        free(r->node_ids[i]);
    free(r->node_ids);
    r->node_ids = NULL;
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
}
