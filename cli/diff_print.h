/*
 * diff_print.h -- `placer diff`'s report of what moves (text or JSON):
 * the moved fraction and how it is known, the ideal, the from -> to pairs
 * largest first (and the full matrix when both snapshots are small), and
 * every node of either snapshot with what it gives and receives.
 */
#ifndef PLACER_CLI_DIFF_PRINT_H
#define PLACER_CLI_DIFF_PRINT_H

#include <jansson.h>
#include <stdint.h>

#include "diff_buckets.h"
#include "placer.h"

typedef struct cli_diff_out {
    const placer_snapshot *a, *b;
    const placer_diff_report *r;
    const char *key_file;      /* the figures are this file's keys (method 0) */
    const cli_bucket_diff *bd; /* NULL: not two snapshots of one bucket strategy */
    const placer_move *m;      /* placer_diff's ranges, when it has them */
    size_t nranges;
    uint64_t show_ranges, show_pairs;
} cli_diff_out;

/* The ideal: the least any placement must move to give every node its new
 * weight share (the sum of the shares nodes gain). -1 when out of memory. */
double cli_diff_ideal(const placer_snapshot *a, const placer_snapshot *b);

/* Print o in text on stdout, or into doc (not NULL: --json). Returns 0,
 * or -1 when out of memory. */
int cli_diff_print(const cli_diff_out *o, json_t *doc);

/* --replicas R: placer_diff_replicas' report r, in text on stdout or as
 * doc["replicas"]. Returns 0, or -1 when out of memory. */
int cli_diff_print_replicas(const placer_snapshot *a, const placer_snapshot *b, uint32_t R,
                            const placer_diff_report *r, json_t *doc);

#endif
