/*
 * eytzinger.h -- sorted tokens in Eytzinger (BFS) order, 1-based: the
 * children of slot k are 2k and 2k+1 (Khuong & Morin, "Array layouts for
 * comparison-based searching"). The search is branchless and prefetches the
 * line holding slot k's descendants three levels down (8 keys of 8 bytes
 * fill a 64-byte line), so the memory of later levels is on its way while
 * the current one is compared.
 *
 * A kernel to compare against the S+ tree (stree.h), which the snapshot
 * uses; pure functions over memory the caller provides.
 */
#ifndef PLC_SIMD_EYTZINGER_H
#define PLC_SIMD_EYTZINGER_H

#include <stddef.h>
#include <stdint.h>

typedef struct plc_eytzinger {
    const uint64_t *key;   /* key[1..n]; &key[8] is 64-byte aligned */
    const uint32_t *owner; /* owner[1..n] */
    uint32_t n;
    uint32_t wrap_owner;
} plc_eytzinger;

/* Bytes for keys and owners of n tokens (each array needs 64-byte alignment). */
void plc_eytzinger_size(uint32_t n, size_t *key_bytes, size_t *owner_bytes);

void plc_eytzinger_build(plc_eytzinger *e, const uint64_t *tokens, const uint32_t *owners,
                         uint32_t n, uint64_t *key_mem, uint32_t *owner_mem);

uint32_t plc_eytzinger_search(const plc_eytzinger *e, uint64_t h);
void plc_eytzinger_batch(const plc_eytzinger *e, const uint64_t *h, size_t n, uint32_t *owners);

#endif
