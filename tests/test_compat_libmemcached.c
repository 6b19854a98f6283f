/*
 * test_compat_libmemcached.c -- the libmemcached compatibility mode against
 * libmemcached itself (Debian's libmemcached 1.1): every key hash against
 * libhashkit_digest() on every length, and the owner of >= 2,000 keys per
 * configuration against memcached_generate_hash(), which places a key
 * without connecting to anything (it is memcached_generate_hash_with_
 * redistribution() less the auto-eject rebuild; 1.1 does not export that).
 * Debian builds libhashkit without hsieh, so libmemcached offers no hsieh
 * and placer refuses it in this mode.
 */
#include <libhashkit-1.0/hashkit.h>
#include <libmemcached/memcached.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compat.h"

#define NKEYS 3000

static unsigned char keys[NKEYS][250];
static size_t lens[NKEYS];

static void make_keys(void)
{
    uint64_t st = 15;
    for (int i = 0; i < NKEYS; i++) {
        /* memcached keys: 1..250 bytes without spaces or control bytes;
         * a third of them carry bytes above 0x7f (sign-extension quirks). */
        lens[i] = 1 + check_rand(&st) % (i < 1000 ? 40 : 250);
        for (size_t j = 0; j < lens[i]; j++) {
            uint64_t r = check_rand(&st);
            keys[i][j] = (unsigned char)(i % 3 == 0 ? 0x21 + r % 0xde : 0x21 + r % 0x5e);
        }
    }
}

typedef struct hash_case {
    const char *name;
    memcached_hash_t mc;
    hashkit_hash_algorithm_t hk;
} hash_case;

static const hash_case hashes[] = {
    {"default", MEMCACHED_HASH_DEFAULT, HASHKIT_HASH_DEFAULT},
    {"md5", MEMCACHED_HASH_MD5, HASHKIT_HASH_MD5},
    {"crc", MEMCACHED_HASH_CRC, HASHKIT_HASH_CRC},
    {"fnv1_64", MEMCACHED_HASH_FNV1_64, HASHKIT_HASH_FNV1_64},
    {"fnv1a_64", MEMCACHED_HASH_FNV1A_64, HASHKIT_HASH_FNV1A_64},
    {"fnv1_32", MEMCACHED_HASH_FNV1_32, HASHKIT_HASH_FNV1_32},
    {"fnv1a_32", MEMCACHED_HASH_FNV1A_32, HASHKIT_HASH_FNV1A_32},
    {"hsieh", MEMCACHED_HASH_HSIEH, HASHKIT_HASH_HSIEH},
    {"murmur", MEMCACHED_HASH_MURMUR, HASHKIT_HASH_MURMUR},
    {"jenkins", MEMCACHED_HASH_JENKINS, HASHKIT_HASH_JENKINS},
    {"murmur3", MEMCACHED_HASH_MURMUR3, HASHKIT_HASH_MURMUR3},
};
#define NHASHES (sizeof hashes / sizeof hashes[0])

/* Every hash on every length 0..300 of random bytes (all 256 values). */
static void test_hashes(void)
{
    static unsigned char buf[301];
    uint64_t st = 99;
    for (size_t h = 0; h < NHASHES; h++) {
        int id = plc_compat_hash_id(PLACER_COMPAT_LIBMEMCACHED, hashes[h].name);
        if (!libhashkit_has_algorithm(hashes[h].hk)) {
            printf("libhashkit lacks %s: placer refuses it too\n", hashes[h].name);
            CHECK(hashes[h].hk == HASHKIT_HASH_HSIEH && id == 0);
            continue;
        }
        CHECK(id != 0);
        plc_compat_hash_fn fn = plc_compat_hash_function(id);
        int bad = 0;
        for (int rep = 0; rep < 8; rep++)
            for (size_t len = 0; len <= 300; len++) {
                for (size_t j = 0; j < len; j++)
                    buf[j] = (unsigned char)check_rand(&st);
                uint32_t want = libhashkit_digest((const char *)buf, len, hashes[h].hk);
                if (fn(buf, len) != want && !bad++)
                    fprintf(stderr, "%s differs at length %zu\n", hashes[h].name, len);
            }
        CHECK_ALL(bad == 0, hashes[h].name);
    }
}

typedef struct server {
    const char *host;
    in_port_t port;
    uint32_t weight;
} server;

/* One configuration: libmemcached set up as described, placer from the
 * same inputs; every key's owner compared. */
static void compare(const char *what, int weighted_behavior, const hash_case *hc,
                    const server *sv, uint32_t n)
{
    memcached_st *m = memcached_create(NULL);
    CHECK(m != NULL);
    if (weighted_behavior)
        CHECK(memcached_behavior_set(m, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1) == MEMCACHED_SUCCESS);
    else
        CHECK(memcached_behavior_set(m, MEMCACHED_BEHAVIOR_DISTRIBUTION,
                                     MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA) == MEMCACHED_SUCCESS);
    if (hc)
        CHECK(memcached_behavior_set(m, MEMCACHED_BEHAVIOR_HASH, hc->mc) == MEMCACHED_SUCCESS);
    plc_compat_node *nodes = calloc(n, sizeof *nodes);
    char (*addr)[64] = calloc(n, sizeof *addr);
    for (uint32_t i = 0; i < n; i++) {
        CHECK(memcached_server_add_with_weight(m, sv[i].host, sv[i].port, sv[i].weight) ==
              MEMCACHED_SUCCESS);
        snprintf(addr[i], sizeof addr[i], "%s:%u", sv[i].host, (unsigned)sv[i].port);
        nodes[i] = (plc_compat_node){NULL, 0, addr[i], strlen(addr[i]), sv[i].weight, 0, 0};
    }
    plc_compat_config c = {.program = PLACER_COMPAT_LIBMEMCACHED,
                           .distribution = weighted_behavior ? PLC_CD_KETAMA_WEIGHTED : PLC_CD_KETAMA,
                           .key_hash = hc ? plc_compat_hash_id(PLACER_COMPAT_LIBMEMCACHED, hc->name) : 0,
                           .nnodes = n,
                           .nodes = nodes};
    plc_compat_layout l;
    CHECK_EQ(plc_compat_layout_build(&c, &l), 0);
    int bad = 0;
    for (int i = 0; i < NKEYS; i++) {
        uint32_t want = memcached_generate_hash(m, (const char *)keys[i], lens[i]);
        uint32_t got = plc_compat_lookup(&l, keys[i], lens[i]);
        if (want != got && !bad++)
            fprintf(stderr, "%s: key %d: libmemcached %u, placer %u\n", what, i, want, got);
    }
    CHECK_ALL(bad == 0, what);
    plc_compat_layout_free(&l);
    memcached_free(m);
    free(nodes);
    free(addr);
}

int main(void)
{
    make_keys();
    test_hashes();

    /* Five servers, weights 1 and 2, default and other ports, a name. */
    const server five[] = {{"127.0.0.1", 11211, 1}, {"127.0.0.2", 11212, 2}, {"10.0.0.7", 11211, 1},
                           {"cache-b.example", 20000, 2}, {"localhost", 11211, 1}};
    const server five_w1[] = {{"127.0.0.1", 11211, 1}, {"127.0.0.2", 11212, 1},
                              {"10.0.0.7", 11211, 1}, {"cache-b.example", 20000, 1},
                              {"localhost", 11211, 1}};
    char label[96];
    compare("weighted md5", 1, NULL, five, 5);
    compare("weighted md5, equal weights", 1, NULL, five_w1, 5);
    compare("plain ketama, weights 1 (default hash)", 0, NULL, five_w1, 5);
    /* libmemcached's rule: a weight above 1 turns weighting back on. */
    compare("plain ketama with a weight of 2", 0, NULL, five, 5);
    for (size_t h = 0; h < NHASHES; h++) {
        if (!libhashkit_has_algorithm(hashes[h].hk))
            continue;
        snprintf(label, sizeof label, "weighted, key hash %s", hashes[h].name);
        compare(label, 1, &hashes[h], five, 5);
        snprintf(label, sizeof label, "plain ketama, hash %s", hashes[h].name);
        compare(label, 0, &hashes[h], five_w1, 5);
    }
    compare("one server", 1, NULL, five, 1);

    /* 100 servers of mixed weights, as the benchmark uses. */
    static server many[100];
    static char names[100][32];
    for (int i = 0; i < 100; i++) {
        snprintf(names[i], sizeof names[i], "10.1.%d.%d", i / 10, i % 10);
        many[i] = (server){names[i], (in_port_t)(i % 3 ? 11211 : 11300 + i), 1u + (uint32_t)(i % 4)};
    }
    compare("100 servers, weights 1..4", 1, NULL, many, 100);
    return check_done("compat_libmemcached");
}
