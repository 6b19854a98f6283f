/*
 * kafka_describe.h -- the text `kafka-topics.sh --describe` prints (Kafka
 * 3.x, TopicCommand's printDescription) read into one topic's partitions,
 * leaders and replicas; import-kafka's first half (docs/COMPAT.md, "Kafka").
 *
 * Per topic, a header line
 *   Topic: T[\tTopicId: ID]\tPartitionCount: N\tReplicationFactor: R\tConfigs: ...
 *   [\tMarkedForDeletion: true]
 * then one line per partition, in partition order:
 *   \tTopic: T\tPartition: P\tLeader: B|none\tReplicas: B,B\tIsr: B,B
 *   [\tAdding Replicas: ...\tRemoving Replicas: ...][\tElr: ...|N/A
 *   \tLastKnownElr: ...|N/A][\tMarkedForDeletion: true]
 * Several topics may follow each other; blank lines and a trailing "\r" are
 * skipped, and a field of a later version ("Name: value") is passed over.
 * Anything else is refused with its line number and why, in work linear in
 * the text (a replica list is capped at PLC_KAFKA_DESC_MAX_LIST brokers).
 */
#ifndef PLC_CONTROL_KAFKA_DESCRIBE_H
#define PLC_CONTROL_KAFKA_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>

#define PLC_KAFKA_TOPIC_MAX 249u      /* Kafka's longest topic name */
#define PLC_KAFKA_DESC_MAX_LIST 256u  /* brokers in one Replicas (or Isr ...) list */

typedef struct plc_kafka_desc {
    char topic[PLC_KAFKA_TOPIC_MAX + 1]; /* the topic read (NUL-terminated) */
    uint32_t ntopics;       /* topics the text describes */
    uint32_t partitions;    /* its PartitionCount */
    uint32_t replication;   /* its ReplicationFactor */
    int32_t *leader;        /* [partitions]: the leader's broker id, -1 for "none" */
    uint32_t *first;        /* [partitions + 1]: partition p's replicas are
                             * replica[first[p] .. first[p + 1]) */
    int32_t *replica;       /* broker ids, in the order Kafka lists them */
    size_t nreplica;
} plc_kafka_desc;

/* Read `topic` (or, when topic is NULL, the only topic the text describes)
 * from text into *out (release with plc_kafka_desc_free; empty on
 * failure). Returns 0, PLACER_ENOMEM, or PLACER_EFORMAT with why
 * ("line N: ..." for a line placer cannot read as the tool prints it, a
 * partition out of order or missing, a topic described twice or not at
 * all, a second topic when none was named). */
int plc_kafka_describe_parse(const char *text, size_t len, const char *topic,
                             plc_kafka_desc *out, char *why, size_t why_len);

void plc_kafka_desc_free(plc_kafka_desc *d);

#endif
