/*
 * fuzz_router.c -- the router (engine/core/router.c) and bounded-load
 * lookups (engine/core/lookup_bounded.c) against the snapshot they serve.
 *
 * Two snapshots, A and B (B's epoch from the input: one below A's or
 * equal to it is stale), each built twice from the same membership: one
 * copy is published into the router, the twin is asked directly. Through the router, for each key:
 * the lookup, the batch (as placer_lookup_batch on the twin), the check (0 for the owner, PLACER_ENOTMINE for
 * another node), the partition check (partitions) and the bounded lookup
 * (rings; loads, their total and the factor c from the input, a loads
 * array shorter than the node count refused with PLACER_ERANGE) must give
 * the twin's answers, each with the epoch of the snapshot that answered,
 * also inside an acquire/release pair. A bounded owner must be under the
 * capacity ceil(c * (total + 1) / m) and be the usual owner when that one
 * is. Then B is published: a stale epoch is PLACER_ESTALE and leaves A
 * serving; a newer one serves B. After placer_router_barrier every
 * replaced snapshot has been reclaimed (placer_router_reclaimed).
 *
 * Input: strategy (1 byte), nodes of A and of B (1 each, then per node a
 * byte, and a state byte after it when it is a multiple of 4), B's epoch
 * (1), c (1: an index into a few
 * factors, NaN and values below 1 among them), nloads (1), the loads (1
 * byte each), then keys (a length byte, then the bytes).
 */
#define PLACER_STATIC_LINKING_ONLY
#include <math.h>

#include "fuzz.h"
#include "placer.h"

enum { MAX_NODES = 12, MAX_KEYS = 24 };

static const double factors[] = {1.0, 1.25, 2.0, 1e9, INFINITY, 0.5, NAN, 1.000001};

typedef struct membership {
    int strategy;
    unsigned nodes;
    uint8_t states[MAX_NODES];
} membership;

static void read_membership(fuzz_producer *p, membership *m, int strategy)
{
    m->strategy = strategy;
    m->nodes = 1 + fuzz_u8(p) % MAX_NODES;
    for (unsigned i = 0; i < m->nodes; i++)
        m->states[i] = fuzz_u8(p) % 4 == 0 ? (uint8_t)(fuzz_u8(p) % 4) : PLACER_NODE_ACTIVE;
}

static placer_snapshot *build(const membership *m, uint64_t epoch, int *err_out)
{
    placer_builder *b = placer_builder_new();
    FUZZ_ASSERT(b);
    FUZZ_ASSERT(placer_builder_set_strategy(b, m->strategy) == 0);
    if (m->strategy == PLACER_RING)
        placer_builder_set_vnodes(b, 8);
    if (m->strategy == PLACER_MAGLEV)
        placer_builder_set_partitions(b, 251);
    if (m->strategy == PLACER_PARTITIONS)
        placer_builder_set_partitions(b, 32);
    char id[16], zone[16];
    for (unsigned i = 0; i < m->nodes; i++) {
        snprintf(id, sizeof id, "n%u", i);
        snprintf(zone, sizeof zone, "z%u", i % 3);
        FUZZ_ASSERT(placer_builder_add_node(b, id, zone, 1.0) >= 0);
        FUZZ_ASSERT(placer_builder_set_state(b, i, m->states[i]) == 0);
    }
    placer_snapshot *s = NULL;
    *err_out = placer_builder_build(b, epoch, &s);
    placer_builder_free(b);
    FUZZ_ASSERT(*err_out <= 0 && !s == !!*err_out);
    return s;
}

typedef struct keys {
    const void *ptr[MAX_KEYS];
    size_t len[MAX_KEYS];
    size_t n;
} keys;

typedef struct loads {
    uint32_t v[MAX_NODES];
    uint32_t n;
    uint64_t total;
    double c;
} loads;

/* The capacity of placer_lookup_bounded's rule, from its documentation. */
static int under_capacity(const placer_snapshot *s, const loads *l, uint32_t node)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < placer_node_count(s); i++) {
        int st = placer_node_state(s, i);
        m += st == PLACER_NODE_ACTIVE || st == PLACER_NODE_DRAINING;
    }
    double c = l->c > 4294967296.0 ? 4294967296.0 : l->c;
    double cap = ceil(c * ((double)l->total + 1) / m);
    return (double)l->v[node] < cap;
}

/* Everything the router answers while `twin`'s copy serves. */
static void check_serving(placer_router *r, const placer_snapshot *twin, const keys *k,
                          const loads *l)
{
    uint64_t want_epoch = placer_snapshot_epoch(twin), epoch = 0;
    uint32_t nodes = placer_node_count(twin);
    FUZZ_ASSERT(placer_router_epoch(r) == want_epoch);
    uint32_t owners[MAX_KEYS], twin_owners[MAX_KEYS];
    int berr = placer_lookup_batch(twin, k->ptr, k->len, k->n, twin_owners);
    FUZZ_ASSERT(placer_router_lookup_batch(r, k->ptr, k->len, k->n, owners, &epoch) == berr);
    FUZZ_ASSERT(epoch == want_epoch);
    for (size_t i = 0; !berr && i < k->n; i++)
        FUZZ_ASSERT(owners[i] == twin_owners[i]);
    for (size_t i = 0; i < k->n; i++) {
        int want = placer_lookup(twin, k->ptr[i], k->len[i]);
        epoch = 0;
        FUZZ_ASSERT(placer_router_lookup(r, k->ptr[i], k->len[i], &epoch) == want);
        FUZZ_ASSERT(epoch == want_epoch);
        if (want < 0)
            continue;
        FUZZ_ASSERT(placer_router_check(r, (uint32_t)want, k->ptr[i], k->len[i], &epoch) == 0);
        uint32_t other = ((uint32_t)want + 1) % nodes;
        if (other != (uint32_t)want)
            FUZZ_ASSERT(placer_router_check(r, other, k->ptr[i], k->len[i], NULL) == PLACER_ENOTMINE);

        const placer_snapshot *held = placer_router_acquire(r);
        FUZZ_ASSERT(placer_snapshot_epoch(held) == want_epoch);
        FUZZ_ASSERT(placer_lookup(held, k->ptr[i], k->len[i]) == want);
        placer_router_release(r, held);

        uint32_t direct = UINT32_MAX, routed = UINT32_MAX;
        int derr = placer_lookup_bounded(twin, k->ptr[i], k->len[i], l->v, l->total, l->c, &direct);
        int rerr = placer_router_lookup_bounded(r, k->ptr[i], k->len[i], l->v, l->n, l->total, l->c,
                                                &routed, &epoch);
        FUZZ_ASSERT(epoch == want_epoch);
        if (l->n < nodes) {
            FUZZ_ASSERT(rerr == PLACER_ERANGE && routed == UINT32_MAX);
        } else {
            FUZZ_ASSERT(rerr == derr && routed == direct);
        }
        if (!(l->c >= 1)) { /* c is checked first */
            FUZZ_ASSERT(derr == PLACER_EINVAL);
        } else if (placer_snapshot_strategy(twin) != PLACER_RING) {
            FUZZ_ASSERT(derr == PLACER_ENOTSUP);
        } else if (derr == 0) {
            FUZZ_ASSERT(direct < nodes && under_capacity(twin, l, direct));
            int st = placer_node_state(twin, (uint32_t)want);
            if ((st == PLACER_NODE_ACTIVE || st == PLACER_NODE_DRAINING) && under_capacity(twin, l, (uint32_t)want))
                FUZZ_ASSERT(direct == (uint32_t)want);
        } else {
            FUZZ_ASSERT(derr == PLACER_EINVAL || derr == PLACER_ENOLIVE);
            FUZZ_ASSERT(direct == UINT32_MAX);
        }
    }
    if (placer_snapshot_strategy(twin) == PLACER_PARTITIONS) {
        for (uint32_t part = 0; part < 34; part++) { /* 32 partitions, two past the end */
            uint32_t owner, next;
            int err = placer_partition_owner(twin, part, &owner, &next);
            int got = placer_router_check_partition(r, err ? 0 : owner, part, &epoch);
            FUZZ_ASSERT(epoch == want_epoch);
            FUZZ_ASSERT(got == (err == PLACER_ENOLIVE ? PLACER_ENOTMINE : err));
        }
    }
}

/* One router for the whole run, as a server keeps one: each input
 * publishes into it, epochs rising from input to input. A router per input
 * spent most of an execution in liburcu's grace periods (its free waits
 * for them: 55 executions a second). */
static placer_router *router;
static uint64_t base_epoch;  /* this input's epochs are above it */
static uint64_t replaced;    /* snapshots the router has replaced */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    int strategy = PLACER_RING + fuzz_u8(&p) % 5;
    membership ma, mb;
    read_membership(&p, &ma, strategy);
    read_membership(&p, &mb, strategy);
    uint64_t step_b = 1 + fuzz_u8(&p) % 4; /* B at base + 1 or + 2: stale against A's + 2 */
    loads l = {.c = factors[fuzz_u8(&p) % (sizeof factors / sizeof factors[0])]};
    l.n = fuzz_u8(&p) % (MAX_NODES + 1);
    for (uint32_t i = 0; i < l.n; i++) {
        l.v[i] = fuzz_u8(&p);
        l.total += l.v[i];
    }
    l.total += fuzz_u8(&p) % 4; /* load on nodes the caller does not count */
    keys k = {.n = 0};
    while (p.size && k.n < MAX_KEYS) {
        k.ptr[k.n] = fuzz_bytes(&p, fuzz_u8(&p) % 24, &k.len[k.n]);
        k.n++;
    }

    base_epoch += 8;
    int err, twin_err;
    placer_snapshot *a = build(&ma, base_epoch + 2, &err), *a_twin = build(&ma, base_epoch + 2, &twin_err);
    FUZZ_ASSERT(err == twin_err);
    if (!a)
        return 0;
    if (!router) {
        router = placer_router_new(a);
        FUZZ_ASSERT(router);
    } else {
        FUZZ_ASSERT(placer_router_publish(router, a) == 0);
        replaced++;
    }
    check_serving(router, a_twin, &k, &l);

    placer_snapshot *b = build(&mb, base_epoch + step_b, &err), *b_twin = build(&mb, base_epoch + step_b, &twin_err);
    FUZZ_ASSERT(err == twin_err);
    if (b) {
        err = placer_router_publish(router, b);
        if (step_b <= 2) {
            FUZZ_ASSERT(err == PLACER_ESTALE);
            check_serving(router, a_twin, &k, &l);
        } else {
            FUZZ_ASSERT(err == 0);
            replaced++;
            check_serving(router, b_twin, &k, &l);
        }
    }
    FUZZ_ASSERT(placer_router_publish(router, NULL) == PLACER_ENULL);
    /* Every replaced snapshot is reclaimed once the grace periods are over:
     * waited for on one input in 256 (a checksum picks it; a wait lasts a
     * grace period). */
    if (placer_crc32(0, data, size) % 256 == 0) {
        placer_router_barrier();
        FUZZ_ASSERT(placer_router_reclaimed(router) == replaced);
    }
    placer_snapshot_free(a_twin);
    placer_snapshot_free(b_twin);
    return 0;
}
