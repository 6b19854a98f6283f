/* murmur3_cassandra.h -- the MurmurHash3 x64_128 variant of Apache
 * Cassandra's MurmurHash.hash3_x64_128, the hash of its Murmur3Partitioner. */
#ifndef PLC_SIMD_MURMUR3_CASSANDRA_H
#define PLC_SIMD_MURMUR3_CASSANDRA_H

#include <stddef.h>
#include <stdint.h>

#include "hashfn.h"

/* The first 64 bits (h1) of Cassandra's hash3_x64_128(key, seed 0). It
 * differs from Appleby's MurmurHash3 only in the tail: Cassandra's Java
 * widens each of the last len % 16 bytes as a signed byte, so a byte of
 * 0x80 or more sets every bit above it before the shift. Portable (bytes
 * read one by one): the same bits on every machine. */
uint64_t plc_murmur3_cassandra(const void *key, size_t len);

/* PLACER_HASH_CASSANDRA_MURMUR3: the Murmur3Partitioner token of the key
 * (Long.MIN_VALUE normalized to Long.MAX_VALUE; the empty key's is the
 * partitioner's MINIMUM, Long.MIN_VALUE) mapped order-preservingly to
 * unsigned, (uint64_t)token ^ 1 << 63. k is ignored. */
uint64_t plc_hash_cassandra(const plc_hash_key *k, const void *key, size_t len);
void plc_hash_cassandra_batch(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                              size_t n, uint64_t *out);

#endif
