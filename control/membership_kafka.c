/*
 * membership_kafka.c -- a membership file's Kafka fields ("compat":
 * "kafka"; docs/COMPAT.md): "partitioner", one of librdkafka's names
 * (required), and "partitions", the topic's partition count or its
 * partitions, one row each: the leader's node id (null when Kafka shows
 * "Leader: none"), then the partition's other replicas. Every refusal of
 * the builder is found here first, with its place.
 */
#include <string.h>

#include "membership_ctx.h"
#include "placer_control.h"

int plc_m_kafka_field(plc_mctx *c, int program, const char *key, const json_t *v,
                      const char **partitioner)
{
    int kafka = program == PLACER_COMPAT_KAFKA;
    if (!strcmp(key, "partitioner") && !kafka)
        return plc_m_fail(c, "does not apply to \"%s\" (only to \"kafka\")",
                          placer_compat_name(program));
    if (!kafka)
        return 1;
    if (!strcmp(key, "partitions"))
        return 0; /* the topic's partitions: read after the nodes */
    if (!strcmp(key, "key_hash"))
        return plc_m_fail(c, "does not apply to \"kafka\" (its producer's \"partitioner\" "
                             "hashes the keys)");
    if (strcmp(key, "partitioner"))
        return 1;
    if (json_is_string(v) && placer_compat_has_key_hash(program, json_string_value(v))) {
        *partitioner = json_string_value(v);
        return 0;
    }
    return plc_m_fail(c, "expected one of librdkafka's partitioners: \"murmur2\", "
                         "\"murmur2_random\", \"consistent\", \"consistent_random\", \"fnv1a\", "
                         "\"fnv1a_random\"");
}

int plc_m_kafka_weight(plc_mctx *c, int program)
{
    if (program != PLACER_COMPAT_KAFKA)
        return 1;
    return plc_m_fail(c, "Kafka's brokers have no weights (partitions place the keys): "
                         "remove it");
}

/* One row: [leader or null, replica ids...] into row[copies]. */
static int kafka_row(plc_mctx *c, const json_t *row, const json_t *index, uint32_t *out,
                     uint32_t copies)
{
    if (!json_is_array(row) || !json_array_size(row) ||
        json_array_size(row) > PLACER_MAX_REPLICAS)
        return plc_m_fail(c, "expected [\"leader id\" or null, \"replica id\"...], at most %u ids "
                             "(placer's partition map holds %u copies)",
                          PLACER_MAX_REPLICAS, PLACER_MAX_REPLICAS);
    for (uint32_t k = 0; k < copies; k++)
        out[k] = PLACER_NO_NODE;
    for (size_t k = 0; k < json_array_size(row); k++) {
        const json_t *id = json_array_get(row, k);
        plc_m_push(c, NULL, k);
        if (k == 0 && json_is_null(id)) {
            c->depth--;
            continue; /* no leader */
        }
        if (!json_is_string(id))
            return plc_m_fail(c, k ? "expected a node id (a string)"
                                   : "expected the leader's node id (a string) or null");
        const json_t *at = json_object_get(index, json_string_value(id));
        if (!at || strlen(json_string_value(id)) != json_string_length(id))
            return plc_m_fail(c, "no node has the id \"%s\"", json_string_value(id));
        out[k] = (uint32_t)json_integer_value(at);
        for (size_t j = 0; j < k; j++)
            if (out[j] == out[k])
                return plc_m_fail(c, "\"%s\" is already in this partition's row (its replicas are "
                                     "distinct brokers)", json_string_value(id));
        c->depth--;
    }
    return 0;
}

int plc_m_kafka_partitions(plc_mctx *c, placer_builder *b, const json_t *root,
                           const json_t *nodes, int program)
{
    if (program != PLACER_COMPAT_KAFKA)
        return 0;
    const json_t *parts = json_object_get(root, "partitions");
    c->depth = 0;
    if (!json_object_get(root, "partitioner")) {
        plc_m_push(c, "compat", 0);
        return plc_m_fail(c, "\"kafka\" needs \"partitioner\" (the producer's: \"murmur2_random\" "
                             "for the Java client's default, \"consistent_random\" for "
                             "librdkafka's ...)");
    }
    plc_m_push(c, "partitions", 0);
    if (!parts)
        return plc_m_fail(c, "missing: the topic's partition count or its partitions");
    if (json_is_integer(parts)) {
        if (json_integer_value(parts) < 1 || json_integer_value(parts) > PLACER_MAX_PARTITIONS)
            return plc_m_fail(c, "expected 1 to %u partitions", PLACER_MAX_PARTITIONS);
        int err = placer_builder_set_partitions(b, (uint32_t)json_integer_value(parts));
        return err ? plc_m_builder_error(c, err) : 0;
    }
    size_t n = json_array_size(parts);
    if (!json_is_array(parts) || !n || n > PLACER_MAX_PARTITIONS)
        return plc_m_fail(c, "expected a partition count or an array of 1 to %u partitions "
                             "([\"leader id\", \"replica id\"...] each)",
                          PLACER_MAX_PARTITIONS);
    uint32_t copies = 1;
    for (size_t i = 0; i < n; i++) {
        size_t k = json_array_size(json_array_get(parts, i));
        copies = k > copies && k <= PLACER_MAX_REPLICAS ? (uint32_t)k : copies;
    }
    json_t *index = json_object();
    uint32_t *map = placer_mem_alloc(sizeof *map * n * copies);
    int err = index && map ? 0 : PLACER_ENOMEM;
    for (size_t i = 0; !err && i < json_array_size(nodes); i++)
        if (json_object_set_new(index,
                                json_string_value(json_object_get(json_array_get(nodes, i), "id")),
                                json_integer((json_int_t)i)))
            err = PLACER_ENOMEM;
    for (size_t i = 0; !err && i < n; i++) {
        c->depth = 1;
        plc_m_push(c, NULL, i);
        err = kafka_row(c, json_array_get(parts, i), index, map + i * copies, copies);
    }
    if (!err) {
        c->depth = 0;
        plc_m_push(c, "partitions", 0);
        err = placer_builder_set_partition_map(b, (uint32_t)n, copies, map, NULL);
        if (err)
            err = plc_m_builder_error(c, err);
    }
    json_decref(index);
    placer_mem_free(map);
    return err;
}
