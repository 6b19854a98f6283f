/*
 * compat_clientlibs_place.c -- the placer side of
 * tests/compat_clientlibs.py: read a client library's configuration and
 * keys on stdin, print each key's owner (node index, in declaration order)
 * on stdout. Each owner comes from the engine's kernels (the ring each
 * library builds, searched by plc_compat_slot; pymemcache's scores), the same
 * from the batch kernels, and is also checked against the plain reference (clientlibs_reference.c): a
 * difference is an error, exit 1.
 *
 *   program groupcache | uhashring | uhashring-ketama | pymemcache
 *   replicas N                      (groupcache; uhashring-ketama)
 *   vnodes N                        (uhashring: HashRing's vnodes=; optional)
 *   node HEX-NAME WEIGHT VNODES     (one a line; VNODES 0: the default)
 *   keys
 *   HEX-ENCODED KEY                 (one a line; "-" for the empty key)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "clientlibs_reference.h"
#include "compat_groupcache.h"
#include "compat_pymemcache.h"
#include "compat_uhashring.h"
#include "placer.h"

#define MAX_NODES 256
#define MAX_KEY 4096
#define MAX_KEYS 100000

static int unhex(const char *s, unsigned char *out, size_t cap, size_t *len)
{
    size_t n = strcspn(s, "\r\n");
    if (n == 1 && s[0] == '-') {
        *len = 0;
        return 0;
    }
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    *len = n / 2;
    return 0;
}

typedef struct ring {
    uint32_t n, *points, *owners;
    unsigned char *rest;
} ring;

static int make_ring(const char *program, const plc_compat_config *c, uint32_t replicas,
                     const plc_uhashring_params *u, ring *r)
{
    uint64_t need;
    int rc, groupcache = !strcmp(program, "groupcache");
    if (groupcache)
        need = (uint64_t)c->nnodes * replicas;
    else if ((rc = plc_compat_uhashring_size(c, u, &need)))
        return rc;
    if (need == 0 || need > PLACER_MAX_COMPAT_POINTS)
        return PLACER_ETOOMANY;
    plc_compat_points a = {plc_calloc(2 * need, sizeof(plc_sort_entry)), 0, (uint32_t)need};
    r->rest = plc_calloc(need, PLC_UHASHRING_REST);
    r->points = plc_calloc(need, sizeof *r->points);
    r->owners = plc_calloc(need, sizeof *r->owners);
    if (!a.v || !r->rest || !r->points || !r->owners)
        return PLACER_ENOMEM;
    rc = groupcache ? plc_compat_groupcache_ring(c, replicas, &a)
                    : plc_compat_uhashring_ring(c, u, &a, u->ketama ? NULL : r->rest);
    for (uint32_t i = 0; !rc && i < a.n; i++) {
        r->points[i] = (uint32_t)a.v[i].token;
        r->owners[i] = a.v[i].owner;
    }
    r->n = a.n;
    plc_free(a.v);
    return rc;
}

int main(void)
{
    static char line[2 * MAX_KEY + 64];
    static unsigned char names[MAX_NODES][256], key[MAX_KEY];
    static plc_compat_node nodes[MAX_NODES];
    static ref_lib_node refs[MAX_NODES];
    static uint32_t node_vnodes[MAX_NODES];
    static plc_pymemcache_node pm[MAX_NODES];
    char program[32] = "";
    uint32_t replicas = 0, vnodes = 0, n = 0;
    while (fgets(line, sizeof line, stdin) && strncmp(line, "keys", 4)) {
        char hex[600];
        unsigned w, v;
        if (sscanf(line, "program %31s", program) == 1 || sscanf(line, "replicas %u", &replicas) == 1 ||
            sscanf(line, "vnodes %u", &vnodes) == 1)
            continue;
        size_t len;
        if (sscanf(line, "node %599s %u %u", hex, &w, &v) != 3 || n == MAX_NODES ||
            unhex(hex, names[n], sizeof names[n], &len)) {
            fprintf(stderr, "compat_clientlibs_place: bad line: %s", line);
            return 2;
        }
        nodes[n] = (plc_compat_node){(const char *)names[n], len, (const char *)names[n], len, w, 0,
                                     0};
        refs[n] = (ref_lib_node){(const char *)names[n], len, w, v};
        node_vnodes[n++] = v;
    }
    plc_compat_config c = {.nnodes = n, .nodes = nodes};
    plc_uhashring_params u = {!strcmp(program, "uhashring-ketama"), vnodes, replicas, node_vnodes};
    int pymemcache = !strcmp(program, "pymemcache"), rc;
    ring r = {0};
    ref_ring *ref = NULL;
    if (pymemcache)
        rc = plc_compat_pymemcache_nodes(&c, pm);
    else if (!strcmp(program, "groupcache") || !strncmp(program, "uhashring", 9)) {
        rc = make_ring(program, &c, replicas, &u, &r);
        ref = !strcmp(program, "groupcache")
                  ? ref_ring_groupcache(refs, n, replicas)
                  : ref_ring_uhashring(refs, n, u.ketama, vnodes, replicas ? replicas : 4);
    }
    else
        rc = PLACER_EINVAL;
    if (rc) {
        fprintf(stderr, "compat_clientlibs_place: %s: %s\n", program, placer_strerror(rc));
        return 2;
    }
    /* every key first, for the batch kernels */
    static unsigned char *kp[MAX_KEYS];
    static size_t kl[MAX_KEYS];
    static uint32_t batch[MAX_KEYS];
    size_t count = 0;
    while (fgets(line, sizeof line, stdin)) {
        size_t len;
        if (count == MAX_KEYS || unhex(line, key, sizeof key, &len) ||
            !(kp[count] = malloc(len ? len : 1))) {
            fprintf(stderr, "compat_clientlibs_place: bad key line or too many keys\n");
            return 2;
        }
        memcpy(kp[count], key, len);
        kl[count++] = len;
    }
    plc_compat_layout l = {.kind = PLC_CL_RING, .nnodes = n, .n = r.n, .points = r.points,
                           .owners = r.owners};
    const void *const *keys = (const void *const *)kp;
    if (pymemcache)
        plc_compat_pymemcache_pick_batch(pm, n, keys, kl, count, batch);
    else if (!strcmp(program, "groupcache"))
        plc_compat_groupcache_lookup_batch(&l, keys, kl, count, batch);
    else
        plc_compat_uhashring_lookup_batch(&l, u.ketama ? NULL : r.rest, keys, kl, count, batch);
    unsigned long bad = 0;
    for (size_t k = 0; k < count; k++) {
        const unsigned char *kk = kp[k];
        size_t len = kl[k];
        uint32_t got, want;
        if (pymemcache) {
            got = plc_compat_pymemcache_pick(pm, n, kk, len);
            want = ref_pymemcache_owner(refs, n, kk, len);
        } else if (!strcmp(program, "groupcache")) {
            got = r.owners[plc_compat_slot(&l, plc_compat_groupcache_key_hash(kk, len))];
            want = ref_ring_owner(ref, kk, len);
        } else if (u.ketama) {
            got = r.owners[plc_compat_slot(&l, plc_compat_uhashring_ketama_key(kk, len))];
            want = ref_ring_owner(ref, kk, len);
        } else {
            unsigned char d[16];
            plc_compat_uhashring_meta_key(kk, len, d);
            uint32_t i = plc_compat_slot(&l, plc_compat_uhashring_top(d));
            got = r.owners[plc_compat_uhashring_meta_slot(r.points, r.rest, r.n, i, d)];
            want = ref_ring_owner(ref, kk, len);
        }
        if ((got != want || got != batch[k]) && bad++ < 5) {
            fprintf(stderr, "compat_clientlibs_place: %s: key ", program);
            for (size_t j = 0; j < len; j++)
                fprintf(stderr, "%02x", kk[j]);
            fprintf(stderr, ": kernel %u, batch %u, reference %u\n", got, batch[k], want);
        }
        printf("%u\n", got);
        free(kp[k]);
    }
    plc_free(r.points);
    plc_free(r.owners);
    plc_free(r.rest);
    ref_ring_free(ref);
    return bad ? 1 : 0;
}
