/*
 * diff_sampled.h -- `placer diff` by keys, for snapshots that hash keys
 * differently (a compat snapshot and a placer ring, two compat modes, two
 * seeds): each key of a sample looked up in both, the moved fraction with
 * the sample size and a 95% interval, and per node what it gives and
 * receives. The sample is a key file or N generated keys.
 */
#ifndef PLACER_CLI_DIFF_SAMPLED_H
#define PLACER_CLI_DIFF_SAMPLED_H

#include <stdint.h>

#include "placer.h"

#define CLI_DIFF_DEFAULT_SAMPLE 100000u

typedef struct cli_diff_sample {
    const char *key_file; /* one key a line; NULL: generated keys */
    uint64_t generated;   /* how many generated keys (key_file NULL) */
    int json;
} cli_diff_sample;

/* Print the sampled diff of a to b (text, or one JSON object). Returns a
 * CLI_* exit status. */
int cli_diff_sampled(const placer_snapshot *a, const placer_snapshot *b, const cli_diff_sample *o);

#endif
