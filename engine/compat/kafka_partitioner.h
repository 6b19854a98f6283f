/*
 * kafka_partitioner.h -- the producer partitioners of librdkafka 2.0
 * (rdkafka_msg.c, rd_kafka_msg_partitioner_*), bit for bit: which partition
 * of a topic's `partitions` a record's key goes to. docs/COMPAT.md, "Kafka",
 * gives the rules and the proof (tests/test_compat_kafka.c calls
 * librdkafka's own functions).
 *
 *   murmur2     (murmur2(key) & 0x7fffffff) % partitions: the Java client's
 *               default for keyed records (toPositive(murmur2(key))).
 *   consistent  crc32(key) % partitions (IEEE CRC-32, zlib's).
 *   fnv1a       abs((int32_t)fnv1a_32(key)) % partitions, Sarama's
 *               NewHashPartitioner: the abs of INT32_MIN stays 0x80000000.
 *
 * Each has a `_random` form that answers the same for every key except the
 * ones a real producer scatters (random, or the sticky partition when
 * sticky.partitioning.linger.ms > 0): a null key (key == NULL) for
 * murmur2_random and fnv1a_random, a null or empty key for
 * consistent_random. placer answers what the deterministic form gives for
 * those too and says so (plc_kafka_scatters).
 */
#ifndef PLC_ENGINE_KAFKA_PARTITIONER_H
#define PLC_ENGINE_KAFKA_PARTITIONER_H

#include <stddef.h>
#include <stdint.h>

#include "placer.h"

/* Partitioner ids (stable: they travel in membership files by name). */
enum {
    PLC_KAFKA_MURMUR2 = 1,
    PLC_KAFKA_MURMUR2_RANDOM,
    PLC_KAFKA_CONSISTENT,
    PLC_KAFKA_CONSISTENT_RANDOM,
    PLC_KAFKA_FNV1A,
    PLC_KAFKA_FNV1A_RANDOM,
    PLC_KAFKA_PARTITIONER_COUNT_
};

/* A topic's partitions, as many as placer's partition map holds
 * (librdkafka takes an int32_t count). */
#define PLC_KAFKA_MAX_PARTITIONS PLACER_MAX_PARTITIONS

/* Kafka's murmur2 (Utils.murmur2, rd_murmur2): MurmurHash2 seeded with
 * 0x9747b28c, bytes read as unsigned, the 32-bit result before any mask. */
uint32_t plc_kafka_murmur2(const void *key, size_t len);

/* librdkafka's rd_fnv1a: FNV-1a 32 over unsigned bytes, then the absolute
 * value of the result read as int32_t (INT32_MIN stays 0x80000000). */
uint32_t plc_kafka_fnv1a(const void *key, size_t len);

/* The partitioner's hash of a key, whose remainder by the partition count
 * is the partition: murmur2 & 0x7fffffff, crc32, or plc_kafka_fnv1a.
 * An unknown partitioner gives 0. key may be NULL only when len is 0. */
uint32_t plc_kafka_key_hash(int partitioner, const void *key, size_t len);

/* The partition of a key: plc_kafka_key_hash % partitions (partitions >= 1;
 * a null key is placed as the empty key, as the deterministic forms do). */
uint32_t plc_kafka_partition(int partitioner, const void *key, size_t len, uint32_t partitions);

/* out[i] = plc_kafka_partition(partitioner, keys[i], lens[i], partitions)
 * for i < n; FNV-1a's byte-serial chains four keys at a time. */
void plc_kafka_partition_batch(int partitioner, const void *const *keys, const size_t *lens,
                               size_t n, uint32_t partitions, uint32_t *out);

/* 1 when a real producer with this partitioner would not hash the key but
 * pick a partition at random (or its sticky one): key == NULL for the
 * _random forms, and len == 0 too for consistent_random; else 0. */
int plc_kafka_scatters(int partitioner, const void *key, size_t len);

/* Names: librdkafka's `partitioner` property values ("murmur2_random" ...);
 * 0 or NULL when unknown. */
int plc_kafka_partitioner_id(const char *name);
const char *plc_kafka_partitioner_name(int id);

#endif
