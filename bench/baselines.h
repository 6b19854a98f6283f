/*
 * baselines.h -- what a user could write in an afternoon, as baselines for
 * placer's ring lookup (bench_directory.c's matrix), each in the instruction set the
 * benchmark forces:
 *   the hash:   CRC-32C of the key (the crc32 instruction, or placer's
 *               software tables without SSE4.2) finished with murmur3's
 *               fmix64, the cheapest decent 64-bit hash;
 *   the floor:  that hash and one read of a 4-byte table of the ring's size
 *               at a hash-derived index: nothing answers with less;
 *   a reference S+ tree: 8 keys per 64-byte node, 9 children, sorted
 *               tokens 8 per leaf line and owners in a parallel array;
 *               batches descend 16 queries in lockstep and prefetch each
 *               query's next node (AVX2 compares when forced, else scalar).
 */
#ifndef PLACER_BENCH_BASELINES_H
#define PLACER_BENCH_BASELINES_H

#include <stddef.h>
#include <stdint.h>

#define REF_MAX_LEVELS 12

typedef struct ref_stree {
    int64_t *level[REF_MAX_LEVELS]; /* root first; the last is the leaves */
    uint32_t nlevels;               /* including the leaves */
    uint32_t n;
    const uint32_t *owners;         /* owner of sorted token i */
} ref_stree;

/* Build over n >= 1 sorted tokens (copied) and owners (kept by pointer). */
void ref_stree_build(ref_stree *t, const uint64_t *tokens, const uint32_t *owners, uint32_t n);

/* The instruction sets a baseline can be run in. */
enum { BASE_SCALAR, BASE_SSE42, BASE_AVX2 };

/* CRC-32C + fmix64 of n keys into h[]. */
void base_hash_batch(int isa, const void *const *keys, const size_t *lens, size_t n, uint64_t *h);
uint64_t base_hash(int isa, const void *key, size_t len);

/* Owners of n hashes by the reference tree, 16 in lockstep. */
void ref_stree_batch(int isa, const ref_stree *t, const uint64_t *h, size_t n, uint32_t *owners);

/* The floor: table[floor(h * size / 2^64)] for each hash. */
void base_floor_batch(const uint32_t *table, uint32_t size, const uint64_t *h, size_t n,
                      uint32_t *owners);

/* The same hash with the key length fixed at 32 bytes at compile time (as
 * placer's batch kernels specialise it): four crc32 steps, no length loop. */
void base_hash32_batch(int isa, const void *const *keys, size_t n, uint64_t *h);

/* The floor with that hash, in one loop: fmix64(CRC-32C) of each 32-byte
 * key and one read of table[h >> (64 - bits)] (2^bits 4-byte entries,
 * bits >= 1): nothing that answers from the key costs less. */
void base_floor32_batch(int isa, const uint32_t *table, uint32_t bits, const void *const *keys,
                        size_t n, uint32_t *owners);

/* The floor's hash of one 32-byte key (the length fixed at compile time). */
uint64_t base_hash32(int isa, const void *key);

/* The floor of one key, for a chain of dependent lookups (each key chosen
 * by the previous answer): the same hash and one table read. */
uint32_t base_floor32_one(int isa, const uint32_t *table, uint32_t bits, const void *key);
#endif
