/* simulate_print.c -- the simulator's results as an aligned table, JSON,
 * CSV, and an SVG chart (cli/svg_plot.c). */
#include <stdio.h>

#include "simulate_print.h"
#include "svg_plot.h"

/* The point of diminishing returns: the first tokens-per-node value after
 * which the next one in the list lowers max/mean (by keys) by less than
 * 0.05. */
static int diminishing(const plc_sim_row *rows, uint32_t n)
{
    for (uint32_t i = 0; i + 1 < n; i++)
        if (rows[i].keys.max_mean - rows[i + 1].keys.max_mean < 0.05)
            return (int)i;
    return -1;
}

void simulate_print_json(const plc_sim_result *rp, const plc_sim_config *c)
{
    const plc_sim_result r = *rp; /* by value: reads as the code that printed in place */
    const plc_sim_config cfg = *c;
    printf("{\"keys\":%llu,\"nodes\":%u,\"zones\":%u,\"hottest_key_qps_share\":%.17g,"
           "\"modulo_join_moved\":%.17g,",
           (unsigned long long)r.keys, r.nodes, r.zones, r.hottest_qps_share, r.modulo_join_moved);
    printf("\"node_ids\":[");
    for (uint32_t i = 0; i <= r.nodes; i++) {
        printf("%s", i ? "," : "");
        cli_json_string(stdout, r.node_ids[i]);
    }
    printf("],\"rows\":[");
    for (uint32_t i = 0; i < r.nrows; i++) {
        const plc_sim_row *x = &r.rows[i];
        printf("%s{\"strategy\":\"%s\",\"vnodes\":%u,\"units\":%u,"
               "\"keys\":{\"max_mean\":%.6f,\"min_mean\":%.6f,\"cv\":%.6f},"
               "\"bytes\":{\"max_mean\":%.6f,\"min_mean\":%.6f,\"cv\":%.6f},"
               "\"qps\":{\"max_mean\":%.6f,\"min_mean\":%.6f,\"cv\":%.6f},"
               "\"weight_error\":%.6f,\"join\":{\"moved\":%.6f,\"ideal\":%.6f,\"max_in\":%.6f},"
               "\"drain\":{\"moved\":%.6f,\"ideal\":%.6f,\"max_in\":%.6f},"
               "\"fail\":{\"moved\":%.6f,\"ideal\":%.6f,\"max_in\":%.6f},"
               "\"replica_violations\":%llu,\"replica_checked\":%llu,\"snapshot_bytes\":%zu",
               i ? "," : "", placer_strategy_name(x->strategy), x->vnodes, x->units,
               x->keys.max_mean, x->keys.min_mean, x->keys.cv, x->bytes.max_mean,
               x->bytes.min_mean, x->bytes.cv, x->qps.max_mean, x->qps.min_mean, x->qps.cv,
               x->weight_error, x->join_moved, x->join_ideal, x->join_max_in, x->drain_moved,
               x->drain_ideal, x->drain_max_in, x->fail_moved, x->fail_ideal, x->fail_max_in,
               (unsigned long long)x->replica_violations, (unsigned long long)x->replica_checked,
               x->snapshot_bytes);
        if (cfg.timing)
            printf(",\"lookup_ns\":%.2f", x->lookup_ns);
        /* per node, the joining node last: fractions of all keys */
        const double *per[4] = {x->join_out, x->join_in, x->drain_in, x->fail_in};
        static const char *const names[4] = {"join_out", "join_in", "drain_in", "fail_in"};
        printf(",\"per_node\":{");
        for (int k = 0; k < 4; k++) {
            printf("%s\"%s\":[", k ? "," : "", names[k]);
            for (uint32_t j = 0; j <= r.nodes; j++)
                printf("%s%.6g", j ? "," : "", per[k][j]);
            printf("]");
        }
        printf("}}");
    }
    printf("]}\n");
}

void simulate_print_csv(const plc_sim_result *rp, const plc_sim_config *c)
{
    const plc_sim_result r = *rp;
    const plc_sim_config cfg = *c;
    printf("strategy,vnodes,units,keys_max_mean,keys_min_mean,keys_cv,bytes_max_mean,bytes_cv,"
           "qps_max_mean,qps_cv,weight_error,join_moved,join_ideal,join_max_in,drain_moved,"
           "drain_ideal,drain_max_in,fail_moved,fail_max_in,replica_violations,replica_checked,"
           "snapshot_bytes%s\n", cfg.timing ? ",lookup_ns" : "");
    for (uint32_t i = 0; i < r.nrows; i++) {
        const plc_sim_row *x = &r.rows[i];
        printf("%s,%u,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,"
               "%.6f,%.6f,%llu,%llu,%zu",
               placer_strategy_name(x->strategy), x->vnodes, x->units, x->keys.max_mean,
               x->keys.min_mean, x->keys.cv, x->bytes.max_mean, x->bytes.cv, x->qps.max_mean,
               x->qps.cv, x->weight_error, x->join_moved, x->join_ideal, x->join_max_in,
               x->drain_moved, x->drain_ideal, x->drain_max_in, x->fail_moved, x->fail_max_in,
               (unsigned long long)x->replica_violations, (unsigned long long)x->replica_checked,
               x->snapshot_bytes);
        if (cfg.timing)
            printf(",%.2f", x->lookup_ns);
        printf("\n");
    }
}

void simulate_print_table(const plc_sim_result *rp, const plc_sim_config *c)
{
    const plc_sim_result r = *rp;
    const plc_sim_config cfg = *c;
    printf("%llu keys over %u nodes in %u zones; the hottest key draws %.3g%% of all QPS "
           "(no placement can split it)\n",
           (unsigned long long)r.keys, r.nodes, r.zones, 100 * r.hottest_qps_share);
    printf("modulo baseline (hash mod N): a join moves %.2f%% of keys (ideal %.2f%%)\n\n",
           100 * r.modulo_join_moved, 100.0 / (r.nodes + 1));
    printf("%-10s %6s %8s | %-21s | %7s %7s | %7s | %-18s %-16s %-16s | %9s %10s%s\n",
           "strategy", "vnodes", "units", "keys max/min/CV", "bytes", "qps", "weights",
           "join moved/ideal", "drain moved/in", "fail moved/in", "repl.viol", "snapshot",
           cfg.timing ? "  lookup" : "");
    printf("%-10s %6s %8s | %-21s | %7s %7s | %7s | %-18s %-16s %-16s | %9s %10s%s\n", "", "",
           "", "", "max", "max", "max err", "", "", "", "", "bytes", cfg.timing ? "      ns" : "");
    for (uint32_t s = 0; s < cfg.nstrategies; s++) {
        const plc_sim_row *first = NULL;
        uint32_t nrun = 0;
        for (uint32_t i = 0; i < r.nrows; i++)
            if (r.rows[i].strategy == cfg.strategies[s]) {
                first = first ? first : &r.rows[i];
                nrun++;
            }
        int dim = first ? diminishing(first, nrun) : -1;
        for (uint32_t i = 0; i < nrun; i++) {
            const plc_sim_row *x = first + i;
            char vn[16];
            snprintf(vn, sizeof vn, x->vnodes ? "%u" : "-", x->vnodes);
            printf("%-10s %6s %8u | %6.3f %6.3f %6.4f | %7.3f %7.3f | %6.2f%% | %6.3f%% /%6.3f%%  "
                   "%6.3f%% /%6.3f%% %6.3f%% /%6.3f%% | %9llu %10zu",
                   placer_strategy_name(x->strategy), vn, x->units, x->keys.max_mean,
                   x->keys.min_mean, x->keys.cv, x->bytes.max_mean, x->qps.max_mean,
                   100 * x->weight_error, 100 * x->join_moved, 100 * x->join_ideal,
                   100 * x->drain_moved, 100 * x->drain_max_in, 100 * x->fail_moved,
                   100 * x->fail_max_in, (unsigned long long)x->replica_violations,
                   x->snapshot_bytes);
            if (cfg.timing)
                printf(" %8.2f", x->lookup_ns);
            if ((int)i == dim)
                printf("  <- diminishing returns after this");
            printf("\n");
        }
    }
    printf("\nreplica sets of %u checked on %llu keys each; %.2f s\n", cfg.replicas,
           (unsigned long long)(r.nrows ? r.rows[0].replica_checked : 0), r.seconds);
}

int simulate_plot(const char *plot, const plc_sim_result *rp, const plc_sim_config *c)
{
    const plc_sim_result r = *rp;
    const plc_sim_config cfg = *c;
    svg_series series[PLC_SIM_MAX_STRATEGIES];
    double xs[PLC_SIM_MAX_STRATEGIES][PLC_SIM_MAX_VNODES], ys[PLC_SIM_MAX_STRATEGIES][PLC_SIM_MAX_VNODES];
    char labels[PLC_SIM_MAX_STRATEGIES][64];
    uint32_t ns = 0;
    for (uint32_t s = 0; s < cfg.nstrategies; s++) {
        uint32_t n = 0;
        const plc_sim_row *first = NULL;
        for (uint32_t i = 0; i < r.nrows; i++)
            if (r.rows[i].strategy == cfg.strategies[s]) {
                first = first ? first : &r.rows[i];
                xs[ns][n] = r.rows[i].vnodes ? r.rows[i].vnodes : 1;
                ys[ns][n] = r.rows[i].keys.max_mean;
                n++;
            }
        if (!n)
            continue;
        int dim = diminishing(first, n);
        snprintf(labels[ns], sizeof labels[ns], "%u", dim >= 0 ? first[dim].vnodes : 0);
        series[ns] = (svg_series){placer_strategy_name(cfg.strategies[s]), xs[ns], ys[ns], n,
                                  dim, dim >= 0 ? labels[ns] : NULL};
        ns++;
    }
    char title[160];
    snprintf(title, sizeof title, "max/mean load by keys: %llu keys, %u nodes (circle: diminishing returns)",
             (unsigned long long)r.keys, r.nodes);
    return svg_plot(plot, title, "tokens per node", "max / mean", series, ns);
}
