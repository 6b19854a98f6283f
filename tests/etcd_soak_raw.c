/* etcd_soak_raw.c -- see etcd_soak_raw.h. */
#include "etcd_soak_raw.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static json_t *encode(const void *data, size_t n)
{
    const unsigned char *p = data;
    char *s = malloc(4 * ((n + 2) / 3) + 1), *o = s;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? b64[v & 63] : '=';
    }
    *o = '\0';
    json_t *j = json_string(s);
    free(s);
    return j;
}

/* Decode base64 text; a malloc'd, NUL-terminated buffer or NULL. */
static char *decode(const char *s, size_t *len)
{
    size_t n = strlen(s), at = 0;
    char *out = malloc(n / 4 * 3 + 1);
    unsigned v = 0, bits = 0;
    for (size_t i = 0; out && i < n && s[i] != '='; i++) {
        const char *k = strchr(b64, s[i]);
        if (!k || !s[i]) {
            free(out);
            return NULL;
        }
        v = v << 6 | (unsigned)(k - b64);
        if ((bits += 6) >= 8) {
            bits -= 8;
            out[at++] = (char)(v >> bits & 0xff);
        }
    }
    if (out)
        out[at] = '\0';
    *len = at;
    return out;
}

typedef struct reply_buf {
    char *p;
    size_t n;
} reply_buf;

static size_t sink(char *p, size_t s, size_t n, void *ctx)
{
    reply_buf *t = ctx;
    size_t add = s * n;
    char *grown = realloc(t->p, t->n + add + 1);
    if (!grown)
        return 0;
    memcpy(grown + t->n, p, add);
    t->p = grown;
    t->n += add;
    t->p[t->n] = '\0';
    return add;
}

/* POST body to path on the first member of urls that answers with 200,
 * each given timeout_ms. */
static json_t *post(const char *urls, const char *path, json_t *body, long timeout_ms)
{
    char *text = json_dumps(body, JSON_COMPACT), list[1024];
    json_decref(body);
    json_t *reply = NULL;
    snprintf(list, sizeof list, "%s", urls);
    for (char *save = NULL, *u = strtok_r(list, ",", &save); text && u && !reply;
         u = strtok_r(NULL, ",", &save)) {
        char url[256];
        snprintf(url, sizeof url, "%s%s", u, path);
        reply_buf got = {NULL, 0};
        CURL *h = curl_easy_init();
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, text);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &got);
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        long code = 0;
        if (curl_easy_perform(h) == CURLE_OK &&
            !curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) && code == 200) {
            reply = got.p ? json_loads(got.p, 0, NULL) : NULL;
            if (reply && !json_is_object(json_object_get(reply, "header"))) {
                json_decref(reply);
                reply = NULL;
            }
        }
        curl_easy_cleanup(h);
        free(got.p);
    }
    free(text);
    return reply;
}

static long long number(const json_t *v)
{
    return json_is_string(v) ? atoll(json_string_value(v)) : json_is_integer(v) ? json_integer_value(v) : 0;
}

int raw_get(const char *urls, const char *key, char **value, size_t *len, long long *version,
            long long *revision)
{
    json_t *r = post(urls, "/v3/kv/range", json_pack("{s:o}", "key", encode(key, strlen(key))), 2000);
    if (!r)
        return -1;
    const json_t *kv = json_array_get(json_object_get(r, "kvs"), 0);
    const json_t *v = json_object_get(kv, "value");
    *value = NULL;
    *len = 0;
    if (kv)
        *value = json_is_string(v) ? decode(json_string_value(v), len) : calloc(1, 1);
    *version = number(json_object_get(kv, "version"));
    *revision = number(json_object_get(json_object_get(r, "header"), "revision"));
    json_decref(r);
    return kv && !*value ? -1 : 0;
}

int raw_put(const char *urls, const char *key, const void *value, size_t len)
{
    json_t *r = post(urls, "/v3/kv/put",
                     json_pack("{s:o,s:o}", "key", encode(key, strlen(key)), "value", encode(value, len)),
                     10000); /* a chunk: 1.4 MB of base64 */
    json_decref(r);
    return r ? 0 : -1;
}

int raw_compact(const char *urls, long long revision)
{
    json_t *body = json_object();
    json_object_set_new(body, "revision", json_sprintf("%lld", revision));
    json_object_set_new(body, "physical", json_true());
    json_t *r = post(urls, "/v3/kv/compaction", body, 10000);
    json_decref(r);
    return r ? 0 : -1;
}
