/*
 * test_replica_wide.c -- the wide line sets (engine/core/replica_wide.c:
 * precomputed sets of 4 or 5 read beside the line table) under every
 * kernel level. placer_replicas, placer_replicas_hash and
 * placer_replicas_batch (batches of 1 to 3,001 keys) against the per-slot
 * sets at the slot the tree's descent finds (the sets the wide entries are
 * built from) and against the plain reference walk (tests/reference.c) for
 * some keys: placer's rule with sets of 4 and 5 on rings of 3 to 67 nodes
 * (8-bit lanes) and of 300 (16-bit lanes), zones, down, joining and
 * draining nodes, wants 1 to 6; positions at and beside tokens (ties on a
 * line's 16 bits, which the entries cannot decide) and rings with fewer
 * nodes than the set (padded sets) so that the fallback is known to run.
 * Cassandra's NetworkTopologyStrategy {dc1: 3, dc2: 2} over two
 * datacenters of 3 racks, 12 and 300 nodes, against a plain reference of
 * the server rule, before and after an encode and decode; RF 3 in one
 * datacenter (the narrow line sets read with the Cassandra hash, no fused
 * kernel) and {dc1: 2, dc2: 1} beside a datacenter it does not replicate
 * to (sets not led by the token's owner) against the per-slot sets. The bytes the entries add are
 * counted in placer_snapshot_replica_bytes.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"
#include "reference.h"
#include "replica_test_kit.h"
#include "signed_ring.h"
#include "snapshot_internal.h"

enum { NKEYS = 12000, WMAX = 6 };

/* The per-slot set's prefix at h's slot from the tree's descent (no line
 * table): what the wide entries must give; want <= rep_r or a rule's set. */
static uint32_t slot_set(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want)
{
    const uint32_t *set = s->rep + (size_t)s->index(&s->tree, h) * s->rep_r;
    uint32_t w = want < s->rep_r ? want : s->rep_r, c = 0;
    for (; c < w && set[c] != UINT32_MAX; c++)
        out[c] = set[c];
    return c;
}

/* Can the wide entries answer h? As the reader decides: no tie on the
 * line's 16 bits, an owner below 0xFFFF, an entry whose first lane is not
 * all ones. */
static int wide_answers(const placer_snapshot *s, uint64_t h)
{
    const plc_bkt *k = &s->bkt;
    uint64_t i = h >> k->shift;
    int16_t q = plc_bkt_suffix(h, k->sshift);
    uint32_t r = plc_bkt_rank_plain(&k->line[i], q);
    const unsigned char *e = (const unsigned char *)s->rep_wide +
                             (i * PLC_BKT_LANES + r) * 4 * s->rep_wide_lane;
    int none = s->rep_wide_lane == 1 ? e[0] == 0xFF : (e[0] == 0xFF && e[1] == 0xFF);
    return k->line[i].suf[r] != q && k->line[i].own[r] != PLC_BKT_ASK_TREE && !none;
}

typedef struct tally {
    long bad, answered, left, rings;
} tally;

/* Every want, single, by hash and batched, against the slot's set (and the
 * reference walk for the first nref keys of placer's rule). */
static void check_keys(const placer_snapshot *s, const keyset *k, uint32_t nref, tally *t)
{
    static uint32_t out[NKEYS * WMAX], counts[NKEYS];
    static const size_t sizes[] = {1, 15, 16, 17, 33, 1024, 3001};
    t->bad += (s->rep_wide == NULL) != (s->rep_r < 4); /* the path under test */
    for (uint32_t want = 1; want <= WMAX; want++) {
        for (size_t at = 0, z = 0; at < NKEYS; z++) {
            size_t m = sizes[z % 7] < NKEYS - at ? sizes[z % 7] : NKEYS - at;
            CHECK_EQ(placer_replicas_batch(s, k->ptrs + at, k->lens + at, m, want,
                                           out + at * want, counts + at),
                     0);
            at += m;
        }
        for (size_t i = 0; i < NKEYS; i++) {
            uint64_t h = placer_snapshot_hash(s, k->ptrs[i], k->lens[i]);
            uint32_t one[WMAX], byh[WMAX], ref[WMAX];
            int n = placer_replicas(s, k->ptrs[i], k->lens[i], one, want);
            int nh = placer_replicas_hash(s, h, byh, want, NULL);
            t->bad += n != nh || counts[i] != (uint32_t)n || n < 1;
            for (int j = 0; j < n && j < nh; j++)
                t->bad += one[j] != byh[j] || out[i * want + (size_t)j] != one[j];
            if (want <= s->rep_r || s->rep_rule) {
                uint32_t rn = slot_set(s, h, ref, want);
                t->bad += rn != (uint32_t)n || memcmp(ref, one, rn * sizeof *ref) != 0;
            }
            if (!s->rep_rule && i < nref) {
                uint32_t rn = ref_ring_replicas(s, h, ref, want);
                t->bad += rn != (uint32_t)n || memcmp(ref, one, rn * sizeof *ref) != 0;
            }
            if (want == 5 && s->rep_wide) {
                int a = wide_answers(s, h);
                t->answered += a;
                t->left += !a;
            }
        }
    }
}

/* Positions at, just below and just after tokens: ties on the line's 16
 * bits, which the entries cannot decide. */
static void check_ties(const placer_snapshot *s, tally *t)
{
    uint32_t nt = placer_token_count(s);
    for (uint32_t i = 0; i < nt; i += 1 + nt / 97) {
        uint64_t tok;
        uint32_t own;
        placer_token_at(s, i, &tok, &own);
        for (int d = -1; d <= 1; d++) {
            uint64_t h = tok + (uint64_t)(int64_t)d;
            uint32_t got[WMAX], ref[WMAX];
            uint32_t want = s->rep_r < WMAX ? s->rep_r : WMAX;
            uint32_t rn = slot_set(s, h, ref, want);
            int n = placer_replicas_hash(s, h, got, want, NULL);
            t->bad += n != (int)rn || memcmp(got, ref, rn * sizeof *ref) != 0;
            t->left += s->rep_wide && !wide_answers(s, h);
        }
    }
}

/* placer's walk with sets of 4 and 5, every kernel level. */
static void walk_rings(void)
{
    static const unsigned levels[] = {~0u, PLACER_CPU_AVX2 | PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL,
                                      PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL, 0u};
    uint64_t st = 5151;
    keyset k;
    make_keys(&k, &st, NKEYS);
    tally t = {0};
    long lanes_bad = 0;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        placer_set_cpu_mask(levels[l]);
        for (int r = 0; r < 4; r++) {
            uint32_t nodes = r == 0 ? 300 : r == 1 ? 3 : 8 + (uint32_t)(check_rand(&st) % 60);
            uint32_t zones = 1 + (uint32_t)(check_rand(&st) % 4);
            uint32_t sets = 4 + (uint32_t)(check_rand(&st) % 2);
            placer_snapshot *s = replica_ring(&st, nodes, r == 0 ? 16 : 32 + (uint32_t)(r * 20),
                                              zones, sets, 1);
            lanes_bad += s->rep_wide_lane != (nodes <= 255 ? 1u : 2u);
            check_keys(s, &k, 30, &t);
            check_ties(s, &t);
            placer_snapshot_free(s);
            t.rings++;
        }
    }
    placer_set_cpu_mask(~0u);
    CHECK_ALL(t.bad == 0, "wide line sets == per-slot sets == reference, every kernel level");
    CHECK_ALL(lanes_bad == 0, "8-bit lanes up to 255 nodes, 16-bit above");
    CHECK(t.rings == 16);
    CHECK(t.answered > 0);
    CHECK(t.left > 0); /* the fallback ran */
    free_keys(&k);
}

/* ---- NetworkTopologyStrategy {dc1: 3, dc2: 2}, 3 racks a datacenter ---- */

enum { NTS_MAX = 300 };

static int dc_of(int n)
{
    return n % 2;
}

static int rack_of(int n)
{
    return n / 2 % 3;
}

/* The server's rule, plainly: one walk from the first token >= t taking,
 * per datacenter, hosts of new racks and at most RF - racks repeats, until
 * RF (each datacenter has 3 racks and more hosts than its factor). */
static int nts_reference(const ring_tok *ring, size_t n, int64_t t, uint32_t *out)
{
    static const int rf[2] = {3, 2};
    int count = 0, left[2] = {rf[0], rf[1]}, repeats[2] = {rf[0] - 3, rf[1] - 3};
    int seen[2][3] = {{0}};
    size_t start = ring_start(ring, n, t);
    for (size_t i = 0; i < n && (left[0] || left[1]); i++) {
        int h = ring[(start + i) % n].host, d = dc_of(h), r = rack_of(h), dup = 0;
        if (!left[d])
            continue;
        for (int j = 0; j < count; j++)
            dup |= out[j] == (uint32_t)h;
        if (dup)
            continue;
        if (seen[d][r]) {
            if (repeats[d] <= 0)
                continue;
            repeats[d]--;
        }
        seen[d][r] = 1;
        left[d]--;
        out[count++] = (uint32_t)h;
    }
    return count;
}

static void nts_cluster(int hosts, int tokens, uint64_t *st, const keyset *k, tally *t)
{
    placer_builder *b = placer_builder_new();
    CHECK(b && placer_builder_set_key_hash(b, PLACER_HASH_CASSANDRA_MURMUR3) == 0);
    CHECK_EQ(placer_builder_set_datacenter_replication(b, "dc1", 3), 0);
    CHECK_EQ(placer_builder_set_datacenter_replication(b, "dc2", 2), 0);
    ring_tok *ring = malloc(sizeof *ring * (size_t)hosts * (size_t)tokens);
    CHECK(ring != NULL);
    size_t n = 0;
    for (int h = 0; h < hosts; h++) {
        char id[32], rack[16], dc[8];
        snprintf(id, sizeof id, "10.%d.%d.%d", dc_of(h), rack_of(h), h);
        snprintf(rack, sizeof rack, "rack%d", rack_of(h));
        snprintf(dc, sizeof dc, "dc%d", dc_of(h) + 1);
        CHECK_EQ(placer_builder_add_node(b, id, rack, 1.0), h);
        CHECK_EQ(placer_builder_set_datacenter(b, (uint32_t)h, dc), 0);
        for (int v = 0; v < tokens; v++) {
            int64_t tk = (int64_t)check_rand(st);
            ring[n++] = (ring_tok){tk, h};
            CHECK_EQ(placer_builder_add_token(b, (uint32_t)h, (uint64_t)tk ^ (UINT64_C(1) << 63)),
                     0);
        }
    }
    ring_sort(ring, n);
    placer_snapshot *s = NULL, *back = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    placer_builder_free(b);
    void *buf = NULL;
    size_t len = 0;
    CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
    CHECK_EQ(placer_snapshot_decode(buf, len, &back), 0);
    t->bad += s->rep_wide_lane != (hosts <= 255 ? 1u : 2u) || back->rep_wide == NULL;
    for (int v = 0; v < 2; v++) {
        const placer_snapshot *x = v ? back : s;
        check_keys(x, k, 0, t);
        for (size_t i = 0; i < NKEYS; i++) {
            if (!k->lens[i])
                continue; /* the partitioner's MINIMUM: not a CQL key */
            int64_t tk;
            uint32_t ref[8], got[8];
            CHECK_EQ(placer_cassandra_token(k->ptrs[i], k->lens[i], &tk), 0);
            int rn = nts_reference(ring, n, tk, ref);
            int g = placer_replicas(x, k->ptrs[i], k->lens[i], got, 8);
            t->bad += g != rn || rn != 5 || memcmp(got, ref, (size_t)rn * sizeof *ref) != 0;
        }
    }
    placer_buffer_free(buf);
    placer_snapshot_free(back);
    placer_snapshot_free(s);
    free(ring);
    t->rings++;
}

/* NetworkTopologyStrategy RF 3 in one datacenter of 3 racks: sets of 3
 * from the narrow line sets with the Cassandra hash (no fused kernel: the
 * rank by plain compares), every want against the per-slot sets. */
static void nts_three(uint64_t *st, const keyset *k, tally *t)
{
    placer_builder *b = placer_builder_new();
    CHECK(b && placer_builder_set_key_hash(b, PLACER_HASH_CASSANDRA_MURMUR3) == 0);
    CHECK_EQ(placer_builder_set_replication(b, PLACER_REPLICATION_NETWORK_TOPOLOGY, 3), 0);
    for (int h = 0; h < 60; h++) {
        char id[32], rack[16];
        snprintf(id, sizeof id, "10.0.%d.%d", h % 3, h);
        snprintf(rack, sizeof rack, "rack%d", h % 3);
        CHECK_EQ(placer_builder_add_node(b, id, rack, 1.0), h);
        for (int v = 0; v < 64; v++)
            CHECK_EQ(placer_builder_add_token(b, (uint32_t)h, check_rand(st)), 0);
    }
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    placer_builder_free(b);
    t->bad += s->rep_lines == NULL || s->bkt_set != NULL; /* the path under test */
    check_keys(s, k, 0, t);
    check_ties(s, t);
    placer_snapshot_free(s);
}

/* NetworkTopologyStrategy {dc1: 2, dc2: 1} with a third datacenter that
 * holds tokens but no replicas: a dc3 token's set does not start with its
 * owner, so the narrow line sets must leave those slots to the per-slot
 * sets (every want against them). */
static void nts_unreplicated_datacenter(uint64_t *st, const keyset *k, tally *t)
{
    placer_builder *b = placer_builder_new();
    CHECK(b && placer_builder_set_key_hash(b, PLACER_HASH_CASSANDRA_MURMUR3) == 0);
    CHECK_EQ(placer_builder_set_datacenter_replication(b, "dc1", 2), 0);
    CHECK_EQ(placer_builder_set_datacenter_replication(b, "dc2", 1), 0);
    for (int h = 0; h < 30; h++) {
        char id[32], rack[16], dc[8];
        snprintf(id, sizeof id, "10.1.%d.%d", h % 3, h);
        snprintf(rack, sizeof rack, "rack%d", h % 2);
        snprintf(dc, sizeof dc, "dc%d", h % 3 + 1);
        CHECK_EQ(placer_builder_add_node(b, id, rack, 1.0), h);
        CHECK_EQ(placer_builder_set_datacenter(b, (uint32_t)h, dc), 0);
        for (int v = 0; v < 64; v++)
            CHECK_EQ(placer_builder_add_token(b, (uint32_t)h, check_rand(st)), 0);
    }
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    placer_builder_free(b);
    t->bad += s->rep_lines == NULL; /* the path under test */
    check_keys(s, k, 0, t);
    check_ties(s, t);
    placer_snapshot_free(s);
}

static void nts_rings(void)
{
    uint64_t st = 6262;
    keyset k;
    make_keys(&k, &st, NKEYS);
    tally t = {0};
    nts_cluster(12, 256, &st, &k, &t);
    nts_cluster(NTS_MAX, 16, &st, &k, &t);
    CHECK_ALL(t.bad == 0, "NetworkTopologyStrategy {dc1: 3, dc2: 2}: wide sets == server rule");
    CHECK(t.answered > 0);
    t.bad = 0;
    nts_three(&st, &k, &t);
    CHECK_ALL(t.bad == 0, "NetworkTopologyStrategy RF 3: line sets == per-slot sets");
    t.bad = 0;
    nts_unreplicated_datacenter(&st, &k, &t);
    CHECK_ALL(t.bad == 0, "{dc1: 2, dc2: 1} and a dc3: line sets == per-slot sets");
    free_keys(&k);
}

/* The entries' bytes: 64 a line with 8-bit lanes, 128 with 16-bit, beside
 * the per-slot sets and the narrow line sets (16 a line); none for sets
 * of 3. */
static void bytes(void)
{
    uint64_t st = 77;
    for (uint32_t sets = 3; sets <= 5; sets++)
        for (int big = 0; big < 2; big++) {
            placer_snapshot *s = replica_ring(&st, big ? 300 : 40, 64, 3, sets, 1);
            size_t lines = (size_t)1 << s->bkt.bits, nt = placer_token_count(s);
            size_t wide = sets >= 4 ? lines * (big ? 128 : 64) : 0;
            CHECK_EQ(placer_snapshot_replica_bytes(s), nt * sets * 4 + lines * 16 + wide);
            CHECK_EQ(s->rep_wide != NULL, sets >= 4);
            placer_snapshot_free(s);
        }
}

int main(void)
{
    walk_rings();
    nts_rings();
    bytes();
    return check_done("test_replica_wide");
}
