/*
 * test_compat_api.c -- the compatibility modes through the public API
 * (placer_builder_set_compat ...), every program, distribution and key hash,
 * held key by key to the internal reference: the program's layout built
 * directly (engine/compat.h) and searched plainly (plc_compat_lookup, a
 * binary search or hash % n). Checked for each mode: placer_lookup, the
 * batch, placer_snapshot_hash then placer_lookup_hash, the router, handoff,
 * live lookups around a down node, replicas (distinct nodes, zones, the
 * owner first), tokens, the diff of rings against a rebuilt pool, and
 * decode(encode(s)) answering the same and re-encoding to the same bytes.
 * Then every setting the modes refuse, with its reason.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compat.h"
#include "placer.h"

#define NODES 5
#define KEYS 3000

typedef struct mode {
    int program;
    const char *dist, *hash;
    int avalanche;
    const char *tag;
} mode;

static const double weights[NODES] = {1, 2, 1, 3, 1};
static const uint32_t hash_ids[NODES] = {0, 7, 0, 3, 0}; /* haproxy: 1, 7, 2, 3, 4 */

static unsigned char keybuf[KEYS][48];
static const void *keys[KEYS];
static size_t lens[KEYS];

static void make_keys(void)
{
    uint64_t st = 15;
    for (int i = 0; i < KEYS; i++) {
        size_t len = (size_t)(check_rand(&st) % 41);
        for (size_t j = 0; j < len; j++) {
            uint64_t r = check_rand(&st);
            keybuf[i][j] = (unsigned char)(i % 3 ? 'a' + r % 26 : r); /* a third binary */
        }
        if (i % 7 == 0 && len > 6) { /* tags for twemproxy and Redis */
            keybuf[i][1] = '{';
            keybuf[i][4] = '}';
        }
        keys[i] = keybuf[i];
        lens[i] = len;
    }
}

static void node_id(const mode *m, int i, char *id, size_t cap)
{
    if (m->program == PLACER_COMPAT_TWEMPROXY && i % 2) /* unnamed: host:port */
        snprintf(id, cap, "10.0.0.%d:1121%d", i, i % 3);
    else
        snprintf(id, cap, "cache-%d", i);
}

static void node_address(int i, char *addr, size_t cap)
{
    snprintf(addr, cap, "10.0.0.%d:%d", i, i % 2 ? 11211 : 11212);
}

static double weight_of(const mode *m, int i)
{
    /* Redis and pymemcache take no weights */
    return m->program == PLACER_COMPAT_REDIS || m->program == PLACER_COMPAT_PYMEMCACHE ? 1
                                                                                   : weights[i];
}

/* The mode through the public API; down: that node's state (-1: none). */
static placer_snapshot *build(const mode *m, int nodes, int down, const uint32_t *slots)
{
    placer_builder *b = placer_builder_new();
    for (int i = 0; i < nodes; i++) {
        char id[64], addr[64], zone[8];
        node_id(m, i, id, sizeof id);
        node_address(i, addr, sizeof addr);
        snprintf(zone, sizeof zone, "z%d", i % 3);
        CHECK_EQ(placer_builder_add_node(b, id, zone, weight_of(m, i)), i);
        CHECK_EQ(placer_builder_set_address(b, (uint32_t)i, addr), 0);
        if (m->program == PLACER_COMPAT_HAPROXY)
            CHECK_EQ(placer_builder_set_hash_id(b, (uint32_t)i, hash_ids[i]), 0);
        if (i == down)
            CHECK_EQ(placer_builder_set_state(b, (uint32_t)i, PLACER_NODE_DOWN), 0);
    }
    placer_compat_options o = {.size = sizeof o, .distribution = m->dist, .key_hash = m->hash,
                               .avalanche = m->avalanche, .hash_tag = m->tag};
    CHECK_EQ(placer_builder_set_compat(b, m->program, &o), 0);
    if (slots)
        CHECK_EQ(placer_builder_set_partition_map(b, PLC_REDIS_SLOTS, 1, slots, NULL), 0);
    placer_snapshot *s = NULL;
    int rc = placer_builder_build(b, 5, &s);
    if (rc)
        fprintf(stderr, "build: %s: %s\n", placer_strerror(rc), placer_builder_error(b));
    CHECK_EQ(rc, 0);
    placer_builder_free(b);
    return s;
}

/* The same mode as the engine's own config, for the reference layout. */
static int reference(const mode *m, int nodes, const uint32_t *slots, plc_compat_layout *l)
{
    static char ids[NODES][64], addrs[NODES][64];
    plc_compat_node n[NODES];
    for (int i = 0; i < nodes; i++) {
        node_id(m, i, ids[i], sizeof ids[i]);
        node_address(i, addrs[i], sizeof addrs[i]);
        n[i] = (plc_compat_node){ids[i], strlen(ids[i]), addrs[i], strlen(addrs[i]),
                                 (uint32_t)weight_of(m, i),
                                 m->program == PLACER_COMPAT_HAPROXY ? hash_ids[i] : 0, 0};
    }
    plc_compat_config c = {m->program,
                           m->dist ? plc_compat_distribution_id(m->dist) : 0,
                           m->hash ? plc_compat_hash_id(m->program, m->hash) : 0,
                           m->avalanche,
                           {m->tag ? m->tag[0] : 0, m->tag ? m->tag[1] : 0},
                           (uint32_t)nodes,
                           n,
                           slots,
                           0,
                           {0}};
    return plc_compat_layout_build(&c, l);
}

static placer_snapshot *codec_trip(const placer_snapshot *s, const char *what)
{
    void *buf = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    placer_snapshot *d = NULL;
    char why[200] = "";
    CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
    int rc = placer_snapshot_decode_ex(buf, len, &d, why, sizeof why);
    if (rc)
        fprintf(stderr, "%s: decode: %s (%s)\n", what, placer_strerror(rc), why);
    CHECK_EQ(rc, 0);
    if (d) {
        CHECK_EQ(placer_snapshot_encode(d, &again, &len2), 0);
        CHECK_ALL(len == len2 && memcmp(buf, again, len) == 0, what);
    }
    placer_buffer_free(buf);
    placer_buffer_free(again);
    return d;
}

/* Replica sets: the owner first, distinct nodes, every zone while any is
 * unused (rings and tables walk every node; Redis' map has one copy). */
static int replicas_ok(const placer_snapshot *s, const void *key, size_t len, int owner,
                       uint32_t want, uint32_t expect)
{
    uint32_t out[NODES];
    placer_replica_report rep = {.size = sizeof rep};
    int k = placer_replicas_ex(s, key, len, out, want, &rep);
    int ok = k == (int)expect && (k == 0 || (int)out[0] == owner);
    for (int i = 0; ok && i < k; i++)
        for (int j = 0; j < i; j++)
            ok &= out[i] != out[j];
    if (ok && expect == want) /* zones z0, z1, z2: three distinct among the first three */
        ok = rep.zones == (want < 3 ? want : 3) && !rep.under_replicated;
    return ok;
}

/* Rings: the diff against the pool without its last node lists a range
 * holding h << 32 exactly for the keys whose owner changed. */
static int diff_ok(const placer_snapshot *a, const placer_snapshot *b, const char *what)
{
    placer_move *mv = NULL;
    size_t n = 0;
    int rc = placer_diff(a, b, &mv, &n);
    /* a table has no ranges; nor has a ring searched by a 15-bit hash a
     * coverage that is a share of keys (placer_diff_measure counts it) */
    if (strcmp(placer_snapshot_layout_name(a), "table") == 0 ||
        strcmp(placer_key_hash_name(placer_snapshot_key_hash(a)), "crc32-15bit") == 0) {
        placer_moves_free(mv);
        return rc == PLACER_ENOTSUP;
    }
    if (rc) {
        fprintf(stderr, "%s: diff %s\n", what, placer_strerror(rc));
        return 0;
    }
    int ok = n > 0;
    for (int i = 0; ok && i < KEYS; i++) {
        uint64_t pos = placer_snapshot_hash(a, keys[i], lens[i]) << 32;
        int in = 0;
        for (size_t j = 0; j < n && !in; j++) {
            uint64_t lo = mv[j].lo, hi = mv[j].hi;
            in = lo < hi ? pos > lo && pos <= hi : pos > lo || pos <= hi;
        }
        int oa = placer_lookup(a, keys[i], lens[i]), ob = placer_lookup(b, keys[i], lens[i]);
        int moved = strcmp(placer_node_id(a, (uint32_t)oa), placer_node_id(b, (uint32_t)ob)) != 0;
        ok = in == moved;
    }
    double f = 0;
    ok &= placer_moved_fraction(a, b, 4096, &f) == 0 && f > 0 && f < 1;
    placer_moves_free(mv);
    return ok;
}

static void check_mode(const mode *m, int nodes, const uint32_t *slots)
{
    char what[160];
    snprintf(what, sizeof what, "%s %s %s%s%s (%d nodes%s)", placer_compat_name(m->program),
             m->dist ? m->dist : "-", m->hash ? m->hash : "-", m->avalanche ? " avalanche" : "",
             m->tag ? " tag" : "", nodes, slots ? ", slot map" : "");
    plc_compat_layout l;
    CHECK_EQ(reference(m, nodes, slots, &l), 0);
    placer_snapshot *s = build(m, nodes, -1, slots);
    if (!s) {
        plc_compat_layout_free(&l);
        return;
    }
    int redis = m->program == PLACER_COMPAT_REDIS;
    CHECK_EQ(placer_snapshot_compat(s), m->program);
    CHECK_EQ(placer_snapshot_strategy(s), redis ? PLACER_PARTITIONS : PLACER_EMULATED);
    CHECK(placer_snapshot_key_hash(s) >= PLACER_HASH_COMPAT_FIRST);
    CHECK(placer_key_hash_name(placer_snapshot_key_hash(s)) != NULL);
    CHECK(strcmp(placer_snapshot_compat_key_hash(s), plc_compat_hash_name(l.program, l.key_hash)) == 0);
    CHECK(redis ? placer_snapshot_compat_distribution(s) == NULL
                : strcmp(placer_snapshot_compat_distribution(s),
                         plc_compat_distribution_name(l.distribution)) == 0);
    if (m->dist)
        CHECK(strcmp(placer_snapshot_compat_distribution(s), m->dist) == 0);
    if (m->hash)
        CHECK(strcmp(placer_snapshot_compat_key_hash(s), m->hash) == 0);
    /* tokens: the layout's points (or slots) and owners */
    CHECK_EQ(placer_token_count(s), l.n);
    int tok = 1;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < l.n; i++) {
        uint64_t t;
        uint32_t o;
        tok &= placer_token_at(s, i, &t, &o) == 0 && o == l.owners[i];
        if (l.kind == PLC_CL_RING) /* point p at p << 32, where hash p sits */
            tok &= t == (uint64_t)l.points[i] << 32;
        else /* slot i as the i-th of n equal ranges */
            tok &= t == (i + 1 == l.n ? UINT64_MAX
                                      : (uint64_t)((((unsigned __int128)(i + 1) << 64) + l.n - 1) / l.n) - 1);
    }
    for (int i = 0; i < nodes; i++)
        sum += placer_node_tokens(s, (uint32_t)i);
    CHECK_ALL(tok && sum == l.n, what);

    placer_snapshot *d = codec_trip(s, what);
    placer_snapshot *down = build(m, nodes, 0, slots);
    placer_router *r = placer_router_new(codec_trip(s, what));
    static uint32_t batch[KEYS], dbatch[KEYS];
    CHECK_EQ(placer_lookup_batch(s, keys, lens, KEYS, batch), 0);
    if (d)
        CHECK_EQ(placer_lookup_batch(d, keys, lens, KEYS, dbatch), 0);
    int ok = d && down && r, okrep = 1, oklive = 1;
    for (int i = 0; ok && i < KEYS; i++) {
        uint32_t want = plc_compat_lookup(&l, keys[i], lens[i]);
        uint32_t h = plc_compat_key_hash(&l, keys[i], lens[i]);
        int one = placer_lookup(s, keys[i], lens[i]);
        uint64_t pos = placer_snapshot_hash(s, keys[i], lens[i]);
        uint32_t now, next;
        ok = one == (int)want && batch[i] == want && pos == h &&
             placer_lookup_hash(s, pos) == (int)want &&
             placer_lookup(d, keys[i], lens[i]) == (int)want && dbatch[i] == want &&
             placer_snapshot_hash(d, keys[i], lens[i]) == h &&
             placer_router_lookup(r, keys[i], lens[i], NULL) == (int)want &&
             placer_router_check(r, want, keys[i], lens[i], NULL) == 0 &&
             placer_lookup_handoff(s, keys[i], lens[i], &now, &next) == 0 && now == want &&
             next == want;
        if (redis)
            ok &= placer_partition(s, keys[i], lens[i]) == (int)h;
        if (!ok)
            fprintf(stderr, "%s: key %d: reference %u, placer %d, batch %u, hash %u/%llu\n", what,
                    i, want, one, batch[i], h, (unsigned long long)pos);
        uint32_t all = redis ? 1 : (uint32_t)nodes;
        okrep &= replicas_ok(s, keys[i], lens[i], (int)want, all < 3 ? all : 3, all < 3 ? all : 3);
        okrep &= replicas_ok(d, keys[i], lens[i], (int)want, (uint32_t)nodes, all);
        /* node 0 down: its keys go to the next live replica, the others stay */
        int live = placer_lookup_live(down, keys[i], lens[i]);
        if (want != 0) {
            oklive &= live == (int)want;
        } else {
            uint32_t set[NODES];
            int k = placer_replicas(down, keys[i], lens[i], set, NODES);
            oklive &= k >= 1 && set[0] == 0 &&
                      (k == 1 ? live == PLACER_ENOLIVE : live == (int)set[1]);
        }
    }
    CHECK_ALL(ok, what);
    CHECK_ALL(okrep, "replica sets: owner first, distinct nodes and zones");
    CHECK_ALL(oklive, "live lookups skip the down node");
    if (nodes > 1 && !redis) {
        placer_snapshot *fewer = build(m, nodes - 1, -1, NULL);
        CHECK_ALL(fewer && diff_ok(s, fewer, what), "diff: ranges of h << 32, or ENOTSUP for tables and 15-bit hashes");
        placer_snapshot_free(fewer);
    }
    placer_router_free(r);
    placer_snapshot_free(down);
    placer_snapshot_free(d);
    placer_snapshot_free(s);
    plc_compat_layout_free(&l);
}

static void every_mode(void)
{
    static const char *const lm_hashes[] = {"default", "md5",     "crc",    "fnv1_64",  "fnv1a_64",
                                            "fnv1_32", "fnv1a_32", "murmur", "jenkins", "murmur3"};
    static const char *const tw_hashes[] = {"one_at_a_time", "md5",      "crc16",   "crc32",
                                            "crc32a",        "fnv1_64",  "fnv1a_64", "fnv1_32",
                                            "fnv1a_32",      "hsieh",    "murmur",  "jenkins"};
    static const char *const hp_hashes[] = {"sdbm", "djb2", "wt6", "crc32", "source"};
    for (int n = 1; n <= NODES; n += NODES - 1) {
        check_mode(&(mode){PLACER_COMPAT_LIBMEMCACHED, NULL, NULL, 0, NULL}, n, NULL);
        for (size_t h = 0; h < sizeof lm_hashes / sizeof *lm_hashes; h++) {
            CHECK(placer_compat_has_key_hash(PLACER_COMPAT_LIBMEMCACHED, lm_hashes[h]));
            check_mode(&(mode){PLACER_COMPAT_LIBMEMCACHED, "ketama_weighted", lm_hashes[h], 0, NULL}, n, NULL);
            check_mode(&(mode){PLACER_COMPAT_LIBMEMCACHED, "ketama", lm_hashes[h], 0, NULL}, n, NULL);
        }
        check_mode(&(mode){PLACER_COMPAT_TWEMPROXY, NULL, NULL, 0, NULL}, n, NULL);
        for (size_t h = 0; h < sizeof tw_hashes / sizeof *tw_hashes; h++)
            for (int tag = 0; tag < 2; tag++) {
                CHECK(placer_compat_has_key_hash(PLACER_COMPAT_TWEMPROXY, tw_hashes[h]));
                check_mode(&(mode){PLACER_COMPAT_TWEMPROXY, "ketama", tw_hashes[h], 0, tag ? "{}" : NULL}, n, NULL);
                check_mode(&(mode){PLACER_COMPAT_TWEMPROXY, "modula", tw_hashes[h], 0, tag ? "{}" : NULL}, n, NULL);
            }
        check_mode(&(mode){PLACER_COMPAT_NGINX, NULL, NULL, 0, NULL}, n, NULL);
        check_mode(&(mode){PLACER_COMPAT_NGINX, "hash", "crc32", 0, NULL}, n, NULL);
        check_mode(&(mode){PLACER_COMPAT_HAPROXY, NULL, NULL, 0, NULL}, n, NULL);
        for (size_t h = 0; h < sizeof hp_hashes / sizeof *hp_hashes; h++)
            for (int av = 0; av < 2; av++) {
                check_mode(&(mode){PLACER_COMPAT_HAPROXY, "consistent", hp_hashes[h], av, NULL}, n, NULL);
                check_mode(&(mode){PLACER_COMPAT_HAPROXY, "map-based", hp_hashes[h], av, NULL}, n, NULL);
            }
        check_mode(&(mode){PLACER_COMPAT_REDIS, NULL, NULL, 0, NULL}, n, NULL);
        /* scores, no points: the key's position is its winner's index */
        check_mode(&(mode){PLACER_COMPAT_PYMEMCACHE, NULL, NULL, 0, NULL}, n, NULL);
        check_mode(&(mode){PLACER_COMPAT_PYMEMCACHE, "rendezvous", "murmur3", 0, NULL}, n, NULL);
    }
    static uint32_t slots[PLC_REDIS_SLOTS];
    uint64_t st = 3;
    for (uint32_t i = 0; i < PLC_REDIS_SLOTS; i++)
        slots[i] = (uint32_t)(check_rand(&st) % NODES);
    check_mode(&(mode){PLACER_COMPAT_REDIS, NULL, "crc16", 0, NULL}, NODES, slots);
}

/* A builder of two nodes in a mode, for the refusals. */
/* Two nodes, "a" (weight 1) and "b" (weight w). */
static placer_builder *weighted_pool(int program, const placer_compat_options *o, double w)
{
    placer_builder *b = placer_builder_new();
    placer_builder_add_node(b, "a", NULL, 1);
    placer_builder_add_node(b, "b", NULL, w);
    placer_builder_set_address(b, 0, "10.0.0.1:11211");
    placer_builder_set_address(b, 1, "10.0.0.2:11211");
    CHECK_EQ(placer_builder_set_compat(b, program, o), 0);
    return b;
}

static placer_builder *pool(int program, const placer_compat_options *o)
{
    return weighted_pool(program, o, 1);
}

#define REFUSED(b)                                                                   \
    do {                                                                             \
        placer_snapshot *s_ = NULL;                                                  \
        CHECK_EQ(placer_builder_build(b, 1, &s_), PLACER_EINVAL);                    \
        CHECK(s_ == NULL && placer_builder_error(b)[0] != '\0');                     \
        placer_builder_free(b);                                                      \
    } while (0)

static void refusals(void)
{
    placer_builder *b = placer_builder_new();
    placer_builder_add_node(b, "a", NULL, 1);
    CHECK_EQ(placer_builder_set_compat(NULL, 1, NULL), PLACER_ENULL);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_PYMEMCACHE + 1, NULL), PLACER_EINVAL);
    CHECK(placer_builder_error(b)[0] != '\0');
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_NGINX, &(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "modula"}), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_TWEMPROXY, &(placer_compat_options){.size = sizeof(placer_compat_options), .key_hash = "sdbm"}), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_LIBMEMCACHED, &(placer_compat_options){.size = sizeof(placer_compat_options), .key_hash = "hsieh"}), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_NGINX, &(placer_compat_options){.size = sizeof(placer_compat_options), .avalanche = 1}), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_LIBMEMCACHED, &(placer_compat_options){.size = sizeof(placer_compat_options), .hash_tag = "{}"}), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_TWEMPROXY, &(placer_compat_options){.size = sizeof(placer_compat_options), .hash_tag = "{"}), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_REDIS, &(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "ketama"}), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_strategy(b, PLACER_EMULATED), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_hash_id(b, 0, PLC_HAPROXY_MAX_ID + 1), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_hash_id(b, 5, 1), PLACER_ERANGE);
    CHECK_EQ(placer_builder_set_hash_id(NULL, 0, 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_set_node_vnodes(b, 0, 65536), PLACER_EINVAL);
    CHECK(strstr(placer_builder_error(b), "1 .. 65535") != NULL);
    CHECK_EQ(placer_builder_set_node_vnodes(b, 5, 1), PLACER_ERANGE);
    CHECK_EQ(placer_builder_set_node_vnodes(NULL, 0, 1), PLACER_ENULL);
    /* a refused call leaves the mode as it was: none, so this is a ring */
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_snapshot_strategy(s), PLACER_RING);
    CHECK_EQ(placer_snapshot_compat(s), PLACER_COMPAT_NONE);
    CHECK(placer_snapshot_compat_key_hash(s) == NULL && placer_snapshot_compat_distribution(s) == NULL);
    placer_snapshot_free(s);
    /* PLACER_COMPAT_NONE returns to placer's placement */
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_NGINX, NULL), 0);
    placer_builder_set_address(b, 0, "10.0.0.1:80");
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_snapshot_strategy(s), PLACER_EMULATED);
    placer_snapshot_free(s);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_NONE, NULL), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_snapshot_strategy(s), PLACER_RING);
    placer_snapshot_free(s);
    placer_builder_free(b);

    /* PLACER_MAX_COMPAT_POINTS: nginx's 160 points per unit of weight, a
     * twemproxy modula table of the total weight */
    b = weighted_pool(PLACER_COMPAT_NGINX, NULL, PLACER_MAX_COMPAT_POINTS / 160);
    s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_ETOOMANY);
    CHECK(s == NULL);
    placer_builder_free(b);
    b = weighted_pool(PLACER_COMPAT_TWEMPROXY, &(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "modula"},
                      PLACER_MAX_COMPAT_POINTS - 1);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0); /* exactly the cap */
    placer_snapshot_free(s);
    s = NULL;
    placer_builder_free(b);
    b = weighted_pool(PLACER_COMPAT_TWEMPROXY, &(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "modula"},
                      PLACER_MAX_COMPAT_POINTS);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_ETOOMANY);
    placer_builder_free(b);

    /* pymemcache: no weights; names each once, UTF-8, present */
    b = weighted_pool(PLACER_COMPAT_PYMEMCACHE, NULL, 2);
    REFUSED(b);
    b = weighted_pool(PLACER_COMPAT_PYMEMCACHE, NULL, 1);
    placer_builder_set_address(b, 1, "10.0.0.1:11211");
    REFUSED(b);
    b = weighted_pool(PLACER_COMPAT_PYMEMCACHE, NULL, 1);
    placer_builder_set_address(b, 1, "10.0.0.\xff:11211");
    REFUSED(b);
    b = weighted_pool(PLACER_COMPAT_PYMEMCACHE, NULL, 1);
    placer_builder_add_node(b, "c", NULL, 1); /* no address */
    REFUSED(b);
    b = weighted_pool(PLACER_COMPAT_PYMEMCACHE, NULL, 1);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    placer_move *mv = NULL;
    size_t nmv = 0;
    CHECK_EQ(placer_diff(s, s, &mv, &nmv), PLACER_ENOTSUP); /* scores have no ranges */
    placer_snapshot_free(s);
    placer_builder_free(b);

    static const unsigned char secret[16] = {1};
    b = pool(PLACER_COMPAT_TWEMPROXY, NULL);
    CHECK_EQ(placer_builder_set_secret(b, secret), PLACER_EINVAL); /* at once, and at build: */
    placer_builder_free(b);
    b = placer_builder_new();
    placer_builder_add_node(b, "a", NULL, 1);
    placer_builder_set_secret(b, secret);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_TWEMPROXY, NULL), 0);
    REFUSED(b);
    b = pool(PLACER_COMPAT_TWEMPROXY, NULL);
    placer_builder_set_key_hash(b, PLACER_HASH_PLACER_V2);
    REFUSED(b);
    b = pool(PLACER_COMPAT_NGINX, NULL);
    placer_builder_set_strategy(b, PLACER_JUMP);
    REFUSED(b);
    b = pool(PLACER_COMPAT_NGINX, NULL);
    placer_builder_set_strategy(b, PLACER_PARTITIONS);
    REFUSED(b);
    b = pool(PLACER_COMPAT_HAPROXY, NULL);
    placer_builder_set_seed(b, 7);
    REFUSED(b);
    b = pool(PLACER_COMPAT_LIBMEMCACHED, NULL);
    placer_builder_set_vnodes(b, 100);
    REFUSED(b);
    b = pool(PLACER_COMPAT_LIBMEMCACHED, NULL);
    placer_builder_add_token(b, 0, 5);
    REFUSED(b);
    b = pool(PLACER_COMPAT_LIBMEMCACHED, NULL);
    placer_builder_set_replicas(b, 2);
    REFUSED(b);
    b = pool(PLACER_COMPAT_TWEMPROXY, NULL);
    placer_builder_add_node(b, "c", NULL, 1.5); /* twemproxy's weights are integers */
    REFUSED(b);
    b = pool(PLACER_COMPAT_REDIS, NULL);
    placer_builder_add_node(b, "c", NULL, 2); /* Redis takes no weight */
    REFUSED(b);
    b = pool(PLACER_COMPAT_HAPROXY, NULL);
    placer_builder_add_node(b, "c", NULL, 300); /* haproxy's weights stop at 256 */
    REFUSED(b);
    b = pool(PLACER_COMPAT_NGINX, NULL);
    placer_builder_set_hash_id(b, 0, 4); /* a field the mode does not use */
    REFUSED(b);
    b = pool(PLACER_COMPAT_HAPROXY, NULL);
    placer_builder_set_hash_id(b, 0, 4);
    placer_builder_set_hash_id(b, 1, 4); /* equal ids */
    REFUSED(b);
    b = pool(PLACER_COMPAT_TWEMPROXY, NULL);
    placer_builder_set_state(b, 1, PLACER_NODE_JOINING);
    REFUSED(b);
    b = pool(PLACER_COMPAT_LIBMEMCACHED, NULL);
    placer_builder_add_node(b, "c", NULL, 1); /* no address to hash */
    REFUSED(b);
    b = pool(PLACER_COMPAT_LIBMEMCACHED, NULL);
    placer_builder_set_address(b, 1, "10.0.0.2:port"); /* libmemcached needs a numeric port */
    REFUSED(b);
    b = pool(PLACER_COMPAT_REDIS, NULL);
    placer_builder_set_partitions(b, 1024);
    REFUSED(b);
    uint32_t map[64] = {0};
    b = pool(PLACER_COMPAT_REDIS, NULL);
    placer_builder_set_partition_map(b, 64, 1, map, NULL);
    REFUSED(b);
    b = pool(PLACER_COMPAT_NGINX, NULL);
    placer_builder_set_partition_map(b, 64, 1, map, NULL);
    REFUSED(b);
    /* what Redis accepts: its own strategy named, 16384 partitions */
    b = pool(PLACER_COMPAT_REDIS, NULL);
    placer_builder_set_strategy(b, PLACER_PARTITIONS);
    placer_builder_set_partitions(b, 16384);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_partition_count(s), 16384);
    uint32_t o, nx;
    CHECK_EQ(placer_partition_owner(s, 0, &o, &nx), 0);
    CHECK_EQ(o, 0);
    CHECK_EQ(placer_partition_owner(s, 16383, &o, &nx), 0);
    CHECK_EQ(o, 1);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static void names(void)
{
    for (int p = PLACER_COMPAT_LIBMEMCACHED; p <= PLACER_COMPAT_PYMEMCACHE; p++)
        CHECK_EQ(placer_compat_from_name(placer_compat_name(p)), p);
    CHECK_EQ(placer_compat_from_name("memcached"), PLACER_EINVAL);
    CHECK_EQ(placer_compat_from_name(NULL), PLACER_EINVAL);
    CHECK(placer_compat_name(0) == NULL && placer_compat_name(PLACER_COMPAT_PYMEMCACHE + 1) == NULL);
    /* what membership files ask of a program: its ops' fields and limits */
    placer_compat_info in = {.size = sizeof in};
    CHECK_EQ(placer_compat_describe(PLACER_COMPAT_HAPROXY, &in), 0);
    CHECK(!strcmp(in.name, "haproxy") && (in.fields & PLACER_COMPAT_FIELD_HASH_ID) &&
          in.max_hash_id == PLACER_HAPROXY_MAX_ID && in.max_weight == PLACER_HAPROXY_MAX_WEIGHT);
    CHECK_EQ(placer_compat_describe(PLACER_COMPAT_TWEMPROXY, &in), 0);
    CHECK(in.max_name_len == PLACER_TWEMPROXY_MAX_HOSTLEN && in.tag == NULL);
    CHECK_EQ(placer_compat_describe(PLACER_COMPAT_REDIS, &in), 0);
    CHECK(in.max_weight == 0 && (in.fields & PLACER_COMPAT_FIELD_SLOTS) && !strcmp(in.tag, "{}"));
    CHECK_EQ(placer_compat_describe(PLACER_COMPAT_PYMEMCACHE, &in), 0);
    CHECK(in.fields == (PLACER_COMPAT_FIELD_ADDRESS | PLACER_COMPAT_FIELD_ADDRESS_ONCE));
    CHECK_EQ(placer_compat_describe(PLACER_COMPAT_NONE, &in), PLACER_EINVAL);
    CHECK_EQ(placer_compat_describe(PLACER_COMPAT_PYMEMCACHE + 1, &in), PLACER_EINVAL);
    CHECK_EQ(placer_compat_describe(PLACER_COMPAT_HAPROXY, NULL), PLACER_ENULL);
    in.size = sizeof in - 1;
    CHECK_EQ(placer_compat_describe(PLACER_COMPAT_HAPROXY, &in), PLACER_EINVAL);
    CHECK(placer_compat_has_distribution(PLACER_COMPAT_PYMEMCACHE, "rendezvous"));
    CHECK(!placer_compat_has_distribution(PLACER_COMPAT_PYMEMCACHE, "consistent"));
    CHECK(!placer_compat_has_key_hash(PLACER_COMPAT_PYMEMCACHE, "md5"));
    CHECK(placer_compat_has_distribution(PLACER_COMPAT_HAPROXY, "map-based"));
    CHECK(!placer_compat_has_distribution(PLACER_COMPAT_HAPROXY, "modula"));
    CHECK(!placer_compat_has_distribution(PLACER_COMPAT_REDIS, "consistent"));
    CHECK(placer_compat_has_key_hash(PLACER_COMPAT_REDIS, "crc16"));
    CHECK(!placer_compat_has_key_hash(PLACER_COMPAT_NGINX, "md5"));
    CHECK(!placer_compat_has_key_hash(PLACER_COMPAT_NONE, "md5"));
    CHECK(!placer_compat_has_key_hash(PLACER_COMPAT_TWEMPROXY, NULL));
    CHECK(strcmp(placer_strategy_name(PLACER_EMULATED), "compat") == 0);
    for (int id = PLACER_HASH_COMPAT_FIRST; id < PLACER_HASH_COMPAT_FIRST + 20; id++)
        CHECK(placer_key_hash_name(id) != NULL);
    CHECK(!strcmp(placer_key_hash_name(PLACER_HASH_COMPAT_FIRST + 19), "haproxy-source"));
    CHECK(placer_key_hash_name(PLACER_HASH_COMPAT_FIRST + 20) == NULL);
}

/* A previous Redis snapshot carries its slot hash: a partitions build from
 * it without the Redis mode is refused (the registry finds Redis by the key
 * hash), and with the mode it builds. */
static void previous_redis(void)
{
    placer_snapshot *redis = NULL, *s = NULL;
    for (int step = 0; step < 3; step++) {
        placer_builder *b = placer_builder_new();
        CHECK(b != NULL);
        if (!b)
            return;
        for (int i = 0; i < 3; i++) {
            char id[8];
            snprintf(id, sizeof id, "m%d", i);
            CHECK(placer_builder_add_node(b, id, NULL, 1) >= 0);
        }
        if (step != 1)
            CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_REDIS, NULL), 0);
        if (step == 0) {
            CHECK_EQ(placer_builder_build(b, 1, &redis), 0);
        } else {
            if (step == 1)
                CHECK_EQ(placer_builder_set_strategy(b, PLACER_PARTITIONS), 0);
            CHECK_EQ(placer_builder_set_previous(b, redis), 0);
            int rc = placer_builder_build(b, 2, &s);
            CHECK_EQ(rc, step == 1 ? PLACER_EINVAL : 0);
            if (step == 1)
                CHECK(strstr(placer_builder_error(b), "Redis") != NULL);
            else
                CHECK_EQ(placer_snapshot_compat(s), PLACER_COMPAT_REDIS);
            placer_snapshot_free(s);
            s = NULL;
        }
        placer_builder_free(b);
    }
    placer_snapshot_free(redis);
    CHECK(!strcmp(placer_key_hash_name(PLACER_HASH_COMPAT_FIRST - 1 + PLC_CH_REDIS_CRC16),
                  "redis-crc16"));
}

int main(void)
{
    make_keys();
    every_mode();
    refusals();
    names();
    previous_redis();
    return check_done("compat_api");
}
