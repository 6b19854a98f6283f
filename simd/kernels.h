/*
 * kernels.h -- the dispatch table: one choice of kernel per job, made from
 * the CPU features at first use and again after plc_cpu_set_mask().
 *
 * Hot paths never look at CPU features: a snapshot copies the function
 * pointers it needs from this table when it is built (as zstd copies its
 * bmi2 flag into a context), and the free functions placer_crc32c /
 * placer_hash64 read the table through one atomic pointer load.
 */
#ifndef PLC_SIMD_KERNELS_H
#define PLC_SIMD_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "buckets.h"
#include "bytehash.h"
#include "dir.h"
#include "hashfn.h"
#include "jump.h"
#include "jumpback.h"
#include "rendezvous.h"
#include "stree.h"
#include "walk.h"

typedef void (*plc_md5_batch_fn)(const void *const *keys, const size_t *lens, size_t n,
                                 uint32_t *out);
typedef plc_bytehash_fn (*plc_bytehash_kernel_fn)(int which);
typedef void (*plc_crc_batch_fn)(const void *const *keys, const size_t *lens, size_t n,
                                 uint32_t *out);
typedef void (*plc_crc16_batch_fn)(const void *const *keys, const size_t *lens, size_t n, int stop,
                                   uint32_t *out);
typedef uint32_t (*plc_crc32c_fn)(uint32_t crc, const void *data, size_t len);
typedef uint64_t (*plc_hash64_fn)(uint64_t seed, const void *key, size_t len);
typedef void (*plc_hash64_batch_fn)(uint64_t seed, const void *const *keys, const size_t *lens,
                                    size_t n, uint64_t *out);

/* A search kernel over the S+ tree, and the CPU features it needs. */
typedef struct plc_search_kernel {
    const char *name;
    unsigned needs; /* PLC_CPU_* bits */
    plc_stree_fn one;
    plc_stree_batch_fn batch;
    plc_stree_key_fn key_one;           /* hash + descend */
    plc_stree_key_batch_fn key_batch;
    plc_stree_fn index; /* the slot, not its owner */
    plc_dir_fn dir_one;  /* the radix directory in front of the tree (dir.h) */
    plc_dir_batch_fn dir_batch;
    plc_bkt_fn bkt_one; /* the bucketed line table in front of the tree (buckets.h) */
    plc_bkt_batch_fn bkt_batch;
    plc_bkt_key_batch_fn bkt_key_batch; /* placer-v2 hash + lines, one pass */
    plc_bkt_key_fn bkt_key_one;
    plc_bkt_index_fn bkt_index;
    plc_bkt_key_set_fn bkt_key_set; /* placer-v2 hash + a replica set from the lines */
    plc_bkt_key_sets_fn bkt_key_sets;
    plc_walk_window_fn walk_window; /* the replica walk's first lap (walk.h) */
    plc_walk_lines_fn walk_lines;   /* the same from the line table */
} plc_search_kernel;

/* A SipHash batch kernel (1-3, and 2-4 for the reference vectors) and the
 * CPU features it needs. */
typedef struct plc_siphash_kernel {
    const char *name;
    unsigned needs; /* PLC_CPU_* bits */
    plc_hash_batch_fn sip13, sip24;
} plc_siphash_kernel;

typedef struct plc_kernels {
    plc_crc32c_fn crc32c;
    plc_crc32c_fn crc32; /* IEEE CRC-32 (zlib's) */
    plc_hash64_fn hash64_v1; /* placer-v1, the legacy hash */
    plc_hash64_batch_fn hash64_v1_batch;
    plc_stree_fn search;
    plc_stree_batch_fn search_batch;
    plc_stree_key_fn lookup;             /* fused hash + search */
    plc_stree_key_batch_fn lookup_batch;
    plc_stree_fn index;
    plc_dir_fn dir_search;         /* the directory, same instruction set as search */
    plc_dir_batch_fn dir_search_batch;
    plc_bkt_fn bkt_search; /* the line table, same instruction set as search */
    plc_bkt_batch_fn bkt_search_batch;
    plc_bkt_key_batch_fn bkt_lookup_batch; /* fused with placer-v2 */
    plc_bkt_key_fn bkt_lookup;
    plc_bkt_index_fn bkt_index; /* the first token >= h from the lines (replica walks) */
    plc_bkt_key_set_fn bkt_set; /* fused with placer-v2: a replica set from the line sets */
    plc_bkt_key_sets_fn bkt_sets_batch;
    plc_walk_window_fn walk_window; /* the replica walk's first lap, same instruction set */
    plc_walk_lines_fn walk_lines;   /* the same from the line table */
    const char *crc32c_name;
    const char *crc32_name;
    const char *hash64_name;
    const char *search_name;
    plc_hrw_best_fn hrw_best;
    plc_hrw_scores_fn hrw_scores;
    plc_hrw_best_fn hrw_best_uniform; /* every weight equal: no logarithm */
    plc_hrw_classes_fn hrw_best_classes; /* few distinct weights */
    plc_hrw_scores_fn hrw_scores_uniform;
    const char *hrw_name;
    /* The placement hashes with the shared snapshot signature (hashfn.h):
     * placer-v1 (legacy), placer-v2 (the default) and SipHash-1-3 (keyed),
     * single and batched across keys. placer_hash64 is hash64_v2. */
    plc_hash_fn hash_v1, hash_v2, siphash13;
    plc_hash_batch_fn hash_v1_batch, hash_v2_batch, siphash13_batch;
    plc_hash64_fn hash64_v2; /* placer-v2 with a plain seed */
    plc_hash64_batch_fn hash64_v2_batch;
    const char *siphash_name; /* the batch kernel: "siphash13-avx2" ... */
    /* The compatibility modes' batch hashes; NULL where no kernel applies
     * (the caller hashes key by key). */
    plc_md5_batch_fn md5_batch;        /* MD5's first word, md5_lanes keys at a time */
    size_t md5_lanes;
    plc_bytehash_kernel_fn bytehash;   /* the lockstep kernel of a byte hash (bytehash.h) */
    plc_crc_batch_fn crc32_batch;      /* IEEE CRC-32 of each key */
    plc_crc16_batch_fn crc16_batch;    /* CRC16-XMODEM of each key */
    const char *md5_name, *bytehash_name, *crc_batch_name;
    /* Jump hash (memento's first step), bit-identical to plc_jump_hash:
     * one key, and a batch of keys' loops in flight. */
    plc_jump_fn jump;
    plc_jump_batch_fn jump_batch;
    const char *jump_name;
    /* JumpBackHash's first step for a batch of positions (jumpback.h). */
    plc_jumpback_first_fn jumpback_first;
    const char *jumpback_name;
} plc_kernels;

/* The current table; never NULL. Thread-safe. */
const plc_kernels *plc_kernels_get(void);

/* The table a CPU without any feature gets (reference for tests, benchmarks). */
const plc_kernels *plc_kernels_sw(void);

/* Re-choose the kernels after a change of plc_cpu_set_mask(). */
void plc_kernels_reselect(void);

/* Every search kernel compiled in, fastest first; the last needs nothing. */
const plc_search_kernel *plc_search_kernels(size_t *count);

/* Every SipHash batch kernel compiled in, widest first; the last needs nothing. */
const plc_siphash_kernel *plc_siphash_kernels(size_t *count);

#endif
