/* murmur3_cassandra.h -- the MurmurHash3 x64_128 variant of Apache
 * Cassandra's MurmurHash.hash3_x64_128, the hash of its Murmur3Partitioner. */
#ifndef PLC_SIMD_MURMUR3_CASSANDRA_H
#define PLC_SIMD_MURMUR3_CASSANDRA_H

#include <stddef.h>
#include <stdint.h>

/* The first 64 bits (h1) of Cassandra's hash3_x64_128(key, seed 0). It
 * differs from Appleby's MurmurHash3 only in the tail: Cassandra's Java
 * widens each of the last len % 16 bytes as a signed byte, so a byte of
 * 0x80 or more sets every bit above it before the shift. Portable (bytes
 * read one by one): the same bits on every machine. */
uint64_t plc_murmur3_cassandra(const void *key, size_t len);

#endif
