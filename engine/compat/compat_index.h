/*
 * compat_index.h -- a compatibility layout made fast: its 32-bit points
 * searched through placer's own S+ tree and kernels (point p is the 64-bit
 * token p << 32, a key's hash h the query h << 32: the first token >= the
 * query is the first point >= h), and MD5 key hashes computed 16 keys at a
 * time with AVX2, 32 with AVX-512, where the CPU has it. Rings large enough get the native
 * ring's radix directory too.
 */
#ifndef PLC_ENGINE_COMPAT_INDEX_H
#define PLC_ENGINE_COMPAT_INDEX_H

#include "bytehash.h"
#include "compat.h"
#include "crc_batch.h"
#include "dir.h"
#include "key_rule.h"
#include "stree.h"

typedef struct plc_compat_index {
    plc_compat_layout layout;
    plc_key_rule rule; /* how a request becomes the key (key_rule.h); kind 0: none */
    char rule_text[PLC_KEY_RULE_TEXT_MAX]; /* placer_snapshot_key_rule's */
    plc_stree tree;               /* RING layouts */
    void *nodes, *leaves;
    plc_stree_fn search;
    plc_stree_batch_fn search_batch;
    /* batches hash MD5 keys md5_lanes at a time with plc_md5x32_avx512 (32)
     * or plc_md5x16_avx2 (16); NULL: no MD5 kernel for this layout */
    void (*md5_kernel)(const void *const *keys, const size_t *lens, size_t n, uint32_t *out);
    unsigned md5_lanes;
    plc_compat_hash_x4_fn x4;     /* batches hash four keys in lockstep */
    plc_bytehash_fn wide;         /* ... or 16 keys of one length across SIMD lanes */
    /* A CRC key hash over whole batches by carry-less multiplication:
     * IEEE CRC-32 (crc15: libmemcached's 15 bits of it), or Redis'
     * CRC16 (crc_batch.h). NULL without PCLMULQDQ. */
    void (*crc32)(const void *const *keys, const size_t *lens, size_t n, uint32_t *out);
    void (*crc16)(const void *const *keys, const size_t *lens, size_t n, int stop, uint32_t *out);
    int crc15;
    int crc16_unmasked; /* twemproxy's crc16: the register's bits above 16 too */
    /* What the kernels' values become (the program's batch_rule, PLC_CK_*,
     * resolved for this layout: PLC_CK_FUNCTION where it does nothing
     * here), and the program's fixed tag (Redis' "{}"), cut before the
     * lockstep hashes and stopping the CRC16 batch; both NUL for none. */
    int hash_rule;
    char tag[2];
    /* The radix directory in front of the tree (simd/dir.h), as the native
     * ring has it: batches read one entry for most keys. dir_batch is NULL
     * when the ring is too small for one to pay. */
    plc_dir dir;
    void *dir_mem;
    plc_dir_batch_fn dir_batch;
} plc_compat_index;

/* Build the layout of c (plc_compat_layout_build's errors) and its search
 * tree, with the kernels the CPU features allow now (placer_set_cpu_mask
 * before the build chooses others). Release with plc_compat_index_free.
 * The directory points at x->tree: x must not move once built. */
int plc_compat_index_build(plc_compat_index *x, const plc_compat_config *c);
void plc_compat_index_free(plc_compat_index *x);

/* Only the key hashing of c's layout (plc_compat_layout_resolve's errors):
 * x->layout has no points or table, so only plc_compat_index_hash_batch
 * and plc_compat_key_hash(&x->layout, ...) may be used (what a Redis
 * partitions snapshot hashes its slots with). Release with
 * plc_compat_index_free. */
int plc_compat_index_hash_only(plc_compat_index *x, const plc_compat_config *c);

/* Owner of one key; the same answer as plc_compat_lookup on the layout. */
uint32_t plc_compat_index_lookup(const plc_compat_index *x, const void *key, size_t len);

/* Owners of n keys (keys[i] may be NULL only when lens[i] is 0). */
void plc_compat_index_lookup_batch(const plc_compat_index *x, const void *const *keys,
                                   const size_t *lens, size_t n, uint32_t *owners);

/* The programs' 32-bit key hashes of n keys (plc_compat_key_hash each). */
void plc_compat_index_hash_batch(const plc_compat_index *x, const void *const *keys,
                                 const size_t *lens, size_t n, uint32_t *hashes);

#endif
