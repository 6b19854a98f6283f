/*
 * test_membership_libmemcached.c -- the user's path for libmemcached: a
 * membership file ("compat": "libmemcached", the servers' addresses and
 * weights) through placer_membership_parse and placer_builder_build, then
 * placer_lookup of 2,000 keys, against libmemcached itself (Debian's 1.1)
 * set up with the same servers: memcached_generate_hash() places a key
 * without connecting to anything.
 */
#include <libmemcached/memcached.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "placer_control.h"

#define NKEYS 2000

typedef struct server {
    const char *host;
    unsigned port, weight;
} server;

static const server servers[] = {
    {"10.0.0.1", 11211, 1}, {"10.0.0.2", 11211, 2}, {"10.0.0.3", 11212, 1},
    {"cache-4.example.net", 11211, 2}, {"10.0.0.5", 22122, 1},
};
#define NSERVERS (sizeof servers / sizeof servers[0])

static void compare(const char *distribution, const char *key_hash, memcached_hash_t mc_hash,
                    int unit_weights)
{
    char doc[2048];
    size_t at = (size_t)snprintf(doc, sizeof doc, "{\"compat\": \"libmemcached\"");
    if (distribution)
        at += (size_t)snprintf(doc + at, sizeof doc - at, ", \"distribution\": \"%s\"", distribution);
    if (key_hash)
        at += (size_t)snprintf(doc + at, sizeof doc - at, ", \"key_hash\": \"%s\"", key_hash);
    at += (size_t)snprintf(doc + at, sizeof doc - at, ", \"nodes\": [");
    memcached_st *m = memcached_create(NULL);
    if (!distribution || !strcmp(distribution, "ketama_weighted"))
        CHECK(memcached_behavior_set(m, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1) == MEMCACHED_SUCCESS);
    else
        CHECK(memcached_behavior_set(m, MEMCACHED_BEHAVIOR_DISTRIBUTION,
                                     MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA) == MEMCACHED_SUCCESS);
    if (key_hash)
        CHECK(memcached_behavior_set(m, MEMCACHED_BEHAVIOR_HASH, mc_hash) == MEMCACHED_SUCCESS);
    for (size_t i = 0; i < NSERVERS; i++) {
        unsigned w = unit_weights ? 1 : servers[i].weight;
        at += (size_t)snprintf(doc + at, sizeof doc - at,
                               "%s{\"id\": \"s%zu\", \"address\": \"%s:%u\", \"weight\": %u}",
                               i ? ", " : "", i, servers[i].host, servers[i].port, w);
        CHECK(memcached_server_add_with_weight(m, servers[i].host, (in_port_t)servers[i].port, w) ==
              MEMCACHED_SUCCESS);
    }
    snprintf(doc + at, sizeof doc - at, "]}");
    placer_builder *b = NULL;
    uint64_t epoch;
    char why[512];
    int got = placer_membership_parse(doc, strlen(doc), "libmemcached.json", &b, &epoch, why, sizeof why);
    CHECK(got >= 0);
    placer_snapshot *s = NULL;
    if (got >= 0)
        CHECK_EQ(placer_builder_build(b, epoch, &s), 0);
    else
        fprintf(stderr, "%s\n", why);
    placer_builder_free(b);
    if (!s) {
        memcached_free(m);
        return;
    }
    uint64_t st = 20261201;
    int bad = 0;
    char key[64];
    for (int i = 0; i < NKEYS; i++) {
        size_t len = 1 + check_rand(&st) % 60;
        for (size_t j = 0; j < len; j++) /* memcached keys; a third above 0x7f */
            key[j] = (char)(i % 3 ? 0x21 + check_rand(&st) % 0x5e : 0x21 + check_rand(&st) % 0xde);
        uint32_t want = memcached_generate_hash(m, key, len);
        int owner = placer_lookup(s, key, len);
        if ((uint32_t)owner != want && !bad++)
            fprintf(stderr, "%s/%s: key %d: libmemcached %u, placer %d\n",
                    distribution ? distribution : "default", key_hash ? key_hash : "default", i,
                    want, owner);
    }
    CHECK_ALL(bad == 0, "membership file against memcached_generate_hash");
    placer_snapshot_free(s);
    memcached_free(m);
}

int main(void)
{
    compare(NULL, NULL, MEMCACHED_HASH_DEFAULT, 0);             /* KETAMA_WEIGHTED, MD5 */
    compare("ketama", NULL, MEMCACHED_HASH_DEFAULT, 1);         /* one-at-a-time points */
    compare("ketama", "crc", MEMCACHED_HASH_CRC, 1);
    compare("ketama", "fnv1a_32", MEMCACHED_HASH_FNV1A_32, 0);  /* a weight of 2: weighted */
    compare("ketama_weighted", "murmur", MEMCACHED_HASH_MURMUR, 0);
    return check_done("test_membership_libmemcached");
}
