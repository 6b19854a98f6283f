/*
 * test_codec.c -- snapshots as bytes: encode(decode(x)) == x and the same
 * answers for every strategy; and hostile bytes: every byte flipped, every
 * truncation, huge counts, and corruption behind a recomputed checksum,
 * each rejected with its specific error and nothing leaked.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codec_format.h"
#include "placer_control.h"

static placer_snapshot *make(int strategy, int transition, uint32_t replicas)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    placer_builder_set_vnodes(b, 8);
    placer_builder_set_seed(b, 77);
    placer_builder_set_replicas(b, replicas);
    if (strategy == PLACER_MAGLEV)
        placer_builder_set_partitions(b, 251);
    if (strategy == PLACER_PARTITIONS)
        placer_builder_set_partitions(b, 64);
    for (int i = 0; i < 6; i++) {
        char id[16], zone[8], addr[32];
        snprintf(id, sizeof id, "node-%d", i);
        snprintf(zone, sizeof zone, "z%d", i % 3);
        snprintf(addr, sizeof addr, "10.0.0.%d:11210", i);
        placer_builder_add_node(b, id, zone, 1.0 + i % 2);
        if (i % 2)
            placer_builder_set_address(b, (uint32_t)i, addr);
    }
    if (transition) {
        placer_builder_set_state(b, 1, PLACER_NODE_JOINING);
        placer_builder_set_state(b, 4, PLACER_NODE_DRAINING);
        placer_builder_set_state(b, 5, PLACER_NODE_DOWN);
    }
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 42, &s), 0);
    placer_builder_free(b);
    return s;
}

static int same_answers(const placer_snapshot *a, const placer_snapshot *b)
{
    int ok = placer_snapshot_epoch(a) == placer_snapshot_epoch(b) &&
             placer_snapshot_seed(a) == placer_snapshot_seed(b) &&
             placer_snapshot_strategy(a) == placer_snapshot_strategy(b) &&
             placer_node_count(a) == placer_node_count(b) &&
             placer_token_count(a) == placer_token_count(b) &&
             placer_snapshot_in_transition(a) == placer_snapshot_in_transition(b);
    for (uint32_t n = 0; ok && n < placer_node_count(a); n++)
        ok = strcmp(placer_node_id(a, n), placer_node_id(b, n)) == 0 &&
             strcmp(placer_node_zone(a, n), placer_node_zone(b, n)) == 0 &&
             strcmp(placer_node_address(a, n), placer_node_address(b, n)) == 0 &&
             placer_node_weight(a, n) == placer_node_weight(b, n) &&
             placer_node_state(a, n) == placer_node_state(b, n) &&
             placer_node_tokens(a, n) == placer_node_tokens(b, n);
    for (int i = 0; ok && i < 2000; i++) {
        char key[16];
        int len = snprintf(key, sizeof key, "key%d", i);
        uint32_t o1, n1, o2, n2, r1[4], r2[4];
        ok = placer_lookup(a, key, (size_t)len) == placer_lookup(b, key, (size_t)len);
        placer_lookup_handoff(a, key, (size_t)len, &o1, &n1);
        placer_lookup_handoff(b, key, (size_t)len, &o2, &n2);
        ok &= o1 == o2 && n1 == n2;
        int k1 = placer_replicas(a, key, (size_t)len, r1, 4), k2 = placer_replicas(b, key, (size_t)len, r2, 4);
        ok &= k1 == k2 && memcmp(r1, r2, (size_t)(k1 > 0 ? k1 : 0) * 4) == 0;
    }
    return ok;
}

/* Round trip: decode(encode(s)) answers like s; encoding it again gives the same bytes. */
static void round_trip(placer_snapshot *s, const char *what)
{
    void *buf = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
    CHECK(len % 64 == 0 && len >= 128);
    placer_snapshot *d = NULL;
    char why[200];
    CHECK_EQ(placer_snapshot_decode_ex(buf, len, &d, why, sizeof why), 0);
    if (!d) {
        fprintf(stderr, "%s: %s\n", what, why);
        placer_buffer_free(buf);
        return;
    }
    CHECK_ALL(same_answers(s, d), what);
    CHECK_EQ(placer_snapshot_encode(d, &again, &len2), 0);
    CHECK_ALL(len == len2 && memcmp(buf, again, len) == 0, what);
    /* Unaligned input decodes too. */
    unsigned char *odd = malloc(len + 1);
    memcpy(odd + 1, buf, len);
    placer_snapshot *d2 = NULL;
    CHECK_EQ(placer_snapshot_decode(odd + 1, len, &d2), 0);
    CHECK(d2 && same_answers(s, d2));
    free(odd);
    placer_snapshot_free(d2);
    placer_snapshot_free(d);
    placer_buffer_free(again);
    placer_buffer_free(buf);
}

static int decode_err(const void *buf, size_t len)
{
    placer_snapshot *s = NULL;
    int err = placer_snapshot_decode(buf, len, &s);
    if (!err) {
        CHECK(s != NULL);
        placer_snapshot_free(s);
    } else {
        CHECK(s == NULL);
    }
    return err;
}

static void recrc(unsigned char *p, size_t len)
{
    plc_wr32(p + PLC_H_CRC, plc_fmt_crc(p, len));
}

/* The error a flip of byte i must give, before any checksum check. */
static int expected_flip_error(size_t i, const unsigned char *orig)
{
    if (i < 8)
        return PLACER_EFORMAT;
    if (i < 12)
        return PLACER_EVERSION;
    if (i < 16)
        return PLACER_EFORMAT;
    if (i < 24) { /* total: larger -> truncated, smaller -> trailing bytes */
        unsigned char m[8];
        memcpy(m, orig + 16, 8);
        m[i - 16] ^= 0xff;
        return plc_rd64(m) > plc_rd64(orig + 16) ? PLACER_ETRUNC : PLACER_EFORMAT;
    }
    if (i >= 44 && i < 52) { /* node or section count: past the caps or the checksum */
        unsigned char m[8];
        memcpy(m, orig + 44, 8);
        m[i - 44] ^= 0xff;
        uint32_t nodes = plc_rd32(m), k = plc_rd32(m + 4);
        if (nodes > PLACER_MAX_NODES || k > PLC_FMT_MAX_SECTIONS)
            return PLACER_ETOOMANY;
        if (plc_rd64(orig + 16) - 64 < (uint64_t)k * 32)
            return PLACER_ETRUNC;
    }
    return PLACER_ECHECKSUM;
}

static void hostile(placer_snapshot *s, const char *what)
{
    unsigned char *buf;
    size_t len;
    CHECK_EQ(placer_snapshot_encode(s, (void **)&buf, &len), 0);
    unsigned char *m = malloc(len);
    /* Every byte flipped: the specific error of its field. */
    int ok = 1;
    for (size_t i = 0; i < len; i++) {
        memcpy(m, buf, len);
        m[i] ^= 0xff;
        int want = expected_flip_error(i, buf), got = decode_err(m, len);
        if (got != want) {
            fprintf(stderr, "%s: byte %zu flipped: %s, expected %s\n", what, i,
                    placer_strerror(got), placer_strerror(want));
            ok = 0;
        }
    }
    CHECK_ALL(ok, what);
    /* Every truncation. */
    ok = 1;
    for (size_t l = 0; l < len; l++)
        ok &= decode_err(buf, l) == PLACER_ETRUNC;
    CHECK_ALL(ok, "every truncation length: PLACER_ETRUNC");
    /* Every byte flipped behind a recomputed checksum: rejected with a
     * content error, or accepted and then canonical (re-encodes to the
     * same bytes) with owners in range. */
    ok = 1;
    int accepted = 0, rejected = 0;
    for (size_t i = 64; i < len; i++) {
        for (int bit = 0; bit < 8; bit += 7) {
            memcpy(m, buf, len);
            m[i] ^= (unsigned char)(1u << bit);
            recrc(m, len);
            placer_snapshot *d = NULL;
            int err = placer_snapshot_decode(m, len, &d);
            if (err) {
                ok &= err == PLACER_ECORRUPT || err == PLACER_ETOOMANY;
                if (err != PLACER_ECORRUPT && err != PLACER_ETOOMANY)
                    fprintf(stderr, "%s: byte %zu bit %d: %s\n", what, i, bit, placer_strerror(err));
                rejected++;
                continue;
            }
            accepted++;
            void *again;
            size_t len2;
            int canon = placer_snapshot_encode(d, &again, &len2) == 0 && len2 == len &&
                        memcmp(again, m, len) == 0;
            if (!canon) {
                size_t at = 0;
                while (at < len && at < len2 && ((unsigned char *)again)[at] == m[at])
                    at++;
                fprintf(stderr, "%s: byte %zu bit %d accepted but re-encodes differently at %zu\n",
                        what, i, bit, at);
            }
            ok &= canon;
            for (int q = 0; q < 50; q++) {
                char key[8];
                int kl = snprintf(key, sizeof key, "q%d", q);
                int o = placer_lookup(d, key, (size_t)kl);
                ok &= (o >= 0 && (uint32_t)o < placer_node_count(d)) || o == PLACER_ENOLIVE;
            }
            placer_buffer_free(again);
            placer_snapshot_free(d);
        }
    }
    printf("%s: %zu bytes; with the checksum recomputed, %d single-bit changes rejected, %d "
           "accepted as other valid snapshots\n",
           what, len, rejected, accepted);
    CHECK_ALL(ok, "corruption behind a recomputed checksum: rejected or canonical");
    free(m);
    placer_buffer_free(buf);
}

/* Targeted corruption behind a recomputed checksum. */
static void targeted(void)
{
    placer_snapshot *s = make(PLACER_RING, 0, 0);
    unsigned char *buf, *m;
    size_t len;
    placer_snapshot_encode(s, (void **)&buf, &len);
    m = malloc(len + 64);
    uint32_t k = plc_rd32(buf + PLC_H_SECTIONS);
    /* locate sections */
    uint64_t off[10] = {0};
    for (uint32_t i = 0; i < k; i++)
        off[plc_rd32(buf + 64 + 32 * i)] = plc_rd64(buf + 64 + 32 * i + 8);
#define MUTATE(expr, want, what)                 \
    do {                                         \
        memcpy(m, buf, len);                     \
        expr;                                    \
        recrc(m, len);                           \
        CHECK_EQ(decode_err(m, len), want);      \
        if (decode_err(m, len) != (want))        \
            fprintf(stderr, "  (%s)\n", what);   \
    } while (0)
    MUTATE(plc_wr32(m + PLC_H_NODES, PLACER_MAX_NODES + 1), PLACER_ETOOMANY, "node count past the cap");
    MUTATE(plc_wr32(m + PLC_H_NODES, UINT32_MAX), PLACER_ETOOMANY, "node count 2^32-1");
    MUTATE(plc_wr32(m + PLC_H_NODES, 7), PLACER_ECORRUPT, "node count != records");
    MUTATE(plc_wr32(m + PLC_H_SECTIONS, 1000), PLACER_ETOOMANY, "section count");
    MUTATE(plc_wr64(m + 64 + 32 * 2 + 24, UINT64_MAX), PLACER_ETOOMANY, "token count 2^64-1");
    MUTATE(plc_wr64(m + 64 + 32 * 2 + 24, (uint64_t)PLACER_MAX_TOKENS + 1), PLACER_ETOOMANY, "token count past the cap");
    MUTATE(plc_wr64(m + 64 + 32 * 2 + 16, UINT64_MAX - 7), PLACER_ECORRUPT, "token bytes huge");
    MUTATE(plc_wr64(m + 64 + 32 * 2 + 8, UINT64_MAX - 63), PLACER_ECORRUPT, "offset huge");
    MUTATE(plc_wr64(m + 64 + 32 * 2 + 8, off[3] + 64), PLACER_ECORRUPT, "offset moved");
    MUTATE(plc_wr16(m + PLC_H_STRATEGY, 9), PLACER_ECORRUPT, "unknown strategy");
    MUTATE(plc_wr16(m + PLC_H_KEY_HASH, PLACER_HASH_COUCHBASE), PLACER_ECORRUPT, "couchbase hash on a ring");
    MUTATE(plc_wr32(m + PLC_H_FLAGS, 2), PLACER_ECORRUPT, "unknown flag");
    MUTATE(plc_wr32(m + PLC_H_FLAGS, 1), PLACER_ECORRUPT, "transition without target sections");
    MUTATE(plc_wr32(m + 64 + 32 * 0, 2), PLACER_ECORRUPT, "section types out of order");
    {   /* tokens out of order */
        uint64_t t0 = plc_rd64(buf + off[3]), t1 = plc_rd64(buf + off[3] + 8);
        MUTATE((plc_wr64(m + off[3], t1 + 1), (void)t0), PLACER_ECORRUPT, "unsorted tokens");
    }
    MUTATE(plc_wr32(m + off[4], 6), PLACER_ECORRUPT, "owner out of range");
    MUTATE(plc_wr32(m + off[4], UINT32_MAX), PLACER_ECORRUPT, "owner NO_NODE on a ring");
    MUTATE(plc_wr32(m + off[1] + 8, 9), PLACER_ECORRUPT, "state 9");
    MUTATE(plc_wr32(m + off[1] + 8, PLACER_NODE_JOINING), PLACER_ECORRUPT, "a joining node owning tokens");
    MUTATE(plc_wr64(m + off[1], 0x7ff8000000000000ull), PLACER_ECORRUPT, "weight NaN");
    MUTATE(plc_wr64(m + off[1], 0), PLACER_ECORRUPT, "weight 0");
    MUTATE(plc_wr32(m + off[1] + 12, 300), PLACER_ECORRUPT, "id length 300");
    MUTATE(plc_wr32(m + off[1] + 12, 0), PLACER_ECORRUPT, "empty id");
    MUTATE(plc_wr32(m + off[1] + 24, 1), PLACER_ECORRUPT, "reserved node field");
    MUTATE(m[off[2]] = '\0', PLACER_ECORRUPT, "NUL inside an id");
    MUTATE(memcpy(m + off[2] + 13, "0", 1), PLACER_ECORRUPT, "duplicate id (node-1 -> node-0)");
    MUTATE(m[len - 1] = 1, PLACER_ECORRUPT, "non-zero final padding");
    {   /* trailing bytes */
        memcpy(m, buf, len);
        m[len] = 0;
        CHECK_EQ(decode_err(m, len + 1), PLACER_EFORMAT);
    }
#undef MUTATE
    CHECK_EQ(placer_snapshot_decode(NULL, 0, &s), PLACER_ENULL);
    free(m);
    placer_buffer_free(buf);
    placer_snapshot_free(s);
}

/* Relations between sections behind a recomputed checksum: each section is
 * well-formed on its own, the whole is not a placement placer builds. Then
 * every single-bit change of a ring with replica sets, in transition: how
 * many decode (each must be canonical: the relations are what was left). */
static void relations(void)
{
    placer_snapshot *s = make(PLACER_RING, 1, 3);
    unsigned char *buf, *m;
    size_t len;
    placer_snapshot_encode(s, (void **)&buf, &len);
    m = malloc(len);
    uint32_t k = plc_rd32(buf + PLC_H_SECTIONS);
    uint64_t off[10] = {0};
    for (uint32_t i = 0; i < k; i++)
        off[plc_rd32(buf + 64 + 32 * i)] = plc_rd64(buf + 64 + 32 * i + 8);
    CHECK(off[PLC_SEC_REPLICAS] != 0);
    char why[256];
#define FORGE(expr, says)                                                              \
    do {                                                                               \
        memcpy(m, buf, len);                                                           \
        expr;                                                                          \
        recrc(m, len);                                                                 \
        placer_snapshot *d = NULL;                                                     \
        why[0] = '\0';                                                                 \
        CHECK_EQ(placer_snapshot_decode_ex(m, len, &d, why, sizeof why), PLACER_ECORRUPT); \
        CHECK(d == NULL && strstr(why, says) != NULL);                                 \
        if (!strstr(why, says))                                                        \
            fprintf(stderr, "  got '%s', wanted '%s'\n", why, says);                   \
    } while (0)
    const unsigned char *rep = buf + off[PLC_SEC_REPLICAS];
    uint32_t first = plc_rd32(rep), second = plc_rd32(rep + 4);
    /* the set's first two swapped: still distinct nodes in range */
    FORGE((plc_wr32(m + off[PLC_SEC_REPLICAS], second), plc_wr32(m + off[PLC_SEC_REPLICAS] + 4, first)),
          "does not start with its range's owner");
    /* node 1 is joining: it may hold no copy */
    uint32_t slot = 0;
    while (plc_rd32(rep + 12 * slot) == 1 || plc_rd32(rep + 12 * slot + 4) == 1 ||
           plc_rd32(rep + 12 * slot + 8) == 1)
        slot++;
    FORGE(plc_wr32(m + off[PLC_SEC_REPLICAS] + 12 * slot + 8, 1), "a joining node holds no copy");
    /* a later copy replaced by another node of the placement */
    uint32_t other = 0;
    while (other == plc_rd32(rep) || other == plc_rd32(rep + 4) || other == plc_rd32(rep + 8) ||
           other == 1)
        other++;
    FORGE(plc_wr32(m + off[PLC_SEC_REPLICAS] + 8, other), "the replication rule from the range");
    placer_buffer_free(buf);
    placer_snapshot_free(s);

    /* states and placements: a node set draining in a snapshot with no
     * target; a target (flag) with nobody moving is refused by the section
     * set already (targeted()) */
    s = make(PLACER_MAGLEV, 0, 0);
    placer_snapshot_encode(s, (void **)&buf, &len);
    free(m);
    m = malloc(len);
    k = plc_rd32(buf + PLC_H_SECTIONS);
    for (uint32_t i = 0; i < k; i++)
        off[plc_rd32(buf + 64 + 32 * i)] = plc_rd64(buf + 64 + 32 * i + 8);
    FORGE(plc_wr32(m + off[PLC_SEC_NODES] + 8, PLACER_NODE_DRAINING), "no target placement follows");
#undef FORGE
    placer_buffer_free(buf);
    placer_snapshot_free(s);

    s = make(PLACER_RING, 1, 3);
    placer_snapshot_encode(s, (void **)&buf, &len);
    free(m);
    m = malloc(len);
    int accepted = 0, rejected = 0, ok = 1;
    for (size_t i = 64; i < len; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(m, buf, len);
            m[i] ^= (unsigned char)(1u << bit);
            recrc(m, len);
            placer_snapshot *d = NULL;
            if (placer_snapshot_decode(m, len, &d)) {
                rejected++;
                continue;
            }
            accepted++;
            void *again;
            size_t len2;
            ok &= placer_snapshot_encode(d, &again, &len2) == 0 && len2 == len &&
                  memcmp(again, m, len) == 0;
            placer_buffer_free(again);
            placer_snapshot_free(d);
        }
    printf("ring with replica sets in transition: %zu bytes; with the checksum recomputed, %d of %d "
           "single-bit changes rejected, %d decode (all canonical: a weight, an id, a token moved "
           "within its gap, the seed ...)\n",
           len, rejected, rejected + accepted, accepted);
    CHECK_ALL(ok, "every single-bit change that decodes is canonical");
    free(m);
    placer_buffer_free(buf);
    placer_snapshot_free(s);
}

/* A compatibility mode's snapshot of four nodes (weights 1 and 2). */
static placer_snapshot *make_compat(int program, const char *dist, const char *hash, int avalanche,
                                    const char *tag)
{
    placer_builder *b = placer_builder_new();
    for (int i = 0; i < 4; i++) {
        char id[16], zone[8], addr[32];
        snprintf(id, sizeof id, "srv-%d", i);
        snprintf(zone, sizeof zone, "z%d", i % 2);
        snprintf(addr, sizeof addr, "10.0.0.%d:1121%d", i, i);
        placer_builder_add_node(b, id, zone, program == PLACER_COMPAT_REDIS ? 1 : 1 + i % 2);
        placer_builder_set_address(b, (uint32_t)i, addr);
        if (program == PLACER_COMPAT_HAPROXY && i == 2)
            placer_builder_set_hash_id(b, (uint32_t)i, 9);
    }
    placer_builder_set_state(b, 3, PLACER_NODE_DOWN);
    placer_compat_options o = {.size = sizeof o, .distribution = dist, .key_hash = hash,
                               .avalanche = avalanche, .hash_tag = tag};
    CHECK_EQ(placer_builder_set_compat(b, program, &o), 0);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 42, &s), 0);
    placer_builder_free(b);
    return s;
}

#define FORGE(expr, says)                                                              \
    do {                                                                               \
        memcpy(m, buf, len);                                                           \
        expr;                                                                          \
        recrc(m, len);                                                                 \
        placer_snapshot *d = NULL;                                                     \
        why[0] = '\0';                                                                 \
        CHECK_EQ(placer_snapshot_decode_ex(m, len, &d, why, sizeof why), PLACER_ECORRUPT); \
        CHECK(d == NULL && strstr(why, says) != NULL);                                 \
        if (!strstr(why, says))                                                        \
            fprintf(stderr, "  got '%s', wanted '%s'\n", why, says);                   \
    } while (0)

/* Compat sections forged behind a recomputed checksum, each well-formed on
 * its own: what the program would not build is refused with its reason. */
static void compat_forgeries(void)
{
    placer_snapshot *s = make_compat(PLACER_COMPAT_HAPROXY, "consistent", "djb2", 1, NULL);
    unsigned char *buf, *m;
    size_t len;
    placer_snapshot_encode(s, (void **)&buf, &len);
    m = malloc(len);
    uint32_t k = plc_rd32(buf + PLC_H_SECTIONS);
    uint64_t off[PLC_FMT_MAX_SECTIONS + 1] = {0}, cnt[PLC_FMT_MAX_SECTIONS + 1] = {0};
    for (uint32_t i = 0; i < k; i++) {
        off[plc_rd32(buf + 64 + 32 * i)] = plc_rd64(buf + 64 + 32 * i + 8);
        cnt[plc_rd32(buf + 64 + 32 * i)] = plc_rd64(buf + 64 + 32 * i + 24);
    }
    CHECK(off[PLC_SEC_COMPAT] && off[PLC_SEC_COMPAT_POINTS] && off[PLC_SEC_COMPAT_OWNERS] &&
          off[PLC_SEC_COMPAT_HASH_IDS]);
    char why[256];
    const unsigned char *pts = buf + off[PLC_SEC_COMPAT_POINTS];
    uint64_t gap = 1;
    while (gap < cnt[PLC_SEC_COMPAT_POINTS] && plc_rd32(pts + 4 * gap) - plc_rd32(pts + 4 * (gap - 1)) < 3)
        gap++;
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT_POINTS] + 4 * gap, plc_rd32(pts + 4 * gap) - 1),
          "the program's is"); /* a point moved within its gap: still sorted */
    uint32_t o0 = plc_rd32(buf + off[PLC_SEC_COMPAT_OWNERS]);
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT_OWNERS], (o0 + 1) % 3), "the program's is");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT_OWNERS], 9), "out of range");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT_POINTS] + 4, 0xffffffffu), "smaller than the one before");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT_HASH_IDS] + 8, 10), "the program's is");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT_HASH_IDS], 0), "server id 0");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT_HASH_IDS], 9), "cannot place"); /* equal ids */
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT], PLACER_COMPAT_NGINX), "no key hash");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT], PLACER_COMPAT_REDIS), "Redis is partitions");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT] + 4, 1), "no distribution");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT] + 8, 2), "avalanche");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT] + 12, '{'), "hash tag");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT] + 20, 2), "layout kind");
    FORGE(plc_wr16(m + PLC_H_KEY_HASH, PLACER_HASH_COMPAT_FIRST + 1), "no key hash");
    FORGE(plc_wr64(m + PLC_H_SEED, 5), "a seed");
    FORGE(plc_wr32(m + PLC_H_FLAGS, 1), "target placement");
    /* a weight that is no integer, in the node record */
    double w = 1.5;
    FORGE(plc_wr_double(m + off[PLC_SEC_NODES], w), "integers");
    FORGE(plc_wr32(m + off[PLC_SEC_NODES] + 8, PLACER_NODE_JOINING), "no such state");
    /* weights that would make far more points than the file lists are
     * refused before the rebuild (fuzz_decode found a file of 4 KB that
     * asked for 2^25 points) */
    w = 256;
    FORGE(plc_wr_double(m + off[PLC_SEC_NODES], w), "the nodes' weights make 8"); /* 8,xxx points: 32 per unit */
    free(m);
    placer_buffer_free(buf);
    placer_snapshot_free(s);
    /* Redis: 16384 slots, no seed */
    s = make_compat(PLACER_COMPAT_REDIS, NULL, NULL, 0, NULL);
    placer_snapshot_encode(s, (void **)&buf, &len);
    m = malloc(len);
    FORGE(plc_wr64(m + PLC_H_SEED, 5), "16384 slots and none");
    FORGE(plc_wr16(m + PLC_H_STRATEGY, PLACER_RING), "key hash");
    free(m);
    placer_buffer_free(buf);
    placer_snapshot_free(s);
}
/* uhashring's nodes' own vnodes (section 14): kept through the codec,
 * forged values refused, and a ring without them encoded as before. */
static placer_snapshot *make_uhashring(const uint32_t *own, int program)
{
    placer_builder *b = placer_builder_new();
    for (uint32_t i = 0; i < 4; i++) {
        char id[16], addr[32];
        snprintf(id, sizeof id, "cache-%u", i);
        snprintf(addr, sizeof addr, "10.0.0.%u:11211", i); /* uhashring hashes the id */
        placer_builder_add_node(b, id, "z", 1 + i % 2);
        placer_builder_set_address(b, i, addr);
        if (own)
            CHECK_EQ(placer_builder_set_node_vnodes(b, i, own[i]), 0);
    }
    CHECK_EQ(placer_builder_set_compat(b, program, NULL), 0);
    placer_snapshot *s = NULL;
    int rc = placer_builder_build(b, 42, &s);
    if (program != PLACER_COMPAT_UHASHRING) /* a program without them */
        CHECK(rc == PLACER_EINVAL && strstr(placer_builder_error(b), "only uhashring") != NULL);
    else
        CHECK_EQ(rc, 0);
    placer_builder_free(b);
    return s;
}

static void node_vnodes_codec(void)
{
    static const uint32_t own[4] = {0, 7, 3, 0}, none[4] = {0, 0, 0, 0};
    CHECK(make_uhashring(own, PLACER_COMPAT_LIBMEMCACHED) == NULL);
    placer_snapshot *s = make_uhashring(own, PLACER_COMPAT_UHASHRING);
    placer_snapshot *plain = make_uhashring(NULL, PLACER_COMPAT_UHASHRING);
    placer_snapshot *zeros = make_uhashring(none, PLACER_COMPAT_UHASHRING);
    round_trip(s, "uhashring nodes' own vnodes");
    unsigned char *buf, *m, *pbuf, *zbuf;
    size_t len, plen, zlen;
    placer_snapshot_encode(s, (void **)&buf, &len);
    placer_snapshot_encode(plain, (void **)&pbuf, &plen);
    placer_snapshot_encode(zeros, (void **)&zbuf, &zlen);
    CHECK(plen == zlen && memcmp(pbuf, zbuf, plen) == 0); /* no own vnodes: no section */
    uint64_t off[PLC_FMT_MAX_SECTIONS + 1] = {0}, cnt[PLC_FMT_MAX_SECTIONS + 1] = {0};
    for (uint32_t i = 0; i < plc_rd32(pbuf + PLC_H_SECTIONS); i++)
        off[plc_rd32(pbuf + 64 + 32 * i)] = 1;
    CHECK(!off[PLC_SEC_COMPAT_HASH_IDS]);
    for (uint32_t i = 0; i < plc_rd32(buf + PLC_H_SECTIONS); i++) {
        off[plc_rd32(buf + 64 + 32 * i)] = plc_rd64(buf + 64 + 32 * i + 8);
        cnt[plc_rd32(buf + 64 + 32 * i)] = plc_rd64(buf + 64 + 32 * i + 24);
    }
    CHECK(cnt[PLC_SEC_COMPAT_HASH_IDS] == 4 &&
          plc_rd32(buf + off[PLC_SEC_COMPAT_HASH_IDS] + 4) == 7);
    /* 4 nodes x 160 vnodes x weights 1, 2: fewer points with own vnodes */
    CHECK_EQ(cnt[PLC_SEC_COMPAT_OWNERS], 7 * 2 + 3 + 160 * (1 + 2));
    m = malloc(len);
    char why[256];
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT_HASH_IDS] + 4, 65536), "vnodes 65536");
    FORGE(memset(m + off[PLC_SEC_COMPAT_HASH_IDS], 0, 16), "all 0");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT_HASH_IDS] + 4, 8), "the nodes' weights make");
    FORGE(plc_wr32(m + off[PLC_SEC_COMPAT_HASH_IDS] + 4, 1000), "the nodes' weights make");
    free(m);
    placer_buffer_free(buf);
    placer_buffer_free(pbuf);
    placer_buffer_free(zbuf);
    placer_snapshot_free(s);
    placer_snapshot_free(plain);
    placer_snapshot_free(zeros);
}
#undef FORGE

static void compat_codec(void)
{
    static const struct {
        int program;
        const char *dist, *hash;
        int avalanche;
        const char *tag;
    } modes[] = {
        {PLACER_COMPAT_LIBMEMCACHED, "ketama_weighted", "md5", 0, NULL},
        {PLACER_COMPAT_LIBMEMCACHED, "ketama", "crc", 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, "ketama", "fnv1a_64", 0, "{}"},
        {PLACER_COMPAT_TWEMPROXY, "modula", "murmur", 0, NULL},
        {PLACER_COMPAT_NGINX, "consistent", NULL, 0, NULL},
        {PLACER_COMPAT_NGINX, "hash", NULL, 0, NULL},
        {PLACER_COMPAT_HAPROXY, "consistent", "sdbm", 1, NULL},
        {PLACER_COMPAT_HAPROXY, "map-based", "wt6", 0, NULL},
        {PLACER_COMPAT_REDIS, NULL, NULL, 0, NULL},
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        char what[96];
        snprintf(what, sizeof what, "compat %s %s", placer_compat_name(modes[i].program),
                 modes[i].dist ? modes[i].dist : "slots");
        placer_snapshot *s = make_compat(modes[i].program, modes[i].dist, modes[i].hash,
                                         modes[i].avalanche, modes[i].tag);
        round_trip(s, what);
        /* Every byte of the small ones and of an MD5 ring; Redis' 64 KiB
         * table has the partitions' checks, and its own header rules
         * (compat_forgeries). */
        void *buf;
        size_t len;
        placer_snapshot_encode(s, &buf, &len);
        if (modes[i].program != PLACER_COMPAT_REDIS && (len < 3000 || i == 0))
            hostile(s, what);
        placer_buffer_free(buf);
        placer_snapshot_free(s);
    }
    compat_forgeries();
    node_vnodes_codec();
}

static void import_round_trip(void)
{
    const char *doc = "{\"rev\": 9, \"vBucketServerMap\": {\"numReplicas\": 1, \"serverList\": "
                      "[\"a:1\", \"b:1\", \"c:1\"], \"vBucketMap\": [[0,1],[1,-1],[-1,-1],[2,0]], "
                      "\"vBucketMapForward\": [[1,0],[1,2],[0,1],[2,0]]}}";
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_couchbase_import(doc, strlen(doc), &s), 0);
    round_trip(s, "imported Couchbase map with holes and a forward map");
    hostile(s, "imported Couchbase map");
    placer_snapshot_free(s);
}

int main(void)
{
    static const int all[] = {PLACER_RING,    PLACER_PARTITIONS, PLACER_JUMP,     PLACER_RENDEZVOUS,
                              PLACER_MAGLEV,  PLACER_MEMENTO,    PLACER_ANCHOR,   PLACER_DX,
                              PLACER_JUMPBACK, PLACER_BINOMIAL};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        for (int tr = 0; tr < 2; tr++) {
            char what[64];
            snprintf(what, sizeof what, "%s%s", placer_strategy_name(all[i]),
                     tr ? " in transition" : "");
            placer_snapshot *s = make(all[i], tr, all[i] == PLACER_RING && tr ? 3 : 0);
            round_trip(s, what);
            hostile(s, what);
            placer_snapshot_free(s);
        }
    import_round_trip();
    compat_codec();
    targeted();
    relations();
    CHECK_EQ(placer_snapshots_alive(), 0);
    return check_done("codec");
}
