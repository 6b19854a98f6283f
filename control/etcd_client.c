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
    char *cacert, *cert, *cert_key; /* TLS files, NULL when not set */
    char *user, *password;          /* NULL: no authentication */
    char *auth;                     /* "Authorization: TOKEN", NULL until authenticated */
    int auth_off;                   /* etcd said authentication is not enabled */
    unsigned logins;
    int allow_cleartext_secret;     /* the config allowed keyed snapshots over http:// */
    const atomic_int *stop;         /* non-zero: every call gives up (NULL: none) */
    double deadline;                /* monotonic ms every call ends by (0: none) */
};

/* How often a transfer looks at the stop flag and the deadline. */
#define PLC_POLL_MS 50

/* An etcd error that means "authenticate again" (not a PLACER_E* code). */
#define PLC_RELOGIN 1
/* A TLS connection reset right after the handshake: a member refusing our
 * certificate, or one going down; PLC_TLS_STRIKES of them in one call make
 * it PLACER_EAUTH (a member that went down refuses the next connection). */
#define PLC_TLS_MAYBE 2
#define PLC_TLS_STRIKES 3

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
        if ((strncmp(tok, "http://", 7) || len == 7) && (strncmp(tok, "https://", 8) || len == 8)) {
            placer_mem_free(copy);
            plc_etcd_free(e);
            return PLACER_EINVAL; /* only http:// and https:// URLs */
        }
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

/* Overwrite then free a secret (volatile: the stores are not elided). */
static void free_secret(char *s)
{
    if (!s)
        return;
    for (volatile char *p = s; *p; p++)
        *p = '\0';
    placer_mem_free(s);
}

static int dup_or_null(char **slot, const char *s)
{
    return s && !(*slot = plc_ctl_strdup(s)) ? -1 : 0;
}

int plc_etcd_new_config(const placer_etcd_config *c, long timeout_ms, plc_etcd **out)
{
    if (!c || !out)
        return PLACER_ENULL;
    plc_etcd *e;
    int err = plc_etcd_new(c->endpoints, timeout_ms > 0 ? timeout_ms : c->timeout_ms, &e);
    if (err)
        return err;
    if (dup_or_null(&e->cacert, c->cacert) || dup_or_null(&e->cert, c->cert) ||
        dup_or_null(&e->cert_key, c->cert_key) || dup_or_null(&e->user, c->user) ||
        dup_or_null(&e->password, c->password)) {
        plc_etcd_free(e);
        return PLACER_ENOMEM;
    }
    e->allow_cleartext_secret = c->allow_cleartext_secret;
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
    placer_mem_free(e->cacert);
    placer_mem_free(e->cert);
    placer_mem_free(e->cert_key);
    placer_mem_free(e->user);
    free_secret(e->password);
    free_secret(e->auth);
    placer_mem_free(e);
}

unsigned plc_etcd_logins(const plc_etcd *e)
{
    return e ? e->logins : 0;
}

double plc_etcd_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
#define now_ms plc_etcd_now_ms

void plc_etcd_set_stop(plc_etcd *e, const atomic_int *stop)
{
    e->stop = stop;
}

void plc_etcd_set_deadline(plc_etcd *e, double deadline_ms)
{
    e->deadline = deadline_ms;
}

long plc_etcd_timeout(const plc_etcd *e)
{
    return e->timeout_ms;
}

int plc_etcd_cleartext(const plc_etcd *e, const char **url)
{
    for (size_t i = 0; i < e->n; i++)
        if (!strncmp(e->url[i], "http://", 7)) {
            *url = e->url[i];
            return 1;
        }
    return 0;
}

int plc_etcd_cleartext_allowed(const plc_etcd *e)
{
    return e->allow_cleartext_secret;
}

static int stopped(const plc_etcd *e)
{
    return e->stop && atomic_load(e->stop);
}

int plc_etcd_expired(const plc_etcd *e, char *why, size_t why_len)
{
    if (stopped(e)) {
        plc_say(why, why_len, "%s", "stopped");
        return 1;
    }
    if (e->deadline > 0 && now_ms() >= e->deadline) {
        plc_say(why, why_len, "%s", "out of time (the call's timeout)");
        return 1;
    }
    return 0;
}

/* Sleep ms, waking early when e is stopped. */
static void sleep_ms(const plc_etcd *e, long ms)
{
    while (ms > 0 && !stopped(e)) {
        long slice = ms < 10 ? ms : 10;
        struct timespec ts = {0, slice * 1000000L};
        nanosleep(&ts, NULL);
        ms -= slice;
    }
}

/* Run the transfer c in slices of at most PLC_POLL_MS, so that a server
 * that trickles or stalls cannot keep it past the deadline (monotonic ms)
 * or past e's stop flag: CURLE_OPERATION_TIMEDOUT or
 * CURLE_ABORTED_BY_CALLBACK then. (curl_easy_perform would look at a
 * progress callback only about once a second on an idle connection.) */
static CURLcode perform(const plc_etcd *e, CURL *c, const atomic_int *stop, double deadline)
{
    CURLM *m = curl_multi_init();
    if (!m)
        return CURLE_OUT_OF_MEMORY;
    if (curl_multi_add_handle(m, c) != CURLM_OK) {
        curl_multi_cleanup(m);
        return CURLE_OUT_OF_MEMORY;
    }
    CURLcode rc = CURLE_OK;
    int running = 1;
    for (;;) {
        if (curl_multi_perform(m, &running) != CURLM_OK) {
            rc = CURLE_OUT_OF_MEMORY;
            break;
        }
        if (!running) {
            int queued;
            CURLMsg *msg;
            while ((msg = curl_multi_info_read(m, &queued)))
                if (msg->msg == CURLMSG_DONE)
                    rc = msg->data.result;
            break;
        }
        double left = deadline > 0 ? deadline - now_ms() : PLC_POLL_MS;
        if (stopped(e) || (stop && atomic_load(stop))) {
            rc = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        if (left <= 0) {
            rc = CURLE_OPERATION_TIMEDOUT;
            break;
        }
        int wait = left < PLC_POLL_MS ? (int)left + 1 : PLC_POLL_MS;
        if (curl_multi_poll(m, NULL, 0, wait, NULL) != CURLM_OK) {
            rc = CURLE_OUT_OF_MEMORY;
            break;
        }
    }
    curl_multi_remove_handle(m, c);
    curl_multi_cleanup(m);
    return rc;
}

typedef struct buffer {
    char *p;
    size_t n, cap;
} buffer;

static size_t collect(char *data, size_t size, size_t nmemb, void *ctx)
{
    buffer *b = ctx;
    size_t n = size * nmemb;
    if (n > PLC_ETCD_MAX_REPLY - b->n)
        return 0; /* past the cap: the transfer fails */
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

/* A POST of body to url + path with the JSON header, the TLS files and the
 * token when there is one (*h: free it after); curl's message for a
 * failure goes to err (CURL_ERROR_SIZE bytes). */
static CURL *new_post(const plc_etcd *e, const char *url, const char *path, const char *body,
                      int with_token, struct curl_slist **h, char *err)
{
    CURL *c = curl_easy_init();
    if (!c)
        return NULL;
    char full[1024];
    snprintf(full, sizeof full, "%s%s", url, path);
    *h = curl_slist_append(NULL, "Content-Type: application/json");
    if (*h && with_token && e->auth) {
        struct curl_slist *more = curl_slist_append(*h, e->auth);
        if (!more) {
            curl_slist_free_all(*h);
            *h = NULL;
        }
    }
    if (!*h) {
        curl_easy_cleanup(c);
        return NULL;
    }
    err[0] = '\0';
    curl_easy_setopt(c, CURLOPT_URL, full); /* libcurl copies the string */
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, *h);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    if (e->cacert)
        curl_easy_setopt(c, CURLOPT_CAINFO, e->cacert);
    if (e->cert) {
        curl_easy_setopt(c, CURLOPT_SSLCERT, e->cert);
        curl_easy_setopt(c, CURLOPT_SSLKEY, e->cert_key);
    }
    return c;
}

/* A transfer that failed: PLACER_EAUTH when TLS refused a certificate
 * (ours or the member's: trying again will not help), PLC_TLS_MAYBE when
 * the member dropped the connection right after the TLS handshake, else
 * PLACER_EUNAVAIL (try another member). */
static int transfer_error(const char *url, CURLcode rc, const char *detail, int after_handshake,
                          char *why, size_t why_len)
{
    int tls = rc == CURLE_SSL_CERTPROBLEM || rc == CURLE_SSL_CACERT_BADFILE ||
              rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_ISSUER_ERROR ||
              rc == CURLE_SSL_CRL_BADFILE || rc == CURLE_SSL_PINNEDPUBKEYNOTMATCH;
    /* A member that refuses our certificate (or its absence) sends an alert,
     * during the handshake (TLS 1.2) or on the first read (TLS 1.3), and
     * closes the connection. When the close overtakes a slow client
     * (sanitizers, load), curl sees no alert but a socket reset or no
     * longer connected once the handshake is done, before any byte of a
     * reply: ambiguous once, a refusal when it keeps happening. */
    int io = rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
             rc == CURLE_GOT_NOTHING || rc == CURLE_HTTP2 || rc == CURLE_HTTP2_STREAM; /* h2 by ALPN */
    if (io && (strstr(detail, "alert") || strstr(detail, "certificate") ||
               strstr(detail, "wrong version")))
        tls = 1;
    int maybe = !tls && io && !strncmp(url, "https://", 8) &&
                (after_handshake || strstr(detail, "getpeername") || strstr(detail, "reset by peer") ||
                 strstr(detail, "SSL_ERROR_SYSCALL") || strstr(detail, "unexpected eof"));
    plc_say(why, why_len, "%s: %s%s%s", url, tls ? "TLS refused: " : "",
            *detail ? detail : curl_easy_strerror(rc),
            maybe ? " (right after the TLS handshake: the member refuses the client "
                    "certificate, or that none was given, or it went down)"
                  : "");
    return tls ? PLACER_EAUTH : maybe ? PLC_TLS_MAYBE : PLACER_EUNAVAIL;
}

/* The error etcd answered with (text, gRPC code, HTTP status) as a code:
 * PLC_RELOGIN when a new token would help, PLACER_EAUTH for refused
 * credentials or permissions, PLACER_ECOMPACTED, PLACER_EUNAVAIL (try
 * another member) or PLACER_EFORMAT. */
static int etcd_error(const plc_etcd *e, const char *text, int64_t code, long status)
{
    if (strstr(text, "invalid auth token") || strstr(text, "auth store is old") || code == 16)
        return e->user ? PLC_RELOGIN : PLACER_EAUTH;
    if (strstr(text, "permission denied") || strstr(text, "authentication failed") ||
        strstr(text, "user name is empty") || strstr(text, "user name not found") || code == 7)
        return PLACER_EAUTH;
    /* gRPC codes: 11 out of range (compacted), 14 unavailable, 4 deadline */
    if (strstr(text, "compacted") || code == 11)
        return PLACER_ECOMPACTED;
    if (code == 14 || code == 4 || status >= 500)
        return PLACER_EUNAVAIL;
    return PLACER_EFORMAT;
}

/* The text of an error reply: {"error":"..."} (unary calls) or
 * {"error":{"message":"...","grpc_code":N}} (the watch stream); NULL when
 * the reply is no error. *code receives the gRPC code. */
static const char *error_text(const json_t *j, int64_t *code)
{
    const json_t *err = json_object_get(j, "error");
    *code = plc_etcd_int(json_object_get(j, "code"));
    if (json_is_object(err)) {
        *code = plc_etcd_int(json_object_get(err, "grpc_code"));
        const json_t *m = json_object_get(err, "message");
        return json_is_string(m) ? json_string_value(m) : "error";
    }
    return err ? json_is_string(err) ? json_string_value(err) : "error" : NULL;
}

/* One POST to one endpoint: 0 and a reply, or an error (EUNAVAIL: try
 * another endpoint; PLC_RELOGIN: authenticate again). */
static int post_once(plc_etcd *e, const char *url, const char *path, const char *body,
                     long timeout_ms, int with_token, json_t **resp, char *why, size_t why_len)
{
    struct curl_slist *h = NULL;
    char detail[CURL_ERROR_SIZE];
    CURL *c = new_post(e, url, path, body, with_token, &h, detail);
    if (!c)
        return PLACER_ENOMEM;
    buffer b = {NULL, 0, 0};
    if (timeout_ms < 1)
        timeout_ms = 1; /* curl reads 0 as no timeout at all */
    double deadline = now_ms() + (double)timeout_ms;
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 1000 ? timeout_ms : 1000L);
    CURLcode rc = perform(e, c, NULL, deadline);
    long status = 0;
    curl_off_t tls_done = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(c, CURLINFO_APPCONNECT_TIME_T, &tls_done);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    int err = 0;
    if (rc != CURLE_OK) {
        err = transfer_error(url, rc, detail, tls_done > 0 && !status, why, why_len);
    } else {
        json_error_t jerr;
        json_t *j = b.p ? json_loads(b.p, 0, &jerr) : NULL;
        int64_t code = 0;
        const char *text = j ? error_text(j, &code) : NULL;
        if (!j) {
            plc_say(why, why_len, "%s: HTTP %ld%s, a reply that is not JSON (is this an etcd endpoint?)",
                    url, status, status >= 500 ? " (a server error)" : "");
            err = status >= 500 || status == 0 ? PLACER_EUNAVAIL : PLACER_EFORMAT;
        } else if (!text && (status != 200 || !json_is_object(json_object_get(j, "header")))) {
            /* every etcd reply carries its header (cluster, member, revision) */
            plc_say(why, why_len, "%s: HTTP %ld, JSON %s (is this an etcd endpoint?)", url, status,
                    status != 200 ? "that is no etcd error" : "without etcd's header");
            err = status >= 500 ? PLACER_EUNAVAIL : PLACER_EFORMAT;
            json_decref(j);
        } else if (text) {
            err = etcd_error(e, text, code, status);
            if (err == PLACER_EAUTH && !e->user && !strstr(text, "permission"))
                plc_say(why, why_len, "%s: %s (this etcd requires a user: give one)", url, text);
            else if (err == PLACER_EAUTH && e->user)
                plc_say(why, why_len, "%s: %s (user '%s')", url, text, e->user);
            else
                plc_say(why, why_len, "%s: %s (HTTP %ld)", url, text, status);
            json_decref(j);
        } else {
            *resp = j;
        }
    }
    if (b.p)
        memset(b.p, 0, b.n); /* may hold a token */
    placer_mem_free(b.p);
    return err;
}

/* Authenticate at url (when a user is set and there is no token yet):
 * 0 (a token, or authentication is not enabled in this etcd), EAUTH,
 * EUNAVAIL (try another member) or ENOMEM. */
static int login(plc_etcd *e, const char *url, long timeout_ms, char *why, size_t why_len)
{
    if (!e->user || e->auth || e->auth_off)
        return 0;
    json_t *body = json_pack("{s:s,s:s}", "name", e->user, "password", e->password);
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body); /* jansson does not wipe; the copy in text is wiped below */
    if (!text)
        return PLACER_ENOMEM;
    json_t *resp = NULL;
    int err = post_once(e, url, "/v3/auth/authenticate", text, timeout_ms, 0, &resp, why, why_len);
    for (volatile char *p = text; *p; p++) /* the password's copy */
        *p = '\0';
    plc_ctl_json_free(text);
    if (err == PLACER_EFORMAT && strstr(why ? why : "", "authentication is not enabled")) {
        e->auth_off = 1; /* nothing to present: carry on without a token */
        return 0;
    }
    if (err == PLC_RELOGIN || (err == PLACER_EFORMAT && why && strstr(why, "auth"))) {
        err = PLACER_EAUTH;
    }
    if (err)
        return err;
    const json_t *token = json_object_get(resp, "token");
    if (!json_is_string(token) || !json_string_length(token)) {
        json_decref(resp);
        plc_say(why, why_len, "%s: authenticate gave no token", url);
        return PLACER_EFORMAT;
    }
    size_t n = strlen("Authorization: ") + json_string_length(token) + 1;
    char *line = placer_mem_alloc(n);
    if (line)
        snprintf(line, n, "Authorization: %s", json_string_value(token));
    json_decref(resp);
    if (!line)
        return PLACER_ENOMEM;
    e->auth = line;
    e->logins++;
    return 0;
}

/* Drop the token so that the next call authenticates again. */
static void logout(plc_etcd *e)
{
    free_secret(e->auth);
    e->auth = NULL;
}

/* One attempt's budget: what is left before deadline, at most 2 s (so that
 * a member that hangs leaves time for the others), at least 1 ms (a
 * truncation to 0 would mean no timeout at all to curl). */
static long budget_ms(double deadline)
{
    double left = deadline - now_ms();
    long b = left >= 2000 ? 2000 : (long)left;
    return b < 1 ? 1 : b;
}

int plc_etcd_post(plc_etcd *e, const char *path, json_t *body, json_t **resp, char *why,
                  size_t why_len)
{
    char *text = json_dumps(body, JSON_COMPACT);
    if (!text)
        return PLACER_ENOMEM;
    double deadline = now_ms() + (double)e->timeout_ms;
    if (e->deadline > 0 && e->deadline < deadline)
        deadline = e->deadline;
    long backoff = 20;
    int err = PLACER_EUNAVAIL, relogged = 0, tls_strikes = 0, attempts = 0;
    for (;;) {
        for (size_t tried = 0; tried < e->n; tried++) {
            if (stopped(e) || deadline - now_ms() <= 0) {
                if (!attempts || stopped(e))
                    plc_say(why, why_len, "%s", stopped(e) ? "stopped" : "out of time (the call's timeout)");
                err = PLACER_EUNAVAIL;
                goto out;
            }
            size_t at = e->current;
            attempts++;
            err = login(e, e->url[at], budget_ms(deadline), why, why_len);
            if (!err)
                err = post_once(e, e->url[at], path, text, budget_ms(deadline), 1, resp, why, why_len);
            if (err == PLC_RELOGIN && !relogged) {
                /* etcd expired the token: one new one, then the same member again */
                logout(e);
                relogged = 1;
                tried--;
                continue;
            }
            if (err == PLC_RELOGIN)
                err = PLACER_EAUTH;
            if (err == PLC_TLS_MAYBE && ++tls_strikes >= PLC_TLS_STRIKES) {
                err = PLACER_EAUTH; /* why holds the last reset */
                goto out;
            }
            if (err == PLC_TLS_MAYBE)
                err = PLACER_EUNAVAIL;
            if (err != PLACER_EUNAVAIL)
                goto out;
            e->current = (e->current + 1) % e->n; /* fail over */
        }
        double left = deadline - now_ms();
        if (left <= 0 || stopped(e))
            continue; /* the check at the top ends the call */
        sleep_ms(e, (long)(backoff < left ? backoff : left + 1));
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
    int done;         /* the callback asked to stop */
    int refused;      /* etcd answered with an error: its code (etcd_error) */
    char error[200];  /* and its text */
    const plc_etcd *e;
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
        int64_t code = 0;
        const char *text = error_text(msg, &code);
        const json_t *result = json_object_get(msg, "result"), *reason;
        /* etcd cancels a watch it refuses: "rpc error: code = Unauthenticated
         * desc = etcdserver: invalid auth token" */
        if (!text && json_is_true(json_object_get(result, "canceled")) &&
            json_is_string(reason = json_object_get(result, "cancel_reason"))) {
            int why = etcd_error(s->e, json_string_value(reason), 0, 0);
            if (why == PLC_RELOGIN || why == PLACER_EAUTH)
                text = json_string_value(reason);
        }
        if (text) { /* an error instead of a watch: the token, a permission */
            snprintf(s->error, sizeof s->error, "%s", text);
            s->refused = etcd_error(s->e, text, code, 0);
            json_decref(msg);
            return 0;
        }
        int stop = s->fn(s->ctx, msg);
        json_decref(msg);
        if (stop) {
            s->done = 1;
            return 0; /* aborts the transfer */
        }
    }
    return n;
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
    double deadline = now_ms() + (double)e->timeout_ms;
    if (e->deadline > 0 && e->deadline < deadline)
        deadline = e->deadline;
    int err = login(e, e->url[e->current], budget_ms(deadline), why, why_len);
    if (err == PLC_TLS_MAYBE)
        err = PLACER_EUNAVAIL;
    if (err) {
        plc_ctl_json_free(text);
        if (err == PLACER_EUNAVAIL)
            e->current = (e->current + 1) % e->n;
        return err;
    }
    struct curl_slist *h = NULL;
    char detail[CURL_ERROR_SIZE];
    CURL *c = new_post(e, e->url[e->current], "/v3/watch", text, 1, &h, detail);
    if (!c) {
        plc_ctl_json_free(text);
        return PLACER_ENOMEM;
    }
    stream s = {{NULL, 0, 0}, on_message, ctx, stop, 0, 0, "", e};
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
    /* a stream that goes silent (its member died without closing): give up
     * after a while and let the caller reconnect elsewhere */
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 10L);
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    CURLcode rc = perform(e, c, stop, e->deadline); /* ends at *stop (or e's) within 50 ms */
    long status = 0;
    curl_off_t tls_done = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(c, CURLINFO_APPCONNECT_TIME_T, &tls_done);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    plc_ctl_json_free(text);
    placer_mem_free(s.b.p);
    if (s.done || atomic_load(stop) || stopped(e))
        return 0;
    if (s.refused) {
        plc_say(why, why_len, "%s: watch refused: %s", e->url[e->current], s.error);
        if (s.refused == PLC_RELOGIN)
            logout(e); /* the next attempt authenticates again */
        return s.refused == PLACER_EAUTH ? PLACER_EAUTH : PLACER_EUNAVAIL;
    }
    err = transfer_error(e->url[e->current], rc, detail, tls_done > 0 && !status, why, why_len);
    if (err == PLC_TLS_MAYBE)
        err = PLACER_EUNAVAIL; /* the caller reconnects; a fresh read tells */
    if (rc == CURLE_OK)
        plc_say(why, why_len, "%s: watch ended: closed by the server", e->url[e->current]);
    e->current = (e->current + 1) % e->n;
    return err;
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
