/*
 * kafka_partitioner.c -- librdkafka 2.0's producer partitioners
 * (rdkafka_msg.c, rdmurmur2.c, rdfnv1a.c, rdcrc32.h), written from their
 * rules; kafka_partitioner.h says what each computes.
 *
 * The quirks are the point: murmur2 masks the sign bit (Java's toPositive,
 * not Math.abs); fnv1a takes the absolute value of the signed hash, so
 * INT32_MIN keeps its bit 31 and the remainder is taken of 2^31; the three
 * remainders are unsigned (the int32_t partition count is converted).
 */
#include "kafka_partitioner.h"

#include <string.h>

#include "compat_hash.h"
#include "placer.h"

uint32_t plc_kafka_murmur2(const void *key, size_t len)
{
    return plc_murmur2(0x9747b28cu, key, len);
}

/* if (h < 0) h = -h on an int32_t: two's complement negation, which
 * leaves INT32_MIN as it is (librdkafka's build wraps). */
static inline uint32_t fnv1a_abs(uint32_t h)
{
    return (h & 0x80000000u) ? 0u - h : h;
}

uint32_t plc_kafka_fnv1a(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t h = 0x811c9dc5u;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x01000193u;
    }
    return fnv1a_abs(h);
}

uint32_t plc_kafka_key_hash(int partitioner, const void *key, size_t len)
{
    switch (partitioner) {
    case PLC_KAFKA_MURMUR2:
    case PLC_KAFKA_MURMUR2_RANDOM:
        return plc_kafka_murmur2(key, len) & 0x7fffffffu;
    case PLC_KAFKA_CONSISTENT:
    case PLC_KAFKA_CONSISTENT_RANDOM:
        return placer_crc32(0, key, len);
    case PLC_KAFKA_FNV1A:
    case PLC_KAFKA_FNV1A_RANDOM:
        return plc_kafka_fnv1a(key, len);
    default:
        return 0;
    }
}

uint32_t plc_kafka_partition(int partitioner, const void *key, size_t len, uint32_t partitions)
{
    return plc_kafka_key_hash(partitioner, key, len) % partitions;
}

/* Four FNV-1a chains in lockstep up to the shortest key, then each alone:
 * one key's chain is a multiply per byte, latency-bound; four fill the
 * multiplier. */
static void fnv1a_x4(const void *const *keys, const size_t *lens, uint32_t partitions,
                     uint32_t *out)
{
    const unsigned char *p[4] = {keys[0], keys[1], keys[2], keys[3]};
    uint32_t h[4] = {0x811c9dc5u, 0x811c9dc5u, 0x811c9dc5u, 0x811c9dc5u};
    size_t m = lens[0];
    for (int k = 1; k < 4; k++)
        m = lens[k] < m ? lens[k] : m;
    for (size_t j = 0; j < m; j++) {
        h[0] = (h[0] ^ p[0][j]) * 0x01000193u;
        h[1] = (h[1] ^ p[1][j]) * 0x01000193u;
        h[2] = (h[2] ^ p[2][j]) * 0x01000193u;
        h[3] = (h[3] ^ p[3][j]) * 0x01000193u;
    }
    for (int k = 0; k < 4; k++) {
        for (size_t j = m; j < lens[k]; j++)
            h[k] = (h[k] ^ p[k][j]) * 0x01000193u;
        out[k] = fnv1a_abs(h[k]) % partitions;
    }
}

void plc_kafka_partition_batch(int partitioner, const void *const *keys, const size_t *lens,
                               size_t n, uint32_t partitions, uint32_t *out)
{
    size_t i = 0;
    if (partitioner == PLC_KAFKA_FNV1A || partitioner == PLC_KAFKA_FNV1A_RANDOM)
        for (; i + 4 <= n; i += 4)
            fnv1a_x4(keys + i, lens + i, partitions, out + i);
    for (; i < n; i++)
        out[i] = plc_kafka_partition(partitioner, keys[i], lens[i], partitions);
}

int plc_kafka_scatters(int partitioner, const void *key, size_t len)
{
    switch (partitioner) {
    case PLC_KAFKA_MURMUR2_RANDOM:
    case PLC_KAFKA_FNV1A_RANDOM:
        return key == NULL;
    case PLC_KAFKA_CONSISTENT_RANDOM:
        return key == NULL || len == 0;
    default:
        return 0;
    }
}

static const char *const names[PLC_KAFKA_PARTITIONER_COUNT_] = {
    [PLC_KAFKA_MURMUR2] = "murmur2",
    [PLC_KAFKA_MURMUR2_RANDOM] = "murmur2_random",
    [PLC_KAFKA_CONSISTENT] = "consistent",
    [PLC_KAFKA_CONSISTENT_RANDOM] = "consistent_random",
    [PLC_KAFKA_FNV1A] = "fnv1a",
    [PLC_KAFKA_FNV1A_RANDOM] = "fnv1a_random",
};

int plc_kafka_partitioner_id(const char *name)
{
    if (!name)
        return 0;
    for (int i = 1; i < PLC_KAFKA_PARTITIONER_COUNT_; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return 0;
}

const char *plc_kafka_partitioner_name(int id)
{
    return id >= 1 && id < PLC_KAFKA_PARTITIONER_COUNT_ ? names[id] : NULL;
}
