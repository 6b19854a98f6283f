/*
 * test_datacenter_replication.c -- NetworkTopologyStrategy over two
 * datacenters (placer_builder_set_datacenter, _set_datacenter_replication)
 * against a plain reference of Cassandra 4's server rule written over
 * signed tokens, host, datacenter and rack names as
 * NetworkTopologyStrategy.calculateNaturalReplicas walks them: per
 * datacenter, hosts of new racks, then at most RF - racks hosts of racks
 * met, until min(RF, hosts); the sets in the walk's order. 2 datacenters of
 * 1-3 racks whose rack names repeat across them (two racks, as in
 * Cassandra), 16 and 256 tokens a node, {dc1: 3, dc2: 2} and factors above
 * the racks and the hosts, a datacenter not replicated to; 2,000 keys,
 * single calls, the batch and the sets after an encode and decode. The
 * snapshot keeps datacenters and factors; forged factors are refused; the
 * factors' sum is bounded at build.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codec_format.h"
#include "placer.h"
#include "signed_ring.h"

#define KEYS 2000
#define MAXN 24

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    return check_rand(&rng);
}

typedef struct cluster {
    int hosts;
    char dc[MAXN][16], rack[MAXN][16];
    ring_tok *ring;
    size_t n;
} cluster;

/* The server's rule over names, plainly: count each datacenter's hosts and
 * (datacenter, rack) pairs by comparing names, then one walk from the
 * first token >= t. */
static int reference(const cluster *c, const char *const *dcs, const int *rf, int ndc, int64_t t,
                     int *out)
{
    int left[4], repeats[4], count = 0;
    for (int d = 0; d < ndc; d++) {
        int hosts = 0, racks = 0;
        for (int h = 0; h < c->hosts; h++) {
            if (strcmp(c->dc[h], dcs[d]))
                continue;
            hosts++;
            int first = 1;
            for (int g = 0; g < h; g++)
                first &= strcmp(c->dc[g], dcs[d]) || strcmp(c->rack[g], c->rack[h]);
            racks += first;
        }
        left[d] = rf[d] < hosts ? rf[d] : hosts;
        repeats[d] = rf[d] - racks;
    }
    size_t start = ring_start(c->ring, c->n, t);
    int taken[MAXN] = {0};
    char met[MAXN][40];
    int nmet = 0;
    for (size_t s = 0; s < c->n; s++) {
        int h = c->ring[(start + s) % c->n].host, d = 0;
        while (d < ndc && strcmp(dcs[d], c->dc[h]))
            d++;
        if (d == ndc || left[d] <= 0 || taken[h])
            continue;
        char pair[40];
        snprintf(pair, sizeof pair, "%s/%s", c->dc[h], c->rack[h]);
        int seen = 0;
        for (int m = 0; m < nmet; m++)
            seen |= !strcmp(met[m], pair);
        if (seen && repeats[d] <= 0)
            continue;
        if (seen)
            repeats[d]--;
        else
            memcpy(met[nmet++], pair, sizeof pair);
        taken[h] = 1;
        left[d]--;
        out[count++] = h;
    }
    return count;
}

/* Two datacenters: dc1 of racks1 racks, dc2 of racks2, a third dc3 that no
 * factor names; racks named rack0.. in each. */
static placer_builder *make(cluster *c, int racks1, int racks2, int tokens)
{
    placer_builder *b = placer_builder_new();
    CHECK(b && placer_builder_set_key_hash(b, PLACER_HASH_CASSANDRA_MURMUR3) == 0);
    int per[3] = {2 * racks1 + 1, 2 * racks2 + 1, 2}, racks[3] = {racks1, racks2, 1};
    c->hosts = 0;
    c->ring = malloc(sizeof *c->ring * MAXN * (size_t)tokens);
    CHECK(c->ring != NULL);
    c->n = 0;
    for (int d = 0; d < 3; d++)
        for (int i = 0; i < per[d]; i++) {
            int h = c->hosts++;
            snprintf(c->dc[h], sizeof c->dc[h], "dc%d", d + 1);
            snprintf(c->rack[h], sizeof c->rack[h], "rack%d", i % racks[d]);
            char id[32];
            snprintf(id, sizeof id, "10.%d.%d.%d", d, i % racks[d], i);
            CHECK(placer_builder_add_node(b, id, c->rack[h], 1.0) == h);
            CHECK(placer_builder_set_datacenter(b, (uint32_t)h, c->dc[h]) == 0);
            for (int v = 0; v < tokens; v++) {
                int64_t tk = (int64_t)next_rand();
                c->ring[c->n++] = (ring_tok){tk, h};
                CHECK(placer_builder_add_token(b, (uint32_t)h, (uint64_t)tk ^ (UINT64_C(1) << 63)) ==
                      0);
            }
        }
    ring_sort(c->ring, c->n);
    return b;
}

static void one_cluster(int racks1, int racks2, int tokens, int rf1, int rf2)
{
    cluster c;
    placer_builder *b = make(&c, racks1, racks2, tokens);
    CHECK(placer_builder_set_datacenter_replication(b, "dc1", (uint32_t)rf1) == 0);
    CHECK(placer_builder_set_datacenter_replication(b, "dc2", (uint32_t)rf2) == 0);
    CHECK(placer_builder_set_datacenter_replication(b, "dc9", 3) == 0); /* no node: ignored */
    placer_snapshot *s = NULL, *back = NULL;
    CHECK(placer_builder_build(b, 1, &s) == 0);
    if (!s) {
        fprintf(stderr, "%s\n", placer_builder_error(b));
        return;
    }
    void *buf = NULL;
    size_t len = 0;
    char why[200] = "";
    CHECK(placer_snapshot_encode(s, &buf, &len) == 0);
    CHECK(placer_snapshot_decode_ex(buf, len, &back, why, sizeof why) == 0);
    if (!back) {
        fprintf(stderr, "decode: %s\n", why);
        return;
    }
    for (int h = 0; h < c.hosts; h++) {
        CHECK(!strcmp(placer_node_datacenter(back, (uint32_t)h), c.dc[h]));
        uint32_t want = c.dc[h][2] == '1' ? (uint32_t)rf1 : c.dc[h][2] == '2' ? (uint32_t)rf2 : 0;
        CHECK_EQ(placer_node_replication(back, (uint32_t)h), want);
    }
    static char keybuf[KEYS][24];
    const void *keys[KEYS];
    size_t lens[KEYS], wrong = 0, both = 0;
    for (int k = 0; k < KEYS; k++) {
        lens[k] = (size_t)snprintf(keybuf[k], sizeof keybuf[k], "k%d:%llu", k,
                                   (unsigned long long)(next_rand() % 1000));
        keys[k] = keybuf[k];
    }
    uint32_t *bout = malloc(sizeof *bout * KEYS * 8), counts[KEYS];
    CHECK(bout && placer_replicas_batch(s, keys, lens, KEYS, 8, bout, counts) == 0);
    const char *dcs[2] = {"dc1", "dc2"};
    const int rf[2] = {rf1, rf2};
    for (int k = 0; k < KEYS; k++) {
        int want[MAXN];
        int64_t t;
        CHECK(placer_cassandra_token(keys[k], lens[k], &t) == 0);
        int n = reference(&c, dcs, rf, 2, t, want);
        uint32_t got[8], got2[8];
        int g = placer_replicas(s, keys[k], lens[k], got, 8);
        int g2 = placer_replicas(back, keys[k], lens[k], got2, 8);
        wrong += g != n || g2 != n || (int)counts[k] != n;
        for (int j = 0; j < n && j < g && j < g2 && j < (int)counts[k]; j++)
            wrong += got[j] != (uint32_t)want[j] || got2[j] != (uint32_t)want[j] ||
                     bout[k * 8 + j] != (uint32_t)want[j];
        int in1 = 0, in2 = 0; /* the set spans both datacenters */
        for (int j = 0; j < n; j++)
            in1 |= c.dc[want[j]][2] == '1', in2 |= c.dc[want[j]][2] == '2';
        both += in1 && in2;
    }
    if (wrong)
        fprintf(stderr, "racks %d+%d tokens %d rf %d+%d: %zu wrong\n", racks1, racks2, tokens, rf1,
                rf2, wrong);
    CHECK_EQ(wrong, (size_t)0);
    CHECK_EQ(both, (size_t)KEYS);
    free(bout);
    placer_buffer_free(buf);
    placer_snapshot_free(back);
    placer_snapshot_free(s);
    placer_builder_free(b);
    free(c.ring);
}

/* The byte of node n's record at `field` in an encoded snapshot. */
static unsigned char *node_field(unsigned char *p, uint32_t n, uint32_t field)
{
    uint32_t k = plc_rd32(p + PLC_H_SECTIONS);
    for (uint32_t e = 0; e < k; e++) {
        unsigned char *ent = p + PLC_FMT_HEADER + (size_t)e * PLC_FMT_ENTRY;
        if (plc_rd32(ent) == PLC_SEC_NODES)
            return p + plc_rd64(ent + 8) + (size_t)n * PLC_FMT_NODE + field;
    }
    return NULL;
}

static void expect_corrupt(void *buf, size_t len, const char *reason)
{
    plc_wr32((unsigned char *)buf + PLC_H_CRC, plc_fmt_crc(buf, len));
    placer_snapshot *bad = NULL;
    char why[200] = "";
    CHECK(placer_snapshot_decode_ex(buf, len, &bad, why, sizeof why) == PLACER_ECORRUPT && !bad);
    if (!strstr(why, reason))
        fprintf(stderr, "expected \"%s\", got \"%s\"\n", reason, why);
    CHECK(strstr(why, reason) != NULL);
}

static void test_forged_factors(void)
{
    cluster c;
    placer_builder *b = make(&c, 3, 3, 16);
    CHECK(placer_builder_set_datacenter_replication(b, "dc1", 3) == 0);
    CHECK(placer_builder_set_datacenter_replication(b, "dc2", 2) == 0);
    placer_snapshot *s = NULL;
    CHECK(placer_builder_build(b, 1, &s) == 0);
    void *buf = NULL;
    size_t len = 0;
    CHECK(placer_snapshot_encode(s, &buf, &len) == 0);
    unsigned char *f0 = node_field(buf, 0, 28), *f9 = node_field(buf, 9, 28);
    CHECK(f0 && f9 && plc_rd32(f0) == 3 && plc_rd32(f9) == 2);
    plc_wr32(f0, 2); /* one node of dc1 disagrees */
    expect_corrupt(buf, len, "whose node");
    plc_wr32(f0, 3);
    for (uint32_t n = 0; n < 7; n++) /* dc1 says 1: the sum is not the width */
        plc_wr32(node_field(buf, n, 28), 1);
    expect_corrupt(buf, len, "sum to");
    placer_buffer_free(buf);
    placer_snapshot_free(s);
    /* SimpleStrategy: no factor in a record */
    CHECK(placer_builder_set_replication(b, PLACER_REPLICATION_SIMPLE, 3) == 0);
    CHECK(placer_builder_build(b, 2, &s) == 0);
    CHECK(placer_snapshot_encode(s, &buf, &len) == 0);
    CHECK_EQ(placer_node_replication(s, 0), 0u);
    plc_wr32(node_field(buf, 0, 28), 3);
    expect_corrupt(buf, len, "not NetworkTopologyStrategy");
    placer_buffer_free(buf);
    placer_snapshot_free(s);
    placer_builder_free(b);
    free(c.ring);
}

static void test_build_bounds(void)
{
    cluster c;
    placer_builder *b = make(&c, 2, 2, 16);
    placer_snapshot *s = NULL;
    /* 'replication_factor' alone: every datacenter of the ring gets it */
    CHECK(placer_builder_set_replication(b, PLACER_REPLICATION_NETWORK_TOPOLOGY, 2) == 0);
    CHECK(placer_builder_build(b, 1, &s) == 0);
    CHECK_EQ(placer_node_replication(s, 0), 2u);
    CHECK_EQ(placer_node_replication(s, (uint32_t)c.hosts - 1), 2u); /* dc3 too */
    placer_snapshot_free(s);
    s = NULL;
    CHECK(placer_builder_set_replication(b, PLACER_REPLICATION_NETWORK_TOPOLOGY, 3) == 0);
    CHECK(placer_builder_build(b, 1, &s) == PLACER_EINVAL && !s); /* 3 x 3 > 8 */
    CHECK(strstr(placer_builder_error(b), "sum past") != NULL);
    CHECK(placer_builder_set_datacenter_replication(b, "dc3", 0) == 0);
    CHECK(placer_builder_build(b, 1, &s) == 0); /* 3 + 3 */
    placer_snapshot_free(s);
    s = NULL;
    placer_builder_free(b);
    free(c.ring);
    b = make(&c, 1, 1, 16);
    CHECK(placer_builder_set_datacenter_replication(b, "dc7", 3) == 0);
    CHECK(placer_builder_build(b, 1, &s) == PLACER_EINVAL && !s);
    CHECK(strstr(placer_builder_error(b), "no datacenter") != NULL);
    CHECK(placer_builder_set_datacenter_replication(b, "dc1", 9) == PLACER_EINVAL);
    CHECK(placer_builder_set_datacenter_replication(b, NULL, 1) == PLACER_ENULL);
    CHECK(placer_builder_set_datacenter(b, 999, "dc1") == PLACER_ERANGE);
    char longname[PLACER_MAX_ID_LEN + 2];
    memset(longname, 'd', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK(placer_builder_set_datacenter(b, 0, longname) == PLACER_EIDLONG);
    CHECK(placer_builder_set_datacenter_replication(b, longname, 1) == PLACER_EIDLONG);
    CHECK(!strcmp(placer_builder_node_datacenter(b, 0), "dc1"));
    placer_builder_free(b);
    free(c.ring);
}

/* The one datacenter replicated to has no node owning tokens (its node
 * joins): every set is empty, as Cassandra's is, and the snapshot encodes
 * and decodes to the same bytes: the decoder takes a set that starts with
 * no node under this rule. */
static void test_empty_sets(void)
{
    placer_builder *b = placer_builder_new();
    CHECK(b && placer_builder_set_vnodes(b, 16) == 0);
    CHECK(placer_builder_add_node(b, "a", "r1", 1.0) == 0);
    CHECK(placer_builder_add_node(b, "b", "r1", 1.0) == 1);
    CHECK(placer_builder_set_datacenter(b, 0, "dc1") == 0);
    CHECK(placer_builder_set_datacenter(b, 1, "dc2") == 0);
    CHECK(placer_builder_set_state(b, 1, PLACER_NODE_JOINING) == 0);
    CHECK(placer_builder_set_datacenter_replication(b, "dc1", 0) == 0);
    CHECK(placer_builder_set_datacenter_replication(b, "dc2", 2) == 0);
    placer_snapshot *s = NULL, *back = NULL;
    CHECK(placer_builder_build(b, 1, &s) == 0);
    uint32_t set[4];
    CHECK_EQ(placer_replicas(s, "key", 3, set, 4), 0);
    CHECK_EQ(placer_lookup(s, "key", 3), 0);
    void *buf = NULL, *again = NULL;
    size_t len = 0, alen = 0;
    char why[256] = "";
    CHECK(placer_snapshot_encode(s, &buf, &len) == 0);
    int dec = placer_snapshot_decode_ex(buf, len, &back, why, sizeof why);
    if (dec)
        fprintf(stderr, "an encoded ring of empty sets: %s\n", why);
    CHECK_EQ(dec, 0);
    if (back) {
        CHECK_EQ(placer_replicas(back, "key", 3, set, 4), 0);
        CHECK(placer_snapshot_encode(back, &again, &alen) == 0);
        CHECK(alen == len && memcmp(again, buf, len) == 0);
    }
    placer_buffer_free(again);
    placer_buffer_free(buf);
    placer_snapshot_free(back);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

int main(void)
{
    test_forged_factors();
    test_empty_sets();
    test_build_bounds();
    static const int tokens[] = {16, 256};
    for (int ti = 0; ti < 2; ti++)
        for (int racks = 1; racks <= 3; racks++) {
            one_cluster(racks, racks, tokens[ti], 3, 2);              /* {dc1: 3, dc2: 2} */
            one_cluster(racks, 4 - racks, tokens[ti], racks + 2, 2);  /* above the racks */
        }
    one_cluster(1, 2, 16, 5, 3); /* above the hosts of dc1 (3) and the racks of dc2 */
    return check_done("test_datacenter_replication");
}
