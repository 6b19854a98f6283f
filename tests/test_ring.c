/*
 * test_ring.c -- ring semantics: the first token >= hash owns the key, past
 * the last token the key wraps to the smallest; ties ordered by (token, node
 * id, vnode index); generated tokens at placer_hash64(seed, "<id>-<i>");
 * weights; determinism; seed 004's worked example; every kernel path (each
 * CPU level, tests/isa.h) against a linear-scan reference, through the
 * radix directory and through the S+ tree alone, and a hostile ring whose
 * tokens crowd one directory entry.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isa.h"
#include "placer.h"
#include "reference.h"
#include "snapshot_internal.h"

static placer_snapshot *build_explicit(const char *const *ids, const uint64_t *tokens, int n,
                                       uint64_t epoch)
{
    placer_builder *b = placer_builder_new();
    for (int i = 0; i < n; i++) {
        CHECK_EQ(placer_builder_add_node(b, ids[i], "", 1.0), i);
        CHECK_EQ(placer_builder_add_token(b, (uint32_t)i, tokens[i]), 0);
    }
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, epoch, &s), 0);
    placer_builder_free(b);
    return s;
}

static const char *owner_of(const placer_snapshot *s, uint64_t h)
{
    return placer_node_id(s, (uint32_t)placer_lookup_hash(s, h));
}

/* Seed 004: hashes 0..99; A@20, B@55, C@85, then D@70; then B removed. */
static void seed004_example(void)
{
    const char *ids3[] = {"A", "B", "C"};
    const uint64_t tok3[] = {20, 55, 85};
    placer_snapshot *s3 = build_explicit(ids3, tok3, 3, 1);
    CHECK(!strcmp(owner_of(s3, 55), "B"));
    CHECK(!strcmp(owner_of(s3, 70), "C"));
    CHECK(!strcmp(owner_of(s3, 96), "A"));

    const char *ids4[] = {"A", "B", "C", "D"};
    const uint64_t tok4[] = {20, 55, 85, 70};
    placer_snapshot *s4 = build_explicit(ids4, tok4, 4, 2);
    CHECK(!strcmp(owner_of(s4, 55), "B")); /* boundary stays with B */
    CHECK(!strcmp(owner_of(s4, 56), "D"));
    CHECK(!strcmp(owner_of(s4, 70), "D")); /* D takes (55, 70] */
    CHECK(!strcmp(owner_of(s4, 71), "C"));
    CHECK(!strcmp(owner_of(s4, 96), "A")); /* wraps */
    CHECK(!strcmp(owner_of(s4, 0), "A"));
    CHECK(!strcmp(owner_of(s4, 20), "A"));
    CHECK(!strcmp(owner_of(s4, UINT64_MAX), "A"));
    /* Only (55, 70] changed owner when D joined. */
    for (uint64_t h = 0; h < 100; h++) {
        int moved = strcmp(owner_of(s3, h), owner_of(s4, h)) != 0;
        CHECK_ALL(moved == (h > 55 && h <= 70), "join of D moves exactly (55, 70]");
    }

    const char *ids_nob[] = {"A", "C", "D"};
    const uint64_t tok_nob[] = {20, 85, 70};
    placer_snapshot *s_nob = build_explicit(ids_nob, tok_nob, 3, 3);
    for (uint64_t h = 0; h < 100; h++) {
        int moved = strcmp(owner_of(s4, h), owner_of(s_nob, h)) != 0;
        CHECK_ALL(moved == (h > 20 && h <= 55), "removing B moves exactly (20, 55]");
        if (h > 20 && h <= 55)
            CHECK_ALL(!strcmp(owner_of(s_nob, h), "D"), "B's keys go to D");
    }
    CHECK_EQ(placer_snapshot_epoch(s4), 2);
    placer_snapshot_free(s3);
    placer_snapshot_free(s4);
    placer_snapshot_free(s_nob);
}

static void ties_ordered_by_id_then_vnode(void)
{
    /* "zeta" is added first but "alpha" sorts first: alpha owns the tie. */
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_add_node(b, "zeta", NULL, 1), 0);
    CHECK_EQ(placer_builder_add_node(b, "alpha", NULL, 1), 1);
    CHECK_EQ(placer_builder_add_token(b, 0, 100), 0);
    CHECK_EQ(placer_builder_add_token(b, 1, 100), 0);
    CHECK_EQ(placer_builder_add_token(b, 0, 200), 0);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 0, &s), 0);
    CHECK_EQ(placer_lookup_hash(s, 100), 1);
    CHECK_EQ(placer_lookup_hash(s, 50), 1);
    CHECK_EQ(placer_lookup_hash(s, 101), 0);
    CHECK_EQ(placer_lookup_hash(s, 201), 1); /* wrap: smallest is (100, "alpha") */
    uint64_t t;
    uint32_t o;
    CHECK_EQ(placer_token_at(s, 0, &t, &o), 0);
    CHECK(t == 100 && o == 1);
    CHECK_EQ(placer_token_at(s, 1, &t, &o), 0);
    CHECK(t == 100 && o == 0);
    CHECK_EQ(placer_token_at(s, 3, &t, &o), PLACER_ERANGE);
    CHECK_EQ(placer_token_count(s), 3);
    CHECK_EQ(placer_node_tokens(s, 0), 2);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static void generated_tokens_and_weights(void)
{
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_set_seed(b, 77), 0);
    CHECK_EQ(placer_builder_set_vnodes(b, 256), 0);
    CHECK_EQ(placer_builder_add_node(b, "n1", "z1", 1.0), 0);
    CHECK_EQ(placer_builder_add_node(b, "n2", "z2", 2.5), 1);
    CHECK_EQ(placer_builder_add_node(b, "tiny", "z1", 0.0001), 2);
    CHECK_EQ(placer_builder_add_node(b, "half", "z2", 0.5 / 256), 3); /* 0.5 rounds away */
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 9, &s), 0);
    CHECK_EQ(placer_node_tokens(s, 0), 256);
    CHECK_EQ(placer_node_tokens(s, 1), 640);
    CHECK_EQ(placer_node_tokens(s, 2), 1); /* never silently none */
    CHECK_EQ(placer_node_tokens(s, 3), 1);
    CHECK_EQ(placer_token_count(s), 256 + 640 + 1 + 1);
    CHECK(!strcmp(placer_node_zone(s, 1), "z2"));
    CHECK(placer_node_weight(s, 1) == 2.5);
    CHECK_EQ(placer_snapshot_seed(s), 77);
    /* The tokens are exactly placer_hash64(seed, "<id>-<i>"). */
    uint64_t want[4] = {placer_hash64(77, "n1-0", 4), placer_hash64(77, "n1-255", 6),
                        placer_hash64(77, "n2-639", 6), placer_hash64(77, "tiny-0", 6)};
    uint32_t want_owner[4] = {0, 0, 1, 2};
    for (int w = 0; w < 4; w++) {
        int found = 0;
        for (uint32_t i = 0; i < placer_token_count(s); i++) {
            uint64_t t;
            uint32_t o;
            placer_token_at(s, i, &t, &o);
            found |= t == want[w] && o == want_owner[w];
        }
        CHECK(found);
        CHECK_EQ(placer_lookup_hash(s, want[w]), want_owner[w]);
    }
    /* Sorted ascending; every line of the layout 64-byte aligned. */
    int sorted = 1;
    uint64_t prev = 0, t;
    uint32_t o;
    for (uint32_t i = 0; i < placer_token_count(s); i++) {
        placer_token_at(s, i, &t, &o);
        sorted &= i == 0 || prev <= t;
        prev = t;
    }
    CHECK(sorted);
    CHECK_EQ((uintptr_t)s % 64, 0);
    CHECK_EQ((uintptr_t)s->tree.leaves % 64, 0);
    CHECK(s->tree.nlevels > 0);
    for (uint32_t d = 0; d < s->tree.nlevels; d++)
        CHECK_EQ((uintptr_t)s->tree.level[d] % 64, 0);
    /* A key's owner is the owner of its hash. */
    CHECK_EQ(placer_lookup(s, "user:42", 7), placer_lookup_hash(s, placer_hash64(77, "user:42", 7)));
    CHECK_EQ(placer_snapshot_hash(s, "user:42", 7), placer_hash64(77, "user:42", 7));
    placer_snapshot_free(s);
    placer_builder_free(b);
}

/* Same membership in another insertion order: same ring, node for node. */
static void deterministic(void)
{
    placer_snapshot *s[2];
    for (int v = 0; v < 2; v++) {
        placer_builder *b = placer_builder_new();
        char id[16];
        for (int i = 0; i < 50; i++) {
            int n = v ? 49 - i : i;
            snprintf(id, sizeof id, "node-%d", n);
            placer_builder_add_node(b, id, "z", 1 + n % 3);
        }
        CHECK_EQ(placer_builder_build(b, 1, &s[v]), 0);
        placer_builder_free(b);
    }
    CHECK_EQ(placer_token_count(s[0]), placer_token_count(s[1]));
    int same = 1;
    for (uint32_t i = 0; i < placer_token_count(s[0]); i++) {
        uint64_t t0, t1;
        uint32_t o0, o1;
        placer_token_at(s[0], i, &t0, &o0);
        placer_token_at(s[1], i, &t1, &o1);
        same &= t0 == t1 && !strcmp(placer_node_id(s[0], o0), placer_node_id(s[1], o1));
    }
    CHECK(same);
    placer_snapshot_free(s[0]);
    placer_snapshot_free(s[1]);
}

/* Random rings with many duplicate tokens, against the linear scan. */
static void against_reference(void)
{
    uint64_t rng = 2024;
    long bad = 0;
    for (int trial = 0; trial < 300; trial++) {
        int nnodes = 1 + (int)(check_rand(&rng) % 12);
        size_t ntok = 1 + check_rand(&rng) % 80;
        uint64_t space = trial % 3 == 0 ? 16 : trial % 3 == 1 ? 1000 : UINT64_MAX;
        char names[12][8];
        const char *ids[12];
        placer_builder *b = placer_builder_new();
        for (int i = 0; i < nnodes; i++) {
            snprintf(names[i], sizeof names[i], "%c%d", 'a' + (int)(check_rand(&rng) % 3), i);
            ids[i] = names[i];
            placer_builder_add_node(b, ids[i], NULL, 1);
        }
        ref_token *ref = malloc(ntok * sizeof *ref);
        uint32_t per_node[12] = {0};
        for (size_t i = 0; i < ntok; i++) {
            uint32_t n = (uint32_t)(check_rand(&rng) % (uint64_t)nnodes);
            uint64_t t = space == UINT64_MAX ? check_rand(&rng) : check_rand(&rng) % space;
            if (i % 7 == 3)
                t = UINT64_MAX;
            ref[i] = (ref_token){t, n, per_node[n]++};
            placer_builder_add_token(b, n, t);
        }
        /* Nodes without explicit tokens get generated ones: feed those too. */
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        size_t total = placer_token_count(s);
        ref = realloc(ref, total * sizeof *ref);
        size_t at = ntok;
        for (int n = 0; n < nnodes; n++)
            if (!per_node[n]) {
                char name[32];
                for (uint32_t j = 0; j < PLACER_DEFAULT_VNODES; j++) {
                    int len = snprintf(name, sizeof name, "%s-%u", ids[n], j);
                    ref[at++] = (ref_token){placer_hash64(0, name, (size_t)len), (uint32_t)n, j};
                }
            }
        CHECK_ALL(at == total, "reference and snapshot have the same token count");
        for (int q = 0; q < 200 && at == total; q++) {
            uint64_t h;
            switch (q % 4) {
            case 0: h = check_rand(&rng); break;
            case 1: h = space == UINT64_MAX ? check_rand(&rng) : check_rand(&rng) % (space + 2); break;
            case 2: h = ref[check_rand(&rng) % total].token; break; /* equal to a token */
            default: h = q & 8 ? 0 : UINT64_MAX; break;
            }
            if ((uint32_t)placer_lookup_hash(s, h) != ref_ring_owner(ref, total, ids, h) && bad++ < 5)
                fprintf(stderr, "trial %d: hash 0x%" PRIx64 " owner differs\n", trial, h);
        }
        free(ref);
        placer_snapshot_free(s);
        placer_builder_free(b);
    }
    CHECK_ALL(bad == 0, "lookup == linear-scan reference on random rings");
}

/* Batches answer exactly as single lookups; a bad batch writes nothing. */
static void batches(void)
{
    placer_builder *b = placer_builder_new();
    char id[16];
    for (int i = 0; i < 37; i++) {
        snprintf(id, sizeof id, "n%d", i);
        placer_builder_add_node(b, id, NULL, 1 + i % 4);
    }
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    enum { N = 1000 };
    static char keybuf[N][24];
    const void *keys[N];
    size_t lens[N];
    uint64_t hashes[N];
    uint32_t owners[N], howners[N];
    for (int i = 0; i < N; i++) {
        lens[i] = (size_t)snprintf(keybuf[i], sizeof keybuf[i], "key:%d", i * 7919) - (size_t)(i % 3 == 0);
        keys[i] = keybuf[i];
        hashes[i] = placer_snapshot_hash(s, keys[i], lens[i]);
    }
    lens[5] = 0; /* an empty key is a key */
    hashes[5] = placer_snapshot_hash(s, keys[5], 0);
    CHECK_EQ(placer_lookup_batch(s, keys, lens, N, owners), 0);
    CHECK_EQ(placer_lookup_hash_batch(s, hashes, N, howners), 0);
    long bad = 0;
    for (int i = 0; i < N; i++)
        bad += owners[i] != (uint32_t)placer_lookup(s, keys[i], lens[i]) || howners[i] != owners[i];
    CHECK_ALL(bad == 0, "batch == single lookups");
    /* Errors: nothing written. */
    memset(owners, 0xAB, sizeof owners);
    keys[500] = NULL;
    CHECK_EQ(placer_lookup_batch(s, keys, lens, N, owners), PLACER_ENULL);
    long touched = 0;
    for (int i = 0; i < N; i++)
        touched += owners[i] != 0xABABABABu;
    CHECK_ALL(touched == 0, "a failed batch writes no owner");
    lens[500] = 0;
    CHECK_EQ(placer_lookup_batch(s, keys, lens, N, owners), 0); /* NULL with length 0 is fine */
    CHECK_EQ(placer_lookup_batch(NULL, keys, lens, N, owners), PLACER_ENULL);
    CHECK_EQ(placer_lookup_batch(s, NULL, lens, N, owners), PLACER_ENULL);
    CHECK_EQ(placer_lookup_batch(s, keys, NULL, N, owners), PLACER_ENULL);
    CHECK_EQ(placer_lookup_batch(s, keys, lens, N, NULL), PLACER_ENULL);
    CHECK_EQ(placer_lookup_batch(s, NULL, NULL, 0, NULL), 0);
    CHECK_EQ(placer_lookup_hash_batch(s, NULL, 0, NULL), 0);
    CHECK_EQ(placer_lookup_hash_batch(s, NULL, 3, howners), PLACER_ENULL);
    CHECK_EQ(placer_lookup_hash_batch(NULL, hashes, 3, howners), PLACER_ENULL);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

/* The search layout (line table + S+ tree) costs at most 2x plain sorted
 * tokens + owners at these sizes, and says which it is. */
static void layout_memory(void)
{
    static const uint32_t vnodes[] = {8, 256, 4096};
    for (size_t v = 0; v < 3; v++) {
        placer_builder *b = placer_builder_new();
        placer_builder_set_vnodes(b, vnodes[v]);
        char id[16];
        for (int i = 0; i < 120; i++) {
            snprintf(id, sizeof id, "node-%d", i);
            placer_builder_add_node(b, id, NULL, 1);
        }
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        double plain = 12.0 * placer_token_count(s);
        double ratio = (double)placer_snapshot_layout_bytes(s) / plain;
        uint32_t bits = 0;
        double one_read = 0;
        CHECK_EQ(placer_snapshot_directory(s, &bits, &one_read), 0);
        printf("layout for %u tokens: %s, 2^%u entries, %.1f%% one read, %zu bytes, %.3fx sorted "
               "tokens + owners\n",
               placer_token_count(s), placer_snapshot_layout_name(s), bits, 100 * one_read,
               placer_snapshot_layout_bytes(s), ratio);
        CHECK(ratio <= 2.0);
        CHECK(!strcmp(placer_snapshot_layout_name(s), "buckets"));
        CHECK(one_read > 0.99 && one_read <= 1); /* crowded lines are rare */
        placer_snapshot_free(s);
        placer_builder_free(b);
    }
    /* A ring too small for a directory keeps the tree; other strategies name theirs. */
    static const char *const ids[] = {"a", "b", "c"};
    static const uint64_t tokens[] = {10, 20, 30};
    placer_snapshot *s = build_explicit(ids, tokens, 3, 1);
    CHECK(!strcmp(placer_snapshot_layout_name(s), "stree"));
    CHECK_EQ(placer_snapshot_directory(s, NULL, NULL), PLACER_EINVAL);
    placer_snapshot_free(s);
    CHECK(placer_snapshot_layout_name(NULL) == NULL);
    CHECK_EQ(placer_snapshot_directory(NULL, NULL, NULL), PLACER_ENULL);
    placer_builder *b = placer_builder_new();
    placer_builder_add_node(b, "a", NULL, 1);
    placer_builder_set_strategy(b, PLACER_JUMP);
    s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK(s && !strcmp(placer_snapshot_layout_name(s), "table"));
    placer_snapshot_free(s);
    placer_builder_free(b);
}

/* A hostile ring: 20,000 explicit tokens inside one directory entry (and a
 * few outside). Its hashes take the tree's descent (logarithmic, not a scan
 * of the entry) and every answer matches the linear-scan reference. */
static void crowded_entry(void)
{
    enum { N = 20000, NODES = 7 };
    static const char *const ids[NODES] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6"};
    placer_builder *b = placer_builder_new();
    for (int i = 0; i < NODES; i++)
        placer_builder_add_node(b, ids[i], NULL, 1);
    static ref_token ref[N];
    uint32_t per_node[NODES] = {0};
    uint64_t rng = 99, base = UINT64_C(0x5A5A000000000000);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t n = (uint32_t)(check_rand(&rng) % NODES);
        uint64_t t = i < 5 ? check_rand(&rng) : base | (check_rand(&rng) >> 24);
        ref[i] = (ref_token){t, n, per_node[n]++};
        placer_builder_add_token(b, n, t);
    }
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK(!strcmp(placer_snapshot_layout_name(s), "buckets"));
    CHECK(s->bkt.ncrowded > 0); /* the crowded line goes down the tree */
    enum { Q = 3000 };
    static uint64_t h[Q];
    static uint32_t got[Q];
    long bad = 0;
    for (int q = 0; q < Q; q++) {
        h[q] = q % 3 ? base | (check_rand(&rng) >> 24) : q % 2 ? ref[check_rand(&rng) % N].token
                                                               : check_rand(&rng);
        bad += (uint32_t)placer_lookup_hash(s, h[q]) != ref_ring_owner(ref, N, ids, h[q]);
    }
    CHECK_EQ(placer_lookup_hash_batch(s, h, Q, got), 0);
    for (int q = 0; q < Q; q++)
        bad += got[q] != ref_ring_owner(ref, N, ids, h[q]);
    CHECK_ALL(bad == 0, "a crowded directory entry == linear-scan reference");
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static int cmp_tok(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The widest owners: a ring of 65,536 nodes is the line table's largest
 * (node 65,535's owner value is also "ask the tree", so its keys take the
 * tree), 65,537 the directory's smallest. One token a node (splitmix64's
 * outputs: distinct), queried on every token of the last nodes, just past
 * the one before each, and at random, single and batched, against a
 * binary search of the sorted (token, node) pairs. */
static void widest_owners(void)
{
    for (uint32_t nodes = 65536; nodes <= 65537; nodes++) {
        placer_builder *b = placer_builder_new();
        uint64_t (*pair)[2] = malloc(nodes * sizeof *pair), rng = 65536;
        char id[16];
        for (uint32_t i = 0; i < nodes; i++) {
            snprintf(id, sizeof id, "n%u", i);
            placer_builder_add_node(b, id, NULL, 1);
            pair[i][0] = check_rand(&rng);
            pair[i][1] = i;
            placer_builder_add_token(b, i, pair[i][0]);
        }
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        CHECK(!strcmp(placer_snapshot_layout_name(s), nodes == 65536 ? "buckets" : "directory"));
        qsort(pair, nodes, sizeof *pair, cmp_tok);
        enum { Q = 3 * 64 + 4000 };
        uint64_t *h = malloc(Q * sizeof *h);
        size_t q = 0;
        for (uint32_t i = 0; i < nodes; i++)
            if (pair[i][1] >= nodes - 64) { /* node 65,535 among them */
                h[q++] = pair[i][0];
                h[q++] = pair[i][0] - 1;
                h[q++] = pair[(i + nodes - 1) % nodes][0] + 1;
            }
        while (q < Q)
            h[q++] = check_rand(&rng);
        uint32_t *got = malloc(Q * sizeof *got);
        CHECK_EQ(placer_lookup_hash_batch(s, h, Q, got), 0);
        long bad = 0, last = 0;
        for (size_t j = 0; j < Q; j++) {
            size_t lo = 0, hi = nodes; /* the first token >= h, wrapping to the smallest */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (pair[mid][0] < h[j])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            uint32_t want = (uint32_t)pair[lo % nodes][1];
            last += want == 65535;
            bad += (uint32_t)placer_lookup_hash(s, h[j]) != want;
            bad += got[j] != want;
        }
        CHECK(last >= 3); /* the marker's node was asked for */
        CHECK_ALL(bad == 0, "65,536 and 65,537 nodes == binary search of the tokens");
        free(got);
        free(h);
        free(pair);
        placer_snapshot_free(s);
        placer_builder_free(b);
    }
}

/* The ring's kernels at one CPU level (tests/isa.h): the snapshots built
 * here take this level's. */
static void at_level(void *ctx, const cpu_level *level)
{
    (void)ctx;
    (void)level;
    against_reference();
    batches();
    crowded_entry();
    widest_owners();
}

int main(void)
{
    seed004_example();
    ties_ordered_by_id_then_vnode();
    generated_tokens_and_weights();
    deterministic();
    CHECK(for_each_cpu_level(at_level, NULL) >= 1);
    layout_memory();
    return check_done("test_ring");
}
