/*
 * import_vs_build.c -- the largest configuration each importer admits,
 * imported (placer_*_import: read, membership document, build) against
 * `placer build` of the document it emits (placer_membership_parse and
 * placer_builder_build), paired in one process: the runs alternate and
 * the medians' ratio (of CPU time) is printed. The goal: within 1.5x.
 *   haproxy: 100,000 map-based servers; nginx and twemproxy: 26,214
 *   weight-1 servers under the point cap.
 * Usage: import_vs_build [ROUNDS [JSON]] (default 7): JSON, when given,
 * receives the medians as Google Benchmark's JSON (import/MODE: the
 * import's milliseconds of CPU time, with the build's as the counter
 * build_ms and the ratio as import_over_build), which
 * bench/results_table.py add takes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "placer_control.h"

enum { HAPROXY, NGINX, TWEMPROXY };

static char *text;
static size_t text_len, text_cap;

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void put(const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(text + text_len, text_cap - text_len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < text_cap - text_len) {
            text_len += (size_t)n;
            return;
        }
        text_cap = text_cap * 2 + 65536;
        if (!(text = realloc(text, text_cap)))
            abort();
    }
}

static double now(void)
{
    struct timespec t;
    /* the CPU this process spent: a loaded machine slows both sides alike */
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char path[128];

/* The configuration of mode m, in text (and in path for nginx). */
static void config(int m)
{
    text_len = 0;
    unsigned n = m == HAPROXY ? 100000 : 26214;
    if (m == HAPROXY)
        put("backend b\n  balance url_param k\n  hash-type map-based\n");
    else if (m == NGINX)
        put("http {\n  upstream u {\n    hash $arg_k consistent;\n");
    else
        put("pool:\n  listen: 127.0.0.1:22121\n  servers:\n");
    for (unsigned i = 0; i < n; i++)
        put(m == HAPROXY ? "  server s%u 10.%u.%u.%u:80\n" : m == NGINX ? "    server 10.%u.%u.%u:80;\n"
                                                                        : "   - 10.%u.%u.%u:11211:1\n",
            m == HAPROXY ? i : i >> 16, m == HAPROXY ? i >> 16 : (i >> 8) & 255,
            m == HAPROXY ? (i >> 8) & 255 : i & 255, i & 255);
    if (m == NGINX) {
        put("  }\n}\n");
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(text, 1, text_len, f) != text_len || fclose(f))
            abort();
    }
}

static int import(int m, placer_snapshot **s, char **doc, size_t *doc_len)
{
    char why[1024];
    if (doc)
        return m == HAPROXY ? placer_haproxy_membership(text, text_len, "b", doc, doc_len, why, sizeof why)
               : m == NGINX ? placer_nginx_membership(path, "u", doc, doc_len, why, sizeof why)
                            : placer_twemproxy_membership(text, text_len, "pool", doc, doc_len, why,
                                                          sizeof why);
    return m == HAPROXY ? placer_haproxy_import(text, text_len, "b", 1, s, why, sizeof why)
           : m == NGINX ? placer_nginx_import(path, "u", 1, s, why, sizeof why)
                        : placer_twemproxy_import(text, text_len, "pool", 1, s, why, sizeof why);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    if (rounds < 1 || rounds > 100)
        rounds = 7;
    snprintf(path, sizeof path, "/tmp/placer-import-bench-%ld.conf", (long)getpid());
    static const char *const names[] = {"haproxy map-based, 100,000 servers",
                                        "nginx consistent, 26,214 servers",
                                        "twemproxy ketama, 26,214 servers"};
    static const char *const ids[] = {"haproxy_map_100000", "nginx_consistent_26214",
                                      "twemproxy_ketama_26214"};
    FILE *json = argc > 2 ? fopen(argv[2], "w") : NULL;
    if (argc > 2 && !json) {
        perror(argv[2]);
        return 2;
    }
    if (json) {
        time_t t = time(NULL);
        char date[32];
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", gmtime(&t));
        fprintf(json, "{\"context\": {\"date\": \"%s\"}, \"benchmarks\": [", date);
    }
    int bad = 0;
    for (int m = HAPROXY; m <= TWEMPROXY; m++) {
        config(m);
        char *doc = NULL;
        size_t doc_len = 0;
        if (import(m, NULL, &doc, &doc_len)) {
            fprintf(stderr, "%s: the import failed\n", names[m]);
            return 1;
        }
        double t_import[100], t_build[100];
        for (int r = 0; r < rounds; r++) {
            placer_snapshot *s = NULL;
            double t0 = now();
            int err = import(m, &s, NULL, NULL);
            double t1 = now();
            placer_snapshot_free(s);
            placer_builder *b = NULL;
            uint64_t epoch;
            char why[512];
            err |= placer_membership_parse(doc, doc_len, "doc", &b, &epoch, why, sizeof why) < 0;
            err |= b ? placer_builder_build(b, 1, &s) : 1;
            double t2 = now();
            placer_snapshot_free(s);
            placer_builder_free(b);
            if (err) {
                fprintf(stderr, "%s: a run failed\n", names[m]);
                return 1;
            }
            t_import[r] = t1 - t0;
            t_build[r] = t2 - t1;
        }
        qsort(t_import, (size_t)rounds, sizeof *t_import, by_value);
        qsort(t_build, (size_t)rounds, sizeof *t_build, by_value);
        double ratio = t_import[rounds / 2] / t_build[rounds / 2];
        printf("%-38s import %7.1f ms, build of its membership %7.1f ms: %.2fx%s\n", names[m],
               t_import[rounds / 2] * 1e3, t_build[rounds / 2] * 1e3, ratio,
               ratio <= 1.5 ? "" : " (above 1.5x)");
        bad |= ratio > 1.5;
        if (json)
            fprintf(json,
                    "%s\n{\"name\": \"import/%s\", \"run_name\": \"import/%s\", "
                    "\"repetitions\": %d, \"time_unit\": \"ms\", \"cpu_time\": %.4f, "
                    "\"build_ms\": %.4f, \"import_over_build\": %.4f}",
                    m ? "," : "", ids[m], ids[m], rounds, t_import[rounds / 2] * 1e3,
                    t_build[rounds / 2] * 1e3, ratio);
        placer_mem_free(doc);
    }
    if (json && (fprintf(json, "\n]}\n") < 0 || fclose(json))) {
        perror(argv[2]);
        return 2;
    }
    unlink(path);
    free(text);
    return bad ? 3 : 0;
}
