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

static int build(lib_case *c)
{
    for (uint32_t i = 0; i < c->nodes; i++) {
        int n = snprintf(names[i], sizeof names[i],
                         c->lib == 0 ? "http://10.0.0.%u:8000" : "10.0.0.%u:11211", i + 1);
        nodes[i] = (plc_compat_node){names[i], (size_t)n, names[i], (size_t)n, 1, 0};
    }
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

void register_clientlib_benches(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        plc_bench_register(cases[i].name, bench_lib, &cases[i]);
}
