/*
 * fuzz_replication.c -- differential: the precomputed replica sets of
 * Cassandra's NetworkTopologyStrategy, whichever way the build took them
 * (engine/core/replica_sweep.c for one datacenter, replica_sweep_dcs.c for
 * datacenters of enough racks or of one rack, replica_rules.c's
 * move-to-front lists for the rest), against ref_nts_replicas
 * (tests/reference.c), the rule walked token by token over names, on
 * fuzzer-built rings.
 *
 * Input: vnodes (its top bit: keys hashed by Cassandra's Murmur3
 * partitioner, whose token the key's hash must be), then up to 12 nodes,
 * each a datacenter byte (3 names or none), a rack byte (4 names, the same
 * names in every datacenter: other racks), a weight byte and a state byte;
 * a default factor (or none) and a factor for each named datacenter (0 to
 * 4); then keys. Checked: the set at every token, just past it and at each
 * key's hash (single call, by hash and batched) equals the reference's,
 * whole and cut at every want from 1 to PLACER_MAX_REPLICAS; and the same
 * after an encode and decode (the decoder recomputes the sets and refuses
 * any that differ). Each key is also composed as a partition key of two
 * columns and of one, against the layout written out by hand, and its
 * refusals tried.
 */
#include "fuzz.h"
#include "placer.h"
#include "reference.h"

#define MAX_NODES 12
#define MAX_KEYS 16

/* A ring from the input, NULL when the build refuses it or no factor was
 * set (placer's own rule then: fuzz_strategies covers it). */
static placer_snapshot *membership(fuzz_producer *p)
{
    placer_builder *b = placer_builder_new();
    FUZZ_ASSERT(b);
    uint8_t v = fuzz_u8(p);
    placer_builder_set_vnodes(b, 1 + v % 24);
    if (v & 0x80) /* keys placed as Cassandra places them */
        FUZZ_ASSERT(placer_builder_set_key_hash(b, PLACER_HASH_CASSANDRA_MURMUR3) == 0);
    int n = 1 + fuzz_u8(p) % MAX_NODES;
    for (int i = 0; i < n; i++) {
        char id[8], rack[8], dc[8];
        uint8_t d = fuzz_u8(p);
        snprintf(id, sizeof id, "n%d", i);
        snprintf(rack, sizeof rack, "r%u", (unsigned)(fuzz_u8(p) % 4));
        snprintf(dc, sizeof dc, "dc%u", (unsigned)(d % 4));
        int idx = placer_builder_add_node(b, id, rack, 0.5 * (1 + fuzz_u8(p) % 6));
        FUZZ_ASSERT(idx == i);
        FUZZ_ASSERT(placer_builder_set_state(b, (uint32_t)idx, fuzz_u8(p) % 4) == 0);
        if (d % 4 != 3) /* dc3: no datacenter */
            FUZZ_ASSERT(placer_builder_set_datacenter(b, (uint32_t)idx, dc) == 0);
    }
    uint8_t all = fuzz_u8(p) % 5; /* the factor of datacenters named by no call */
    int nts = all != 0;
    if (all)
        FUZZ_ASSERT(placer_builder_set_replication(b, PLACER_REPLICATION_NETWORK_TOPOLOGY,
                                                   all) == 0);
    for (unsigned d = 0; d < 3; d++) {
        uint8_t rf = fuzz_u8(p);
        char dc[8];
        snprintf(dc, sizeof dc, "dc%u", d);
        if (rf & 0x80) /* else it keeps the default factor */
            FUZZ_ASSERT(placer_builder_set_datacenter_replication(b, dc, rf % 5) == 0);
        nts |= rf >> 7;
    }
    placer_snapshot *s = NULL;
    int rc = placer_builder_build(b, 1, &s);
    /* nobody placed, or factors that place nothing or sum past 8 */
    FUZZ_ASSERT(rc == 0 || rc == PLACER_ENONODES || rc == PLACER_EINVAL);
    placer_builder_free(b);
    if (!nts) {
        placer_snapshot_free(s);
        return NULL;
    }
    return s;
}

/* The set at position h, whole and cut, against the reference (a cut
 * set is the whole one's first nodes: the walk's order). */
static void check_position(const placer_snapshot *s, uint64_t h)
{
    uint32_t ref[PLACER_MAX_REPLICAS], got[PLACER_MAX_REPLICAS];
    uint32_t rn = ref_nts_replicas(s, h, ref, PLACER_MAX_REPLICAS);
    for (uint32_t want = 1; want <= PLACER_MAX_REPLICAS; want++) {
        uint32_t n = want < rn ? want : rn;
        FUZZ_ASSERT(placer_replicas_hash(s, h, got, want, NULL) == (int)n);
        FUZZ_ASSERT(memcmp(got, ref, n * sizeof *ref) == 0);
    }
}

/* A key cut in two columns and kept whole, composed as Cassandra's
 * CompositeType lays them out (placer.h), against those bytes written
 * here; one byte short of room is refused with the length needed. */
static void check_compose(const uint8_t *key, size_t len)
{
    size_t cut = len ? key[0] % (len + 1) : 0, lens[2] = {cut, len - cut}, got = 0;
    const void *parts[2] = {key, key + cut};
    uint8_t want[24 + 6], out[24 + 6];
    size_t w = 0;
    for (int i = 0; i < 2; i++) {
        want[w++] = (uint8_t)(lens[i] >> 8);
        want[w++] = (uint8_t)lens[i];
        memcpy(want + w, parts[i], lens[i]);
        w += lens[i];
        want[w++] = 0;
    }
    FUZZ_ASSERT(placer_cassandra_key_compose(parts, lens, 2, out, sizeof out, &got) == 0);
    FUZZ_ASSERT(got == w && memcmp(out, want, w) == 0);
    FUZZ_ASSERT(placer_cassandra_key_compose(parts, lens, 2, out, w - 1, &got) == PLACER_EINVAL &&
                got == w);
    FUZZ_ASSERT(placer_cassandra_key_compose(parts, &len, 1, out, sizeof out, &got) == 0);
    FUZZ_ASSERT(got == len && (!len || memcmp(out, key, len) == 0));
    FUZZ_ASSERT(placer_cassandra_key_compose(parts, lens, 0, out, sizeof out, &got) == PLACER_EINVAL);
    /* the refusals: no length out, a missing column, a column past 2^16 - 1 */
    static const uint8_t one = 1;
    const void *missing[2] = {NULL, &one};
    size_t some[2] = {1, 1}, huge[2] = {65536, 0};
    FUZZ_ASSERT(placer_cassandra_key_compose(parts, lens, 2, out, sizeof out, NULL) == PLACER_ENULL);
    FUZZ_ASSERT(placer_cassandra_key_compose(missing, some, 2, out, sizeof out, &got) == PLACER_ENULL);
    missing[0] = &one;
    FUZZ_ASSERT(placer_cassandra_key_compose(missing, huge, 2, out, sizeof out, &got) == PLACER_EINVAL);
    FUZZ_ASSERT(placer_cassandra_token(&one, 1, NULL) == PLACER_ENULL);
}

static void check_snapshot(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                           size_t nk)
{
    uint32_t T = placer_token_count(s);
    for (uint32_t i = 0; i < T; i++) {
        uint64_t tok;
        uint32_t owner;
        FUZZ_ASSERT(placer_token_at(s, i, &tok, &owner) == 0);
        check_position(s, tok);
        check_position(s, tok + 1);
    }
    uint32_t batch[MAX_KEYS * PLACER_MAX_REPLICAS], counts[MAX_KEYS];
    FUZZ_ASSERT(placer_replicas_batch(s, keys, lens, nk, PLACER_MAX_REPLICAS, batch, counts) == 0);
    for (size_t k = 0; k < nk; k++) {
        uint32_t ref[PLACER_MAX_REPLICAS], one[PLACER_MAX_REPLICAS];
        uint64_t h = placer_snapshot_hash(s, keys[k], lens[k]);
        if (placer_snapshot_key_hash(s) == PLACER_HASH_CASSANDRA_MURMUR3) {
            int64_t t = placer_cassandra_partitioner_token(keys[k], lens[k]), t2 = 0;
            FUZZ_ASSERT(h == ((uint64_t)t ^ UINT64_C(1) << 63));
            FUZZ_ASSERT(lens[k] ? placer_cassandra_token(keys[k], lens[k], &t2) == 0 && t2 == t
                                : placer_cassandra_token(keys[k], 0, &t2) == PLACER_EINVAL);
        }
        uint32_t rn = ref_nts_replicas(s, h, ref, PLACER_MAX_REPLICAS);
        FUZZ_ASSERT(placer_replicas(s, keys[k], lens[k], one, PLACER_MAX_REPLICAS) == (int)rn);
        FUZZ_ASSERT(counts[k] == rn);
        FUZZ_ASSERT(memcmp(one, ref, rn * sizeof *ref) == 0);
        FUZZ_ASSERT(memcmp(batch + k * PLACER_MAX_REPLICAS, ref, rn * sizeof *ref) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    placer_snapshot *s = membership(&p);
    if (!s)
        return 0;
    /* the keys: the rest of the input, a length byte each */
    const void *keys[MAX_KEYS];
    size_t lens[MAX_KEYS], nk = 0;
    while (nk < MAX_KEYS && p.size) {
        size_t want = fuzz_u8(&p) % 24, got;
        keys[nk] = fuzz_bytes(&p, want, &got);
        lens[nk++] = got;
    }
    check_snapshot(s, keys, lens, nk);
    for (size_t k = 0; k < nk; k++)
        check_compose(keys[k], lens[k]);
    void *buf = NULL;
    size_t len = 0;
    placer_snapshot *back = NULL;
    FUZZ_ASSERT(placer_snapshot_encode(s, &buf, &len) == 0);
    char why[256] = "";
    int dec = placer_snapshot_decode_ex(buf, len, &back, why, sizeof why);
    if (dec != 0)
        fprintf(stderr, "decode of the encoded snapshot: %d, %s\n", dec, why);
    FUZZ_ASSERT(dec == 0);
    check_snapshot(back, keys, lens, nk);
    placer_snapshot_free(back);
    placer_buffer_free(buf);
    placer_snapshot_free(s);
    return 0;
}
