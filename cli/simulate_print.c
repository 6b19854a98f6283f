/* simulate_print.c -- the simulator's results as an aligned table, JSON,
 * CSV, and an SVG chart (cli/svg_plot.c). */
#include <stdio.h>
#include <stdlib.h>

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

/* {"max_mean":..,"min_mean":..,"cv":..} */
static json_t *load_json(const plc_sim_load *l)
{
    json_t *o = json_object();
    cli_json_put(o, "max_mean", cli_json_num(l->max_mean));
    cli_json_put(o, "min_mean", cli_json_num(l->min_mean));
    cli_json_put(o, "cv", cli_json_num(l->cv));
    return o;
}

/* {"moved":..,"ideal":..,"max_in":..} */
static json_t *move_json(double moved, double ideal, double max_in)
{
    json_t *o = json_object();
    cli_json_put(o, "moved", cli_json_num(moved));
    cli_json_put(o, "ideal", cli_json_num(ideal));
    cli_json_put(o, "max_in", cli_json_num(max_in));
    return o;
}

int simulate_print_json(const plc_sim_result *r, const plc_sim_config *cfg)
{
    json_t *doc = cli_json_doc(), *ids = json_array(), *rows = json_array();
    cli_json_put(doc, "keys", cli_json_u64(r->keys));
    cli_json_put(doc, "nodes", json_integer(r->nodes));
    cli_json_put(doc, "zones", json_integer(r->zones));
    cli_json_put(doc, "hottest_key_qps_share", cli_json_num(r->hottest_qps_share));
    cli_json_put(doc, "modulo_join_moved", cli_json_num(r->modulo_join_moved));
    for (uint32_t i = 0; i <= r->nodes; i++)
        cli_json_append(ids, cli_json_str(r->node_ids[i]));
    cli_json_put(doc, "node_ids", ids);
    for (uint32_t i = 0; i < r->nrows; i++) {
        const plc_sim_row *x = &r->rows[i];
        json_t *row = json_object();
        cli_json_put(row, "strategy", json_string(plc_sim_strategy_name(x->strategy)));
        cli_json_put(row, "vnodes", json_integer(x->vnodes));
        cli_json_put(row, "units", json_integer(x->units));
        cli_json_put(row, "keys", load_json(&x->keys));
        cli_json_put(row, "bytes", load_json(&x->bytes));
        cli_json_put(row, "qps", load_json(&x->qps));
        cli_json_put(row, "weight_error", cli_json_num(x->weight_error));
        cli_json_put(row, "join", move_json(x->join_moved, x->join_ideal, x->join_max_in));
        cli_json_put(row, "drain", move_json(x->drain_moved, x->drain_ideal, x->drain_max_in));
        cli_json_put(row, "fail", move_json(x->fail_moved, x->fail_ideal, x->fail_max_in));
        cli_json_put(row, "replica_violations", cli_json_u64(x->replica_violations));
        cli_json_put(row, "replica_checked", cli_json_u64(x->replica_checked));
        cli_json_put(row, "snapshot_bytes", cli_json_u64(x->snapshot_bytes));
        if (cfg->timing)
            cli_json_put(row, "lookup_ns", cli_json_num(x->lookup_ns));
        /* per node, the joining node last: fractions of all keys */
        const double *per[4] = {x->join_out, x->join_in, x->drain_in, x->fail_in};
        static const char *const names[4] = {"join_out", "join_in", "drain_in", "fail_in"};
        json_t *pn = json_object();
        for (int k = 0; k < 4; k++) {
            json_t *arr = json_array();
            for (uint32_t j = 0; j <= r->nodes; j++)
                cli_json_append(arr, cli_json_num(per[k][j]));
            cli_json_put(pn, names[k], arr);
        }
        cli_json_put(row, "per_node", pn);
        if (x->has_churn) {
            json_t *ch = json_object(), *hot = json_object();
            cli_json_put(ch, "joins", json_integer(cfg->churn_joins));
            cli_json_put(ch, "drains", json_integer(cfg->churn_drains));
            cli_json_put(ch, "start_max_mean", cli_json_num(x->churn.start_max));
            cli_json_put(ch, "join_max_mean", cli_json_num(x->churn.join_max));
            cli_json_put(ch, "join_moved_over_ideal", cli_json_num(x->churn.join_moved));
            cli_json_put(ch, "drain_max_mean", cli_json_num(x->churn.drain_max));
            cli_json_put(ch, "drain_moved_over_ideal", cli_json_num(x->churn.drain_moved));
            cli_json_put(row, "churn", ch);
            cli_json_put(hot, "bound_c", cli_json_num(cfg->bound_c));
            cli_json_put(hot, "max_mean", cli_json_num(x->hot.max_mean));
            cli_json_put(hot, "bounded_max_mean", cli_json_num(x->hot.bounded_max_mean));
            cli_json_put(hot, "requests_moved", cli_json_num(x->hot.moved));
            cli_json_put(hot, "keys_moved", cli_json_num(x->hot.keys_moved));
            cli_json_put(row, "hot_keys", hot);
        }
        cli_json_append(rows, row);
    }
    cli_json_put(doc, "rows", rows);
    return cli_json_emit("simulate", doc);
}

void simulate_print_csv(const plc_sim_result *rp, const plc_sim_config *c)
{
    const plc_sim_result r = *rp;
    const plc_sim_config cfg = *c;
    printf("strategy,vnodes,units,keys_max_mean,keys_min_mean,keys_cv,bytes_max_mean,bytes_cv,"
           "qps_max_mean,qps_cv,weight_error,join_moved,join_ideal,join_max_in,drain_moved,"
           "drain_ideal,drain_max_in,fail_moved,fail_max_in,replica_violations,replica_checked,"
           "snapshot_bytes,churn_start_max_mean,churn_join_max_mean,churn_join_moved_over_ideal,"
           "churn_drain_max_mean,churn_drain_moved_over_ideal,hot_max_mean,hot_bounded_max_mean,"
           "hot_requests_moved,hot_keys_moved%s\n", cfg.timing ? ",lookup_ns" : "");
    for (uint32_t i = 0; i < r.nrows; i++) {
        const plc_sim_row *x = &r.rows[i];
        printf("%s,%u,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,"
               "%.6f,%.6f,%llu,%llu,%zu",
               plc_sim_strategy_name(x->strategy), x->vnodes, x->units, x->keys.max_mean,
               x->keys.min_mean, x->keys.cv, x->bytes.max_mean, x->bytes.cv, x->qps.max_mean,
               x->qps.cv, x->weight_error, x->join_moved, x->join_ideal, x->join_max_in,
               x->drain_moved, x->drain_ideal, x->drain_max_in, x->fail_moved, x->fail_max_in,
               (unsigned long long)x->replica_violations, (unsigned long long)x->replica_checked,
               x->snapshot_bytes);
        if (x->has_churn)
            printf(",%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f", x->churn.start_max,
                   x->churn.join_max, x->churn.join_moved, x->churn.drain_max, x->churn.drain_moved,
                   x->hot.max_mean, x->hot.bounded_max_mean, x->hot.moved, x->hot.keys_moved);
        else
            printf(",,,,,,,,,");
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
    printf("%-13s %6s %8s | %-21s | %7s %7s | %7s | %-18s %-16s %-16s | %9s %10s%s\n",
           "strategy", "vnodes", "units", "keys max/min/CV", "bytes", "qps", "weights",
           "join moved/ideal", "drain moved/in", "fail moved/in", "repl.viol", "snapshot",
           cfg.timing ? "  lookup" : "");
    printf("%-13s %6s %8s | %-21s | %7s %7s | %7s | %-18s %-16s %-16s | %9s %10s%s\n", "", "",
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
            printf("%-13s %6s %8u | %6.3f %6.3f %6.4f | %7.3f %7.3f | %6.2f%% | %6.3f%% /%6.3f%%  "
                   "%6.3f%% /%6.3f%% %6.3f%% /%6.3f%% | %9llu %10zu",
                   plc_sim_strategy_name(x->strategy), vn, x->units, x->keys.max_mean,
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
    /* rings: churn and hot keys */
    int any = 0;
    for (uint32_t i = 0; i < r.nrows; i++)
        any |= r.rows[i].has_churn;
    if (any) {
        printf("\nrings through %u joins then %u drains spread over the nodes, one at a time, each "
               "build following the last\n(exact shares of the hash space; moves over the ideal, "
               "the node's weight share); hot keys: requests by QPS,\nplaced at the owner or with "
               "bounded loads (c = %.2f)\n",
               cfg.churn_joins, cfg.churn_drains, cfg.bound_c);
        printf("%-13s %6s | %7s %9s %11s | %9s %11s | %8s %8s %9s %9s\n", "strategy", "vnodes",
               "start", "join max", "join moved", "drain max", "drain moved", "hot max", "bounded",
               "req moved", "key moved");
        printf("%-13s %6s | %7s %9s %11s | %9s %11s | %8s %8s %9s %9s\n", "", "", "max/mean",
               "max/mean", "/ideal", "max/mean", "/ideal", "max/mean", "max/mean", "", "");
        for (uint32_t i = 0; i < r.nrows; i++) {
            const plc_sim_row *x = &r.rows[i];
            if (!x->has_churn)
                continue;
            printf("%-13s %6u | %7.3f %9.3f %11.3f | %9.3f %11.3f | %8.3f %8.3f %8.2f%% %8.2f%%\n",
                   plc_sim_strategy_name(x->strategy), x->vnodes, x->churn.start_max,
                   x->churn.join_max, x->churn.join_moved, x->churn.drain_max,
                   x->churn.drain_moved, x->hot.max_mean, x->hot.bounded_max_mean,
                   100 * x->hot.moved, 100 * x->hot.keys_moved);
        }
    }
    printf("\nreplica sets of %u checked on %llu keys each; %.2f s\n", cfg.replicas,
           (unsigned long long)(r.nrows ? r.rows[0].replica_checked : 0), r.seconds);
}

int simulate_plot(const char *plot, const plc_sim_result *r, const plc_sim_config *cfg)
{
    enum { S = PLC_SIM_MAX_STRATEGIES, V = PLC_SIM_MAX_VNODES };
    svg_series load[S], moved[2 * S + 2];
    double xs[S][V], ys[S][V], join[S][V], drain[S][V], ideal_join = 0, ideal_drain = 0;
    char labels[S][64], join_names[S][48], drain_names[S][48];
    uint32_t nl = 0, nm = 0;
    for (uint32_t s = 0; s < cfg->nstrategies; s++) {
        uint32_t n = 0;
        const plc_sim_row *first = NULL;
        for (uint32_t i = 0; i < r->nrows && n < V; i++)
            if (r->rows[i].strategy == cfg->strategies[s]) {
                const plc_sim_row *x = &r->rows[i];
                first = first ? first : x;
                xs[nl][n] = x->vnodes ? x->vnodes : 1;
                ys[nl][n] = x->keys.max_mean;
                join[nl][n] = x->join_moved;
                drain[nl][n] = x->drain_moved;
                ideal_join = x->join_ideal;
                ideal_drain = x->drain_ideal;
                n++;
            }
        if (!n)
            continue;
        const char *name = plc_sim_strategy_name(cfg->strategies[s]);
        int dim = diminishing(first, n);
        snprintf(labels[nl], sizeof labels[nl], "%u", dim >= 0 ? first[dim].vnodes : 0);
        load[nl] = (svg_series){name, xs[nl], ys[nl], n, 0, (int)s, 0, dim, dim >= 0 ? labels[nl] : NULL};
        snprintf(join_names[nl], sizeof join_names[nl], "%s join", name);
        snprintf(drain_names[nl], sizeof drain_names[nl], "%s drain", name);
        moved[nm++] = (svg_series){join_names[nl], xs[nl], join[nl], n, 0, (int)s, 0, -1, NULL};
        moved[nm++] = (svg_series){drain_names[nl], xs[nl], drain[nl], n, 0, (int)s, 1, -1, NULL};
        nl++;
    }
    moved[nm++] = (svg_series){"ideal join", &ideal_join, &ideal_join, 1, 1, 0, 0, -1, NULL};
    moved[nm++] = (svg_series){"ideal drain", &ideal_drain, &ideal_drain, 1, 1, 1, 0, -1, NULL};
    char title[200];
    snprintf(title, sizeof title, "placer simulate: %llu keys, %u nodes in %u zones",
             (unsigned long long)r->keys, r->nodes, r->zones);
    svg_panel panels[2] = {
        {"max/mean load by keys (circle: diminishing returns)", "tokens per node",
         "max / mean (log scale of the excess over 1)", 1, 0, load, nl},
        {"keys moved: one node joins (filled), node 0 drains (hollow)", "tokens per node",
         "keys moved", 0, 1, moved, nm},
    };
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int bad = !mem || svg_plot(mem, title, panels, 2) != 0;
    if (mem && fclose(mem) != 0)
        bad = 1;
    int rc = CLI_FAILURE;
    if (bad)
        fprintf(stderr, "placer simulate: out of memory for the plot\n");
    else
        rc = cli_write_file("simulate", plot, text, len); /* says why when it fails */
    free(text);
    return rc;
}
