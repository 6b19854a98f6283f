/*
 * bench_directory.c -- the radix directory's matrix: the ring lookup through the radix
 * directory (simd/dir.h) against the floor, a reference S+ tree and
 * CRC32C + std::lower_bound, per instruction set (forced with the CPU mask:
 * avx512, avx2, sse4.2, scalar; skipped when the CPU lacks one) and per size
 * (1,024 .. 2^24 tokens), 32-byte keys, items are lookups:
 *   ring/ISA/SIZE/placer_dir/batch   placer's hash (batch kernel) + directory
 *   ring/ISA/SIZE/placer_dir/single  one key at a time
 *   ring/ISA/SIZE/placer_stree/batch the S+ tree's fused kernel (before the directory)
 *   ring/ISA/SIZE/reference_stree    CRC32C + fmix64, bench/baselines.c's tree
 *   ring/ISA/SIZE/floor              CRC32C + fmix64 + one 4-byte table read
 *   ring/ISA/SIZE/crc32c+std_lower_bound  CRC32C + fmix64, std::lower_bound, owner
 *   ring/ISA/SIZE/placer_hash_only, crc32c+fmix64_only  the two hashes alone
 *                                    (batched): what the rest of each costs
 *   ring/ISA/SIZE/.../search_only    pre-hashed keys: the directory, the S+
 *                                    tree and the floor's table read alone
 * Every case checks its answers once against the S+ tree before timing.
 * PLACER_BENCH_DIR_BITS=k in the environment forces a 2^k-entry directory
 * instead of plc_dir_choose_bits's (to measure the trade-off).
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "baselines.h"
#include "benches.h"
#include "cpu.h"
#include "dir.h"
#include "fixtures.h"
#include "kernels.h"
#include "peers.h"
#include "shim.h"
#include "snapshot_internal.h"

#define CHUNK 256u

enum what { DIR_BATCH, DIR_SINGLE, STREE_BATCH, REF_STREE, FLOOR, STD_LB, PLACER_HASH, BASE_HASH, DIR_SEARCH, STREE_SEARCH,
           FLOOR_SEARCH, NWHAT };
static const char *const what_names[NWHAT] = {"placer_dir/batch", "placer_dir/single",
                                              "placer_stree/batch", "reference_stree",
                                              "floor", "crc32c+std_lower_bound",
                                              "placer_hash_only", "crc32c+fmix64_only",
                                              "placer_dir/search_only", "placer_stree/search_only",
                                              "floor/search_only"};

typedef struct isa_desc {
    const char *name;
    unsigned mask; /* placer_set_cpu_mask */
    int base;      /* BASE_* of the baselines */
} isa_desc;

static const isa_desc isas[] = {
    {"avx512", ~0u, BASE_AVX2},
    {"avx2", PLC_CPU_SSE42 | PLC_CPU_PCLMUL | PLC_CPU_AVX2, BASE_AVX2},
    {"sse4.2", PLC_CPU_SSE42 | PLC_CPU_PCLMUL, BASE_SSE42},
    {"scalar", 0, BASE_SCALAR},
};
#define NISA (sizeof isas / sizeof isas[0])

typedef struct dir_case {
    int isa, size, what;
} dir_case;

/* Per size: the directory over the fixture's tree, the reference tree, the
 * floor's table. Built on first use. */
typedef struct dir_fixture {
    plc_dir dir;
    ref_stree ref;
    uint32_t *table;
    int built;
} dir_fixture;
static dir_fixture dfix[BENCH_NSIZES];

static const dir_fixture *dir_fixture_get(int size, const ring_fixture *f)
{
    dir_fixture *d = &dfix[size];
    if (d->built)
        return d;
    size_t nb, lb;
    plc_stree_size(f->size, &nb, &lb);
    uint32_t bits = plc_dir_choose_bits(f->size, nb + lb);
    const char *force_bits = getenv("PLACER_BENCH_DIR_BITS"); /* experiments: another size */
    if (force_bits && atoi(force_bits) > 0 && atoi(force_bits) <= (int)PLC_DIR_MAX_BITS)
        bits = (uint32_t)atoi(force_bits);
    size_t bytes = (plc_dir_bytes(bits ? bits : 1) + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    void *mem = aligned_alloc(2u << 20, bytes);
    madvise(mem, bytes, MADV_HUGEPAGE); /* as snapshots get (engine/alloc.c) */
    plc_dir_build(&d->dir, f->tree, bits ? bits : 1, mem);
    ref_stree_build(&d->ref, f->tokens, f->owners, f->size);
    d->table = malloc((size_t)f->size * sizeof *d->table);
    for (uint32_t i = 0; i < f->size; i++)
        d->table[i] = f->owners[i];
    d->built = 1;
    return d;
}

/* The kernels the mask selects: NULL when the CPU lacks the instruction set. */
static const plc_kernels *force(const isa_desc *isa)
{
    unsigned want = isa->mask == ~0u ? (PLC_CPU_AVX512 | PLC_CPU_AVX2 | PLC_CPU_SSE42) : isa->mask;
    want &= PLC_CPU_AVX512 | PLC_CPU_AVX2 | PLC_CPU_SSE42;
    if ((plc_cpu_detected() & want) != want)
        return NULL;
    placer_set_cpu_mask(isa->mask);
    return plc_kernels_get();
}

/* One chunk of keys [at, at + CHUNK) by the case's method. */
static void run_chunk(const dir_case *c, const plc_kernels *kt, const ring_fixture *f,
                      const dir_fixture *d, uint32_t at, uint64_t *h, uint32_t *out)
{
    int base = isas[c->isa].base;
    const void *const *keys = f->key_ptrs + at;
    const size_t *lens = f->key_lens + at;
    switch (c->what) {
    case DIR_BATCH:
        kt->hash64_v2_batch(f->snap->seed, keys, lens, CHUNK, h);
        kt->dir_search_batch(&d->dir, h, CHUNK, out);
        break;
    case DIR_SINGLE:
        for (uint32_t i = 0; i < CHUNK; i++)
            out[i] = kt->dir_search(&d->dir, kt->hash64_v2(f->snap->seed, keys[i], lens[i]));
        break;
    case STREE_BATCH:
        kt->lookup_batch(f->tree, f->snap->seed, keys, lens, CHUNK, out);
        break;
    case REF_STREE:
        base_hash_batch(base, keys, lens, CHUNK, h);
        ref_stree_batch(base, &d->ref, h, CHUNK, out);
        break;
    case FLOOR:
        base_hash_batch(base, keys, lens, CHUNK, h);
        base_floor_batch(d->table, f->size, h, CHUNK, out);
        break;
    case PLACER_HASH:
        kt->hash64_v2_batch(f->snap->seed, keys, lens, CHUNK, h);
        out[0] = (uint32_t)h[0];
        break;
    case BASE_HASH:
        base_hash_batch(base, keys, lens, CHUNK, h);
        out[0] = (uint32_t)h[0];
        break;
    case DIR_SEARCH:
        kt->dir_search_batch(&d->dir, f->hashes + at, CHUNK, out);
        break;
    case STREE_SEARCH:
        kt->search_batch(f->tree, f->hashes + at, CHUNK, out);
        break;
    case FLOOR_SEARCH:
        base_floor_batch(d->table, f->size, f->hashes + at, CHUNK, out);
        break;
    default: /* STD_LB */
        for (uint32_t i = 0; i < CHUNK; i++)
            out[i] = f->owners[peer_std_lower_bound(f->tokens, f->size,
                                                    base_hash(base, keys[i], lens[i]))];
    }
}

/* The answers of a chunk, checked against the S+ tree on the same hashes
 * (the floor has none to check: any owner is its answer). */
static int answers_ok(const dir_case *c, const plc_kernels *kt, const ring_fixture *f,
                      const dir_fixture *d)
{
    uint64_t h[CHUNK];
    uint32_t out[CHUNK];
    run_chunk(c, kt, f, d, 0, h, out);
    for (uint32_t i = 0; i < CHUNK && c->what != FLOOR && c->what != FLOOR_SEARCH &&
                                   c->what != PLACER_HASH && c->what != BASE_HASH; i++) {
        uint64_t x = c->what == REF_STREE || c->what == STD_LB
                         ? base_hash(isas[c->isa].base, f->key_ptrs[i], f->key_lens[i])
                         : f->hashes[i];
        if (out[i] != plc_stree_scalar(f->tree, x))
            return 0;
    }
    return 1;
}

static void bench(plc_bench *b, const void *arg)
{
    const dir_case *c = arg;
    const plc_kernels *kt = force(&isas[c->isa]);
    if (!kt) {
        plc_bench_skip(b, "this CPU lacks the instruction set");
        return;
    }
    const ring_fixture *f = bench_fixture(c->size);
    const dir_fixture *d = dir_fixture_get(c->size, f);
    if (!answers_ok(c, kt, f, d)) {
        placer_set_cpu_mask(~0u);
        plc_bench_skip(b, "wrong answers: not timed");
        return;
    }
    uint64_t h[CHUNK];
    uint32_t out[CHUNK];
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS))
        for (uint32_t at = 0; at < BENCH_KEYS; at += CHUNK) {
            run_chunk(c, kt, f, d, at, h, out);
            acc += out[0];
        }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_counter(b, "tokens", (double)f->size, 0);
    if (c->what == DIR_BATCH) {
        size_t nb, lb;
        plc_stree_size(f->size, &nb, &lb);
        double bytes = (double)(nb + lb + plc_dir_bytes(d->dir.bits));
        plc_bench_counter(b, "dir_bits", d->dir.bits, 0);
        plc_bench_counter(b, "memory_vs_plain", bytes / (12.0 * f->size), 0);
        plc_bench_counter(b, "one_read_share",
                          (double)d->dir.nowner / (double)((uint64_t)1 << d->dir.bits), 0);
    }
    plc_bench_label(b, kt->search_name);
    placer_set_cpu_mask(~0u);
}

#define MAX_CASES (NISA * BENCH_NSIZES * NWHAT)
static dir_case cases[MAX_CASES];
static char names[MAX_CASES][64];

void register_directory_benches(void)
{
    int nc = 0;
    for (int s = 0; s < BENCH_NSIZES; s++)
        for (int i = 0; i < (int)NISA; i++)
            for (int w = 0; w < NWHAT; w++) {
                cases[nc] = (dir_case){i, s, w};
                snprintf(names[nc], sizeof names[nc], "ring/%s/%s/%s", isas[i].name,
                         bench_size_name(s), what_names[w]);
                plc_bench_register(names[nc], bench, &cases[nc]);
                nc++;
            }
}
