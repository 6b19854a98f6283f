/*
 * compat_kafka.h -- Kafka as a compatibility mode (placer_builder_set_compat
 * with PLACER_COMPAT_KAFKA; its ops and build are compat_kafka.c's): a
 * PLACER_PARTITIONS snapshot of the topic's
 * partitions, one map row each (the leader first, PLACER_NO_NODE when it
 * has none, then its other replicas), whose keys go to partitions as the
 * producer's partitioner sends them (kafka_partitioner.h). Its key hash id
 * names the partitioner; a position is the start of its partition's range
 * of the hash space, as Couchbase's vBuckets' are.
 */
#ifndef PLC_ENGINE_COMPAT_KAFKA_H
#define PLC_ENGINE_COMPAT_KAFKA_H

#include "builder_internal.h"
#include "kafka_partitioner.h"
#include "snapshot_internal.h"
#include "strategy_ops.h"

/* Snapshot key hash ids of the partitioners: 48 .. 53 (docs/FORMAT.md),
 * PLC_HASH_KAFKA_FIRST - 1 + PLC_KAFKA_*, fixed apart from the other
 * programs' ids (16 and up), which grow as programs are added. */
#define PLC_HASH_KAFKA_FIRST 48
#define PLC_KAFKA_KEY_HASH(partitioner) (PLC_HASH_KAFKA_FIRST - 1 + (partitioner))
#define PLC_KAFKA_KEY_HASHES \
    ((((uint64_t)1 << (PLC_KAFKA_PARTITIONER_COUNT_ - 1)) - 1) << PLC_HASH_KAFKA_FIRST)

_Static_assert(PLC_KAFKA_KEY_HASH(PLC_KAFKA_PARTITIONER_COUNT_) <= 64,
               "Kafka's key hash ids fit the masks");

/* The partitioner of a snapshot key hash id, or 0 when it is not Kafka's. */
static inline int plc_kafka_of_key_hash(int key_hash)
{
    int p = key_hash - (PLC_HASH_KAFKA_FIRST - 1);
    return p >= 1 && p < PLC_KAFKA_PARTITIONER_COUNT_ ? p : 0;
}

/* The partition of a key in a Kafka snapshot (s->key_hash is Kafka's). */
static inline uint32_t plc_kafka_snapshot_partition(const placer_snapshot *s, const void *key,
                                                    size_t len)
{
    return plc_kafka_partition(plc_kafka_of_key_hash(s->key_hash), key, len, s->table.n);
}

/* A Kafka snapshot's placement for the diffs (s->key_hash is Kafka's):
 * the table's view, read as partitioner hash % partitions over the values
 * that hash takes (v->spans), so two topics of one partitioner are counted
 * exactly whatever their partition counts. */
void plc_kafka_diff_view(const placer_snapshot *s, int target, plc_diff_view *v);

#endif
