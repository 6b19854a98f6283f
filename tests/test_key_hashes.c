/*
 * test_key_hashes.c -- the table of key hashes: every id named, an id it
 * does not know refused by the builder and the decoder (no silent
 * placer-v2), and the Cassandra key hash: a ring whose node tokens are
 * Cassandra tokens mapped as the hash maps keys ((uint64_t)token ^ 1 << 63)
 * gives every key the owner Cassandra's ring gives it, checked against a
 * plain reference over signed tokens (the first node token >= the key's
 * token, wrapping to the lowest), through a snapshot's encoding too.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "codec_format.h"
#include "placer.h"

#define NODES 5
#define TOKENS 16 /* a node */
#define KEYS 3000

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_names(void)
{
    CHECK(!strcmp(placer_key_hash_name(PLACER_HASH_PLACER_V1), "placer-v1"));
    CHECK(!strcmp(placer_key_hash_name(PLACER_HASH_COUCHBASE), "couchbase"));
    CHECK(!strcmp(placer_key_hash_name(PLACER_HASH_PLACER_V2), "placer-v2"));
    CHECK(!strcmp(placer_key_hash_name(PLACER_HASH_SIPHASH13), "siphash13"));
    CHECK(!strcmp(placer_key_hash_name(PLACER_HASH_CASSANDRA_MURMUR3), "cassandra-murmur3"));
    CHECK(placer_key_hash_name(0) == NULL);
    CHECK(placer_key_hash_name(6) == NULL);
    CHECK(placer_key_hash_name(15) == NULL);
    CHECK(placer_key_hash_name(-1) == NULL);
}

static void test_unknown_refused(void)
{
    placer_builder *b = placer_builder_new();
    CHECK(b != NULL);
    static const int bad[] = {0, -3, 6, 15, 16, 40, 64, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(placer_builder_set_key_hash(b, bad[i]) == PLACER_EINVAL);
    CHECK(strstr(placer_builder_error(b), "key hash 1000") != NULL);
    CHECK(placer_builder_set_key_hash(b, PLACER_HASH_CASSANDRA_MURMUR3) == 0);
    /* Cassandra's hash takes no secret, and only the ring takes it */
    static const unsigned char secret[16] = {1};
    CHECK(placer_builder_set_secret(b, secret) == PLACER_EINVAL);
    CHECK(placer_builder_add_node(b, "a", "z", 1.0) == 0);
    placer_snapshot *s = NULL;
    CHECK(placer_builder_set_strategy(b, PLACER_JUMP) == 0);
    CHECK(placer_builder_build(b, 1, &s) == PLACER_EINVAL && s == NULL);
    CHECK(strstr(placer_builder_error(b), "cassandra-murmur3") != NULL);
    placer_builder_free(b);
}

/* Cassandra's rule, plainly: the node of the smallest token >= t, else of
 * the smallest token (signed comparison, as Cassandra orders Long tokens). */
static uint32_t reference_owner(const int64_t *tok, const uint32_t *node, size_t n, int64_t t)
{
    size_t best = n, low = 0;
    for (size_t i = 0; i < n; i++) {
        if (tok[i] >= t && (best == n || tok[i] < tok[best]))
            best = i;
        if (tok[i] < tok[low])
            low = i;
    }
    return node[best == n ? low : best];
}

static void test_cassandra_ring(void)
{
    int64_t tok[NODES * TOKENS];
    uint32_t node[NODES * TOKENS];
    placer_builder *b = placer_builder_new();
    CHECK(placer_builder_set_key_hash(b, PLACER_HASH_CASSANDRA_MURMUR3) == 0);
    for (uint32_t n = 0; n < NODES; n++) {
        char id[16];
        snprintf(id, sizeof id, "10.0.0.%u", n + 1);
        CHECK(placer_builder_add_node(b, id, "r1", 1.0) == (int)n);
        for (int v = 0; v < TOKENS; v++) {
            size_t i = n * TOKENS + (size_t)v;
            tok[i] = (int64_t)next_rand();
            if (i == 0)
                tok[i] = INT64_MAX; /* the extremes: the normalized token's owner */
            if (i == 1)
                tok[i] = INT64_MIN + 1;
            node[i] = n;
            CHECK(placer_builder_add_token(b, n, (uint64_t)tok[i] ^ (UINT64_C(1) << 63)) == 0);
        }
    }
    placer_snapshot *s = NULL, *back = NULL;
    CHECK(placer_builder_build(b, 1, &s) == 0);
    CHECK_EQ(placer_snapshot_key_hash(s), PLACER_HASH_CASSANDRA_MURMUR3);
    void *buf = NULL;
    size_t len = 0;
    CHECK(placer_snapshot_encode(s, &buf, &len) == 0);
    CHECK(placer_snapshot_decode(buf, len, &back) == 0);
    CHECK_EQ(placer_snapshot_key_hash(back), PLACER_HASH_CASSANDRA_MURMUR3);
    size_t wrong = 0;
    for (int k = 0; k < KEYS; k++) {
        char key[32];
        int kl = snprintf(key, sizeof key, "user:%d", k);
        int64_t t;
        CHECK(placer_cassandra_token(key, (size_t)kl, &t) == 0);
        uint32_t want = reference_owner(tok, node, NODES * TOKENS, t);
        uint64_t h = placer_snapshot_hash(s, key, (size_t)kl);
        wrong += h != ((uint64_t)t ^ (UINT64_C(1) << 63));
        wrong += placer_lookup(s, key, (size_t)kl) != (int)want;
        wrong += placer_lookup(back, key, (size_t)kl) != (int)want;
    }
    CHECK_EQ(wrong, (size_t)0);
    /* tokens at the ends of the signed range and the empty key (MINIMUM) */
    CHECK_EQ(placer_snapshot_hash(s, "", 0), (uint64_t)0);
    CHECK_EQ(placer_lookup(s, "", 0), (int)reference_owner(tok, node, NODES * TOKENS, INT64_MIN));
    /* an unknown key hash id in an encoding is refused, not read as placer-v2 */
    unsigned char *p = buf;
    CHECK_EQ(plc_rd16(p + PLC_H_KEY_HASH), (uint32_t)PLACER_HASH_CASSANDRA_MURMUR3);
    static const uint16_t bad_ids[] = {0, 6, 15};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        placer_snapshot *bad = NULL;
        char why[160] = "";
        plc_wr16(p + PLC_H_KEY_HASH, bad_ids[i]);
        plc_wr32(p + PLC_H_CRC, plc_fmt_crc(p, len));
        CHECK(placer_snapshot_decode_ex(buf, len, &bad, why, sizeof why) == PLACER_ECORRUPT);
        CHECK(bad == NULL && strstr(why, "key hash") != NULL);
    }
    placer_buffer_free(buf);
    placer_snapshot_free(back);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

int main(void)
{
    test_names();
    test_unknown_refused();
    test_cassandra_ring();
    return check_done("test_key_hashes");
}
