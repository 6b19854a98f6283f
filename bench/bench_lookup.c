/*
 * bench_lookup.c -- the lookup matrix: ring sizes 1,024 / 30,720 (the seed
 * ring, 120 nodes x 256) / 2^18 / 2^20 / 2^22 / 2^24; every search kernel
 * compiled in (skipped with a reason when the CPU lacks it), single and
 * batched; pre-hashed keys (search/...: search + owner) and 32-byte keys
 * (lookup/...: hash + search + owner). Beside them, on the same tokens and
 * keys: std::lower_bound, ketama's branchy search, jump hash over the same
 * node count, CRC32C + std::lower_bound, and the random-access limit
 * (independent random 64-byte loads over a buffer the size of the layout:
 * what one cache miss per lookup costs). Items are lookups.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "benches.h"
#include "cpu.h"
#include "fixtures.h"
#include "kernels.h"
#include "peers.h"
#include "search.h"
#include "shim.h"
#include "snapshot_internal.h"

#define HASH_CHUNK 256u

enum mode { SEARCH, LOOKUP };
enum peer {
    KERNEL,          /* kernel >= 0: an S+ tree kernel */
    EYTZINGER,
    BRANCHLESS,
    STD_LOWER_BOUND,
    KETAMA_BRANCHY,
    JUMP_HASH,
    RANDOM_ACCESS,
    CRC32C_STD,
    PUBLIC_API,
};

typedef struct lookup_case {
    int size;
    int peer;
    int kernel; /* index into plc_search_kernels() for KERNEL */
    int mode;
    int batch;
} lookup_case;

/* Random line indices over a buffer the size of the layout, per size. */
static uint64_t *ra_buf[BENCH_NSIZES];
static uint32_t *ra_idx[BENCH_NSIZES];

static void random_access_setup(int size, const ring_fixture *f)
{
    if (ra_buf[size])
        return;
    size_t lines = placer_snapshot_layout_bytes(f->snap) / 64;
    size_t bytes = (lines * 64 + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    ra_buf[size] = aligned_alloc(2u << 20, bytes);
    /* The same page treatment as snapshots get (engine/alloc.c). */
    madvise(ra_buf[size], bytes, MADV_HUGEPAGE);
    memset(ra_buf[size], 1, lines * 64);
    ra_idx[size] = malloc(BENCH_KEYS * sizeof(uint32_t));
    for (uint32_t k = 0; k < BENCH_KEYS; k++)
        ra_idx[size][k] = (uint32_t)(f->hashes[k] % lines);
}

static uint64_t hash_keys(const ring_fixture *f, uint32_t i)
{
    return f->snap->hash(&f->snap->hkey, f->key_ptrs[i], BENCH_KEY_LEN);
}

static void bench(plc_bench *b, const void *arg)
{
    const lookup_case *c = arg;
    size_t nk;
    const plc_search_kernel *ks = plc_search_kernels(&nk);
    const plc_search_kernel *k = c->peer == KERNEL ? &ks[c->kernel] : NULL;
    if (k && (k->needs & plc_cpu_detected()) != k->needs) {
        plc_bench_skip(b, "this CPU lacks the instruction set");
        return;
    }
    const ring_fixture *f = bench_fixture(c->size);
    const plc_kernels *kt = plc_kernels_get();
    const plc_stree *t = f->tree;
    if (c->peer == RANDOM_ACCESS)
        random_access_setup(c->size, f);
    const uint64_t *hs = f->hashes;
    uint32_t out[HASH_CHUNK];
    uint64_t h[HASH_CHUNK];
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS)) {
        if (c->batch) {
            for (uint32_t at = 0; at < BENCH_KEYS; at += HASH_CHUNK) {
                const uint64_t *hh = hs + at;
                if (c->mode == LOOKUP && c->peer == KERNEL) { /* fused hash + descent */
                    k->key_batch(t, f->snap->seed, f->key_ptrs + at, f->key_lens + at, HASH_CHUNK, out);
                    acc += out[at & (HASH_CHUNK - 1)];
                    continue;
                }
                if (c->mode == LOOKUP && c->peer != PUBLIC_API) {
                    kt->hash64_v2_batch(f->snap->seed, f->key_ptrs + at, f->key_lens + at, HASH_CHUNK, h);
                    hh = h;
                }
                switch (c->peer) {
                case KERNEL: k->batch(t, hh, HASH_CHUNK, out); break;
                case EYTZINGER: plc_eytzinger_batch(&f->eyt, hh, HASH_CHUNK, out); break;
                default: /* PUBLIC_API */
                    if (c->mode == LOOKUP)
                        placer_lookup_batch(f->snap, f->key_ptrs + at, f->key_lens + at, HASH_CHUNK, out);
                    else
                        placer_lookup_hash_batch(f->snap, hh, HASH_CHUNK, out);
                }
                acc += out[at & (HASH_CHUNK - 1)];
            }
            continue;
        }
        if (c->mode == LOOKUP && c->peer == KERNEL) {
            for (uint32_t i = 0; i < BENCH_KEYS; i++)
                acc += k->key_one(t, f->snap->seed, f->key_ptrs[i], BENCH_KEY_LEN);
            continue;
        }
        for (uint32_t i = 0; i < BENCH_KEYS; i++) {
            uint64_t x = c->mode == LOOKUP && c->peer != CRC32C_STD && c->peer != PUBLIC_API
                             ? hash_keys(f, i)
                             : hs[i];
            switch (c->peer) {
            case KERNEL: acc += k->one(t, x); break;
            case EYTZINGER: acc += plc_eytzinger_search(&f->eyt, x); break;
            case BRANCHLESS: acc += f->owners[plc_search_branchless(f->tokens, f->size, x)]; break;
            case STD_LOWER_BOUND: acc += f->owners[peer_std_lower_bound(f->tokens, f->size, x)]; break;
            case KETAMA_BRANCHY: acc += f->owners[peer_ketama_search(f->tokens, f->size, x)]; break;
            case JUMP_HASH: acc += (uint64_t)placer_jump_hash(x, (int32_t)f->nodes); break;
            case RANDOM_ACCESS: acc += ra_buf[c->size][(size_t)ra_idx[c->size][i] * 8]; break;
            case CRC32C_STD: {
                /* A 32-bit CRC spread over the 64-bit token space, or every
                 * search would take the same, perfectly predicted path. */
                uint64_t crc = kt->crc32c(0, f->key_ptrs[i], BENCH_KEY_LEN);
                acc += f->owners[peer_std_lower_bound(f->tokens, f->size, crc << 32 | crc)];
                break;
            }
            default: /* PUBLIC_API */
                acc += (uint64_t)(c->mode == LOOKUP
                                      ? placer_lookup(f->snap, f->key_ptrs[i], BENCH_KEY_LEN)
                                      : placer_lookup_hash(f->snap, x));
            }
        }
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_counter(b, "tokens", (double)f->size, 0);
    if (k)
        plc_bench_label(b, k->name);
}

static void *libmemcached;

static void bench_libmemcached(plc_bench *b, const void *arg)
{
    (void)arg;
    if (!libmemcached)
        libmemcached = peer_libmemcached_new(100);
    if (!libmemcached) {
        plc_bench_skip(b, "placer_bench was built without libmemcached-dev");
        return;
    }
    const ring_fixture *f = bench_fixture(1);
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS))
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += peer_libmemcached_hash(libmemcached, (const char *)f->key_ptrs[i], BENCH_KEY_LEN);
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
}

#define MAX_CASES 512
static lookup_case cases[MAX_CASES];
static char names[MAX_CASES][80];
static int ncases;

static void add(int size, int peer, int kernel, int mode, int batch, const char *what)
{
    lookup_case *c = &cases[ncases];
    *c = (lookup_case){size, peer, kernel, mode, batch};
    snprintf(names[ncases], sizeof names[ncases], "%s/%s/%s%s", mode == SEARCH ? "search" : "lookup",
             bench_size_name(size), what, peer == KERNEL || peer == EYTZINGER || peer == PUBLIC_API
                                               ? (batch ? "/batch" : "/single")
                                               : "");
    plc_bench_register(names[ncases], bench, c);
    ncases++;
}

void register_lookup_benches(void)
{
    size_t nk;
    const plc_search_kernel *ks = plc_search_kernels(&nk);
    for (int s = 0; s < BENCH_NSIZES; s++)
        for (int mode = SEARCH; mode <= LOOKUP; mode++) {
            for (int batch = 1; batch >= 0; batch--) {
                add(s, PUBLIC_API, 0, mode, batch, "placer");
                for (size_t j = 0; j < nk; j++)
                    add(s, KERNEL, (int)j, mode, batch, ks[j].name);
                add(s, EYTZINGER, 0, mode, batch, "eytzinger");
            }
            add(s, BRANCHLESS, 0, mode, 0, "branchless-binary");
            add(s, STD_LOWER_BOUND, 0, mode, 0, "std_lower_bound");
            add(s, KETAMA_BRANCHY, 0, mode, 0, "ketama_branchy");
            add(s, JUMP_HASH, 0, mode, 0, "jump_hash");
            if (mode == SEARCH)
                add(s, RANDOM_ACCESS, 0, mode, 0, "random_access_limit");
            else
                add(s, CRC32C_STD, 0, mode, 0, "crc32c+std_lower_bound");
        }
    plc_bench_register("lookup/libmemcached_ketama_100_servers", bench_libmemcached, NULL);
}
