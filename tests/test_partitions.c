/*
 * test_partitions.c -- fixed logical partitions (vBuckets): Couchbase's key
 * mapping bit for bit (zlib as the oracle), maps built within one of each
 * weight's share with replicas on distinct nodes and zones, joins and
 * leaves that move only what must move, and a real Couchbase bucket
 * configuration imported and answered exactly as its vBucketMap says.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "placer_control.h"

#ifndef TEST_DATA
#define TEST_DATA "tests/data"
#endif

static placer_builder *partitions_builder(uint32_t nodes, uint32_t zones, uint32_t parts,
                                          int key_hash)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, PLACER_PARTITIONS);
    placer_builder_set_partitions(b, parts);
    placer_builder_set_key_hash(b, key_hash);
    for (uint32_t i = 0; i < nodes; i++) {
        char id[32], zone[16];
        snprintf(id, sizeof id, "node-%u", i);
        snprintf(zone, sizeof zone, "z%u", zones ? i % zones : 0);
        placer_builder_add_node(b, id, zones ? zone : NULL, 1.0 + (i % 3));
    }
    return b;
}

static uint32_t zlib_vbucket(const char *key, uint32_t parts)
{
    uint32_t crc = (uint32_t)crc32(0L, (const Bytef *)key, (uInt)strlen(key));
    return ((crc >> 16) & 0x7fff) % parts;
}

static void test_couchbase_mapping(void)
{
    placer_builder *b = partitions_builder(3, 0, 1024, PLACER_HASH_COUCHBASE);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_partition(s, "hello", 5), 528); /* the published examples */
    CHECK_EQ(placer_partition(s, "foo", 3), 115);
    placer_snapshot_free(s);
    placer_builder_free(b);

    static const uint32_t counts[] = {1, 64, 1000, 1024, 4096, 65536};
    uint64_t r = 42;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        b = partitions_builder(5, 0, counts[c], PLACER_HASH_COUCHBASE);
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        CHECK_EQ(placer_partition_count(s), counts[c]);
        int ok = 1;
        for (int i = 0; i < 10000; i++) {
            char key[64];
            int len = snprintf(key, sizeof key, "user::%016llx", (unsigned long long)check_rand(&r));
            len -= (int)(check_rand(&r) % 10); /* lengths 12 .. 22 */
            key[len] = '\0';
            uint32_t want = zlib_vbucket(key, counts[c]);
            uint32_t owner, next;
            ok &= placer_partition(s, key, (size_t)len) == (int)want;
            ok &= placer_partition_owner(s, want, &owner, &next) == 0;
            ok &= placer_lookup(s, key, (size_t)len) == (int)owner;
            ok &= placer_lookup_hash(s, placer_snapshot_hash(s, key, (size_t)len)) == (int)owner;
        }
        CHECK_ALL(ok, "10,000 keys: partition == zlib's crc32 mapping, owner from the map");
        placer_snapshot_free(s);
        placer_builder_free(b);
    }
}

/* Membership never changes the partition count or a key's partition. */
static void test_count_fixed(void)
{
    static const uint32_t sizes[] = {1, 3, 4, 10, 121};
    int first[200];
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        placer_builder *b = partitions_builder(sizes[k], 3, 0, PLACER_HASH_PLACER);
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        CHECK_EQ(placer_partition_count(s), PLACER_DEFAULT_PARTITIONS);
        int same = 1;
        for (int i = 0; i < 200; i++) {
            char key[16];
            int len = snprintf(key, sizeof key, "k%d", i);
            int p = placer_partition(s, key, (size_t)len);
            if (!k)
                first[i] = p;
            same &= p == first[i] && p >= 0 && p < (int)PLACER_DEFAULT_PARTITIONS;
        }
        CHECK_ALL(same, "a key's partition is the same for 1, 3, 4, 10 and 121 nodes");
        placer_snapshot_free(s);
        placer_builder_free(b);
    }
}

/* Active counts within 1 of each share; replicas distinct, zones distinct. */
static void check_balanced(const placer_snapshot *s, const char *what)
{
    uint32_t n = placer_node_count(s), P = placer_partition_count(s);
    uint32_t C = placer_partition_copies(s);
    double W = 0;
    for (uint32_t i = 0; i < n; i++)
        W += placer_node_state(s, i) != PLACER_NODE_JOINING ? placer_node_weight(s, i) : 0;
    int within = 1;
    for (uint32_t i = 0; i < n; i++) {
        double share = placer_node_state(s, i) != PLACER_NODE_JOINING
                           ? P * placer_node_weight(s, i) / W
                           : 0;
        within &= fabs((double)placer_node_tokens(s, i) - share) < 1.0;
    }
    CHECK_ALL(within, what);
    int distinct = 1;
    uint32_t zones_total = 0;
    {
        /* zones in the placement */
        const char *seen[64];
        for (uint32_t i = 0; i < n; i++) {
            if (placer_node_state(s, i) == PLACER_NODE_JOINING)
                continue;
            int dup = 0;
            for (uint32_t j = 0; j < zones_total; j++)
                dup |= strcmp(seen[j], placer_node_zone(s, i)) == 0;
            if (!dup && zones_total < 64)
                seen[zones_total++] = placer_node_zone(s, i);
        }
    }
    for (uint32_t p = 0; p < P; p++) {
        uint32_t set[8];
        int k = placer_partition_replicas(s, p, set, 8);
        distinct &= k == (int)(C < n ? C : n);
        for (int i = 0; i < k; i++)
            for (int j = 0; j < i; j++) {
                distinct &= set[i] != set[j];
                if ((uint32_t)k <= zones_total)
                    distinct &= strcmp(placer_node_zone(s, set[i]), placer_node_zone(s, set[j])) != 0;
            }
    }
    CHECK_ALL(distinct, "every partition: copies on distinct nodes, in distinct zones");
}

static void test_built_maps(void)
{
    static const uint32_t sizes[][3] = {{3, 3, 1024}, {10, 3, 1024}, {7, 2, 1000}, {120, 4, 1024},
                                        {5, 5, 64}, {2, 1, 1024}, {40, 3, 65536}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        placer_builder *b = partitions_builder(sizes[k][0], sizes[k][1], sizes[k][2],
                                               PLACER_HASH_PLACER);
        placer_snapshot *s = NULL;
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
        check_balanced(s, "active counts within 1 of each weight's share");
        placer_snapshot_free(s);
        placer_builder_free(b);
    }
}

/* Partitions whose active node differs between a and b (same node indices). */
static uint32_t moved_actives(const placer_snapshot *a, const placer_snapshot *b, int b_target)
{
    uint32_t moved = 0;
    for (uint32_t p = 0; p < placer_partition_count(a); p++) {
        uint32_t oa, na, ob, nb;
        placer_partition_owner(a, p, &oa, &na);
        placer_partition_owner(b, p, &ob, &nb);
        moved += oa != (b_target ? nb : ob);
    }
    return moved;
}

static void test_minimal_movement(void)
{
    /* Join: node 10 joins 10 nodes. Only partitions going to it move. */
    placer_builder *b = partitions_builder(11, 3, 1024, PLACER_HASH_PLACER);
    placer_builder_set_state(b, 10, PLACER_NODE_JOINING);
    placer_snapshot *join = NULL, *before = NULL, *after = NULL;
    CHECK_EQ(placer_builder_build(b, 2, &join), 0);
    placer_builder *b10 = partitions_builder(10, 3, 1024, PLACER_HASH_PLACER);
    CHECK_EQ(placer_builder_build(b10, 1, &before), 0);
    CHECK_EQ(moved_actives(before, join, 0), 0); /* the current map is the 10-node map */
    uint32_t moved = moved_actives(join, join, 1), to_new = 0, gained = 0;
    for (uint32_t p = 0; p < 1024; p++) {
        uint32_t o, n;
        placer_partition_owner(join, p, &o, &n);
        to_new += o != n && n == 10;
        gained += o != n && n != 10;
    }
    CHECK(moved > 0);
    CHECK_EQ(moved, to_new); /* every moved partition goes to the joining node */
    CHECK_EQ(gained, 0);
    /* ... and it gets its share: weight 2 of 21 (node-10's weight is 1 + 10 % 3) */
    CHECK(fabs((double)to_new - 1024.0 * 2 / 21) < 1.0);
    printf("join of 1 node (weight 2/21) moves %u of 1024 partitions (share %.1f)\n", moved,
           1024.0 * 2 / 21);

    /* The node becomes active: with the transition's snapshot as previous,
     * the map is its target, so nothing more moves. */
    placer_builder_set_state(b, 10, PLACER_NODE_ACTIVE);
    placer_builder_set_previous(b, join);
    CHECK_EQ(placer_builder_build(b, 3, &after), 0);
    CHECK_EQ(moved_actives(join, after, 0), moved);
    uint32_t differ = 0;
    for (uint32_t p = 0; p < 1024; p++) {
        uint32_t o, n, o2, n2, rj[8], ra[8];
        placer_partition_owner(join, p, &o, &n);
        placer_partition_owner(after, p, &o2, &n2);
        differ += n != o2;
        int kj = placer_partition_replicas(join, p, rj, 8);
        int ka = placer_partition_replicas(after, p, ra, 8);
        differ += kj != ka;
        (void)n2;
    }
    CHECK_EQ(differ, 0);
    check_balanced(after, "after the join: within 1 of each share");

    /* Leave: node 3 drains; only its partitions move. */
    placer_snapshot *leave = NULL;
    placer_builder_set_previous(b, after);
    placer_builder_set_state(b, 3, PLACER_NODE_DRAINING);
    CHECK_EQ(placer_builder_build(b, 4, &leave), 0);
    CHECK_EQ(moved_actives(after, leave, 0), 0);
    uint32_t from_other = 0, from_3 = 0;
    for (uint32_t p = 0; p < 1024; p++) {
        uint32_t o, n;
        placer_partition_owner(leave, p, &o, &n);
        from_other += o != n && o != 3;
        from_3 += o != n && o == 3;
    }
    CHECK_EQ(from_other, 0);
    CHECK_EQ(from_3, placer_node_tokens(leave, 3));
    /* promotions: a moved partition goes to a node that held a replica */
    uint32_t promoted = 0;
    for (uint32_t p = 0; p < 1024; p++) {
        uint32_t o, n, set[8];
        placer_partition_owner(leave, p, &o, &n);
        if (o == n)
            continue;
        int k = placer_partition_replicas(leave, p, set, 8);
        for (int i = 1; i < k; i++)
            promoted += set[i] == n;
    }
    printf("drain of node-3: %u partitions move, %u of them to a node that held a replica\n",
           from_3, promoted);
    CHECK(promoted * 2 > from_3);

    /* Previous with another partition count: refused. */
    placer_builder *other = partitions_builder(4, 1, 64, PLACER_HASH_PLACER);
    placer_snapshot *x = NULL;
    placer_builder_set_previous(other, after);
    CHECK_EQ(placer_builder_build(other, 1, &x), PLACER_EINVAL);
    CHECK(x == NULL);
    placer_builder_free(other);

    placer_snapshot_free(join);
    placer_snapshot_free(before);
    placer_snapshot_free(after);
    placer_snapshot_free(leave);
    placer_builder_free(b);
    placer_builder_free(b10);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* The real three-node configuration: owner and replica of every vBucket as
 * its map says (the map is read here with a plain scanner, not jansson). */
static void test_import_real(void)
{
    size_t len;
    char *json = read_file(TEST_DATA "/couchbase-bucket-config-3nodes.json", &len);
    CHECK(json != NULL);
    if (!json)
        return;
    placer_snapshot *s = NULL;
    char why[256];
    CHECK_EQ(placer_couchbase_import_ex(json, len, &s, why, sizeof why), 0);
    if (!s) {
        fprintf(stderr, "import: %s\n", why);
        free(json);
        return;
    }
    CHECK_EQ(placer_snapshot_epoch(s), 1073);
    CHECK_EQ(placer_snapshot_strategy(s), PLACER_PARTITIONS);
    CHECK_EQ(placer_snapshot_key_hash(s), PLACER_HASH_COUCHBASE);
    CHECK_EQ(placer_partition_count(s), 1024);
    CHECK_EQ(placer_partition_copies(s), 2);
    CHECK_EQ(placer_node_count(s), 3);
    CHECK(strcmp(placer_node_id(s, 0), "172.17.0.2:11210") == 0);
    CHECK(strcmp(placer_node_id(s, 2), "172.17.0.4:11210") == 0);
    /* Scan "vBucketMap":[[a,b],[a,b],...] by hand. */
    const char *m = strstr(json, "\"vBucketMap\"");
    CHECK(m != NULL);
    m = m ? strchr(m, '[') + 1 : NULL;
    int ok = m != NULL, rows = 0;
    while (m && ok && rows < 1024) {
        int a, r, used;
        if (sscanf(m, " [ %d , %d ]%n", &a, &r, &used) != 2) {
            ok = 0;
            break;
        }
        uint32_t owner, next, set[4];
        ok &= placer_partition_owner(s, (uint32_t)rows, &owner, &next) == 0 && owner == (uint32_t)a &&
              next == owner;
        int k = placer_partition_replicas(s, (uint32_t)rows, set, 4);
        ok &= k == (r < 0 ? 1 : 2) && set[0] == (uint32_t)a && (r < 0 || set[1] == (uint32_t)r);
        m += used;
        while (*m == ' ' || *m == ',' || *m == '\n')
            m++;
        rows++;
    }
    CHECK_ALL(ok && rows == 1024, "every vBucket's active and replica as vBucketMap says");
    /* What the data's README says: 0-341 on server 0, 342-682 on 1, the rest on 2. */
    uint32_t o0, o1, o2, nx;
    placer_partition_owner(s, 341, &o0, &nx);
    placer_partition_owner(s, 342, &o1, &nx);
    placer_partition_owner(s, 1023, &o2, &nx);
    CHECK(o0 == 0 && o1 == 1 && o2 == 2);
    /* Keys: owner = the active of the key's zlib vBucket. */
    ok = 1;
    for (int i = 0; i < 10000; i++) {
        char key[32];
        int kl = snprintf(key, sizeof key, "doc-%d", i);
        uint32_t vb = zlib_vbucket(key, 1024), owner, next, set[2], rset[2];
        placer_partition_owner(s, vb, &owner, &next);
        ok &= placer_lookup(s, key, (size_t)kl) == (int)owner;
        int k = placer_replicas(s, key, (size_t)kl, set, 2);
        int rk = placer_partition_replicas(s, vb, rset, 2);
        ok &= k == rk && set[0] == rset[0] && (k < 2 || set[1] == rset[1]);
    }
    CHECK_ALL(ok, "10,000 keys: owner and replica from their vBucket's row");

    /* NOT_MY_VBUCKET from the router. */
    placer_router *r = placer_router_new(s);
    uint64_t epoch = 0;
    uint32_t owner, next;
    placer_partition_owner(placer_router_acquire(r), 528, &owner, &next);
    placer_router_release(r, NULL);
    CHECK_EQ(placer_router_check_partition(r, owner, 528, &epoch), 0);
    CHECK_EQ(epoch, 1073);
    CHECK_EQ(placer_router_check_partition(r, (owner + 1) % 3, 528, &epoch), PLACER_ENOTMINE);
    CHECK_EQ(placer_router_check_partition(r, owner, 1024, &epoch), PLACER_ERANGE);
    CHECK_EQ(placer_router_check(r, owner, "hello", 5, &epoch), 0);
    placer_router_free(r);
    free(json);
}

static int import_text(const char *json, char *why, size_t why_len)
{
    placer_snapshot *s = NULL;
    int err = placer_couchbase_import_ex(json, strlen(json), &s, why, why_len);
    placer_snapshot_free(s);
    return err;
}

static void test_import_forward_and_errors(void)
{
    char why[256];
    const char *fwd = "{\"rev\": 7, \"revEpoch\": 2, \"vBucketServerMap\": {\"hashAlgorithm\": "
                      "\"CRC\", \"numReplicas\": 1, \"serverList\": [\"a:1\", \"b:1\", \"c:1\"], "
                      "\"vBucketMap\": [[0,1],[1,2],[2,-1],[-1,-1]], "
                      "\"vBucketMapForward\": [[1,0],[1,2],[0,1],[2,0]]}}";
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_couchbase_import_ex(fwd, strlen(fwd), &s, why, sizeof why), 0);
    CHECK_EQ(placer_snapshot_epoch(s), (UINT64_C(2) << 32) | 7);
    CHECK_EQ(placer_snapshot_in_transition(s), 1);
    uint32_t o = 9, n = 9;
    CHECK_EQ(placer_partition_owner(s, 0, &o, &n), 0);
    CHECK(o == 0 && n == 1);
    CHECK_EQ(placer_partition_owner(s, 3, &o, &n), PLACER_ENOLIVE); /* no active copy */
    uint32_t set[4];
    CHECK_EQ(placer_partition_replicas(s, 2, set, 4), 1); /* -1 replica skipped */
    /* A key in vBucket 3 has no owner: lookups say so, never a bogus index. */
    int found = 0;
    for (int i = 0; i < 1000 && !found; i++) {
        char key[16];
        int kl = snprintf(key, sizeof key, "k%d", i);
        if (placer_partition(s, key, (size_t)kl) == 3) {
            found = 1;
            CHECK_EQ(placer_lookup(s, key, (size_t)kl), PLACER_ENOLIVE);
            uint32_t ow, nx;
            CHECK_EQ(placer_lookup_handoff(s, key, (size_t)kl, &ow, &nx), PLACER_ENOLIVE);
        }
    }
    CHECK(found);
    placer_snapshot_free(s);

    static const struct {
        const char *json, *says;
    } bad[] = {
        {"", "line"},
        {"[1,2]", "object"},
        {"{\"vBucketServerMap\": 3}", "vBucketServerMap"},
        {"{\"vBucketServerMap\": {\"hashAlgorithm\": \"KETAMA\"}}", "hashAlgorithm"},
        {"{\"vBucketServerMap\": {\"serverList\": []}}", "serverList"},
        {"{\"vBucketServerMap\": {\"serverList\": [\"a\"], \"numReplicas\": 9}}", "numReplicas"},
        {"{\"vBucketServerMap\": {\"serverList\": [\"a\"], \"numReplicas\": 0}}", "vBucketMap"},
        {"{\"vBucketServerMap\": {\"serverList\": [\"a\", \"a\"], \"numReplicas\": 0, "
         "\"vBucketMap\": [[0]]}}", "serverList[1]"},
        {"{\"vBucketServerMap\": {\"serverList\": [\"a\", 5], \"numReplicas\": 0, "
         "\"vBucketMap\": [[0]]}}", "serverList[1]"},
        {"{\"vBucketServerMap\": {\"serverList\": [\"a\"], \"numReplicas\": 0, "
         "\"vBucketMap\": [[0], [1]]}}", "vBucketMap[1][0]"},
        {"{\"vBucketServerMap\": {\"serverList\": [\"a\"], \"numReplicas\": 1, "
         "\"vBucketMap\": [[0]]}}", "vBucketMap[0]"},
        {"{\"vBucketServerMap\": {\"serverList\": [\"a\"], \"numReplicas\": 0, "
         "\"vBucketMap\": [[0]], \"vBucketMapForward\": [[0],[0]]}}", "vBucketMapForward"},
        {"{\"rev\": -1, \"vBucketServerMap\": {\"serverList\": [\"a\"], \"numReplicas\": 0, "
         "\"vBucketMap\": [[0]]}}", "rev"},
        {"{\"vBucketServerMap\": {\"serverList\": [\"a\"], \"numReplicas\": 0, "
         "\"vBucketMap\": [[\"0\"]]}}", "vBucketMap[0][0]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int err = import_text(bad[i].json, why, sizeof why);
        CHECK_EQ(err, PLACER_EFORMAT);
        if (!strstr(why, bad[i].says))
            fprintf(stderr, "bad document %zu: the message (%s) misses the field\n", i, why);
        CHECK(strstr(why, bad[i].says) != NULL);
    }
    CHECK_EQ(placer_couchbase_import(NULL, 0, &s), PLACER_ENULL);
}

static void test_errors(void)
{
    placer_builder *b = placer_builder_new();
    placer_snapshot *s = NULL;
    placer_builder_add_node(b, "a", NULL, 1);
    CHECK_EQ(placer_builder_set_strategy(b, 0), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_strategy(b, 6), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_key_hash(b, 6), PLACER_EINVAL); /* 5 is cassandra-murmur3, 6 unknown */
    CHECK_EQ(placer_builder_set_key_hash(b, 0), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_partitions(b, PLACER_MAX_MAGLEV_SIZE + 1), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_key_hash(b, PLACER_HASH_COUCHBASE), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_EINVAL); /* Couchbase keys need partitions */
    placer_builder_set_strategy(b, PLACER_PARTITIONS);
    placer_builder_set_partitions(b, PLACER_MAX_PARTITIONS + 1);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_EINVAL);
    placer_builder_set_partitions(b, 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_partition_count(s), 1024);
    CHECK_EQ(placer_partition(NULL, "k", 1), PLACER_ENULL);
    uint32_t o, n;
    CHECK_EQ(placer_partition_owner(s, 1024, &o, &n), PLACER_ERANGE);
    CHECK_EQ(placer_partition_owner(s, 0, NULL, &n), PLACER_ENULL);
    placer_snapshot_free(s);
    placer_builder_set_strategy(b, PLACER_RING);
    placer_builder_set_key_hash(b, PLACER_HASH_PLACER);
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    CHECK_EQ(placer_partition(s, "k", 1), PLACER_EINVAL);
    CHECK_EQ(placer_partition_owner(s, 0, &o, &n), PLACER_EINVAL);
    CHECK_EQ(placer_partition_count(s), 0);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

int main(void)
{
    test_couchbase_mapping();
    test_count_fixed();
    test_built_maps();
    test_minimal_movement();
    test_import_real();
    test_import_forward_and_errors();
    test_errors();
    CHECK_EQ(placer_snapshots_alive(), 0);
    return check_done("partitions");
}
