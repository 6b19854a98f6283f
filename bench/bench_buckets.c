/*
 * bench_buckets.c -- the bucket strategies (memento, anchor, dx, jumpback, binomial) on 1,000 buckets
 * (1,000 nodes of weight 1), in one process beside jump's snapshot and
 * their plain references (tests/ref_buckets.c, the baselines):
 *   buckets/<strategy>/<state>/single   placer_lookup, key hashing included
 *   buckets/<strategy>/<state>/batch    placer_lookup_batch of BENCH_KEYS
 *   buckets/<strategy>/<state>/hash     placer_lookup_hash (pre-hashed keys)
 *   buckets/<strategy>/<state>/hash_batch  placer_lookup_hash_batch
 *   buckets/<strategy>/<state>/reference   the paper's loop on the same
 *       hashes, then the caller's read of the bucket's node (a plain array)
 *   buckets/memento/<state>/hash_sw, hash_batch_sw   the same snapshot decoded
 *       with the CPU mask at 0: the portable jump kernels (the paper's loop,
 *       four interleaved scalar lanes) beside the dispatched ones
 *   buckets/<strategy>/<state>/dependent   placer_lookup_hash, each hash chosen
 *       by the previous answer (latency)
 *   buckets/<strategy>/<state>/reference_dependent   the reference so
 *   buckets/<strategy>/<state>/hash_vs_paper, dependent_vs_paper,
 *   hash_batch_vs_paper   hash, dependent and hash_batch passes each
 *       alternating with a pass of the reference (the papers' loops, out of
 *       line in the reference library, see paper_pass; for jumpback Ertl's
 *       loop rather than the tests' bit-at-a-time reference), pinned CPU
 *       time per pass, timed only when placer answers every hash with the
 *       node of the loop's bucket: counter
 *       over_paper is the median of the pairs' ratios placer / paper,
 *       over_paper_p90 their 90th percentile (the upper end of their
 *       spread); the papers' loops answer buckets, placer nodes, so the
 *       paper's pass reads the bucket's node from a plain array as its
 *       caller would (the same work on both sides)
 *   buckets/<strategy>/<state>/hash_vs_paper_bucket, dependent_vs_paper_bucket
 *       the same pairs against the papers' loops alone, without the node
 *       read: the bound that charges placer for its table
 *   buckets/<strategy>/<state>/paper_vs_paper, dependent_paper_vs_paper
 *       the paper's pass (with the node read) paired with itself, the
 *       same counters: the spread that pairs of equal work show on the
 *       machine at that time, beside which the others' 90th percentiles
 *       are read
 *   buckets/<strategy>/<state>/<isa>/hash_vs_paper, dependent_vs_paper,
 *   hash_batch_vs_paper   jump, memento and jumpback, which have SIMD
 *       kernels: the same pairs with the CPU mask forcing avx512, avx2,
 *       sse4.2 or scalar (the snapshot decoded under the mask, the mask
 *       kept while timed); skipped where the CPU lacks the set
 * <state> is "full" (no removals) or "10pct" (100 random nodes removed one
 * build at a time from the previous snapshot: memento, anchor, dx).
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "bucket_setup.h"
#include "cpu.h"
#include "fixtures.h"
#include "ref_buckets.h"
#include "reference.h"
#include "shim.h"

#define NB 1000u
#define NSTRAT 6
static const int strategies[NSTRAT] = {PLACER_JUMP, PLACER_MEMENTO, PLACER_ANCHOR, PLACER_DX,
                                       PLACER_JUMPBACK, PLACER_BINOMIAL};

typedef struct prepared {
    placer_snapshot *s;
    placer_snapshot *sw; /* s decoded with the portable kernels */
    ref_memento m;
    ref_anchor a;
    ref_dx d;
    uint32_t node_of[2048]; /* bucket -> node from the token list, the callers' table */
    int ready;
} prepared;
static prepared prep[NSTRAT][2];

static prepared *prepare(int si, int removed)
{
    prepared *p = &prep[si][removed];
    if (p->ready)
        return p;
    int st = strategies[si];
    static uint32_t ids[NB];
    uint32_t n = NB;
    for (uint32_t i = 0; i < NB; i++)
        ids[i] = i;
    p->s = bench_bucket_build(st, ids, n, NULL);
    uint32_t cap = st == PLACER_DX ? 2048 : 2000; /* the default capacities of 1,000 buckets */
    ref_memento_init(&p->m, NB);
    ref_anchor_init(&p->a, cap);
    ref_dx_init(&p->d, cap);
    for (uint32_t i = 0; i < NB; i++) {
        ref_memento_add(&p->m);
        ref_anchor_add(&p->a);
        ref_dx_add(&p->d);
    }
    uint64_t r = 12345;
    for (uint32_t k = 0; removed && k < NB / 10; k++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t at = (uint32_t)((r >> 33) % n);
        char id[16];
        snprintf(id, sizeof id, "node-%04u", ids[at]);
        uint32_t bucket = bench_bucket_of_node(p->s, id);
        ids[at] = ids[--n];
        placer_snapshot *t = bench_bucket_build(st, ids, n, p->s);
        placer_snapshot_free(p->s);
        p->s = t;
        ref_memento_remove(&p->m, bucket);
        ref_anchor_remove(&p->a, bucket);
        ref_dx_remove(&p->d, bucket);
    }
    void *buf;
    size_t len;
    if (p->s && placer_snapshot_encode(p->s, &buf, &len) == 0) {
        placer_set_cpu_mask(0); /* kernels are copied when a snapshot is made */
        placer_snapshot_decode(buf, len, &p->sw);
        placer_set_cpu_mask(~0u);
        placer_buffer_free(buf);
    }
    for (uint32_t i = 0; i < 2048; i++)
        p->node_of[i] = UINT32_MAX;
    for (uint32_t i = 0; p->s && i < placer_token_count(p->s); i++) {
        uint64_t t;
        uint32_t o;
        if (placer_token_at(p->s, i, &t, &o) == 0 && t < 2048)
            p->node_of[t] = o;
    }
    p->ready = 1;
    return p;
}

/* The instruction sets the rows of the strategies with SIMD kernels (jump's
 * loop and lanes, memento's jump step, jumpback's first point) are forced
 * to with the CPU mask: buckets/<strategy>/<state>/<isa>/<paired mode>. */
typedef struct isa_desc {
    const char *name;
    unsigned mask, needs;
} isa_desc;
static const isa_desc isas[] = {
    {"avx512", ~0u, PLC_CPU_AVX512 | PLC_CPU_AVX2 | PLC_CPU_SSE42},
    {"avx2", PLC_CPU_SSE42 | PLC_CPU_PCLMUL | PLC_CPU_AVX2, PLC_CPU_AVX2 | PLC_CPU_SSE42},
    {"sse4.2", PLC_CPU_SSE42 | PLC_CPU_PCLMUL, PLC_CPU_SSE42},
    {"scalar", 0, 0},
};
#define NISA (sizeof isas / sizeof isas[0])

static int has_kernels(int st)
{
    return st == PLACER_JUMP || st == PLACER_MEMENTO || st == PLACER_JUMPBACK;
}

typedef struct bucket_case {
    int isa; /* -1: the default mask; else isas[isa], paired modes only */
    int si, removed, mode; /* mode: 0 single, 1 batch, 2 hash, 3 hash_batch, 4 reference,
                            * 5 hash_sw, 6 hash_batch_sw, 7 dependent,
                            * 8 reference_dependent, 9-15 paired (PAIRED);
                            * passes only: 16, 17 the references without
                            * the node read */
} bucket_case;

#define PAIRED 9
#define NMODE 16
/* The paired modes' placer pass and the paper's; the last two pair the
 * paper's pass with itself (A/A: the spread of pairs at parity). */
static const int paired_placer[7] = {2, 7, 3, 2, 7, 4, 8};
static const int paired_paper[7] = {4, 8, 4, 16, 17, 4, 8};

/* The papers' loops, each a direct call to an out-of-line function of
 * the reference library (tests/ref_buckets.c, tests/reference.c: their own
 * translation units, no link-time optimisation), as a library providing
 * it would be called; placer_lookup_hash is such a call into libplacer.
 * The strategy is chosen once a pass, outside the loop. JumpBack's is
 * Ertl's loop (ref_jumpback_paper), not the tests' bit-at-a-time
 * reference; jump's is the paper's loop, ref_jump_hash. With `nodes`, the
 * caller's read of the bucket's node (node_of) follows each call: the
 * papers answer buckets, placer nodes, and that pass does placer's work. */
#define PAPER_LOOP(call)                                               \
    do {                                                               \
        if (dependent)                                                 \
            for (uint32_t i = 0; i < BENCH_KEYS; i++) {                \
                uint64_t h = f->hashes[(i + (o >> 31)) % BENCH_KEYS]; \
                acc += o = (uint32_t)(call);                           \
            }                                                          \
        else                                                           \
            for (uint32_t i = 0; i < BENCH_KEYS; i++) {                \
                uint64_t h = f->hashes[i];                             \
                acc += (uint32_t)(call);                               \
            }                                                          \
    } while (0)
#define PAPER_CASE(call)                      \
    do {                                      \
        if (nodes)                            \
            PAPER_LOOP(p->node_of[(call)]);   \
        else                                  \
            PAPER_LOOP(call);                 \
    } while (0)

static uint64_t paper_pass(int st, const prepared *p, const ring_fixture *f, int dependent,
                           int nodes)
{
    uint64_t acc = 0;
    uint32_t o = 0;
    switch (st) {
    case PLACER_MEMENTO: PAPER_CASE((uint32_t)ref_memento_lookup(&p->m, h)); break;
    case PLACER_ANCHOR: PAPER_CASE(ref_anchor_lookup(&p->a, h)); break;
    case PLACER_DX: PAPER_CASE(ref_dx_lookup(&p->d, h)); break;
    case PLACER_JUMPBACK: PAPER_CASE(ref_jumpback_paper(h, NB)); break;
    case PLACER_BINOMIAL: PAPER_CASE(ref_binomial(h, NB)); break;
    default: PAPER_CASE((uint32_t)ref_jump_hash(h, (int32_t)NB));
    }
    return acc;
}

static uint32_t paper_bucket(int st, const prepared *p, uint64_t h)
{
    switch (st) {
    case PLACER_MEMENTO: return (uint32_t)ref_memento_lookup(&p->m, h);
    case PLACER_ANCHOR: return ref_anchor_lookup(&p->a, h);
    case PLACER_DX: return ref_dx_lookup(&p->d, h);
    case PLACER_JUMPBACK: return ref_jumpback_paper(h, NB);
    case PLACER_BINOMIAL: return ref_binomial(h, NB);
    default: return (uint32_t)ref_jump_hash(h, (int32_t)NB);
    }
}

/* Whether placer answers every hash with the node of the paper's bucket
 * (the token list pairs buckets with nodes): a baseline that answered
 * otherwise would not be the same work. */
static int agrees_with_paper(int st, const prepared *p, const ring_fixture *f)
{
    for (uint32_t i = 0; i < BENCH_KEYS; i++) {
        uint32_t b = paper_bucket(st, p, f->hashes[i]);
        if (b >= 2048 || (int)p->node_of[b] != placer_lookup_hash(p->s, f->hashes[i]))
            return 0;
    }
    return 1;
}

/* One pass over the BENCH_KEYS hashes in mode `mode`. */
static uint64_t run_pass(int mode, int st, const prepared *p, const ring_fixture *f)
{
    static uint32_t owners[BENCH_KEYS];
    uint64_t acc = 0;
    uint32_t o = 0;
    switch (mode) {
    case 0:
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += (uint32_t)placer_lookup(p->s, f->key_ptrs[i], BENCH_KEY_LEN);
        break;
    case 1:
        placer_lookup_batch(p->s, f->key_ptrs, f->key_lens, BENCH_KEYS, owners);
        acc += owners[acc % BENCH_KEYS];
        break;
    case 2:
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += (uint32_t)placer_lookup_hash(p->s, f->hashes[i]);
        break;
    case 3:
        placer_lookup_hash_batch(p->s, f->hashes, BENCH_KEYS, owners);
        acc += owners[acc % BENCH_KEYS];
        break;
    case 5:
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += (uint32_t)placer_lookup_hash(p->sw, f->hashes[i]);
        break;
    case 6:
        placer_lookup_hash_batch(p->sw, f->hashes, BENCH_KEYS, owners);
        acc += owners[acc % BENCH_KEYS];
        break;
    case 7: /* o >> 31 is 0 (owners are below 2^31) but not known to be */
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += o = (uint32_t)placer_lookup_hash(p->s, f->hashes[(i + (o >> 31)) % BENCH_KEYS]);
        break;
    case 4: acc += paper_pass(st, p, f, 0, 1); break;
    case 8: acc += paper_pass(st, p, f, 1, 1); break;
    case 16: acc += paper_pass(st, p, f, 0, 0); break;
    default: acc += paper_pass(st, p, f, 1, 0);
    }
    return acc;
}

#define MAX_PAIRS 4096u

/* placer's and the paper's passes alternating (the order swapped each
 * pair): the median of the pairs' time ratios, placer / paper. */
static void bench_paired(plc_bench *b, const bucket_case *c, const prepared *p,
                         const ring_fixture *f)
{
    static double ratio[MAX_PAIRS];
    int st = strategies[c->si], mine = paired_placer[c->mode - PAIRED];
    int theirs = paired_paper[c->mode - PAIRED];
    uint32_t np = 0;
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, 2 * (uint64_t)BENCH_KEYS)) {
        double t[2];
        for (int k = 0; k < 2; k++) {
            int placer = (k + (int)np) % 2 == 0;
            double t0 = bench_thread_ns();
            acc += run_pass(placer ? mine : theirs, st, p, f);
            t[placer] = bench_thread_ns() - t0;
        }
        if (np < MAX_PAIRS)
            ratio[np++] = t[1] / t[0];
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_counter(b, "over_paper", bench_median(ratio, np), 0); /* sorts ratio */
    plc_bench_counter(b, "over_paper_p90", np ? ratio[np * 9 / 10] : 0, 0);
    plc_bench_counter(b, "pairs", np, 0);
}

/* s decoded under the CPU mask (snapshots copy their kernels when made),
 * NULL when it cannot be. */
static placer_snapshot *decoded_under(const placer_snapshot *s, unsigned mask)
{
    void *buf;
    size_t len;
    placer_snapshot *d = NULL;
    if (placer_snapshot_encode(s, &buf, &len))
        return NULL;
    placer_set_cpu_mask(mask);
    if (placer_snapshot_decode(buf, len, &d))
        d = NULL;
    placer_set_cpu_mask(~0u);
    placer_buffer_free(buf);
    return d;
}

static void bench_bucket_at(plc_bench *b, const bucket_case *c, const prepared *p);

/* A case under a forced instruction set: the snapshot decoded under its
 * mask, and the mask kept while timed (jump and jumpback read the
 * dispatch table at each call). */
static void bench_bucket_isa(plc_bench *b, const bucket_case *c, const prepared *p)
{
    static placer_snapshot *snaps[NSTRAT][2][NISA];
    const isa_desc *isa = &isas[c->isa];
    if ((plc_cpu_detected() & isa->needs) != isa->needs) {
        plc_bench_skip(b, "this CPU lacks the instruction set");
        return;
    }
    placer_snapshot **d = &snaps[c->si][c->removed][c->isa];
    if (!*d)
        *d = decoded_under(p->s, isa->mask);
    if (!*d) {
        plc_bench_skip(b, "decode failed");
        return;
    }
    static prepared q;
    q = *p;
    q.s = *d;
    placer_set_cpu_mask(isa->mask);
    bench_bucket_at(b, c, &q);
    placer_set_cpu_mask(~0u);
}

static void bench_bucket(plc_bench *b, const void *arg)
{
    const bucket_case *c = arg;
    prepared *p = prepare(c->si, c->removed);
    if (!p->s) {
        plc_bench_skip(b, "build failed");
        return;
    }
    if (c->isa >= 0)
        bench_bucket_isa(b, c, p);
    else
        bench_bucket_at(b, c, p);
}

static void bench_bucket_at(plc_bench *b, const bucket_case *c, const prepared *p)
{
    const ring_fixture *f = bench_fixture(1);
    int st = strategies[c->si];
    for (uint32_t i = 0; i < BENCH_KEYS; i++)
        if (placer_lookup_hash(p->s, f->hashes[i]) < 0) {
            plc_bench_skip(b, "lookup failed: not timed");
            return;
        }
    if (!agrees_with_paper(st, p, f)) {
        plc_bench_skip(b, "placer and the paper's loop differ: not timed");
        return;
    }
    if (c->mode >= PAIRED) {
        bench_paired(b, c, p, f);
        return;
    }
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS))
        acc += run_pass(c->mode, st, p, f);
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_counter(b, "snapshot_bytes", (double)placer_snapshot_layout_bytes(p->s), 0);
}

void register_bucket_benches(void)
{
    static const char *const modes[NMODE] = {
        "single",    "batch",         "hash",      "hash_batch",          "reference",
        "hash_sw",   "hash_batch_sw", "dependent", "reference_dependent", "hash_vs_paper",
        "dependent_vs_paper", "hash_batch_vs_paper", "hash_vs_paper_bucket",
        "dependent_vs_paper_bucket", "paper_vs_paper", "dependent_paper_vs_paper"};
    static bucket_case cases[NSTRAT * 2 * (NMODE + NISA * 3)];
    static char names[NSTRAT * 2 * (NMODE + NISA * 3)][72];
    int k = 0;
    for (int si = 0; si < NSTRAT; si++)
        for (int removed = 0; removed < 2; removed++) {
            int st = strategies[si];
            if (removed && st != PLACER_MEMENTO && st != PLACER_ANCHOR && st != PLACER_DX)
                continue;
            for (int mode = 0; mode < NMODE; mode++) {
                if ((mode == 5 || mode == 6) && st != PLACER_MEMENTO)
                    continue;
                cases[k] = (bucket_case){-1, si, removed, mode};
                snprintf(names[k], sizeof names[k], "buckets/%s/%s/%s", placer_strategy_name(st),
                         removed ? "10pct" : "full", modes[mode]);
                plc_bench_register(names[k], bench_bucket, &cases[k]);
                k++;
            }
            for (int isa = 0; has_kernels(st) && isa < (int)NISA; isa++)
                for (int mode = PAIRED; mode < PAIRED + 3; mode++) {
                    cases[k] = (bucket_case){isa, si, removed, mode};
                    snprintf(names[k], sizeof names[k], "buckets/%s/%s/%s/%s",
                             placer_strategy_name(st), removed ? "10pct" : "full", isas[isa].name,
                             modes[mode]);
                    plc_bench_register(names[k], bench_bucket, &cases[k]);
                    k++;
                }
        }
}
