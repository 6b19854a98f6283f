/*
 * fuzz_clientlibs.c -- differential: the client libraries' kernels
 * (engine/compat/compat_groupcache.c, compat_uhashring.c,
 * compat_pymemcache.c), each key single and in a batch, against the plain
 * references of tests/clientlibs_reference.c, on fuzzer-chosen node names
 * (any bytes), weights, vnodes, replicas and keys (any bytes: UTF-8 or
 * not, short and past pymemcache's 512-byte chunk). A configuration a
 * kernel refuses must be one of its documented refusals (PLACER_EINVAL).
 */
#include <string.h>

#include "alloc.h"
#include "clientlibs_reference.h"
#include "compat_groupcache.h"
#include "compat_pymemcache.h"
#include "compat_uhashring.h"
#include "fuzz.h"
#include "placer.h"

#define MAX_NODES 6
#define MAX_KEYS 16

static uint32_t ring_owner(const plc_compat_layout *l, const unsigned char *rest, int lib,
                           const uint8_t *k, size_t len)
{
    if (lib == 0)
        return l->owners[plc_compat_slot(l, plc_compat_groupcache_key_hash(k, len))];
    if (lib == 2)
        return l->owners[plc_compat_slot(l, plc_compat_uhashring_ketama_key(k, len))];
    unsigned char d[16];
    plc_compat_uhashring_meta_key(k, len, d);
    uint32_t s = plc_compat_slot(l, plc_compat_uhashring_top(d));
    return l->owners[plc_compat_uhashring_meta_slot(l->points, rest, l->n, s, d)];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    int lib = fuzz_u8(&p) % 4; /* groupcache, uhashring, ketama, pymemcache */
    uint32_t n = 1u + fuzz_u8(&p) % MAX_NODES, replicas = 1u + fuzz_u8(&p) % 4u;
    uint32_t vnodes = fuzz_u8(&p) % 8u, node_vnodes[MAX_NODES];
    plc_compat_node nodes[MAX_NODES];
    ref_lib_node refs[MAX_NODES];
    for (uint32_t i = 0; i < n; i++) {
        size_t len;
        const char *name = (const char *)fuzz_bytes(&p, fuzz_u8(&p) % 10u, &len);
        uint32_t w = 1u + fuzz_u8(&p) % 4u;
        node_vnodes[i] = fuzz_u8(&p) % 4u;
        nodes[i] = (plc_compat_node){name, len, name, len, w, 0, 0};
        refs[i] = (ref_lib_node){name, len, w, node_vnodes[i]};
    }
    const void *keys[MAX_KEYS];
    size_t lens[MAX_KEYS], count = 0;
    while (count < MAX_KEYS && p.size) {
        uint32_t want = fuzz_u8(&p);
        if (want >= 250)
            want = 500u + fuzz_u16(&p) % 700u; /* past one chunk */
        keys[count] = fuzz_bytes(&p, want % 1200u, &lens[count]);
        count++;
    }
    plc_compat_config c = {.nnodes = n, .nodes = nodes};
    uint32_t batch[MAX_KEYS];
    if (lib == 3) {
        plc_pymemcache_node pm[MAX_NODES];
        int rc = plc_compat_pymemcache_nodes(&c, pm);
        if (rc) {
            FUZZ_ASSERT(rc == PLACER_EINVAL);
            return 0;
        }
        plc_compat_pymemcache_pick_batch(pm, n, keys, lens, count, batch);
        for (size_t i = 0; i < count; i++) {
            uint32_t want = ref_pymemcache_owner(refs, n, keys[i], lens[i]);
            FUZZ_ASSERT(plc_compat_pymemcache_pick(pm, n, keys[i], lens[i]) == want);
            FUZZ_ASSERT(batch[i] == want);
        }
        return 0;
    }
    plc_uhashring_params u = {lib == 2, vnodes, replicas, node_vnodes};
    uint64_t need = (uint64_t)n * replicas;
    if (lib) {
        int rc = plc_compat_uhashring_size(&c, &u, &need);
        if (rc) {
            FUZZ_ASSERT(rc == PLACER_EINVAL);
            return 0;
        }
    }
    plc_compat_points a = {plc_calloc(2 * need + 2, sizeof(plc_sort_entry)), 0, (uint32_t)need};
    unsigned char *rest = plc_calloc(need + 1, PLC_UHASHRING_REST);
    uint32_t *points = plc_calloc(need + 1, sizeof *points), *owners = plc_calloc(need + 1, sizeof *owners);
    FUZZ_ASSERT(a.v && rest && points && owners);
    int rc = lib == 0 ? plc_compat_groupcache_ring(&c, replicas, &a)
                      : plc_compat_uhashring_ring(&c, &u, &a, lib == 1 ? rest : NULL);
    if (rc)
        FUZZ_ASSERT(rc == PLACER_EINVAL);
    else if (a.n) {
        for (uint32_t i = 0; i < a.n; i++) {
            points[i] = (uint32_t)a.v[i].token;
            owners[i] = a.v[i].owner;
            FUZZ_ASSERT(!i || points[i - 1] <= points[i]);
        }
        plc_compat_layout l = {.kind = PLC_CL_RING, .nnodes = n, .n = a.n, .points = points,
                               .owners = owners};
        ref_ring *ref = lib == 0 ? ref_ring_groupcache(refs, n, replicas)
                                 : ref_ring_uhashring(refs, n, lib == 2, vnodes, replicas);
        if (lib == 0)
            plc_compat_groupcache_lookup_batch(&l, keys, lens, count, batch);
        else
            plc_compat_uhashring_lookup_batch(&l, lib == 1 ? rest : NULL, keys, lens, count, batch);
        for (size_t i = 0; i < count; i++) {
            uint32_t want = ref_ring_owner(ref, keys[i], lens[i]);
            FUZZ_ASSERT(ring_owner(&l, rest, lib, keys[i], lens[i]) == want);
            FUZZ_ASSERT(batch[i] == want);
        }
        ref_ring_free(ref);
    }
    plc_free(a.v);
    plc_free(rest);
    plc_free(points);
    plc_free(owners);
    return 0;
}
