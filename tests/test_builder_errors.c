/*
 * test_builder_errors.c -- bad input never crashes: every misuse returns
 * its own negative PLACER_E* code, placer_strerror names it, and a failed
 * call leaves the builder unchanged.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "placer.h"

static void distinct_named_codes(void)
{
    const int codes[] = {PLACER_ENULL,    PLACER_ENOMEM,   PLACER_EIDEMPTY, PLACER_EIDDUP,
                         PLACER_EIDLONG,  PLACER_EWEIGHT,  PLACER_ENONODES, PLACER_ETOOMANY,
                         PLACER_ERANGE,   PLACER_EINVAL,   PLACER_ENOTSUP,  PLACER_ESTALE,
                         PLACER_ENOTMINE, PLACER_ENOLIVE,  PLACER_EFORMAT,  PLACER_EVERSION,
                         PLACER_ETRUNC,   PLACER_ECHECKSUM, PLACER_ECORRUPT, PLACER_ECONFLICT,
                         PLACER_EUNAVAIL, PLACER_ECOMPACTED, PLACER_EMISSING, PLACER_EAUTH};
    size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        CHECK(codes[i] < 0);
        CHECK(strcmp(placer_strerror(codes[i]), "unknown error") != 0);
        for (size_t j = 0; j < i; j++) {
            CHECK(codes[i] != codes[j]);
            CHECK(strcmp(placer_strerror(codes[i]), placer_strerror(codes[j])) != 0);
        }
    }
    CHECK(!strcmp(placer_strerror(-9999), "unknown error"));
    CHECK(!strcmp(placer_strerror(12345), "unknown error"));
}

static void null_pointers(void)
{
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_set_seed(NULL, 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_set_vnodes(NULL, 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_add_node(NULL, "a", "z", 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_add_token(NULL, 0, 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_build(NULL, 0, &s), PLACER_ENULL);
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_add_node(b, NULL, "z", 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_add_node(b, "a", NULL, 1), 0); /* NULL zone is "no zone" */
    CHECK_EQ(placer_builder_build(b, 0, NULL), PLACER_ENULL);
    CHECK_EQ(placer_lookup(NULL, "k", 1), PLACER_ENULL);
    CHECK_EQ(placer_lookup_hash(NULL, 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_build(b, 0, &s), 0);
    CHECK_EQ(placer_lookup(s, NULL, 1), PLACER_ENULL);
    CHECK_EQ(placer_lookup(s, NULL, 0), 0); /* empty key is a key */
    uint64_t t;
    uint32_t o;
    CHECK_EQ(placer_token_at(s, 0, NULL, &o), PLACER_ENULL);
    CHECK_EQ(placer_token_at(NULL, 0, &t, &o), PLACER_ENULL);
    CHECK(placer_node_id(s, 1) == NULL);
    CHECK(placer_node_zone(s, 5) == NULL);
    CHECK(!strcmp(placer_node_zone(s, 0), ""));
    CHECK(placer_node_weight(s, 7) == 0.0);
    CHECK_EQ(placer_node_tokens(s, 7), 0);
    CHECK(placer_node_id(NULL, 0) == NULL);
    CHECK_EQ(placer_node_count(NULL), 0);
    CHECK_EQ(placer_token_count(NULL), 0);
    CHECK_EQ(placer_snapshot_epoch(NULL), 0);
    CHECK_EQ(placer_snapshot_seed(NULL), 0);
    CHECK_EQ(placer_snapshot_hash(NULL, "k", 1), 0);
    /* the position with its error apart from it */
    uint64_t pos = 7;
    CHECK_EQ(placer_snapshot_key_position(NULL, "k", 1, &pos), PLACER_ENULL);
    CHECK_EQ(placer_snapshot_key_position(s, NULL, 1, &pos), PLACER_ENULL);
    CHECK_EQ(placer_snapshot_key_position(s, "k", 1, NULL), PLACER_ENULL);
    CHECK_EQ(pos, 7);
    CHECK_EQ(placer_snapshot_key_position(s, "k", 1, &pos), 0);
    CHECK_EQ(pos, placer_snapshot_hash(s, "k", 1));
    CHECK_EQ(placer_snapshot_key_position(s, NULL, 0, &pos), 0);
    CHECK_EQ(pos, placer_snapshot_hash(s, NULL, 0));
    placer_snapshot_free(s);
    placer_snapshot_free(NULL);
    placer_builder_free(b);
    placer_builder_free(NULL);
}

static void bad_nodes_leave_builder_unchanged(void)
{
    placer_builder *b = placer_builder_new();
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ENONODES);
    CHECK(s == NULL);
    CHECK_EQ(placer_builder_add_node(b, "", "z", 1), PLACER_EIDEMPTY);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", 0), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", -1), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", NAN), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", INFINITY), PLACER_EWEIGHT);
    /* past the range: a subnormal weight once made rendezvous's 1/w infinite */
    CHECK_EQ(placer_builder_add_node(b, "a", "z", 1.35e-312), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", PLACER_MIN_WEIGHT / 2), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", PLACER_MAX_WEIGHT * 2), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", 1e300), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", -INFINITY), PLACER_EWEIGHT);
    char longid[PLACER_MAX_ID_LEN + 2];
    memset(longid, 'x', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    CHECK_EQ(placer_builder_add_node(b, longid, "z", 1), PLACER_EIDLONG);
    CHECK_EQ(placer_builder_add_node(b, "a", longid, 1), PLACER_EIDLONG);
    longid[PLACER_MAX_ID_LEN] = '\0'; /* exactly the cap is fine */
    CHECK_EQ(placer_builder_add_node(b, longid, "z", 1), 0);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", 1), 1);
    CHECK_EQ(placer_builder_add_node(b, "a", "y", 2), PLACER_EIDDUP);
    CHECK_EQ(placer_builder_add_node(b, longid, "z", 1), PLACER_EIDDUP);
    CHECK_EQ(placer_builder_add_token(b, 2, 5), PLACER_ERANGE);
    CHECK_EQ(placer_builder_add_token(b, UINT32_MAX, 5), PLACER_ERANGE);
    CHECK_EQ(placer_builder_set_vnodes(b, 0), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_vnodes(b, PLACER_MAX_TOKENS + 1), PLACER_EINVAL);
    CHECK_EQ(placer_builder_add_node(b, "b", "z", 1), 2); /* indices continue in order */
    CHECK_EQ(placer_builder_build(b, 0, &s), 0);
    CHECK_EQ(placer_node_count(s), 3);
    CHECK(!strcmp(placer_node_id(s, 1), "a") && !strcmp(placer_node_zone(s, 1), "z"));
    CHECK(placer_node_weight(s, 1) == 1.0);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static void token_cap(void)
{
    placer_builder *b = placer_builder_new();
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_set_vnodes(b, PLACER_MAX_TOKENS), 0);
    CHECK_EQ(placer_builder_add_node(b, "big", NULL, 1.5), 0); /* 1.5 x cap */
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ETOOMANY);
    placer_builder_free(b);

    b = placer_builder_new();
    CHECK_EQ(placer_builder_set_vnodes(b, PLACER_MAX_TOKENS / 2 + 1), 0);
    CHECK_EQ(placer_builder_add_node(b, "x", NULL, 1), 0);
    CHECK_EQ(placer_builder_add_node(b, "y", NULL, 1), 1); /* together over the cap */
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ETOOMANY);
    CHECK(s == NULL);
    CHECK_EQ(placer_builder_add_node(b, "z", NULL, PLACER_MAX_WEIGHT), 2);
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ETOOMANY); /* weight x V overflows */
    placer_builder_free(b);
}

/* placer_builder_error after a refusal: non-empty and holding each of
 * the words given (the node, the value, the limit). */
static int says(const placer_builder *b, const char *w1, const char *w2)
{
    const char *why = placer_builder_error(b);
    int ok = *why && (!w1 || strstr(why, w1)) && (!w2 || strstr(why, w2));
    if (!ok)
        fprintf(stderr, "placer_builder_error: \"%s\" (wanted \"%s\", \"%s\")\n", why,
                w1 ? w1 : "", w2 ? w2 : "");
    return ok;
}

static placer_builder *two_nodes(int strategy)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    placer_builder_add_node(b, "a", "z1", 1);
    placer_builder_add_node(b, "b", "z2", 1);
    return b;
}

/* The refusals the builder once gave without words, each named. */
static void refusals_named(void)
{
    placer_snapshot *s = NULL;
    placer_builder *b = two_nodes(PLACER_MAGLEV);
    CHECK_EQ(placer_builder_error(b)[0], 0); /* "" before any refusal */
    CHECK_EQ(placer_builder_set_partitions(b, 65535), 0);
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_EINVAL);
    CHECK(says(b, "65535", "prime"));
    CHECK_EQ(placer_builder_set_partitions(b, 0), 0);
    CHECK_EQ(placer_builder_set_key_hash(b, PLACER_HASH_COUCHBASE), 0);
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_EINVAL);
    CHECK(says(b, "couchbase", "maglev"));
    CHECK_EQ(placer_builder_set_key_hash(b, PLACER_HASH_PLACER_V2), 0);
    CHECK_EQ(placer_builder_set_token_allocation(b, PLACER_TOKENS_BALANCED), 0);
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_EINVAL);
    CHECK(says(b, "balanced", "maglev"));
    CHECK_EQ(placer_builder_set_token_allocation(b, PLACER_TOKENS_RANDOM), 0);
    CHECK_EQ(placer_builder_build(b, 0, &s), 0);
    placer_snapshot_free(s);
    s = NULL;
    CHECK_EQ(placer_builder_set_partitions(b, PLACER_MAX_MAGLEV_SIZE + 1), PLACER_EINVAL);
    CHECK(says(b, "5000012", "PLACER_MAX_MAGLEV_SIZE"));
    placer_builder_free(b);

    /* partitions on a strategy without them: refused at build, as documented */
    b = two_nodes(PLACER_RING);
    CHECK_EQ(placer_builder_set_partitions(b, 64), 0);
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_EINVAL);
    CHECK(says(b, "64 partitions", "ring"));
    CHECK(s == NULL);
    placer_builder_free(b);

    /* a weight in range whose tokens pass the cap: the node and the count */
    b = placer_builder_new();
    CHECK_EQ(placer_builder_add_node(b, "small", NULL, 1), 0);
    CHECK_EQ(placer_builder_add_node(b, "huge", NULL, 4294967296.0), 1); /* 2^32: in range */
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ETOOMANY);
    CHECK(says(b, "huge", "1099511627776")); /* 2^32 x 256 vnodes */
    CHECK(says(b, "PLACER_MAX_TOKENS", NULL));
    placer_builder_free(b);

    /* a bucket strategy: the weight is the node's bucket count */
    b = two_nodes(PLACER_JUMP);
    CHECK_EQ(placer_builder_add_node(b, "wide", NULL, 4294967296.0), 2);
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ETOOMANY);
    CHECK(says(b, "node wide", "4294967296"));
    placer_builder_free(b);
    b = two_nodes(PLACER_JUMP);
    CHECK_EQ(placer_builder_add_token(b, 1, (uint64_t)1 << 40), 0);
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ETOOMANY);
    CHECK(says(b, "node b", "1099511627776"));
    placer_builder_free(b);

    b = two_nodes(PLACER_PARTITIONS);
    CHECK_EQ(placer_builder_set_partitions(b, PLACER_MAX_PARTITIONS + 1), 0); /* Maglev's range */
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_EINVAL);
    CHECK(says(b, "65537", "PLACER_MAX_PARTITIONS"));
    CHECK_EQ(placer_builder_set_vnodes(b, 0), PLACER_EINVAL);
    CHECK(says(b, "0 vnodes", "PLACER_MAX_TOKENS"));
    CHECK_EQ(placer_builder_set_replicas(b, PLACER_MAX_REPLICAS + 1), PLACER_EINVAL);
    CHECK(says(b, "replicas", "PLACER_MAX_REPLICAS"));
    CHECK_EQ(placer_builder_set_state(b, 1, 99), PLACER_EINVAL);
    CHECK(says(b, "node b", "99"));
    CHECK_EQ(placer_builder_set_key_hash(b, 77), PLACER_EINVAL);
    CHECK(says(b, "77", NULL));
    CHECK_EQ(placer_builder_set_token_allocation(b, 5), PLACER_EINVAL);
    CHECK(says(b, "5", NULL));
    CHECK_EQ(placer_builder_set_capacity(b, PLACER_MAX_TOKENS + 1), PLACER_EINVAL);
    CHECK(says(b, "33554433", "PLACER_MAX_TOKENS"));
    CHECK_EQ(placer_builder_set_strategy(b, 999), PLACER_EINVAL);
    CHECK(says(b, "999", NULL));
    CHECK_EQ(placer_builder_set_strategy(b, PLACER_EMULATED), PLACER_EINVAL);
    CHECK(says(b, "placer_builder_set_compat", NULL));
    uint32_t map[2] = {0, 7};
    CHECK_EQ(placer_builder_set_partition_map(b, 2, 1, map, NULL), PLACER_EINVAL);
    CHECK(says(b, "partition 1", "node 7"));
    CHECK_EQ(placer_builder_set_partition_map(b, 0, 1, map, NULL), PLACER_EINVAL);
    CHECK(says(b, "0 rows", "PLACER_MAX_PARTITIONS"));
    placer_builder_free(b);

    b = two_nodes(PLACER_RING);
    CHECK_EQ(placer_builder_set_key_hash(b, PLACER_HASH_SIPHASH13), 0);
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_EINVAL);
    CHECK(says(b, "without a secret", NULL));
    placer_builder_free(b);
}

/* xorshift64*: the property test's settings, reproducible from its seed. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint32_t pick(uint32_t n)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717u) >> 33) % n;
}

/* One setter's call: a refusal leaves a reason, and a new one (not the
 * words an earlier call left: no two setters refuse in the same words). */
#define CALL(expr)                                                                           \
    do {                                                                                     \
        int rc_ = (expr);                                                                    \
        const char *why_ = placer_builder_error(b);                                          \
        if (rc_ == PLACER_EINVAL || rc_ == PLACER_ETOOMANY) {                                \
            refusals++;                                                                      \
            if (!*why_ || !strcmp(why_, before)) {                                           \
                silent++;                                                                    \
                fprintf(stderr, "round %d: %s: %s with no new reason\\n", round, #expr,      \
                        placer_strerror(rc_));                                               \
            }                                                                                \
        }                                                                                    \
        snprintf(before, sizeof before, "%s", why_);                                         \
    } while (0)

/* Property: over random builder settings (strategy, sizes, weights,
 * options, key hash, states, explicit tokens), every call that returns
 * PLACER_EINVAL or PLACER_ETOOMANY leaves a non-empty reason. Sizes are
 * drawn small or past a cap, so no draw builds millions of tokens. */
static void every_refusal_has_words(void)
{
    static const uint32_t vnodes[] = {0, 1, 8, 64, PLACER_MAX_TOKENS / 2 + 1, PLACER_MAX_TOKENS + 1};
    static const uint32_t parts[] = {0, 1, 64, 100, 251, 1024, 65537, 65536 + 2, 5000012, 4999999};
    static const double weights[] = {1, 2, 3, 1e-9, 0.5, 4294967296.0};
    static const int hashes[] = {0, PLACER_HASH_PLACER_V1, PLACER_HASH_COUCHBASE,
                                 PLACER_HASH_PLACER_V2, PLACER_HASH_SIPHASH13, 9, -1};
    long refusals = 0, builds = 0, silent = 0;
    for (int round = 0; round < 250; round++) {
        placer_builder *b = placer_builder_new();
        char before[256] = "";
        int strategy = (int)pick(14); /* 0, 12, 13: no such strategy; EMULATED: implied */
        CALL(placer_builder_set_strategy(b, strategy));
        uint32_t nodes = 1 + pick(5);
        for (uint32_t i = 0; i < nodes; i++) {
            char id[16];
            snprintf(id, sizeof id, "n%u", i);
            placer_builder_add_node(b, id, i % 2 ? "z1" : "z2", weights[pick(6)]);
        }
        uint32_t v = vnodes[pick(6)];
        if (v > 64 && nodes < 2) /* one node of 16 M tokens would build */
            v = 8;
        CALL(placer_builder_set_vnodes(b, v));
        if (pick(2))
            CALL(placer_builder_set_partitions(b, parts[pick(10)]));
        if (pick(2))
            CALL(placer_builder_set_key_hash(b, hashes[pick(7)]));
        if (pick(3) == 0)
            CALL(placer_builder_set_token_allocation(b, (int)pick(4)));
        if (pick(3) == 0)
            CALL(placer_builder_set_replicas(b, pick(12)));
        if (pick(3) == 0)
            CALL(placer_builder_set_capacity(b, pick(2) ? pick(200) : PLACER_MAX_TOKENS + 1));
        if (pick(3) == 0)
            CALL(placer_builder_set_state(b, pick(nodes), (int)pick(6)));
        if (pick(4) == 0) {
            unsigned char secret[16] = {1, 2, 3};
            CALL(placer_builder_set_secret(b, secret));
        }
        for (uint32_t t = pick(4) == 0 ? pick(4) : 0; t > 0; t--)
            CALL(placer_builder_add_token(b, pick(nodes), pick(3) ? pick(8) : UINT64_MAX - t));
        placer_snapshot *s = NULL;
        int rc = placer_builder_build(b, (uint64_t)round, &s);
        builds++;
        if (rc == PLACER_EINVAL || rc == PLACER_ETOOMANY) {
            refusals++;
            if (!*placer_builder_error(b)) {
                silent++;
                fprintf(stderr, "round %d: build %s with no reason (strategy %d, %u nodes, "
                                "vnodes %u)\n", round, placer_strerror(rc), strategy, nodes, v);
            }
        }
        placer_snapshot_free(s);
        placer_builder_free(b);
    }
    printf("every_refusal_has_words: %ld builds, %ld refusals, %ld without a reason\n", builds,
           refusals, silent);
    CHECK(refusals > 100); /* the draws do reach the refusals */
    CHECK_EQ(silent, 0);
}

int main(void)
{
    distinct_named_codes();
    null_pointers();
    bad_nodes_leave_builder_unchanged();
    token_cap();
    refusals_named();
    every_refusal_has_words();
    return check_done("test_builder_errors");
}
