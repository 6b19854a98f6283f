/*
 * test_bucket_strategies.c -- memento, anchor, dx, jumpback and binomial:
 * each against its plain reference (ref_buckets.c) key for key, over
 * random histories of joins and leaves built from the previous snapshot;
 * minimal disruption checked key by key on every change; the history
 * carried through the codec byte for byte and deterministically; anchor's
 * capacity; batches against single lookups; balance.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isa.h"
#include "placer.h"
#include "ref_buckets.h"

uint32_t plc_jumpback_bucket(uint64_t h, uint32_t n);
uint32_t plc_binomial_bucket(uint64_t h, uint32_t n);

#define NKEYS 20000u
#define MAXN 512u

static const int five[] = {PLACER_MEMENTO, PLACER_ANCHOR, PLACER_DX, PLACER_JUMPBACK,
                           PLACER_BINOMIAL};

static int anywhere(int st)
{
    return st == PLACER_MEMENTO || st == PLACER_ANCHOR || st == PLACER_DX;
}

/* A membership: node ids "n<k>", one bucket each. */
typedef struct members {
    uint32_t id[MAXN], n, next;
} members;

static placer_snapshot *build(int st, const members *m, const placer_snapshot *prev,
                              uint32_t capacity)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, st);
    placer_builder_set_capacity(b, capacity);
    for (uint32_t i = 0; i < m->n; i++) {
        char id[16];
        snprintf(id, sizeof id, "n%u", m->id[i]);
        placer_builder_add_node(b, id, NULL, 1.0);
    }
    placer_builder_set_previous(b, prev);
    placer_snapshot *s = NULL;
    int err = placer_builder_build(b, 1, &s);
    if (err)
        fprintf(stderr, "build %s: %s (%s)\n", placer_strategy_name(st), placer_strerror(err),
                placer_builder_error(b));
    placer_builder_free(b);
    return s;
}

/* owner id number of a position */
static uint32_t owner_id(const placer_snapshot *s, uint64_t h)
{
    int o = placer_lookup_hash(s, h);
    return o < 0 ? UINT32_MAX : (uint32_t)atoi(placer_node_id(s, (uint32_t)o) + 1);
}

/* the bucket of node id k, and the owner id of every bucket (UINT32_MAX: none) */
static uint32_t bucket_of(const placer_snapshot *s, uint32_t k)
{
    for (uint32_t i = 0; i < placer_token_count(s); i++) {
        uint64_t t;
        uint32_t o;
        placer_token_at(s, i, &t, &o);
        if ((uint32_t)atoi(placer_node_id(s, o) + 1) == k)
            return (uint32_t)t;
    }
    return UINT32_MAX;
}

static void owners_by_bucket(const placer_snapshot *s, uint32_t *by, uint32_t cap)
{
    for (uint32_t i = 0; i < cap; i++)
        by[i] = UINT32_MAX;
    for (uint32_t i = 0; i < placer_token_count(s); i++) {
        uint64_t t;
        uint32_t o;
        placer_token_at(s, i, &t, &o);
        if (t < cap)
            by[t] = (uint32_t)atoi(placer_node_id(s, o) + 1);
    }
}

typedef struct refs {
    ref_memento m;
    ref_anchor a;
    ref_dx d;
    uint32_t n; /* jumpback, binomial: buckets */
} refs;

static uint32_t ref_add(int st, refs *r)
{
    switch (st) {
    case PLACER_MEMENTO: return (uint32_t)ref_memento_add(&r->m);
    case PLACER_ANCHOR: return ref_anchor_add(&r->a);
    case PLACER_DX: return ref_dx_add(&r->d);
    default: return r->n++;
    }
}

static void ref_remove(int st, refs *r, uint32_t b)
{
    switch (st) {
    case PLACER_MEMENTO: ref_memento_remove(&r->m, b); break;
    case PLACER_ANCHOR: ref_anchor_remove(&r->a, b); break;
    case PLACER_DX: ref_dx_remove(&r->d, b); break;
    default: r->n--;
    }
}

static uint32_t ref_lookup(int st, const refs *r, uint64_t h)
{
    switch (st) {
    case PLACER_MEMENTO: return (uint32_t)ref_memento_lookup(&r->m, h);
    case PLACER_ANCHOR: return ref_anchor_lookup(&r->a, h);
    case PLACER_DX: return ref_dx_lookup(&r->d, h);
    case PLACER_JUMPBACK: return ref_jumpback(h, r->n);
    default: return ref_binomial(h, r->n);
    }
}

static int same_bytes(const placer_snapshot *a, const placer_snapshot *b)
{
    void *x, *y;
    size_t nx, ny;
    placer_snapshot_encode(a, &x, &nx);
    placer_snapshot_encode(b, &y, &ny);
    int same = nx == ny && memcmp(x, y, nx) == 0;
    placer_buffer_free(x);
    placer_buffer_free(y);
    return same;
}

/* Decode(encode(s)) answers as s and encodes to the same bytes. */
static int round_trip(const placer_snapshot *s, const uint64_t *h, uint32_t nh)
{
    void *buf;
    size_t len;
    placer_snapshot *d = NULL;
    if (placer_snapshot_encode(s, &buf, &len) || placer_snapshot_decode(buf, len, &d))
        return 0;
    int ok = same_bytes(s, d);
    for (uint32_t i = 0; i < nh && ok; i++)
        ok = placer_lookup_hash(s, h[i]) == placer_lookup_hash(d, h[i]);
    placer_buffer_free(buf);
    placer_snapshot_free(d);
    return ok;
}

/* A random history of joins and leaves (leaves anywhere for memento,
 * anchor, dx; of the last bucket's node for jumpback, binomial), each
 * built from the previous snapshot and checked key by key. */
static void test_history(int st, uint32_t steps, uint64_t seed)
{
    const char *name = placer_strategy_name(st);
    uint64_t rnd = seed;
    members m = {.n = 0};
    refs r = {.n = 0};
    uint32_t cap = 1024;
    ref_memento_init(&r.m, 4096);
    ref_anchor_init(&r.a, cap);
    ref_dx_init(&r.d, cap);
    for (; m.n < 40; m.n++) {
        m.id[m.n] = m.next++;
        ref_add(st, &r);
    }
    uint64_t *h = malloc(NKEYS * sizeof *h);
    uint32_t *before = malloc(NKEYS * sizeof *before), by[4096];
    uint32_t *batch = malloc(NKEYS * sizeof *batch);
    int batch_ok = 1;
    placer_snapshot *s = build(st, &m, NULL, cap);
    for (uint32_t i = 0; i < NKEYS; i++) {
        char key[24];
        int len = snprintf(key, sizeof key, "key-%u", i);
        h[i] = placer_snapshot_hash(s, key, (size_t)len);
    }
    int minimal = 1, refok = 1, buckets_ok = 1, codec_ok = 1, moved_ok = 1;
    members hist[2] = {m, m}; /* the start, for the replay */
    uint32_t ops[4096], nops = 0;
    for (uint32_t step = 0; step < steps && s; step++) {
        int leave = m.n > 8 && (m.n >= MAXN - 1 || check_rand(&rnd) % 2);
        uint32_t who, at = 0, bucket;
        for (uint32_t i = 0; i < NKEYS; i++)
            before[i] = owner_id(s, h[i]);
        if (leave) {
            if (anywhere(st)) {
                at = (uint32_t)(check_rand(&rnd) % m.n);
            } else { /* the node of the last bucket */
                uint32_t last = placer_token_count(s) - 1;
                uint64_t t;
                uint32_t o;
                placer_token_at(s, last, &t, &o);
                uint32_t k = (uint32_t)atoi(placer_node_id(s, o) + 1);
                while (m.id[at] != k)
                    at++;
            }
            who = m.id[at];
            bucket = bucket_of(s, who);
            m.id[at] = m.id[--m.n];
            ref_remove(st, &r, bucket);
        } else {
            who = m.id[m.n++] = m.next++;
            bucket = ref_add(st, &r);
        }
        ops[nops++] = leave ? who : UINT32_MAX;
        placer_snapshot *t = build(st, &m, s, 0);
        if (!t)
            break;
        if (!leave)
            buckets_ok &= bucket_of(t, who) == bucket;
        owners_by_bucket(t, by, 4096);
        uint32_t moved = 0, leaver_keys = 0;
        for (uint32_t i = 0; i < NKEYS; i++) {
            uint32_t now = owner_id(t, h[i]);
            moved += now != before[i];
            if (leave) {
                leaver_keys += before[i] == who;
                minimal &= (now != before[i]) == (before[i] == who);
            } else {
                minimal &= now == before[i] || now == who;
            }
            refok &= by[ref_lookup(st, &r, h[i])] == now;
        }
        /* batches (their lanes and waves) == single lookups, on every change */
        placer_lookup_hash_batch(t, h, NKEYS, batch);
        for (uint32_t i = 0; i < NKEYS; i++)
            batch_ok &= (int)batch[i] == placer_lookup_hash(t, h[i]);
        if (step % 25 == 0) {
            codec_ok &= round_trip(t, h, 2000);
            double f = 0;
            placer_moved_fraction(s, t, 1u << 16, &f);
            double want = leave ? 1.0 / (m.n + 1) : 1.0 / m.n;
            moved_ok &= f > want * 0.5 && f < want * 1.5;
            if (!(f > want * 0.5 && f < want * 1.5))
                fprintf(stderr, "  %s step %u: moved %.4f, one share %.4f (%s, n %u)\n", name, step, f, want, leave ? "leave" : "join", m.n);
        }
        (void)leaver_keys;
        placer_snapshot_free(s);
        s = t;
    }
    CHECK_ALL(s != NULL, name);
    CHECK_ALL(minimal, "a leave moves exactly the leaver's keys, a join only to the joiner");
    CHECK_ALL(refok, "module == plain reference, key for key, after every change");
    CHECK_ALL(buckets_ok, "a joiner gets the bucket the paper's add gives");
    CHECK_ALL(codec_ok, "decode(encode(s)) == s, byte for byte, lookups equal");
    CHECK_ALL(moved_ok, "placer_moved_fraction near one node's share");
    CHECK_ALL(batch_ok, "placer_lookup_hash_batch == placer_lookup_hash after every change");
    if (!minimal || !refok || !buckets_ok || !codec_ok || !moved_ok || !batch_ok)
        fprintf(stderr, "  (strategy %s)\n", name);
    /* The same membership history gives the same bytes. */
    members x = hist[0];
    placer_snapshot *y = build(st, &x, NULL, cap);
    for (uint32_t i = 0; i < nops && y; i++) {
        if (ops[i] == UINT32_MAX) {
            x.id[x.n++] = x.next++;
        } else {
            uint32_t at = 0;
            while (x.id[at] != ops[i])
                at++;
            x.id[at] = x.id[--x.n];
        }
        placer_snapshot *z = build(st, &x, y, 0);
        placer_snapshot_free(y);
        y = z;
    }
    CHECK_ALL(y && s && same_bytes(s, y), "replaying the history gives the same bytes");
    placer_snapshot_free(y);
    placer_snapshot_free(s);
    free(h);
    free(before);
    free(batch);
    ref_memento_free(&r.m);
    ref_anchor_free(&r.a);
    ref_dx_free(&r.d);
}

/* JumpBack and Binomial against their references for many n and keys. */
static void test_functions(void)
{
    uint64_t rnd = 7;
    int jb = 1, jp = 1, bi = 1, grow = 1;
    for (int i = 0; i < 200000; i++) {
        uint64_t h = check_rand(&rnd);
        uint32_t n = 1 + (uint32_t)(check_rand(&rnd) % (i % 2 ? 70000 : (1u << 25)));
        uint32_t a = plc_jumpback_bucket(h, n), c = plc_binomial_bucket(h, n);
        jb &= a == ref_jumpback(h, n);
        jp &= a == ref_jumpback_paper(h, n);
        bi &= c == ref_binomial(h, n);
        /* one more bucket: stay, or move to the new one */
        uint32_t a1 = plc_jumpback_bucket(h, n + 1), c1 = plc_binomial_bucket(h, n + 1);
        grow &= (a1 == a || a1 == n) && (c1 == c || c1 == n) && a < n && c < n;
    }
    CHECK_ALL(jb, "jumpback == its reference");
    CHECK_ALL(jp, "jumpback == the paper's loop (the benchmarks' baseline)");
    CHECK_ALL(bi, "binomial == its reference");
    CHECK_ALL(grow, "jumpback, binomial: n -> n+1 moves keys only to bucket n");
}

/* The single lookups of the end strategies on few buckets (1 .. 40, where
 * the first point is >= n most often and n <= 1 has no range bits) and
 * around powers of two, against their references: placer_lookup_hash
 * answers the node of the reference's bucket, and the batch agrees under
 * each CPU level's mask (jumpback's first-step kernels). */
static void test_single_few(void)
{
    static const uint32_t sizes[] = {1,  2,  3,  4,  5,  7,  8,   9,   15,  16,  17,  31,
                                     32, 33, 40, 63, 64, 65, 127, 128, 129, 255, 256, 257};
    /* the CPU levels: every kernel, AVX-512 .. the portable one */
    static const unsigned levels[] = {
        ~0u, PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL | PLACER_CPU_AVX2,
        PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL, 0u};
    static uint32_t by[512];
    uint64_t rnd = 11;
    int ok = 1, batch_ok = 1, built = 1;
    for (int e = 0; e < 2; e++) {
        int st = e ? PLACER_BINOMIAL : PLACER_JUMPBACK;
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            members m = {.n = sizes[z], .next = sizes[z]};
            for (uint32_t i = 0; i < m.n; i++)
                m.id[i] = i;
            placer_snapshot *s = build(st, &m, NULL, 0);
            built &= s != NULL;
            if (!s)
                continue;
            owners_by_bucket(s, by, 512);
            uint64_t h[256];
            uint32_t batch[256];
            for (uint32_t i = 0; i < 256; i++)
                h[i] = check_rand(&rnd);
            for (size_t level = 0; level < sizeof levels / sizeof levels[0]; level++) {
                placer_set_cpu_mask(levels[level]); /* jumpback's batch: at each call */
                placer_lookup_hash_batch(s, h, 253, batch); /* tails past 4 and 8 keys */
                placer_set_cpu_mask(~0u);
                for (uint32_t i = 0; i < 253; i++)
                    batch_ok &= (int)batch[i] == placer_lookup_hash(s, h[i]);
            }
            for (uint32_t i = 0; i < 256; i++) {
                uint32_t want = e ? ref_binomial(h[i], m.n) : ref_jumpback(h[i], m.n);
                ok &= owner_id(s, h[i]) == by[want];
            }
            placer_snapshot_free(s);
        }
    }
    CHECK_ALL(built, "jumpback, binomial: 1 .. 257 buckets build");
    CHECK_ALL(ok, "jumpback, binomial: single lookups on few buckets == the references");
    CHECK_ALL(batch_ok, "jumpback, binomial: batches on few buckets == single lookups, each CPU level");
}

/* max/mean of 1,000 equal nodes on 2M keys: near 1 for each. */
static void test_balance(void)
{
    static uint32_t load[1000];
    for (size_t si = 0; si < 5; si++) {
        members m = {.n = 1000};
        for (uint32_t i = 0; i < 1000; i++)
            m.id[i % MAXN] = i; /* ids only need to be unique: built below */
        placer_builder *b = placer_builder_new();
        placer_builder_set_strategy(b, five[si]);
        for (uint32_t i = 0; i < 1000; i++) {
            char id[16];
            snprintf(id, sizeof id, "n%u", i);
            placer_builder_add_node(b, id, NULL, 1.0);
        }
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        memset(load, 0, sizeof load);
        uint64_t rnd = 99;
        for (int k = 0; k < 2000000; k++)
            load[placer_lookup_hash(s, check_rand(&rnd))]++;
        uint32_t mx = 0, mn = UINT32_MAX;
        for (int i = 0; i < 1000; i++) {
            mx = load[i] > mx ? load[i] : mx;
            mn = load[i] < mn ? load[i] : mn;
        }
        int ok = mx < 2000 * 1.15 && mn > 2000 * 0.85;
        CHECK_ALL(ok, placer_strategy_name(five[si]));
        if (!ok)
            fprintf(stderr, "  %s: max %u min %u of mean 2000\n", placer_strategy_name(five[si]), mx, mn);
        (void)m;
        placer_snapshot_free(s);
        placer_builder_free(b);
    }
}

/* Batches equal single lookups, and replicas are distinct live nodes. */
static void test_batches(void)
{
    for (size_t si = 0; si < 5; si++) {
        members m = {.n = 0};
        for (; m.n < 100; m.n++)
            m.id[m.n] = m.next++;
        placer_snapshot *s = build(five[si], &m, NULL, 0);
        for (int k = 0; k < 10; k++) /* some removals */
            m.id[k * 7] = m.id[--m.n];
        placer_snapshot *t = anywhere(five[si]) ? build(five[si], &m, s, 0) : NULL;
        placer_snapshot *u = t ? t : s;
        enum { N = 1000 };
        static char keys[N][16];
        const void *kp[N];
        size_t kl[N];
        uint32_t owners[N];
        for (int i = 0; i < N; i++) {
            kl[i] = (size_t)snprintf(keys[i], sizeof keys[i], "b%d", i);
            kp[i] = keys[i];
        }
        CHECK_EQ(placer_lookup_batch(u, kp, kl, N, owners), 0);
        int ok = 1, rep = 1;
        for (int i = 0; i < N; i++) {
            ok &= (int)owners[i] == placer_lookup(u, kp[i], kl[i]);
            uint32_t out[3];
            int got = placer_replicas(u, kp[i], kl[i], out, 3);
            rep &= got == 3 && out[0] == owners[i] && out[1] != out[0] && out[2] != out[1] &&
                   out[2] != out[0];
        }
        CHECK_ALL(ok, "batch == single lookups");
        CHECK_ALL(rep, "replicas: the owner first, then distinct nodes");
        placer_snapshot_free(t);
        placer_snapshot_free(s);
    }
}

/* Anchor at capacity: the build that would pass it is refused; dx rounds
 * its capacity up to a power of two; a different capacity with a previous
 * snapshot is refused. */
static void test_capacity(void)
{
    members m = {.n = 0};
    for (; m.n < 64; m.n++)
        m.id[m.n] = m.next++;
    placer_snapshot *s = build(PLACER_ANCHOR, &m, NULL, 64);
    CHECK(s != NULL);
    m.id[m.n++] = m.next++;
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, PLACER_ANCHOR);
    for (uint32_t i = 0; i < m.n; i++) {
        char id[16];
        snprintf(id, sizeof id, "n%u", m.id[i]);
        placer_builder_add_node(b, id, NULL, 1.0);
    }
    placer_builder_set_previous(b, s);
    placer_snapshot *t = NULL;
    CHECK_EQ(placer_builder_build(b, 2, &t), PLACER_EINVAL);
    CHECK(strstr(placer_builder_error(b), "capacity") != NULL);
    placer_builder_set_capacity(b, 128);
    CHECK_EQ(placer_builder_build(b, 2, &t), PLACER_EINVAL);
    placer_builder_set_previous(b, NULL);
    CHECK_EQ(placer_builder_build(b, 2, &t), 0); /* from scratch, a larger capacity */
    placer_snapshot_free(t);
    placer_builder_free(b);
    placer_snapshot_free(s);
    CHECK_EQ(placer_builder_set_capacity(NULL, 1), PLACER_ENULL);
    placer_builder *c = placer_builder_new();
    CHECK_EQ(placer_builder_set_capacity(c, PLACER_MAX_TOKENS + 1), PLACER_EINVAL);
    placer_builder_free(c);
    /* a long history at anchor's default capacity stays within it */
}

/* The file's integers are little-endian on every host (docs/FORMAT.md):
 * read and write them byte by byte, never as host words (a host-order read
 * of the section table sent this test far past the buffer on s390x). */
static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void wr32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The section of type `type` in an encoded snapshot: its bytes and count. */
static unsigned char *section(unsigned char *buf, uint32_t type, uint64_t *count)
{
    uint32_t k = rd32(buf + 48);
    for (uint32_t i = 0; i < k; i++) {
        unsigned char *e = buf + 64 + 32 * i;
        if (rd32(e) == type) {
            *count = rd64(e + 24);
            return buf + rd64(e + 8);
        }
    }
    return NULL;
}

static void reseal(unsigned char *buf, size_t len)
{
    uint32_t crc = placer_crc32c(0, buf, 60);
    wr32(buf + 60, placer_crc32c(crc, buf + 64, len - 64));
}

/* Forged histories behind a good checksum: each a clear error, never a
 * crash (ASan and UBSan builds run this too). */
static void test_forged(void)
{
    for (size_t si = 0; si < 3; si++) {
        int st = five[si];
        members m = {.n = 0};
        for (; m.n < 10; m.n++)
            m.id[m.n] = m.next++;
        placer_snapshot *s = build(st, &m, NULL, 64);
        m.id[3] = m.id[--m.n]; /* n3 leaves, then n9 (the last bucket's node) */
        placer_snapshot *t = build(st, &m, s, 0);
        for (uint32_t i = 0; i < m.n; i++)
            if (m.id[i] == 9)
                m.id[i] = m.id[--m.n];
        placer_snapshot *u = build(st, &m, t, 0);
        void *enc;
        size_t len;
        CHECK_EQ(placer_snapshot_encode(u, &enc, &len), 0);
        unsigned char *good = enc, *buf = malloc(len);
        uint64_t nh = 0, nt = 0;
        int found = section(good, 15, &nh) != NULL && section(good, 8, &nt) != NULL;
        CHECK(found);
        CHECK(nh >= 2);
        for (int kind = 0; kind < 5 && found && nh >= 2; kind++) {
            memcpy(buf, good, len);
            unsigned char *h = section(buf, 15, &nh), *tab = section(buf, 8, &nt);
            uint32_t work = 0;
            while (rd32(tab + 4 * work) == UINT32_MAX)
                work++;
            switch (kind) {
            case 0: wr32(h + 4, rd32(h)); break;            /* a bucket removed twice */
            case 1: wr32(h, (uint32_t)nt); break;           /* past the table */
            case 2: wr32(h, work); break;                   /* a working bucket */
            case 3: wr32(tab + 4 * work, UINT32_MAX); break; /* a hole with no history */
            case 4: /* the first two removals swapped: memento's last bucket first */
                wr32(h, rd32(good + (h - buf) + 4));
                wr32(h + 4, rd32(good + (h - buf)));
                break;
            }
            reseal(buf, len);
            placer_snapshot *d = NULL;
            char why[160];
            int err = placer_snapshot_decode_ex(buf, len, &d, why, sizeof why);
            if (kind == 4 && st != PLACER_MEMENTO) {
                /* another valid order for anchor and dx: decodes, canonical */
                CHECK_EQ(err, 0);
            } else {
                CHECK_EQ(err, PLACER_ECORRUPT);
                if (err != PLACER_ECORRUPT)
                    fprintf(stderr, "  %s forgery %d: %s\n", placer_strategy_name(st), kind, why);
            }
            placer_snapshot_free(d);
        }
        free(buf);
        placer_buffer_free(enc);
        placer_snapshot_free(u);
        placer_snapshot_free(t);
        placer_snapshot_free(s);
    }
}

/* Handoff in a transition: a node draining from the middle hands over
 * only its keys (memento, anchor, dx), a joining one takes keys only for
 * itself; the target placement is what a build after the transition
 * gives. */
static void test_handoff(void)
{
    for (size_t si = 0; si < 5; si++) {
        int st = five[si];
        placer_builder *b = placer_builder_new();
        placer_builder_set_strategy(b, st);
        for (int i = 0; i < 30; i++) {
            char id[16];
            snprintf(id, sizeof id, "n%d", i);
            placer_builder_add_node(b, id, NULL, 1.0);
        }
        uint32_t drain = anywhere(st) ? 11 : 29, join = 30;
        placer_builder_add_node(b, "n30", NULL, 1.0);
        placer_builder_set_state(b, drain, PLACER_NODE_DRAINING);
        placer_builder_set_state(b, join, PLACER_NODE_JOINING);
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        uint64_t r = 5;
        int ok = 1;
        for (int k = 0; k < 50000; k++) {
            uint32_t now = 0, next = 0;
            placer_lookup_hash_handoff(s, check_rand(&r), &now, &next);
            ok &= now != join && next != drain;
            if (anywhere(st))
                ok &= now == next || now == drain || next == join;
        }
        CHECK_ALL(ok, placer_strategy_name(st));
        placer_snapshot_free(s);
        placer_builder_free(b);
    }
}

/* A placement with no bucket in use (its only node joining, or draining in
 * the target) is refused as jump refuses it: lookups walk until they reach
 * a bucket in use (memento crashed and dx looped forever on such a
 * snapshot before). */
static void test_no_bucket_in_use(void)
{
    static const int states[] = {PLACER_NODE_JOINING, PLACER_NODE_DRAINING};
    for (size_t si = 0; si < 5; si++)
        for (size_t k = 0; k < 2; k++) {
            placer_builder *b = placer_builder_new();
            placer_builder_set_strategy(b, five[si]);
            placer_builder_add_node(b, "n0", NULL, 1.0);
            placer_builder_set_state(b, 0, states[k]);
            placer_snapshot *s = NULL;
            CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_ENONODES);
            CHECK(s == NULL);
            placer_builder_free(b);
        }
}

/* Every CPU level's kernels (memento's jump: AVX2 lanes, SSE4.1, the
 * portable ones) through short histories against the references. */
static void at_level(void *ctx, const cpu_level *level)
{
    (void)ctx;
    (void)level;
    for (size_t i = 0; i < 3; i++)
        test_history(five[i], 60, 77 + i);
}

int main(void)
{
    for_each_cpu_level(at_level, NULL);
    test_handoff();
    test_no_bucket_in_use();
    test_forged();
    test_functions();
    test_single_few();
    for (size_t i = 0; i < 5; i++)
        test_history(five[i], 400, 1000 + i);
    test_balance();
    test_batches();
    test_capacity();
    return check_done("bucket_strategies");
}
