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
 *
 * Hostile files: blocks nest as deep as the file holds (a heap stack, not
 * the C stack), includes nest at most 16 deep and open only regular files
 * (a FIFO, device or directory is refused before any read could block),
 * and ids are found through a hash set, so the work is linear.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat_import.h"
#include "control_alloc.h"
#include "import_messages.h"
#include "import_set.h"
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
    struct seen_file *files_seen; /* file names, kept for messages and hash_file */
    int resolve;           /* PLACER_NGINX_RESOLVE */
    const char *name_file; /* the first server given by host name, for messages */
    size_t name_line;
    plc_set ids;           /* every id given, with the next "#k" to try for it */
    uint64_t *work;        /* hash-set probes, when counted */
} ngx;

struct seen_file {
    struct seen_file *next;
    char name[];
};

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

/* A host name with an optional :port, as ngx_parse_url takes it. */
static int host_name(const char *a)
{
    const char *colon = strrchr(a, ':');
    size_t n = colon ? (size_t)(colon - a) : strlen(a);
    if (!n || n > 253)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((a[i] >= 'a' && a[i] <= 'z') || (a[i] >= 'A' && a[i] <= 'Z') ||
              (a[i] >= '0' && a[i] <= '9') || a[i] == '-' || a[i] == '.' || a[i] == '_'))
            return 0;
    if (!colon)
        return 1;
    long long port = plc_imp_decimal(colon + 1, 65535);
    return port >= 1;
}

static int server(ngx *g, const json_t *words)
{
    char w[80];
    size_t n = json_array_size(words);
    if (n < 2)
        return fail(g, "server: an address is missing");
    const char *addr = arg(words, 1);
    int by_name = !literal_address(addr);
    if (by_name && !host_name(addr))
        return fail(g, "server \"%s\": expected an IP address or a host name (with :port), or "
                       "unix:path", shown(addr, w, sizeof w));
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
    if (json_array_size(g->nodes) >= PLC_IMP_MAX_SERVERS)
        return fail(g, "more than %u servers in an upstream (placer's import limit)",
                    PLC_IMP_MAX_SERVERS);
    if (down) {
        g->down_seen = 1;
        note(g, "server %s is down: left out (nginx walks past its points)", addr);
        return 0;
    }
    /* ids are unique; two servers of one address are two peers to nginx:
     * "ADDR", then "ADDR#2", "ADDR#3"... (the first free; the set keeps
     * where the search for ADDR stopped, so no suffix is tried twice) */
    char id[PLACER_MAX_ID_LEN + 1];
    size_t addr_len = strlen(addr), id_len = addr_len;
    memcpy(id, addr, addr_len + 1);
    size_t *next = plc_set_find(&g->ids, addr, addr_len);
    if (next) {
        size_t k = *next;
        for (;; k++) {
            id_len = (size_t)snprintf(id, sizeof id, "%s#%zu", addr, k);
            if (!plc_set_find(&g->ids, id, id_len))
                break;
        }
        *next = k + 1;
    }
    int err = plc_set_add(&g->ids, id, id_len, 2);
    if (err < 0)
        return err;
    json_t *o = json_object();
    if (by_name && !g->name_file) {
        g->name_file = g->file;
        g->name_line = g->line;
    }
    if (!o || json_array_append_new(g->nodes, o) || plc_imp_set_text(o, "id", id, id_len) ||
        (by_name && json_object_set_new(o, "_line", json_integer((json_int_t)g->line))) ||
        plc_imp_set_text(o, "address", addr, addr_len) ||
        json_object_set_new(o, "weight", json_integer((json_int_t)weight)))
        return PLACER_ENOMEM;
    return 0;
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

/* The directives of a file, its blocks nested on a heap stack (the
 * context of each open block), so no depth reaches the C stack. */
static int parse_block(ngx *g, ngx_lex *l, int ctx, int depth)
{
    json_t *words = json_array();
    unsigned char *outer = NULL; /* the contexts around the current block */
    size_t open = 0, cap = 0;
    int err = words ? 0 : PLACER_ENOMEM;
    while (!err) {
        int t = ngx_lex_next(l);
        g->line = l->line;
        if (t == NGX_TOK_ERROR) {
            err = fail(g, "%s", l->why);
        } else if (t == NGX_TOK_WORD) {
            if (json_array_append_new(words, json_stringn_nocheck(l->word, l->word_len)))
                err = PLACER_ENOMEM;
        } else if (t == NGX_TOK_EOF || t == NGX_TOK_CLOSE) {
            if (json_array_size(words))
                err = fail(g, "unexpected %s (a directive without its ';')",
                           t == NGX_TOK_EOF ? "end of file" : "\"}\"");
            else if (t == NGX_TOK_EOF && open)
                err = fail(g, "unexpected end of file, expecting \"}\"");
            else if (t == NGX_TOK_CLOSE && !open)
                err = fail(g, "unexpected \"}\"");
            else if (t == NGX_TOK_CLOSE)
                ctx = outer[--open];
            if (t == NGX_TOK_EOF)
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
            if (!err && open == cap) {
                unsigned char *more = placer_mem_alloc(cap ? cap * 2 : 64);
                if (more && open)
                    memcpy(more, outer, open);
                placer_mem_free(outer);
                outer = more;
                cap = cap ? cap * 2 : 64;
                err = more ? 0 : PLACER_ENOMEM;
            }
            if (!err) {
                outer[open++] = (unsigned char)ctx;
                ctx = inner;
            }
        }
    }
    placer_mem_free(outer);
    json_decref(words);
    return err;
}

/* The whole of a regular file into *text (NUL-terminated), opened so
 * that a FIFO or device cannot block: refused, as is a directory. */
static int read_regular(ngx *g, const char *path, char **text, size_t *len)
{
    char w[80];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(g, "cannot open \"%s\": %s", shown(path, w, sizeof w), strerror(errno));
    struct stat st;
    int err = 0;
    if (fstat(fd, &st))
        err = fail(g, "cannot read \"%s\": %s", shown(path, w, sizeof w), strerror(errno));
    else if (!S_ISREG(st.st_mode))
        err = fail(g, "\"%s\" is not a regular file (%s): placer reads configuration from "
                      "files only", shown(path, w, sizeof w),
                   S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                   : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
    else if (st.st_size >= (off_t)MAX_FILE_BYTES)
        err = fail(g, "\"%s\": a file of 16 MiB or more", shown(path, w, sizeof w));
    char *buf = err ? NULL : placer_mem_alloc((size_t)st.st_size + 1);
    if (!err && !buf)
        err = PLACER_ENOMEM;
    size_t got = 0;
    while (!err && got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            err = fail(g, "cannot read \"%s\": %s", shown(path, w, sizeof w), strerror(errno));
        if (r <= 0)
            break; /* a file that shrank: what is there */
        got += (size_t)r;
    }
    close(fd);
    if (err) {
        placer_mem_free(buf);
        return err;
    }
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return 0;
}

static int parse_file(ngx *g, const char *path, int ctx, int depth)
{
    if (++g->files > MAX_FILES)
        return fail(g, "more than %d files included", MAX_FILES);
    char *text = NULL;
    size_t len = 0;
    int err = read_regular(g, path, &text, &len);
    if (err)
        return err;
    const char *was_file = g->file;
    size_t was_line = g->line;
    size_t name_len = strlen(path);
    struct seen_file *name = placer_mem_alloc(sizeof *name + name_len + 1);
    ngx_lex *l = name ? placer_mem_alloc(sizeof *l) : NULL;
    if (!l) {
        err = PLACER_ENOMEM;
    } else {
        memcpy(name->name, path, name_len + 1);
        name->next = g->files_seen;
        g->files_seen = name;
        name = NULL;
        g->file = g->files_seen->name;
        g->line = 0;
        ngx_lex_init(l, text, len);
        err = parse_block(g, l, ctx, depth);
    }
    placer_mem_free(name);
    placer_mem_free(l);
    placer_mem_free(text);
    if (!err) {
        g->file = was_file;
        g->line = was_line;
    }
    return err;
}

/* Plain hash places by peer: a name is as many peers as it resolves to,
 * in nginx's order (ngx_inet_resolve_host: IPv4 addresses, then IPv6), each
 * with the server's weight. The nodes with those addresses replace it. */
static int resolve_names(ngx *g)
{
    char w[80];
    json_t *nodes = json_array();
    int err = nodes ? 0 : PLACER_ENOMEM;
    plc_set ids;
    if (!err && (err = plc_set_init(&ids, g->work)) != 0) {
        json_decref(nodes);
        return err;
    }
    for (size_t i = 0; !err && i < json_array_size(g->nodes); i++) {
        json_t *o = json_array_get(g->nodes, i);
        const json_t *line = json_object_get(o, "_line");
        if (!line) {
            const char *id = json_string_value(json_object_get(o, "id"));
            err = json_array_append(nodes, o) || (id && plc_set_add(&ids, id, strlen(id), 0) < 0)
                      ? PLACER_ENOMEM : 0;
            continue;
        }
        const char *text = json_string_value(json_object_get(o, "address"));
        char host[256];
        const char *colon = strrchr(text, ':');
        size_t n = colon ? (size_t)(colon - text) : strlen(text);
        memcpy(host, text, n);
        host[n] = '\0';
        const char *port = colon ? colon + 1 : "80";
        struct addrinfo hints = {0}, *res = NULL;
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        int rc = getaddrinfo(host, NULL, &hints, &res);
        g->line = (size_t)json_integer_value(line);
        if (rc) {
            err = fail(g, "server \"%s\": host not found (%s)", shown(text, w, sizeof w),
                       gai_strerror(rc));
            break;
        }
        char noted[PLC_IMP_NOTES_MAX / 4] = "";
        for (int family = AF_INET; !err && family; family = family == AF_INET ? AF_INET6 : 0) {
            for (const struct addrinfo *a = res; !err && a; a = a->ai_next) {
                if (a->ai_family != family)
                    continue;
                char ip[INET6_ADDRSTRLEN], id[PLACER_MAX_ID_LEN + 1];
                const void *bytes = family == AF_INET
                    ? (const void *)&((const struct sockaddr_in *)a->ai_addr)->sin_addr
                    : (const void *)&((const struct sockaddr_in6 *)a->ai_addr)->sin6_addr;
                inet_ntop(family, bytes, ip, sizeof ip);
                int len = snprintf(id, sizeof id, family == AF_INET ? "%s:%s" : "[%s]:%s", ip, port);
                /* nginx keeps every peer: an address twice is two ids */
                for (unsigned k = 2; plc_set_find(&ids, id, (size_t)len); k++)
                    len = snprintf(id, sizeof id, family == AF_INET ? "%s:%s#%u" : "[%s]:%s#%u",
                                   ip, port, k);
                size_t at = strlen(noted);
                char *hash = strchr(id, '#');
                size_t shown_len = hash ? (size_t)(hash - id) : (size_t)len;
                if (at + shown_len + 3 < sizeof noted) {
                    memcpy(noted + at, ", ", at ? 2 : 0);
                    memcpy(noted + at + (at ? 2 : 0), id, shown_len);
                    noted[at + (at ? 2 : 0) + shown_len] = '\0';
                }
                json_t *peer = json_pack("{s:s, s:s#, s:O}", "id", id, "address", id,
                                         hash ? (int)(hash - id) : len, "weight",
                                         json_object_get(o, "weight"));
                if (!peer || json_array_append_new(nodes, peer) ||
                    plc_set_add(&ids, id, (size_t)len, 0) < 0)
                    err = PLACER_ENOMEM;
            }
        }
        freeaddrinfo(res);
        if (!err)
            note(g, "server %s resolved to %s", text, noted);
    }
    plc_set_free(&ids);
    if (!err) {
        json_decref(g->nodes);
        g->nodes = nodes;
    } else {
        json_decref(nodes);
    }
    return err;
}

/* Without "consistent": names resolved (resolve_names) or refused; with
 * it, nginx hashes a server's text as written, so its node stays. */
static int host_names(ngx *g)
{
    if (!g->name_file)
        return 0;
    const char *file = g->file;
    size_t line = g->line;
    int err = 0;
    if (!g->consistent && !g->resolve) {
        g->file = g->name_file;
        g->line = g->name_line;
        err = fail(g, "a server given by host name with hash %s without consistent: nginx "
                      "places by the addresses the name resolves to at its start (give "
                      "--resolve to resolve it here, or write the addresses)", g->key);
    } else if (!g->consistent) {
        g->file = g->name_file;
        err = resolve_names(g);
    } else {
        for (size_t i = 0; i < json_array_size(g->nodes); i++)
            json_object_del(json_array_get(g->nodes, i), "_line");
    }
    if (!err) {
        g->file = file;
        g->line = line;
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
    int err = host_names(g);
    if (err)
        return err;
    note(g, "the key is the value of \"%s\"", g->key);
    json_object_set_new(doc, "distribution", json_string(g->consistent ? "consistent" : "hash"));
    json_object_set(doc, "nodes", g->nodes);
    return json_object_size(doc) == 3 ? 0 : PLACER_ENOMEM;
}

int placer_nginx_membership(const char *path, const char *upstream, char **json, size_t *json_len,
                            char *why, size_t why_len)
{
    return plc_nginx_membership_counted(path, upstream, 0, json, json_len, why, why_len, NULL);
}

int placer_nginx_membership_flags(const char *path, const char *upstream, unsigned flags,
                                  char **json, size_t *json_len, char *why, size_t why_len)
{
    return plc_nginx_membership_counted(path, upstream, flags, json, json_len, why, why_len, NULL);
}

int plc_nginx_membership_counted(const char *path, const char *upstream, unsigned flags,
                                 char **json, size_t *json_len, char *why, size_t why_len,
                                 uint64_t *work)
{
    if (why && why_len)
        why[0] = '\0';
    if (!path || !upstream || !json)
        return PLACER_ENULL;
    ngx *g = placer_mem_calloc(1, sizeof *g);
    json_t *doc = json_object();
    int err = PLACER_ENOMEM;
    if (g && doc && !json_object_set_new(doc, "compat", json_string("nginx")) &&
        (g->nodes = json_array()) != NULL && !plc_set_init(&g->ids, work)) {
        g->want = upstream;
        g->resolve = (flags & PLACER_NGINX_RESOLVE) != 0;
        g->work = work;
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
        plc_set_free(&g->ids);
        while (g->files_seen) {
            struct seen_file *f = g->files_seen;
            g->files_seen = f->next;
            placer_mem_free(f);
        }
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
