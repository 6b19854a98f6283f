/*
 * bench_replicas.c -- replica sets on the seed ring (120 nodes in 3 zones x
 * 256 tokens), want = 3 and want = 5, beside the single lookup of the same
 * keys (lookup/30720/placer/single in bench_lookup.c): walked after the
 * lookup (no memory), and read from sets of 3 precomputed at build time
 * (placer_builder_set_replicas; 12 bytes per token, reported as a counter);
 * each also through placer_replicas_batch, 256 keys a call, in the same
 * process as its single calls.
 *
 * Cassandra's NetworkTopologyStrategy (RF 3, the zones as racks) on the
 * same shape of ring with Cassandra tokens (random signed tokens, the
 * cassandra-murmur3 key hash): placer's precomputed sets, single and batch,
 * beside a plain C reference that computes the server's rule per key
 * (token, binary search, walk), as a client without precomputed sets would,
 * and the single lookup of the same ring and keys; placer_vs_lookup and
 * placer/batch_vs_lookup pair a pass of each call with a lookup pass in
 * one process (over_lookup.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "benches.h"
#include "fixtures.h"
#include "over_lookup.h"
#include "shim.h"

typedef struct replica_case {
    uint32_t want, precomputed, batch;
} replica_case;

enum { BATCH = 256 };

static void bench_replicas(plc_bench *b, const void *arg)
{
    const replica_case *c = arg;
    const ring_fixture *f = bench_fixture(1);
    placer_snapshot *s = f->snap;
    if (c->precomputed) {
        placer_builder *bld = placer_builder_new();
        placer_builder_set_vnodes(bld, 256);
        placer_builder_set_replicas(bld, c->precomputed);
        char id[32], zone[16];
        for (unsigned n = 0; n < 120; n++) {
            snprintf(id, sizeof id, "node-%03u", n);
            snprintf(zone, sizeof zone, "zone-%u", n % 3);
            placer_builder_add_node(bld, id, zone, 1.0);
        }
        placer_builder_build(bld, 1, &s);
        placer_builder_free(bld);
        plc_bench_counter(b, "replica_bytes", (double)placer_snapshot_replica_bytes(s), 0);
    }
    uint32_t out[8];
    uint64_t acc = 0;
    if (c->batch) {
        static uint32_t sets[BATCH * 8], counts[BATCH];
        static size_t lens[BATCH];
        for (uint32_t i = 0; i < BATCH; i++)
            lens[i] = BENCH_KEY_LEN;
        while (plc_bench_keep_running(b, BENCH_KEYS))
            for (uint32_t i = 0; i + BATCH <= BENCH_KEYS; i += BATCH) {
                placer_replicas_batch(s, (const void *const *)f->key_ptrs + i, lens, BATCH,
                                      c->want, sets, counts);
                acc += sets[(counts[BATCH - 1] - 1) + (BATCH - 1) * c->want];
            }
    } else {
        while (plc_bench_keep_running(b, BENCH_KEYS))
            for (uint32_t i = 0; i < BENCH_KEYS; i++) {
                int n = placer_replicas(s, f->key_ptrs[i], BENCH_KEY_LEN, out, c->want);
                acc += out[n - 1];
            }
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    if (c->precomputed)
        placer_snapshot_free(s);
}

/* ---- Cassandra's NetworkTopologyStrategy ---- */

enum { CN = 120, CT = 256, CRF = 3 };

typedef struct ctok {
    int64_t token;
    uint32_t node;
} ctok;

static int by_ctoken(const void *a, const void *b)
{
    int64_t x = ((const ctok *)a)->token, y = ((const ctok *)b)->token;
    return x < y ? -1 : x > y;
}

static ctok cring[CN * CT];

/* The server's rule per key, plainly: the first token >= the key's, then
 * one walk taking hosts of new racks (node % 3) and at most RF - racks
 * repeats. */
static int reference_nts(const void *key, size_t len, uint32_t *out)
{
    int64_t t = 0;
    placer_cassandra_token(key, len, &t);
    size_t lo = 0, hi = CN * CT;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cring[mid].token < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    int count = 0, repeats = CRF - 3, racks_seen[3] = {0};
    for (size_t i = 0; i < CN * CT && count < CRF; i++) {
        uint32_t n = cring[(lo + i) % (CN * CT)].node;
        int dup = 0;
        for (int j = 0; j < count; j++)
            dup |= out[j] == n;
        if (dup)
            continue;
        if (racks_seen[n % 3]) {
            if (repeats <= 0)
                continue;
            repeats--;
        }
        racks_seen[n % 3] = 1;
        out[count++] = n;
    }
    return count;
}

/* One pass over the keys: 0 placer_replicas, 1 its batch, 2 the plain
 * reference, 3 placer_lookup. */
static uint64_t nts_pass(int mode, const placer_snapshot *s, const ring_fixture *f)
{
    uint32_t out[8];
    uint64_t acc = 0;
    if (mode == 1) {
        static uint32_t sets[BATCH * CRF], counts[BATCH];
        static size_t lens[BATCH];
        for (uint32_t i = 0; i < BATCH; i++)
            lens[i] = BENCH_KEY_LEN;
        for (uint32_t i = 0; i + BATCH <= BENCH_KEYS; i += BATCH) {
            placer_replicas_batch(s, (const void *const *)f->key_ptrs + i, lens, BATCH, CRF, sets,
                                  counts);
            acc += sets[(BATCH - 1) * CRF];
        }
    } else if (mode == 3) {
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += (uint64_t)placer_lookup(s, f->key_ptrs[i], BENCH_KEY_LEN);
    } else {
        for (uint32_t i = 0; i < BENCH_KEYS; i++) {
            int n = mode ? reference_nts(f->key_ptrs[i], BENCH_KEY_LEN, out)
                         : placer_replicas(s, f->key_ptrs[i], BENCH_KEY_LEN, out, CRF);
            acc += out[n - 1];
        }
    }
    return acc;
}

static void bench_cassandra(plc_bench *b, const void *arg)
{
    int mode = *(const int *)arg; /* nts_pass's, or 4 and 5: 0 and 1 paired with 3 */
    const ring_fixture *f = bench_fixture(1);
    placer_builder *bld = placer_builder_new();
    placer_builder_set_key_hash(bld, PLACER_HASH_CASSANDRA_MURMUR3);
    placer_builder_set_replication(bld, PLACER_REPLICATION_NETWORK_TOPOLOGY, CRF);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    char id[32], zone[16];
    for (uint32_t n = 0; n < CN; n++) {
        snprintf(id, sizeof id, "10.0.%u.%u", n % 3, n);
        snprintf(zone, sizeof zone, "rack%u", n % 3);
        placer_builder_add_node(bld, id, zone, 1.0);
        for (uint32_t v = 0; v < CT; v++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            cring[n * CT + v] = (ctok){(int64_t)x, n};
            placer_builder_add_token(bld, n, x ^ (UINT64_C(1) << 63));
        }
    }
    qsort(cring, CN * CT, sizeof *cring, by_ctoken);
    placer_snapshot *s = NULL;
    placer_builder_build(bld, 1, &s);
    placer_builder_free(bld);
    if (mode >= 4)
        bench_over_lookup(b, s, f, mode - 4, 3, nts_pass);
    else
        while (plc_bench_keep_running(b, BENCH_KEYS))
            plc_bench_keep(nts_pass(mode, s, f));
    plc_bench_set_items(b, plc_bench_iterations(b));
    placer_snapshot_free(s);
}

void register_replica_benches(void)
{
    static const int modes[] = {0, 1, 2, 3, 4, 5};
    plc_bench_register("replicas/cassandra_nts_3/30720/placer", bench_cassandra, &modes[0]);
    plc_bench_register("replicas/cassandra_nts_3/30720/placer/batch", bench_cassandra, &modes[1]);
    plc_bench_register("replicas/cassandra_nts_3/30720/plain_reference", bench_cassandra,
                       &modes[2]);
    plc_bench_register("replicas/cassandra_nts_3/30720/lookup", bench_cassandra, &modes[3]);
    plc_bench_register("replicas/cassandra_nts_3/30720/placer_vs_lookup", bench_cassandra,
                       &modes[4]);
    plc_bench_register("replicas/cassandra_nts_3/30720/placer/batch_vs_lookup", bench_cassandra,
                       &modes[5]);
    static const replica_case cases[] = {{3, 0, 0}, {5, 0, 0}, {3, 3, 0},
                                         {3, 0, 1}, {5, 0, 1}, {3, 3, 1}};
    plc_bench_register("replicas/30720/want_3", bench_replicas, &cases[0]);
    plc_bench_register("replicas/30720/want_5", bench_replicas, &cases[1]);
    plc_bench_register("replicas/30720/want_3/precomputed_3", bench_replicas, &cases[2]);
    plc_bench_register("replicas/30720/want_3/batch", bench_replicas, &cases[3]);
    plc_bench_register("replicas/30720/want_5/batch", bench_replicas, &cases[4]);
    plc_bench_register("replicas/30720/want_3/precomputed_3/batch", bench_replicas, &cases[5]);
}
