/*
 * test_keyed.c -- keyed placement (SipHash-1-3 under a secret) and the key
 * hash ids of format v2, through the public API:
 *  - placer_siphash13 on the derived reference vectors;
 *  - a secret makes every strategy hash keys with SipHash-1-3: the
 *    snapshot's hash of a key is placer_siphash13(secret, key), ring tokens
 *    are placer_siphash13(secret, "<id>-<i>"), and single, batched and
 *    hash lookups agree with tests/reference.c's owner of that position;
 *  - another secret places differently; the seed no longer matters;
 *  - encode/decode keeps the secret (same owners), and a keyed snapshot
 *    rebuilt from a previous one keeps its hash and secret;
 *  - a secret with the Couchbase hash is refused (PLACER_EINVAL), as is
 *    siphash13 without a secret; NULL clears the secret;
 *  - the default is placer-v2 (placer_hash64), a build from a placer-v1
 *    snapshot stays placer-v1, and format-v1 bytes decode, place by
 *    placer-v1 and encode back to the same bytes.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codec_format.h"
#include "kernels.h"
#include "placer.h"
#include "reference.h"
#include "siphash_vectors.h"

static const unsigned char secret_a[16] = "keyed-placement!";
static const unsigned char secret_b[16] = "another secret..";

static placer_builder *make(int strategy, uint32_t nodes)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    if (strategy == PLACER_RING)
        placer_builder_set_vnodes(b, 16);
    for (uint32_t i = 0; i < nodes; i++) {
        char id[32];
        snprintf(id, sizeof id, "node-%03u", i);
        placer_builder_add_node(b, id, NULL, 1.0 + i % 3);
    }
    return b;
}

static placer_snapshot *build(placer_builder *b, uint64_t epoch)
{
    placer_snapshot *s = NULL;
    int err = placer_builder_build(b, epoch, &s);
    if (err)
        fprintf(stderr, "build: %s\n", placer_strerror(err));
    return s;
}

static uint64_t le64(const uint8_t b[8])
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static void public_function(void)
{
    unsigned char key[16], msg[64];
    for (int i = 0; i < 16; i++)
        key[i] = (unsigned char)i;
    for (int i = 0; i < 64; i++)
        msg[i] = (unsigned char)i;
    long bad = 0;
    for (size_t len = 0; len < 64; len++)
        bad += placer_siphash13(key, msg, len) != le64(sip13_vectors[len]);
    CHECK_ALL(bad == 0, "placer_siphash13 == the derived SipHash-1-3 vectors");
    CHECK_EQ(placer_siphash13(key, NULL, 0), le64(sip13_vectors[0]));
}

/* Every lookup form of s against the reference owner of SipHash positions. */
static long keyed_lookups_wrong(const placer_snapshot *s, const unsigned char secret[16])
{
    enum { N = 2000 };
    static char text[N][24];
    const void *keys[N];
    size_t lens[N];
    uint32_t owners[N];
    uint64_t hashes[N];
    long bad = 0;
    for (int i = 0; i < N; i++) {
        lens[i] = (size_t)snprintf(text[i], sizeof text[i], "user:%d", i * 7919);
        keys[i] = text[i];
    }
    if (placer_lookup_batch(s, keys, lens, N, owners) != 0)
        return N;
    for (int i = 0; i < N; i++) {
        uint64_t h = placer_siphash13(secret, keys[i], lens[i]);
        hashes[i] = h;
        bad += placer_snapshot_hash(s, keys[i], lens[i]) != h;
        uint32_t want = ref_owner(s, h);
        int got = placer_lookup(s, keys[i], lens[i]);
        int want_i = want == PLACER_NO_NODE ? PLACER_ENOLIVE : (int)want;
        bad += got != want_i;
        bad += owners[i] != want;
        bad += placer_lookup_hash(s, h) != want_i;
    }
    uint32_t via_hash[N];
    if (placer_lookup_hash_batch(s, hashes, N, via_hash) != 0)
        return N;
    for (int i = 0; i < N; i++)
        bad += via_hash[i] != owners[i];
    return bad;
}

static void strategies_honour_the_secret(void)
{
    static const int strategies[] = {PLACER_RING, PLACER_PARTITIONS, PLACER_JUMP, PLACER_RENDEZVOUS,
                                     PLACER_MAGLEV};
    static const char *names[] = {"ring", "partitions", "jump", "rendezvous", "maglev"};
    for (size_t k = 0; k < 5; k++) {
        placer_builder *b = make(strategies[k], 12);
        CHECK_EQ(placer_builder_set_secret(b, secret_a), 0);
        placer_snapshot *s = build(b, 1);
        CHECK(s != NULL);
        if (!s) {
            placer_builder_free(b);
            continue;
        }
        CHECK_EQ(placer_snapshot_key_hash(s), PLACER_HASH_SIPHASH13);
        long bad = keyed_lookups_wrong(s, secret_a);
        printf("%s with a secret: %ld wrong of 2000 keys x 5 forms\n", names[k], bad);
        CHECK_ALL(bad == 0, names[k]);

        if (strategies[k] == PLACER_RING) {
            /* Tokens are SipHash-1-3 of "<id>-<i>" under the secret. */
            long badtok = 0;
            for (uint32_t i = 0; i < placer_token_count(s); i++) {
                uint64_t t;
                uint32_t o;
                placer_token_at(s, i, &t, &o);
                int found = 0;
                for (int v = 0; v < 16 * 3 && !found; v++) {
                    char name[48];
                    int n = snprintf(name, sizeof name, "%s-%d", placer_node_id(s, o), v);
                    found = placer_siphash13(secret_a, name, (size_t)n) == t;
                }
                badtok += !found;
            }
            CHECK_ALL(badtok == 0, "ring tokens = SipHash-1-3(secret, \"<id>-<i>\")");
        }

        /* The seed does not enter; another secret moves keys. */
        placer_builder_set_seed(b, 12345);
        placer_snapshot *s_seed = build(b, 2);
        CHECK(s_seed && keyed_lookups_wrong(s_seed, secret_a) == 0);
        placer_builder_set_secret(b, secret_b);
        placer_snapshot *s_b = build(b, 3);
        int moved = 0;
        for (int i = 0; i < 500 && s_b; i++) {
            char key[16];
            int n = snprintf(key, sizeof key, "k%d", i);
            moved += placer_lookup(s, key, (size_t)n) != placer_lookup(s_b, key, (size_t)n);
        }
        CHECK(s_b && keyed_lookups_wrong(s_b, secret_b) == 0);
        CHECK(moved > 100); /* 12 nodes: about 11 in 12 move */

        /* Encode / decode keeps the secret. */
        void *buf;
        size_t len;
        CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
        placer_snapshot *d = NULL;
        CHECK_EQ(placer_snapshot_decode(buf, len, &d), 0);
        CHECK(d && keyed_lookups_wrong(d, secret_a) == 0);
        CHECK(d && placer_snapshot_key_hash(d) == PLACER_HASH_SIPHASH13);
        /* The bytes hold the secret (section 10) exactly once. */
        int copies = 0;
        for (size_t i = 0; i + 16 <= len; i++)
            copies += !memcmp((const char *)buf + i, secret_a, 16);
        CHECK_EQ(copies, 1);
        placer_buffer_free(buf);

        /* A build that follows a keyed snapshot keeps hash and secret. */
        placer_builder *b2 = make(strategies[k], 13);
        placer_builder_set_previous(b2, d);
        placer_snapshot *s2 = build(b2, 4);
        if (!s2)
            fprintf(stderr, "%s: the build following a keyed snapshot failed\n", names[k]);
        CHECK(s2 && placer_snapshot_key_hash(s2) == PLACER_HASH_SIPHASH13);
        CHECK(s2 && keyed_lookups_wrong(s2, secret_a) == 0);

        placer_snapshot_free(s2);
        placer_builder_free(b2);
        placer_snapshot_free(d);
        placer_snapshot_free(s_b);
        placer_snapshot_free(s_seed);
        placer_snapshot_free(s);
        placer_builder_free(b);
    }
}

static void refusals(void)
{
    placer_builder *b = make(PLACER_PARTITIONS, 4);
    placer_builder_set_key_hash(b, PLACER_HASH_COUCHBASE);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_set_secret(b, secret_a), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_key_hash(b, PLACER_HASH_PLACER), 0);
    CHECK_EQ(placer_builder_set_secret(b, secret_a), 0);
    /* A secret set first, Couchbase asked for after: refused at build. */
    CHECK_EQ(placer_builder_set_key_hash(b, PLACER_HASH_COUCHBASE), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_EINVAL);
    CHECK(s == NULL);
    /* siphash13 without a secret: refused. */
    CHECK_EQ(placer_builder_set_secret(b, NULL), 0);
    CHECK_EQ(placer_builder_set_key_hash(b, PLACER_HASH_SIPHASH13), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_EINVAL);
    /* NULL cleared the secret: the default hash again. */
    CHECK_EQ(placer_builder_set_key_hash(b, PLACER_HASH_PLACER), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_snapshot_key_hash(s), PLACER_HASH_PLACER_V2);
    CHECK_EQ(placer_builder_set_secret(NULL, secret_a), PLACER_ENULL);
    CHECK_EQ(placer_builder_set_key_hash(b, 99), PLACER_EINVAL);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

/* The default hash, the legacy one, and format-v1 bytes. */
static void hash_ids_and_v1(void)
{
    placer_builder *b = make(PLACER_RING, 8);
    placer_snapshot *s2 = build(b, 1);
    CHECK_EQ(placer_snapshot_key_hash(s2), PLACER_HASH_PLACER_V2);
    CHECK_EQ(placer_snapshot_hash(s2, "abc", 3), placer_hash64(placer_snapshot_seed(s2), "abc", 3));
    CHECK_EQ(placer_hash64(7, "abc", 3), ref_hash64_v2(7, "abc", 3));

    placer_builder_set_key_hash(b, PLACER_HASH_PLACER_V1);
    placer_snapshot *s1 = build(b, 2);
    CHECK_EQ(placer_snapshot_key_hash(s1), PLACER_HASH_PLACER_V1);
    const plc_kernels *k = plc_kernels_sw();
    CHECK_EQ(placer_snapshot_hash(s1, "abc", 3), k->hash64_v1(placer_snapshot_seed(s1), "abc", 3));
    /* Tokens by placer-v1 too. */
    uint64_t t;
    uint32_t o;
    long badtok = 0;
    for (uint32_t i = 0; i < placer_token_count(s1); i++) {
        placer_token_at(s1, i, &t, &o);
        int found = 0;
        for (int v = 0; v < 16 * 3 && !found; v++) {
            char name[48];
            int n = snprintf(name, sizeof name, "%s-%d", placer_node_id(s1, o), v);
            found = k->hash64_v1(placer_snapshot_seed(s1), name, (size_t)n) == t;
        }
        badtok += !found;
    }
    CHECK_ALL(badtok == 0, "placer-v1 ring tokens");

    /* A build following a placer-v1 snapshot keeps placer-v1. */
    placer_builder *b2 = make(PLACER_RING, 9);
    placer_builder_set_previous(b2, s1);
    placer_snapshot *s3 = build(b2, 3);
    CHECK_EQ(placer_snapshot_key_hash(s3), PLACER_HASH_PLACER_V1);
    /* ...unless told otherwise. */
    placer_builder_set_key_hash(b2, PLACER_HASH_PLACER_V2);
    placer_snapshot *s4 = build(b2, 4);
    CHECK_EQ(placer_snapshot_key_hash(s4), PLACER_HASH_PLACER_V2);

    /* Format v1: s1's encoding with version 1 and the checksum redone. */
    void *buf;
    size_t len;
    CHECK_EQ(placer_snapshot_encode(s1, &buf, &len), 0);
    unsigned char *p = buf;
    CHECK_EQ(p[8], 2);
    p[8] = 1;
    uint32_t crc = placer_crc32c(placer_crc32c(0, p, 60), p + 64, len - 64);
    plc_wr32(p + 60, crc); /* little-endian, as the file */
    placer_snapshot *d = NULL;
    CHECK_EQ(placer_snapshot_decode(buf, len, &d), 0);
    if (d) {
        long bad = 0;
        for (int i = 0; i < 3000; i++) {
            char key[24];
            int n = snprintf(key, sizeof key, "key-%d", i);
            bad += placer_lookup(d, key, (size_t)n) != placer_lookup(s1, key, (size_t)n);
            bad += placer_snapshot_hash(d, key, (size_t)n) !=
                   k->hash64_v1(placer_snapshot_seed(d), key, (size_t)n);
        }
        CHECK_ALL(bad == 0, "a format-v1 snapshot places by placer-v1");
        void *again;
        size_t alen;
        CHECK_EQ(placer_snapshot_encode(d, &again, &alen), 0);
        CHECK(alen == len && !memcmp(again, buf, len));
        placer_buffer_free(again);
    }
    placer_buffer_free(buf);
    /* Version 1 knows no key hash beyond 2: placer-v2 bytes relabelled v1
     * are refused. */
    CHECK_EQ(placer_snapshot_encode(s2, &buf, &len), 0);
    p = buf;
    p[8] = 1;
    crc = placer_crc32c(placer_crc32c(0, p, 60), p + 64, len - 64);
    plc_wr32(p + 60, crc); /* little-endian, as the file */
    placer_snapshot *bad1 = NULL;
    CHECK_EQ(placer_snapshot_decode(buf, len, &bad1), PLACER_ECORRUPT);
    CHECK(bad1 == NULL);
    placer_snapshot_free(d);
    placer_buffer_free(buf);
    placer_snapshot_free(s4);
    placer_snapshot_free(s3);
    placer_builder_free(b2);
    placer_snapshot_free(s1);
    placer_snapshot_free(s2);
    placer_builder_free(b);
}

int main(void)
{
    public_function();
    strategies_honour_the_secret();
    refusals();
    hash_ids_and_v1();
    return check_done("test_keyed");
}
