/*
 * fuzz_bucket_strategies.c -- memento, anchor, dx, jumpback and binomial against
 * their plain references (tests/ref_buckets.c) over histories the input
 * chooses: joins, and leaves of any node (of the last bucket's node for
 * jumpback and binomial), each built from the previous snapshot. After
 * every change: the joiner has the bucket the reference adds, every
 * probed position has the reference's owner, only the leaver's keys moved
 * (or keys moved only to the joiner), and the snapshot decodes to the
 * same bytes. Anchor's and dx's capacity comes from the input too: a join
 * past it must be refused, and change nothing. Batches of a length the
 * input chooses (placer_lookup_hash_batch: memento's jump lanes, anchor's
 * and dx's waves, jumpback's first steps) must give the reference's
 * owners too, with the machine's kernels, the AVX2 ones, the SSE4.2 ones
 * or the portable ones, as the first byte says; and every JumpBackHash
 * first-step kernel the machine runs gives the bit-by-bit first point of
 * each probe.
 */
#define PLACER_STATIC_LINKING_ONLY
#include "fuzz.h"
#include "placer.h"
#include "ref_buckets.h"

#define MAXNODES 64u
#define PROBES 256u

/* JumpBackHash's first-step kernels (simd/jumpback.h), library-internal */
typedef void (*first_fn)(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
void plc_jumpback_first_scalar(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
#if defined(__x86_64__)
void plc_jumpback_first_sse41(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
void plc_jumpback_first_avx2(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
void plc_jumpback_first_avx512(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out);
#endif

/* Every first-step kernel the machine runs, key for key the bit-by-bit
 * first point, on the probes and a range mask of the width the input
 * chose (up to 32 bits: more than the histories' buckets reach). */
static void check_first_kernels(const uint64_t *probe, uint32_t n, uint32_t mask)
{
    struct {
        first_fn f;
        unsigned needs;
    } kernels[] = {{plc_jumpback_first_scalar, 0},
#if defined(__x86_64__)
                   {plc_jumpback_first_sse41, PLACER_CPU_SSE42},
                   {plc_jumpback_first_avx2, PLACER_CPU_AVX2},
                   {plc_jumpback_first_avx512, PLACER_CPU_AVX512},
#endif
    };
    uint32_t out[PROBES];
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        if ((placer_cpu_features() & kernels[k].needs) != kernels[k].needs)
            continue;
        kernels[k].f(probe, n, mask, out);
        for (uint32_t i = 0; i < n; i++)
            FUZZ_ASSERT(out[i] == ref_jumpback_first(probe[i], mask));
    }
}

static const int five[] = {PLACER_MEMENTO, PLACER_ANCHOR, PLACER_DX, PLACER_JUMPBACK,
                           PLACER_BINOMIAL};

typedef struct hist {
    int st;
    uint32_t cap;
    uint32_t id[MAXNODES], n, next;
    ref_memento m;
    ref_anchor a;
    ref_dx d;
    uint32_t nb;
} hist;

static placer_snapshot *build(const hist *h, const placer_snapshot *prev, int *err)
{
    placer_builder *b = placer_builder_new();
    FUZZ_ASSERT(b);
    placer_builder_set_strategy(b, h->st);
    placer_builder_set_capacity(b, prev ? 0 : h->cap);
    for (uint32_t i = 0; i < h->n; i++) {
        char id[16];
        snprintf(id, sizeof id, "n%u", h->id[i]);
        FUZZ_ASSERT(placer_builder_add_node(b, id, i % 2 ? "z1" : "z0", 1.0) == (int)i);
    }
    placer_builder_set_previous(b, prev);
    placer_snapshot *s = NULL;
    *err = placer_builder_build(b, 1, &s);
    placer_builder_free(b);
    return s;
}

static uint32_t id_of(const placer_snapshot *s, uint32_t node)
{
    return (uint32_t)atoi(placer_node_id(s, node) + 1);
}

static uint32_t bucket_of(const placer_snapshot *s, uint32_t id)
{
    for (uint32_t i = 0; i < placer_token_count(s); i++) {
        uint64_t t;
        uint32_t o;
        placer_token_at(s, i, &t, &o);
        if (id_of(s, o) == id)
            return (uint32_t)t;
    }
    FUZZ_ASSERT(0);
    return 0;
}

/* the id owning bucket k, from the tokens */
static uint32_t owner_of_bucket(const placer_snapshot *s, uint32_t k)
{
    for (uint32_t i = 0; i < placer_token_count(s); i++) {
        uint64_t t;
        uint32_t o;
        placer_token_at(s, i, &t, &o);
        if (t == k)
            return id_of(s, o);
    }
    return UINT32_MAX;
}

static uint32_t ref_lookup(const hist *h, uint64_t x)
{
    switch (h->st) {
    case PLACER_MEMENTO: return (uint32_t)ref_memento_lookup(&h->m, x);
    case PLACER_ANCHOR: return ref_anchor_lookup(&h->a, x);
    case PLACER_DX: return ref_dx_lookup(&h->d, x);
    case PLACER_JUMPBACK: return ref_jumpback(x, h->nb);
    default: return ref_binomial(x, h->nb);
    }
}

static uint32_t ref_add(hist *h)
{
    switch (h->st) {
    case PLACER_MEMENTO: return (uint32_t)ref_memento_add(&h->m);
    case PLACER_ANCHOR: return ref_anchor_add(&h->a);
    case PLACER_DX: return ref_dx_add(&h->d);
    default: return h->nb++;
    }
}

static void ref_remove(hist *h, uint32_t k)
{
    switch (h->st) {
    case PLACER_MEMENTO: ref_memento_remove(&h->m, k); break;
    case PLACER_ANCHOR: ref_anchor_remove(&h->a, k); break;
    case PLACER_DX: ref_dx_remove(&h->d, k); break;
    default: h->nb--;
    }
}

static void check_codec(const placer_snapshot *s)
{
    void *buf, *again;
    size_t len, len2;
    placer_snapshot *d = NULL;
    FUZZ_ASSERT(placer_snapshot_encode(s, &buf, &len) == 0);
    FUZZ_ASSERT(placer_snapshot_decode(buf, len, &d) == 0);
    FUZZ_ASSERT(placer_snapshot_encode(d, &again, &len2) == 0);
    FUZZ_ASSERT(len == len2 && memcmp(buf, again, len) == 0);
    placer_buffer_free(buf);
    placer_buffer_free(again);
    placer_snapshot_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    uint8_t first = fuzz_u8(&p);
    hist h = {.st = five[first % 5]};
    /* kernels are chosen at build (jumpback's batch: at each call) */
    static const unsigned masks[4] = {~0u, PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL | PLACER_CPU_AVX2,
                                      PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL, 0u};
    placer_set_cpu_mask(masks[(first / 5) % 4]);
    int anywhere = h.st == PLACER_MEMENTO || h.st == PLACER_ANCHOR || h.st == PLACER_DX;
    uint32_t start = 1 + fuzz_u8(&p) % 16;
    h.cap = start + fuzz_u8(&p) % 48;
    if (h.st == PLACER_DX) { /* the module rounds up to a power of two */
        uint32_t c = 1;
        while (c < h.cap)
            c *= 2;
        h.cap = c;
    }
    ref_memento_init(&h.m, 4 * MAXNODES);
    ref_anchor_init(&h.a, h.cap);
    ref_dx_init(&h.d, h.cap);
    for (; h.n < start; h.n++) {
        h.id[h.n] = h.next++;
        ref_add(&h);
    }
    uint64_t probe[PROBES];
    for (uint32_t i = 0; i < PROBES; i++)
        probe[i] = fuzz_u64(&p) ^ (0x9e3779b97f4a7c15ull * (i + 1));
    if (h.st == PLACER_JUMPBACK)
        check_first_kernels(probe, 1 + (uint32_t)(probe[1] % PROBES),
                            UINT32_MAX >> (probe[0] % 32));
    int err;
    placer_snapshot *s = build(&h, NULL, &err);
    FUZZ_ASSERT(err == 0);
    for (int step = 0; step < 48 && p.size; step++) {
        uint8_t op = fuzz_u8(&p);
        int leave = (op & 1) && h.n > 1;
        uint32_t who = 0, bucket = 0, before[PROBES];
        for (uint32_t i = 0; i < PROBES; i++)
            before[i] = id_of(s, (uint32_t)placer_lookup_hash(s, probe[i]));
        hist saved = h;
        if (leave) {
            uint32_t at = (op >> 1) % h.n;
            if (!anywhere) {
                uint64_t t;
                uint32_t o;
                placer_token_at(s, placer_token_count(s) - 1, &t, &o);
                for (at = 0; h.id[at] != id_of(s, o); at++)
                    ;
            }
            who = h.id[at];
            bucket = bucket_of(s, who);
            h.id[at] = h.id[--h.n];
            ref_remove(&h, bucket);
        } else if (h.n < MAXNODES) {
            int full = (h.st == PLACER_ANCHOR || h.st == PLACER_DX) && h.n == h.cap;
            who = h.id[h.n++] = h.next++;
            if (full) { /* refused, and nothing changes */
                placer_snapshot *t = build(&h, s, &err);
                FUZZ_ASSERT(err == PLACER_EINVAL && !t);
                h = saved;
                continue;
            }
            bucket = ref_add(&h);
        } else {
            continue;
        }
        placer_snapshot *t = build(&h, s, &err);
        FUZZ_ASSERT(err == 0 && t);
        if (!leave)
            FUZZ_ASSERT(bucket_of(t, who) == bucket);
        for (uint32_t i = 0; i < PROBES; i++) {
            uint32_t now = id_of(t, (uint32_t)placer_lookup_hash(t, probe[i]));
            FUZZ_ASSERT(owner_of_bucket(t, ref_lookup(&h, probe[i])) == now);
            if (leave)
                FUZZ_ASSERT((now != before[i]) == (before[i] == who));
            else
                FUZZ_ASSERT(now == before[i] || now == who);
        }
        uint32_t nbatch = 1 + op % PROBES, batch[PROBES];
        FUZZ_ASSERT(placer_lookup_hash_batch(t, probe, nbatch, batch) == 0);
        for (uint32_t i = 0; i < nbatch; i++)
            FUZZ_ASSERT(owner_of_bucket(t, ref_lookup(&h, probe[i])) == id_of(t, batch[i]));
        check_codec(t);
        placer_snapshot_free(s);
        s = t;
    }
    placer_snapshot_free(s);
    ref_memento_free(&h.m);
    ref_anchor_free(&h.a);
    ref_dx_free(&h.d);
    return 0;
}
