/*
 * simulate_balance.h -- the simulator's view of balanced tokens: a ring through a
 * series of joins and drains (random or balanced tokens), and a hot-key
 * workload placed with and without bounded loads. Public API only.
 */
#ifndef PLC_CLI_SIMULATE_BALANCE_H
#define PLC_CLI_SIMULATE_BALANCE_H

#include <stdint.h>

#include "placer.h"
#include "simulate.h"

/* The churn of a ring (plc_sim_churn): the membership's nodes with v
 * tokens per node of mean weight and PLACER_TOKENS_* `tokens`; the joining
 * nodes have the mean weight, zones round robin. */
/* Returns 0, PLACER_ENOMEM, PLACER_EINVAL (joins + nodes past the caps) or
 * a build error. */
int plc_sim_churn_run(const placer_builder *m, int tokens, uint32_t v, uint32_t joins,
                      uint32_t drains, plc_sim_churn *out);

/* The hot keys (plc_sim_hot): `requests` requests drawn from the keys by
 * their QPS (fixed seed). */
/* Returns 0, PLACER_ENOMEM or what placer_lookup_bounded returns. */
int plc_sim_hot_run(const placer_snapshot *s, const plc_keys *keys, double c, uint64_t requests,
                    uint64_t seed, plc_sim_hot *out);

#endif
