/*
 * test_replication_rules.c -- the ring's precomputed replica sets under
 * Cassandra's replication strategies (placer_builder_set_replication)
 * against a plain reference of Cassandra 4's server rule, written over
 * signed tokens and host/rack names as SimpleStrategy and
 * NetworkTopologyStrategy.calculateNaturalReplicas walk them: clusters of
 * 1-3 racks, 16 and 256 tokens a node, RF from 1 to above the racks and
 * the hosts, 2,000 keys each, single calls and the batch, and the same
 * sets after an encode and decode. A rule the decoder does not know is
 * refused.
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
#define MAXN 9

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The server's rule, plainly: start at the first token >= t (wrapping),
 * walk every token once; SimpleStrategy takes new hosts, NTS takes hosts of
 * new racks and at most rf - racks hosts of racks met, until min(rf, hosts). */
static int reference(const ring_tok *ring, size_t n, const int *rack, int hosts, int racks,
                     int rule, int rf, int64_t t, int *out)
{
    size_t start = ring_start(ring, n, t);
    int want = rf < hosts ? rf : hosts, count = 0, repeats = rf - racks;
    int taken[MAXN] = {0}, rack_met[4] = {0};
    for (size_t s = 0; s < n && count < want; s++) {
        int h = ring[(start + s) % n].host;
        if (taken[h])
            continue;
        if (rule == PLACER_REPLICATION_NETWORK_TOPOLOGY && rack_met[rack[h]]) {
            if (repeats <= 0)
                continue;
            repeats--;
        }
        rack_met[rack[h]] = 1;
        taken[h] = 1;
        out[count++] = h;
    }
    return count;
}

static void one_cluster(int hosts, int racks, int tokens, int rule, int rf)
{
    int rack[MAXN];
    ring_tok *ring = malloc(sizeof *ring * (size_t)hosts * (size_t)tokens);
    placer_builder *b = placer_builder_new();
    CHECK(ring && b);
    CHECK(placer_builder_set_key_hash(b, PLACER_HASH_CASSANDRA_MURMUR3) == 0);
    for (int h = 0; h < hosts; h++) {
        char id[32], zone[24];
        rack[h] = (int)(next_rand() % (uint64_t)racks);
        if (h < racks)
            rack[h] = h; /* every rack has a host */
        snprintf(id, sizeof id, "10.0.%d.%d", rack[h], h);
        snprintf(zone, sizeof zone, "rack%d", rack[h]);
        CHECK(placer_builder_add_node(b, id, zone, 1.0) == h);
        for (int v = 0; v < tokens; v++) {
            int64_t tk = (int64_t)next_rand();
            ring[h * tokens + v] = (ring_tok){tk, h};
            CHECK(placer_builder_add_token(b, (uint32_t)h, (uint64_t)tk ^ (UINT64_C(1) << 63)) == 0);
        }
    }
    size_t n = (size_t)hosts * (size_t)tokens;
    ring_sort(ring, n);
    CHECK(placer_builder_set_replication(b, rule, (uint32_t)rf) == 0);
    placer_snapshot *s = NULL, *back = NULL;
    CHECK(placer_builder_build(b, 1, &s) == 0);
    void *buf = NULL;
    size_t len = 0;
    CHECK(placer_snapshot_encode(s, &buf, &len) == 0);
    char why[200] = "";
    CHECK(placer_snapshot_decode_ex(buf, len, &back, why, sizeof why) == 0);
    if (!back)
        fprintf(stderr, "%s\n", why);
    size_t wrong = 0;
    static char keybuf[KEYS][24];
    const void *keys[KEYS];
    size_t lens[KEYS];
    for (int k = 0; k < KEYS; k++) {
        lens[k] = (size_t)snprintf(keybuf[k], sizeof keybuf[k], "k%d:%llu", k,
                                   (unsigned long long)(next_rand() % 1000));
        keys[k] = keybuf[k];
    }
    uint32_t *bout = malloc(sizeof *bout * KEYS * 8), counts[KEYS];
    CHECK(placer_replicas_batch(s, keys, lens, KEYS, 8, bout, counts) == 0);
    for (int k = 0; k < KEYS; k++) {
        int want[MAXN];
        int64_t t;
        CHECK(placer_cassandra_token(keys[k], lens[k], &t) == 0);
        int c = reference(ring, n, rack, hosts, racks, rule, rf, t, want);
        uint32_t got[8], got2[8];
        int g = placer_replicas(s, keys[k], lens[k], got, 8);
        int g2 = placer_replicas(back, keys[k], lens[k], got2, 8);
        wrong += g != c || g2 != c || (int)counts[k] != c;
        for (int j = 0; j < c && j < g && j < g2 && j < (int)counts[k]; j++)
            wrong += got[j] != (uint32_t)want[j] || got2[j] != (uint32_t)want[j] ||
                     bout[k * 8 + j] != (uint32_t)want[j];
    }
    if (wrong)
        fprintf(stderr, "hosts %d racks %d tokens %d rule %d rf %d: %zu wrong\n", hosts, racks,
                tokens, rule, rf, wrong);
    CHECK_EQ(wrong, (size_t)0);
    /* a rule this reader does not know, in the replica section's high half */
    unsigned char *p = buf;
    uint32_t k = plc_rd32(p + PLC_H_SECTIONS);
    for (uint32_t e = 0; e < k; e++) {
        unsigned char *ent = p + PLC_FMT_HEADER + (size_t)e * PLC_FMT_ENTRY;
        if (plc_rd32(ent) != PLC_SEC_REPLICAS)
            continue;
        uint32_t aux = plc_rd32(ent + 4);
        CHECK_EQ(aux >> 16, (uint32_t)rule);
        plc_wr32(ent + 4, (aux & 0xffff) | 7u << 16);
        plc_wr32(p + PLC_H_CRC, plc_fmt_crc(p, len));
        placer_snapshot *bad = NULL;
        CHECK(placer_snapshot_decode(buf, len, &bad) == PLACER_ECORRUPT && !bad);
        /* the other rule: the stored sets are not its sets (unless they agree) */
    }
    free(bout);
    placer_buffer_free(buf);
    placer_snapshot_free(back);
    placer_snapshot_free(s);
    placer_builder_free(b);
    free(ring);
}

static void test_refusals(void)
{
    placer_builder *b = placer_builder_new();
    CHECK(placer_builder_set_replication(b, 3, 3) == PLACER_EINVAL);
    CHECK(placer_builder_set_replication(b, PLACER_REPLICATION_SIMPLE, 0) == PLACER_EINVAL);
    CHECK(placer_builder_set_replication(b, PLACER_REPLICATION_SIMPLE, PLACER_MAX_REPLICAS + 1) ==
          PLACER_EINVAL);
    CHECK(placer_builder_set_replication(b, PLACER_REPLICATION_SIMPLE, 3) == 0);
    CHECK(placer_builder_add_node(b, "a", "r", 1.0) == 0);
    CHECK(placer_builder_set_strategy(b, PLACER_JUMP) == 0);
    placer_snapshot *s = NULL;
    CHECK(placer_builder_build(b, 1, &s) == PLACER_EINVAL && !s);
    CHECK(strstr(placer_builder_error(b), "only the ring") != NULL);
    placer_builder_free(b);
}

int main(void)
{
    test_refusals();
    static const int tokens[] = {16, 256};
    for (int ti = 0; ti < 2; ti++)
        for (int racks = 1; racks <= 3; racks++)
            for (int rule = PLACER_REPLICATION_SIMPLE; rule <= PLACER_REPLICATION_NETWORK_TOPOLOGY;
                 rule++)
                for (int rf = 1; rf <= 5; rf++)
                    one_cluster(racks == 1 ? 4 : 2 * racks + 1, racks, tokens[ti], rule, rf);
    one_cluster(3, 2, 16, PLACER_REPLICATION_NETWORK_TOPOLOGY, 8); /* rf above the hosts */
    return check_done("test_replication_rules");
}
