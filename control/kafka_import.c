/*
 * kafka_import.c -- a topic of `kafka-topics.sh --describe` text
 * (kafka_describe.c reads it) into a membership document ("compat":
 * "kafka"): its brokers as nodes (named by their id, in ascending order),
 * the producer's partitioner, and one row per partition: the leader's id
 * (null for "Leader: none"), then the partition's other replicas in
 * Kafka's order. Then a snapshot, as `placer build` makes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat_import.h"
#include "kafka_describe.h"
#include "placer_control.h"

static int by_id(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static json_t *broker(int32_t id)
{
    char s[16];
    snprintf(s, sizeof s, "%d", (int)id);
    return json_string(s);
}

/* The brokers the partitions name, each once, ascending, as nodes. */
static int nodes_of(const plc_kafka_desc *d, json_t *nodes)
{
    size_t n = d->nreplica + d->partitions;
    int32_t *ids = placer_mem_alloc(sizeof *ids * n);
    if (!ids)
        return PLACER_ENOMEM;
    size_t k = 0;
    memcpy(ids, d->replica, sizeof *ids * d->nreplica);
    k = d->nreplica;
    for (uint32_t p = 0; p < d->partitions; p++)
        if (d->leader[p] >= 0)
            ids[k++] = d->leader[p];
    qsort(ids, k, sizeof *ids, by_id);
    int err = 0;
    for (size_t i = 0; !err && i < k; i++) {
        if (i && ids[i] == ids[i - 1])
            continue;
        json_t *node = json_object();
        if (!node || json_object_set_new(node, "id", broker(ids[i])) ||
            json_array_append_new(nodes, node))
            err = PLACER_ENOMEM;
    }
    placer_mem_free(ids);
    return err;
}

static int rows_of(const plc_kafka_desc *d, json_t *parts, char *why, size_t why_len)
{
    for (uint32_t p = 0; p < d->partitions; p++) {
        uint32_t n = d->first[p + 1] - d->first[p];
        int32_t leader = d->leader[p];
        int led = 0;
        for (uint32_t i = d->first[p]; i < d->first[p + 1]; i++)
            led |= d->replica[i] == leader;
        if (n + (leader >= 0 && !led) > PLACER_MAX_REPLICAS) {
            if (why && why_len)
                snprintf(why, why_len, "topic \"%s\", partition %u: %u brokers (leader and "
                         "replicas); placer's partition map holds %u", d->topic, p,
                         n + (leader >= 0 && !led), PLACER_MAX_REPLICAS);
            return PLACER_EFORMAT;
        }
        json_t *row = json_array();
        int err = row && !json_array_append_new(parts, row) ? 0 : PLACER_ENOMEM;
        if (!err && json_array_append_new(row, leader >= 0 ? broker(leader) : json_null()))
            err = PLACER_ENOMEM;
        for (uint32_t i = d->first[p]; !err && i < d->first[p + 1]; i++)
            if (d->replica[i] != leader && json_array_append_new(row, broker(d->replica[i])))
                err = PLACER_ENOMEM;
        if (err)
            return err;
    }
    return 0;
}

int placer_kafka_membership(const char *text, size_t len, const char *topic,
                            const char *partitioner, char **json, size_t *json_len, char *why,
                            size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!text || !json || !json_len)
        return PLACER_ENULL;
    const char *p = partitioner ? partitioner : "murmur2_random";
    if (!placer_compat_has_key_hash(PLACER_COMPAT_KAFKA, p)) { /* Kafka's ops name them */
        if (why && why_len)
            snprintf(why, why_len, "partitioner \"%.64s\": librdkafka's are murmur2, "
                     "murmur2_random, consistent, consistent_random, fnv1a, fnv1a_random", p);
        return PLACER_EINVAL;
    }
    plc_kafka_desc d;
    int err = plc_kafka_describe_parse(text, len, topic, &d, why, why_len);
    if (err)
        return err;
    json_t *doc = json_object(), *nodes = json_array(), *parts = json_array();
    err = doc && nodes && parts ? 0 : PLACER_ENOMEM;
    if (!err)
        err = nodes_of(&d, nodes);
    if (!err)
        err = rows_of(&d, parts, why, why_len);
    if (!err && (json_object_set_new(doc, "compat", json_string("kafka")) ||
                 json_object_set_new(doc, "partitioner", json_string(p)) ||
                 json_object_set(doc, "nodes", nodes) ||
                 json_object_set(doc, "partitions", parts)))
        err = PLACER_ENOMEM;
    if (!err)
        err = plc_ctl_dump_membership(doc, json, json_len);
    json_decref(doc);
    json_decref(nodes);
    json_decref(parts);
    plc_kafka_desc_free(&d);
    return err;
}

int placer_kafka_import(const char *text, size_t len, const char *topic,
                        const char *partitioner, uint64_t epoch, placer_snapshot **out,
                        char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!out)
        return PLACER_ENULL;
    char *doc = NULL;
    size_t doc_len = 0;
    int err = placer_kafka_membership(text, len, topic, partitioner, &doc, &doc_len, why, why_len);
    return plc_ctl_import_doc(err, doc, doc_len, "the topic's membership", 1, epoch, out, why,
                              why_len);
}
