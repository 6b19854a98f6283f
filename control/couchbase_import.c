/*
 * couchbase_import.c -- a partitions snapshot from a Couchbase bucket
 * configuration (vBucketServerMap), parsed with jansson.
 *
 * Everything is checked before anything is built: the hash algorithm, the
 * server list (non-empty, unique ids), numReplicas, and every vBucketMap
 * and vBucketMapForward row (numReplicas + 1 entries, each -1 or a server
 * index); the first fault is named in the message.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "control_alloc.h"
#include "placer_control.h"

static int fail(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t why_len, const char *fmt, ...)
{
    if (why && why_len) {
        char raw[512]; /* may quote the input (jansson's text): escaped (placer_escape) */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        placer_escape(why, why_len, raw, strlen(raw));
    }
    return PLACER_EFORMAT;
}

/* An integer member in [0, max], or def when absent; -1 when bad. */
static long long int_member(const json_t *o, const char *name, long long def, long long max)
{
    const json_t *v = json_object_get(o, name);
    if (!v)
        return def;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
        return -1;
    return json_integer_value(v);
}

/* Read one map (vBucketMap or vBucketMapForward) into out. */
static int read_map(const json_t *rows, const char *name, uint32_t parts, uint32_t copies,
                    uint32_t servers, uint32_t *out, char *why, size_t why_len)
{
    if (!json_is_array(rows) || json_array_size(rows) != parts)
        return fail(why, why_len, "%s: expected an array of %u rows", name, parts);
    for (uint32_t p = 0; p < parts; p++) {
        const json_t *row = json_array_get(rows, p);
        if (!json_is_array(row) || json_array_size(row) != copies)
            return fail(why, why_len, "%s[%u]: expected an array of %u server indices", name, p,
                        copies);
        for (uint32_t c = 0; c < copies; c++) {
            const json_t *v = json_array_get(row, c);
            json_int_t x = json_is_integer(v) ? json_integer_value(v) : -2;
            if (x < -1 || x >= (json_int_t)servers)
                return fail(why, why_len, "%s[%u][%u]: expected -1 or a server index below %u",
                            name, p, c, servers);
            out[(size_t)p * copies + c] = x < 0 ? PLACER_NO_NODE : (uint32_t)x;
        }
    }
    return 0;
}

static int build(const json_t *root, placer_snapshot **out, char *why, size_t why_len)
{
    const json_t *m = json_object_get(root, "vBucketServerMap");
    if (!json_is_object(m))
        return fail(why, why_len, "vBucketServerMap: missing or not an object");
    const json_t *algo = json_object_get(m, "hashAlgorithm");
    if (algo && (!json_is_string(algo) || strcmp(json_string_value(algo), "CRC") != 0))
        return fail(why, why_len, "vBucketServerMap.hashAlgorithm: only \"CRC\" is supported");
    const json_t *servers = json_object_get(m, "serverList");
    size_t nservers = json_is_array(servers) ? json_array_size(servers) : 0;
    if (!nservers || nservers > PLACER_MAX_NODES)
        return fail(why, why_len, "vBucketServerMap.serverList: expected 1 to %u server names",
                    PLACER_MAX_NODES);
    long long replicas = int_member(m, "numReplicas", -1, PLACER_MAX_REPLICAS - 1);
    if (replicas < 0)
        return fail(why, why_len, "vBucketServerMap.numReplicas: expected an integer 0 to %u",
                    PLACER_MAX_REPLICAS - 1);
    long long rev = int_member(root, "rev", 0, UINT32_MAX);
    long long rev_epoch = int_member(root, "revEpoch", 0, UINT32_MAX);
    if (rev < 0 || rev_epoch < 0)
        return fail(why, why_len, "rev and revEpoch: expected integers 0 to 2^32 - 1");
    const json_t *rows = json_object_get(m, "vBucketMap");
    size_t parts = json_is_array(rows) ? json_array_size(rows) : 0;
    if (!parts || parts > PLACER_MAX_PARTITIONS)
        return fail(why, why_len, "vBucketServerMap.vBucketMap: expected 1 to %u rows",
                    PLACER_MAX_PARTITIONS);
    const json_t *fwd_rows = json_object_get(m, "vBucketMapForward");

    placer_builder *b = placer_builder_new();
    uint32_t copies = (uint32_t)replicas + 1;
    size_t cells = parts * copies;
    uint32_t *map = placer_mem_alloc(cells * sizeof *map);
    uint32_t *fwd = fwd_rows ? placer_mem_alloc(cells * sizeof *fwd) : NULL;
    int err = PLACER_ENOMEM;
    if (!b || !map || (fwd_rows && !fwd))
        goto out;
    for (size_t i = 0; i < nservers; i++) {
        const json_t *v = json_array_get(servers, i);
        err = json_is_string(v) ? placer_builder_add_node(b, json_string_value(v), NULL, 1.0)
                                : PLACER_EIDEMPTY;
        if (err < 0) {
            if (err != PLACER_ENOMEM)
                err = fail(why, why_len, "vBucketServerMap.serverList[%zu]: %s", i,
                           json_is_string(v) ? placer_strerror(err) : "expected a string");
            goto out;
        }
    }
    err = read_map(rows, "vBucketServerMap.vBucketMap", (uint32_t)parts, copies,
                   (uint32_t)nservers, map, why, why_len);
    if (!err && fwd)
        err = read_map(fwd_rows, "vBucketServerMap.vBucketMapForward", (uint32_t)parts, copies,
                       (uint32_t)nservers, fwd, why, why_len);
    if (err)
        goto out;
    placer_builder_set_strategy(b, PLACER_PARTITIONS);
    placer_builder_set_key_hash(b, PLACER_HASH_COUCHBASE);
    err = placer_builder_set_partition_map(b, (uint32_t)parts, copies, map, fwd);
    if (!err)
        err = placer_builder_build(b, ((uint64_t)rev_epoch << 32) | (uint64_t)rev, out);
out:
    placer_mem_free(map);
    placer_mem_free(fwd);
    placer_builder_free(b);
    return err;
}

int placer_couchbase_import_ex(const char *json, size_t len, placer_snapshot **out, char *why,
                               size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!json || !out)
        return PLACER_ENULL;
    json_error_t jerr;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root && json_error_code(&jerr) == json_error_out_of_memory)
        return PLACER_ENOMEM;
    if (!root)
        return fail(why, why_len, "line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
    int err = json_is_object(root) ? build(root, out, why, why_len)
                                   : fail(why, why_len, "expected a JSON object");
    json_decref(root);
    return err;
}

int placer_couchbase_import(const char *json, size_t len, placer_snapshot **out)
{
    return placer_couchbase_import_ex(json, len, out, NULL, 0);
}
