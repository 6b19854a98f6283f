/* etcd_client.c -- see etcd_client.h. */
#include "etcd_client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base64.h"
#include "control_alloc.h"
#include "placer_control.h"

struct plc_etcd {
    char **url;
    size_t n, current;
    long timeout_ms;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void init_curl(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

int plc_etcd_new(const char *endpoints, long timeout_ms, plc_etcd **out)
{
    if (!endpoints || !out)
        return PLACER_ENULL;
    pthread_once(&curl_once, init_curl);
    plc_etcd *e = placer_mem_calloc(1, sizeof *e);
    char *copy = plc_ctl_strdup(endpoints);
    if (!e || !copy) {
        placer_mem_free(e);
        placer_mem_free(copy);
        return PLACER_ENOMEM;
    }
    e->timeout_ms = timeout_ms > 0 ? timeout_ms : 5000;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        size_t len = strlen(tok);
        while (len && (tok[len - 1] == '/' || tok[len - 1] == ' '))
            tok[--len] = '\0';
        if (!len)
            continue;
        char **grown = placer_mem_realloc(e->url, (e->n + 1) * sizeof *grown);
        char *url = plc_ctl_strdup(tok);
        if (!grown || !url) {
            placer_mem_free(url);
            if (grown)
                e->url = grown;
            placer_mem_free(copy);
            plc_etcd_free(e);
            return PLACER_ENOMEM;
        }
        e->url = grown;
        e->url[e->n++] = url;
    }
    placer_mem_free(copy);
    if (!e->n) {
        plc_etcd_free(e);
        return PLACER_EINVAL;
    }
    *out = e;
    return 0;
}

void plc_etcd_free(plc_etcd *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++)
        placer_mem_free(e->url[i]);
    placer_mem_free(e->url);
    placer_mem_free(e);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct buffer {
    char *p;
    size_t n, cap;
} buffer;

static size_t collect(char *data, size_t size, size_t nmemb, void *ctx)
{
    buffer *b = ctx;
    size_t n = size * nmemb;
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *p = placer_mem_realloc(b->p, cap);
        if (!p)
            return 0;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
    b->p[b->n] = '\0';
    return n;
}

void plc_say(char *why, size_t why_len, const char *fmt, ...)
{
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
}

/* A POST of body to url + path with the JSON header (*h: free it after). */
static CURL *new_post(const char *url, const char *path, const char *body, struct curl_slist **h)
{
    CURL *c = curl_easy_init();
    if (!c)
        return NULL;
    char full[1024];
    snprintf(full, sizeof full, "%s%s", url, path);
    *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, full); /* libcurl copies the string */
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, *h);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    return c;
}

/* One POST to one endpoint: 0 and a reply, or an error (EUNAVAIL: try
 * another endpoint). */
static int post_once(const char *url, const char *path, const char *body, long timeout_ms,
                     json_t **resp, char *why, size_t why_len)
{
    struct curl_slist *h = NULL;
    CURL *c = new_post(url, path, body, &h);
    if (!c)
        return PLACER_ENOMEM;
    buffer b = {NULL, 0, 0};
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 1000 ? timeout_ms : 1000L);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    int err = 0;
    if (rc != CURLE_OK) {
        plc_say(why, why_len, "%s: %s", url, curl_easy_strerror(rc));
        err = PLACER_EUNAVAIL;
    } else {
        json_error_t jerr;
        json_t *j = b.p ? json_loads(b.p, 0, &jerr) : NULL;
        const json_t *msg = j ? json_object_get(j, "error") : NULL;
        int64_t code = j ? plc_etcd_int(json_object_get(j, "code")) : 0;
        if (!j) {
            plc_say(why, why_len, "%s: not JSON (%s)", url, status >= 500 ? "server error" : "bad reply");
            err = status >= 500 || status == 0 ? PLACER_EUNAVAIL : PLACER_EFORMAT;
        } else if (msg || status != 200) {
            const char *text = json_is_string(msg) ? json_string_value(msg) : "error";
            plc_say(why, why_len, "%s: %s", url, text);
            /* gRPC codes: 11 out of range (compacted), 14 unavailable, 4 deadline */
            err = strstr(text, "compacted") || code == 11 ? PLACER_ECOMPACTED
                  : code == 14 || code == 4 || status >= 500 ? PLACER_EUNAVAIL
                                                              : PLACER_EFORMAT;
            json_decref(j);
        } else {
            *resp = j;
        }
    }
    placer_mem_free(b.p);
    return err;
}

int plc_etcd_post(plc_etcd *e, const char *path, json_t *body, json_t **resp, char *why,
                  size_t why_len)
{
    char *text = json_dumps(body, JSON_COMPACT);
    if (!text)
        return PLACER_ENOMEM;
    double deadline = now_ms() + (double)e->timeout_ms;
    long backoff = 20;
    int err = PLACER_EUNAVAIL;
    for (;;) {
        for (size_t tried = 0; tried < e->n; tried++) {
            double left = deadline - now_ms();
            if (left <= 0)
                goto out;
            size_t at = e->current;
            err = post_once(e->url[at], path, text, (long)(left < 2000 ? left : 2000), resp, why,
                            why_len);
            if (err != PLACER_EUNAVAIL)
                goto out;
            e->current = (e->current + 1) % e->n; /* fail over */
        }
        double left = deadline - now_ms();
        if (left <= 0)
            break;
        sleep_ms((long)(backoff < left ? backoff : left));
        backoff = backoff * 2 > 1000 ? 1000 : backoff * 2;
    }
out:
    plc_ctl_json_free(text);
    return err;
}

/* ---- watch ------------------------------------------------------------- */

typedef struct stream {
    buffer b;
    plc_etcd_message_fn fn;
    void *ctx;
    atomic_int *stop;
    int done; /* the callback asked to stop */
} stream;

static size_t on_stream(char *data, size_t size, size_t nmemb, void *ctx)
{
    stream *s = ctx;
    size_t n = size * nmemb;
    if (collect(data, size, nmemb, &s->b) != n)
        return 0;
    /* every complete JSON object at the front of the buffer */
    for (;;) {
        size_t skip = 0;
        while (skip < s->b.n && strchr(" \r\n\t", s->b.p[skip]))
            skip++;
        if (skip == s->b.n) {
            s->b.n = 0;
            break;
        }
        json_error_t jerr;
        json_t *msg = json_loadb(s->b.p + skip, s->b.n - skip, JSON_DISABLE_EOF_CHECK, &jerr);
        if (!msg)
            break; /* incomplete: wait for more */
        size_t used = skip + (size_t)jerr.position;
        memmove(s->b.p, s->b.p + used, s->b.n - used);
        s->b.n -= used;
        int stop = s->fn(s->ctx, msg);
        json_decref(msg);
        if (stop) {
            s->done = 1;
            return 0; /* aborts the transfer */
        }
    }
    return n;
}

static int on_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    (void)a, (void)b, (void)c, (void)d;
    stream *s = ctx;
    return atomic_load(s->stop) ? 1 : 0;
}

int plc_etcd_watch(plc_etcd *e, const char *key, int64_t start_revision,
                   plc_etcd_message_fn on_message, void *ctx, atomic_int *stop, char *why,
                   size_t why_len)
{
    json_t *create = json_object();
    json_object_set_new(create, "key", plc_etcd_b64(key, strlen(key)));
    if (start_revision > 0)
        json_object_set_new(create, "start_revision", json_sprintf("%lld", (long long)start_revision));
    json_t *body = json_pack("{s:o}", "create_request", create);
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    if (!text)
        return PLACER_ENOMEM;
    struct curl_slist *h = NULL;
    CURL *c = new_post(e->url[e->current], "/v3/watch", text, &h);
    if (!c) {
        curl_slist_free_all(h);
        plc_ctl_json_free(text);
        return PLACER_ENOMEM;
    }
    stream s = {{NULL, 0, 0}, on_message, ctx, stop, 0};
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &s);
    /* a stream that goes silent (its member died without closing): give up
     * after a while and let the caller reconnect elsewhere */
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 10L);
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    CURLcode rc = curl_easy_perform(c);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    plc_ctl_json_free(text);
    placer_mem_free(s.b.p);
    if (s.done || atomic_load(stop))
        return 0;
    plc_say(why, why_len, "%s: watch ended: %s", e->url[e->current],
        rc == CURLE_OK ? "closed by the server" : curl_easy_strerror(rc));
    e->current = (e->current + 1) % e->n;
    return PLACER_EUNAVAIL;
}

json_t *plc_etcd_b64(const void *data, size_t len)
{
    char *s = placer_mem_alloc(plc_b64_len(len) + 1);
    if (!s)
        return NULL;
    plc_b64_encode(data, len, s);
    json_t *j = json_string(s);
    placer_mem_free(s);
    return j;
}

int plc_etcd_unb64(const json_t *v, unsigned char **out, size_t *len)
{
    if (!v) { /* etcd leaves out empty values */
        *out = placer_mem_alloc(1);
        *len = 0;
        return *out ? 0 : -1;
    }
    return json_is_string(v) ? plc_b64_decode(json_string_value(v), out, len) : -1;
}

int64_t plc_etcd_int(const json_t *v)
{
    if (json_is_integer(v))
        return json_integer_value(v);
    if (json_is_string(v))
        return strtoll(json_string_value(v), NULL, 10);
    return 0;
}
