/* lookup_json.h -- `placer lookup --json`'s lines without a document a key
 * (lookup_json.c). */
#ifndef PLACER_CLI_LOOKUP_JSON_H
#define PLACER_CLI_LOOKUP_JSON_H

#include <stdint.h>

#include "placer.h"

/* What stays the same for every key of one snapshot: its nodes' names as
 * JSON strings (id, zone, address: names[3 * node + 0..2]), its epoch. */
typedef struct lookup_json {
    uint32_t n;
    char **names;
    char epoch[32];
    int transition;
    const char *compat; /* the program's name, NULL for placer's own */
} lookup_json;

/* One key's answer, as cmd_lookup.c found it. */
typedef struct lookup_answer {
    const char *key; /* as typed: printed */
    size_t len;
    const char *hk; /* its bytes under the snapshot's key rule: hashed */
    size_t hlen;
    int hex, err, k, part;
    uint32_t owner, next;
    const uint32_t *set;
    const placer_replica_report *rep;
    int has_token;   /* a Cassandra key hash snapshot: "token" is printed */
    int64_t token;   /* the key's Murmur3Partitioner token */
} lookup_answer;

/* 0, or -1 when out of memory (close it either way). */
int lookup_json_open(lookup_json *j, const placer_snapshot *s);
void lookup_json_close(lookup_json *j);
/* Write a's line into stdout's buffer: CLI_OK, or CLI_FAILURE said. */
int lookup_json_line(const lookup_json *j, const placer_snapshot *s, const lookup_answer *a);

#endif
