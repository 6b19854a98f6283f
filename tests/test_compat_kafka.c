/*
 * test_compat_kafka.c -- Kafka's producer partitioners against librdkafka
 * itself (Debian's librdkafka 2.0.2): rd_kafka_msg_partitioner_* called on
 * a topic handle of a producer with no brokers, key for key, for 2,400 keys
 * (the null key, the empty key, lengths 1..300 of all 256 byte values at
 * every alignment, the key whose FNV-1a is INT32_MIN) and the partition
 * counts 1..1024 plus large ones that show the whole hash (2^31 - 1).
 * The _random forms: every key a real producer hashes gets the same
 * answer; the keys it scatters (plc_kafka_scatters) land on more than one
 * partition when asked again, which is why placer flags them.
 * Then the mode: snapshots built with placer_builder_set_compat for every
 * partitioner on counts 1..64, 100, 1000 and 1024 (placer_partition, the
 * leader from placer_lookup and placer_lookup_batch, after an encode and
 * decode too) and imported from tests/data/kafka-describe-3.7.txt.
 * Then placer_diff_measure of partition-count changes: exact, equal to a
 * count of the partitioner's hash values written from its rules, and
 * matching 20,000 keys placed by librdkafka on both counts (most keys
 * move: a ring-like answer fails).
 */
#include <librdkafka/rdkafka.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kafka_partitioner.h"
#include "placer_control.h"

#define NKEYS 2400

static unsigned char store[NKEYS][304];
static const unsigned char *keys[NKEYS];
static size_t lens[NKEYS];

typedef int32_t (*rd_partitioner)(const rd_kafka_topic_t *, const void *, size_t, int32_t, void *,
                                  void *);

static const struct {
    const char *name;
    rd_partitioner fn;
} partitioners[] = {
    {"murmur2", rd_kafka_msg_partitioner_murmur2},
    {"murmur2_random", rd_kafka_msg_partitioner_murmur2_random},
    {"consistent", rd_kafka_msg_partitioner_consistent},
    {"consistent_random", rd_kafka_msg_partitioner_consistent_random},
    {"fnv1a", rd_kafka_msg_partitioner_fnv1a},
    {"fnv1a_random", rd_kafka_msg_partitioner_fnv1a_random},
};
#define NPART (sizeof partitioners / sizeof partitioners[0])

static void make_keys(void)
{
    uint64_t st = 41;
    keys[0] = NULL; /* the null key */
    lens[0] = 0;
    keys[1] = store[1]; /* the empty key */
    lens[1] = 0;
    /* FNV-1a 32 of these five bytes is 0x80000000: abs(INT32_MIN). */
    memcpy(store[2], "&d0\xb0?", 5);
    keys[2] = store[2];
    lens[2] = 5;
    for (int i = 3; i < NKEYS; i++) {
        size_t align = (size_t)i & 3u; /* rd_murmur2 reads aligned words apart */
        size_t len = i < 1200 ? (size_t)(i % 24) : 1 + check_rand(&st) % 300;
        for (size_t j = 0; j < len; j++) {
            uint64_t r = check_rand(&st);
            store[i][align + j] = (unsigned char)(i % 2 ? r : 0x30 + r % 43);
        }
        keys[i] = store[i] + align;
        lens[i] = len;
    }
}

static rd_kafka_t *rk;
static rd_kafka_topic_t *rkt;

static void open_topic(void)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err) != RD_KAFKA_CONF_OK)
        fprintf(stderr, "log_level: %s\n", err);
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk) {
        fprintf(stderr, "rd_kafka_new: %s\n", err);
        exit(1);
    }
    rkt = rd_kafka_topic_new(rk, "placer-test", NULL);
    if (!rkt) {
        fprintf(stderr, "rd_kafka_topic_new failed\n");
        exit(1);
    }
}

static int32_t counts[1024 + 5];
static size_t ncounts;

static void make_counts(void)
{
    for (int32_t p = 1; p <= 1024; p++)
        counts[ncounts++] = p;
    static const int32_t large[] = {65537, 1000003, 16777217, 2147483646, 2147483647};
    for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
        counts[ncounts++] = large[i];
}

/* Every key that a real producer hashes, on every count, key for key. */
static void test_partitions(void)
{
    long compared = 0;
    for (size_t f = 0; f < NPART; f++) {
        int id = plc_kafka_partitioner_id(partitioners[f].name);
        CHECK(id != 0);
        CHECK(strcmp(plc_kafka_partitioner_name(id), partitioners[f].name) == 0);
        int bad = 0;
        for (int k = 0; k < NKEYS; k++) {
            if (plc_kafka_scatters(id, keys[k], lens[k]))
                continue;
            for (size_t c = 0; c < ncounts; c++) {
                int32_t want =
                    partitioners[f].fn(rkt, keys[k], lens[k], counts[c], NULL, NULL);
                uint32_t got = plc_kafka_partition(id, keys[k], lens[k], (uint32_t)counts[c]);
                compared++;
                if ((int64_t)got != want && !bad++)
                    fprintf(stderr, "%s: key %d (%zu bytes), %d partitions: %u, librdkafka %d\n",
                            partitioners[f].name, k, lens[k], counts[c], got, want);
            }
        }
        CHECK_ALL(bad == 0, partitioners[f].name);
    }
    printf("%ld partitions compared with librdkafka's\n", compared);
    CHECK(compared > 6L * 2000 * 1024);
}

/* The batch (four FNV-1a chains in lockstep) against one key at a time,
 * on every offset into the keys so each mix of lengths meets. */
static void test_batch(void)
{
    static uint32_t got[NKEYS];
    static const uint32_t counts_b[] = {1, 7, 1024, 2147483647u};
    int bad = 0;
    for (int id = 1; id < PLC_KAFKA_PARTITIONER_COUNT_; id++)
        for (size_t c = 0; c < 4; c++)
            for (size_t off = 0; off < 4; off++) {
                size_t n = NKEYS - off;
                plc_kafka_partition_batch(id, (const void *const *)keys + off, lens + off, n,
                                          counts_b[c], got);
                for (size_t i = 0; i < n; i++)
                    bad += got[i] != plc_kafka_partition(id, keys[off + i], lens[off + i],
                                                         counts_b[c]);
            }
    CHECK_EQ(bad, 0);
}

/* The keys the _random forms scatter: exactly the null key (and the empty
 * key for consistent_random); librdkafka gives them more than one
 * partition out of 64 when asked 200 times. */
static void test_scattered(void)
{
    for (size_t f = 0; f < NPART; f++) {
        int id = plc_kafka_partitioner_id(partitioners[f].name);
        int random_form = strstr(partitioners[f].name, "_random") != NULL;
        CHECK_EQ(plc_kafka_scatters(id, NULL, 0), random_form);
        CHECK_EQ(plc_kafka_scatters(id, keys[1], 0), id == PLC_KAFKA_CONSISTENT_RANDOM);
        CHECK_EQ(plc_kafka_scatters(id, keys[3], lens[3]), 0);
        for (int k = 0; k < 2; k++) {
            if (!plc_kafka_scatters(id, keys[k], lens[k]))
                continue;
            uint64_t seen = 0;
            for (int i = 0; i < 200; i++) {
                int32_t p = partitioners[f].fn(rkt, keys[k], lens[k], 64, NULL, NULL);
                CHECK_ALL(p >= 0 && p < 64, partitioners[f].name);
                seen |= UINT64_C(1) << (p & 63);
            }
            CHECK(__builtin_popcountll(seen) > 1);
            /* placer's answer for it: the deterministic form's. */
            CHECK_EQ(plc_kafka_partition(id, keys[k], lens[k], 64),
                     partitioners[f - (size_t)random_form].fn(NULL, keys[k], lens[k], 64, NULL,
                                                                  NULL));
        }
    }
}

/* The raw hashes where a count shows them whole, and the names. */
static void test_hashes_and_names(void)
{
    CHECK_EQ(plc_kafka_fnv1a("&d0\xb0?", 5), 0x80000000u);
    CHECK_EQ(rd_kafka_msg_partitioner_fnv1a(NULL, "&d0\xb0?", 5, 2147483647, NULL, NULL), 1);
    CHECK_EQ(plc_kafka_partitioner_id("murmur2_random"), PLC_KAFKA_MURMUR2_RANDOM);
    CHECK_EQ(plc_kafka_partitioner_id("random"), 0);
    CHECK_EQ(plc_kafka_partitioner_id(NULL), 0);
    CHECK(plc_kafka_partitioner_name(0) == NULL);
    CHECK(plc_kafka_partitioner_name(PLC_KAFKA_PARTITIONER_COUNT_) == NULL);
    CHECK_EQ(plc_kafka_key_hash(0, "x", 1), 0);
}

/* A snapshot of `parts` partitions, partition p led by node p % 3. */
static placer_snapshot *mode_snapshot(const char *partitioner, uint32_t parts)
{
    placer_builder *b = placer_builder_new();
    placer_compat_options o = {.size = sizeof o, .key_hash = partitioner};
    placer_builder_add_node(b, "b1", NULL, 1);
    placer_builder_add_node(b, "b2", NULL, 1);
    placer_builder_add_node(b, "b3", NULL, 1);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_KAFKA, &o), 0);
    CHECK_EQ(placer_builder_set_partitions(b, parts), 0);
    placer_snapshot *s = NULL;
    int rc = placer_builder_build(b, 1, &s);
    if (rc)
        fprintf(stderr, "build: %s\n", placer_builder_error(b));
    CHECK_EQ(rc, 0);
    placer_builder_free(b);
    return s;
}

static void check_snapshot(const placer_snapshot *s, size_t f, uint32_t parts)
{
    static uint32_t owners[NKEYS];
    CHECK_EQ(placer_lookup_batch(s, (const void *const *)keys, lens, NKEYS, owners), 0);
    int bad = 0;
    for (int k = 0; k < NKEYS; k++) {
        int32_t want = partitioners[f & ~(size_t)1].fn(rkt, keys[k], lens[k], (int32_t)parts,
                                                        NULL, NULL);
        int p = placer_partition(s, keys[k], lens[k]);
        int o = placer_lookup(s, keys[k], lens[k]);
        if ((p != want || o != want % 3 || owners[k] != (uint32_t)o) && !bad++)
            fprintf(stderr, "%s, %u partitions, key %d: partition %d owner %d batch %u, "
                            "librdkafka %d\n", partitioners[f].name, parts, k, p, o, owners[k],
                    want);
    }
    CHECK_ALL(bad == 0, partitioners[f].name);
}

static void test_mode(void)
{
    static const uint32_t more[] = {100, 1000, 1024};
    for (size_t f = 0; f < NPART; f++) {
        for (uint32_t i = 0; i < 64 + 3; i++) {
            uint32_t parts = i < 64 ? i + 1 : more[i - 64];
            placer_snapshot *s = mode_snapshot(partitioners[f].name, parts);
            if (!s)
                continue;
            check_snapshot(s, f, parts);
            CHECK_EQ(placer_snapshot_compat(s), PLACER_COMPAT_KAFKA);
            CHECK(!strcmp(placer_snapshot_compat_key_hash(s), partitioners[f].name));
            CHECK_EQ(placer_compat_key_scatters(s, NULL, 0), f % 2 == 1);
            if (parts % 16 == 0) { /* the codec keeps it */
                void *buf = NULL;
                size_t len = 0;
                placer_snapshot *d = NULL;
                CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
                CHECK_EQ(placer_snapshot_decode(buf, len, &d), 0);
                if (d)
                    check_snapshot(d, f, parts);
                placer_snapshot_free(d);
                placer_buffer_free(buf);
            }
            placer_snapshot_free(s);
        }
    }
    /* what the mode refuses */
    placer_builder *b = placer_builder_new();
    placer_builder_add_node(b, "b1", NULL, 2);
    placer_compat_options o = {.size = sizeof o, .key_hash = "murmur2"};
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_KAFKA, NULL), 0);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_EINVAL); /* no partitioner */
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_KAFKA, &o), 0);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_EINVAL); /* no partitions */
    placer_builder_set_partitions(b, 3);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_EINVAL); /* a weight */
    CHECK(strstr(placer_builder_error(b), "weight") != NULL);
    o.key_hash = "random";
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_KAFKA, &o), PLACER_EINVAL);
    placer_builder_free(b);
}

/* The imported topic: each key's partition is librdkafka's and its owner
 * the leader the text gives (none: PLACER_ENOLIVE). */
static void test_import(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/kafka-describe-3.7.txt", TEST_DATA);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    static char text[1 << 14];
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    static const int leader[3] = {2, -1, 1}; /* clicks: Leader 2, none, 1 */
    placer_snapshot *s = NULL;
    char why[512];
    CHECK_EQ(placer_kafka_import(text, len, "clicks", "fnv1a", 3, &s, why, sizeof why), 0);
    if (!s)
        return;
    CHECK_EQ(placer_partition_count(s), 3);
    int bad = 0, none = 0;
    for (int k = 1; k < NKEYS; k++) {
        int32_t p = rd_kafka_msg_partitioner_fnv1a(rkt, keys[k], lens[k], 3, NULL, NULL);
        int o = placer_lookup(s, keys[k], lens[k]);
        int want = leader[p] < 0 ? PLACER_ENOLIVE : -1;
        if (leader[p] >= 0) {
            char id[16];
            snprintf(id, sizeof id, "%d", leader[p]);
            want = o >= 0 && !strcmp(placer_node_id(s, (uint32_t)o), id) ? o : -2;
        }
        none += leader[p] < 0;
        bad += placer_partition(s, keys[k], lens[k]) != p || o != want;
    }
    CHECK_EQ(bad, 0);
    CHECK(none > 0);
    placer_snapshot_free(s);
    CHECK_EQ(placer_kafka_import(text, len, "clicks", "sticky", 3, &s, why, sizeof why),
             PLACER_EINVAL);
}

/* How many of the 2^32 values of the partitioner's 32-bit hash give a
 * value v = r mod L (v: what is taken % partitions): murmur2 masks bit
 * 31, so v < 2^31 twice; crc32 is v itself; FNV-1a's absolute value gives
 * each v < 2^31 once from h < 2^31 and each v in 1 .. 2^31 once from h >=
 * 2^31 (v = 2^32 - h). */
static uint64_t values_of_residue(const char *partitioner, uint64_t r, uint64_t L)
{
    uint64_t below31 = (((uint64_t)1 << 31) - 1 - r) / L + 1; /* v in [0, 2^31) */
    if (!strncmp(partitioner, "murmur2", 7))
        return 2 * below31;
    if (!strncmp(partitioner, "consistent", 10))
        return (((uint64_t)1 << 32) - 1 - r) / L + 1;
    return below31 + (((uint64_t)1 << 31) - r) / L + 1 - (r == 0); /* v in [1, 2^31] */
}

static void test_diff_partition_counts(void)
{
    static const uint32_t changes[][2] = {{12, 16}, {4, 6}, {7, 1024}, {1000, 1024}, {16, 12}};
    enum { N = 20000 };
    static char text[N][16];
    for (int k = 0; k < N; k++)
        snprintf(text[k], sizeof text[k], "order-%d", k);
    for (size_t f = 0; f < NPART; f += 2) {
        for (size_t c = 0; c < sizeof changes / sizeof changes[0]; c++) {
            uint32_t n = changes[c][0], m = changes[c][1];
            placer_snapshot *a = mode_snapshot(partitioners[f].name, n);
            placer_snapshot *b = mode_snapshot(partitioners[f].name, m);
            uint64_t L = (uint64_t)n * m, g = n, h = m;
            while (h) {
                uint64_t t = g % h;
                g = h, h = t;
            }
            L /= g;
            uint64_t want = 0;
            for (uint64_t r = 0; r < L; r++)
                if (r % n % 3 != r % m % 3) /* partition p is led by b(p % 3 + 1) */
                    want += values_of_residue(partitioners[f].name, r, L);
            placer_diff_report rep = {.size = sizeof rep};
            CHECK_EQ(placer_diff_measure(a, b, 0, 0, &rep), 0);
            CHECK(rep.method == PLACER_DIFF_HASHES && rep.hash_values == (uint64_t)1 << 32);
            CHECK(rep.moved == (double)want / 4294967296.0);
            /* the keys, by librdkafka and by placer_lookup on both */
            int leader_moved = 0, part_moved = 0, disagree = 0;
            for (int k = 0; k < N; k++) {
                size_t len = strlen(text[k]);
                int32_t pa = partitioners[f].fn(rkt, text[k], len, (int32_t)n, NULL, NULL);
                int32_t pb = partitioners[f].fn(rkt, text[k], len, (int32_t)m, NULL, NULL);
                int oa = placer_lookup(a, text[k], len), ob = placer_lookup(b, text[k], len);
                leader_moved += pa % 3 != pb % 3;
                part_moved += pa != pb;
                disagree += oa != pa % 3 || ob != pb % 3;
            }
            double keys_moved = (double)leader_moved / N;
            printf("%s %u -> %u partitions: diff %.6f%% (exact), %d keys: %.4f%% change leader, "
                   "%.4f%% partition\n", partitioners[f].name, n, m, 100 * rep.moved, N,
                   100 * keys_moved, 100.0 * part_moved / N);
            CHECK_EQ(disagree, 0);
            CHECK(keys_moved > rep.moved - 0.02 && keys_moved < rep.moved + 0.02);
            CHECK(rep.moved > 0.5); /* not a ring's few new ranges */
            CHECK(part_moved > N / 2);
            placer_diff_report_release(&rep);
            placer_snapshot_free(a);
            placer_snapshot_free(b);
        }
    }
}

int main(void)
{
    make_keys();
    make_counts();
    open_topic();
    test_hashes_and_names();
    test_partitions();
    test_batch();
    test_scattered();
    test_mode();
    test_import();
    test_diff_partition_counts();
    rd_kafka_topic_destroy(rkt);
    rd_kafka_destroy(rk);
    return check_done("compat_kafka");
}
