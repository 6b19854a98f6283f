/*
 * bench_clientlibs.c -- the client libraries' placements in C, on the
 * same keys as every compat/ row (BENCH_KEYS keys of 32 bytes):
 *
 *   compat/groupcache/100_peers/50_replicas/batch    consistenthash.New(50)
 *   compat/uhashring/100_nodes/batch                 HashRing, its defaults
 *   compat/uhashring_ketama/100_nodes/batch          hash_fn="ketama"
 *   compat/pymemcache/{10,100}_servers/batch         RendezvousHash
 *
 * The libraries themselves (Go, Python) cannot run in this process: their
 * loops on the same kind of keys are bench/clientlibs_peers.py's rows.
 *
 * Then the public path on snapshots of the same rings built with
 * placer_builder_set_compat, over a stream of 262,144 distinct 32-byte
 * keys (bench_session_keys: 8 MiB, past the caches), items are lookups:
 *
 *   compat/groupcache/100_peers/50_replicas/placer/single  placer_lookup
 *   compat/groupcache/100_peers/50_replicas/placer/batch   placer_lookup_batch,
 *                                                          1,024 keys a call
 *   compat/uhashring/100_nodes/placer/{single,batch}
 *   compat/uhashring_ketama/100_nodes/placer/{single,batch}
 *   compat/pymemcache/{10,100}_servers/placer/{single,batch}
 *
 * Before its first pass a row checks every key's answer, single and
 * batched, against the layout's batch above (skipped, with the reason,
 * when one differs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "benches.h"
#include "compat_groupcache.h"
#include "compat_pymemcache.h"
#include "compat_uhashring.h"
#include "fixtures.h"
#include "shim.h"

#define MAX_NODES 100

typedef struct lib_case {
    const char *name;
    int lib; /* 0 groupcache, 1 uhashring, 2 uhashring ketama, 3 pymemcache */
    uint32_t nodes;
    int built;
    plc_compat_layout l;
    unsigned char *rest;
    plc_pymemcache_node pm[MAX_NODES];
} lib_case;

static lib_case cases[] = {
    {"compat/groupcache/100_peers/50_replicas/batch", 0, 100, 0, {0}, NULL, {{0}}},
    {"compat/uhashring/100_nodes/batch", 1, 100, 0, {0}, NULL, {{0}}},
    {"compat/uhashring_ketama/100_nodes/batch", 2, 100, 0, {0}, NULL, {{0}}},
    {"compat/pymemcache/10_servers/batch", 3, 10, 0, {0}, NULL, {{0}}},
    {"compat/pymemcache/100_servers/batch", 3, 100, 0, {0}, NULL, {{0}}},
};

static char names[MAX_NODES][48];
static plc_compat_node nodes[MAX_NODES];

/* The nodes of a case: groupcache's peers are URLs, the others
 * host:port. */
static void names_for(const lib_case *c)
{
    for (uint32_t i = 0; i < c->nodes; i++) {
        int n = snprintf(names[i], sizeof names[i],
                         c->lib == 0 ? "http://10.0.0.%u:8000" : "10.0.0.%u:11211", i + 1);
        nodes[i] = (plc_compat_node){names[i], (size_t)n, names[i], (size_t)n, 1, 0, 0};
    }
}

static int build(lib_case *c)
{
    names_for(c);
    plc_compat_config cfg = {.nnodes = c->nodes, .nodes = nodes};
    if (c->lib == 3)
        return plc_compat_pymemcache_nodes(&cfg, c->pm);
    plc_uhashring_params u = {c->lib == 2, 0, 0, NULL};
    uint64_t need = (uint64_t)c->nodes * 50;
    if (c->lib && plc_compat_uhashring_size(&cfg, &u, &need))
        return -1;
    plc_compat_points a = {plc_calloc(2 * need, sizeof(plc_sort_entry)), 0, (uint32_t)need};
    c->rest = plc_calloc(need, PLC_UHASHRING_REST);
    c->l.points = plc_calloc(need, sizeof(uint32_t));
    c->l.owners = plc_calloc(need, sizeof(uint32_t));
    if (!a.v || !c->rest || !c->l.points || !c->l.owners)
        return -1;
    int rc = c->lib == 0 ? plc_compat_groupcache_ring(&cfg, 50, &a)
                         : plc_compat_uhashring_ring(&cfg, &u, &a, c->lib == 1 ? c->rest : NULL);
    for (uint32_t i = 0; i < a.n; i++) {
        c->l.points[i] = (uint32_t)a.v[i].token;
        c->l.owners[i] = a.v[i].owner;
    }
    c->l.kind = PLC_CL_RING;
    c->l.nnodes = c->nodes;
    c->l.n = a.n;
    plc_free(a.v);
    return rc;
}

static void bench_lib(plc_bench *b, const void *arg)
{
    lib_case *c = (lib_case *)arg;
    if (!c->built) {
        if (build(c)) {
            plc_bench_skip(b, "build failed");
            return;
        }
        c->built = 1;
    }
    const ring_fixture *f = bench_fixture(1);
    static uint32_t owners[BENCH_KEYS];
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, BENCH_KEYS)) {
        if (c->lib == 0)
            plc_compat_groupcache_lookup_batch(&c->l, f->key_ptrs, f->key_lens, BENCH_KEYS, owners);
        else if (c->lib == 3)
            plc_compat_pymemcache_pick_batch(c->pm, c->nodes, f->key_ptrs, f->key_lens, BENCH_KEYS,
                                             owners);
        else
            plc_compat_uhashring_lookup_batch(&c->l, c->lib == 1 ? c->rest : NULL, f->key_ptrs,
                                              f->key_lens, BENCH_KEYS, owners);
        acc += owners[acc % BENCH_KEYS];
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    char label[32];
    if (c->lib != 3) {
        snprintf(label, sizeof label, "%u points", c->l.n);
        plc_bench_label(b, label);
    }
}

/* ---- the public path ---- */

#define STREAM_KEYS 262144u
#define CALL 1024u

typedef struct pub_case {
    const char *name;
    lib_case *ring; /* the layout of the same nodes: the answers to match */
    int batch;
    placer_snapshot *snap;
    int state; /* 0: not built, 1: checked, -1: failed (why) */
    const char *why;
} pub_case;

static pub_case pub_cases[] = {
    {"compat/groupcache/100_peers/50_replicas/placer/single", &cases[0], 0, NULL, 0, NULL},
    {"compat/groupcache/100_peers/50_replicas/placer/batch", &cases[0], 1, NULL, 0, NULL},
    {"compat/uhashring/100_nodes/placer/single", &cases[1], 0, NULL, 0, NULL},
    {"compat/uhashring/100_nodes/placer/batch", &cases[1], 1, NULL, 0, NULL},
    {"compat/uhashring_ketama/100_nodes/placer/single", &cases[2], 0, NULL, 0, NULL},
    {"compat/uhashring_ketama/100_nodes/placer/batch", &cases[2], 1, NULL, 0, NULL},
    {"compat/pymemcache/10_servers/placer/single", &cases[3], 0, NULL, 0, NULL},
    {"compat/pymemcache/10_servers/placer/batch", &cases[3], 1, NULL, 0, NULL},
    {"compat/pymemcache/100_servers/placer/single", &cases[4], 0, NULL, 0, NULL},
    {"compat/pymemcache/100_servers/placer/batch", &cases[4], 1, NULL, 0, NULL},
};

static unsigned char *stream_bytes;
static const void **stream_ptrs;
static size_t *stream_lens;

/* The ring (pymemcache: the servers) of c->ring's nodes through the
 * builder: groupcache and pymemcache hash each node's address, uhashring
 * its name. */
static placer_snapshot *pub_snapshot(const lib_case *r)
{
    placer_builder *b = placer_builder_new();
    placer_compat_options o = {.size = sizeof o, .distribution = r->lib == 2 ? "ketama" : NULL};
    int program = r->lib == 0   ? PLACER_COMPAT_GROUPCACHE
                  : r->lib == 3 ? PLACER_COMPAT_PYMEMCACHE
                                : PLACER_COMPAT_UHASHRING;
    int err = !b || placer_builder_set_compat(b, program, &o);
    if (!err && r->lib == 0)
        err = placer_builder_set_compat_param(b, "replicas", 50);
    for (uint32_t i = 0; i < r->nodes && !err; i++) {
        err = placer_builder_add_node(b, names[i], NULL, 1) < 0;
        if (!err && (r->lib == 0 || r->lib == 3))
            err = placer_builder_set_address(b, i, names[i]);
    }
    placer_snapshot *s = NULL;
    if (!err && placer_builder_build(b, 1, &s))
        s = NULL;
    placer_builder_free(b);
    return s;
}

/* Every stream key's owner, single and batched, as the layout's batch. */
static const char *pub_check(pub_case *c)
{
    lib_case *r = c->ring;
    if (!r->built && build(r))
        return "the layout's build failed";
    r->built = 1;
    if (!(c->snap = pub_snapshot(r)))
        return "the snapshot's build failed";
    static uint32_t want[STREAM_KEYS], got[STREAM_KEYS];
    if (r->lib == 0)
        plc_compat_groupcache_lookup_batch(&r->l, stream_ptrs, stream_lens, STREAM_KEYS, want);
    else if (r->lib == 3)
        plc_compat_pymemcache_pick_batch(r->pm, r->nodes, stream_ptrs, stream_lens, STREAM_KEYS,
                                         want);
    else
        plc_compat_uhashring_lookup_batch(&r->l, r->lib == 1 ? r->rest : NULL, stream_ptrs,
                                          stream_lens, STREAM_KEYS, want);
    if (placer_lookup_batch(c->snap, stream_ptrs, stream_lens, STREAM_KEYS, got))
        return "placer_lookup_batch failed";
    for (uint32_t i = 0; i < STREAM_KEYS; i++)
        if (got[i] != want[i] || placer_lookup(c->snap, stream_ptrs[i], 32) != (int)want[i])
            return "an answer differs from the layout's";
    return NULL;
}

static void bench_pub(plc_bench *b, const void *arg)
{
    pub_case *c = (pub_case *)arg;
    if (!stream_bytes)
        bench_session_keys(STREAM_KEYS, &stream_bytes, &stream_ptrs, &stream_lens);
    if (!c->state) {
        names_for(c->ring);
        c->why = pub_check(c);
        c->state = c->why ? -1 : 1;
    }
    if (c->state < 0) {
        plc_bench_skip(b, c->why);
        return;
    }
    static uint32_t owners[CALL];
    uint64_t acc = 0;
    if (c->batch) {
        while (plc_bench_keep_running(b, STREAM_KEYS))
            for (uint32_t at = 0; at < STREAM_KEYS; at += CALL) {
                placer_lookup_batch(c->snap, stream_ptrs + at, stream_lens + at, CALL, owners);
                acc += owners[acc % CALL];
            }
    } else {
        while (plc_bench_keep_running(b, STREAM_KEYS))
            for (uint32_t i = 0; i < STREAM_KEYS; i++)
                acc += (uint64_t)placer_lookup(c->snap, stream_ptrs[i], 32);
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
}

void register_clientlib_benches(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        plc_bench_register(cases[i].name, bench_lib, &cases[i]);
    for (size_t i = 0; i < sizeof pub_cases / sizeof pub_cases[0]; i++)
        plc_bench_register(pub_cases[i].name, bench_pub, &pub_cases[i]);
}
