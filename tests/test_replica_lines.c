/*
 * test_replica_lines.c -- the fused replica-set kernels (simd/
 * buckets_sets_body.h: placer_replicas and placer_replicas_batch on a ring
 * with line sets and the placer-v2 hash) under every kernel level, against
 * the plain reference walk (tests/reference.c) and, for many keys, against
 * placer_replicas_hash (the slot path, itself checked against the
 * reference in test_replicas.c). Rings with sets of 2 to 5, zones, down,
 * joining and draining nodes; wants 1 to 5 (4 and 5 past what the line
 * sets hold: the walk or per-slot sets); keys of 32 bytes (the batch's
 * constant-length hash) mixed with other lengths and empty NULL keys, in
 * batches of 1 to 3,001 keys; keys the lines cannot answer (ties,
 * crowded lines, nodes past the line's lanes) counted, so the fallback is
 * known to have run; every byte of the line sets against the per-slot
 * sets (the lanes it names, and 0xFF only where none can answer), also
 * after an encode and decode. A ring of explicit tokens puts crowded
 * lines where the keys go: one whose tokens the batch ranks, one too
 * crowded for it, one with suffixes equal in pairs, and tokens tying
 * keys' hashes inside and outside them, each kind of key counted. A NULL key with a length fails the batch with nothing
 * written, in the first block, a later one, and past the stack buffer.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"
#include "reference.h"
#include "replica_test_kit.h"
#include "snapshot_internal.h"

enum { NKEYS = 16000, WMAX = 5 };

/* Can the line sets answer h (want <= 3)? As the kernels decide: no tie on
 * the line's 16 bits, a byte other than 0xFF. */
static int lines_answer(const placer_snapshot *s, uint64_t h)
{
    const plc_bkt *k = &s->bkt;
    uint64_t i = h >> k->shift;
    int16_t q = plc_bkt_suffix(h, k->sshift);
    uint32_t r = plc_bkt_rank_plain(&k->line[i], q);
    return k->line[i].suf[r] != q && s->rep_lines[i * PLC_BKT_LANES + r] != PLC_BKT_SET_NONE;
}

/* Every byte of the line sets against the per-slot sets, the tokens'
 * owners read from the tree: rank r <= k of a line of k < 16 tokens,
 * whose set the owner of slot first + r leads, names two lanes whose
 * owners (the tokens first + lane, wrapping) are the set's second and
 * third nodes; or one lane past the ranks twice and the two nodes as
 * words there (a record); or lane r (which no set names: its owner
 * leads) in place of one node, the line's spill word (that node at byte
 * 14, past the ranks); and is 0xFF only when no lanes can (a set not led
 * by that owner, padded, a node of 65,535 or more, a node among none of
 * the 16 tokens). A crowded line's byte 0 is 0xFF, and from byte 2 the
 * suffixes of its tokens 3, 7, 11, ... (padding past them). Returns the wrong
 * bytes; adds the ranks answered and left. */
static long spills, words[2]; /* records; spill words for a second node, a third */
static long pivots;            /* a crowded line's token suffixes checked */
static long check_bytes(const placer_snapshot *s, long *answered, long *none)
{
    const plc_bkt *k = &s->bkt;
    uint64_t m = (uint64_t)1 << k->bits;
    uint32_t n = s->tree.n, R = s->rep_r, w = R < 3 ? R : 3;
    long bad = 0;
    for (uint64_t i = 0; i < m; i++) {
        uint32_t first = k->base[i], end = i + 1 < m ? k->base[i + 1] : n;
        const uint8_t *e = s->rep_lines + i * PLC_BKT_LANES;
        uint32_t own[PLC_BKT_LANES];
        for (uint32_t j = 0; j < PLC_BKT_LANES; j++)
            own[j] = plc_stree_owner_at(&s->tree, (first + j) % n);
        for (uint32_t r = 0; r <= end - first && r < PLC_BKT_LANES; r++) {
            if (end - first >= PLC_BKT_LANES) { /* r is 0 */
                bad += e[0] != PLC_BKT_SET_NONE || e[1] != PLC_BKT_SET_NONE;
                for (uint32_t j = 0; j < PLC_BKT_CROWD_PIVOTS; j++) { /* its tokens 3, 7, ... */
                    uint32_t at = 4 * j + 3;
                    int16_t v, want = at < end - first
                                          ? plc_bkt_suffix(plc_stree_token(&s->tree, first + at),
                                                           k->sshift)
                                          : PLC_BKT_PAD;
                    memcpy(&v, e + 2 + 2 * j, sizeof v);
                    bad += v != want;
                    pivots += at < end - first;
                }
                continue;
            }
            const uint32_t *set = s->rep + (size_t)((first + r) % n) * R;
            int can = set[0] == own[r] && set[0] < PLC_BKT_ASK_TREE;
            for (uint32_t x = 1; x < w; x++) {
                int in = 0;
                for (uint32_t j = 0; j < PLC_BKT_LANES; j++)
                    in |= own[j] == set[x];
                can &= in && set[x] < PLC_BKT_ASK_TREE;
            }
            if (e[r] == PLC_BKT_SET_NONE) {
                bad += can;
                *none += 1;
                continue;
            }
            *answered += 1;
            uint32_t a = e[r] & 15u, b = e[r] >> 4, got[3] = {own[r], own[a], own[b]};
            if (a == b) { /* a record: two words past the line's ranks */
                uint16_t v[2];
                memcpy(v, e + a, sizeof v);
                got[1] = v[0];
                got[2] = v[1];
                bad += a <= end - first || a + 4 > PLC_BKT_LANES;
                spills++;
            } else if (a == r || b == r) { /* the line's spill word, past its ranks */
                uint16_t v;
                memcpy(&v, e + PLC_BKT_SET_WORD, sizeof v);
                got[a == r ? 1 : 2] = v;
                bad += end - first >= PLC_BKT_SET_WORD;
                words[a == r ? 0 : 1] += w > (a == r ? 1u : 2u);
            }
            for (uint32_t x = 0; x < w; x++)
                bad += got[x] != set[x];
        }
    }
    return bad;
}

static long check_ring(const placer_snapshot *s, const keyset *k, uint32_t nref, long *left)
{
    static uint32_t out[NKEYS * WMAX], counts[NKEYS];
    long bad = 0;
    bad += s->bkt_sets_batch == NULL || s->bkt_set == NULL; /* the paths under test */
    static const size_t sizes[] = {1, 15, 16, 17, 33, 1024, 3001};
    for (uint32_t want = 1; want <= WMAX; want++) {
        /* batches of several sizes covering the keys */
        for (size_t at = 0, z = 0; at < NKEYS; z++) {
            size_t m = sizes[z % 7] < NKEYS - at ? sizes[z % 7] : NKEYS - at;
            CHECK_EQ(placer_replicas_batch(s, k->ptrs + at, k->lens + at, m, want,
                                           out + at * want, counts + at),
                     0);
            at += m;
        }
        for (size_t i = 0; i < NKEYS; i++) {
            uint64_t h = placer_snapshot_hash(s, k->ptrs[i], k->lens[i]);
            uint32_t one[WMAX], slot[WMAX], ref[WMAX];
            int n = placer_replicas(s, k->ptrs[i], k->lens[i], one, want);
            int ns = placer_replicas_hash(s, h, slot, want, NULL);
            bad += n != ns || counts[i] != (uint32_t)ns || n < 1;
            for (int j = 0; j < ns && j < n; j++)
                bad += one[j] != slot[j] || out[i * want + (size_t)j] != slot[j];
            if (i < nref) {
                uint32_t rn = ref_ring_replicas(s, h, ref, want);
                bad += rn != (uint32_t)ns || memcmp(ref, slot, rn * sizeof *ref) != 0;
            }
            if (want == 3)
                *left += !lines_answer(s, h);
        }
    }
    return bad;
}

static void every_level(void)
{
    static const unsigned levels[] = {~0u, PLACER_CPU_AVX2 | PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL,
                                      PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL, 0u};
    uint64_t st = 4343;
    keyset k;
    make_keys(&k, &st, NKEYS);
    long bad = 0, left = 0, rings = 0, bad_bytes = 0, answered = 0, nones = 0;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        placer_set_cpu_mask(levels[l]);
        /* the seed ring (3 zones, sets of 3) and its decoded copy (the
         * decoder builds the line sets again), then random rings */
        placer_snapshot *s = replica_ring(&st, 120, 256, 3, 3, 0), *back = NULL;
        long seed_left = 0, seed_answered = 0;
        bad += check_ring(s, &k, 60, &seed_left);
        bad_bytes += check_bytes(s, &seed_answered, &nones);
        void *buf = NULL;
        size_t len = 0;
        CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
        CHECK_EQ(placer_snapshot_decode(buf, len, &back), 0);
        free(buf);
        bad += memcmp(back->rep_lines, s->rep_lines, plc_replica_lines_bytes(s->bkt.bits, 3)) != 0;
        bad += check_ring(back, &k, 60, &left);
        bad_bytes += check_bytes(back, &answered, &nones);
        placer_snapshot_free(back);
        placer_snapshot_free(s);
        /* 3 zones and 120 nodes: a few keys in a hundred left */
        printf("120 x 256, 3 zones: %.2f%% of keys left by the line sets\n",
               100.0 * (double)seed_left / NKEYS); /* want 3 */
        CHECK(seed_left > 0 && seed_left < NKEYS / 10);
        for (int t = 0; t < 3; t++) {
            uint32_t nodes = 8 + (uint32_t)(check_rand(&st) % 60);
            uint32_t zones = 1 + (uint32_t)(check_rand(&st) % 4);
            uint32_t sets = 2 + (uint32_t)(check_rand(&st) % 4);
            s = replica_ring(&st, nodes, 16 + (uint32_t)(check_rand(&st) % 64), zones, sets, 1);
            bad += check_ring(s, &k, 40, &left);
            bad_bytes += check_bytes(s, &answered, &nones);
            placer_snapshot_free(s);
            rings++;
        }
        left += seed_left;
        answered += seed_answered;
    }
    placer_set_cpu_mask(~0u);
    CHECK_ALL(bad == 0, "fused line sets == slot path == reference, every kernel level");
    CHECK_ALL(bad_bytes == 0, "every line sets' byte names the set's lanes, 0xFF only when none can");
    printf("spill records %ld, spill words for a second node %ld, a third %ld\n", spills,
           words[0], words[1]);
    /* every kind of byte was checked */
    CHECK(answered > 0 && nones > 0 && spills > 0 && words[0] > 0 && words[1] > 0 && pivots > 0);
    CHECK(rings == 12);
    CHECK(left > 0); /* the fallback ran */
    free_keys(&k);
}

/* Where a key the batch's lines cannot answer finds its slot. */
enum { K_CROWD_RANK, K_CROWD_TREE, K_TIE, K_WRAP, K_KINDS };

/* The kinds of the keys of s (want 3), as the batch decides them. */
static void key_kinds(const placer_snapshot *s, const keyset *k, long kinds[K_KINDS])
{
    const plc_bkt *b = &s->bkt;
    uint64_t m = (uint64_t)1 << b->bits;
    for (size_t i = 0; i < NKEYS; i++) {
        uint64_t h = placer_snapshot_hash(s, k->ptrs[i], k->lens[i]);
        uint64_t at = h >> b->shift;
        int16_t q = plc_bkt_suffix(h, b->sshift);
        uint32_t first = b->base[at], end = at + 1 < m ? b->base[at + 1] : s->tree.n;
        if (end - first >= PLC_BKT_LANES) {
            int ranked = end - first <= PLC_BKT_CROWD_MAX;
            uint32_t r = 0;
            for (uint32_t j = first; j < end && ranked; j++)
                r += plc_stree_token(&s->tree, j) < h;
            kinds[ranked ? K_CROWD_RANK : K_CROWD_TREE]++;
            kinds[K_WRAP] += ranked && first + r == s->tree.n; /* past the last token */
        } else if (b->line[at].suf[plc_bkt_rank_plain(&b->line[at], q)] == q) {
            kinds[K_TIE]++;
        }
    }
}

/* n tokens spaced `step` apart from `from`, round robin over the nodes. */
static void add_run(placer_builder *b, uint32_t nodes, uint64_t from, uint64_t step, uint32_t n,
                    uint32_t *next)
{
    for (uint32_t j = 0; j < n; j++)
        CHECK_EQ(placer_builder_add_token(b, (*next)++ % nodes, from + j * step), 0);
}

/* A builder of sets of 3, seed `seed` and nodes in 3 zones, no tokens. */
static placer_builder *zoned_builder(uint32_t nodes, uint64_t seed)
{
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_set_replicas(b, 3), 0);
    CHECK_EQ(placer_builder_set_seed(b, seed), 0);
    for (uint32_t i = 0; i < nodes; i++) {
        char id[16], zone[16];
        snprintf(id, sizeof id, "node-%04u", i);
        snprintf(zone, sizeof zone, "zone-%u", i % 3);
        CHECK_EQ(placer_builder_add_node(b, id, zone, 1.0), i);
    }
    return b;
}

/* A ring of explicit tokens, random but for crowded lines where keys 0, 1
 * and 2 go (16 + 4 tokens with distinct suffixes, 40 tokens, 18 tokens
 * whose suffixes come in pairs), one in the last line below most of its
 * hashes (the wrap), and tokens one before or after the hashes of keys 0
 * and 3..9 (ties: the tree decides between the token and the next), in
 * line bits b. */
static placer_snapshot *crowded_ring(const keyset *k, uint64_t *st, uint32_t bits, uint32_t ntok)
{
    enum { NODES = 30, SEED = 77 };
    placer_builder *b = zoned_builder(NODES, SEED);
    uint32_t next = 0;
    uint64_t span = UINT64_MAX >> bits; /* a line's hashes, less one */
    uint64_t h[10];
    for (int i = 0; i < 10; i++)
        h[i] = placer_hash64(SEED, k->ptrs[i], k->lens[i]);
    add_run(b, NODES, (h[0] & ~span) + (span >> 6), span / 24, 20, &next); /* ranked */
    CHECK_EQ(placer_builder_add_token(b, next++ % NODES, h[0] - 1), 0);    /* and a tie */
    add_run(b, NODES, h[1] & ~span, span / 48, 40, &next);                 /* past 27 */
    add_run(b, NODES, h[2] & ~span, (span >> 16) / 2 + 1, 18, &next);      /* pairs */
    add_run(b, NODES, ~span, span / 128, 17, &next);                       /* the wrap */
    for (int i = 3; i < 10; i++)
        CHECK_EQ(placer_builder_add_token(b, next++ % NODES, i % 2 ? h[i] + 1 : h[i] - 1), 0);
    while (next < ntok) {
        uint64_t t = check_rand(st);
        if (t < ~span) /* none in the last line above the wrap's run */
            CHECK_EQ(placer_builder_add_token(b, next++ % NODES, t), 0);
    }
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    placer_builder_free(b);
    return s;
}

static void crowded_lines(void)
{
    static const unsigned levels[] = {~0u, PLACER_CPU_AVX2 | PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL,
                                      PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL, 0u};
    uint64_t st = 99;
    keyset k;
    make_keys(&k, &st, NKEYS);
    for (size_t i = 0; i < 10; i++)
        k.lens[i] = 32; /* the keys the ring is made around */
    long bad = 0, left = 0, kinds[K_KINDS] = {0};
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        placer_set_cpu_mask(levels[l]);
        /* the line bits of a ring of this many tokens, then the ring */
        placer_snapshot *s = crowded_ring(&k, &st, 1, 2048);
        uint32_t bits = s->bkt.bits;
        placer_snapshot_free(s);
        s = crowded_ring(&k, &st, bits, 2048);
        CHECK_EQ(s->bkt.bits, bits);
        key_kinds(s, &k, kinds);
        bad += check_ring(s, &k, 2000, &left);
        long answered = 0, nones = 0;
        bad += check_bytes(s, &answered, &nones); /* a crowded line's token suffixes too */
        placer_snapshot_free(s);
    }
    placer_set_cpu_mask(~0u);
    CHECK_ALL(bad == 0, "crowded lines, ties: fused batch == slot path == reference");
    printf("crowded keys ranked by their tokens %ld (%ld wrapping), past it %ld; ties %ld\n",
           kinds[K_CROWD_RANK], kinds[K_WRAP], kinds[K_CROWD_TREE], kinds[K_TIE]);
    /* 8 ties planted a level (keys 0 and 3 to 9); a planted tie can count
     * as another kind, its key's line crowded by the ring's runs (31 of 32
     * under s390x's qemu) */
    CHECK(kinds[K_CROWD_RANK] > 0 && kinds[K_WRAP] > 0 && kinds[K_CROWD_TREE] > 0 &&
          kinds[K_TIE] >= 4 * 4);
    free_keys(&k);
}

/* A key in an empty first line whose suffix equals the padding (a tie
 * with no token: its slot is the first token of a later line), in a ring
 * of 512 tokens none of which is in the first line: the batch, alone and
 * among other keys, against the slot path, at every kernel level. */
static void empty_line_tie(void)
{
    enum { NODES = 12, SEED = 5, NTOK = 512 };
    placer_builder *b = zoned_builder(NODES, SEED);
    uint64_t st = 31;
    for (uint32_t i = 0; i < NTOK; i++)
        CHECK_EQ(placer_builder_add_token(b, i % NODES, check_rand(&st) | UINT64_C(1) << 63), 0);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    placer_builder_free(b);
    uint32_t bits = s->bkt.bits;
    CHECK(bits > 0 && bits < 12 && s->bkt.base[1] == 0); /* line 0 is empty */
    static unsigned char kb[64][32];
    const void *keys[64];
    size_t lens[64];
    for (int i = 0; i < 64; i++) {
        memset(kb[i], i, 32);
        keys[i] = kb[i];
        lens[i] = 32;
    }
    uint64_t n = 0, want = UINT64_C(0xFFFF); /* the top bits + 16 of the hash */
    do
        memcpy(kb[7], &n, sizeof n), n++;
    while (placer_hash64(SEED, kb[7], 32) >> (48 - bits) != want);
    static const unsigned levels[] = {~0u, PLACER_CPU_AVX2 | PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL,
                                      PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL, 0u};
    long bad = 0;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        placer_set_cpu_mask(levels[l]);
        placer_snapshot *x = NULL;
        void *buf = NULL;
        size_t len = 0;
        CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
        CHECK_EQ(placer_snapshot_decode(buf, len, &x), 0); /* this level's kernels */
        free(buf);
        uint32_t out[64 * 3], counts[64], ref[3];
        for (size_t m = 1; m <= 64; m += 63) {
            const void *const *kk = m == 1 ? keys + 7 : keys;
            CHECK_EQ(placer_replicas_batch(x, kk, lens, m, 3, out, counts), 0);
            for (size_t i = 0; i < m; i++) {
                uint64_t h = placer_snapshot_hash(x, kk[i], 32);
                int rn = placer_replicas_hash(x, h, ref, 3, NULL);
                bad += counts[i] != (uint32_t)rn || memcmp(out + 3 * i, ref, sizeof ref) != 0;
            }
        }
        placer_snapshot_free(x);
    }
    placer_set_cpu_mask(~0u);
    CHECK_ALL(bad == 0, "a tie with the padding of an empty first line: batch == slot path");
    placer_snapshot_free(s);
}

/* A NULL key with a length anywhere in a batch fails it, nothing written:
 * in the first block, a later one, and in a batch past the stack buffer
 * (checked in a pass of its own). */
static void null_key(void)
{
    uint64_t st = 7;
    placer_snapshot *s = replica_ring(&st, 120, 256, 3, 3, 0);
    enum { N = 3000 };
    static unsigned char kb[N][32];
    static const void *keys[N];
    static size_t lens[N];
    static uint32_t out[N * 3], counts[N];
    for (int i = 0; i < N; i++) {
        memset(kb[i], i, 32);
        keys[i] = kb[i];
        lens[i] = 32;
    }
    static const size_t sizes[] = {100, 100, 3000, 3000};
    static const size_t nulls[] = {70, 3, 2500, 0};
    for (int c = 0; c < 4; c++) {
        keys[nulls[c]] = NULL;
        memset(out, 0xAB, sizeof out);
        memset(counts, 0xAB, sizeof counts);
        CHECK_EQ(placer_replicas_batch(s, keys, lens, sizes[c], 3, out, counts), PLACER_ENULL);
        int untouched = 1;
        for (int i = 0; i < N; i++)
            untouched &= counts[i] == 0xABABABABu && out[3 * i] == 0xABABABABu;
        CHECK_ALL(untouched, "a failed batch writes no set");
        lens[nulls[c]] = 0; /* an empty key may be NULL */
        CHECK_EQ(placer_replicas_batch(s, keys, lens, sizes[c], 3, out, counts), 0);
        CHECK_EQ(counts[nulls[c]], 3);
        keys[nulls[c]] = kb[nulls[c]];
        lens[nulls[c]] = 32;
    }
    placer_snapshot_free(s);
}

int main(void)
{
    every_level();
    crowded_lines();
    empty_line_tie();
    null_key();
    return check_done("test_replica_lines");
}
