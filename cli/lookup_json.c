/*
 * lookup_json.c -- `placer lookup --json`'s lines, written straight into
 * stdout's buffer. Building a jansson document a key (twenty values, their
 * allocations, a dump) cost 3.5 us a key, seven times the text output; the
 * nodes' names are the same for every key, so each is turned into JSON
 * once (through jansson, as every other document's names) and a line is
 * the key, escaped here, between copies of them. The fields and their
 * order are those of the documents before (format, key or key_base64,
 * key_hex, owner, zone, address, replicas, zones, under_replicated, epoch,
 * next_owner, partition, token, compat, hash; Kafka: scattered instead of hash).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lookup_json.h"

/* s as a JSON string (quotes included), malloc'd; NULL when out of memory. */
static char *json_text(const char *s)
{
    json_t *v = cli_json_str(s);
    char *text = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
    json_decref(v);
    return text;
}

int lookup_json_open(lookup_json *j, const placer_snapshot *s)
{
    memset(j, 0, sizeof *j);
    j->n = placer_node_count(s);
    j->names = calloc((size_t)j->n * 3 + 1, sizeof *j->names);
    if (!j->names)
        return -1;
    for (uint32_t i = 0; i < j->n; i++) {
        const char *addr = placer_node_address(s, i);
        j->names[3 * i] = json_text(placer_node_id(s, i));
        j->names[3 * i + 1] = json_text(placer_node_zone(s, i));
        j->names[3 * i + 2] = json_text(addr ? addr : "");
        if (!j->names[3 * i] || !j->names[3 * i + 1] || !j->names[3 * i + 2])
            return -1;
    }
    uint64_t epoch = placer_snapshot_epoch(s);
    /* as cli_json_u64: a number up to 2^53, a string past it */
    snprintf(j->epoch, sizeof j->epoch, epoch <= (UINT64_C(1) << 53) ? "%llu" : "\"%llu\"",
             (unsigned long long)epoch);
    j->transition = placer_snapshot_in_transition(s);
    j->compat = placer_snapshot_compat(s) != PLACER_COMPAT_NONE
                    ? placer_compat_name(placer_snapshot_compat(s)) : NULL;
    return 0;
}

void lookup_json_close(lookup_json *j)
{
    for (size_t i = 0; j->names && i < (size_t)j->n * 3; i++)
        free(j->names[i]);
    free(j->names);
    j->names = NULL;
}

/* The key as a JSON string: '"', '\\' and control bytes escaped, the rest
 * (valid UTF-8, checked by the caller) as it is. */
static void put_string(FILE *out, const unsigned char *key, size_t len)
{
    static const char digits[] = "0123456789ABCDEF"; /* \u001F, as jansson writes it */
    putc('"', out);
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = key[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        fwrite(key + from, 1, i - from, out);
        from = i + 1;
        putc('\\', out);
        switch (c) {
        case '"': putc('"', out); break;
        case '\\': putc('\\', out); break;
        case '\b': putc('b', out); break;
        case '\f': putc('f', out); break;
        case '\n': putc('n', out); break;
        case '\r': putc('r', out); break;
        case '\t': putc('t', out); break;
        default: fprintf(out, "u00%c%c", digits[c >> 4], digits[c & 15]);
        }
    }
    fwrite(key + from, 1, len - from, out);
    putc('"', out);
}

static void put_node(FILE *out, const lookup_json *j, const char *first, uint32_t node)
{
    fprintf(out, "\"%s\":%s,\"zone\":%s,\"address\":%s", first, j->names[3 * node],
            j->names[3 * node + 1], j->names[3 * node + 2]);
}

int lookup_json_line(const lookup_json *j, const placer_snapshot *s, const lookup_answer *a)
{
    FILE *out = stdout;
    fprintf(out, "{\"format\":%d,", CLI_JSON_FORMAT);
    if (cli_utf8_valid(a->key, a->len) && !memchr(a->key, '\0', a->len)) {
        fputs("\"key\":", out);
        put_string(out, (const unsigned char *)a->key, a->len);
    } else {
        char *b64 = a->len < SIZE_MAX / 2 ? malloc((a->len + 2) / 3 * 4 + 1) : NULL;
        if (!b64) {
            fprintf(stderr, "placer lookup: out of memory\n");
            return CLI_FAILURE;
        }
        cli_base64(a->key, a->len, b64);
        fprintf(out, "\"key_base64\":\"%s\"", b64);
        free(b64);
    }
    if (a->hex) {
        static const char digits[] = "0123456789abcdef";
        fputs(",\"key_hex\":\"", out);
        for (size_t i = 0; i < a->len; i++) {
            putc(digits[(unsigned char)a->key[i] >> 4], out);
            putc(digits[(unsigned char)a->key[i] & 15], out);
        }
        putc('"', out);
    }
    putc(',', out);
    if (a->err)
        fputs("\"owner\":null", out);
    else
        put_node(out, j, "owner", a->owner);
    fputs(",\"replicas\":[", out);
    for (int i = 0; i < a->k; i++) {
        fputs(i ? ",{" : "{", out);
        put_node(out, j, "id", a->set[i]);
        putc('}', out);
    }
    fprintf(out, "],\"zones\":%u,\"under_replicated\":%s,\"epoch\":%s", a->rep->zones,
            a->rep->under_replicated ? "true" : "false", j->epoch);
    if (!a->err && j->transition)
        fprintf(out, ",\"next_owner\":%s", j->names[3 * a->next]);
    if (a->part >= 0)
        fprintf(out, ",\"partition\":%d", a->part);
    if (a->has_token) /* signed decimal, as Cassandra prints it */
        fprintf(out, ",\"token\":%lld", (long long)a->token);
    if (j->compat && cli_kafka_snapshot(s))
        /* a partition (above) instead of a hash; a key the producer would scatter flagged */
        fprintf(out, ",\"compat\":\"%s\",\"scattered\":%s", j->compat,
                placer_compat_key_scatters(s, a->hk, a->hlen) ? "true" : "false");
    else if (j->compat) /* the program's own 32-bit hash of the key, as its ring or table sees it */
        fprintf(out, ",\"compat\":\"%s\",\"hash\":%llu", j->compat,
                (unsigned long long)(placer_snapshot_hash(s, a->hk, a->hlen) & 0xffffffffu));
    fputs("}\n", out);
    if (ferror(out)) {
        fprintf(stderr, "placer lookup: standard output: write error\n");
        return CLI_FAILURE;
    }
    return CLI_OK;
}
