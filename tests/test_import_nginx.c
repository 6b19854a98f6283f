/*
 * test_import_nginx.c -- placer_nginx_membership on files written to a
 * temporary directory: fields, includes (relative to the main file's
 * directory, globs, nested), stream {}, every refusal with FILE:LINE, and
 * mutated configurations imported or refused with a reason, never a crash.
 * tests/compat_programs.py proves the imports against nginx itself.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "import_mutations.h"
#include "placer_control.h"

static char dir[256];

static void put(const char *name, const char *text, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fwrite(text, 1, len, f);
    fclose(f);
}

#define PUT(name, text) put(name, text, strlen(text))

static int import(const char *main_text, const char *upstream, json_t **doc, char *why, size_t n)
{
    PUT("nginx.conf", main_text);
    char path[512], *json = NULL;
    snprintf(path, sizeof path, "%s/nginx.conf", dir);
    size_t len = 0;
    int err = placer_nginx_membership(path, upstream, &json, &len, why, n);
    *doc = err ? NULL : json_loadb(json, len, 0, NULL);
    placer_mem_free(json);
    return err;
}

static void test_fields(void)
{
    char why[1024];
    json_t *d;
    char sub[512];
    snprintf(sub, sizeof sub, "%s/conf.d", dir);
    mkdir(sub, 0700);
    PUT("conf.d/a.conf", "# the cache\nupstream u {\n  include conf.d/servers.inc;\n"
                         "  hash $arg_k consistent;\n}\n");
    PUT("conf.d/servers.inc", "server 127.0.0.1:8001 weight=2 max_fails=3;\n"
                              "server \"127.0.0.1:8002\";\nserver 127.0.0.1:8003 down;\n"
                              "server 'unix:/tmp/x.sock' ;\nserver [::1]:8004;\nserver 127.0.0.1:8001;\n");
    int err = import("events { }\nhttp {\n  include conf.d/*.conf;\n  include conf.d/none*.conf;\n"
                     "  upstream other { server 10.0.0.9:80; }\n}\n", "u", &d, why, sizeof why);
    CHECK_EQ(err, 0);
    if (err)
        fprintf(stderr, "%s\n", why);
    CHECK(!strcmp(json_string_value(json_object_get(d, "distribution")), "consistent"));
    const json_t *nodes = json_object_get(d, "nodes");
    CHECK_EQ(json_array_size(nodes), 5);
    const char *ids[] = {"127.0.0.1:8001", "127.0.0.1:8002", "unix:/tmp/x.sock", "[::1]:8004",
                         "127.0.0.1:8001#2"};
    const int weights[] = {2, 1, 1, 1, 1};
    for (size_t i = 0; i < 5; i++) {
        const json_t *o = json_array_get(nodes, i);
        CHECK(o && !strcmp(json_string_value(json_object_get(o, "id")), ids[i]));
        CHECK_EQ(json_integer_value(json_object_get(o, "weight")), weights[i]);
    }
    CHECK(strstr(why, "conf.d/servers.inc:1: server 127.0.0.1:8001: max_fails changes no placement") != NULL);
    CHECK(strstr(why, "conf.d/servers.inc:3: server 127.0.0.1:8003 is down: left out") != NULL);
    CHECK(strstr(why, "conf.d/a.conf:4: the key is the value of \"$arg_k\"") != NULL);
    json_decref(d);
    err = import("stream {\n  upstream s { hash $remote_addr; server 127.0.0.1:7000; }\n}\n", "s", &d,
                 why, sizeof why);
    CHECK_EQ(err, 0);
    CHECK(d && !strcmp(json_string_value(json_object_get(d, "distribution")), "hash"));
    json_decref(d);
    /* the import builds it */
    placer_snapshot *s = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/nginx.conf", dir);
    CHECK_EQ(placer_nginx_import(path, "s", 4, &s, why, sizeof why), 0);
    CHECK_EQ(placer_node_count(s), 1);
    CHECK_EQ(placer_snapshot_epoch(s), 4);
    placer_snapshot_free(s);
}

static void refused(const char *text, const char *upstream, const char *want)
{
    char why[512];
    json_t *d = NULL;
    CHECK_EQ(import(text, upstream, &d, why, sizeof why), PLACER_EFORMAT);
    CHECK(d == NULL);
    if (!strstr(why, want)) {
        check_failed_++;
        fprintf(stderr, "nginx: want \"%s\" in \"%s\"\n", want, why);
    } else {
        check_passed_++;
    }
    json_decref(d);
}

#define UP(body) "http {\n  upstream u {\n" body "  }\n}\n"

static void test_refusals(void)
{
    refused(UP("    server 127.0.0.1:1;\n"), "u", "has no hash directive: nginx balances it round robin");
    refused(UP("    hash $a;\n    ip_hash;\n"), "u", "nginx.conf:4: ip_hash: the upstream is not balanced");
    refused(UP("    hash $a;\n    least_conn;\n"), "u", "least_conn");
    refused(UP("    hash $a;\n    hash $b;\n"), "u", "nginx.conf:4: hash: a duplicate");
    refused(UP("    hash $a wobbly;\n"), "u", "expected \"hash KEY [consistent]\"");
    refused(UP("    hash $a;\n    server 127.0.0.1:1 backup;\n"), "u", "backup: nginx refuses backup servers");
    refused(UP("    hash $a;\n    server 127.0.0.1:1 weight=0;\n"), "u", "invalid parameter \"weight=0\"");
    refused(UP("    hash $a;\n    server 127.0.0.1:1 slow_start=5s;\n"), "u", "invalid parameter \"slow_start=5s\"");
    refused(UP("    hash $a;\n    server 10.0.0.1;\n    server cache.example:80;\n"), "u",
            "nginx.conf:5: a server given by host name with hash $a without consistent");
    refused(UP("    hash $a consistent;\n    server cache.example:8o;\n"), "u",
            "nginx.conf:4: server \"cache.example:8o\": expected an IP address or a host name");
    refused(UP("    hash $a;\n    server 127.0.0.1:99999;\n"), "u", "expected an IP address");
    refused(UP("    hash $a;\n    server 127.0.0.1:1;\n    server 127.0.0.1:2 down;\n"), "u",
            "nginx.conf:3: hash $a without consistent and a server down");
    refused(UP("    hash $a consistent;\n    server 127.0.0.1:1 down;\n"), "u", "has no server up");
    refused(UP("    hash $a;\n"), "u", "has no server up");
    refused(UP("    hash $a;\n    server;\n"), "u", "server: an address is missing");
    refused("http {\n  upstream u { hash $a; server 127.0.0.1:1; }\n  upstream u { }\n}\n", "u",
            "nginx.conf:3: upstream \"u\": a duplicate");
    refused("http {\n  upstream u { hash $a; server 127.0.0.1:1; }\n}\nstream {\n  upstream u { }\n}\n", "u",
            "in both http and stream");
    refused("http {\n  upstream v { }\n}\n", "u", "no upstream \"u\" in http {} or stream {}");
    refused("upstream u { hash $a; server 127.0.0.1:1; }\n", "u", "no upstream \"u\""); /* not in http */
    refused("http {\n  upstream u {\n", "u", "nginx.conf:3: unexpected end of file, expecting \"}\"");
    refused("http {\n}\n}\n", "u", "nginx.conf:3: unexpected \"}\"");
    refused("http {\n  ;\n}\n", "u", "nginx.conf:2: unexpected \";\"");
    refused("http {\n  a b\n}\n", "u", "a directive without its ';'");
    refused("http {\n  a \"b\n}\n", "u", "an unclosed double quote");
    refused("http {\n  a \"b\"c;\n}\n", "u", "unexpected text after a closing quote");
    refused("http {\n  include missing.conf;\n}\n", "u", "nginx.conf:2: cannot open");
    refused("http {\n  include a b;\n}\n", "u", "include: one file or pattern");
    PUT("loop.conf", "include loop.conf;\n");
    refused("include loop.conf;\n", "u", "nested deeper than 16");
    PUT("bad.conf", "upstream u {\n  hash $a;\n  server x;\n}\n");
    refused("http {\n  include bad.conf;\n}\n", "u", "bad.conf:3: a server given by host name");
    put("nul.conf", "upstream u { a\0b; }\n", 20);
    refused("http {\n  include nul.conf;\n}\n", "u", "nul.conf:1: a NUL byte");
    char *json = NULL;
    CHECK_EQ(placer_nginx_membership(NULL, "u", &json, NULL, NULL, 0), PLACER_ENULL);
    CHECK_EQ(placer_nginx_membership("x", NULL, &json, NULL, NULL, 0), PLACER_ENULL);
}

/* Servers by host name: with consistent, nodes of their text as written
 * (nginx hashes it: host, and port or none); with plain hash, resolved
 * when asked, each address a node in nginx's order (a name that does not
 * resolve refused). "localhost" resolves without a network. */
static void test_host_names(void)
{
    char why[1024], path[512];
    json_t *d;
    int err = import("http {\n  upstream u {\n    hash $k consistent;\n    server app1.internal:80;\n"
                     "    server app2.internal weight=3;\n    server 10.0.0.1:80;\n  }\n}\n", "u", &d,
                     why, sizeof why);
    CHECK_EQ(err, 0);
    const json_t *nodes = json_object_get(d, "nodes");
    CHECK_EQ(json_array_size(nodes), 3);
    CHECK(!strcmp(json_string_value(json_object_get(json_array_get(nodes, 1), "address")),
                  "app2.internal"));
    CHECK(!json_object_get(json_array_get(nodes, 1), "_line"));
    json_decref(d);
    PUT("nginx.conf", "http {\n  upstream u {\n    hash $k;\n    server localhost:8080 weight=2;\n"
                      "    server 127.0.0.1:8080;\n  }\n}\n");
    snprintf(path, sizeof path, "%s/nginx.conf", dir);
    char *json = NULL;
    size_t len = 0;
    CHECK_EQ(placer_nginx_membership(path, "u", &json, &len, why, sizeof why), PLACER_EFORMAT);
    CHECK(strstr(why, "nginx.conf:4: a server given by host name") != NULL);
    err = placer_nginx_membership_flags(path, "u", PLACER_NGINX_RESOLVE, &json, &len, why,
                                        sizeof why);
    CHECK_EQ(err, 0);
    d = err ? NULL : json_loadb(json, len, 0, NULL);
    placer_mem_free(json);
    nodes = json_object_get(d, "nodes");
    CHECK(json_array_size(nodes) >= 2);
    const json_t *first = json_array_get(nodes, 0), *last = json_array_get(nodes, json_array_size(nodes) - 1);
    CHECK(first && json_integer_value(json_object_get(first, "weight")) == 2);
    CHECK(last && !strcmp(json_string_value(json_object_get(last, "address")), "127.0.0.1:8080"));
    CHECK(strstr(why, "nginx.conf:4: server localhost:8080 resolved to ") != NULL);
    json_decref(d);
    PUT("nginx.conf", "http {\n  upstream u {\n    hash $k;\n    server no-such-host.invalid;\n"
                      "  }\n}\n");
    CHECK_EQ(placer_nginx_membership_flags(path, "u", PLACER_NGINX_RESOLVE, &json, &len, why,
                                           sizeof why), PLACER_EFORMAT);
    CHECK(strstr(why, "nginx.conf:4: server \"no-such-host.invalid\": host not found") != NULL);
}

/* Blocks nested far deeper than any C stack holds, includes of what is
 * not a regular file (refused without a read that could block), and bytes
 * that are not UTF-8 carried into the document as base64. */
static void test_hostile(void)
{
    char why[1024];
    json_t *d;
    size_t levels = 200000;
    char *deep = malloc(levels * 4 + 200);
    CHECK(deep != NULL);
    if (!deep)
        return;
    size_t at = (size_t)sprintf(deep, "http { upstream u { hash $k consistent; server 127.0.0.1:1; } }\n");
    for (size_t i = 0; i < levels; i++)
        at += (size_t)sprintf(deep + at, "a{");
    for (size_t i = 0; i < levels; i++)
        deep[at++] = '}';
    deep[at] = '\0';
    int err = import(deep, "u", &d, why, sizeof why);
    CHECK_EQ(err, 0);
    CHECK_EQ(json_array_size(json_object_get(d, "nodes")), 1);
    json_decref(d);
    deep[at - 1] = '\0'; /* one '}' short */
    CHECK_EQ(import(deep, "u", &d, why, sizeof why), PLACER_EFORMAT);
    CHECK(strstr(why, "nginx.conf:2: unexpected end of file, expecting \"}\"") != NULL);
    free(deep);

    char fifo[512], conf[700];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    CHECK_EQ(mkfifo(fifo, 0600), 0);
    const char *what[][2] = {{fifo, "(a FIFO)"}, {dir, "(a directory)"}, {"/dev/null", "(a device)"}};
    for (size_t i = 0; i < 3; i++) {
        snprintf(conf, sizeof conf, "http {\n  include %s;\n}\n", what[i][0]);
        CHECK_EQ(import(conf, "u", &d, why, sizeof why), PLACER_EFORMAT);
        CHECK(strstr(why, "nginx.conf:2: \"") != NULL && strstr(why, what[i][1]) != NULL);
    }
    unlink(fifo);

    /* Latin-1 in an unrelated directive and in a socket's path */
    err = import("http {\n  add_header X \"caf\xe9\";\n  upstream u {\n    hash $k consistent;\n"
                 "    server unix:/tmp/\xe9.sock;\n    server 127.0.0.1:80;\n  }\n}\n", "u", &d, why,
                 sizeof why);
    CHECK_EQ(err, 0);
    const json_t *n0 = json_array_get(json_object_get(d, "nodes"), 0);
    CHECK(n0 && !json_object_get(n0, "id") &&
          !strcmp(json_string_value(json_object_get(n0, "id_base64")), "dW5peDovdG1wL+kuc29jaw=="));
    CHECK(n0 && !strcmp(json_string_value(json_object_get(n0, "address_base64")),
                        "dW5peDovdG1wL+kuc29jaw=="));
    json_decref(d);
    placer_snapshot *s = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/nginx.conf", dir);
    CHECK_EQ(placer_nginx_import(path, "u", 1, &s, why, sizeof why), 0);
    CHECK(s && !strcmp(placer_node_id(s, 0), "unix:/tmp/\xe9.sock"));
    CHECK(s && !strcmp(placer_node_address(s, 0), "unix:/tmp/\xe9.sock"));
    placer_snapshot_free(s);
}

static void test_mutations(void)
{
    static const char base[] = "events { }\nhttp {\n  upstream u {\n    hash $arg_k consistent;\n"
                               "    server 127.0.0.1:8001 weight=2;\n    server \"127.0.0.1:8002\" down;\n"
                               "    server 'unix:/tmp/s' max_fails=1;\n  }\n}\n";
    uint64_t rng = 26;
    size_t len = sizeof base - 1;
    char buf[sizeof base];
    for (int round = 0; round < 2000; round++) {
        put("nginx.conf", buf, mutate(buf, base, len, " \t\n#\"'\\;{}$x0123456789=:", &rng));
        char path[512], *doc = NULL, why[512];
        snprintf(path, sizeof path, "%s/nginx.conf", dir);
        int err = placer_nginx_membership(path, "u", &doc, NULL, why, sizeof why);
        check_mutant(err, doc, why, sizeof why);
        placer_mem_free(doc);
    }
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/placer-nginx-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_fields();
    test_refusals();
    test_hostile();
    test_host_names();
    test_mutations();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_done("test_import_nginx");
}
