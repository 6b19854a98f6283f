/*
 * test_compat_index.c -- the fast paths of the compatibility modes against
 * their plain forms, with every CPU feature and with none:
 *   - the eight-lane AVX2 MD5 against Nettle on every length 0..300, lanes
 *     of mixed lengths in one batch;
 *   - S+ tree lookups (single and batched) of every mode against the plain
 *     lower_bound of engine/compat_lookup.c;
 *   - configurations each program refuses are refused, with the code.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isa.h"
#include "compat_index.h"
#include "compat_program.h"
#include "kernels.h"
#include "placer.h"
#include "radix_sort.h"

static unsigned char bytes[4096];

static void test_md5_batches(void)
{
    plc_compat_node nodes[3] = {{NULL, 0, "a:1", 3, 1, 0, 0}, {NULL, 0, "b:2", 3, 2, 0, 0},
                                {NULL, 0, "c:3", 3, 1, 0, 0}};
    plc_compat_config c = {.program = PLACER_COMPAT_LIBMEMCACHED, .nnodes = 3, .nodes = nodes};
    plc_compat_index x;
    CHECK_EQ(plc_compat_index_build(&x, &c), 0);
    /* The batches below run the AVX2 kernel wherever this build and CPU
     * have it (its search kernels say so), and Nettle otherwise. */
    const char *sk = placer_kernel_name(PLACER_KERNEL_SEARCH);
    int avx2 = (placer_cpu_features() & PLACER_CPU_AVX2) &&
               (strstr(sk, "avx2") != NULL || strstr(sk, "avx512") != NULL);
    CHECK_EQ(x.md5_kernel != NULL, avx2);
    /* AVX-512's 32 lanes where the CPU (and mask) has it and the kernel
     * was built (its search kernel is then avx512) */
    int avx512 = avx2 && (placer_cpu_features() & PLACER_CPU_AVX512) && strstr(sk, "avx512") != NULL;
    if (avx2)
        CHECK_EQ(x.md5_lanes, avx512 ? 32u : 16u);
    uint64_t st = 3;
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)check_rand(&st);
    /* Every length 0..300 at several offsets, in batches whose lanes mix
     * lengths across block counts (1, 2, 3, 4 blocks and too long). */
    enum { N = 301 * 3 };
    static const void *keys[N];
    static size_t lens[N];
    static uint32_t got[N];
    for (size_t i = 0; i < N; i++) {
        lens[i] = (i * 37) % 301;
        keys[i] = bytes + (i * 13) % 1000;
    }
    plc_compat_index_hash_batch(&x, keys, lens, N, got);
    int bad = 0;
    for (size_t i = 0; i < N; i++)
        if (got[i] != plc_hash_md5(keys[i], lens[i]) && !bad++)
            fprintf(stderr, "md5 batch differs at length %zu\n", lens[i]);
    CHECK_ALL(bad == 0, "MD5 batch vs Nettle, lengths 0..300");
    /* Batches of one length (the kernel reads such keys in place, without
     * a padded copy): 32 keys and a group of 3, every length 0..300. */
    enum { U = 35 };
    int ubad = 0;
    for (size_t len = 0; len <= 300; len++) {
        const void *uk[U];
        size_t ul[U];
        uint32_t uh[U];
        for (size_t i = 0; i < U; i++) {
            uk[i] = bytes + (len * 11 + i * 29) % 3000;
            ul[i] = len;
        }
        plc_compat_index_hash_batch(&x, uk, ul, U, uh);
        for (size_t i = 0; i < U; i++)
            if (uh[i] != plc_hash_md5(uk[i], len) && !ubad++)
                fprintf(stderr, "md5 batch of one length differs at length %zu\n", len);
    }
    CHECK_ALL(ubad == 0, "MD5 batches of one length vs Nettle, lengths 0..300");
    plc_compat_index_free(&x);
}

/* The lockstep forms against the one-key hashes, every length 0..300,
 * four keys of different lengths at a time. */
static void test_x4(void)
{
    int covered = 0;
    for (int id = 1; id < PLC_CH_COUNT_; id++) {
        plc_compat_hash_x4_fn x4 = plc_compat_hash_x4(id);
        if (!x4)
            continue;
        covered++;
        plc_compat_hash_fn one = plc_compat_hash_function(id);
        int bad = 0;
        for (size_t len = 0; len <= 300; len++) {
            const unsigned char *k[4] = {bytes + len, bytes + 7, bytes + 2 * len, bytes + 1000};
            size_t lens[4] = {len, (len * 7) % 301, 300 - len, len / 2};
            uint32_t out[4];
            x4(k, lens, out);
            for (int j = 0; j < 4; j++)
                if (out[j] != one(k[j], lens[j]) && !bad++)
                    fprintf(stderr, "hash %d: lockstep differs at length %zu\n", id, lens[j]);
        }
        CHECK_ALL(bad == 0, "lockstep hash vs one-key hash");
    }
    CHECK_EQ(covered, 10);
}

/* The SIMD kernels against the one-key hashes: every length they take
 * (16..256), runs of PLC_BYTEHASH_LANES keys and of 5 (spare lanes), keys at
 * odd offsets; 1 when all agree. */
static int wide_agrees(plc_bytehash_fn wide, plc_compat_hash_fn one, size_t stride)
{
    int bad = 0;
    for (size_t len = PLC_BYTEHASH_MIN_LEN; len <= PLC_BYTEHASH_MAX_LEN; len++)
        for (size_t n = 5; n <= PLC_BYTEHASH_LANES; n += PLC_BYTEHASH_LANES - 5) {
            const void *k[PLC_BYTEHASH_LANES];
            uint32_t out[PLC_BYTEHASH_LANES];
            for (size_t i = 0; i < n; i++)
                k[i] = bytes + (len * 3 + i * stride) % 3000;
            wide(k, len, n, out);
            for (size_t i = 0; i < n; i++)
                if (out[i] != one(k[i], len) && !bad++)
                    fprintf(stderr, "byte hash kernel differs at length %zu\n", len);
        }
    return bad == 0;
}

/* The lockstep byte-hash kernel this level dispatches (none below AVX2),
 * every byte hash against its one-key form; at AVX-512, wt6 has its own
 * kernel and the others keep AVX2's. */
static void test_bytehash(void)
{
    static const int pairs[][2] = {
        {PLC_BH_SDBM, PLC_CH_HAP_SDBM},      {PLC_BH_DJB2, PLC_CH_HAP_DJB2},
        {PLC_BH_FNV1A_32, PLC_CH_FNV1A_32},  {PLC_BH_FNV1_32, PLC_CH_FNV1_32},
        {PLC_BH_FNV1A_64_32, PLC_CH_FNV1A_64}, {PLC_BH_OAAT, PLC_CH_ONE_AT_A_TIME},
        {PLC_BH_MURMUR, PLC_CH_MURMUR},      {PLC_BH_JENKINS, PLC_CH_JENKINS},
        {PLC_BH_FNV1_64, PLC_CH_FNV1_64},    {PLC_BH_WT6, PLC_CH_HAP_WT6},
        {PLC_BH_HSIEH, PLC_CH_HSIEH},
    };
    const plc_kernels *k = plc_kernels_get();
    CHECK_EQ(k->bytehash != NULL, (placer_cpu_features() & PLACER_CPU_AVX2) != 0);
    if (!k->bytehash)
        return;
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        plc_bytehash_fn wide = k->bytehash(pairs[p][0]);
        CHECK(wide != NULL);
        if (wide)
            CHECK_ALL(wide_agrees(wide, plc_compat_hash_function(pairs[p][1]), 101),
                      k->bytehash_name);
    }
    CHECK(k->bytehash(0) == NULL);
}

/* Plain bit-at-a-time CRCs, the references for the folding kernels. */
static uint32_t bitwise_crc32(const unsigned char *p, size_t len)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++)
            c = c & 1u ? (c >> 1) ^ 0xedb88320u : c >> 1;
    }
    return ~c;
}

static uint32_t bitwise_crc16_xmodem(const unsigned char *p, size_t len)
{
    uint32_t c = 0;
    for (size_t i = 0; i < len; i++) {
        c ^= (uint32_t)p[i] << 8;
        for (int b = 0; b < 8; b++)
            c = c & 0x8000u ? ((c << 1) ^ 0x1021u) & 0xffffu : (c << 1) & 0xffffu;
    }
    return c;
}

/* The carry-less multiplication batches against the bitwise CRCs (and the
 * table forms the modes use), every length 0..300 (CRC16: from 16). */
static void test_crc_batches(void)
{
    CHECK_EQ(bitwise_crc32((const unsigned char *)"123456789", 9), 0xcbf43926u);
    CHECK_EQ(bitwise_crc16_xmodem((const unsigned char *)"123456789", 9), 0x31c3u);
    const plc_kernels *kt = plc_kernels_get();
    unsigned need = PLACER_CPU_PCLMUL | PLACER_CPU_SSE42;
    CHECK_EQ(kt->crc32_batch != NULL, (placer_cpu_features() & need) == need);
    if (!kt->crc32_batch)
        return;
    int bad32 = 0, bad16 = 0;
    for (size_t len = 0; len <= 300; len++) {
        enum { K = 7 };
        const void *k[K];
        size_t l[K];
        uint32_t out[K];
        for (size_t i = 0; i < K; i++) {
            k[i] = bytes + (len * 5 + i * 211) % 3000;
            l[i] = len;
        }
        kt->crc32_batch(k, l, K, out);
        for (size_t i = 0; i < K; i++)
            if ((out[i] != bitwise_crc32(k[i], len) || out[i] != plc_hash_crc32_ieee(k[i], len)) &&
                !bad32++)
                fprintf(stderr, "crc32 batch differs at length %zu\n", len);
        if (len < PLC_CRC16_CLMUL_MIN_LEN)
            continue;
        /* stop: a byte of the first key, at a different place each length */
        int stop = ((const unsigned char *)k[0])[(len * 7 + 3) % len];
        kt->crc16_batch(k, l, K, stop, out);
        for (size_t i = 0; i < K; i++) {
            int ok = memchr(k[i], stop, len) ? out[i] == PLC_CRC_SKIPPED
                                             : out[i] == bitwise_crc16_xmodem(k[i], len) &&
                                                   out[i] == plc_hash_redis_crc16(k[i], len);
            if (!ok && !bad16++)
                fprintf(stderr, "crc16 batch differs at length %zu\n", len);
        }
    }
    CHECK_ALL(bad32 == 0, "CRC-32 folding batch vs bitwise CRC-32, lengths 0..300");
    CHECK_ALL(bad16 == 0, "CRC16 folding batch vs bitwise CRC16-XMODEM, lengths 16..300");
}

typedef struct cfg {
    int program, distribution, key_hash, avalanche;
    const char *tag;
} cfg;

/* uniform: every key of one length (runs the batch kernels that want
 * that), else lengths 0..69. */
static void compare_all(const cfg *cf, uint32_t nnodes, uint64_t seed, int uniform)
{
    static char ids[16][16], addrs[16][32];
    plc_compat_node nodes[16];
    uint64_t st = seed;
    /* weights 1 .. 3 where the program takes weights */
    uint32_t weights = plc_compat_program_get(cf->program)->max_weight ? 3 : 1;
    for (uint32_t i = 0; i < nnodes; i++) {
        snprintf(ids[i], sizeof ids[i], "srv%u", (unsigned)(check_rand(&st) % 1000));
        snprintf(ids[i] + strlen(ids[i]), sizeof ids[i] - strlen(ids[i]), "-%u", i);
        snprintf(addrs[i], sizeof addrs[i], "10.0.0.%u:%u", i, i % 2 ? 11211u : 11300u + i);
        nodes[i] = (plc_compat_node){ids[i], strlen(ids[i]), addrs[i], strlen(addrs[i]),
                                     1u + (uint32_t)(check_rand(&st) % weights),
                                     i % 3 ? 0 : 10 + i, 0};
    }
    plc_compat_config c = {cf->program, cf->distribution, cf->key_hash, cf->avalanche, {0, 0},
                           nnodes, nodes, NULL, 0, {0}};
    if (cf->tag)
        memcpy(c.hash_tag, cf->tag, 2);
    plc_compat_index x;
    int rc = plc_compat_index_build(&x, &c);
    if (rc)
        fprintf(stderr, "program %d dist %d hash %d avalanche %d: build %d\n", cf->program,
                cf->distribution, cf->key_hash, cf->avalanche, rc);
    CHECK_EQ(rc, 0);
    if (rc)
        return;
    enum { N = 2000 };
    static const void *keys[N];
    static size_t lens[N];
    static uint32_t owners[N];
    size_t one_len = 16 + check_rand(&st) % 60;
    for (size_t i = 0; i < N; i++) {
        lens[i] = uniform ? one_len : check_rand(&st) % 70;
        keys[i] = bytes + check_rand(&st) % 3000;
    }
    /* Braces in some keys: Redis and twemproxy tags are cut first. */
    for (size_t i = 0; i < N; i += 7)
        if (lens[i] > 4)
            memcpy((unsigned char *)keys[i] + 1, i % 2 ? "{a}" : "{}", 3);
    plc_compat_index_lookup_batch(&x, keys, lens, N, owners);
    int bad = 0;
    for (size_t i = 0; i < N; i++) {
        uint32_t want = plc_compat_lookup(&x.layout, keys[i], lens[i]);
        if ((owners[i] != want || plc_compat_index_lookup(&x, keys[i], lens[i]) != want) && !bad++)
            fprintf(stderr, "program %d dist %d hash %d: key %zu: %u, want %u\n", cf->program,
                    x.layout.distribution, x.layout.key_hash, i, owners[i], want);
    }
    CHECK_ALL(bad == 0, "index lookups vs the plain search");
    /* the positions too: the batch's key hashes are the program's */
    static uint32_t hashes[N];
    plc_compat_index_hash_batch(&x, keys, lens, N, hashes);
    int hbad = 0;
    for (size_t i = 0; i < N; i++) {
        uint32_t want = plc_compat_key_hash(&x.layout, keys[i], lens[i]);
        if (hashes[i] != want && !hbad++)
            fprintf(stderr, "program %d dist %d hash %d: key %zu: hash %u, want %u\n", cf->program,
                    x.layout.distribution, x.layout.key_hash, i, hashes[i], want);
    }
    CHECK_ALL(hbad == 0, "index key hashes vs the program's key_hash");
    plc_compat_index_free(&x);
}

static void test_modes(void)
{
    static const cfg cfgs[] = {
        {PLACER_COMPAT_LIBMEMCACHED, 0, 0, 0, NULL},
        {PLACER_COMPAT_LIBMEMCACHED, PLC_CD_KETAMA, PLC_CH_FNV1A_32, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, 0, 0, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_MD5, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_MD5, 0, "{}"},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_MODULA, PLC_CH_CRC16, 0, NULL},
        {PLACER_COMPAT_NGINX, 0, 0, 0, NULL},
        {PLACER_COMPAT_NGINX, PLC_CD_HASH, 0, 0, NULL},
        {PLACER_COMPAT_HAPROXY, 0, 0, 0, NULL},
        {PLACER_COMPAT_HAPROXY, PLC_CD_CONSISTENT, PLC_CH_HAP_WT6, 1, NULL},
        {PLACER_COMPAT_HAPROXY, PLC_CD_MAP_BASED, PLC_CH_HAP_DJB2, 0, NULL},
        {PLACER_COMPAT_HAPROXY, PLC_CD_CONSISTENT, PLC_CH_HAP_SDBM, 1, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_ONE_AT_A_TIME, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_MODULA, PLC_CH_FNV1_64, 0, NULL},
        {PLACER_COMPAT_REDIS, 0, 0, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_CRC32, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_CRC16, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_CRC32A, 0, NULL},
        {PLACER_COMPAT_LIBMEMCACHED, PLC_CD_KETAMA, PLC_CH_CRC32, 0, NULL},
        {PLACER_COMPAT_HAPROXY, PLC_CD_CONSISTENT, PLC_CH_HAP_CRC32, 1, NULL},
        {PLACER_COMPAT_HAPROXY, PLC_CD_MAP_BASED, PLC_CH_HAP_CRC32, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_FNV1A_64, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_FNV1_32, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_MURMUR, 0, NULL},
        {PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_HSIEH, 0, NULL},
        {PLACER_COMPAT_LIBMEMCACHED, PLC_CD_KETAMA, PLC_CH_JENKINS, 0, NULL},
        {PLACER_COMPAT_LIBMEMCACHED, PLC_CD_KETAMA, PLC_CH_FNV1A_32, 0, NULL},
        {PLACER_COMPAT_LIBMEMCACHED, PLC_CD_KETAMA, PLC_CH_ONE_AT_A_TIME, 0, NULL},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
        for (uint32_t n = 1; n <= 9; n += 4)
            for (int uniform = 0; uniform < 2; uniform++)
                compare_all(&cfgs[i], n, 100 * i + n, uniform);
}

/* Every program of the registry with a layout: each distribution with its
 * default key hash, each key hash with the default distribution (with and
 * without avalanche, and a hash tag, where the program takes them), so a
 * program added later is held to its key_hash without a line here. */
static void test_every_program(void)
{
    int programs = 0;
    for (const plc_compat_program *p = plc_compat_program_next(NULL); p;
         p = plc_compat_program_next(p)) {
        if (p->partitions_check)
            continue; /* partitions snapshots: no layout */
        programs++;
        cfg c = {p->id, 0, 0, 0, NULL};
        for (size_t v = 0; v < p->ndistributions + p->nhashes; v++) {
            c.distribution = v < p->ndistributions ? p->distributions[v].id : 0;
            c.key_hash = v < p->ndistributions ? 0 : p->hashes[v - p->ndistributions].id;
            for (int opt = 0; opt < 3; opt++) {
                c.avalanche = opt == 1;
                c.tag = opt == 2 ? "{}" : NULL;
                if ((opt == 1 && !(p->fields & PLC_CF_AVALANCHE)) ||
                    (opt == 2 && !(p->fields & PLC_CF_HASH_TAG)))
                    continue;
                for (uint32_t n = 1; n <= 9; n += 4)
                    for (int uniform = 0; uniform < 2; uniform++)
                        compare_all(&c, n, 1000u * (unsigned)p->id + 10u * v + n, uniform);
            }
        }
    }
    CHECK(programs >= 8);
}

static void test_refusals(void)
{
    plc_compat_node ok[2] = {{"a", 1, "h:1", 3, 1, 0, 0}, {"b", 1, "h:2", 3, 1, 0, 0}};
    plc_compat_node dup[2] = {{"a", 1, "h:1", 3, 1, 5, 0}, {"a", 1, "h:2", 3, 1, 5, 0}};
    plc_compat_node noport[1] = {{"a", 1, "host", 4, 1, 0, 0}};
    plc_compat_node heavy[1] = {{"a", 1, "h:1", 3, 257, 0, 0}};
    plc_compat_node zero[1] = {{"a", 1, "h:1", 3, 0, 0, 0}};
    char longname[120];
    memset(longname, 'n', sizeof longname);
    plc_compat_node longid[1] = {{longname, 83, "h:1", 3, 1, 0, 0}};
    plc_compat_layout l;
#define REFUSE(prog, dist, hash, nodes, n, want)                                               \
    do {                                                                                       \
        plc_compat_config c_ = {prog, dist, hash, 0, {0, 0}, n, nodes, NULL, 0, {0}};          \
        CHECK_EQ(plc_compat_layout_build(&c_, &l), want);                                      \
        plc_compat_layout_free(&l);                                                            \
    } while (0)
    REFUSE(PLACER_COMPAT_TWEMPROXY, 0, 0, dup, 2, PLACER_EINVAL);       /* same name */
    REFUSE(PLACER_COMPAT_HAPROXY, 0, 0, dup, 2, PLACER_EINVAL);         /* same id */
    REFUSE(PLACER_COMPAT_LIBMEMCACHED, 0, 0, noport, 1, PLACER_EINVAL); /* host:port */
    REFUSE(PLACER_COMPAT_HAPROXY, 0, 0, heavy, 1, PLACER_EINVAL);       /* weight 1..256 */
    REFUSE(PLACER_COMPAT_NGINX, 0, 0, zero, 1, PLACER_EINVAL);
    REFUSE(PLACER_COMPAT_TWEMPROXY, 0, 0, longid, 1, PLACER_EINVAL);    /* KETAMA_MAX_HOSTLEN */
    REFUSE(PLACER_COMPAT_LIBMEMCACHED, 0, PLC_CH_HSIEH, ok, 2, PLACER_EINVAL);
    REFUSE(PLACER_COMPAT_LIBMEMCACHED, PLC_CD_MODULA, 0, ok, 2, PLACER_EINVAL);
    REFUSE(PLACER_COMPAT_NGINX, 0, PLC_CH_MD5, ok, 2, PLACER_EINVAL);
    REFUSE(PLACER_COMPAT_REDIS, PLC_CD_KETAMA, 0, ok, 2, PLACER_EINVAL);
    REFUSE(99, 0, 0, ok, 2, PLACER_EINVAL);
    REFUSE(PLACER_COMPAT_NGINX, 0, 0, ok, 0, PLACER_ENONODES);
    /* A twemproxy name of 80 bytes still fits "name-39" in 86 bytes. */
    longid[0].id_len = 80;
    REFUSE(PLACER_COMPAT_TWEMPROXY, 0, 0, longid, 1, 0);
    /* 84: "name-0" is 86 bytes; but a server whose weight rounds to no
     * point never has its name formatted, so a longer one is not refused. */
    longid[0].id_len = 84;
    REFUSE(PLACER_COMPAT_TWEMPROXY, 0, 0, longid, 1, PLACER_EINVAL);
    plc_compat_node light[2] = {{longname, 119, "h:1", 3, 1, 0, 0}, {"b", 1, "h:2", 3, 1000, 0, 0}};
    REFUSE(PLACER_COMPAT_TWEMPROXY, 0, 0, light, 2, 0);
    plc_compat_layout_free(&l);
    /* Names: each program's own spelling only. */
    CHECK_EQ(plc_compat_hash_id(PLACER_COMPAT_LIBMEMCACHED, "crc"), PLC_CH_CRC32);
    CHECK_EQ(plc_compat_hash_id(PLACER_COMPAT_LIBMEMCACHED, "crc32"), 0);
    CHECK_EQ(plc_compat_hash_id(PLACER_COMPAT_TWEMPROXY, "crc32"), PLC_CH_CRC32);
    CHECK_EQ(plc_compat_hash_id(PLACER_COMPAT_TWEMPROXY, "murmur3"), 0);
    CHECK_EQ(plc_compat_hash_id(PLACER_COMPAT_HAPROXY, "crc32"), PLC_CH_HAP_CRC32);
    CHECK(plc_compat_hash_name(PLACER_COMPAT_LIBMEMCACHED, PLC_CH_ONE_AT_A_TIME) != NULL);
}

/* The points' sort (shared with the native ring): stable by token, the
 * owner and seq carried along, for 32-bit tokens (four digits), 64-bit
 * ones, a first token of 32 bits before wider ones, and many ties; on
 * either side of the insertion sort's threshold. */
static void test_radix_sort(void)
{
    enum { N = 3000 };
    static plc_sort_entry e[N], tmp[N], want[N];
    static const uint32_t sizes[] = {0, 1, 2, 3, 47, 48, 49, 64, N};
    uint64_t st = 11;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int shape = 0; shape < 4; shape++) {
            uint32_t n = sizes[z];
            for (uint32_t i = 0; i < n; i++) {
                uint64_t r = check_rand(&st);
                uint64_t t = shape == 0   ? r & 0xffffffffu
                             : shape == 1 ? r
                             : shape == 2 ? (i == 0 ? 5u : r)
                                          : r % 7u << (i % 2 ? 0 : 40);
                e[i] = (plc_sort_entry){t, (uint32_t)(r >> 7), i};
            }
            /* the want: a stable insertion sort */
            for (uint32_t i = 0; i < n; i++) {
                uint32_t j = i;
                while (j > 0 && want[j - 1].token > e[i].token) {
                    want[j] = want[j - 1];
                    j--;
                }
                want[j] = e[i];
            }
            plc_sort_entry *got = plc_radix_sort(e, tmp, n);
            CHECK(got == e || got == tmp);
            int same = 1;
            for (uint32_t i = 0; i < n; i++)
                same &= got[i].token == want[i].token && got[i].owner == want[i].owner &&
                        got[i].seq == want[i].seq;
            CHECK_ALL(same, "the radix sort is a stable sort");
        }
}

/* A Redis partitions snapshot's slot hash: only the key hash, no table,
 * the same slot as a full layout's. */
static void test_hash_only(void)
{
    plc_compat_config c = {PLACER_COMPAT_REDIS, 0, 0, 0, {0, 0}, 3, NULL, NULL, 0, {0}};
    plc_compat_index x;
    CHECK_EQ(plc_compat_index_hash_only(&x, &c), 0);
    CHECK(x.layout.owners == NULL && x.layout.points == NULL && x.layout.n == 0);
    CHECK_EQ(x.layout.key_hash, PLC_CH_REDIS_CRC16);
    const void *keys[3] = {"{user}:1", "a-key-long-enough-for-the-kernel", ""};
    size_t lens[3] = {8, 32, 0};
    uint32_t h[3];
    plc_compat_index_hash_batch(&x, keys, lens, 3, h);
    CHECK_EQ(h[0], plc_hash_redis_crc16("user", 4) % 16384u); /* the {tag} */
    for (int i = 1; i < 3; i++)
        CHECK_EQ(h[i], plc_hash_redis_crc16(keys[i], lens[i]) % 16384u);
    CHECK_EQ(plc_compat_key_hash(&x.layout, "{user}:2", 8), plc_hash_redis_crc16("user", 4) % 16384u);
    plc_compat_index_free(&x);
    c.key_hash = PLC_CH_MD5; /* not Redis' */
    CHECK_EQ(plc_compat_index_hash_only(&x, &c), PLACER_EINVAL);
    c.nnodes = 0;
    CHECK_EQ(plc_compat_index_hash_only(&x, &c), PLACER_ENONODES);
}

static void at_level(void *ctx, const cpu_level *level)
{
    (void)ctx;
    (void)level;
    test_md5_batches();
    test_bytehash();
    test_crc_batches();
    test_modes();
    test_every_program();
}

/* The registry's lines in id order, one an id, as plc_compat_program_get
 * expects: line i is PLACER_COMPAT_* i + 1, and every id placer names has
 * its line (the ids are the public ones; nothing else ties them). */
static void test_registry_order(void)
{
    int i = 0;
    for (const plc_compat_program *p = plc_compat_program_next(NULL); p;
         p = plc_compat_program_next(p)) {
        i++;
        CHECK_EQ(p->id, i);
        CHECK(plc_compat_program_get(i) == p);
        CHECK(placer_compat_name(i) && !strcmp(placer_compat_name(i), p->name));
    }
    CHECK(i >= PLACER_COMPAT_PYMEMCACHE);
    CHECK(placer_compat_name(i + 1) == NULL);
    CHECK(plc_compat_program_get(i + 1) == NULL);
}

int main(void)
{
    test_registry_order();
    /* Every kernel family of the compatibility modes at every CPU level the
     * machine has (MD5 32 or 16 lanes or Nettle, byte hashes in lanes or
     * lockstep, CRC batches or one key at a time), then what has none. */
    CHECK(for_each_cpu_level(at_level, NULL) >= 1);
    test_x4();
    test_refusals();
    test_radix_sort();
    test_hash_only();
    return check_done("compat_index");
}
