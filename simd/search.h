/*
 * search.h -- token-search kernels: pure functions over sorted arrays.
 * Every kernel returns exactly what lower_bound-with-wrap returns.
 */
#ifndef PLC_SIMD_SEARCH_H
#define PLC_SIMD_SEARCH_H

#include <stdint.h>

uint32_t plc_search_branchless(const uint64_t *tokens, uint32_t n, uint64_t h);

#endif
