/*
 * bench_compat.c -- the compatibility modes beside what they replace, in
 * one process, on the same keys (BENCH_KEYS keys of 32 bytes):
 *
 *   compat/libmemcached_weighted/100_servers/{libmemcached,placer/single,
 *   placer/batch}: memcached_generate_hash() against placer's layout with
 *   the multi-buffer MD5 (AVX-512's 32 lanes where the CPU has them, else
 *   AVX2's 16; .../batch_no_avx512 forces AVX2) and the directory (the
 *   issue's goals: 8x with AVX2, 15x with AVX-512);
 *   compat/<mode>/100_servers/batch against compat/native_ring/.../batch,
 *   placer's native ring with about as many tokens (goal: within 1.5x),
 *   for every key hash of twemproxy and haproxy; .../hash_only: the key
 *   hash alone, what a mode adds to the search.
 *
 * Servers: 100, weights 1 and 2 alternating (libmemcached: 127.0.0.1:20000+i).
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "compat_index.h"
#include "fixtures.h"
#include "peers.h"
#include "shim.h"

#define SERVERS 100

static char ids[SERVERS][32], addrs[SERVERS][32];
static plc_compat_node nodes[SERVERS];

typedef struct compat_case {
    const char *name;
    int program, distribution, key_hash;
    int batch; /* 0: one key at a time, 1: lookup batch, 2: hash batch only */
    unsigned mask; /* 0: every CPU feature; else the CPU mask the index is built under */
    plc_compat_index x;
    int built;
} compat_case;

static compat_case cases[] = {
    {"compat/libmemcached_weighted/100_servers/placer/single", PLACER_COMPAT_LIBMEMCACHED, 0, 0, 0, .built = 0},
    {"compat/libmemcached_weighted/100_servers/placer/batch", PLACER_COMPAT_LIBMEMCACHED, 0, 0, 1, .built = 0},
    /* the AVX2 kernel on a machine with AVX-512 (the row above takes the
     * best the CPU has: the label says which) */
    {"compat/libmemcached_weighted/100_servers/placer/batch_no_avx512", PLACER_COMPAT_LIBMEMCACHED, 0, 0, 1,
     .mask = ~PLACER_CPU_AVX512, .built = 0},
    {"compat/twemproxy_fnv1a_64/100_servers/batch", PLACER_COMPAT_TWEMPROXY, 0, 0, 1, .built = 0},
    {"compat/nginx/100_servers/batch", PLACER_COMPAT_NGINX, 0, 0, 1, .built = 0},
    {"compat/haproxy_sdbm/100_servers/batch", PLACER_COMPAT_HAPROXY, 0, 0, 1, .built = 0},
    {"compat/redis/100_masters/batch", PLACER_COMPAT_REDIS, 0, 0, 1, .built = 0},
    /* The other key hashes of twemproxy and haproxy (ketama / consistent). */
    {"compat/twemproxy_one_at_a_time/100_servers/batch", PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_ONE_AT_A_TIME, 1, .built = 0},
    {"compat/twemproxy_crc16/100_servers/batch", PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_CRC16, 1, .built = 0},
    {"compat/twemproxy_crc32/100_servers/batch", PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_CRC32, 1, .built = 0},
    {"compat/twemproxy_crc32a/100_servers/batch", PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_CRC32A, 1, .built = 0},
    {"compat/twemproxy_fnv1_64/100_servers/batch", PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_FNV1_64, 1, .built = 0},
    {"compat/twemproxy_fnv1_32/100_servers/batch", PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_FNV1_32, 1, .built = 0},
    {"compat/twemproxy_fnv1a_32/100_servers/batch", PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_FNV1A_32, 1, .built = 0},
    {"compat/twemproxy_hsieh/100_servers/batch", PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_HSIEH, 1, .built = 0},
    {"compat/twemproxy_murmur/100_servers/batch", PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_MURMUR, 1, .built = 0},
    {"compat/twemproxy_jenkins/100_servers/batch", PLACER_COMPAT_TWEMPROXY, PLC_CD_KETAMA, PLC_CH_JENKINS, 1, .built = 0},
    {"compat/haproxy_djb2/100_servers/batch", PLACER_COMPAT_HAPROXY, PLC_CD_CONSISTENT, PLC_CH_HAP_DJB2, 1, .built = 0},
    {"compat/haproxy_wt6/100_servers/batch", PLACER_COMPAT_HAPROXY, PLC_CD_CONSISTENT, PLC_CH_HAP_WT6, 1, .built = 0},
    {"compat/haproxy_wt6/100_servers/batch_no_avx512", PLACER_COMPAT_HAPROXY, PLC_CD_CONSISTENT, PLC_CH_HAP_WT6, 1,
     .mask = ~PLACER_CPU_AVX512, .built = 0},
    {"compat/haproxy_crc32/100_servers/batch", PLACER_COMPAT_HAPROXY, PLC_CD_CONSISTENT, PLC_CH_HAP_CRC32, 1, .built = 0},
    /* The key hash alone (what each lookup above adds to the search). */
    {"compat/libmemcached_weighted/100_servers/hash_only", PLACER_COMPAT_LIBMEMCACHED, 0, 0, 2, .built = 0},
    {"compat/libmemcached_weighted/100_servers/hash_only_no_avx512", PLACER_COMPAT_LIBMEMCACHED, 0, 0, 2,
     .mask = ~PLACER_CPU_AVX512, .built = 0},
    {"compat/twemproxy_fnv1a_64/100_servers/hash_only", PLACER_COMPAT_TWEMPROXY, 0, 0, 2, .built = 0},
    {"compat/nginx/100_servers/hash_only", PLACER_COMPAT_NGINX, 0, 0, 2, .built = 0},
    {"compat/haproxy_sdbm/100_servers/hash_only", PLACER_COMPAT_HAPROXY, 0, 0, 2, .built = 0},
    {"compat/redis/100_masters/hash_only", PLACER_COMPAT_REDIS, 0, 0, 2, .built = 0},
};

static void fill_nodes(void)
{
    for (int i = 0; i < SERVERS; i++) {
        snprintf(ids[i], sizeof ids[i], "cache-%d", i);
        snprintf(addrs[i], sizeof addrs[i], "127.0.0.1:%d", 20000 + i);
        nodes[i] = (plc_compat_node){ids[i], strlen(ids[i]), addrs[i], strlen(addrs[i]),
                                     (uint32_t)(1 + i % 2), 0, 0};
    }
}

static void bench_case(plc_bench *b, const void *arg)
{
    compat_case *c = (compat_case *)arg;
    if (!c->built) {
        fill_nodes();
        plc_compat_config cfg = {c->program, c->distribution, c->key_hash, 0, {0, 0}, SERVERS, nodes, NULL, 0, {0}};
        if (c->mask)
            placer_set_cpu_mask(c->mask); /* the index picks its kernels when built */
        int rc = plc_compat_index_build(&c->x, &cfg);
        placer_set_cpu_mask(~0u);
        if (rc != 0) {
            plc_bench_skip(b, "layout build failed");
            return;
        }
        c->built = 1;
    }
    const ring_fixture *f = bench_fixture(1);
    static uint32_t owners[BENCH_KEYS];
    uint64_t acc = 0;
    if (c->batch == 2) {
        while (plc_bench_keep_running(b, BENCH_KEYS)) {
            plc_compat_index_hash_batch(&c->x, f->key_ptrs, f->key_lens, BENCH_KEYS, owners);
            acc += owners[acc % BENCH_KEYS];
        }
    } else if (c->batch) {
        while (plc_bench_keep_running(b, BENCH_KEYS)) {
            plc_compat_index_lookup_batch(&c->x, f->key_ptrs, f->key_lens, BENCH_KEYS, owners);
            acc += owners[acc % BENCH_KEYS];
        }
    } else {
        while (plc_bench_keep_running(b, BENCH_KEYS))
            for (uint32_t i = 0; i < BENCH_KEYS; i++)
                acc += plc_compat_index_lookup(&c->x, f->key_ptrs[i], f->key_lens[i]);
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    char label[64];
    snprintf(label, sizeof label, "%u %s%s", c->x.layout.n,
             c->x.layout.kind == PLC_CL_RING ? "points" : "slots",
             !c->x.md5_kernel ? "" : c->x.md5_lanes == 32 ? ", MD5 x32 avx512" : ", MD5 x16 avx2");
    plc_bench_label(b, label);
}

static void *weighted;

static void bench_libmemcached(plc_bench *b, const void *arg)
{
    (void)arg;
    if (!weighted)
        weighted = peer_libmemcached_weighted_new(SERVERS);
    if (!weighted) {
        plc_bench_skip(b, "placer_bench was built without libmemcached-dev");
        return;
    }
    const ring_fixture *f = bench_fixture(1);
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS))
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += peer_libmemcached_hash(weighted, (const char *)f->key_ptrs[i], BENCH_KEY_LEN);
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
}

/* placer's native ring of 100 nodes with `tokens` tokens in all. */
typedef struct native_case {
    const char *name;
    uint32_t tokens;
    placer_snapshot *snap;
} native_case;

static native_case natives[] = {
    {"compat/native_ring/100_nodes/3200_tokens/batch", 3200, NULL},
    {"compat/native_ring/100_nodes/16000_tokens/batch", 16000, NULL},
    {"compat/native_ring/100_nodes/24000_tokens/batch", 24000, NULL},
};

static void bench_native(plc_bench *b, const void *arg)
{
    native_case *c = (native_case *)arg;
    if (!c->snap) {
        placer_builder *bd = placer_builder_new();
        placer_builder_set_vnodes(bd, c->tokens / SERVERS);
        for (int i = 0; i < SERVERS; i++) {
            char id[32];
            snprintf(id, sizeof id, "cache-%d", i);
            placer_builder_add_node(bd, id, NULL, 1.0);
        }
        if (placer_builder_build(bd, 1, &c->snap) != 0) {
            placer_builder_free(bd);
            plc_bench_skip(b, "build failed");
            return;
        }
        placer_builder_free(bd);
    }
    const ring_fixture *f = bench_fixture(1);
    static uint32_t owners[BENCH_KEYS];
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS)) {
        placer_lookup_batch(c->snap, f->key_ptrs, f->key_lens, BENCH_KEYS, owners);
        acc += owners[acc % BENCH_KEYS];
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
}

void register_compat_benches(void)
{
    plc_bench_register("compat/libmemcached_weighted/100_servers/libmemcached", bench_libmemcached, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        plc_bench_register(cases[i].name, bench_case, &cases[i]);
    for (size_t i = 0; i < sizeof natives / sizeof natives[0]; i++)
        plc_bench_register(natives[i].name, bench_native, &natives[i]);
}
