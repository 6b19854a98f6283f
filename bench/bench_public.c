/*
 * bench_public.c -- the hot-path matrix: the ring lookup measured where users
 * call it, the public functions on a snapshot built under each instruction
 * set (forced with the CPU mask: avx512, avx2, sse4.2, scalar; skipped when
 * the CPU lacks one), rings of 120 nodes x 256 (30,720 tokens), 4,096
 * nodes x 256 (2^20 tokens), 65,536 nodes x 256 (2^24 tokens: the most
 * nodes the line table holds), 65,537 x 256 (the fewest past its 16-bit
 * owners: the radix directory); these two under the widest vector
 * ISA only and without router cases, and never in the CI smoke,
 * which runs no public/ case), 120 nodes of weights 0.5, 1, 1.5, 2 x 256
 * (38,400 tokens), 120 x 256 with balanced tokens, and 120 x 256 and
 * 4,096 x 256 with sets of 3 precomputed (placer_builder_set_replicas,
 * "sets3": the replica rows read them), and two key streams
 * of distinct 32-byte keys
 * ("sess::%026zu" of i * 2654435761): 262,144 keys (8 MiB of keys, past the
 * caches) and 4,096 keys (resident). Items are lookups:
 *   public/ISA/RING/KEYS/placer_batch      placer_lookup_batch, 1,024 keys a call
 *   public/ISA/RING/KEYS/placer_batch_16384  the same, 16,384 keys a call (all
 *                                          4,096 of the resident keys): past
 *                                          the 1,024 the line table answers
 *                                          into the stack, a batch checks its
 *                                          key pointers in a pass of their own
 *   public/ISA/RING/KEYS/placer_dependent  placer_lookup, each key chosen by
 *                                          the previous answer (latency)
 *   public/ISA/RING/KEYS/router_batch      placer_router_lookup_batch, 1,024 a call
 *   public/ISA/RING/KEYS/router_dependent  placer_router_lookup, each key chosen
 *                                          by the previous answer
 *   public/ISA/RING/KEYS/placer_single, router_single  placer_lookup and
 *                                          placer_router_lookup one key a call,
 *                                          no key waiting for an answer
 *   public/ISA/RING/KEYS/floor             CRC-32C + fmix64 of the key (length
 *                                          fixed at 32 at compile time) and ONE
 *                                          read of a 4-byte table of
 *                                          next-pow2(tokens) entries, one loop
 *   public/ISA/RING/KEYS/floor_dependent   the floor one key at a time, each
 *                                          key chosen by the previous answer
 *                                          (the least a dependent lookup costs)
 *   public/ISA/RING/KEYS/reference_stree   that hash, bench/baselines.c's S+ tree
 *   public/ISA/RING/KEYS/crc32c+std_lower_bound  that hash, std::lower_bound, owner
 *   public/ISA/RING/KEYS/crc32c+std_lower_bound_dependent  the same one key
 *                                          at a time, each key chosen by the
 *                                          previous answer (placer_dependent's
 *                                          like-for-like baseline)
 *   public/ISA/RING/KEYS/placer_hash_only  the snapshot's batch hash kernel alone
 *   public/ISA/RING/KEYS/floor_hash_only   the floor's hash alone
 *   public/ISA/RING/KEYS/batch_vs_floor    placer_batch and floor passes over
 *                                          the stream alternating (the order
 *                                          swapped each pair), CPU time of
 *                                          each pass: counter batch_over_floor
 *                                          is the median of the pairs' ratios
 *                                          (a shared machine's speed changes
 *                                          between cases, rarely within a
 *                                          pair of passes a few ms long)
 *   public/ISA/RING/KEYS/batch_vs_stree, batch_vs_lower_bound,
 *   dependent_vs_lower_bound, dependent_vs_floor  the same pairing of
 *                                          placer_batch with reference_stree
 *                                          (counter stree_over_batch) and
 *                                          with crc32c+std_lower_bound
 *                                          (lower_bound_over_batch), and of
 *                                          placer_dependent with
 *                                          crc32c+std_lower_bound_dependent
 *                                          (lower_bound_over_dependent) and
 *                                          floor_dependent
 *                                          (dependent_over_floor)
 *   public/ISA/RING/KEYS/router_vs_dependent, router_vs_single,
 *   router_vs_batch                        the router's read side: each
 *                                          router pass paired with its
 *                                          placer_lookup pass (counter
 *                                          router_over_lookup)
 *   public/ISA/RING/KEYS/replicas_dependent, replicas_single, replicas_batch
 *                                          placer_replicas of 3 (the rings'
 *                                          zones) as placer_dependent and
 *                                          placer_single call placer_lookup,
 *                                          and placer_replicas_batch, 1,024
 *                                          keys a call
 *   public/ISA/RING/KEYS/walk_dependent, walk_batch  the floor's hash,
 *                                          std::lower_bound and the plain
 *                                          walk over tokens and owners (the
 *                                          reference a client would write)
 *   public/ISA/RING/KEYS/replicas_vs_dependent, replicas_vs_single,
 *   replicas_vs_batch                      each replicas pass paired with its
 *                                          placer_lookup pass on the same
 *                                          snapshot (replicas_over_lookup)
 *   public/ISA/RING/KEYS/walk_vs_replicas_dependent, walk_vs_replicas_batch
 *                                          the plain walk paired with
 *                                          placer_replicas (walk_over_replicas)
 * And the layout's cost at 4,096 nodes x 256, default CPU mask, items are
 * snapshots (or layouts):
 *   public/layout/4096x256/build       placer_builder_build
 *   public/layout/4096x256/lines_only  plc_bkt_build over the built tree (the
 *                                      build's and the decoder's layout step)
 *   public/layout/4096x256/decode      placer_snapshot_decode of its encoding
 * Every placer case checks all its answers against lower_bound over the
 * snapshot's tokens (replica sets against the plain walk) before timing; a
 * wrong answer skips the case. Ratios come from one process
 * (bench/ratios.py "public" rows).
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baselines.h"
#include "benches.h"
#include "cpu.h"
#include "fixtures.h"
#include "kernels.h"
#include "peers.h"
#include "placer.h"
#include "shim.h"
#include "snapshot_internal.h"

#define CALL 1024u
#define CALL_BIG 16384u /* past the batch the line table answers into the stack */
#define STREAM_KEYS 262144u
#define RESIDENT_KEYS 4096u
#define RWANT 3u /* replicas asked: one a zone of the rings' 3 */

enum what {
    P_BATCH, P_BATCH_BIG, P_DEPENDENT, R_BATCH, FLOOR, FLOOR_DEPENDENT, REF_STREE, STD_LB, STD_LB_DEPENDENT,
    P_HASH, F_HASH, PAIRED, PAIRED_STREE, PAIRED_LB, PAIRED_DEP, PAIRED_DEP_FLOOR,
    P_SINGLE, R_SINGLE, R_DEPENDENT, PAIRED_R_DEP, PAIRED_R_SINGLE, PAIRED_R_BATCH,
    Q_BATCH, Q_DEPENDENT, Q_SINGLE, W_BATCH, W_DEPENDENT, PAIRED_Q_DEP, PAIRED_Q_SINGLE,
    PAIRED_Q_BATCH, PAIRED_W_DEP, PAIRED_W_BATCH, NWHAT
};
static const char *const what_names[NWHAT] = {
    "placer_batch", "placer_batch_16384", "placer_dependent", "router_batch", "floor", "floor_dependent",
    "reference_stree", "crc32c+std_lower_bound", "crc32c+std_lower_bound_dependent",
    "placer_hash_only", "floor_hash_only", "batch_vs_floor", "batch_vs_stree",
    "batch_vs_lower_bound", "dependent_vs_lower_bound", "dependent_vs_floor",
    "placer_single", "router_single", "router_dependent", "router_vs_dependent",
    "router_vs_single", "router_vs_batch", "replicas_batch", "replicas_dependent",
    "replicas_single", "walk_batch", "walk_dependent", "replicas_vs_dependent",
    "replicas_vs_single", "replicas_vs_batch", "walk_vs_replicas_dependent",
    "walk_vs_replicas_batch"};

/* The paired cases: placer's pass, the other pass, and the counter (the
 * median of the pairs' time ratios: placer / floor for the floors, other
 * / placer, a speed-up, for the baselines placer must beat). */
typedef struct pairing {
    int what, placer, other, speedup;
    const char *counter;
} pairing;
static const pairing pairings[] = {
    {PAIRED, P_BATCH, FLOOR, 0, "batch_over_floor"},
    {PAIRED_STREE, P_BATCH, REF_STREE, 1, "stree_over_batch"},
    {PAIRED_LB, P_BATCH, STD_LB, 1, "lower_bound_over_batch"},
    {PAIRED_DEP, P_DEPENDENT, STD_LB_DEPENDENT, 1, "lower_bound_over_dependent"},
    {PAIRED_DEP_FLOOR, P_DEPENDENT, FLOOR_DEPENDENT, 0, "dependent_over_floor"},
    /* The router's read side: router / placer_lookup on the same content. */
    {PAIRED_R_DEP, R_DEPENDENT, P_DEPENDENT, 0, "router_over_lookup"},
    {PAIRED_R_SINGLE, R_SINGLE, P_SINGLE, 0, "router_over_lookup"},
    {PAIRED_R_BATCH, R_BATCH, P_BATCH, 0, "router_over_lookup"},
    /* Replica sets of RWANT: placer_replicas / placer_lookup on the same
     * snapshot, and the plain lower_bound + walk / placer_replicas. */
    {PAIRED_Q_DEP, Q_DEPENDENT, P_DEPENDENT, 0, "replicas_over_lookup"},
    {PAIRED_Q_SINGLE, Q_SINGLE, P_SINGLE, 0, "replicas_over_lookup"},
    {PAIRED_Q_BATCH, Q_BATCH, P_BATCH, 0, "replicas_over_lookup"},
    {PAIRED_W_DEP, Q_DEPENDENT, W_DEPENDENT, 1, "walk_over_replicas"},
    {PAIRED_W_BATCH, Q_BATCH, W_BATCH, 1, "walk_over_replicas"},
};
#define NPAIRING (sizeof pairings / sizeof pairings[0])

typedef struct isa_desc {
    const char *name;
    unsigned mask;
    unsigned needs;
    int base;
} isa_desc;

static const isa_desc isas[] = {
    {"avx512", ~0u, PLC_CPU_AVX512 | PLC_CPU_AVX2 | PLC_CPU_SSE42, BASE_AVX2},
    {"avx2", PLC_CPU_SSE42 | PLC_CPU_PCLMUL | PLC_CPU_AVX2, PLC_CPU_AVX2 | PLC_CPU_SSE42, BASE_AVX2},
    {"sse4.2", PLC_CPU_SSE42 | PLC_CPU_PCLMUL, PLC_CPU_SSE42, BASE_SSE42},
    {"scalar", 0, 0, BASE_SCALAR},
};
#define NISA (sizeof isas / sizeof isas[0])

/* weighted: node weights cycle 0.5, 1, 1.5, 2 (tokens follow the weight);
 * balanced: PLACER_TOKENS_BALANCED; big: the 2^24-token ring, built under
 * the widest vector ISA only (about 1 GB with its plain copies, the tree
 * and the floor's table) and without a router copy. */
typedef struct ring_desc {
    const char *name;
    uint32_t nodes, vnodes;
    int weighted, balanced, big;
    uint32_t sets; /* placer_builder_set_replicas */
} ring_desc;

static const ring_desc rings[] = {
    {"120x256", 120, 256, 0, 0, 0, 0},           {"4096x256", 4096, 256, 0, 0, 0, 0},
    {"65536x256", 65536, 256, 0, 0, 1, 0},       {"65537x256", 65537, 256, 0, 0, 1, 0},
    {"120x256weighted", 120, 256, 1, 0, 0, 0},
    {"120x256balanced", 120, 256, 0, 1, 0, 0},
    {"120x256sets3", 120, 256, 0, 0, 0, 3},      {"4096x256sets3", 4096, 256, 0, 0, 0, 3},
};
#define NRING (sizeof rings / sizeof rings[0])

typedef struct key_set {
    const char *name;
    uint32_t n;
    unsigned char *bytes;
    const void **ptrs;
    size_t *lens;
} key_set;

static key_set keysets[] = {{"stream", STREAM_KEYS, 0, 0, 0}, {"resident", RESIDENT_KEYS, 0, 0, 0}};
#define NKEYS (sizeof keysets / sizeof keysets[0])

/* A ring per (ISA, ring): the snapshot (kernels copied under the mask), a
 * router holding that same snapshot (the router cases pair with
 * placer_lookup on the same lines), plain tokens and owners, the reference
 * tree and the floor's table. */
typedef struct pub_fixture {
    placer_snapshot *snap;
    placer_router *router;
    uint64_t *tokens;
    uint32_t *owners;
    unsigned char *zone; /* zone of each node, numbered by first appearance */
    uint32_t n, floor_bits, nzones;
    uint32_t *floor_table;
    ref_stree ref;
    int built, ok;
} pub_fixture;
static pub_fixture pfix[NISA][NRING];

static const key_set *keys_get(int k)
{
    key_set *s = &keysets[k];
    if (!s->bytes)
        bench_session_keys(s->n, &s->bytes, &s->ptrs, &s->lens);
    return s;
}

static placer_snapshot *build_ring(const ring_desc *r)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, r->vnodes);
    if (r->balanced)
        placer_builder_set_token_allocation(b, PLACER_TOKENS_BALANCED);
    placer_builder_set_replicas(b, r->sets);
    char id[32], zone[16];
    for (uint32_t n = 0; n < r->nodes; n++) {
        snprintf(id, sizeof id, "node-%04u", n);
        snprintf(zone, sizeof zone, "zone-%u", n % 3);
        placer_builder_add_node(b, id, zone, r->weighted ? 0.5 * (1 + n % 4) : 1.0);
    }
    placer_snapshot *s = NULL;
    if (placer_builder_build(b, 1, &s) != 0) {
        fprintf(stderr, "bench: cannot build ring %s\n", r->name);
        exit(1);
    }
    placer_builder_free(b);
    return s;
}

/* lower_bound with wrap over the plain tokens: the answer every case must give. */
static uint32_t plain_owner(const pub_fixture *p, uint64_t h)
{
    uint32_t i = peer_std_lower_bound(p->tokens, p->n, h);
    return p->owners[i < p->n ? i : 0];
}

/* The replica set of RWANT as placer_replicas documents it, plainly:
 * lower_bound with wrap, the owner, then clockwise the first node of each
 * zone not used yet (while zones remain), then the first nodes not taken. */
static uint32_t plain_walk(const pub_fixture *p, uint64_t h, uint32_t *out)
{
    uint32_t i = peer_std_lower_bound(p->tokens, p->n, h), count = 1;
    i = i < p->n ? i : 0;
    out[0] = p->owners[i];
    uint64_t taken = (uint64_t)1 << p->zone[out[0]];
    for (uint32_t step = 1; step < p->n && count < RWANT && count < p->nzones; step++) {
        uint32_t j = i + step < p->n ? i + step : i + step - p->n, o = p->owners[j];
        if (!(taken >> p->zone[o] & 1)) {
            taken |= (uint64_t)1 << p->zone[o];
            out[count++] = o;
        }
    }
    for (uint32_t step = 1; step < p->n && count < RWANT; step++) {
        uint32_t j = i + step < p->n ? i + step : i + step - p->n, o = p->owners[j], dup = 0;
        for (uint32_t k = 0; k < count; k++)
            dup |= out[k] == o;
        if (!dup)
            out[count++] = o;
    }
    return count;
}

/* Replica sets of every key of a stream, key by key and batched, against
 * plain_walk on placer's own hash. */
static int replicas_ok(const pub_fixture *p, const key_set *ks)
{
    uint32_t *sets = malloc((size_t)ks->n * RWANT * sizeof *sets);
    uint32_t *counts = malloc((size_t)ks->n * sizeof *counts);
    int ok = placer_replicas_batch(p->snap, ks->ptrs, ks->lens, ks->n, RWANT, sets, counts) == 0;
    for (uint32_t i = 0; i < ks->n && ok; i++) {
        uint32_t want[RWANT], got[RWANT];
        uint32_t c = plain_walk(p, placer_snapshot_hash(p->snap, ks->ptrs[i], 32), want);
        int n = placer_replicas(p->snap, ks->ptrs[i], 32, got, RWANT);
        ok = n == (int)c && counts[i] == c;
        for (uint32_t k = 0; k < c && ok; k++)
            ok = got[k] == want[k] && sets[(size_t)i * RWANT + k] == want[k];
    }
    free(sets);
    free(counts);
    return ok;
}

/* Every key of both streams through placer_lookup_batch and placer_lookup,
 * against plain_owner on placer's own hash. */
static int answers_ok(const pub_fixture *p)
{
    int ok = 1;
    for (int k = 0; k < (int)NKEYS && ok; k++) {
        const key_set *ks = keys_get(k);
        uint32_t *out = malloc((size_t)ks->n * sizeof *out);
        placer_lookup_batch(p->snap, ks->ptrs, ks->lens, ks->n, out);
        for (uint32_t i = 0; i < ks->n && ok; i++) {
            uint32_t want = plain_owner(p, placer_snapshot_hash(p->snap, ks->ptrs[i], 32));
            ok = out[i] == want && placer_lookup(p->snap, ks->ptrs[i], 32) == (int)want;
        }
        free(out);
        ok = ok && replicas_ok(p, ks);
    }
    return ok;
}

static const pub_fixture *fixture_get(int isa, int ring)
{
    pub_fixture *p = &pfix[isa][ring];
    if (p->built)
        return p;
    p->snap = build_ring(&rings[ring]);
    /* The router owns the snapshot from here; fixtures live until exit. */
    p->router = rings[ring].big ? NULL : placer_router_new(p->snap);
    p->n = placer_token_count(p->snap);
    p->tokens = malloc((size_t)p->n * sizeof *p->tokens);
    p->owners = malloc((size_t)p->n * sizeof *p->owners);
    for (uint32_t i = 0; i < p->n; i++)
        placer_token_at(p->snap, i, &p->tokens[i], &p->owners[i]);
    uint32_t nn = placer_node_count(p->snap);
    p->zone = calloc(nn, 1);
    for (uint32_t a = 0; a < nn; a++) {
        uint32_t z = 0;
        while (z < a && strcmp(placer_node_zone(p->snap, z), placer_node_zone(p->snap, a)))
            z++;
        p->zone[a] = z < a ? p->zone[z] : (unsigned char)p->nzones++;
    }
    ref_stree_build(&p->ref, p->tokens, p->owners, p->n);
    p->floor_bits = 1;
    while (((uint64_t)1 << p->floor_bits) < p->n)
        p->floor_bits++;
    size_t m = (size_t)1 << p->floor_bits;
    p->floor_table = aligned_alloc(64, m * sizeof *p->floor_table);
    for (size_t i = 0; i < m; i++)
        p->floor_table[i] = p->owners[i % p->n];
    p->ok = answers_ok(p);
    p->built = 1;
    return p;
}

typedef struct pub_case {
    int isa, ring, keys, what;
} pub_case;

static uint64_t run_pass(const pub_case *c, const pub_fixture *p, const key_set *ks)
{
    static uint64_t h[CALL];
    static uint32_t out[CALL];
    const plc_kernels *kt = plc_kernels_get();
    int base = isas[c->isa].base;
    uint64_t acc = 0;
    if (c->what == P_DEPENDENT) {
        int o = 0;
        for (uint32_t i = 0; i < ks->n; i++) {
            /* o >> 31 is 0 for every owner, but the next key waits for o */
            o = placer_lookup(p->snap, ks->ptrs[(i + ((unsigned)o >> 31)) % ks->n], 32);
            acc += (uint32_t)o;
        }
        return acc;
    }
    if (c->what == R_DEPENDENT) {
        int o = 0;
        for (uint32_t i = 0; i < ks->n; i++) {
            o = placer_router_lookup(p->router, ks->ptrs[(i + ((unsigned)o >> 31)) % ks->n], 32,
                                     NULL);
            acc += (uint32_t)o;
        }
        return acc;
    }
    if (c->what == P_SINGLE || c->what == R_SINGLE) {
        /* One call a key, no key waiting for an answer (throughput). */
        for (uint32_t i = 0; i < ks->n; i++)
            acc += (uint32_t)(c->what == P_SINGLE
                                  ? placer_lookup(p->snap, ks->ptrs[i], 32)
                                  : placer_router_lookup(p->router, ks->ptrs[i], 32, NULL));
        return acc;
    }
    if (c->what == Q_DEPENDENT || c->what == W_DEPENDENT) {
        uint32_t set[RWANT], n = 1;
        set[0] = 0;
        for (uint32_t i = 0; i < ks->n; i++) {
            /* the last replica >> 31 is 0, but the next key waits for the set */
            const void *key = ks->ptrs[(i + (set[n - 1] >> 31)) % ks->n];
            n = c->what == Q_DEPENDENT ? (uint32_t)placer_replicas(p->snap, key, 32, set, RWANT)
                                       : plain_walk(p, base_hash32(base, key), set);
            acc += set[n - 1];
        }
        return acc;
    }
    if (c->what == Q_SINGLE) {
        uint32_t set[RWANT];
        for (uint32_t i = 0; i < ks->n; i++) {
            int n = placer_replicas(p->snap, ks->ptrs[i], 32, set, RWANT);
            acc += set[n - 1];
        }
        return acc;
    }
    if (c->what == Q_BATCH || c->what == W_BATCH) {
        static uint32_t sets[CALL * RWANT], counts[CALL];
        for (uint32_t at = 0; at < ks->n; at += CALL) {
            if (c->what == Q_BATCH) {
                placer_replicas_batch(p->snap, ks->ptrs + at, ks->lens + at, CALL, RWANT, sets,
                                      counts);
            } else {
                base_hash32_batch(base, ks->ptrs + at, CALL, h);
                for (uint32_t i = 0; i < CALL; i++)
                    counts[i] = plain_walk(p, h[i], sets + i * RWANT);
            }
            acc += sets[0] + sets[CALL * RWANT - 1] + counts[CALL - 1];
        }
        return acc;
    }
    if (c->what == FLOOR_DEPENDENT) {
        uint32_t o = 0;
        for (uint32_t i = 0; i < ks->n; i++) {
            o = base_floor32_one(base, p->floor_table, p->floor_bits,
                                 ks->ptrs[(i + (o >> 31)) % ks->n]);
            acc += o;
        }
        return acc;
    }
    if (c->what == STD_LB_DEPENDENT) {
        uint32_t o = 0;
        for (uint32_t i = 0; i < ks->n; i++) {
            o = plain_owner(p, base_hash32(base, ks->ptrs[(i + (o >> 31)) % ks->n]));
            acc += o;
        }
        return acc;
    }
    if (c->what == P_BATCH_BIG) {
        static uint32_t big[CALL_BIG];
        uint32_t m = ks->n < CALL_BIG ? ks->n : CALL_BIG;
        for (uint32_t at = 0; at < ks->n; at += m) {
            placer_lookup_batch(p->snap, ks->ptrs + at, ks->lens + at, m, big);
            acc += big[0] + big[m - 1];
        }
        return acc;
    }
    for (uint32_t at = 0; at < ks->n; at += CALL) {
        const void *const *keys = ks->ptrs + at;
        const size_t *lens = ks->lens + at;
        switch (c->what) {
        case P_BATCH:
            placer_lookup_batch(p->snap, keys, lens, CALL, out);
            break;
        case R_BATCH:
            placer_router_lookup_batch(p->router, keys, lens, CALL, out, NULL);
            break;
        case FLOOR:
            base_floor32_batch(base, p->floor_table, p->floor_bits, keys, CALL, out);
            break;
        case REF_STREE:
            base_hash32_batch(base, keys, CALL, h);
            ref_stree_batch(base, &p->ref, h, CALL, out);
            break;
        case STD_LB:
            base_hash32_batch(base, keys, CALL, h);
            for (uint32_t i = 0; i < CALL; i++)
                out[i] = plain_owner(p, h[i]);
            break;
        case P_HASH:
            kt->hash64_v2_batch(1, keys, lens, CALL, h);
            out[0] = (uint32_t)h[0];
            break;
        default: /* F_HASH */
            base_hash32_batch(base, keys, CALL, h);
            out[0] = (uint32_t)h[0];
        }
        acc += out[0] + out[CALL - 1];
    }
    return acc;
}

#define MAX_PAIRS 4096u

/* Floor and placer_batch passes alternating; the pairs' median ratio. */
static void bench_paired(plc_bench *b, const pub_case *c, const pub_fixture *p, const key_set *ks,
                         const pairing *pr)
{
    static double ratio[MAX_PAIRS];
    pub_case oc = *c, pc = *c;
    oc.what = pr->other;
    pc.what = pr->placer;
    uint32_t np = 0;
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, 2 * (uint64_t)ks->n)) {
        double t[2];
        for (int k = 0; k < 2; k++) {
            int placer = (k + (int)np) % 2 == 0;
            double t0 = bench_thread_ns();
            acc += run_pass(placer ? &pc : &oc, p, ks);
            t[placer] = bench_thread_ns() - t0;
        }
        if (np < MAX_PAIRS)
            ratio[np++] = pr->speedup ? t[0] / t[1] : t[1] / t[0];
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_counter(b, pr->counter, bench_median(ratio, np), 0);
    plc_bench_counter(b, "pairs", np, 0);
    plc_bench_counter(b, "tokens", (double)p->n, 0);
}

static void bench(plc_bench *b, const void *arg)
{
    const pub_case *c = arg;
    const isa_desc *isa = &isas[c->isa];
    if ((plc_cpu_detected() & isa->needs) != isa->needs) {
        plc_bench_skip(b, "this CPU lacks the instruction set");
        return;
    }
    int widest = c->isa == 0 || (c->isa == 1 && !(plc_cpu_detected() & PLC_CPU_AVX512));
    if (rings[c->ring].big && !widest) {
        plc_bench_skip(b, "2^24 tokens: the widest vector ISA only (memory)");
        return;
    }
    int routed = c->what == R_BATCH || c->what == R_SINGLE || c->what == R_DEPENDENT ||
                 c->what == PAIRED_R_DEP || c->what == PAIRED_R_SINGLE || c->what == PAIRED_R_BATCH;
    if (rings[c->ring].big && routed) {
        plc_bench_skip(b, "2^24 tokens: no router cases (time)");
        return;
    }
    placer_set_cpu_mask(isa->mask);
    const pub_fixture *p = fixture_get(c->isa, c->ring);
    const key_set *ks = keys_get(c->keys);
    if (!p->ok) {
        placer_set_cpu_mask(~0u);
        plc_bench_skip(b, "wrong answers: not timed");
        return;
    }
    uint64_t acc = 0;
    for (size_t i = 0; i < NPAIRING; i++)
        if (c->what == pairings[i].what) {
            bench_paired(b, c, p, ks, &pairings[i]);
            placer_set_cpu_mask(~0u);
            return;
        }
    while (plc_bench_keep_running(b, ks->n))
        acc += run_pass(c, p, ks);
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_counter(b, "tokens", (double)p->n, 0);
    if (c->what == P_BATCH) {
        plc_bench_counter(b, "layout_bytes_per_token",
                          (double)placer_snapshot_layout_bytes(p->snap) / p->n, 0);
        plc_bench_label(b, placer_snapshot_layout_name(p->snap));
    }
    placer_set_cpu_mask(~0u);
}

enum { L_BUILD, L_LINES, L_DECODE };

static void bench_layout(plc_bench *b, const void *arg)
{
    int what = *(const int *)arg;
    placer_snapshot *s = build_ring(&rings[1]);
    void *buf = NULL, *lines = aligned_alloc(64, plc_bkt_bytes(s->bkt.bits));
    size_t len = 0;
    placer_snapshot_encode(s, &buf, &len);
    while (plc_bench_keep_running(b, 1)) {
        if (what == L_LINES) {
            plc_bkt k;
            plc_bkt_build(&k, &s->tree, s->bkt.bits, lines);
            plc_bench_keep(k.ncrowded);
            continue;
        }
        placer_snapshot *t = NULL;
        if (what == L_BUILD)
            t = build_ring(&rings[1]);
        else if (placer_snapshot_decode(buf, len, &t) != 0)
            break;
        placer_snapshot_free(t);
    }
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_label(b, placer_snapshot_layout_name(s));
    free(lines);
    placer_buffer_free(buf);
    placer_snapshot_free(s);
}

#define MAX_CASES (NISA * NRING * NKEYS * NWHAT)
static pub_case cases[MAX_CASES];
static char names[MAX_CASES][80];

void register_public_benches(void)
{
    int nc = 0;
    for (int r = 0; r < (int)NRING; r++)
        for (int k = 0; k < (int)NKEYS; k++)
            for (int i = 0; i < (int)NISA; i++)
                for (int w = 0; w < NWHAT; w++) {
                    cases[nc] = (pub_case){i, r, k, w};
                    snprintf(names[nc], sizeof names[nc], "public/%s/%s/%s/%s", isas[i].name,
                             rings[r].name, keysets[k].name, what_names[w]);
                    plc_bench_register(names[nc], bench, &cases[nc]);
                    nc++;
                }
    static const int layout_what[] = {L_BUILD, L_LINES, L_DECODE};
    plc_bench_register("public/layout/4096x256/build", bench_layout, &layout_what[0]);
    plc_bench_register("public/layout/4096x256/lines_only", bench_layout, &layout_what[1]);
    plc_bench_register("public/layout/4096x256/decode", bench_layout, &layout_what[2]);
}
