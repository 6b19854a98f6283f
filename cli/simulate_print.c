/* simulate_print.c -- the simulator's results as an aligned table, JSON,
 * CSV, and an SVG chart (cli/svg_plot.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "simulate_print.h"
#include "svg_plot.h"

/* The index of the recommended row among n rows of one strategy, or -1. */
static int recommended(const plc_sim_result *r, const plc_sim_row *first, uint32_t n)
{
    plc_sim_advice a;
    if (!n || plc_sim_recommend(r, first->strategy, &a))
        return -1;
    return a.row >= first && a.row < first + n ? (int)(a.row - first) : -1;
}

/* Rows of a knob-less strategy (jump, rendezvous) have vnodes 0. */
static int has_knob(const plc_sim_row *x)
{
    return x->vnodes != 0;
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
    cli_json_put(doc, "datacenters", json_integer(r->datacenters));
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
        json_t *sd = json_object();
        cli_json_put(sd, "max_mean", cli_json_num(x->seed_mean));
        cli_json_put(sd, "min", cli_json_num(x->seed_min));
        cli_json_put(sd, "max", cli_json_num(x->seed_max));
        cli_json_put(row, "seeds", sd);
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
    cli_json_put(doc, "seeds", json_integer(cfg->seeds ? cfg->seeds : 1));
    json_t *advice = json_array();
    for (uint32_t s = 0; s < cfg->nstrategies; s++) {
        plc_sim_advice a;
        if (plc_sim_recommend(r, cfg->strategies[s], &a))
            continue;
        json_t *o = json_object(), *rec = json_object(), *best = json_object();
        cli_json_put(o, "strategy", json_string(plc_sim_strategy_name(cfg->strategies[s])));
        cli_json_put(rec, "vnodes", has_knob(a.row) ? json_integer(a.row->vnodes) : json_null());
        cli_json_put(rec, "max_mean", cli_json_num(a.row->seed_mean));
        cli_json_put(rec, "spread", cli_json_num(a.row->seed_max - a.row->seed_min));
        cli_json_put(o, "recommended", rec);
        cli_json_put(best, "vnodes", has_knob(a.row) ? json_integer(a.best_vnodes) : json_null());
        cli_json_put(best, "max_mean", cli_json_num(a.best));
        cli_json_put(o, "best", best);
        cli_json_append(advice, o);
    }
    cli_json_put(doc, "strategies", advice);
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
           "hot_requests_moved,hot_keys_moved%s,seeds,seeds_max_mean,seeds_min,seeds_max\n",
           cfg.timing ? ",lookup_ns" : "");
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
        printf(",%u,%.6f,%.6f,%.6f\n", x->seeds, x->seed_mean, x->seed_min, x->seed_max);
    }
}

void simulate_print_table(const plc_sim_result *rp, const plc_sim_config *c)
{
    const plc_sim_result r = *rp;
    const plc_sim_config cfg = *c;
    printf("%llu keys over %u nodes in %u zones", (unsigned long long)r.keys, r.nodes, r.zones);
    if (r.datacenters > 1)
        printf(" of %u datacenters", r.datacenters);
    printf("; the hottest key draws %.3g%% of all QPS (no placement can split it)\n",
           100 * r.hottest_qps_share);
    printf("modulo baseline (hash mod N): a join moves %.2f%% of keys (ideal %.2f%%)\n\n",
           100 * r.modulo_join_moved, 100.0 / (r.nodes + 1));
    uint32_t seeds = cfg.seeds ? cfg.seeds : 1;
    char over[32];
    snprintf(over, sizeof over, "%u seeds mean/spread", seeds);
    printf("%-13s %6s %8s | %-21s | %-19s | %7s %7s | %7s | %-18s %-16s %-16s | %9s %10s%s\n",
           "strategy", "vnodes", "units", "keys max/min/CV", "keys max/mean over", "bytes", "qps",
           "weights", "join moved/ideal", "drain moved/in", "fail moved/in", "repl.viol",
           "snapshot", cfg.timing ? "  lookup" : "");
    printf("%-13s %6s %8s | %-21s | %-19s | %7s %7s | %7s | %-18s %-16s %-16s | %9s %10s%s\n", "",
           "", "", "", over, "max", "max", "max err", "", "", "", "", "bytes",
           cfg.timing ? "      ns" : "");
    for (uint32_t s = 0; s < cfg.nstrategies; s++) {
        const plc_sim_row *first = NULL;
        uint32_t nrun = 0;
        for (uint32_t i = 0; i < r.nrows; i++)
            if (r.rows[i].strategy == cfg.strategies[s]) {
                first = first ? first : &r.rows[i];
                nrun++;
            }
        int rec = first ? recommended(&r, first, nrun) : -1;
        for (uint32_t i = 0; i < nrun; i++) {
            const plc_sim_row *x = first + i;
            char vn[16];
            snprintf(vn, sizeof vn, x->vnodes ? "%u" : "-", x->vnodes);
            printf("%-13s %6s %8u | %6.3f %6.3f %6.4f | %7.3f  %-10.3f | %7.3f %7.3f | %6.2f%% | "
                   "%6.3f%% /%6.3f%%  %6.3f%% /%6.3f%% %6.3f%% /%6.3f%% | %9llu %10zu",
                   plc_sim_strategy_name(x->strategy), vn, x->units, x->keys.max_mean,
                   x->keys.min_mean, x->keys.cv, x->seed_mean, x->seed_max - x->seed_min,
                   x->bytes.max_mean, x->qps.max_mean,
                   100 * x->weight_error, 100 * x->join_moved, 100 * x->join_ideal,
                   100 * x->drain_moved, 100 * x->drain_max_in, 100 * x->fail_moved,
                   100 * x->fail_max_in, (unsigned long long)x->replica_violations,
                   x->snapshot_bytes);
            if (cfg.timing)
                printf(" %8.2f", x->lookup_ns);
            if ((int)i == rec && has_knob(x))
                printf("  <- recommended");
            printf("\n");
        }
    }
    /* the recommendation, strategy by strategy */
    printf("\nrecommended tokens per node: the smallest whose mean max/mean over %u seed%s is "
           "within %.2f of the best\n", seeds, seeds == 1 ? "" : "s", PLC_SIM_WITHIN);
    for (uint32_t s = 0; s < cfg.nstrategies; s++) {
        plc_sim_advice a;
        if (plc_sim_recommend(&r, cfg.strategies[s], &a))
            continue;
        const plc_sim_row *x = a.row;
        if (has_knob(x))
            printf("  %-13s %6u   max/mean %.3f (seeds %.3f..%.3f, spread %.3f); best %.3f at %u\n",
                   plc_sim_strategy_name(x->strategy), x->vnodes, x->seed_mean, x->seed_min,
                   x->seed_max, x->seed_max - x->seed_min, a.best, a.best_vnodes);
        else
            printf("  %-13s %6s   max/mean %.3f (seeds %.3f..%.3f, spread %.3f); no tokens-per-node "
                   "knob\n",
                   plc_sim_strategy_name(x->strategy), "-", x->seed_mean, x->seed_min, x->seed_max,
                   x->seed_max - x->seed_min);
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

/* One strategy's points, for the plot. */
typedef struct plot_row {
    double x[PLC_SIM_MAX_VNODES], mean[PLC_SIM_MAX_VNODES], lo[PLC_SIM_MAX_VNODES],
        hi[PLC_SIM_MAX_VNODES], join[PLC_SIM_MAX_VNODES], drain[PLC_SIM_MAX_VNODES],
        bytes[PLC_SIM_MAX_VNODES], ns[PLC_SIM_MAX_VNODES];
    uint32_t n;
    int mark;
    char label[48];
    svg_series series[8];
} plot_row;

enum { COL_LOAD, COL_MOVED, COL_BYTES, COL_NS, NCOLS };

int simulate_plot(const char *plot, const plc_sim_result *r, const plc_sim_config *cfg)
{
    uint32_t cols = cfg->timing ? NCOLS : NCOLS - 1, nr = 0;
    plot_row *pr = calloc(cfg->nstrategies ? cfg->nstrategies : 1, sizeof *pr);
    svg_panel *panels = calloc((size_t)(cfg->nstrategies ? cfg->nstrategies : 1) * NCOLS, sizeof *panels);
    const char **names = calloc(cfg->nstrategies ? cfg->nstrategies : 1, sizeof *names);
    if (!pr || !panels || !names) {
        free(pr), free(panels), free(names);
        fprintf(stderr, "placer simulate: out of memory for the plot\n");
        return CLI_FAILURE;
    }
    /* every panel of a column on one y range, so the rows compare */
    double lo[NCOLS], hi[NCOLS], ideal_join = 0, ideal_drain = 0;
    for (int c = 0; c < NCOLS; c++)
        lo[c] = INFINITY, hi[c] = -INFINITY;
    for (uint32_t s = 0; s < cfg->nstrategies; s++) {
        plot_row *p = &pr[nr];
        const plc_sim_row *first = NULL;
        for (uint32_t i = 0; i < r->nrows && p->n < PLC_SIM_MAX_VNODES; i++) {
            const plc_sim_row *x = &r->rows[i];
            if (x->strategy != cfg->strategies[s])
                continue;
            first = first ? first : x;
            uint32_t k = p->n++;
            p->x[k] = x->vnodes ? x->vnodes : 1;
            p->mean[k] = x->seed_mean;
            p->lo[k] = x->seed_min;
            p->hi[k] = x->seed_max;
            p->join[k] = x->join_moved;
            p->drain[k] = x->drain_moved;
            p->bytes[k] = (double)x->snapshot_bytes;
            p->ns[k] = x->lookup_ns;
            ideal_join = x->join_ideal;
            ideal_drain = x->drain_ideal;
            lo[COL_LOAD] = fmin(lo[COL_LOAD], x->seed_min);
            hi[COL_LOAD] = fmax(hi[COL_LOAD], x->seed_max);
            hi[COL_MOVED] = fmax(hi[COL_MOVED], fmax(x->join_moved, x->drain_moved));
            lo[COL_BYTES] = fmin(lo[COL_BYTES], p->bytes[k]);
            hi[COL_BYTES] = fmax(hi[COL_BYTES], p->bytes[k]);
            hi[COL_NS] = fmax(hi[COL_NS], x->lookup_ns);
        }
        if (!p->n)
            continue;
        p->mark = recommended(r, first, p->n);
        if (p->mark >= 0 && has_knob(first))
            snprintf(p->label, sizeof p->label, "%u", first[p->mark].vnodes);
        else
            p->mark = -1;
        names[nr++] = plc_sim_strategy_name(cfg->strategies[s]);
    }
    hi[COL_MOVED] = fmax(hi[COL_MOVED], fmax(ideal_join, ideal_drain));
    lo[COL_MOVED] = 0;
    lo[COL_NS] = 0;
    for (uint32_t k = 0; k < nr; k++) {
        plot_row *p = &pr[k];
        svg_series *se = p->series;
        /* knob-less strategies (one row): a line across, as they do not change */
        se[0] = (svg_series){"max/mean", p->x, p->mean, p->lo, p->hi, p->n, 0, 0, p->mark,
                             p->mark >= 0 ? p->label : NULL};
        se[1] = (svg_series){"join", p->x, p->join, NULL, NULL, p->n, 0, 0, -1, NULL};
        se[2] = (svg_series){"drain", p->x, p->drain, NULL, NULL, p->n, 0, 1, -1, NULL};
        se[3] = (svg_series){"ideal join", &ideal_join, &ideal_join, NULL, NULL, 1, 1, 0, -1, NULL};
        se[4] = (svg_series){"ideal drain", &ideal_drain, &ideal_drain, NULL, NULL, 1, 1, 1, -1, NULL};
        se[5] = (svg_series){"bytes", p->x, p->bytes, NULL, NULL, p->n, 0, 0, -1, NULL};
        se[6] = (svg_series){"ns", p->x, p->ns, NULL, NULL, p->n, 0, 0, -1, NULL};
        svg_panel *row = &panels[k * cols];
        row[COL_LOAD] = (svg_panel){SVG_LOG_EXCESS, 0, lo[COL_LOAD], hi[COL_LOAD], &se[0], 1};
        row[COL_MOVED] = (svg_panel){SVG_LINEAR, 1, lo[COL_MOVED], hi[COL_MOVED], &se[1], 4};
        row[COL_BYTES] = (svg_panel){SVG_LOG10, 0, lo[COL_BYTES], hi[COL_BYTES], &se[5], 1};
        if (cfg->timing)
            row[COL_NS] = (svg_panel){SVG_LINEAR, 0, lo[COL_NS], hi[COL_NS], &se[6], 1};
    }
    static const char *const titles[NCOLS] = {
        "max/mean load by keys", "keys moved (black: the ideal)",
        "snapshot bytes (log scale)", "batched lookup ns a key"};
    char title[200], subtitle[300], subtitle2[300];
    uint32_t seeds = cfg->seeds ? cfg->seeds : 1;
    snprintf(title, sizeof title, "placer simulate: %llu keys, %u nodes in %u zones",
             (unsigned long long)r->keys, r->nodes, r->zones);
    snprintf(subtitle, sizeof subtitle,
             "max/mean: the mean over %u seed%s (band: their range; log scale of the excess over "
             "1); circled: recommended, the smallest within %.2f of the best",
             seeds, seeds == 1 ? "" : "s", PLC_SIM_WITHIN);
    snprintf(subtitle2, sizeof subtitle2,
             "keys moved: one node joins (solid, ideal %.2f%%), node 0 drains (dashed, ideal "
             "%.2f%%); ideals in black, over the measurements",
             100 * ideal_join, 100 * ideal_drain);
    svg_grid g = {title, subtitle, subtitle2, "tokens per node (log scale; jump and rendezvous have none: "
                                   "a line across)",
                  names, titles, nr, cols, panels};
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int bad = !mem || svg_grid_plot(mem, &g) != 0;
    if (mem && fclose(mem) != 0)
        bad = 1;
    int rc = CLI_FAILURE;
    if (bad)
        fprintf(stderr, "placer simulate: out of memory for the plot\n");
    else
        rc = cli_write_file("simulate", plot, text, len); /* says why when it fails */
    free(text);
    free(pr), free(panels), free(names);
    return rc;
}
