/*
 * test_import_haproxy.c -- placer_haproxy_membership field by field and
 * every refusal with its line (tests/compat_programs.py proves the imports
 * against haproxy itself); mutated configurations are imported or refused
 * with a reason, never a crash (the sanitizer build runs this too).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../control/compat_import.h"
#include "check.h"
#include "import_mutations.h"
#include "placer_control.h"

#ifndef TEST_DATA
#define TEST_DATA "tests/data"
#endif

/* tests/data/haproxy.cfg (python/tests/test_import_configs.py imports it too) */
static char cfg[4096];

static void read_cfg(void)
{
    FILE *f = fopen(TEST_DATA "/haproxy.cfg", "rb");
    size_t n = f ? fread(cfg, 1, sizeof cfg - 1, f) : 0;
    if (f)
        fclose(f);
    if (!n) {
        fprintf(stderr, "cannot read %s/haproxy.cfg\n", TEST_DATA);
        exit(1);
    }
    cfg[n] = '\0';
}

static json_t *doc_of(const char *text, const char *backend, char *why, size_t why_len)
{
    char *json = NULL;
    size_t n = 0;
    int err = placer_haproxy_membership(text, strlen(text), backend, &json, &n, why, why_len);
    CHECK_EQ(err, 0);
    if (err) {
        fprintf(stderr, "%s: %s\n", backend, why);
        return NULL;
    }
    json_t *d = json_loadb(json, n, 0, NULL);
    placer_mem_free(json);
    return d;
}

static void check_node(const json_t *d, size_t i, const char *id, long weight, long hash_id)
{
    const json_t *n = json_array_get(json_object_get(d, "nodes"), i);
    CHECK(n && !strcmp(json_string_value(json_object_get(n, "id")), id));
    CHECK_EQ(json_integer_value(json_object_get(n, "weight")), weight);
    CHECK_EQ(json_integer_value(json_object_get(n, "hash_id")), hash_id);
}

static void test_fields(void)
{
    char why[1024];
    json_t *d = doc_of(cfg, "b", why, sizeof why);
    CHECK(!strcmp(json_string_value(json_object_get(d, "distribution")), "consistent"));
    CHECK(!strcmp(json_string_value(json_object_get(d, "key_hash")), "sdbm"));
    CHECK(json_is_true(json_object_get(d, "avalanche"))); /* consistent alone */
    CHECK_EQ(json_array_size(json_object_get(d, "nodes")), 3);
    check_node(d, 0, "s1", 1, 1);
    check_node(d, 1, "s2", 2, 7); /* default-server weight 2 */
    check_node(d, 2, "s6", 2, 6); /* ids 3..5 went to the servers left out */
    CHECK(strstr(why, "line 13: server s3 has weight 0: left out") != NULL);
    CHECK(strstr(why, "line 14: server s4 is a backup: left out") != NULL);
    CHECK(strstr(why, "line 15: server s5 is disabled: left out") != NULL);
    CHECK(strstr(why, "the key is the value of URL parameter \"k\"") != NULL);
    json_decref(d);
    d = doc_of(cfg, "c", why, sizeof why);
    CHECK(!strcmp(json_string_value(json_object_get(d, "distribution")), "map-based"));
    CHECK(!strcmp(json_string_value(json_object_get(d, "key_hash")), "crc32"));
    CHECK(json_is_true(json_object_get(d, "avalanche")));
    check_node(d, 0, "b-2", 1, 2);
    CHECK(strstr(why, "the key is the request URI, up to '?', up to its 2-th '/'") != NULL);
    json_decref(d);
    /* no hash-type: map-based, sdbm, no avalanche; named function: none */
    d = doc_of("backend b\n  balance hdr(Host)\n  server a 1.2.3.4:80\n", "b", why, sizeof why);
    CHECK(!strcmp(json_string_value(json_object_get(d, "distribution")), "map-based"));
    CHECK(json_is_false(json_object_get(d, "avalanche")));
    json_decref(d);
    d = doc_of("listen b\n  balance rdp-cookie\n  hash-type consistent sdbm\n  server a 1.2.3.4:80\n",
               "b", why, sizeof why);
    CHECK(json_is_false(json_object_get(d, "avalanche")));
    json_decref(d);
    /* the import builds it */
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_haproxy_import(cfg, strlen(cfg), "b", 9, &s, why, sizeof why), 0);
    CHECK_EQ(placer_node_count(s), 3);
    CHECK_EQ(placer_snapshot_epoch(s), 9);
    CHECK(strstr(why, "line 14: server s4 is a backup: left out") != NULL); /* notes kept */
    placer_snapshot_free(s);
}

/* balance source: key hash "source" whatever function hash-type names, the
 * avalanche as hash-type says; the key is the address's bytes, whose
 * 32-bit words haproxy XORs (bytes past the last whole word unread). */
static void test_source(void)
{
    char why[1024];
    const char *three = "  server a 127.0.0.1:80\n  server b 127.0.0.2:80\n"
                        "  server c 127.0.0.3:80\n";
    char text[512];
    snprintf(text, sizeof text, "backend b\n  balance source\n  hash-type consistent\n%s", three);
    json_t *d = doc_of(text, "b", why, sizeof why);
    CHECK(!strcmp(json_string_value(json_object_get(d, "key_hash")), "source"));
    CHECK(!strcmp(json_string_value(json_object_get(d, "distribution")), "consistent"));
    CHECK(json_is_true(json_object_get(d, "avalanche")));
    CHECK(strstr(why, "line 2: the key is the client's address: its 4 (IPv4) or 16 (IPv6) bytes") != NULL);
    json_decref(d);
    snprintf(text, sizeof text, "backend b\n  balance source\n  hash-type map-based djb2\n%s", three);
    d = doc_of(text, "b", why, sizeof why);
    CHECK(!strcmp(json_string_value(json_object_get(d, "key_hash")), "source"));
    CHECK(json_is_false(json_object_get(d, "avalanche")));
    CHECK(strstr(why, "hash-type's djb2 is not used") != NULL);
    json_decref(d);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_haproxy_import(text, strlen(text), "b", 1, &s, why, sizeof why), 0);
    static const unsigned char v4[5] = {127, 0, 0, 1, 'x'};
    unsigned char v6[16] = {127, 0, 0, 1}; /* 127.0.0.1 ^ 0 ^ 0 ^ 0 */
    int bad = 0;
    for (unsigned i = 0; i < 256; i++) {
        unsigned char a[4] = {10, 1, 2, (unsigned char)i}, b[16] = {0};
        memcpy(b + 12, a, 4); /* ::10.1.2.i: the same XOR */
        bad += placer_lookup(s, a, 4) != placer_lookup(s, b, 16);
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(placer_lookup(s, v4, 4), placer_lookup(s, v4, 5));
    CHECK_EQ(placer_lookup(s, v4, 4), placer_lookup(s, v6, 16));
    placer_snapshot_free(s);
}

static void refused(const char *text, const char *backend, const char *want)
{
    char *json = NULL, why[512];
    int err = placer_haproxy_membership(text, strlen(text), backend, &json, NULL, why, sizeof why);
    CHECK_EQ(err, PLACER_EFORMAT);
    CHECK(json == NULL);
    if (!strstr(why, want)) {
        check_failed_++;
        fprintf(stderr, "haproxy: want \"%s\" in \"%s\"\n", want, why);
    } else {
        check_passed_++;
    }
}

#define S "  server a 1.2.3.4:80\n"

static void test_refusals(void)
{
    refused("backend b\n  balance roundrobin\n" S, "b", "line 2: balance roundrobin sends requests by turn");
    refused("backend b\n  balance leastconn\n" S, "b", "by load, not by a key");
    refused("backend b\n  balance random(2)\n" S, "b", "by chance");
    refused("backend b\n" S, "b", "has no balance: haproxy's default is roundrobin");
    refused("backend b\n  balance wild\n" S, "b", "balance \"wild\": haproxy 2.6 has no such algorithm");
    refused("backend b\n  balance uri depth x\n" S, "b", "balance uri: \"depth\": expected len N");
    refused("backend b\n  balance url_param\n" S, "b", "the parameter's name is missing");
    /* names the key rule cannot hold: refused with the library's reason, never a
     * document the membership reading refuses */
    refused("backend b\n  balance url_param =\n" S, "b",
            "line 2: balance url_param: the name \"=\" is not one placer's key rule takes");
    refused("backend b\n  balance url_param a&b\n" S, "b", "not a parameter name's");
    refused("backend b\n  balance hdr(a:b)\n" S, "b", "not a header name's");
    refused("backend b\n  balance uri\n  hash-type ring\n" S, "b", "line 3: hash-type \"ring\"");
    refused("backend b\n  balance uri\n  hash-type consistent md5\n" S, "b", "\"md5\" is not a function");
    refused("backend b\n  balance uri\n  hash-type consistent sdbm fast\n" S, "b", "the only modifier is avalanche");
    refused("backend b\n  balance uri\n  hash-balance-factor 50\n" S, "b",
            "line 3: 'hash-balance-factor' must be 0 or greater than 100");
    refused("backend b\n  balance uri\n  server-template s 3-1 1.2.3.4:80\n", "b",
            "line 3: server-template: \"3-1\" is not a number or a range");
    refused("backend b\n  balance uri\n  server-template s 1-100001 1.2.3.4:80\n", "b",
            "line 3: more than 100000 servers in a backend (placer's import limit)");
    refused("backend b\n  balance uri\n  server-template s 3 1.2.3.4:80 id 4\n", "b",
            "line 3: server-template: id is not imported");
    refused("backend b\n  balance uri\n  server-template s 3 1.2.3.4:80\n"
            "  server-template s 0-1 1.2.3.4:80\n", "b",
            "line 4: server \"s1\" is line 3's too");
    refused("backend b\n  balance uri\n  server a 1.2.3.4:80 weight 257\n", "b", "line 3: weight \"257\": haproxy's weights are 0 to 256");
    refused("backend b\n  balance uri\n  server a 1.2.3.4:80 id 0\n", "b", "id \"0\"");
    refused("backend b\n  balance uri\n  server a 1.2.3.4:80 id 2000000\n", "b", "placer's haproxy ids end at 1048575");
    refused("backend b\n  balance uri\n  server a 1.2.3.4:80 id 2\n  server c 1.2.3.4:81 id 2\n", "b",
            "line 4: server \"c\": id 2 is line 3's server's too");
    refused("backend b\n  balance uri\n" S S, "b", "line 4: server \"a\" is line 3's too");
    refused("backend b\n  balance uri\n  server a\n", "b", "expected \"server NAME ADDRESS [options]\"");
    refused("backend b\n  balance uri\n  server a/b 1.2.3.4:80\n", "b", "haproxy takes letters, digits");
    refused("backend b\n  balance uri\n  server a\\x01 1.2.3.4:80\n", "b", "server \"a\\x01\"");
    refused("backend b\n  balance uri\n  server a 1.2.3.4:80 weight 0\n", "b", "has no server in its hash");
    refused("backend b\n  balance uri \\\n  url_param k\n" S, "b", "line 2: a '\\' at the end of the line");
    refused("backend b\n  balance \"uri\n" S, "b", "line 2: an unclosed double quote");
    refused("backend b\n  balance \"$1\"\n", "b", "line 2: a '$' inside double quotes not followed");
    refused("backend b\n  balance \"${X\"\n", "b", "line 2: an unclosed '${'");
    refused("backend b\n  balance \"$.FILE\"\n", "b", "line 2: $.FILE and $.SECTION are not");
    refused("backend b\n  balance \"a\\x4\"\n", "b", "line 2: \\x without two hex digits");
    /* conditional blocks: the lines after "backend b / balance uri", the error */
    static const char *const conditions[][2] = {
        {".if feature(OPENSSL)\n.endif\n",
         "line 3: .if: feature(OPENSSL) depends on how the proxy's haproxy was built"},
        {".if version_atleast(2.6.5)\n.endif\n", "line 3: .if: version \"2.6.5\": which haproxy 2.6.x"},
        {".if 1\n.else\n.else\n.endif\n", "line 5: '.else' after '.else' is not permitted"},
        {".if 1\n", "line 3: non-terminated '.if' block"},
        {".endif\n", "line 3: '.endif' with no matching '.if'"},
        {".if defined(A) defined(B)\n.endif\n", "line 3: .if: unexpected text at the end"},
        {".if 1\n.alert \"no\"\n.endif\n", "line 4: .alert in an active block"},
        {".bogus\n", "line 3: unknown directive '.bogus'"},
    };
    for (size_t i = 0; i < sizeof conditions / sizeof conditions[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "backend b\n  balance uri\n%s", conditions[i][0]);
        refused(text, "b", conditions[i][1]);
    }
    refused("backend b\n  balance uri\n  server a 10.0.0.1:80 hash-key addr\n", "b",
            "line 3: unknown keyword 'hash-key' (haproxy 2.6 refuses it: hash-key came with "
            "haproxy 3.0)");
    refused("backend b\n  balance uri\n  server a 10.0.0.1:80 ${OPTS[*]}\n", "b",
            "line 3: unknown keyword '${OPTS[*]}'");
    refused("backend b\n  balance uri\n  server a 10.0.0.1:80 check inter\n", "b",
            "line 3: 'inter' expects an argument");
    refused("backend b from nope\n  balance uri\n" S, "b", "line 1: backend \"b\" from \"nope\": no defaults section");
    refused("backend b\n  balance uri\n" S "backend b\n", "b", "line 4: backend \"b\" is declared twice");
    refused("backend c\n  balance uri\n" S, "b", "no backend or listen section \"b\"");
    refused("backend b\n  bal\0ance uri\n", "b", "no balance"); /* strlen stops at the NUL */
    char *json = NULL;
    CHECK_EQ(placer_haproxy_membership(NULL, 0, "b", &json, NULL, NULL, 0), PLACER_ENULL);
    CHECK_EQ(placer_haproxy_membership("", 0, NULL, &json, NULL, NULL, 0), PLACER_ENULL);
    char nul[] = "backend b\n  balance uri\n  server a 1.2.3.4:80\0x\n";
    char why[256];
    CHECK_EQ(placer_haproxy_membership(nul, sizeof nul - 1, "b", &json, NULL, why, sizeof why), PLACER_EFORMAT);
    CHECK(strstr(why, "line 3: a NUL byte") != NULL);
}

/* placer_haproxy_import builds from its document in memory: the same
 * answer, byte for byte or error for error, as the document's text through
 * placer_membership_parse and placer_builder_build (what `placer build`
 * of --membership-out does). */
static void check_import_is_text_build(const char *text, size_t len, const char *backend)
{
    char why_a[1024], why_b[1024];
    placer_snapshot *a = NULL, *b = NULL;
    int err_a = placer_haproxy_import(text, len, backend, 5, &a, why_a, sizeof why_a);
    char *doc = NULL;
    size_t doc_len = 0;
    int err_b = placer_haproxy_membership(text, len, backend, &doc, &doc_len, why_b, sizeof why_b);
    if (!err_b) {
        placer_builder *bld = NULL;
        uint64_t epoch;
        err_b = placer_membership_parse(doc, doc_len, "the backend's membership", &bld, &epoch,
                                        why_b, sizeof why_b);
        if (err_b >= 0) {
            err_b = placer_builder_build(bld, 5, &b);
            if (err_b)
                snprintf(why_b, sizeof why_b, "the backend's membership: %s",
                         placer_strerror(err_b));
            placer_builder_free(bld);
        }
    }
    placer_mem_free(doc);
    CHECK(err_a == err_b);
    if (err_a || err_b) {
        CHECK(strcmp(why_a, why_b) == 0);
    } else {
        void *ea = NULL, *eb = NULL;
        size_t la = 0, lb = 0;
        CHECK(placer_snapshot_encode(a, &ea, &la) == 0 && placer_snapshot_encode(b, &eb, &lb) == 0);
        CHECK(la == lb && ea && eb && memcmp(ea, eb, la) == 0);
        placer_buffer_free(ea);
        placer_buffer_free(eb);
    }
    placer_snapshot_free(a);
    placer_snapshot_free(b);
}

/* A document the membership reading refuses (an importer's defect, or a
 * limit only the reading checks): the message is the text parse's, with
 * the line and column of the value at fault. */
static const char refused_doc[] = "{\n  \"compat\": \"haproxy\",\n  \"nodes\": [\n"
                                  "    {\"id\": \"a\", \"address\": \"10.0.0.1:80\", "
                                  "\"weight\": 999}\n  ]\n}\n";

static int refused_text(void *arg, char **text, size_t *len, char *why, size_t why_len)
{
    (void)arg;
    (void)why;
    (void)why_len;
    *len = sizeof refused_doc - 1;
    *text = placer_mem_alloc(*len);
    if (!*text)
        return PLACER_ENOMEM;
    memcpy(*text, refused_doc, *len);
    return 0;
}

static void test_tree_refused(void)
{
    json_error_t jerr;
    json_t *doc = json_loads(refused_doc, 0, &jerr);
    CHECK(doc != NULL);
    placer_snapshot *s = NULL;
    char why[512] = "";
    int err = plc_ctl_import_tree(doc, "the backend's membership", 0, &s, refused_text, NULL, why,
                                  sizeof why);
    CHECK(err == PLACER_EFORMAT && s == NULL);
    CHECK(strstr(why, "the backend's membership:4:") != NULL && strstr(why, "weight") != NULL);
}

static void test_mutations(void)
{
    uint64_t rng = 26;
    size_t len = strlen(cfg);
    char *buf = malloc(len + 1);
    for (int round = 0; round < 3000; round++) {
        size_t n = mutate(buf, cfg, len, " \t\n#\"'\\$x0123456789-:()", &rng);
        char *doc = NULL, why[512];
        int err = placer_haproxy_membership(buf, n, round % 2 ? "b" : "c", &doc, NULL, why, sizeof why);
        check_mutant(err, doc, why, sizeof why);
        placer_mem_free(doc);
        if (round % 10 == 0)
            check_import_is_text_build(buf, n, round % 20 ? "b" : "c");
    }
    check_import_is_text_build(cfg, len, "b");
    check_import_is_text_build(cfg, len, "c");
    free(buf);
}

/* Environment variables as haproxy 2.6 expands them: inside double quotes
 * (with defaults, [*] and $.LINE), in server addresses in any quoting,
 * never in single quotes or bare text, unset ones empty; global's setenv,
 * presetenv, unsetenv and resetenv applied in order; a backslash that is
 * no escape kept (a regex's \d) and a bare '$' literal. */
static void test_environment(void)
{
    char why[1024];
    setenv("PLC_T_APP", "10.0.0.1", 1);
    setenv("PLC_T_PORT", "8080", 1);
    setenv("PLC_T_GONE", "x", 1);
    unsetenv("PLC_T_UNSET");
    const char *text =
        "global\n  pidfile \"${PLC_T_RUN}/haproxy.pid\"\n  setenv PLC_T_W 7\n"
        "  presetenv PLC_T_APP 10.9.9.9\n  presetenv PLC_T_NEW 10.0.0.4\n  unsetenv PLC_T_GONE\n"
        "backend b\n  balance url_param \"k${PLC_T_UNSET}\"\n  hash-type consistent\n"
        "  acl api path_reg ^/api/\\d+$\n  http-request set-header X 'a $PLC_T_W'\n"
        "  server s1 ${PLC_T_APP}:$PLC_T_PORT weight \"$PLC_T_W\"\n"
        "  server s2 '$PLC_T_NEW:80' weight \"${PLC_T_UNSET-3}\"\n"
        "  server s3 \"10.0.0.$PLC_T_GONE:80\" id \"$.LINE\"\n"
        "  server s\"4\" 10.0.0.5:80 'weight' \"${PLC_T_NOPE[*]}2\"\n";
    setenv("PLC_T_OPTS", "weight  9", 1);
    json_t *d = doc_of(text, "b", why, sizeof why);
    check_node(d, 0, "s1", 7, 1);
    check_node(d, 1, "s2", 3, 2);
    check_node(d, 2, "s3", 1, 14);
    const json_t *nodes = json_object_get(d, "nodes");
    CHECK(!strcmp(json_string_value(json_object_get(json_array_get(nodes, 0), "address")),
                  "10.0.0.1:8080"));
    CHECK(!strcmp(json_string_value(json_object_get(json_array_get(nodes, 1), "address")),
                  "10.0.0.4:80"));
    CHECK(!strcmp(json_string_value(json_object_get(json_array_get(nodes, 2), "address")),
                  "10.0.0.:80"));
    /* an unset ${X[*]} adds nothing to its word */
    CHECK_EQ(json_integer_value(json_object_get(json_array_get(nodes, 3), "weight")), 2);
    CHECK(strstr(why, "the value of URL parameter \"k\"") != NULL);
    json_decref(d);
    /* resetenv keeps only the names it lists */
    text = "global\n  resetenv PLC_T_PORT PLC_T_OPTS\nbackend b\n  balance uri\n"
           "  server s1 10.0.0.1:80 weight \"${PLC_T_OPTS[*]}\"\n"
           "  server s2 \"${PLC_T_APP-10.0.0.2}:${PLC_T_PORT}\"\n";
    setenv("PLC_T_OPTS", "9 backup", 1);
    d = doc_of(text, "b", why, sizeof why);
    CHECK(strstr(why, "line 5: server s1 is a backup") != NULL);
    nodes = json_object_get(d, "nodes");
    CHECK_EQ(json_array_size(nodes), 1);
    CHECK(!strcmp(json_string_value(json_object_get(json_array_get(nodes, 0), "address")),
                  "10.0.0.2:8080"));
    json_decref(d);
}

/* server-template's servers as haproxy creates them (PREFIX1..PREFIXN or
 * the range's, the template's address and options, automatic ids in
 * order); hash-balance-factor recorded in the document, from defaults
 * too, and a membership with it builds. */
static void test_template_factor(void)
{
    char why[1024];
    setenv("PLC_T_TPL", "10.0.0.7", 1);
    const char *text = "defaults\n  hash-balance-factor 150\nbackend b\n  balance uri\n"
                       "  hash-type consistent\n  server a 10.0.0.1:80 id 3\n"
                       "  server-template web 3 \"${PLC_T_TPL}:8080\" weight 5\n"
                       "  server-template t 7-8 10.0.0.9:80 backup\n  server z 10.0.0.2:80\n";
    json_t *d = doc_of(text, "b", why, sizeof why);
    CHECK_EQ(json_integer_value(json_object_get(d, "hash_balance_factor")), 150);
    CHECK(strstr(why, "line 2: hash-balance-factor 150: recorded") != NULL);
    CHECK(strstr(why, "line 8: server t7 is a backup") != NULL);
    CHECK(strstr(why, "line 8: server t8 is a backup") != NULL);
    const json_t *nodes = json_object_get(d, "nodes");
    CHECK_EQ(json_array_size(nodes), 5);
    check_node(d, 0, "a", 1, 3);
    check_node(d, 1, "web1", 5, 2);
    check_node(d, 2, "web2", 5, 4); /* 3 is a's */
    check_node(d, 3, "web3", 5, 5);
    check_node(d, 4, "z", 1, 8);    /* t7 and t8 took 6 and 7 */
    CHECK(!strcmp(json_string_value(json_object_get(json_array_get(nodes, 2), "address")),
                  "10.0.0.7:8080"));
    json_decref(d);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_haproxy_import(text, strlen(text), "b", 1, &s, why, sizeof why), 0);
    CHECK_EQ(s ? placer_node_count(s) : 0, 5);
    placer_snapshot_free(s);
    /* the field is haproxy's only, 0 or from 100 */
    const char *bad[] = {"{\"compat\": \"nginx\", \"hash_balance_factor\": 150, \"nodes\": "
                         "[{\"id\": \"a\", \"address\": \"x:1\"}]}",
                         "{\"compat\": \"haproxy\", \"hash_balance_factor\": 99, \"nodes\": "
                         "[{\"id\": \"a\"}]}",
                         "{\"hash_balance_factor\": 150, \"nodes\": [{\"id\": \"a\"}]}"};
    for (size_t i = 0; i < 3; i++) {
        placer_builder *b = NULL;
        uint64_t epoch;
        CHECK_EQ(placer_membership_parse(bad[i], strlen(bad[i]), "m", &b, &epoch, why, sizeof why),
                 PLACER_EFORMAT);
        CHECK(strstr(why, "hash_balance_factor") != NULL);
    }
}

/* Conditional blocks as haproxy 2.6 evaluates them: the servers of the
 * branches taken only. tests/compat_programs.py checks each condition's
 * verdict against haproxy itself. */
static void test_conditions(void)
{
    char why[1024];
    setenv("PLC_T_SET", "prod", 1);
    unsetenv("PLC_T_NOPE");
    const char *text =
        "global\n  setenv PLC_T_LATE 1\nbackend b\n  balance uri\n"
        ".if defined(PLC_T_NOPE)\n  server no1 10.0.0.1:80\n"
        ".elif defined(PLC_T_LATE) && !defined(PLC_T_NOPE)\n  server s1 10.0.0.2:80\n"
        ".else\n  server no2 10.0.0.3:80\n.endif\n"
        ".if \"streq(${PLC_T_SET},prod)\" || feature(OPENSSL)\n  server s2 10.0.0.4:80\n.endif\n"
        ".if 0 && feature(OPENSSL)\n  server no3 10.0.0.5:80\n"
        "  .if feature(X) junk\n  .endif\n"
        ".elif version_atleast(2.4) && version_before(2.7) && !version_atleast(2.6.0)\n"
        "  server no4 10.0.0.6:80\n.elif (0x10 && strneq(a,b))\n  server s3 10.0.0.7:80\n"
        ".elif 1\n  server no5 10.0.0.8:80\n.endif\n"
        ".if 0\n.elif 0\n.else\n  server s4 10.0.0.9:80\n.endif\n.diag \"seen\"\n";
    json_t *d = doc_of(text, "b", why, sizeof why);
    const json_t *nodes = json_object_get(d, "nodes");
    CHECK_EQ(json_array_size(nodes), 4);
    const char *want[] = {"s1", "s2", "s3", "s4"};
    for (size_t i = 0; i < 4; i++)
        check_node(d, i, want[i], 1, (long)i + 1);
    json_decref(d);
}

/* Bytes that are not UTF-8 (a Latin-1 comment, an address) are carried
 * through: the address as "address_base64", which placer_membership_parse
 * reads back into the same bytes; a document with both forms, or bad
 * base64, is refused naming the field. */
static void test_encoding(void)
{
    char why[1024];
    const char *text = "# caf\xe9\nbackend b\n  balance uri\n  hash-type consistent\n"
                      "  server s1 h\xe9te:80\n  server s2 10.0.0.2:80\n";
    json_t *d = doc_of(text, "b", why, sizeof why);
    const json_t *n0 = json_array_get(json_object_get(d, "nodes"), 0);
    CHECK(n0 && !json_object_get(n0, "address") &&
          !strcmp(json_string_value(json_object_get(n0, "address_base64")), "aOl0ZTo4MA=="));
    json_decref(d);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_haproxy_import(text, strlen(text), "b", 1, &s, why, sizeof why), 0);
    CHECK(s && !strcmp(placer_node_address(s, 0), "h\xe9te:80"));
    placer_snapshot_free(s);
    const char *both = "{\"compat\": \"haproxy\", \"nodes\": [{\"id\": \"a\", \"address\": \"x\", "
                       "\"address_base64\": \"eA==\"}]}";
    placer_builder *b = NULL;
    uint64_t epoch;
    CHECK_EQ(placer_membership_parse(both, strlen(both), "m", &b, &epoch, why, sizeof why),
             PLACER_EFORMAT);
    CHECK(strstr(why, "nodes[0].address") != NULL && strstr(why, "given twice") != NULL);
    const char *bad = "{\"compat\": \"haproxy\", \"nodes\": [{\"id_base64\": \"@@\"}]}";
    CHECK_EQ(placer_membership_parse(bad, strlen(bad), "m", &b, &epoch, why, sizeof why),
             PLACER_EFORMAT);
    CHECK(strstr(why, "nodes[0].id_base64") != NULL && strstr(why, "base64") != NULL);
    const char *nul = "{\"compat\": \"haproxy\", \"nodes\": [{\"id_base64\": \"YQBi\"}]}";
    CHECK_EQ(placer_membership_parse(nul, strlen(nul), "m", &b, &epoch, why, sizeof why),
             PLACER_EFORMAT);
    CHECK(strstr(why, "NUL") != NULL);
}

int main(void)
{
    read_cfg();
    test_fields();
    test_source();
    test_refusals();
    test_mutations();
    test_tree_refused();
    test_encoding();
    test_environment();
    test_conditions();
    test_template_factor();
    return check_done("test_import_haproxy");
}
