/*
 * output.c -- what the commands print. JSON: every document and every line
 * is built with jansson and carries "format": 1, the schema version
 * (docs/JSON.md); dumped compact on one line. Text: ids, zones and keys
 * come from files others wrote, so control characters and backslashes are
 * escaped (\xNN, \\) before they reach a terminal or a tab-separated line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Set when any JSON value or member could not be allocated: the document
 * would be incomplete, so cli_json_emit refuses it. */
static int json_oom;

json_t *cli_json_doc(void)
{
    json_t *doc = json_object();
    cli_json_put(doc, "format", json_integer(CLI_JSON_FORMAT));
    return doc;
}

void cli_json_put(json_t *obj, const char *name, json_t *value)
{
    if (!obj || !value || json_object_set_new(obj, name, value))
        json_oom = 1;
}

void cli_json_append(json_t *arr, json_t *value)
{
    if (!arr || !value || json_array_append_new(arr, value))
        json_oom = 1;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    size_t len;
    uint32_t cp;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2, cp = s[0] & 0x1f;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3, cp = s[0] & 0x0f;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4, cp = s[0] & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0; /* overlong, past Unicode, or a surrogate */
    return len;
}

int cli_utf8_valid(const void *text, size_t len)
{
    const unsigned char *s = text;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_seq(s + i, len - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

json_t *cli_json_str(const char *s)
{
    size_t n = strlen(s);
    if (cli_utf8_valid(s, n))
        return json_stringn(s, n);
    /* A name from an old file that is not UTF-8: each bad byte becomes
     * U+FFFD, so the document stays valid JSON. */
    char *fixed = malloc(3 * n + 1);
    size_t o = 0;
    for (size_t i = 0; fixed && i < n;) {
        size_t k = utf8_seq((const unsigned char *)s + i, n - i);
        if (k) {
            memcpy(fixed + o, s + i, k);
            o += k, i += k;
        } else {
            memcpy(fixed + o, "\xef\xbf\xbd", 3);
            o += 3, i++;
        }
    }
    json_t *v = fixed ? json_stringn(fixed, o) : NULL;
    free(fixed);
    return v;
}

json_t *cli_json_u64(uint64_t v)
{
    if (v <= (UINT64_C(1) << 53))
        return json_integer((json_int_t)v);
    char text[24];
    snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    return json_string(text);
}

json_t *cli_json_num(double v)
{
    /* JSON has no NaN or infinity */
    return v == v && v - v == 0 ? json_real(v) : json_null();
}

/* RFC 4648 base64 with padding of n bytes into out (4 * ceil(n / 3) + 1
 * bytes). The command sees only the public headers, so it has its own. */
void cli_base64(const void *data, size_t n, char *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *in = data;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[o++] = abc[v >> 18 & 63];
        out[o++] = abc[v >> 12 & 63];
        out[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
    out[o] = '\0';
}

void cli_json_put_key(json_t *obj, const void *key, size_t len)
{
    if (cli_utf8_valid(key, len) && !memchr(key, '\0', len)) {
        cli_json_put(obj, "key", json_stringn(key, len));
        return;
    }
    char *b64 = len < SIZE_MAX / 2 ? malloc((len + 2) / 3 * 4 + 1) : NULL;
    if (b64)
        cli_base64(key, len, b64);
    cli_json_put(obj, "key_base64", b64 ? json_string(b64) : NULL);
    free(b64);
}

int cli_json_emit(const char *cmd, json_t *doc)
{
    char *text = json_oom || !doc ? NULL
                                  : json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                                        JSON_REAL_PRECISION(17));
    json_decref(doc);
    if (!text) {
        json_oom = 0;
        fprintf(stderr, "placer %s: out of memory\n", cmd);
        return CLI_FAILURE;
    }
    /* fwrite, not printf: printf's int count fails past 2 GiB (EOVERFLOW),
     * which is not a write error */
    size_t n = strlen(text);
    errno = 0;
    FILE *out = cli_report_stream();
    int bad = fwrite(text, 1, n, out) != n || fputc('\n', out) == EOF || fflush(out) != 0;
    free(text);
    if (bad) {
        fprintf(stderr, "placer %s: %s: write error%s%s\n", cmd,
                out == stdout ? "standard output" : "standard error", errno ? ": " : "",
                errno ? strerror(errno) : "");
        return CLI_FAILURE;
    }
    return CLI_OK;
}

void cli_print_text(FILE *out, const void *text, size_t len)
{
    /* placer_escape in slices: an escape is at most 4 bytes a byte */
    const char *s = text;
    char buf[4 * 256 + 1];
    for (size_t at = 0; at < len; at += 256) {
        size_t k = len - at < 256 ? len - at : 256;
        size_t n = placer_escape(buf, sizeof buf, s + at, k);
        fwrite(buf, 1, n, out);
    }
}

void cli_print_name(FILE *out, const char *name)
{
    cli_print_text(out, name, strlen(name));
}

const char *cli_escaped(char *buf, size_t cap, const char *text)
{
    size_t len = strlen(text);
    if (placer_escape(buf, cap, text, len) >= cap && cap > 4) {
        placer_escape(buf, cap - 3, text, len); /* whole escapes only, then the mark */
        strcat(buf, "...");
    }
    return buf;
}
