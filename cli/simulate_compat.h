/*
 * simulate_compat.h -- `placer simulate` of a compatibility-mode membership
 * (docs/COMPAT.md): the program's own placement (its key hash and points,
 * through placer_lookup), not placer's strategies: the load per node by
 * keys, bytes and QPS against the weights, what a join of one node of the
 * mean weight moves, and what removing the first node moves (the programs
 * have no drain: a move is two configurations).
 */
#ifndef PLACER_CLI_SIMULATE_COMPAT_H
#define PLACER_CLI_SIMULATE_COMPAT_H

#include <stddef.h>

#include "simulate.h"

/* 1 when the membership text (len bytes) selects a compatibility mode. */
int cli_sim_is_compat(const char *text, size_t len);

/* Simulate the membership text (file: its name, for messages) under the
 * workload; print a table or (json) one JSON object. Returns a CLI_*
 * exit status. */
int cli_simulate_compat(const char *text, size_t len, const char *file, const plc_workload *work,
                        int json);

#endif
