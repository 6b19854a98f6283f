/*
 * hashfn.h -- one signature for every placement hash a snapshot can use, so
 * the data plane calls "the snapshot's hash" through one pointer whatever it
 * is keyed with: the 64-bit seed of placer-v1 / placer-v2, or the 128-bit
 * secret of SipHash-1-3.
 *
 * Batch pipelines (the lookup batches of every strategy) hash a group of
 * keys into uint64_t h[] through plc_hash_batch_fn, then look owners up from
 * h[]. A batch function may read keys[i] and lens[i] in any order and writes
 * out[0..n-1] only; n may be 0. Every implementation of one hash returns the
 * same values, bit for bit, on every CPU path.
 */
#ifndef PLC_SIMD_HASHFN_H
#define PLC_SIMD_HASHFN_H

#include <stddef.h>
#include <stdint.h>

/* What a hash is keyed with. seed: placer-v1 / placer-v2; k0, k1: SipHash
 * (secret bytes 0-7 and 8-15, little-endian). Unused fields are ignored. */
typedef struct plc_hash_key {
    uint64_t seed;
    uint64_t k0, k1;
} plc_hash_key;

typedef uint64_t (*plc_hash_fn)(const plc_hash_key *k, const void *key, size_t len);
typedef void (*plc_hash_batch_fn)(const plc_hash_key *k, const void *const *keys,
                                  const size_t *lens, size_t n, uint64_t *out);

#endif
