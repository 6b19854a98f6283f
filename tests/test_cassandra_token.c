/*
 * test_cassandra_token.c -- Cassandra's Murmur3Partitioner tokens
 * (placer_cassandra_token) against vectors recorded from the DataStax
 * driver (cassandra_token_vectors.h), so every machine checks them, the
 * cross-compiled ones included; tests/compat_cassandra_tokens.py compares
 * thousands more with the driver itself. Composite keys against bytes
 * written out by hand; every refusal.
 */
#include <stdint.h>
#include <string.h>

#include "cassandra_token_vectors.h"
#include "check.h"
#include "placer.h"

static void test_vectors(void)
{
    size_t n = sizeof cassandra_token_vectors / sizeof cassandra_token_vectors[0];
    CHECK(n >= 50);
    for (size_t i = 0; i < n; i++) {
        int64_t t = 0;
        const char *k = cassandra_token_vectors[i].key;
        size_t len = cassandra_token_vectors[i].len;
        CHECK(placer_cassandra_token(k, len, &t) == 0);
        CHECK_EQ(t, (int64_t)cassandra_token_vectors[i].token);
        CHECK_EQ(placer_cassandra_partitioner_token(k, len), (int64_t)cassandra_token_vectors[i].token);
    }
}

static void test_empty_and_null(void)
{
    int64_t t = 7;
    CHECK(placer_cassandra_token("", 0, &t) == PLACER_EINVAL && t == 7);
    CHECK(placer_cassandra_token(NULL, 0, &t) == PLACER_EINVAL);
    CHECK(placer_cassandra_token(NULL, 3, &t) == PLACER_ENULL);
    CHECK(placer_cassandra_token("a", 1, NULL) == PLACER_ENULL);
    CHECK_EQ(placer_cassandra_partitioner_token(NULL, 0), INT64_MIN);
}

static void test_compose(void)
{
    const void *parts[3] = {"ab", "", "\xff"};
    size_t lens[3] = {2, 0, 1}, len = 0;
    unsigned char out[16];
    static const unsigned char want[] = {0, 2, 'a', 'b', 0, 0, 0, 0, 0, 1, 0xff, 0};
    CHECK(placer_cassandra_key_compose(parts, lens, 3, out, sizeof out, &len) == 0);
    CHECK(len == sizeof want && memcmp(out, want, len) == 0);
    /* too small: the length needed, nothing else */
    CHECK(placer_cassandra_key_compose(parts, lens, 3, out, 11, &len) == PLACER_EINVAL);
    CHECK(len == sizeof want);
    CHECK(placer_cassandra_key_compose(parts, lens, 3, NULL, 0, &len) == PLACER_EINVAL);
    /* one column: its bytes as they are */
    CHECK(placer_cassandra_key_compose(parts, lens, 1, out, sizeof out, &len) == 0);
    CHECK(len == 2 && memcmp(out, "ab", 2) == 0);
    /* a composite's column is at most 65,535 bytes; a single column has no such limit */
    static char big[65536];
    const void *bigparts[2] = {big, "x"};
    size_t biglens[2] = {sizeof big, 1};
    CHECK(placer_cassandra_key_compose(bigparts, biglens, 2, NULL, 0, &len) == PLACER_EINVAL);
    CHECK(placer_cassandra_key_compose(bigparts, biglens, 1, NULL, 0, &len) == PLACER_EINVAL);
    CHECK(len == sizeof big);
    CHECK(placer_cassandra_key_compose(parts, lens, 0, out, sizeof out, &len) == PLACER_EINVAL);
    CHECK(placer_cassandra_key_compose(NULL, lens, 2, out, sizeof out, &len) == PLACER_ENULL);
    CHECK(placer_cassandra_key_compose(parts, lens, 2, out, sizeof out, NULL) == PLACER_ENULL);
    const void *nullpart[2] = {NULL, "x"};
    CHECK(placer_cassandra_key_compose(nullpart, lens, 2, out, sizeof out, &len) == PLACER_ENULL);
}

int main(void)
{
    test_vectors();
    test_empty_and_null();
    test_compose();
    return check_done("test_cassandra_token");
}
