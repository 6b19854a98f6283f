/*
 * compat_kafka.c -- Kafka as a compatibility program (compat_program.h):
 * its ops, listed by compat_registry.c, and its mode build. A Kafka
 * snapshot is no layout but placer's own partitions snapshot of the
 * topic, whose key hash names the producer's partitioner
 * (kafka_partitioner.h), so the ops carry a partitions_check in place
 * of a size, build and key hash: what the mode has no room for, refused
 * with its reason; compat_mode_build.c then builds the topic's map.
 */
#include "compat_kafka.h"

#include <stdio.h>

#include "compat_program.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"

_Static_assert(PLC_KEY_HASH_OF_CH(PLC_CH_COUNT_) <= PLC_HASH_KAFKA_FIRST,
               "the layouts' key hash ids stay below Kafka's");

#define REFUSE(...) return snprintf(why, why_len, __VA_ARGS__), PLACER_EINVAL

/* What the mode has no room for (compat_program.h, partitions_check): a
 * leaf, calling nothing of the engine's. */
static int kafka_check(const placer_builder *b, char *why, size_t why_len)
{
    if (!b->compat_hash)
        REFUSE("kafka needs its partitioner (placer_compat_options.key_hash: "
               "\"murmur2_random\", \"consistent_random\", ...)");
    if (b->key_hash || b->has_secret)
        REFUSE("a key hash or secret with kafka: its partitioner hashes");
    if (b->seed != PLACER_DEFAULT_SEED || b->vnodes != PLACER_DEFAULT_VNODES || b->nexplicit)
        REFUSE("a seed, vnodes or tokens with kafka: it has partitions");
    if (b->replicas)
        REFUSE("precomputed replicas with kafka: the partition map lists each partition's "
               "replicas");
    uint32_t parts = b->map ? b->map_parts : b->table_size;
    if (!parts)
        REFUSE("kafka needs the topic's partitions (a partition map, or "
               "placer_builder_set_partitions)");
    if (parts > PLC_KAFKA_MAX_PARTITIONS)
        REFUSE("%u partitions: kafka's are 1 .. %u", parts, PLC_KAFKA_MAX_PARTITIONS);
    if (b->map && b->table_size && b->table_size != b->map_parts)
        REFUSE("%u partitions and a partition map of %u rows", b->table_size, b->map_parts);
    if (b->fwd)
        REFUSE("a target partition map with kafka: a reassignment is two snapshots (placer "
               "diff compares them)");
    return 0; /* a strategy set and the nodes: the mode's build checks them */
}

int placer_compat_key_scatters(const placer_snapshot *s, const void *key, size_t len)
{
    return s ? plc_kafka_scatters(plc_kafka_of_key_hash(s->key_hash), key, len) : 0;
}

/* ---- what the diff reads (compat_kafka.h) ---- */

/* The values of plc_kafka_key_hash as the 2^32 values of the 32-bit hash
 * give them: murmur2 & 0x7fffffff takes each of [0, 2^31) twice; CRC-32
 * each of [0, 2^32) once; FNV-1a's absolute value takes 0 and 2^31 (from
 * INT32_MIN) once and each of 1 .. 2^31 - 1 twice (h and -h). */
static const plc_hash_span murmur2_values[] = {{0, (uint64_t)1 << 31, 2}};
static const plc_hash_span crc32_values[] = {{0, (uint64_t)1 << 32, 1}};
static const plc_hash_span fnv1a_values[] = {
    {0, 1, 1}, {1, (uint64_t)1 << 31, 2}, {(uint64_t)1 << 31, ((uint64_t)1 << 31) + 1, 1}};

void plc_kafka_diff_view(const placer_snapshot *s, int target, plc_diff_view *v)
{
    const plc_table *t = target ? &s->ttable : &s->table;
    int p = plc_kafka_of_key_hash(s->key_hash);
    int murmur2 = p == PLC_KAFKA_MURMUR2 || p == PLC_KAFKA_MURMUR2_RANDOM;
    int fnv1a = p == PLC_KAFKA_FNV1A || p == PLC_KAFKA_FNV1A_RANDOM;
    *v = (plc_diff_view){NULL, t, t->n, t->own[0], 32, t->own, t->n, t->width,
                         murmur2 ? murmur2_values : fnv1a ? fnv1a_values : crc32_values,
                         fnv1a ? 3 : 1};
}

/* ---- Kafka's ops (compat_program.h) ---- */

/* Partitions, no distribution to choose. */
static const plc_compat_distribution kafka_partitions[] = {
    {NULL, PLC_CD_DEFAULT, PLC_CL_TABLE, 0, 0},
};

/* Its key hashes are librdkafka's partitioners (PLC_KAFKA_* ids, the
 * snapshot's key hash PLC_KAFKA_KEY_HASH of them), in librdkafka's names. */
static const plc_compat_hash_entry kafka_hashes[] = {
    {"murmur2", PLC_KAFKA_MURMUR2},       {"murmur2_random", PLC_KAFKA_MURMUR2_RANDOM},
    {"consistent", PLC_KAFKA_CONSISTENT}, {"consistent_random", PLC_KAFKA_CONSISTENT_RANDOM},
    {"fnv1a", PLC_KAFKA_FNV1A},           {"fnv1a_random", PLC_KAFKA_FNV1A_RANDOM},
};
static const char *const kafka_labels[] = {
    "kafka-murmur2", "kafka-murmur2_random", "kafka-consistent",
    "kafka-consistent_random", "kafka-fnv1a", "kafka-fnv1a_random",
};
_Static_assert(sizeof kafka_hashes / sizeof kafka_hashes[0] == PLC_KAFKA_PARTITIONER_COUNT_ - 1 &&
                   sizeof kafka_labels / sizeof kafka_labels[0] == PLC_KAFKA_PARTITIONER_COUNT_ - 1,
               "every partitioner named");

const plc_compat_program plc_compat_kafka = {
    .id = PLACER_COMPAT_KAFKA,
    .name = "kafka",
    .title = "Kafka",
    .distributions = kafka_partitions,
    .ndistributions = 1,
    .hashes = kafka_hashes,
    .nhashes = sizeof kafka_hashes / sizeof kafka_hashes[0],
    .max_weight = 0,
    .fields = 0,
    .importer = "import-kafka",
    .partitions_check = kafka_check,
    .key_hash_base = PLC_HASH_KAFKA_FIRST - 1,
    .labels = kafka_labels,
};
