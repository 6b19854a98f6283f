/*
 * etcd_snapshots.c -- publishing and fetching snapshots in etcd.
 *
 *   KEY                     the manifest (JSON): epoch, chunk prefix, chunk
 *                           count, bytes, CRC-32C of the encoded snapshot
 *   KEY/epoch               the epoch, 20 decimal digits (the CAS target)
 *   KEY/chunks/E-N/000000   the encoded snapshot in chunks of at most 1 MiB
 *                           (E: the epoch, N: the publisher's nonce)
 *
 * Publishing writes the chunks, then one transaction that compares the
 * epoch key's mod_revision with the one read and, if unchanged, writes the
 * epoch key and the manifest: of two publishers racing, exactly one wins
 * each epoch. Chunks are read at the manifest's revision, so a follower
 * sees one publish whole even while the next one deletes old chunks.
 */
#include "etcd_snapshots.h"
#include "control_alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* "KEY" + suffix */
static char *join(const char *key, const char *suffix)
{
    size_t n = strlen(key) + strlen(suffix) + 1;
    char *s = placer_mem_alloc(n);
    if (s)
        snprintf(s, n, "%s%s", key, suffix);
    return s;
}

/* Range one key (at revision when > 0): its kv (borrowed from *resp) or NULL. */
int plc_etcd_get(plc_etcd *e, const char *key, int64_t revision, json_t **resp, const json_t **kv,
                 char *why, size_t why_len)
{
    json_t *body = json_pack("{s:o}", "key", plc_etcd_b64(key, strlen(key)));
    if (!body)
        return PLACER_ENOMEM;
    if (revision > 0)
        json_object_set_new(body, "revision", json_sprintf("%" PRId64, revision));
    int err = plc_etcd_post(e, "/v3/kv/range", body, resp, why, why_len);
    json_decref(body);
    if (!err) {
        const json_t *kvs = json_object_get(*resp, "kvs");
        *kv = json_array_size(kvs) ? json_array_get(kvs, 0) : NULL;
    }
    return err;
}

static int put(plc_etcd *e, const char *key, const void *value, size_t len, char *why,
               size_t why_len)
{
    json_t *body = json_pack("{s:o,s:o}", "key", plc_etcd_b64(key, strlen(key)), "value",
                             plc_etcd_b64(value, len));
    if (!body)
        return PLACER_ENOMEM;
    json_t *resp = NULL;
    int err = plc_etcd_post(e, "/v3/kv/put", body, &resp, why, why_len);
    json_decref(body);
    json_decref(resp);
    return err;
}

/* Delete every key under prefix. */
static int delete_prefix(plc_etcd *e, const char *prefix)
{
    size_t n = strlen(prefix);
    char *end = plc_ctl_strdup(prefix);
    if (!end)
        return PLACER_ENOMEM;
    end[n - 1]++; /* the prefix's range end: its last byte + 1 ('/' -> '0') */
    json_t *body = json_pack("{s:o,s:o}", "key", plc_etcd_b64(prefix, n), "range_end",
                             plc_etcd_b64(end, n));
    placer_mem_free(end);
    json_t *resp = NULL;
    int err = body ? plc_etcd_post(e, "/v3/kv/deleterange", body, &resp, NULL, 0) : PLACER_ENOMEM;
    json_decref(body);
    json_decref(resp);
    return err;
}

static uint64_t parse_epoch(const json_t *kv)
{
    unsigned char *v;
    size_t len;
    uint64_t epoch = 0;
    if (kv && !plc_etcd_unb64(json_object_get(kv, "value"), &v, &len)) {
        for (size_t i = 0; i < len && v[i] >= '0' && v[i] <= '9'; i++)
            epoch = epoch * 10 + (uint64_t)(v[i] - '0');
        placer_mem_free(v);
    }
    return epoch;
}

/* Delete the chunk prefixes older than the one before `current` (a
 * follower may still be reading that one); newer ones belong to publishes
 * in flight and stay. Prefixes sort by epoch: 20-digit epochs. */
static void sweep(plc_etcd *e, const char *root, const char *current)
{
    size_t rl = strlen(root);
    char *end = plc_ctl_strdup(root);
    if (!end)
        return;
    end[rl - 1]++;
    json_t *body = json_pack("{s:o,s:o,s:b}", "key", plc_etcd_b64(root, rl), "range_end",
                             plc_etcd_b64(end, rl), "keys_only", 1);
    placer_mem_free(end);
    json_t *list = NULL;
    if (!body || plc_etcd_post(e, "/v3/kv/range", body, &list, NULL, 0)) {
        json_decref(body);
        return;
    }
    json_decref(body);
    /* distinct prefixes, in key order */
    char **pre = NULL;
    size_t np = 0, i;
    const json_t *x;
    json_array_foreach(json_object_get(list, "kvs"), i, x) {
        unsigned char *k;
        size_t kl;
        if (plc_etcd_unb64(json_object_get(x, "key"), &k, &kl))
            continue;
        size_t cut = kl;
        while (cut > rl && k[cut - 1] != '/')
            cut--;
        if (cut > rl && (!np || strlen(pre[np - 1]) != cut || memcmp(pre[np - 1], k, cut))) {
            char **grown = placer_mem_realloc(pre, (np + 1) * sizeof *grown);
            char *p = placer_mem_alloc(cut + 1);
            if (grown && p) {
                pre = grown;
                memcpy(p, k, cut);
                p[cut] = '\0';
                pre[np++] = p;
            } else {
                if (grown)
                    pre = grown;
                placer_mem_free(p);
            }
        }
        placer_mem_free(k);
    }
    json_decref(list);
    size_t at = 0;
    while (at < np && strcmp(pre[at], current))
        at++;
    for (size_t j = 0; j + 1 < at && at < np; j++)
        delete_prefix(e, pre[j]);
    for (size_t j = 0; j < np; j++)
        placer_mem_free(pre[j]);
    placer_mem_free(pre);
}

int placer_etcd_publish(const char *endpoints, const char *key, const placer_snapshot *s,
                        long timeout_ms, uint64_t *current_epoch, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!endpoints || !key || !*key || !s)
        return PLACER_ENULL;
    plc_etcd *e;
    int err = plc_etcd_new(endpoints, timeout_ms, &e);
    if (err)
        return err;
    void *buf = NULL;
    size_t len = 0;
    char *epoch_key = join(key, "/epoch"), *chunks_root = join(key, "/chunks/");
    char prefix[600], chunk_key[640], manifest[800], padded[24];
    uint64_t epoch = placer_snapshot_epoch(s);
    if (!epoch_key || !chunks_root || strlen(key) > 512 || (err = placer_snapshot_encode(s, &buf, &len))) {
        err = err ? err : strlen(key) > 512 ? PLACER_EINVAL : PLACER_ENOMEM;
        goto out;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t nonce = placer_hash64((uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32), &ts, sizeof ts);
    snprintf(padded, sizeof padded, "%020" PRIu64, epoch);
    snprintf(prefix, sizeof prefix, "%s%s-%016" PRIx64 "/", chunks_root, padded, nonce);
    uint32_t chunks = (uint32_t)((len + PLC_ETCD_CHUNK - 1) / PLC_ETCD_CHUNK);
    snprintf(manifest, sizeof manifest,
             "{\"epoch\":\"%" PRIu64 "\",\"prefix\":\"%s\",\"chunks\":%u,\"bytes\":%zu,\"crc32c\":%u}",
             epoch, prefix, chunks, len, placer_crc32c(0, buf, len));
    for (int attempt = 0; attempt < 8; attempt++) {
        json_t *resp = NULL;
        const json_t *kv = NULL;
        if ((err = plc_etcd_get(e, epoch_key, 0, &resp, &kv, why, why_len)))
            goto out;
        uint64_t stored = parse_epoch(kv);
        int64_t mod = kv ? plc_etcd_int(json_object_get(kv, "mod_revision")) : 0;
        json_decref(resp);
        if (stored >= epoch) {
            if (current_epoch)
                *current_epoch = stored;
            plc_say(why, why_len, "epoch %s is not newer than the one stored", padded);
            err = PLACER_ECONFLICT;
            goto out;
        }
        if (!attempt) /* the chunks, once */
            for (uint32_t c = 0; c < chunks && !err; c++) {
                snprintf(chunk_key, sizeof chunk_key, "%s%06u", prefix, c);
                size_t at = (size_t)c * PLC_ETCD_CHUNK, n = len - at < PLC_ETCD_CHUNK ? len - at : PLC_ETCD_CHUNK;
                err = put(e, chunk_key, (const char *)buf + at, n, why, why_len);
            }
        if (err)
            goto out;
        json_t *txn = json_pack(
            "{s:[{s:o,s:s,s:s,s:o}],s:[{s:{s:o,s:o}},{s:{s:o,s:o}}],s:[{s:{s:o}}]}",
            "compare", "key", plc_etcd_b64(epoch_key, strlen(epoch_key)), "target", "MOD",
            "result", "EQUAL", "mod_revision", json_sprintf("%" PRId64, mod),
            "success", "request_put", "key", plc_etcd_b64(epoch_key, strlen(epoch_key)), "value",
            plc_etcd_b64(padded, strlen(padded)), "request_put", "key", plc_etcd_b64(key, strlen(key)),
            "value", plc_etcd_b64(manifest, strlen(manifest)),
            "failure", "request_range", "key", plc_etcd_b64(epoch_key, strlen(epoch_key)));
        if (!txn) {
            err = PLACER_ENOMEM;
            goto out;
        }
        err = plc_etcd_post(e, "/v3/kv/txn", txn, &resp, why, why_len);
        json_decref(txn);
        if (err)
            goto out;
        int won = json_is_true(json_object_get(resp, "succeeded"));
        json_decref(resp);
        if (won) {
            sweep(e, chunks_root, prefix);
            err = 0;
            goto out;
        }
        /* lost the race: the stored epoch tells whether to retry */
    }
    err = PLACER_EUNAVAIL;
    plc_say(why, why_len, "%s", "the epoch key kept changing; gave up after 8 attempts");
out:
    /* A lost race leaves its chunks behind: remove them now (chunks of a
     * publish that failed otherwise are swept by the next one that wins). */
    if (err == PLACER_ECONFLICT && buf)
        delete_prefix(e, prefix);
    placer_buffer_free(buf);
    placer_mem_free(epoch_key);
    placer_mem_free(chunks_root);
    plc_etcd_free(e);
    return err;
}

int plc_etcd_load(plc_etcd *e, const unsigned char *value, size_t len, int64_t revision,
                  placer_snapshot **out, char *why, size_t why_len)
{
    if (len >= 8 && !memcmp(value, "\x89PLC", 4)) /* a raw snapshot as the value */
        return placer_snapshot_decode_ex(value, len, out, why, why_len);
    json_error_t jerr;
    json_t *m = json_loadb((const char *)value, len, 0, &jerr);
    const json_t *prefix = json_object_get(m, "prefix");
    int64_t chunks = plc_etcd_int(json_object_get(m, "chunks"));
    int64_t bytes = plc_etcd_int(json_object_get(m, "bytes"));
    uint64_t epoch = (uint64_t)plc_etcd_int(json_object_get(m, "epoch"));
    json_int_t crc = json_integer_value(json_object_get(m, "crc32c"));
    if (!m || !json_is_string(prefix) || chunks < 1 || bytes < 1 || chunks > 100000 ||
        bytes > (int64_t)chunks * PLC_ETCD_CHUNK || strlen(json_string_value(prefix)) > 600) {
        plc_say(why, why_len, "%s", "the manifest is not a placer manifest (JSON with prefix, chunks, bytes)");
        json_decref(m);
        return PLACER_EFORMAT;
    }
    unsigned char *buf = placer_mem_alloc((size_t)bytes);
    size_t at = 0;
    int err = buf ? 0 : PLACER_ENOMEM;
    char chunk_key[640];
    for (int64_t c = 0; c < chunks && !err; c++) {
        snprintf(chunk_key, sizeof chunk_key, "%s%06" PRId64, json_string_value(prefix), c);
        json_t *resp = NULL;
        const json_t *kv = NULL;
        err = plc_etcd_get(e, chunk_key, revision, &resp, &kv, why, why_len);
        unsigned char *v = NULL;
        size_t vl = 0;
        if (!err && (!kv || plc_etcd_unb64(json_object_get(kv, "value"), &v, &vl))) {
            plc_say(why, why_len, "chunk %s is missing", chunk_key);
            err = PLACER_ETRUNC;
        } else if (!err && vl > (size_t)bytes - at) {
            plc_say(why, why_len, "chunk %s runs past the manifest's length", chunk_key);
            err = PLACER_ECORRUPT;
        } else if (!err) {
            memcpy(buf + at, v, vl);
            at += vl;
        }
        placer_mem_free(v);
        json_decref(resp);
    }
    if (!err && at != (size_t)bytes) {
        plc_say(why, why_len, "%s", "the chunks hold fewer bytes than the manifest says");
        err = PLACER_ETRUNC;
    }
    if (!err && placer_crc32c(0, buf, at) != (uint32_t)crc) {
        plc_say(why, why_len, "%s", "the chunks' CRC-32C differs from the manifest's");
        err = PLACER_ECHECKSUM;
    }
    if (!err && !(err = placer_snapshot_decode_ex(buf, at, out, why, why_len)) &&
        placer_snapshot_epoch(*out) != epoch) {
        plc_say(why, why_len, "%s", "the snapshot's epoch differs from the manifest's");
        placer_snapshot_free(*out);
        err = PLACER_ECORRUPT;
    }
    placer_mem_free(buf);
    json_decref(m);
    return err;
}

int placer_etcd_fetch(const char *endpoints, const char *key, long timeout_ms,
                      placer_snapshot **out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!endpoints || !key || !out)
        return PLACER_ENULL;
    plc_etcd *e;
    int err = plc_etcd_new(endpoints, timeout_ms, &e);
    if (err)
        return err;
    json_t *resp = NULL;
    const json_t *kv = NULL;
    err = plc_etcd_get(e, key, 0, &resp, &kv, why, why_len);
    if (!err && !kv) {
        plc_say(why, why_len, "nothing under %s", key);
        err = PLACER_EMISSING;
    }
    if (!err) {
        unsigned char *v = NULL;
        size_t len;
        int64_t rev = plc_etcd_int(json_object_get(json_object_get(resp, "header"), "revision"));
        if (plc_etcd_unb64(json_object_get(kv, "value"), &v, &len))
            err = PLACER_EFORMAT;
        else
            err = plc_etcd_load(e, v, len, rev, out, why, why_len);
        placer_mem_free(v);
    }
    json_decref(resp);
    plc_etcd_free(e);
    return err;
}
