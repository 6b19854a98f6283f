/*
 * simulate.h -- evidence before choosing a placement: a fixed-seed
 * simulation of a membership and a workload under each strategy and each
 * tokens-per-node value (seed 001: "replay representative key, value-size
 * and QPS distributions while increasing tokens per node ... stop when
 * additional tokens provide little balancing gain").
 *
 * Everything but the lookup timing is a function of the inputs and the
 * seed: the same configuration gives the same numbers on every machine.
 */
#ifndef PLC_CONTROL_SIMULATE_H
#define PLC_CONTROL_SIMULATE_H

#include <stddef.h>
#include <stdint.h>

#include "placer.h"

enum { PLC_KEYS_SEQUENTIAL, PLC_KEYS_UNIFORM, PLC_KEYS_FILE };
enum { PLC_QPS_UNIFORM, PLC_QPS_ZIPF };
enum { PLC_SIZE_FIXED, PLC_SIZE_UNIFORM, PLC_SIZE_LOGNORMAL };

#define PLC_SIM_MAX_VNODES 16
/* room for every strategy the library names (placer_strategy_name) and the
 * balanced ring */
#define PLC_SIM_MAX_STRATEGIES 24
#define PLC_SIM_MAX_SEEDS 64
/* A strategy that takes a token allocation (PLACER_OPTION_ALLOCATION) run
 * with PLACER_TOKENS_BALANCED: its id with this bit ("ring-balanced"),
 * beside the strategies' PLACER_* ids. */
#define PLC_SIM_BALANCED_FLAG 0x100
#define PLC_SIM_BALANCED (PLACER_RING | PLC_SIM_BALANCED_FLAG)
#define PLC_SIM_HOT_REQUESTS (1u << 21)

typedef struct plc_workload {
    uint64_t keys;  /* how many (file: read all) */
    int key_dist;   /* PLC_KEYS_* */
    const char *key_file_text; /* PLC_KEYS_FILE: the file's bytes, one key a line */
    size_t key_file_len;
    int qps_dist;   /* PLC_QPS_* */
    double zipf_s;  /* exponent */
    int size_dist;  /* PLC_SIZE_* */
    double size_a, size_b; /* fixed: a; uniform: a..b; lognormal: mu, sigma */
    uint64_t seed;
} plc_workload;

typedef struct plc_sim_config {
    const placer_builder *membership; /* nodes (ids, zones, weights); states ignored */
    plc_workload work;
    int strategies[PLC_SIM_MAX_STRATEGIES];
    uint32_t nstrategies;
    uint32_t vnodes[PLC_SIM_MAX_VNODES]; /* tokens per node (ring; partitions and Maglev scale) */
    uint32_t nvnodes;
    uint32_t replicas;      /* replica set size checked (default 3) */
    uint64_t replica_keys;  /* keys whose replica sets are checked (a prefix) */
    int timing;             /* measure batched lookup ns (not reproducible) */
    uint32_t churn_joins, churn_drains; /* ring rows: joins then drains, one at a time */
    double bound_c;         /* ring rows: bounded loads' balance factor for the hot keys */
    uint32_t seeds;         /* placements per row for the recommendation: the membership's
                             * seed and seeds - 1 others (0 acts as 1) */
    void (*progress)(void *ctx, uint32_t done, uint32_t total);
    void *progress_ctx;
} plc_sim_config;

/* Load by keys, bytes and QPS over the nodes of one placement. */
typedef struct plc_sim_load {
    double max_mean, min_mean, cv;
} plc_sim_load;

/* A ring through churn_joins joins one at a time (each build following
 * the previous snapshot), then churn_drains drains spread over the nodes:
 * exact shares of the hash space over weight shares, exact moves
 * (simulate_balance.c). */
typedef struct plc_sim_churn {
    double start_max;   /* max/mean before the joins */
    double join_max;    /* the worst max/mean after a join */
    double join_moved;  /* the worst moved fraction of a join over its ideal (new weight share) */
    double drain_max;   /* max/mean after the drains */
    double drain_moved; /* the worst moved fraction of a drain over its ideal */
} plc_sim_churn;

/* The workload's keys requested by their QPS (as many requests as keys, at
 * most PLC_SIM_HOT_REQUESTS),
 * each placed at its key's owner, and with placer_lookup_bounded (the
 * loads: requests placed so far). */
typedef struct plc_sim_hot {
    double max_mean;         /* the busiest node's requests over the mean, plain */
    double bounded_max_mean; /* the same with bounded loads */
    double moved;            /* requests placed off their key's owner */
    double keys_moved;       /* keys with a request placed off their owner, of keys requested */
} plc_sim_hot;

typedef struct plc_sim_row {
    int strategy;
    uint32_t vnodes;  /* 0: the strategy has no such knob */
    uint32_t units;   /* tokens, partitions, Maglev entries, buckets, candidates */
    plc_sim_load keys, bytes, qps;
    double weight_error;  /* largest |key share / weight share - 1| */
    double join_moved, drain_moved, fail_moved; /* fractions of keys */
    double join_ideal, drain_ideal, fail_ideal; /* the least any placement must move */
    double join_max_in;  /* the largest share of keys one node receives on the join */
    double drain_max_in; /* ... on the drain */
    double fail_max_in;  /* ... on the failure: 1 successor takes all, or many share */
    uint64_t replica_violations, replica_checked;
    size_t snapshot_bytes;
    double lookup_ns; /* batched, per key; 0 without timing */
    /* max/mean by keys over cfg->seeds placements that differ only in their
     * hash seed (the first is the membership's: keys.max_mean): the noise a
     * small cluster's placement has, which one run cannot show */
    double seed_mean, seed_min, seed_max;
    uint32_t seeds;
    int has_churn;    /* ring rows: churn and hot are filled */
    plc_sim_churn churn;
    plc_sim_hot hot;
    /* Per node (nodes + 1 entries each, the last the node that joins), as
     * fractions of all keys: what each gives and receives on the join, and
     * receives on the drain and on the failure of node 0 (which gives
     * drain_moved and fail_moved). Four arrays in one allocation. */
    double *join_out, *join_in, *drain_in, *fail_in;
} plc_sim_row;

typedef struct plc_sim_result {
    plc_sim_row *rows;
    uint32_t nrows;
    uint64_t keys;
    uint32_t nodes, zones, datacenters; /* distinct names (none: 1) */
    double hottest_qps_share; /* the hottest key's share of all QPS */
    double modulo_join_moved; /* hash mod N -> N + 1 */
    char **node_ids;          /* nodes + 1: the membership's, then the joining node's */
    double seconds;
} plc_sim_result;

/* Run the simulation; *out receives rows the caller frees with
 * plc_sim_result_free. Returns 0, PLACER_ENULL, PLACER_EINVAL (an empty
 * workload or strategy list), PLACER_ENOMEM, or a build error. */
int plc_simulate(const plc_sim_config *cfg, plc_sim_result *out);
void plc_sim_result_free(plc_sim_result *r);

/* The recommendation for one strategy's rows: the smallest tokens per
 * node whose mean max/mean over the seeds is within PLC_SIM_WITHIN of the
 * best mean (one run of a small cluster is noisy: 4 tokens can beat 16 by
 * luck, so "the next step improves by less than X" is fooled). */
#define PLC_SIM_WITHIN 0.02
typedef struct plc_sim_advice {
    const plc_sim_row *row; /* the recommended row */
    double best;            /* the best mean max/mean of the strategy's rows */
    uint32_t best_vnodes;   /* where it is */
} plc_sim_advice;
/* Returns 0, or -1 when r has no row of the strategy. */
int plc_sim_recommend(const plc_sim_result *r, int strategy, plc_sim_advice *out);

/* "ring-balanced" for PLC_SIM_BALANCED, else placer_strategy_name(). */
const char *plc_sim_strategy_name(int strategy);

/* Every strategy the simulator runs, from the registry: each one a
 * membership file may choose (placer_strategy_next), followed by its
 * balanced variant when it has one. Writes at most max ids, returns how
 * many. */
uint32_t plc_sim_all_strategies(int *out, uint32_t max);

/* The workload's keys (concatenated, offsets[i] .. offsets[i + 1]), their
 * QPS weights and value sizes, from its seed. Returns 0 or PLACER_ENOMEM /
 * PLACER_EINVAL (no keys). */
typedef struct plc_keys {
    char *bytes;
    uint64_t *offsets; /* n + 1 */
    double *qps;
    double *size;
    uint64_t n;
    double hottest; /* largest qps share */
} plc_keys;
int plc_workload_generate(const plc_workload *w, plc_keys *out);
void plc_keys_free(plc_keys *k);

#endif
