/*
 * peers.h -- baselines that sit in the same binary as placer's kernels, so
 * every figure can be read as a ratio from one run on one machine.
 */
#ifndef PLACER_BENCH_PEERS_H
#define PLACER_BENCH_PEERS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* std::lower_bound over sorted tokens, wrapped to 0 past the end. */
uint32_t peer_std_lower_bound(const uint64_t *tokens, uint32_t n, uint64_t h);

#ifdef __cplusplus
}
#endif

#endif
