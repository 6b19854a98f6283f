/* simulate_print.h -- the ways `placer simulate` shows its results. */
#ifndef PLACER_CLI_SIMULATE_PRINT_H
#define PLACER_CLI_SIMULATE_PRINT_H

#include "cli.h"
#include "simulate.h"

/* One JSON document (format 1); CLI_OK or CLI_FAILURE. */
int simulate_print_json(const plc_sim_result *r, const plc_sim_config *cfg);
void simulate_print_csv(const plc_sim_result *r, const plc_sim_config *cfg);
/* The aligned table, the recommended row of each strategy marked, and the
 * recommendations (plc_sim_recommend). */
void simulate_print_table(const plc_sim_result *r, const plc_sim_config *cfg);
/* The SVG chart (svg_plot.h): a row of small panels per strategy, a column
 * per measure (max/mean over the seeds, keys moved with the ideals, snapshot
 * bytes, lookup ns); written crash-safe. CLI_OK, or CLI_FAILURE after
 * saying why. */
int simulate_plot(const char *path, const plc_sim_result *r, const plc_sim_config *cfg);

#endif
