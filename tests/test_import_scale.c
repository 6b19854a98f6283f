/*
 * test_import_scale.c -- the largest configuration each importer admits,
 * imported and built, with the work counted: every hash-set probe the
 * importer makes (compat_import.h's *_counted entry points). The count
 * must stay within a constant per server and double, not quadruple, when
 * the servers double: a duplicate check or id search that rescans the
 * servers would make it grow with their square. No timer is read.
 *   haproxy: 100,000 map-based servers (ids explicit on every tenth, so
 *            the automatic ids skip them), placer's node limit in sight;
 *   nginx:   26,214 weight-1 servers (the point cap), distinct addresses,
 *            then one address repeated (ids "ADDR", "ADDR#2", ...);
 *   twemproxy: 26,214 weight-1 servers (the point cap).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../control/compat_import.h"
#include "check.h"
#include "placer_control.h"

#define PER_SERVER 16 /* probes a server may cost, growth of the table included */

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
        va_end(ap);
        if ((size_t)k < t->cap - t->n) {
            t->n += (size_t)k;
            return;
        }
        t->cap = t->cap * 2 + 4096;
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            abort();
    }
}

/* The document builds: the import is one placer admits in full. */
static void builds(const char *doc, size_t len, unsigned nodes)
{
    placer_builder *b = NULL;
    uint64_t epoch = 0;
    char why[512];
    CHECK(placer_membership_parse(doc, len, "doc", &b, &epoch, why, sizeof why) >= 0);
    placer_snapshot *s = NULL;
    CHECK_EQ(b ? placer_builder_build(b, 1, &s) : -1, 0);
    CHECK_EQ(s ? placer_node_count(s) : 0, nodes);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static uint64_t haproxy(unsigned n, int build)
{
    text t = {0};
    add(&t, "backend b\n  balance url_param k\n  hash-type map-based\n");
    for (unsigned i = 0; i < n; i++)
        add(&t, i % 10 == 3 ? "  server s%u 10.%u.%u.%u:80 id %u\n" : "  server s%u 10.%u.%u.%u:80\n",
            i, i >> 16, (i >> 8) & 255, i & 255, i + 7);
    char *doc = NULL, why[512];
    size_t len = 0;
    uint64_t work = 0;
    int err = plc_haproxy_membership_counted(t.s, t.n, "b", &doc, &len, why, sizeof why, &work);
    CHECK_EQ(err, 0);
    if (err)
        fprintf(stderr, "haproxy %u: %s\n", n, why);
    if (!err && build)
        builds(doc, len, n);
    placer_mem_free(doc);
    free(t.s);
    return work;
}

static char dir[64];

static uint64_t nginx(unsigned n, int same_address, int build)
{
    text t = {0};
    add(&t, "http {\n  upstream u {\n    hash $arg_k consistent;\n");
    for (unsigned i = 0; i < n; i++)
        add(&t, "    server 10.%u.%u.%u:80;\n", same_address ? 0 : i >> 16,
            same_address ? 0 : (i >> 8) & 255, same_address ? 1 : i & 255);
    add(&t, "  }\n}\n");
    char path[128];
    snprintf(path, sizeof path, "%s/nginx.conf", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        exit(1);
    fwrite(t.s, 1, t.n, f);
    fclose(f);
    char *doc = NULL, why[512];
    size_t len = 0;
    uint64_t work = 0;
    int err = plc_nginx_membership_counted(path, "u", 0, &doc, &len, why, sizeof why, &work);
    CHECK_EQ(err, 0);
    if (err)
        fprintf(stderr, "nginx %u: %s\n", n, why);
    if (!err && same_address) /* the last id is "ADDR#n" */
        CHECK(strstr(doc, "\"10.0.0.1:80#") != NULL);
    if (!err && build)
        builds(doc, len, n);
    unlink(path);
    placer_mem_free(doc);
    free(t.s);
    return work;
}

static uint64_t twemproxy(unsigned n, int build)
{
    text t = {0};
    add(&t, "pool:\n  listen: 127.0.0.1:22121\n  servers:\n");
    for (unsigned i = 0; i < n; i++)
        add(&t, "   - 10.%u.%u.%u:11211:1\n", i >> 16, (i >> 8) & 255, i & 255);
    char *doc = NULL, why[512];
    size_t len = 0;
    uint64_t work = 0;
    int err = plc_twemproxy_membership_counted(t.s, t.n, "pool", &doc, &len, why, sizeof why,
                                               &work);
    CHECK_EQ(err, 0);
    if (err)
        fprintf(stderr, "twemproxy %u: %s\n", n, why);
    if (!err && build)
        builds(doc, len, n);
    placer_mem_free(doc);
    free(t.s);
    return work;
}

/* The work of n servers (the largest) is linear: at most PER_SERVER
 * probes each, and about twice the work of n / 2. */
static void linear(const char *what, uint64_t half, uint64_t full, unsigned n)
{
    printf("%s: %u servers, %llu probes (%u servers: %llu)\n", what, n,
           (unsigned long long)full, n / 2, (unsigned long long)half);
    CHECK(full > 0 && full <= (uint64_t)PER_SERVER * n);
    CHECK(full * 10 <= half * 26); /* a square would make it 4 times */
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/placer-scale-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    linear("haproxy map-based", haproxy(50000, 0), haproxy(100000, 1), 100000);
    linear("nginx distinct", nginx(13107, 0, 0), nginx(26214, 0, 1), 26214);
    linear("nginx one address", nginx(13107, 1, 0), nginx(26214, 1, 1), 26214);
    linear("twemproxy ketama", twemproxy(13107, 0), twemproxy(26214, 1), 26214);
    rmdir(dir);
    return check_done("import_scale");
}
