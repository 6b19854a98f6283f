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

/* A decimal string of 1 to 20 digits that fits 64 bits (no sign, no
 * space): 0 and *out, else -1. */
static int strict_u64(const char *p, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    if (!len || len > 20)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9' || v > (UINT64_MAX - (uint64_t)(p[i] - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    *out = v;
    return 0;
}

/* The epoch stored in KEY/epoch (0 when absent); -1 when it is not one. */
static int parse_epoch(const json_t *kv, uint64_t *epoch)
{
    unsigned char *v;
    size_t len;
    *epoch = 0;
    if (!kv)
        return 0;
    if (plc_etcd_unb64(json_object_get(kv, "value"), &v, &len))
        return -1;
    int bad = strict_u64((const char *)v, len, epoch);
    placer_mem_free(v);
    return bad;
}

int plc_etcd_check_key(const char *key, char *why, size_t why_len)
{
    size_t n = strlen(key);
    if (!n || n > PLACER_MAX_ETCD_KEY) {
        plc_say(why, why_len, "the key must hold 1 to %u bytes, not %zu", PLACER_MAX_ETCD_KEY, n);
        return PLACER_EINVAL;
    }
    const unsigned char *k = (const unsigned char *)key;
    for (size_t i = 0; i < n;) {
        unsigned c = k[i];
        size_t more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 4;
        if (c < 0x20 || c == 0x7f) {
            plc_say(why, why_len, "the key holds a control character (0x%02x) at byte %zu", c, i);
            return PLACER_EINVAL;
        }
        /* UTF-8, shortest forms only, no surrogates, at most U+10FFFF */
        uint32_t cp = more == 0 ? c : more == 1 ? c & 0x1f : more == 2 ? c & 0x0f : c & 0x07;
        int ok = more < 4 && i + more < n;
        for (size_t j = 1; ok && j <= more; j++) {
            ok = (k[i + j] & 0xc0) == 0x80;
            cp = cp << 6 | (k[i + j] & 0x3fu);
        }
        static const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
        if (!ok || (more && cp < least[more]) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            plc_say(why, why_len, "the key is not UTF-8 at byte %zu", i);
            return PLACER_EINVAL;
        }
        if (cp >= 0x80 && cp < 0xa0) {
            plc_say(why, why_len, "the key holds a control character (U+%04X) at byte %zu", (unsigned)cp, i);
            return PLACER_EINVAL;
        }
        i += more + 1;
    }
    return 0;
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

/* Said in why by a publish that succeeded although an answer was lost. */
#define LANDED_NOTE "the transaction's answer was lost; read back: this publish's manifest is stored"

/* 1 when kv (a range reply's entry, or NULL) holds exactly manifest. */
static int holds(const json_t *kv, const char *manifest)
{
    unsigned char *v = NULL;
    size_t len = 0;
    int same = kv && !plc_etcd_unb64(json_object_get(kv, "value"), &v, &len) &&
               len == strlen(manifest) && !memcmp(v, manifest, len);
    placer_mem_free(v);
    return same;
}

/* The manifest the transaction's failure branch read (its second range),
 * or NULL. */
static const json_t *read_back_manifest(const json_t *txn_reply)
{
    const json_t *second = json_array_get(json_object_get(txn_reply, "responses"), 1);
    const json_t *range = json_object_get(second, "response_range");
    return json_array_get(json_object_get(range, "kvs"), 0);
}

/* The manifest, built with jansson (docs/ETCD.md); NULL when out of memory. */
static char *manifest_text(uint64_t epoch, const char *prefix, uint32_t chunks, size_t len,
                           uint32_t crc)
{
    char digits[24];
    snprintf(digits, sizeof digits, "%" PRIu64, epoch);
    json_t *m = json_pack("{s:s,s:s,s:I,s:I,s:I}", "epoch", digits, "prefix", prefix, "chunks",
                          (json_int_t)chunks, "bytes", (json_int_t)len, "crc32c", (json_int_t)crc);
    char *text = m ? json_dumps(m, JSON_COMPACT) : NULL;
    json_decref(m);
    return text;
}

static int publish(plc_etcd *e, const char *key, const placer_snapshot *s,
                   uint64_t *current_epoch, char *why, size_t why_len)
{
    int err = plc_etcd_check_key(key, why, why_len);
    if (err)
        return err;
    const char *clear;
    if (placer_snapshot_key_hash(s) == PLACER_HASH_SIPHASH13 && plc_etcd_cleartext(e, &clear) &&
        !plc_etcd_cleartext_allowed(e)) {
        plc_say(why, why_len,
                "the snapshot is keyed (siphash13): its chunks carry the secret, which '%s' "
                "would send in clear; use https:// endpoints, or allow it explicitly "
                "(--allow-cleartext-secret, placer_etcd_config_allow_cleartext_secret)", clear);
        return PLACER_EINVAL;
    }
    void *buf = NULL;
    size_t len = 0;
    char *epoch_key = join(key, "/epoch"), *chunks_root = join(key, "/chunks/"), *manifest = NULL;
    char prefix[600], chunk_key[640], padded[24];
    uint64_t epoch = placer_snapshot_epoch(s);
    if (!epoch_key || !chunks_root || (err = placer_snapshot_encode(s, &buf, &len))) {
        err = err ? err : PLACER_ENOMEM;
        goto out;
    }
    if (len > (size_t)PLC_ETCD_MAX_CHUNKS * PLC_ETCD_CHUNK) {
        plc_say(why, why_len, "the snapshot (%zu bytes) is larger than %u chunks of 1 MiB", len,
                PLC_ETCD_MAX_CHUNKS);
        err = PLACER_EINVAL;
        goto out;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t nonce = placer_hash64((uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32), &ts, sizeof ts);
    snprintf(padded, sizeof padded, "%020" PRIu64, epoch);
    snprintf(prefix, sizeof prefix, "%s%s-%016" PRIx64 "/", chunks_root, padded, nonce);
    uint32_t chunks = (uint32_t)((len + PLC_ETCD_CHUNK - 1) / PLC_ETCD_CHUNK);
    if (!(manifest = manifest_text(epoch, prefix, chunks, len, placer_crc32c(0, buf, len)))) {
        err = PLACER_ENOMEM;
        goto out;
    }
    for (int attempt = 0; attempt < 8; attempt++) {
        json_t *resp = NULL;
        const json_t *kv = NULL;
        if ((err = plc_etcd_get(e, epoch_key, 0, &resp, &kv, why, why_len)))
            goto out;
        uint64_t stored;
        int bad = parse_epoch(kv, &stored);
        int64_t mod = kv ? plc_etcd_int(json_object_get(kv, "mod_revision")) : 0;
        json_decref(resp);
        if (bad) {
            plc_say(why, why_len, "%s holds no epoch (1 to 20 decimal digits); not touching it", epoch_key);
            err = PLACER_EFORMAT;
            goto out;
        }
        /* nothing stored yet: any epoch is newer, 0 included */
        if (kv && stored >= epoch) {
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
            "{s:[{s:o,s:s,s:s,s:o}],s:[{s:{s:o,s:o}},{s:{s:o,s:o}}],s:[{s:{s:o}},{s:{s:o}}]}",
            "compare", "key", plc_etcd_b64(epoch_key, strlen(epoch_key)), "target", "MOD",
            "result", "EQUAL", "mod_revision", json_sprintf("%" PRId64, mod),
            "success", "request_put", "key", plc_etcd_b64(epoch_key, strlen(epoch_key)), "value",
            plc_etcd_b64(padded, strlen(padded)), "request_put", "key", plc_etcd_b64(key, strlen(key)),
            "value", plc_etcd_b64(manifest, strlen(manifest)),
            "failure", "request_range", "key", plc_etcd_b64(epoch_key, strlen(epoch_key)),
            "request_range", "key", plc_etcd_b64(key, strlen(key)));
        if (!txn) {
            err = PLACER_ENOMEM;
            goto out;
        }
        err = plc_etcd_post(e, "/v3/kv/txn", txn, &resp, why, why_len);
        json_decref(txn);
        if (err == PLACER_EUNAVAIL && !plc_etcd_expired(e, NULL, 0)) {
            /* No answer: the transaction may have committed all the same.
             * Read back: the manifest names this publish's own prefix only
             * if this publish stored it. */
            json_t *back = NULL;
            const json_t *mkv = NULL;
            if (!plc_etcd_get(e, key, 0, &back, &mkv, NULL, 0) && holds(mkv, manifest)) {
                json_decref(back);
                plc_say(why, why_len, "%s", LANDED_NOTE);
                sweep(e, chunks_root, prefix);
                err = 0;
                goto out;
            }
            json_decref(back);
            size_t at = why ? strnlen(why, why_len) : 0;
            if (why && at + 1 < why_len)
                plc_say(why + at, why_len - at, "%s",
                        " (the transaction's outcome is unknown: not found stored when read back, "
                        "it may still commit; read the epoch back before publishing again)");
        }
        if (err)
            goto out;
        int won = json_is_true(json_object_get(resp, "succeeded"));
        /* A failed compare after an attempt whose answer was lost (the
         * client retried the transaction on another member): the failure
         * branch read the manifest back; this publish's own means the
         * first attempt committed. */
        int landed = !won && holds(read_back_manifest(resp), manifest);
        json_decref(resp);
        if (won || landed) {
            if (landed)
                plc_say(why, why_len, "%s", LANDED_NOTE);
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
    if (err == PLACER_ECONFLICT && manifest)
        delete_prefix(e, prefix);
    placer_buffer_free(buf);
    plc_ctl_json_free(manifest);
    placer_mem_free(epoch_key);
    placer_mem_free(chunks_root);
    return err;
}

int placer_etcd_publish(const char *endpoints, const char *key, const placer_snapshot *s,
                        long timeout_ms, uint64_t *current_epoch, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!endpoints || !key || !s)
        return PLACER_ENULL;
    plc_etcd *e;
    int err = plc_etcd_new(endpoints, timeout_ms, &e);
    if (err)
        return err;
    err = publish(e, key, s, current_epoch, why, why_len);
    plc_etcd_free(e);
    return err;
}

int placer_etcd_publish_ex(const placer_etcd_config *c, const char *key, const placer_snapshot *s,
                           uint64_t *current_epoch, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!c || !key || !s)
        return PLACER_ENULL;
    plc_etcd *e;
    int err = plc_etcd_new_config(c, 0, &e);
    if (err)
        return err;
    err = publish(e, key, s, current_epoch, why, why_len);
    plc_etcd_free(e);
    return err;
}

/* What a manifest says, every field checked against its cap. */
typedef struct manifest {
    uint64_t epoch;
    uint32_t chunks, crc;
    size_t bytes;
    char prefix[600];
} manifest;

/* 0 when j holds a JSON integer in [lo, hi] (into *out); else -1. */
static int int_field(const json_t *m, const char *name, json_int_t lo, json_int_t hi,
                     json_int_t *out)
{
    const json_t *v = json_object_get(m, name);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return -1;
    *out = json_integer_value(v);
    return 0;
}

static int parse_manifest(const char *key, const unsigned char *value, size_t len, manifest *out,
                          char *why, size_t why_len)
{
    json_error_t jerr;
    json_t *m = json_loadb((const char *)value, len, JSON_REJECT_DUPLICATES, &jerr);
    const json_t *prefix = json_object_get(m, "prefix"), *epoch = json_object_get(m, "epoch");
    json_int_t chunks, bytes, crc;
    const char *bad = NULL;
    size_t kl = strlen(key);
    if (!json_is_object(m))
        bad = "the manifest is not a placer manifest (a JSON object with epoch, prefix, chunks, bytes, crc32c)";
    else if (!json_is_string(epoch) ||
             strict_u64(json_string_value(epoch), json_string_length(epoch), &out->epoch))
        bad = "the manifest's epoch is not a string of 1 to 20 decimal digits";
    else if (int_field(m, "chunks", 1, PLC_ETCD_MAX_CHUNKS, &chunks))
        bad = "the manifest's chunks is not an integer from 1 to 4096";
    else if (int_field(m, "bytes", (chunks - 1) * (json_int_t)PLC_ETCD_CHUNK + 1,
                       chunks * (json_int_t)PLC_ETCD_CHUNK, &bytes))
        bad = "the manifest's bytes does not fit its chunks (1 MiB each, the last one partly)";
    else if (int_field(m, "crc32c", 0, UINT32_MAX, &crc))
        bad = "the manifest's crc32c is not an integer from 0 to 2^32-1";
    else if (!json_is_string(prefix) || json_string_length(prefix) >= sizeof out->prefix ||
             json_string_length(prefix) != strlen(json_string_value(prefix)) ||
             strncmp(json_string_value(prefix), key, kl) ||
             strncmp(json_string_value(prefix) + kl, "/chunks/", 8))
        bad = "the manifest's prefix is not under the key's /chunks/";
    if (bad) {
        plc_say(why, why_len, "%s", bad);
        json_decref(m);
        return PLACER_EFORMAT;
    }
    out->chunks = (uint32_t)chunks;
    out->bytes = (size_t)bytes;
    out->crc = (uint32_t)crc;
    memcpy(out->prefix, json_string_value(prefix), json_string_length(prefix) + 1);
    json_decref(m);
    return 0;
}

int plc_etcd_load(plc_etcd *e, const char *key, const unsigned char *value, size_t len,
                  int64_t revision, placer_snapshot **out, char *why, size_t why_len)
{
    if (len >= 8 && !memcmp(value, "\x89PLC", 4)) /* a raw snapshot as the value */
        return placer_snapshot_decode_ex(value, len, out, why, why_len);
    manifest m;
    int err = parse_manifest(key, value, len, &m, why, why_len);
    if (err)
        return err;
    /* The buffer grows by the chunks received, never by what the manifest
     * claims: a manifest cannot make the follower allocate what etcd did
     * not send. */
    unsigned char *buf = NULL;
    size_t at = 0;
    char chunk_key[640];
    for (uint32_t c = 0; c < m.chunks && !err; c++) {
        if (plc_etcd_expired(e, why, why_len)) { /* a slow server serving many chunks */
            err = PLACER_EUNAVAIL;
            break;
        }
        snprintf(chunk_key, sizeof chunk_key, "%s%06u", m.prefix, c);
        json_t *resp = NULL;
        const json_t *kv = NULL;
        err = plc_etcd_get(e, chunk_key, revision, &resp, &kv, why, why_len);
        unsigned char *v = NULL;
        size_t vl = 0;
        size_t want = c + 1 < m.chunks ? PLC_ETCD_CHUNK : m.bytes - at;
        if (!err && (!kv || plc_etcd_unb64(json_object_get(kv, "value"), &v, &vl))) {
            plc_say(why, why_len, "chunk %s is missing", chunk_key);
            err = PLACER_ETRUNC;
        } else if (!err && vl != want) {
            plc_say(why, why_len, "chunk %s holds %zu bytes, not the %zu the manifest says", chunk_key, vl, want);
            err = vl < want ? PLACER_ETRUNC : PLACER_ECORRUPT;
        } else if (!err) {
            unsigned char *grown = placer_mem_realloc(buf, at + vl);
            if (grown) {
                buf = grown;
                memcpy(buf + at, v, vl);
                at += vl;
            } else {
                err = PLACER_ENOMEM;
            }
        }
        placer_mem_free(v);
        json_decref(resp);
    }
    if (!err && placer_crc32c(0, buf, at) != m.crc) {
        plc_say(why, why_len, "%s", "the chunks' CRC-32C differs from the manifest's");
        err = PLACER_ECHECKSUM;
    }
    if (!err && !(err = placer_snapshot_decode_ex(buf, at, out, why, why_len)) &&
        placer_snapshot_epoch(*out) != m.epoch) {
        plc_say(why, why_len, "%s", "the snapshot's epoch differs from the manifest's");
        placer_snapshot_free(*out);
        err = PLACER_ECORRUPT;
    }
    placer_mem_free(buf);
    return err;
}

/* 1 when err says etcd gave no value to judge (nothing to remember). */
static int no_value(int err)
{
    return err == PLACER_EUNAVAIL || err == PLACER_EMISSING || err == PLACER_EAUTH ||
           err == PLACER_ECOMPACTED || err == PLACER_ENOMEM;
}

/* seen (NULL: none): the key's modification revision as last read; an
 * unchanged key returns 0 with *out NULL. */
static int fetch(plc_etcd *e, const char *key, int64_t *seen, placer_snapshot **out, char *why,
                 size_t why_len)
{
    /* the timeout bounds the whole fetch, however many chunks */
    plc_etcd_set_deadline(e, plc_etcd_now_ms() + (double)plc_etcd_timeout(e));
    json_t *resp = NULL;
    const json_t *kv = NULL;
    int err = plc_etcd_get(e, key, 0, &resp, &kv, why, why_len);
    if (!err && !kv) {
        plc_say(why, why_len, "nothing under %s", key);
        err = PLACER_EMISSING;
    }
    int64_t mod = kv ? plc_etcd_int(json_object_get(kv, "mod_revision")) : 0;
    if (!err && seen && mod > 0 && mod == *seen) {
        json_decref(resp);
        return 0;
    }
    if (!err) {
        unsigned char *v = NULL;
        size_t len;
        int64_t rev = plc_etcd_int(json_object_get(json_object_get(resp, "header"), "revision"));
        if (plc_etcd_unb64(json_object_get(kv, "value"), &v, &len))
            err = PLACER_EFORMAT;
        else
            err = plc_etcd_load(e, key, v, len, rev, out, why, why_len);
        placer_mem_free(v);
    }
    if (seen && mod > 0 && !no_value(err))
        *seen = mod;
    json_decref(resp);
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
    err = fetch(e, key, NULL, out, why, why_len);
    plc_etcd_free(e);
    return err;
}

int placer_etcd_fetch_ex(const placer_etcd_config *c, const char *key, placer_snapshot **out,
                         char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!c || !key || !out)
        return PLACER_ENULL;
    plc_etcd *e;
    int err = plc_etcd_new_config(c, 0, &e);
    if (err)
        return err;
    err = fetch(e, key, NULL, out, why, why_len);
    plc_etcd_free(e);
    return err;
}

int placer_etcd_fetch_changed(const placer_etcd_config *c, const char *key, int64_t *revision,
                              placer_snapshot **out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!c || !key || !revision || !out)
        return PLACER_ENULL;
    *out = NULL;
    plc_etcd *e;
    int err = plc_etcd_new_config(c, 0, &e);
    if (err)
        return err;
    err = fetch(e, key, revision, out, why, why_len);
    plc_etcd_free(e);
    return err;
}
