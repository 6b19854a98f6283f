/*
 * cmd_simulate.c -- `placer simulate`: the simulator (control/simulate.h)
 * from the command line: a membership file or a generated one, a workload,
 * strategies and tokens-per-node values; a table, JSON or CSV, and an SVG
 * plot of small multiples (simulate_print.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "simulate.h"
#include "simulate_compat.h"
#include "simulate_print.h"

enum {
    OPT_NODES = 256, OPT_ZONES, OPT_WEIGHTS, OPT_KEYS, OPT_KEY_DIST, OPT_KEY_FILE, OPT_QPS,
    OPT_VALUE_SIZE, OPT_SEED, OPT_STRATEGIES, OPT_VNODES, OPT_REPLICAS, OPT_REPLICA_KEYS,
    OPT_JSON, OPT_CSV, OPT_PLOT, OPT_NO_TIMING, OPT_CHURN, OPT_BOUND_C, OPT_SEEDS,
};

static const struct option options[] = {
    {"nodes", required_argument, NULL, OPT_NODES},
    {"zones", required_argument, NULL, OPT_ZONES},
    {"weights", required_argument, NULL, OPT_WEIGHTS},
    {"keys", required_argument, NULL, OPT_KEYS},
    {"key-dist", required_argument, NULL, OPT_KEY_DIST},
    {"key-file", required_argument, NULL, OPT_KEY_FILE},
    {"qps", required_argument, NULL, OPT_QPS},
    {"value-size", required_argument, NULL, OPT_VALUE_SIZE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"strategies", required_argument, NULL, OPT_STRATEGIES},
    {"vnodes", required_argument, NULL, OPT_VNODES},
    {"replicas", required_argument, NULL, OPT_REPLICAS},
    {"replica-keys", required_argument, NULL, OPT_REPLICA_KEYS},
    {"json", no_argument, NULL, OPT_JSON},
    {"csv", no_argument, NULL, OPT_CSV},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"no-timing", no_argument, NULL, OPT_NO_TIMING},
    {"churn", required_argument, NULL, OPT_CHURN},
    {"bound-c", required_argument, NULL, OPT_BOUND_C},
    {"seeds", required_argument, NULL, OPT_SEEDS},
    {"quiet", no_argument, NULL, 'q'},
    CLI_HELP_OPTION,
    {0},
};

void cmd_simulate_usage(FILE *out)
{
    fprintf(out,
            "usage: placer simulate [MEMBERSHIP.json] [OPTIONS]\n"
            "\n"
            "Simulate a membership and a workload under each strategy and each tokens-per-node\n"
            "value: load by keys, bytes and QPS (max/mean, min/mean, coefficient of variation of\n"
            "each node's share over its weight's share), the largest deviation from the weights,\n"
            "keys moved when one node joins (next to the ideal 1/(N+1) and the modulo baseline),\n"
            "when node 0 drains and when it fails (and the largest share one node receives),\n"
            "replica sets that break the distinct-node/zone rules, snapshot bytes, and batched\n"
            "lookup ns. Everything but the lookup time is the same on every machine for the\n"
            "same options (fixed seeds). A membership in a compatibility mode (\"compat\")\n"
            "simulates that program's own placement instead: the load per node, what a join\n"
            "of one node and the removal of the first move (the workload options apply).\n"
            "\n"
            "membership (without a file):\n"
            "  --nodes N            nodes (default 120, at least 2)\n"
            "  --zones Z            zones, nodes assigned round robin (default 3)\n"
            "  --weights W,W,...    weights, cycled over the nodes (default 1)\n"
            "workload:\n"
            "  --keys N             keys (default 1000000)\n"
            "  --key-dist D         sequential (key-0, key-1, ...) or uniform (random, default)\n"
            "  --key-file PATH      keys from a file, one a line (--keys caps the count)\n"
            "  --qps Q              uniform (default) or zipf:S (exponent S)\n"
            "  --value-size V       fixed:N (default fixed:1024), uniform:A-B, lognormal:MU,SIGMA\n"
            "  --seed S             workload seed (default 1)\n"
            "what to run:\n"
            "  --strategies LIST    of ring, ring-balanced (\"tokens\": \"balanced\") and every\n"
            "                       strategy the library names: partitions, jump, rendezvous,\n"
            "                       maglev, ... (default all)\n"
            "  --seeds N            placements per row for the recommendation, differing only\n"
            "                       in their hash seed (default 5, at most 64): the recommended\n"
            "                       tokens per node is the smallest whose mean max/mean is\n"
            "                       within 0.02 of the best, shown with the runs' spread\n"
            "  --churn J,D          rings: J joins then D drains spread over the nodes, one at a\n"
            "                       time, each build following the last (default 20,10): exact\n"
            "                       max/mean after each, moved fraction over the ideal\n"
            "  --bound-c C          rings: the hot keys placed with bounded loads, balance factor\n"
            "                       C >= 1 (default 1.25), beside the plain placement\n"
            "  --vnodes LIST        tokens per node (default 1,4,16,64,256,1024): ring tokens per\n"
            "                       node of mean weight; partitions and Maglev: N x value slots\n"
            "  --replicas R         replica set size checked (default 3)\n"
            "  --replica-keys K     keys whose replica sets are checked (default 100000)\n"
            "output:\n"
            "  --json | --csv       for scripts (default: an aligned table); the JSON also has,\n"
            "                       per node, what it gives and receives on the join, the\n"
            "                       drain and the failure\n"
            "  --plot FILE.svg      an SVG chart, a row of small panels per strategy against\n"
            "                       tokens per node: max/mean load (mean over the seeds, their\n"
            "                       range as a band, the recommendation circled; log scale of\n"
            "                       the excess over 1), keys moved on a join and a drain with\n"
            "                       the ideal drawn over them, snapshot bytes, and lookup ns\n"
            "                       (unless --no-timing)\n"
            "  --no-timing          leave out lookup ns (the one number that varies by machine)\n"
            "  -q, --quiet          no progress on stderr (shown only when it is a terminal)\n"
            "  -h, --help           this help\n");
}

static int parse_list(const char *cmd, const char *what, const char *text, uint32_t *out,
                      uint32_t cap, uint32_t *n)
{
    *n = 0;
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, ",");
        uint64_t v;
        const char *end = p + len;
        if (placer_parse_u64(p, len, 1, PLACER_MAX_TOKENS, &v) || *n == cap) {
            cli_usage_error(cmd, "%s: expected up to %u positive integers separated by commas, got '%s'",
                            what, cap, text);
            return -1;
        }
        out[(*n)++] = (uint32_t)v;
        p = *end ? end + 1 : end;
    }
    if (!*n) {
        cli_usage_error(cmd, "%s: empty list", what);
        return -1;
    }
    return 0;
}

static void progress(void *ctx, uint32_t done, uint32_t total)
{
    (void)ctx;
    fprintf(stderr, "\rsimulating: %u of %u runs", done, total);
    if (done == total)
        fprintf(stderr, "\n");
}

/* What --strategies may name: the ring, the balanced ring, then every
 * strategy the library names (placer_strategy_name over its ids; not the
 * compatibility modes, whose placement is another program's). */
/* The registry's strategies and their balanced variants (simulate.c). */
static uint32_t known_strategies(int *out, uint32_t cap)
{
    return plc_sim_all_strategies(out, cap);
}

static placer_builder *generated(uint32_t nodes, uint32_t zones, const double *w, uint32_t nw)
{
    placer_builder *b = placer_builder_new();
    char id[32], zone[32];
    for (uint32_t i = 0; b && i < nodes; i++) {
        snprintf(id, sizeof id, "node-%03u", i);
        snprintf(zone, sizeof zone, "zone-%u", i % zones);
        placer_builder_add_node(b, id, zone, w[i % nw]);
    }
    return b;
}

int cmd_simulate(int argc, char **argv)
{
    plc_sim_config cfg = {0};
    cfg.work = (plc_workload){1000000, PLC_KEYS_UNIFORM, NULL, 0, PLC_QPS_UNIFORM, 1.0,
                              PLC_SIZE_FIXED, 1024, 0, 1};
    int known[PLC_SIM_MAX_STRATEGIES];
    uint32_t nknown = known_strategies(known, PLC_SIM_MAX_STRATEGIES);
    memcpy(cfg.strategies, known, nknown * sizeof *known);
    cfg.nstrategies = nknown;
    cfg.seeds = 5;
    cfg.churn_joins = 20;
    cfg.churn_drains = 10;
    cfg.bound_c = 1.25;
    static const uint32_t dv[] = {1, 4, 16, 64, 256, 1024};
    memcpy(cfg.vnodes, dv, sizeof dv);
    cfg.nvnodes = 6;
    cfg.replicas = 3;
    cfg.replica_keys = 100000;
    cfg.timing = 1;
    const char *file = NULL, *plot = NULL, *key_file = NULL;
    uint64_t nodes = 120, zones = 3, u;
    double weights[64] = {1};
    uint32_t nw = 1;
    int json = 0, csv = 0;
    int c, keys_given = 0, quiet = 0;
    while ((c = cli_getopt("simulate", argc, argv, options, cmd_simulate_usage)) != -1) {
        const char *v = optarg;
        switch (c) {
        case OPT_JSON:
            json = 1;
            break;
        case OPT_CSV:
            csv = 1;
            break;
        case OPT_NO_TIMING:
            cfg.timing = 0;
            break;
        case 'q':
            quiet = 1;
            break;
        case OPT_NODES:
            if (cli_parse_u64("simulate", "--nodes", v, 2, 1000000, &nodes))
                return CLI_USAGE;
            break;
        case OPT_ZONES:
            if (cli_parse_u64("simulate", "--zones", v, 1, 1000000, &zones))
                return CLI_USAGE;
            break;
        case OPT_WEIGHTS:
            nw = 0;
            for (const char *p = v; *p && nw < 64;) {
                char *end;
                double w = strtod(p, &end);
                if (end == p || *p == ' ' || *p == '\t' || *p == '+' || *p == '-' ||
                    !(w >= PLACER_MIN_WEIGHT && w <= PLACER_MAX_WEIGHT) || (*end && *end != ',')) {
                    cli_usage_error("simulate", "--weights: expected numbers from 2^-32 to 2^32 separated by commas, got '%s'", v);
                    return CLI_USAGE;
                }
                weights[nw++] = w;
                p = *end ? end + 1 : end;
            }
            if (!nw) {
                cli_usage_error("simulate", "--weights: empty list");
                return CLI_USAGE;
            }
            break;
        case OPT_KEYS:
            if (cli_parse_u64("simulate", "--keys", v, 1, UINT64_C(1) << 32, &cfg.work.keys))
                return CLI_USAGE;
            keys_given = 1;
            break;
        case OPT_KEY_DIST:
            if (!strcmp(v, "sequential"))
                cfg.work.key_dist = PLC_KEYS_SEQUENTIAL;
            else if (!strcmp(v, "uniform"))
                cfg.work.key_dist = PLC_KEYS_UNIFORM;
            else {
                cli_usage_error("simulate", "--key-dist: sequential or uniform (files: --key-file), got '%s'", v);
                return CLI_USAGE;
            }
            break;
        case OPT_KEY_FILE:
            key_file = v;
            break;
        case OPT_QPS: {
            char *end;
            if (!strcmp(v, "uniform")) {
                cfg.work.qps_dist = PLC_QPS_UNIFORM;
            } else if (!strncmp(v, "zipf:", 5) && v[5] >= '0' && v[5] <= '9' &&
                       (cfg.work.zipf_s = strtod(v + 5, &end)) >= 0 && !*end &&
                       cfg.work.zipf_s <= 10) {
                cfg.work.qps_dist = PLC_QPS_ZIPF;
            } else {
                cli_usage_error("simulate", "--qps: uniform or zipf:S (0 <= S <= 10), got '%s'", v);
                return CLI_USAGE;
            }
            break;
        }
        case OPT_VALUE_SIZE: {
            double x, y;
            char ch;
            if (sscanf(v, "fixed:%lf%c", &x, &ch) == 1 && x >= 0) {
                cfg.work.size_dist = PLC_SIZE_FIXED;
                cfg.work.size_a = x;
            } else if (sscanf(v, "uniform:%lf-%lf%c", &x, &y, &ch) == 2 && x >= 0 && y >= x && y < 1e15) {
                cfg.work.size_dist = PLC_SIZE_UNIFORM;
                cfg.work.size_a = floor(x);
                cfg.work.size_b = floor(y);
            } else if (sscanf(v, "lognormal:%lf,%lf%c", &x, &y, &ch) == 2 && y >= 0 && x < 40 && y < 10) {
                cfg.work.size_dist = PLC_SIZE_LOGNORMAL;
                cfg.work.size_a = x;
                cfg.work.size_b = y;
            } else {
                cli_usage_error("simulate", "--value-size: fixed:N, uniform:A-B or lognormal:MU,SIGMA, got '%s'", v);
                return CLI_USAGE;
            }
            break;
        }
        case OPT_SEED:
            if (cli_parse_u64("simulate", "--seed", v, 0, UINT64_MAX, &cfg.work.seed))
                return CLI_USAGE;
            break;
        case OPT_STRATEGIES: {
            cfg.nstrategies = 0;
            char list[256];
            snprintf(list, sizeof list, "%s", v);
            for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
                int found = 0;
                for (unsigned k = 0; k < nknown; k++) {
                    int st = known[k], dup = 0;
                    for (uint32_t q = 0; q < cfg.nstrategies; q++)
                        dup |= cfg.strategies[q] == st;
                    if (!strcmp(tok, plc_sim_strategy_name(st)) && !dup &&
                        cfg.nstrategies < PLC_SIM_MAX_STRATEGIES)
                        cfg.strategies[cfg.nstrategies++] = st, found = 1;
                }
                if (!found) {
                    char names[512] = "";
                    for (unsigned k = 0, at = 0; k < nknown && at < sizeof names; k++)
                        at += (unsigned)snprintf(names + at, sizeof names - at, "%s%s", k ? ", " : "",
                                                 plc_sim_strategy_name(known[k]));
                    char shown[128];
                    cli_usage_error("simulate", "--strategies: unknown or repeated '%s' (%s)",
                                    cli_escaped(shown, sizeof shown, tok), names);
                    return CLI_USAGE;
                }
            }
            if (!cfg.nstrategies) {
                cli_usage_error("simulate", "--strategies: empty list");
                return CLI_USAGE;
            }
            break;
        }
        case OPT_VNODES:
            if (parse_list("simulate", "--vnodes", v, cfg.vnodes, PLC_SIM_MAX_VNODES, &cfg.nvnodes))
                return CLI_USAGE;
            break;
        case OPT_REPLICAS:
            if (cli_parse_u64("simulate", "--replicas", v, 1, PLACER_MAX_REPLICAS, &u))
                return CLI_USAGE;
            cfg.replicas = (uint32_t)u;
            break;
        case OPT_REPLICA_KEYS:
            if (cli_parse_u64("simulate", "--replica-keys", v, 0, UINT64_C(1) << 32, &cfg.replica_keys))
                return CLI_USAGE;
            break;
        case OPT_PLOT:
            plot = v;
            break;
        case OPT_CHURN: {
            uint32_t jd[2], njd = 0;
            if (parse_list("simulate", "--churn", v, jd, 2, &njd))
                return CLI_USAGE;
            if (njd != 2 || jd[0] > 1000 || jd[1] > 1000) {
                cli_usage_error("simulate", "--churn: J,D (joins, drains; each 1..1000), got '%s'", v);
                return CLI_USAGE;
            }
            cfg.churn_joins = jd[0];
            cfg.churn_drains = jd[1];
            break;
        }
        case OPT_SEEDS:
            if (cli_parse_u64("simulate", "--seeds", v, 1, PLC_SIM_MAX_SEEDS, &u))
                return CLI_USAGE;
            cfg.seeds = (uint32_t)u;
            break;
        case OPT_BOUND_C: {
            char *end;
            double bc = strtod(v, &end);
            if (end == v || *end || !(bc >= 1 && bc <= 1000)) {
                cli_usage_error("simulate", "--bound-c: a number from 1 to 1000, got '%s'", v);
                return CLI_USAGE;
            }
            cfg.bound_c = bc;
            break;
        }
        default:
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
        }
    }
    if (argc - optind > 1) {
        cli_usage_error("simulate", "one membership file only ('%s' is extra)", argv[optind + 1]);
        return CLI_USAGE;
    }
    file = optind < argc ? argv[optind] : NULL;
    if (json && csv) {
        cli_usage_error("simulate", "--json or --csv, not both");
        return CLI_USAGE;
    }
    placer_builder *b = NULL;
    char *text = NULL, *keys_text = NULL;
    size_t len, mlen = 0;
    int rc;
    if (file) {
        if ((rc = cli_read_file("simulate", file, &text, &len)))
            return rc;
        char why[512];
        uint64_t epoch;
        mlen = len;
        int got = placer_membership_parse(text, len, file, &b, &epoch, why, sizeof why);
        if (got < 0) {
            free(text);
            fprintf(stderr, "placer simulate: %s\n", got == PLACER_EFORMAT ? why : placer_strerror(got));
            return got == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
        }
    } else {
        b = generated((uint32_t)nodes, (uint32_t)(zones < nodes ? zones : nodes), weights, nw);
    }
    if (key_file) {
        if ((rc = cli_read_file("simulate", key_file, &keys_text, &len))) {
            placer_builder_free(b);
            free(text);
            return rc;
        }
        cfg.work.key_dist = PLC_KEYS_FILE;
        cfg.work.key_file_text = keys_text;
        cfg.work.key_file_len = len;
        if (!keys_given)
            cfg.work.keys = 0; /* all the file's keys */
    }
    /* the plot's target checked before the run, not after it */
    rc = plot && !strcmp(plot, "-") ? CLI_USAGE : plot ? cli_output_check("simulate", plot) : 0;
    if (rc) {
        if (!strcmp(plot, "-"))
            cli_usage_error("simulate", "--plot -: standard output carries the report; name a file");
        free(text);
        free(keys_text);
        placer_builder_free(b);
        return rc;
    }
    if (text && cli_sim_is_compat(text, mlen)) {
        /* the program's own placement, not placer's strategies */
        rc = cli_simulate_compat(text, mlen, file, &cfg.work, json);
        free(text);
        free(keys_text);
        placer_builder_free(b);
        return rc;
    }
    free(text);
    if (b && placer_builder_node_count(b) < 2) {
        /* every run drains node 0 and fails it: with one node nobody is
         * left to own the keys, so there is nothing to measure */
        fprintf(stderr, "placer simulate: %u node%s: the simulation needs at least 2 (it drains "
                        "and fails node 0 and measures who takes its keys)\n",
                placer_builder_node_count(b), placer_builder_node_count(b) == 1 ? "" : "s");
        free(keys_text);
        placer_builder_free(b);
        return CLI_BADINPUT;
    }
    cfg.membership = b;
    if (!quiet && isatty(STDERR_FILENO))
        cfg.progress = progress;
    plc_sim_result r;
    int err = b ? plc_simulate(&cfg, &r) : PLACER_ENOMEM;
    free(keys_text);
    placer_builder_free(b);
    if (err) {
        fprintf(stderr, "placer simulate: %s%s\n", placer_strerror(err),
                err == PLACER_EINVAL ? " (no keys to simulate?)" : "");
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    rc = CLI_OK;
    if (json)
        rc = simulate_print_json(&r, &cfg);
    else if (csv)
        simulate_print_csv(&r, &cfg);
    else
        simulate_print_table(&r, &cfg);
    if (plot && simulate_plot(plot, &r, &cfg))
        rc = CLI_FAILURE; /* simulate_plot said why */
    plc_sim_result_free(&r);
    return rc;
}
