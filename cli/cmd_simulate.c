/*
 * cmd_simulate.c -- `placer simulate`: the simulator (control/simulate.h)
 * from the command line: a membership file or a generated one, a workload,
 * strategies and tokens-per-node values; a table, JSON or CSV, and an SVG
 * plot of max/mean load against tokens per node.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "simulate.h"
#include "simulate_print.h"

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
            "same options (fixed seeds).\n"
            "\n"
            "membership (without a file):\n"
            "  --nodes N            nodes (default 120)\n"
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
            "  --strategies LIST    of ring, partitions, jump, rendezvous, maglev (default all)\n"
            "  --vnodes LIST        tokens per node (default 1,4,16,64,256,1024): ring tokens per\n"
            "                       node of mean weight; partitions and Maglev: N x value slots\n"
            "  --replicas R         replica set size checked (default 3)\n"
            "  --replica-keys K     keys whose replica sets are checked (default 100000)\n"
            "output:\n"
            "  --json | --csv       for scripts (default: an aligned table); the JSON also has,\n"
            "                       per node, what it gives and receives on the join, the\n"
            "                       drain and the failure\n"
            "  --plot FILE.svg      max/mean load against tokens per node, with the point of\n"
            "                       diminishing returns marked: the first value after which the\n"
            "                       next lowers max/mean by less than 0.05\n"
            "  --no-timing          leave out lookup ns (the one number that varies by machine)\n");
}

static int parse_list(const char *cmd, const char *what, const char *text, uint32_t *out,
                      uint32_t cap, uint32_t *n)
{
    *n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || v < 1 || v > PLACER_MAX_TOKENS || *n == cap || (*end && *end != ',')) {
            fprintf(stderr, "placer %s: %s: expected up to %u positive integers separated by commas, got '%s'\n",
                    cmd, what, cap, text);
            return -1;
        }
        out[(*n)++] = (uint32_t)v;
        p = *end ? end + 1 : end;
    }
    if (!*n) {
        fprintf(stderr, "placer %s: %s: empty list\n", cmd, what);
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
    static const int all[] = {PLACER_RING, PLACER_PARTITIONS, PLACER_JUMP, PLACER_RENDEZVOUS, PLACER_MAGLEV};
    memcpy(cfg.strategies, all, sizeof all);
    cfg.nstrategies = 5;
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
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--csv")) {
            csv = 1;
        } else if (!strcmp(a, "--no-timing")) {
            cfg.timing = 0;
        } else if (!v && a[0] == '-') {
            fprintf(stderr, "placer simulate: unknown option or missing value '%s'\n", a);
            cmd_simulate_usage(stderr);
            return CLI_USAGE;
        } else if (!strcmp(a, "--nodes")) {
            if (cli_parse_u64("simulate", a, argv[++i], 1, 1000000, &nodes))
                return CLI_USAGE;
        } else if (!strcmp(a, "--zones")) {
            if (cli_parse_u64("simulate", a, argv[++i], 1, 1000000, &zones))
                return CLI_USAGE;
        } else if (!strcmp(a, "--weights")) {
            nw = 0;
            for (const char *p = argv[++i]; *p && nw < 64;) {
                char *end;
                double w = strtod(p, &end);
                if (end == p || !(w >= PLACER_MIN_WEIGHT && w <= PLACER_MAX_WEIGHT) ||
                    (*end && *end != ',')) {
                    fprintf(stderr, "placer simulate: --weights: expected numbers from 2^-32 to 2^32 separated by commas, got '%s'\n", argv[i]);
                    return CLI_USAGE;
                }
                weights[nw++] = w;
                p = *end ? end + 1 : end;
            }
            if (!nw) {
                fprintf(stderr, "placer simulate: --weights: empty list\n");
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--keys")) {
            if (cli_parse_u64("simulate", a, argv[++i], 1, UINT64_C(1) << 32, &cfg.work.keys))
                return CLI_USAGE;
        } else if (!strcmp(a, "--key-dist")) {
            v = argv[++i];
            if (!strcmp(v, "sequential"))
                cfg.work.key_dist = PLC_KEYS_SEQUENTIAL;
            else if (!strcmp(v, "uniform"))
                cfg.work.key_dist = PLC_KEYS_UNIFORM;
            else {
                fprintf(stderr, "placer simulate: --key-dist: sequential or uniform (files: --key-file), got '%s'\n", v);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--key-file")) {
            key_file = argv[++i];
        } else if (!strcmp(a, "--qps")) {
            v = argv[++i];
            char *end;
            if (!strcmp(v, "uniform")) {
                cfg.work.qps_dist = PLC_QPS_UNIFORM;
            } else if (!strncmp(v, "zipf:", 5) && (cfg.work.zipf_s = strtod(v + 5, &end)) >= 0 &&
                       end != v + 5 && !*end && cfg.work.zipf_s <= 10) {
                cfg.work.qps_dist = PLC_QPS_ZIPF;
            } else {
                fprintf(stderr, "placer simulate: --qps: uniform or zipf:S (0 <= S <= 10), got '%s'\n", v);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--value-size")) {
            v = argv[++i];
            double x, y;
            char c;
            if (sscanf(v, "fixed:%lf%c", &x, &c) == 1 && x >= 0) {
                cfg.work.size_dist = PLC_SIZE_FIXED;
                cfg.work.size_a = x;
            } else if (sscanf(v, "uniform:%lf-%lf%c", &x, &y, &c) == 2 && x >= 0 && y >= x && y < 1e15) {
                cfg.work.size_dist = PLC_SIZE_UNIFORM;
                cfg.work.size_a = floor(x);
                cfg.work.size_b = floor(y);
            } else if (sscanf(v, "lognormal:%lf,%lf%c", &x, &y, &c) == 2 && y >= 0 && x < 40 && y < 10) {
                cfg.work.size_dist = PLC_SIZE_LOGNORMAL;
                cfg.work.size_a = x;
                cfg.work.size_b = y;
            } else {
                fprintf(stderr, "placer simulate: --value-size: fixed:N, uniform:A-B or lognormal:MU,SIGMA, got '%s'\n", v);
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--seed")) {
            if (cli_parse_u64("simulate", a, argv[++i], 0, UINT64_MAX, &cfg.work.seed))
                return CLI_USAGE;
        } else if (!strcmp(a, "--strategies")) {
            cfg.nstrategies = 0;
            char list[256];
            snprintf(list, sizeof list, "%s", argv[++i]);
            for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
                int found = 0;
                for (int st = PLACER_RING; st <= PLACER_MAGLEV; st++)
                    if (!strcmp(tok, placer_strategy_name(st)) && cfg.nstrategies < PLC_SIM_MAX_STRATEGIES)
                        cfg.strategies[cfg.nstrategies++] = st, found = 1;
                if (!found) {
                    fprintf(stderr, "placer simulate: --strategies: unknown or repeated '%s' (ring, partitions, jump, rendezvous, maglev)\n", tok);
                    return CLI_USAGE;
                }
            }
            if (!cfg.nstrategies) {
                fprintf(stderr, "placer simulate: --strategies: empty list\n");
                return CLI_USAGE;
            }
        } else if (!strcmp(a, "--vnodes")) {
            if (parse_list("simulate", a, argv[++i], cfg.vnodes, PLC_SIM_MAX_VNODES, &cfg.nvnodes))
                return CLI_USAGE;
        } else if (!strcmp(a, "--replicas")) {
            if (cli_parse_u64("simulate", a, argv[++i], 1, PLACER_MAX_REPLICAS, &u))
                return CLI_USAGE;
            cfg.replicas = (uint32_t)u;
        } else if (!strcmp(a, "--replica-keys")) {
            if (cli_parse_u64("simulate", a, argv[++i], 0, UINT64_C(1) << 32, &cfg.replica_keys))
                return CLI_USAGE;
        } else if (!strcmp(a, "--plot")) {
            plot = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "placer simulate: unknown option '%s'\n", a);
            cmd_simulate_usage(stderr);
            return CLI_USAGE;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "placer simulate: one membership file only ('%s')\n", a);
            return CLI_USAGE;
        }
    }
    if (json && csv) {
        fprintf(stderr, "placer simulate: --json or --csv, not both\n");
        return CLI_USAGE;
    }
    placer_builder *b = NULL;
    char *text = NULL, *keys_text = NULL;
    size_t len;
    int rc;
    if (file) {
        if ((rc = cli_read_file("simulate", file, &text, &len)))
            return rc;
        char why[512];
        uint64_t epoch;
        int got = placer_membership_parse(text, len, file, &b, &epoch, why, sizeof why);
        free(text);
        if (got < 0) {
            fprintf(stderr, "placer simulate: %s\n", got == PLACER_EFORMAT ? why : placer_strerror(got));
            return got == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
        }
    } else {
        b = generated((uint32_t)nodes, (uint32_t)(zones < nodes ? zones : nodes), weights, nw);
    }
    if (key_file) {
        if ((rc = cli_read_file("simulate", key_file, &keys_text, &len))) {
            placer_builder_free(b);
            return rc;
        }
        cfg.work.key_dist = PLC_KEYS_FILE;
        cfg.work.key_file_text = keys_text;
        cfg.work.key_file_len = len;
        int given = 0;
        for (int i = 1; i < argc; i++)
            given |= !strcmp(argv[i], "--keys");
        if (!given)
            cfg.work.keys = 0; /* all the file's keys */
    }
    cfg.membership = b;
    if (isatty(2) && !json && !csv)
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
    if (json)
        simulate_print_json(&r, &cfg);
    else if (csv)
        simulate_print_csv(&r, &cfg);
    else
        simulate_print_table(&r, &cfg);
    rc = CLI_OK;
    if (plot && simulate_plot(plot, &r, &cfg)) {
        fprintf(stderr, "placer simulate: %s: cannot write the plot\n", plot);
        rc = CLI_FAILURE;
    }
    plc_sim_result_free(&r);
    return rc;
}
