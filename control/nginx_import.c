/*
 * nginx_import.c -- one upstream of an nginx configuration (http {} or
 * stream {}) into a membership document ("compat": "nginx"), then a
 * snapshot.
 *
 * Read as nginx 1.22 reads it (ngx_conf_file.c; tokens by nginx_lex.c):
 * directives end with ';', blocks nest, and "include" is expanded where it
 * stands, in any block: a relative path is relative to the directory of
 * the main file (nginx's conf prefix, for nested includes too), a pattern
 * with * ? [ is globbed (sorted, no match is fine), a plain path must
 * open. The upstream's "hash KEY [consistent]" and "server ADDRESS
 * [weight=N] [down] [max_fails=N] [fail_timeout=T] [max_conns=N]" place
 * keys (ngx_http_upstream_hash_module.c): weight changes the points or the
 * table; a down server keeps no points a key can stop at, so with
 * consistent it is left out (keys walk on past it, as nginx walks), while
 * plain hash rehashes such keys, which no table can follow: refused;
 * max_fails, fail_timeout and max_conns change no placement (ignored, said
 * in the notes); backup is refused, as nginx refuses it with hash. Server
 * addresses must be IP literals or unix: paths: nginx resolves a host name
 * at start, maybe to several peers. Errors are "FILE:LINE: ...".
 */
#include <arpa/inet.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat_import.h"
#include "control_alloc.h"
#include "import_messages.h"
#include "nginx_lex.h"
#include "placer_control.h"

#define MAX_INCLUDE_DEPTH 16
#define MAX_FILES 1024
#define MAX_FILE_BYTES (16u << 20)
#define PATH_LEN 4096

enum { CTX_MAIN, CTX_HTTP, CTX_STREAM, CTX_CHOSEN, CTX_OTHER };

typedef struct ngx {
    const char *want;
    plc_imp_msgs msgs;
    char prefix[PATH_LEN]; /* the main file's directory, with its '/' */
    size_t files;
    int found;             /* upstreams of that name */
    int found_in;          /* CTX_HTTP or CTX_STREAM */
    const char *file;      /* for messages */
    size_t line;
    int has_hash, consistent, down_seen;
    char key[256];
    size_t hash_line;
    const char *hash_file;
    json_t *nodes;
    json_t *files_seen;    /* file names, kept for hash_file */
} ngx;

static int fail(ngx *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(ngx *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int err = plc_imp_failv(&g->msgs, g->file, g->line, fmt, ap);
    va_end(ap);
    return err;
}

static void note(ngx *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(ngx *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    plc_imp_notev(&g->msgs, g->file, g->line, fmt, ap);
    va_end(ap);
}


static const char *arg(const json_t *words, size_t i)
{
    return json_string_value(json_array_get(words, i));
}

static int parse_file(ngx *g, const char *path, int ctx, int depth);

/* nginx's ngx_conf_include: one path, globbed when it has * ? or [. */
static int include(ngx *g, const json_t *words, int ctx, int depth)
{
    char w[80];
    if (json_array_size(words) != 2)
        return fail(g, "include: one file or pattern");
    const char *pat = arg(words, 1);
    char full[PATH_LEN];
    if (snprintf(full, sizeof full, "%s%s", pat[0] == '/' ? "" : g->prefix, pat) >= (int)sizeof full)
        return fail(g, "include: a path longer than %d bytes", PATH_LEN - 1);
    if (depth >= MAX_INCLUDE_DEPTH)
        return fail(g, "include \"%s\": includes nested deeper than %d (a loop?)",
                    shown(pat, w, sizeof w), MAX_INCLUDE_DEPTH);
    if (!strpbrk(full, "*?["))
        return parse_file(g, full, ctx, depth + 1);
    glob_t gl;
    int rc = glob(full, 0, NULL, &gl);
    if (rc == GLOB_NOMATCH)
        return 0;
    if (rc)
        return rc == GLOB_NOSPACE ? PLACER_ENOMEM
                                  : fail(g, "include \"%s\": glob() failed", shown(pat, w, sizeof w));
    int err = 0;
    for (size_t i = 0; i < gl.gl_pathc && !err; i++)
        err = parse_file(g, gl.gl_pathv[i], ctx, depth + 1);
    globfree(&gl);
    return err;
}

/* An IP literal (with an optional :port, [v6]:port) or unix:path. */
static int literal_address(const char *a)
{
    if (!strncmp(a, "unix:", 5))
        return a[5] != '\0';
    char host[64];
    const char *end;
    if (a[0] == '[') {
        end = strchr(a, ']');
        if (!end || (size_t)(end - a - 1) >= sizeof host)
            return 0;
        memcpy(host, a + 1, (size_t)(end - a - 1));
        host[end - a - 1] = '\0';
        end++;
    } else {
        end = strchr(a, ':');
        size_t n = end ? (size_t)(end - a) : strlen(a);
        if (n >= sizeof host)
            return 0;
        memcpy(host, a, n);
        host[n] = '\0';
        end = a + n;
    }
    unsigned char buf[16];
    if (inet_pton(a[0] == '[' ? AF_INET6 : AF_INET, host, buf) != 1)
        return 0;
    if (!*end)
        return 1;
    if (*end != ':' || !end[1] || strlen(end + 1) > 5)
        return 0;
    for (const char *p = end + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return atoi(end + 1) >= 1 && atoi(end + 1) <= 65535;
}

static int server(ngx *g, const json_t *words)
{
    char w[80];
    size_t n = json_array_size(words);
    if (n < 2)
        return fail(g, "server: an address is missing");
    const char *addr = arg(words, 1);
    if (!literal_address(addr))
        return fail(g, "server \"%s\": expected an IP address (with :port) or unix:path; nginx "
                       "resolves a host name at start, maybe to several peers: write the address",
                    shown(addr, w, sizeof w));
    if (strlen(addr) > PLACER_MAX_ID_LEN - 8)
        return fail(g, "server \"%s\": longer than placer's ids", shown(addr, w, sizeof w));
    long long weight = 1;
    int down = 0;
    for (size_t i = 2; i < n; i++) {
        const char *p = arg(words, i);
        if (!strncmp(p, "weight=", 7)) {
            weight = plc_imp_decimal(p + 7, 2147483647);
            if (weight < 1)
                return fail(g, "server %s: invalid parameter \"%s\" (nginx's weights are 1 and up)",
                            addr, shown(p, w, sizeof w));
        } else if (eq(p, "down")) {
            down = 1;
        } else if (eq(p, "backup")) {
            return fail(g, "server %s: backup: nginx refuses backup servers with hash", addr);
        } else if (!strncmp(p, "max_fails=", 10) || !strncmp(p, "fail_timeout=", 13) ||
                   !strncmp(p, "max_conns=", 10)) {
            note(g, "server %s: %.*s changes no placement: ignored", addr,
                 (int)(strchr(p, '=') - p), p);
        } else {
            return fail(g, "server %s: invalid parameter \"%s\" (nginx 1.22 refuses it)", addr,
                        shown(p, w, sizeof w));
        }
    }
    if (down) {
        g->down_seen = 1;
        note(g, "server %s is down: left out (nginx walks past its points)", addr);
        return 0;
    }
    /* ids are unique; two servers of one address are two peers to nginx */
    char id[PLACER_MAX_ID_LEN + 1];
    snprintf(id, sizeof id, "%s", addr);
    for (unsigned k = 2;; k++) {
        int taken = 0;
        for (size_t i = 0; i < json_array_size(g->nodes) && !taken; i++)
            taken = eq(json_string_value(json_object_get(json_array_get(g->nodes, i), "id")), id);
        if (!taken)
            break;
        snprintf(id, sizeof id, "%s#%u", addr, k);
    }
    json_t *o = json_pack("{s:s, s:s, s:I}", "id", id, "address", addr, "weight", (json_int_t)weight);
    return o && !json_array_append_new(g->nodes, o) ? 0 : PLACER_ENOMEM;
}

/* A directive of the chosen upstream. */
static int upstream_directive(ngx *g, const json_t *words)
{
    char w[80];
    const char *k = arg(words, 0);
    size_t n = json_array_size(words);
    if (eq(k, "server"))
        return server(g, words);
    if (eq(k, "hash")) {
        if (g->has_hash)
            return fail(g, "hash: a duplicate (nginx refuses it)");
        if (n < 2 || n > 3 || (n == 3 && !eq(arg(words, 2), "consistent")))
            return fail(g, "hash: expected \"hash KEY [consistent]\"");
        g->has_hash = 1;
        g->consistent = n == 3;
        snprintf(g->key, sizeof g->key, "%s", shown(arg(words, 1), w, sizeof w));
        g->hash_line = g->line;
        g->hash_file = g->file;
        return 0;
    }
    if (eq(k, "ip_hash") || eq(k, "least_conn") || eq(k, "random"))
        return fail(g, "%s: the upstream is not balanced by \"hash\" (placer imports hash KEY "
                       "[consistent]; %s)", k,
                    eq(k, "ip_hash") ? "ip_hash hashes the address's first three bytes, which "
                                       "placer has no key hash for"
                                     : "it places by load or chance, not by a key");
    return 0; /* zone, keepalive, ...: no placement */
}

static int directive(ngx *g, const json_t *words, int ctx, int depth)
{
    if (eq(arg(words, 0), "include"))
        return include(g, words, ctx, depth);
    if (ctx == CTX_CHOSEN)
        return upstream_directive(g, words);
    return 0;
}

/* Directives until '}' (nested) or the end of the file. */
static int parse_block(ngx *g, ngx_lex *l, int ctx, int nested, int depth)
{
    json_t *words = json_array();
    int err = words ? 0 : PLACER_ENOMEM;
    while (!err) {
        int t = ngx_lex_next(l);
        g->line = l->line;
        if (t == NGX_TOK_ERROR) {
            err = fail(g, "%s", l->why);
        } else if (t == NGX_TOK_WORD) {
            if (json_array_append_new(words, json_stringn(l->word, l->word_len)))
                err = PLACER_ENOMEM;
        } else if (t == NGX_TOK_EOF || t == NGX_TOK_CLOSE) {
            if (json_array_size(words))
                err = fail(g, "unexpected %s (a directive without its ';')",
                           t == NGX_TOK_EOF ? "end of file" : "\"}\"");
            else if (t == NGX_TOK_EOF && nested)
                err = fail(g, "unexpected end of file, expecting \"}\"");
            else if (t == NGX_TOK_CLOSE && !nested)
                err = fail(g, "unexpected \"}\"");
            break;
        } else if (!json_array_size(words)) {
            err = fail(g, "unexpected \"%s\"", t == NGX_TOK_SEMI ? ";" : "{");
        } else if (t == NGX_TOK_SEMI) {
            err = directive(g, words, ctx, depth);
            json_array_clear(words);
        } else { /* a block */
            const char *k = arg(words, 0);
            int inner = CTX_OTHER;
            if (ctx == CTX_MAIN && (eq(k, "http") || eq(k, "stream")))
                inner = eq(k, "http") ? CTX_HTTP : CTX_STREAM;
            else if ((ctx == CTX_HTTP || ctx == CTX_STREAM) && eq(k, "upstream") &&
                     json_array_size(words) == 2 && eq(arg(words, 1), g->want)) {
                if (g->found && g->found_in == ctx)
                    err = fail(g, "upstream \"%s\": a duplicate (nginx refuses it)", g->want);
                else if (g->found)
                    err = fail(g, "upstream \"%s\" is in both http and stream: placer imports "
                                  "one; rename one", g->want);
                g->found++;
                g->found_in = ctx;
                inner = CTX_CHOSEN;
            }
            json_array_clear(words);
            if (!err)
                err = parse_block(g, l, inner, 1, depth);
        }
    }
    json_decref(words);
    return err;
}

static int parse_file(ngx *g, const char *path, int ctx, int depth)
{
    char w[80];
    if (++g->files > MAX_FILES)
        return fail(g, "more than %d files included", MAX_FILES);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(g, "cannot open \"%s\"", shown(path, w, sizeof w));
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    int too_big = size >= (long)MAX_FILE_BYTES;
    char *text = size >= 0 && !too_big && fseek(f, 0, SEEK_SET) == 0
                     ? placer_mem_alloc((size_t)size + 1) : NULL;
    size_t len = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!text && !too_big)
        return size < 0 ? fail(g, "cannot read \"%s\"", shown(path, w, sizeof w)) : PLACER_ENOMEM;
    const char *was_file = g->file;
    size_t was_line = g->line;
    json_t *name = json_string(path);
    int err = name && !json_array_append_new(g->files_seen, name) ? 0 : PLACER_ENOMEM;
    if (!err) {
        g->file = json_string_value(name);
        g->line = 0;
        if (too_big)
            err = fail(g, "a file of 16 MiB or more");
    }
    ngx_lex *l = err ? NULL : placer_mem_alloc(sizeof *l);
    if (!err && !l)
        err = PLACER_ENOMEM;
    if (!err) {
        ngx_lex_init(l, text, len);
        err = parse_block(g, l, ctx, 0, depth);
    }
    placer_mem_free(l);
    placer_mem_free(text);
    if (!err) {
        g->file = was_file;
        g->line = was_line;
    }
    return err;
}

static int membership(ngx *g, json_t *doc)
{
    char w[80];
    if (!g->found) {
        g->file = NULL;
        return fail(g, "no upstream \"%s\" in http {} or stream {}", shown(g->want, w, sizeof w));
    }
    if (!g->has_hash) {
        g->file = NULL;
        return fail(g, "upstream \"%s\" has no hash directive: nginx balances it round robin, by "
                       "no key", g->want);
    }
    g->file = g->hash_file;
    g->line = g->hash_line;
    if (g->down_seen && !g->consistent)
        return fail(g, "hash %s without consistent and a server down: nginx rehashes the keys "
                       "of a down server, which no placement can follow", g->key);
    if (!json_array_size(g->nodes)) {
        g->file = NULL;
        return fail(g, "upstream \"%s\" has no server up", g->want);
    }
    note(g, "the key is the value of \"%s\"", g->key);
    json_object_set_new(doc, "distribution", json_string(g->consistent ? "consistent" : "hash"));
    json_object_set(doc, "nodes", g->nodes);
    return json_object_size(doc) == 3 ? 0 : PLACER_ENOMEM;
}

int placer_nginx_membership(const char *path, const char *upstream, char **json, size_t *json_len,
                            char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!path || !upstream || !json)
        return PLACER_ENULL;
    ngx *g = placer_mem_calloc(1, sizeof *g);
    json_t *doc = json_object();
    int err = PLACER_ENOMEM;
    if (g && doc && !json_object_set_new(doc, "compat", json_string("nginx")) &&
        (g->nodes = json_array()) != NULL && (g->files_seen = json_array()) != NULL) {
        g->want = upstream;
        g->msgs.why = why;
        g->msgs.why_len = why_len;
        const char *slash = strrchr(path, '/');
        size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
        if (dir >= sizeof g->prefix) {
            err = fail(g, "a path longer than %zu bytes", sizeof g->prefix - 1);
        } else {
            memcpy(g->prefix, path, dir);
            g->prefix[dir] = '\0';
            err = parse_file(g, path, CTX_MAIN, 0);
        }
        if (!err)
            err = membership(g, doc);
        if (!err)
            err = plc_ctl_dump_membership(doc, json, json_len);
        if (!err && why && why_len)
            snprintf(why, why_len, "%s", g->msgs.notes);
    }
    if (g) {
        json_decref(g->nodes);
        json_decref(g->files_seen);
    }
    json_decref(doc);
    placer_mem_free(g);
    return err;
}

int placer_nginx_import(const char *path, const char *upstream, uint64_t epoch,
                        placer_snapshot **out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!out)
        return PLACER_ENULL;
    char *doc = NULL;
    size_t doc_len = 0;
    int err = placer_nginx_membership(path, upstream, &doc, &doc_len, why, why_len);
    return plc_ctl_import_doc(err, doc, doc_len, "the upstream's membership", 1, epoch, out, why,
                              why_len);
}
