/*
 * siphash_scalar.c -- SipHash-1-3 (and 2-4, for the reference vectors) one
 * key at a time, on any CPU: the reference the SIMD batch kernels match.
 */
#include "siphash.h"

uint64_t plc_siphash13(const plc_hash_key *k, const void *data, size_t len)
{
    return plc_siphash_body(k->k0, k->k1, data, len, 1, 3);
}

uint64_t plc_siphash24(const plc_hash_key *k, const void *data, size_t len)
{
    return plc_siphash_body(k->k0, k->k1, data, len, 2, 4);
}

void plc_siphash13_batch_scalar(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                                size_t n, uint64_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = plc_siphash_body(k->k0, k->k1, keys[i], lens[i], 1, 3);
}

void plc_siphash24_batch_scalar(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                                size_t n, uint64_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = plc_siphash_body(k->k0, k->k1, keys[i], lens[i], 2, 4);
}
