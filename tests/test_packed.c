/*
 * test_packed.c -- the packed batches (keys in one buffer, n + 1 offsets)
 * against the unpacked calls key for key: every strategy, a keyed ring,
 * lengths 0 to 70 (empty keys, keys across chunk boundaries), batches of
 * 0, 1, 255, 256, 257 and 3,000 keys, offsets not starting at 0, a router;
 * the refusals (decreasing offsets, NULLs) write nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"

#define MAX_KEYS 3000u
#define WANT 3u

static placer_snapshot *build(int strategy, int keyed, uint64_t epoch)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    if (strategy == PLACER_RING)
        placer_builder_set_vnodes(b, 64);
    if (keyed) {
        static const unsigned char secret[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        placer_builder_set_key_hash(b, PLACER_HASH_SIPHASH13);
        placer_builder_set_secret(b, secret);
    }
    char id[16], zone[16];
    for (int i = 0; i < 12; i++) {
        snprintf(id, sizeof id, "node-%d", i);
        snprintf(zone, sizeof zone, "zone-%d", i % 3);
        placer_builder_add_node(b, id, zone, 1.0 + (i % 2));
    }
    placer_snapshot *s = NULL;
    int err = placer_builder_build(b, epoch, &s);
    placer_builder_free(b);
    CHECK_EQ(err, 0);
    return s;
}

/* Random keys of 0 to 70 bytes packed from byte `start` of data. */
static void make_keys(uint64_t *rng, unsigned char *data, uint64_t *offsets, size_t n, uint64_t start)
{
    offsets[0] = start;
    for (size_t i = 0; i < n; i++) {
        size_t len = (size_t)(check_rand(rng) % 71);
        if (check_rand(rng) % 8 == 0)
            len = 0;
        for (size_t j = 0; j < len; j++)
            data[offsets[i] + j] = (unsigned char)check_rand(rng);
        offsets[i + 1] = offsets[i] + len;
    }
}

static void check_against_unpacked(const placer_snapshot *s, const char *what)
{
    static unsigned char data[64 + MAX_KEYS * 70];
    static uint64_t offsets[MAX_KEYS + 1];
    static const void *keys[MAX_KEYS];
    static size_t lens[MAX_KEYS];
    static uint32_t got[MAX_KEYS + 1], want[MAX_KEYS];
    static uint32_t rgot[MAX_KEYS * WANT], rwant[MAX_KEYS * WANT], cgot[MAX_KEYS], cwant[MAX_KEYS];
    static const size_t sizes[] = {0, 1, 255, 256, 257, MAX_KEYS};
    uint64_t rng = 42;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        make_keys(&rng, data, offsets, n, k * 7); /* offsets[0] != 0 from k = 1 */
        for (size_t i = 0; i < n; i++) {
            keys[i] = data + offsets[i];
            lens[i] = (size_t)(offsets[i + 1] - offsets[i]);
        }
        memset(got, 0xAB, sizeof got);
        CHECK_EQ(placer_lookup_batch(s, keys, lens, n, want), 0);
        CHECK_EQ(placer_lookup_batch_packed(s, data, offsets, n, got), 0);
        int same = 1;
        for (size_t i = 0; i < n; i++) {
            same &= got[i] == want[i];
            /* and the unpacked batch against single lookups: the reference */
            int one = placer_lookup(s, keys[i], lens[i]);
            same &= want[i] == (one < 0 ? PLACER_NO_NODE : (uint32_t)one);
        }
        CHECK_ALL(same, what);
        CHECK_EQ(got[n], 0xABABABABu); /* nothing past n */

        memset(rgot, 0xCD, sizeof rgot);
        CHECK_EQ(placer_replicas_batch(s, keys, lens, n, WANT, rwant, cwant), 0);
        CHECK_EQ(placer_replicas_batch_packed(s, data, offsets, n, WANT, rgot, cgot), 0);
        same = 1;
        for (size_t i = 0; i < n; i++) {
            same &= cgot[i] == cwant[i];
            for (uint32_t j = 0; j < cwant[i] && j < WANT; j++)
                same &= rgot[i * WANT + j] == rwant[i * WANT + j];
        }
        CHECK_ALL(same, what);
    }
}

static void check_refusals(const placer_snapshot *s)
{
    unsigned char data[8] = "abcdefgh";
    uint64_t bad[4] = {0, 3, 2, 8}; /* key 1 would have a negative length */
    uint32_t owners[3] = {7, 7, 7}, out[9] = {7, 7, 7, 7, 7, 7, 7, 7, 7}, counts[3] = {7, 7, 7};
    CHECK_EQ(placer_lookup_batch_packed(s, data, bad, 3, owners), PLACER_EINVAL);
    CHECK(owners[0] == 7 && owners[1] == 7 && owners[2] == 7);
    CHECK_EQ(placer_replicas_batch_packed(s, data, bad, 3, 3, out, counts), PLACER_EINVAL);
    CHECK(out[0] == 7 && counts[0] == 7 && counts[2] == 7);
    uint64_t last_bad[3] = {0, 4, 3};
    CHECK_EQ(placer_lookup_batch_packed(s, data, last_bad, 2, owners), PLACER_EINVAL);
    CHECK(owners[0] == 7);
    uint64_t huge[3] = {0, 4, UINT64_MAX};
    int err = placer_lookup_batch_packed(s, NULL, huge, 2, owners);
    CHECK(err == PLACER_ENULL || err == PLACER_EINVAL);
    CHECK(owners[0] == 7);

    uint64_t good[3] = {0, 3, 8};
    CHECK_EQ(placer_lookup_batch_packed(NULL, data, good, 2, owners), PLACER_ENULL);
    CHECK_EQ(placer_lookup_batch_packed(s, data, NULL, 2, owners), PLACER_ENULL);
    CHECK_EQ(placer_lookup_batch_packed(s, data, good, 2, NULL), PLACER_ENULL);
    CHECK_EQ(placer_lookup_batch_packed(s, NULL, good, 2, owners), PLACER_ENULL);
    CHECK(owners[0] == 7);
    CHECK_EQ(placer_replicas_batch_packed(s, data, good, 2, 3, NULL, counts), PLACER_ENULL);
    CHECK_EQ(placer_replicas_batch_packed(s, data, good, 2, 3, out, NULL), PLACER_ENULL);
    CHECK_EQ(placer_replicas_batch_packed(NULL, data, good, 2, 3, out, counts), PLACER_ENULL);
    /* n = 0 reads nothing; empty keys need no data */
    CHECK_EQ(placer_lookup_batch_packed(s, NULL, NULL, 0, NULL), 0);
    CHECK_EQ(placer_replicas_batch_packed(s, NULL, NULL, 0, 3, NULL, NULL), 0);
    uint64_t empty[3] = {5, 5, 5};
    CHECK_EQ(placer_lookup_batch_packed(s, NULL, empty, 2, owners), 0);
    int e = placer_lookup(s, "", 0);
    CHECK(owners[0] == (e < 0 ? PLACER_NO_NODE : (uint32_t)e) && owners[1] == owners[0]);
    CHECK_EQ(placer_replicas_batch_packed(s, data, good, 2, 0, NULL, counts), 0);
    CHECK(counts[0] == 0 && counts[1] == 0);
}

static void check_router(void)
{
    placer_router *r = placer_router_new(build(PLACER_RING, 0, 5));
    CHECK(r != NULL);
    const char *text = "user:1user:22user:333";
    uint64_t offsets[4] = {0, 6, 13, 21};
    uint32_t owners[3], single[3];
    uint64_t epoch = 0;
    for (uint64_t next = 6; next <= 7; next++) {
        CHECK_EQ(placer_router_lookup_batch_packed(r, text, offsets, 3, owners, &epoch), 0);
        CHECK_EQ(epoch, next - 1);
        for (int i = 0; i < 3; i++)
            single[i] = (uint32_t)placer_router_lookup(r, text + offsets[i],
                                                       (size_t)(offsets[i + 1] - offsets[i]), NULL);
        CHECK(!memcmp(owners, single, sizeof owners));
        CHECK_EQ(placer_router_publish(r, build(PLACER_JUMP, 0, next)), 0);
    }
    uint64_t bad[4] = {0, 6, 5, 21};
    CHECK_EQ(placer_router_lookup_batch_packed(r, text, bad, 3, owners, NULL), PLACER_EINVAL);
    CHECK_EQ(placer_router_lookup_batch_packed(NULL, text, offsets, 3, owners, NULL), PLACER_ENULL);
    placer_router_free(r);
}

int main(void)
{
    static const int strategies[] = {PLACER_RING, PLACER_PARTITIONS, PLACER_JUMP, PLACER_RENDEZVOUS,
                                     PLACER_MAGLEV};
    static const char *names[] = {"ring", "partitions", "jump", "rendezvous", "maglev"};
    for (size_t i = 0; i < sizeof strategies / sizeof *strategies; i++) {
        placer_snapshot *s = build(strategies[i], 0, 1);
        check_against_unpacked(s, names[i]);
        if (i == 0)
            check_refusals(s);
        placer_snapshot_free(s);
    }
    placer_snapshot *keyed = build(PLACER_RING, 1, 1);
    check_against_unpacked(keyed, "keyed ring");
    placer_snapshot_free(keyed);
    check_router();
    return check_done("test_packed");
}
