/*
 * membership_ctx.h -- what membership.c shares with membership_compat.c:
 * the parse context (the text, for locating values, and the path of the
 * value being read) and the error helper that writes
 * "FILE:LINE:COLUMN: FIELD: what is wrong".
 */
#ifndef PLC_CONTROL_MEMBERSHIP_CTX_H
#define PLC_CONTROL_MEMBERSHIP_CTX_H

#include <jansson.h>
#include <stddef.h>

#include "json_locate.h"
#include "placer.h"

typedef struct plc_mctx {
    const char *text, *name;
    size_t len;
    char *why;
    size_t why_len;
    plc_json_step path[4];
    size_t depth;
    placer_builder *b; /* for placer_builder_error's words */
} plc_mctx;

/* Write the message for the value at c->path; returns PLACER_EFORMAT. */
int plc_m_fail(plc_mctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Step into member `name` (or, name NULL, array element `index`). */
void plc_m_push(plc_mctx *c, const char *name, size_t index);

/* A builder error at the current path (PLACER_ENOMEM passes through). */
int plc_m_builder_error(plc_mctx *c, int err);

/* ---- compatibility modes (membership_compat.c) ---- */

/* The top-level fields a compat document may hold besides "epoch", "nodes"
 * and "compat" ("distribution", "key_hash", "avalanche", "hash_tag",
 * "slots"), checked against `program`, and the mode set on b. Any other
 * field is an error naming it. */
int plc_m_compat_top(plc_mctx *c, const json_t *root, placer_builder *b, int program);

/* A fields a node may not hold in native mode ("hash_id") found: the
 * error, or 0 when `key` is no such field. */
int plc_m_compat_only_node_field(plc_mctx *c, const char *key);
/* The same for top-level fields ("distribution", "avalanche", ...). */
int plc_m_compat_only_top_field(plc_mctx *c, const char *key);

/* A compat node's weight (JSON value or NULL): an integer in the program's
 * range, none at all for Redis. *w receives it (1 when absent). */
int plc_m_compat_weight(plc_mctx *c, const json_t *weight, int program, double *w);

/* A compat node's own fields after it was added as node idx: "hash_id"
 * (haproxy), "address" required where the program hashes it, "tokens"
 * refused. */
int plc_m_compat_node(plc_mctx *c, placer_builder *b, const json_t *node, uint32_t idx,
                      int program);

/* What needs every node: haproxy ids unique, twemproxy ketama point names
 * within nutcracker's 86 bytes, Redis "slots" into the partition map. */
int plc_m_compat_nodes(plc_mctx *c, placer_builder *b, const json_t *root, int program);

/* Kafka (membership_kafka.c; each returns 1 when program is another, for
 * the caller's own rules). plc_m_kafka_field: a top-level field of
 * Kafka's ("partitioner", checked, into *partitioner, a static string;
 * "partitions", read after the nodes) or one it refuses ("key_hash"), 0
 * or the error; "partitioner" in another program is an error too.
 * plc_m_kafka_weight: a node's weight found: the error (brokers have
 * none). plc_m_kafka_partitions: "partitions", a count or the partition
 * rows, into b's partition map, after the nodes; 0 for another program. */
int plc_m_kafka_field(plc_mctx *c, int program, const char *key, const json_t *v,
                      const char **partitioner);
int plc_m_kafka_weight(plc_mctx *c, int program);
int plc_m_kafka_partitions(plc_mctx *c, placer_builder *b, const json_t *root,
                           const json_t *nodes, int program);

#endif
