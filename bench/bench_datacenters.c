/*
 * bench_datacenters.c -- Cassandra's NetworkTopologyStrategy across two
 * datacenters: {dc1: 3, dc2: 2} on 120 nodes (60 a datacenter, 3 racks
 * each) x 256 random Cassandra tokens, the cassandra-murmur3 key hash.
 * placer's precomputed sets (5 nodes a key), single and batch (256 keys a
 * call), beside the single lookup of the same ring and keys (the owner
 * only: the bound the replica read is held to) and a plain C reference
 * that computes the server's rule per key (token, binary search, one walk
 * filling each datacenter), as a client without precomputed sets would.
 * The DataStax Python driver's TokenMap.get_replicas loop on the same
 * shape is bench/cassandra_driver_peer.py's row. placer_vs_lookup and
 * placer/batch_vs_lookup alternate a pass of the single (or batch) call
 * with a pass of the lookup in one process (bench_over_lookup): counter
 * over_lookup is the median of the pairs' ratios. Before timing, the
 * reference and placer must agree on the first 4,096 keys (skipped with
 * the reason otherwise).
 */
#include <stdio.h>
#include <stdlib.h>

#include "benches.h"
#include "fixtures.h"
#include "over_lookup.h"
#include "shim.h"

enum { DN = 120, DT = 256, DRACKS = 3, DSET = 5, DBATCH = 256, DCHECK = 4096 };

typedef struct dtok {
    int64_t token;
    uint32_t node;
} dtok;

static int by_dtoken(const void *a, const void *b)
{
    int64_t x = ((const dtok *)a)->token, y = ((const dtok *)b)->token;
    return x < y ? -1 : x > y;
}

static dtok dring[DN * DT];
static const int dc_rf[2] = {3, 2};

/* node n: datacenter n % 2, rack (n / 2) % 3 */
static int dc_of(uint32_t n)
{
    return (int)(n % 2);
}

static int rack_of(uint32_t n)
{
    return (int)(n / 2 % DRACKS);
}

/* The server's rule per key, plainly: the first token >= the key's, then
 * one walk; per datacenter, hosts of new racks and at most RF - racks
 * repeats, until RF (each datacenter has 60 hosts and 3 racks). */
static int reference_dcs(const void *key, size_t len, uint32_t *out)
{
    int64_t t = 0;
    placer_cassandra_token(key, len, &t);
    size_t lo = 0, hi = DN * DT;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (dring[mid].token < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    int count = 0, left[2] = {dc_rf[0], dc_rf[1]};
    int repeats[2] = {dc_rf[0] - DRACKS, dc_rf[1] - DRACKS}, rack_seen[2][DRACKS] = {{0}};
    for (size_t i = 0; i < DN * DT && (left[0] || left[1]); i++) {
        uint32_t n = dring[(lo + i) % (DN * DT)].node;
        int d = dc_of(n), r = rack_of(n), dup = 0;
        if (!left[d])
            continue;
        for (int j = 0; j < count; j++)
            dup |= out[j] == n;
        if (dup)
            continue;
        if (rack_seen[d][r]) {
            if (repeats[d] <= 0)
                continue;
            repeats[d]--;
        }
        rack_seen[d][r] = 1;
        left[d]--;
        out[count++] = n;
    }
    return count;
}

static placer_snapshot *two_datacenters(void)
{
    placer_builder *bld = placer_builder_new();
    placer_builder_set_key_hash(bld, PLACER_HASH_CASSANDRA_MURMUR3);
    placer_builder_set_datacenter_replication(bld, "dc1", (uint32_t)dc_rf[0]);
    placer_builder_set_datacenter_replication(bld, "dc2", (uint32_t)dc_rf[1]);
    uint64_t x = 0x2545f4914f6cdd1dull;
    char id[32], zone[16], dc[8];
    for (uint32_t n = 0; n < DN; n++) {
        snprintf(id, sizeof id, "10.%d.%d.%u", dc_of(n), rack_of(n), n);
        snprintf(zone, sizeof zone, "rack%d", rack_of(n));
        snprintf(dc, sizeof dc, "dc%d", dc_of(n) + 1);
        placer_builder_add_node(bld, id, zone, 1.0);
        placer_builder_set_datacenter(bld, n, dc);
        for (uint32_t v = 0; v < DT; v++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            dring[n * DT + v] = (dtok){(int64_t)x, n};
            placer_builder_add_token(bld, n, x ^ (UINT64_C(1) << 63));
        }
    }
    qsort(dring, DN * DT, sizeof *dring, by_dtoken);
    placer_snapshot *s = NULL;
    placer_builder_build(bld, 1, &s);
    placer_builder_free(bld);
    return s;
}

/* placer and the reference agree, set and order, on the first keys. */
static int agree(const placer_snapshot *s, const ring_fixture *f)
{
    for (uint32_t i = 0; i < DCHECK; i++) {
        uint32_t a[8], r[8];
        int n = placer_replicas(s, f->key_ptrs[i], BENCH_KEY_LEN, a, 8);
        int m = reference_dcs(f->key_ptrs[i], BENCH_KEY_LEN, r), same = n == m;
        for (int j = 0; same && j < n; j++)
            same = a[j] == r[j];
        if (!same)
            return 0;
    }
    return 1;
}

/* One pass over the keys: 0 placer_replicas, 1 its batch, 2 the plain
 * reference, 3 placer_lookup. */
static uint64_t dcs_pass(int mode, const placer_snapshot *s, const ring_fixture *f)
{
    uint32_t out[8];
    uint64_t acc = 0;
    if (mode == 1) {
        static uint32_t sets[DBATCH * DSET], counts[DBATCH];
        static size_t lens[DBATCH];
        for (uint32_t i = 0; i < DBATCH; i++)
            lens[i] = BENCH_KEY_LEN;
        for (uint32_t i = 0; i + DBATCH <= BENCH_KEYS; i += DBATCH) {
            placer_replicas_batch(s, (const void *const *)f->key_ptrs + i, lens, DBATCH, DSET, sets,
                                  counts);
            acc += sets[(DBATCH - 1) * DSET];
        }
    } else if (mode == 3) {
        for (uint32_t i = 0; i < BENCH_KEYS; i++)
            acc += (uint64_t)placer_lookup(s, f->key_ptrs[i], BENCH_KEY_LEN);
    } else {
        for (uint32_t i = 0; i < BENCH_KEYS; i++) {
            int n = mode ? reference_dcs(f->key_ptrs[i], BENCH_KEY_LEN, out)
                         : placer_replicas(s, f->key_ptrs[i], BENCH_KEY_LEN, out, DSET);
            acc += out[n - 1];
        }
    }
    return acc;
}

static void bench_dcs(plc_bench *b, const void *arg)
{
    int mode = *(const int *)arg; /* dcs_pass's, or 4 and 5: 0 and 1 paired with 3 */
    const ring_fixture *f = bench_fixture(1);
    placer_snapshot *s = two_datacenters();
    if (!s || !agree(s, f)) {
        plc_bench_skip(b, s ? "placer's sets differ from the reference" : "the build failed");
        placer_snapshot_free(s);
        return;
    }
    if (mode >= 4)
        bench_over_lookup(b, s, f, mode - 4, 3, dcs_pass);
    else
        while (plc_bench_keep_running(b, BENCH_KEYS))
            plc_bench_keep(dcs_pass(mode, s, f));
    plc_bench_set_items(b, plc_bench_iterations(b));
    placer_snapshot_free(s);
}

void register_datacenter_benches(void)
{
    static const int modes[] = {0, 1, 2, 3, 4, 5};
    plc_bench_register("replicas/cassandra_nts_dc3_dc2/30720/placer", bench_dcs, &modes[0]);
    plc_bench_register("replicas/cassandra_nts_dc3_dc2/30720/placer/batch", bench_dcs, &modes[1]);
    plc_bench_register("replicas/cassandra_nts_dc3_dc2/30720/plain_reference", bench_dcs,
                       &modes[2]);
    plc_bench_register("replicas/cassandra_nts_dc3_dc2/30720/lookup", bench_dcs, &modes[3]);
    plc_bench_register("replicas/cassandra_nts_dc3_dc2/30720/placer_vs_lookup", bench_dcs,
                       &modes[4]);
    plc_bench_register("replicas/cassandra_nts_dc3_dc2/30720/placer/batch_vs_lookup", bench_dcs,
                       &modes[5]);
}
