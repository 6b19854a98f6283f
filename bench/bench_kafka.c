/*
 * bench_kafka.c -- Kafka's partitioners beside librdkafka's own, in one
 * process, on the same keys (BENCH_KEYS keys of 32 bytes), 1,024
 * partitions over 3 brokers:
 *
 *   compat/kafka_<partitioner>/1024_partitions/librdkafka: the partition
 *     from rd_kafka_msg_partitioner_<partitioner>() (NULL topic handle: the
 *     deterministic forms read none), one key at a time;
 *   .../placer/single: placer_lookup of a Kafka snapshot (the leader);
 *   .../placer/batch: placer_lookup_batch.
 *
 * Without librdkafka-dev the librdkafka rows are skipped with the reason.
 */
#include <stdio.h>
#include <string.h>

#include "benches.h"
#include "fixtures.h"
#include "shim.h"
#if PLC_HAVE_RDKAFKA
#include <librdkafka/rdkafka.h>
#endif

#define PARTITIONS 1024

typedef struct kafka_case {
    const char *partitioner;
    int rows; /* 0: librdkafka, 1: placer single, 2: placer batch */
    placer_snapshot *snap;
} kafka_case;

static kafka_case cases[] = {
    {"murmur2", 0, NULL}, {"murmur2", 1, NULL},    {"murmur2", 2, NULL},
    {"consistent", 0, NULL}, {"consistent", 1, NULL}, {"consistent", 2, NULL},
    {"fnv1a", 0, NULL},   {"fnv1a", 1, NULL},      {"fnv1a", 2, NULL},
};
static char names[sizeof cases / sizeof cases[0]][96];

static placer_snapshot *topic(const char *partitioner)
{
    placer_builder *b = placer_builder_new();
    placer_compat_options o = {.size = sizeof o, .key_hash = partitioner};
    placer_builder_add_node(b, "1", NULL, 1);
    placer_builder_add_node(b, "2", NULL, 1);
    placer_builder_add_node(b, "3", NULL, 1);
    placer_snapshot *s = NULL;
    if (placer_builder_set_compat(b, PLACER_COMPAT_KAFKA, &o) ||
        placer_builder_set_partitions(b, PARTITIONS) || placer_builder_build(b, 1, &s))
        s = NULL;
    placer_builder_free(b);
    return s;
}

static void bench_kafka(plc_bench *b, const void *arg)
{
    kafka_case *c = (kafka_case *)arg;
    const ring_fixture *f = bench_fixture(1);
    uint64_t acc = 0;
    if (c->rows == 0) {
#if PLC_HAVE_RDKAFKA
        int32_t (*fn)(const rd_kafka_topic_t *, const void *, size_t, int32_t, void *, void *) =
            !strcmp(c->partitioner, "murmur2")      ? rd_kafka_msg_partitioner_murmur2
            : !strcmp(c->partitioner, "consistent") ? rd_kafka_msg_partitioner_consistent
                                                    : rd_kafka_msg_partitioner_fnv1a;
        while (plc_bench_keep_running(b, BENCH_KEYS))
            for (uint32_t i = 0; i < BENCH_KEYS; i++)
                acc += (uint64_t)fn(NULL, f->key_ptrs[i], f->key_lens[i], PARTITIONS, NULL, NULL);
        plc_bench_keep(acc);
        plc_bench_set_items(b, plc_bench_iterations(b));
#else
        plc_bench_skip(b, "placer_bench was built without librdkafka-dev");
#endif
        return;
    }
    if (!c->snap && !(c->snap = topic(c->partitioner))) {
        plc_bench_skip(b, "build failed");
        return;
    }
    static uint32_t owners[BENCH_KEYS];
    if (c->rows == 2) {
        while (plc_bench_keep_running(b, BENCH_KEYS)) {
            placer_lookup_batch(c->snap, f->key_ptrs, f->key_lens, BENCH_KEYS, owners);
            acc += owners[acc % BENCH_KEYS];
        }
    } else {
        while (plc_bench_keep_running(b, BENCH_KEYS))
            for (uint32_t i = 0; i < BENCH_KEYS; i++)
                acc += (uint64_t)placer_lookup(c->snap, f->key_ptrs[i], f->key_lens[i]);
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
}

void register_kafka_benches(void)
{
    static const char *const rows[] = {"librdkafka", "placer/single", "placer/batch"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(names[i], sizeof names[i], "compat/kafka_%s/%d_partitions/%s",
                 cases[i].partitioner, PARTITIONS, rows[cases[i].rows]);
        plc_bench_register(names[i], bench_kafka, &cases[i]);
    }
}
