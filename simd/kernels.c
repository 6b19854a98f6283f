/*
 * kernels.c -- choose each job's kernel from the CPU features.
 *
 * One table of every job's kernel per CPU feature set, filled at its first
 * use (table_for); choosing is storing a pointer to one of them (release),
 * reading is one acquire load, a plain load on x86. Every kernel family of
 * libplacer is here, the compatibility modes' batch hashes included: no
 * other file asks the CPU or tests PLC_HAVE_*.
 */
#include "kernels.h"

#include <pthread.h>
#include <stdatomic.h>

#include "cpu.h"
#include "crc32.h"
#include "crc32c.h"
#include "bytehash.h"
#include "crc_batch.h"
#include "jump.h"
#include "md5x8.h"
#include "rendezvous.h"
#include "siphash.h"

#if defined(__aarch64__)
#define SIMD128_NAME "stree-neon"
#define SIMD128_NEEDS (PLC_CPU_ARM_NEON | PLC_CPU_ARM_CRC) /* fused kernels use crc32 */
#define CRC_HW_NEEDS PLC_CPU_ARM_CRC
#define CRC_HW_NAME "armv8-crc-3way"
#define HASH_HW_NAME "armv8-crc+mum"
#else
#define SIMD128_NAME "stree-sse4.2"
#define SIMD128_NEEDS PLC_CPU_SSE42
#define CRC_HW_NEEDS PLC_CPU_SSE42
#define CRC_HW_NAME "sse4.2-3way"
#define HASH_HW_NAME "sse4.2+mum"
#endif

/* The fused kernels of the SIMD files hash with the crc32 instruction, so
 * they also need the CPU's CRC feature: a mask that hides SSE4.2 gets the
 * scalar kernel and the software hash, consistently. */
#define KERNELS(isa)                                                                       \
    plc_stree_##isa, plc_stree_batch_##isa, plc_stree_key_##isa, plc_stree_key_batch_##isa, \
        plc_stree_index_##isa, plc_dir_##isa, plc_dir_batch_##isa, plc_bkt_##isa,               \
        plc_bkt_batch_##isa, plc_bkt_key_batch_##isa, plc_bkt_key_##isa, plc_bkt_index_##isa,  \
        plc_bkt_key_set_##isa, plc_bkt_key_sets_##isa

static const plc_search_kernel search_kernels[] = {
#if defined(PLC_HAVE_AVX512)
    {"stree-avx512", PLC_CPU_AVX512 | PLC_CPU_SSE42, KERNELS(avx512), plc_walk_window_avx512, plc_walk_lines_avx512},
#endif
#if defined(PLC_HAVE_AVX2)
    {"stree-avx2", PLC_CPU_AVX2 | PLC_CPU_SSE42, KERNELS(avx2), NULL, NULL},
#endif
#if defined(PLC_HAVE_SIMD128)
    {SIMD128_NAME, SIMD128_NEEDS, KERNELS(simd128), NULL, NULL},
#endif
    {"stree-scalar", 0, KERNELS(scalar), NULL, NULL},
};
#define NSEARCH (sizeof search_kernels / sizeof search_kernels[0])

typedef struct crc_choice {
    plc_crc32c_fn crc32c;
    plc_hash64_fn hash64_v1;
    plc_hash64_batch_fn hash64_v1_batch;
    plc_hash64_fn hash64_v2;
    plc_hash64_batch_fn hash64_v2_batch;
    plc_hash_fn hash_v1, hash_v2;
    plc_hash_batch_fn hash_v1_batch, hash_v2_batch;
    const char *crc32c_name, *hash64_name;
    unsigned needs;
} crc_choice;

#define CRC_HASHES(impl)                                                                        \
    plc_hash64_##impl, plc_hash64_batch_##impl, plc_hash64_v2_##impl, plc_hash64_v2_batch_##impl, \
        plc_hash_v1_##impl, plc_hash_v2_##impl, plc_hash_v1_batch_##impl, plc_hash_v2_batch_##impl

static const crc_choice crc_choices[] = {
#if defined(PLC_HAVE_AVX2) && defined(PLC_HAVE_CRC_HW)
    /* the same CRC, the hashes' multiplies as BMI2's mulx */
    {plc_crc32c_hw, CRC_HASHES(bmi2), CRC_HW_NAME, "sse4.2+mulx", PLC_CPU_AVX2 | PLC_CPU_SSE42},
#endif
#if defined(PLC_HAVE_CRC_HW)
    {plc_crc32c_hw, CRC_HASHES(hw), CRC_HW_NAME, HASH_HW_NAME, CRC_HW_NEEDS},
#endif
    {plc_crc32c_sw, CRC_HASHES(sw), "slicing-by-8", "crc32c-sw+mum", 0},
};

/* IEEE CRC-32: folding with PCLMULQDQ (and SSE4.1 extracts) or tables. */
typedef struct crc32_choice {
    plc_crc32c_fn fn;
    const char *name;
    unsigned needs;
} crc32_choice;

static const crc32_choice crc32_choices[] = {
#if defined(PLC_HAVE_CLMUL)
    {plc_crc32_clmul, "pclmul-fold", PLC_CPU_PCLMUL | PLC_CPU_SSE42},
#endif
    {plc_crc32_sw, "slicing-by-8", 0},
};

/* Rendezvous scoring: 8 candidates per step with AVX-512, or one. */
typedef struct hrw_choice {
    plc_hrw_best_fn best;
    plc_hrw_scores_fn scores;
    plc_hrw_best_fn best_uniform;
    plc_hrw_scores_fn scores_uniform;
    plc_hrw_classes_fn best_classes;
    const char *name;
    unsigned needs;
} hrw_choice;

static const hrw_choice hrw_choices[] = {
#if defined(PLC_HAVE_AVX512)
    {plc_hrw_best_avx512, plc_hrw_scores_avx512, plc_hrw_best_uniform_avx512,
     plc_hrw_scores_uniform_avx512, plc_hrw_best_classes_avx512, "hrw-avx512", PLC_CPU_AVX512},
#endif
    {plc_hrw_best_scalar, plc_hrw_scores_scalar, plc_hrw_best_uniform_scalar,
     plc_hrw_scores_uniform_scalar, plc_hrw_best_classes_scalar, "hrw-scalar", 0},
};

/* SipHash-1-3 across keys: 8, 4 or 2 lanes, or one key at a time. */
static const plc_siphash_kernel sip_choices[] = {
#if defined(PLC_HAVE_AVX512)
    {"siphash13-avx512", PLC_CPU_AVX512, plc_siphash13_batch_avx512, plc_siphash24_batch_avx512},
#endif
#if defined(PLC_HAVE_AVX2)
    {"siphash13-avx2", PLC_CPU_AVX2, plc_siphash13_batch_avx2, plc_siphash24_batch_avx2},
#endif
#if defined(PLC_HAVE_SIMD128) && !defined(__aarch64__)
    {"siphash13-sse", PLC_CPU_SSE42, plc_siphash13_batch_sse, plc_siphash24_batch_sse},
#endif
    {"siphash13-scalar", 0, plc_siphash13_batch_scalar, plc_siphash24_batch_scalar},
};
#define NSIP (sizeof sip_choices / sizeof sip_choices[0])

/* Jump hash: AVX2 lanes for batches; single keys with the loop in
 * doubles where SSE4.1 truncates (x86-64), else the paper's loop. */
typedef struct jump_choice {
    plc_jump_fn one;
    plc_jump_batch_fn batch;
    const char *name;
    unsigned needs;
} jump_choice;

static const jump_choice jump_choices[] = {
#if defined(PLC_HAVE_AVX2) && defined(PLC_HAVE_SIMD128) && !defined(__aarch64__)
    {plc_jump_sse41, plc_jump_batch_avx2, "jump-avx2", PLC_CPU_AVX2 | PLC_CPU_SSE42},
#endif
#if defined(PLC_HAVE_SIMD128) && !defined(__aarch64__)
    {plc_jump_sse41, plc_jump_batch_scalar, "jump-sse4.1", PLC_CPU_SSE42},
#endif
    {plc_jump_hash, plc_jump_batch_scalar, "jump-scalar", 0},
};

/* JumpBackHash's first step: eight keys a vector with AVX-512, four with
 * AVX2 or SSE4.1 (x86-64), else one after another. */
typedef struct jumpback_choice {
    plc_jumpback_first_fn first;
    const char *name;
    unsigned needs;
} jumpback_choice;

static const jumpback_choice jumpback_choices[] = {
#if defined(PLC_HAVE_AVX512)
    {plc_jumpback_first_avx512, "jumpback-avx512", PLC_CPU_AVX512},
#endif
#if defined(PLC_HAVE_AVX2)
    {plc_jumpback_first_avx2, "jumpback-avx2", PLC_CPU_AVX2},
#endif
#if defined(PLC_HAVE_SIMD128) && !defined(__aarch64__)
    {plc_jumpback_first_sse41, "jumpback-sse4.1", PLC_CPU_SSE42},
#endif
    {plc_jumpback_first_scalar, "jumpback-scalar", 0},
};

#if defined(PLC_HAVE_AVX512) && defined(PLC_HAVE_AVX2)
/* AVX-512 has its own kernel for some byte hashes (wt6): the others keep
 * their AVX2 one. */
static plc_bytehash_fn bytehash_avx512_or_avx2(int which)
{
    plc_bytehash_fn f = plc_bytehash_avx512(which);
    return f ? f : plc_bytehash_avx2(which);
}
#endif

/* The compatibility modes' batch hashes (engine/compat/compat_index.c):
 * MD5 of many keys at once, the byte hashes in lockstep, CRC batches by
 * carry-less multiplication. Each is NULL where no kernel applies: the
 * caller then hashes key by key (Nettle, the x4 loops). */
static void fill_compat(plc_kernels *k, unsigned f)
{
    (void)k; /* unused where no compat kernel is built (aarch64, s390x) */
    (void)f;
#if defined(PLC_HAVE_CLMUL)
    if ((f & (PLC_CPU_PCLMUL | PLC_CPU_SSE42)) == (PLC_CPU_PCLMUL | PLC_CPU_SSE42)) {
        k->crc32_batch = plc_crc32_batch_clmul;
        k->crc16_batch = plc_crc16_xmodem_batch_clmul;
        k->crc_batch_name = "crc-batch-pclmul";
    }
#endif
#if defined(PLC_HAVE_AVX2)
    if (f & PLC_CPU_AVX2) {
        k->md5_batch = plc_md5x16_avx2;
        k->md5_lanes = PLC_MD5X16_LANES;
        k->md5_name = "md5x16-avx2";
        k->bytehash = plc_bytehash_avx2;
        k->bytehash_name = "bytehash-avx2";
    }
#endif
#if defined(PLC_HAVE_AVX512) && defined(PLC_HAVE_AVX2)
    if ((f & (PLC_CPU_AVX512 | PLC_CPU_AVX2)) == (PLC_CPU_AVX512 | PLC_CPU_AVX2)) {
        k->md5_batch = plc_md5x32_avx512;
        k->md5_lanes = PLC_MD5X32_LANES;
        k->md5_name = "md5x32-avx512";
        k->bytehash = bytehash_avx512_or_avx2;
        k->bytehash_name = "bytehash-avx512";
    }
#endif
}

/* One table for the feature set f, filled the dav1d way: the portable
 * kernels first, then each family's first kernel whose features f has
 * (the lists above run fastest first and end with one that needs
 * nothing). */
static void fill(plc_kernels *k, unsigned f)
{
    size_t i = 0, c = 0, s = 0, r = 0, h = 0, j = 0, b = 0;
    while ((jump_choices[j].needs & f) != jump_choices[j].needs)
        j++;
    while ((jumpback_choices[b].needs & f) != jumpback_choices[b].needs)
        b++;
    while ((sip_choices[h].needs & f) != sip_choices[h].needs)
        h++;
    while ((crc32_choices[i].needs & f) != crc32_choices[i].needs)
        i++;
    while ((hrw_choices[r].needs & f) != hrw_choices[r].needs)
        r++;
    while ((crc_choices[c].needs & f) != crc_choices[c].needs)
        c++;
    while ((search_kernels[s].needs & f) != search_kernels[s].needs)
        s++;
    *k = (plc_kernels){
        .crc32c = crc_choices[c].crc32c,
        .crc32 = crc32_choices[i].fn,
        .hash64_v1 = crc_choices[c].hash64_v1,
        .hash64_v1_batch = crc_choices[c].hash64_v1_batch,
        .search = search_kernels[s].one,
        .search_batch = search_kernels[s].batch,
        .lookup = search_kernels[s].key_one,
        .lookup_batch = search_kernels[s].key_batch,
        .index = search_kernels[s].index,
        .dir_search = search_kernels[s].dir_one,
        .dir_search_batch = search_kernels[s].dir_batch,
        .bkt_search = search_kernels[s].bkt_one,
        .bkt_search_batch = search_kernels[s].bkt_batch,
        .bkt_lookup_batch = search_kernels[s].bkt_key_batch,
        .bkt_lookup = search_kernels[s].bkt_key_one,
        .bkt_index = search_kernels[s].bkt_index,
        .bkt_set = search_kernels[s].bkt_key_set,
        .bkt_sets_batch = search_kernels[s].bkt_key_sets,
        .walk_window = search_kernels[s].walk_window,
        .walk_lines = search_kernels[s].walk_lines,
        .crc32c_name = crc_choices[c].crc32c_name,
        .crc32_name = crc32_choices[i].name,
        .hash64_name = crc_choices[c].hash64_name,
        .search_name = search_kernels[s].name,
        .hrw_best = hrw_choices[r].best,
        .hrw_scores = hrw_choices[r].scores,
        .hrw_best_uniform = hrw_choices[r].best_uniform,
        .hrw_scores_uniform = hrw_choices[r].scores_uniform,
        .hrw_best_classes = hrw_choices[r].best_classes,
        .hrw_name = hrw_choices[r].name,
        .hash_v1 = crc_choices[c].hash_v1,
        .hash_v2 = crc_choices[c].hash_v2,
        .siphash13 = plc_siphash13,
        .hash_v1_batch = crc_choices[c].hash_v1_batch,
        .hash_v2_batch = crc_choices[c].hash_v2_batch,
        .siphash13_batch = sip_choices[h].sip13,
        .hash64_v2 = crc_choices[c].hash64_v2,
        .hash64_v2_batch = crc_choices[c].hash64_v2_batch,
        .siphash_name = sip_choices[h].name,
        .md5_name = "nettle",
        .bytehash_name = "bytehash-x4",
        .crc_batch_name = "none",
        .jump = jump_choices[j].one,
        .jump_batch = jump_choices[j].batch,
        .jump_name = jump_choices[j].name,
        .jumpback_first = jumpback_choices[b].first,
        .jumpback_name = jumpback_choices[b].name,
    };
    fill_compat(k, f);
}

/* One table per feature set (PLC_CPU_ALL + 1 of them), each filled once,
 * under the lock, before it is published, and never written again: a mask
 * change stores a pointer to another table and never touches one a reader
 * may be using. */
static plc_kernels tables[PLC_CPU_ALL + 1];
static _Atomic(unsigned char) filled[PLC_CPU_ALL + 1];
static pthread_mutex_t fill_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Atomic(const plc_kernels *) current;

static const plc_kernels *table_for(unsigned f)
{
    f &= PLC_CPU_ALL;
    if (!atomic_load_explicit(&filled[f], memory_order_acquire)) {
        pthread_mutex_lock(&fill_lock);
        if (!atomic_load_explicit(&filled[f], memory_order_relaxed)) {
            fill(&tables[f], f);
            atomic_store_explicit(&filled[f], 1, memory_order_release);
        }
        pthread_mutex_unlock(&fill_lock);
    }
    return &tables[f];
}

static void select_kernels(void)
{
    atomic_store_explicit(&current, table_for(plc_cpu_features()), memory_order_release);
}

static void init(void)
{
    plc_crc32c_tables_init();
    select_kernels();
}

void plc_kernels_reselect(void)
{
    pthread_once(&once, init);
    select_kernels();
}

const plc_kernels *plc_kernels_get(void)
{
    const plc_kernels *k = atomic_load_explicit(&current, memory_order_acquire);
    if (k)
        return k;
    pthread_once(&once, init);
    return atomic_load_explicit(&current, memory_order_acquire);
}

const plc_kernels *plc_kernels_sw(void)
{
    pthread_once(&once, init);
    return table_for(0);
}

const plc_search_kernel *plc_search_kernels(size_t *count)
{
    *count = NSEARCH;
    return search_kernels;
}

const plc_siphash_kernel *plc_siphash_kernels(size_t *count)
{
    *count = NSIP;
    return sip_choices;
}
