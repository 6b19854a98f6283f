/*
 * peers.h -- baselines that sit in the same binary as placer's kernels, so
 * every figure can be read as a ratio from one run on one machine.
 */
#ifndef PLACER_BENCH_PEERS_H
#define PLACER_BENCH_PEERS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* std::lower_bound over sorted tokens, wrapped to 0 past the end. */
uint32_t peer_std_lower_bound(const uint64_t *tokens, uint32_t n, uint64_t h);

/* The continuum search of ketama as libmemcached and twemproxy write it: a
 * branchy binary search, wrapping to the first point. */
uint32_t peer_ketama_search(const uint64_t *tokens, uint32_t n, uint64_t h);

/* libmemcached in ketama mode (MD5, weights 1) over `servers` entries on
 * 127.0.0.1; memcached_generate_hash only hashes, it never connects.
 * Returns NULL when placer_bench was built without libmemcached. */
void *peer_libmemcached_new(int servers);
uint32_t peer_libmemcached_hash(void *m, const char *key, size_t len);
/* libmemcached with MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED (MD5 points and keys)
 * over servers 127.0.0.1:20000+i, weight 1 + i % 2; NULL without it. */
void *peer_libmemcached_weighted_new(int servers);

#ifdef __cplusplus
}
#endif

#endif
