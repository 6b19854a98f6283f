/*
 * test_compat_import.c -- the imports of other programs' configurations
 * (placer_control.h): a real nutcracker.yml (placer_twemproxy_*) and the
 * CLUSTER NODES of a real Redis Cluster (placer_redis_*), both in
 * tests/data/. Their membership documents field by field; the snapshots
 * they build (slots, owners, replicas, keys against CLUSTER KEYSLOT's
 * answers); every refusal with its message; and mutated inputs, which must
 * import or be refused, never crash (the sanitizer build runs this too).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer_control.h"

#ifndef TEST_DATA
#define TEST_DATA "tests/data"
#endif

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static json_t *twemproxy_doc(const char *yaml, size_t len, const char *pool)
{
    char *text = NULL, why[512];
    size_t n = 0;
    int err = placer_twemproxy_membership(yaml, len, pool, &text, &n, why, sizeof why);
    CHECK_EQ(err, 0);
    if (err) {
        fprintf(stderr, "pool %s: %s\n", pool ? pool : "-", why);
        return NULL;
    }
    CHECK_EQ(strlen(text), n);
    json_t *doc = json_loadb(text, n, 0, NULL);
    CHECK(doc != NULL);
    placer_mem_free(text);
    return doc;
}

static const char *member(const json_t *o, const char *name)
{
    const char *v = json_string_value(json_object_get(o, name));
    return v ? v : "(none)";
}

static void check_node(const json_t *doc, size_t i, const char *id, const char *address, int weight)
{
    const json_t *n = json_array_get(json_object_get(doc, "nodes"), i);
    CHECK(!strcmp(member(n, "id"), id));
    CHECK(!strcmp(member(n, "address"), address));
    CHECK_EQ(json_integer_value(json_object_get(n, "weight")), weight);
}

static void test_twemproxy_pools(void)
{
    size_t len;
    char *yaml = slurp("nutcracker.yml", &len);
    json_t *d = twemproxy_doc(yaml, len, "gamma");
    CHECK(!strcmp(member(d, "compat"), "twemproxy"));
    CHECK(!strcmp(member(d, "distribution"), "ketama"));
    CHECK(!strcmp(member(d, "key_hash"), "md5"));
    CHECK(json_object_get(d, "hash_tag") == NULL);
    CHECK_EQ(json_array_size(json_object_get(d, "nodes")), 4);
    /* unnamed: the host alone on 11211, host:port elsewhere */
    check_node(d, 0, "10.0.0.1", "10.0.0.1:11211", 1);
    check_node(d, 1, "10.0.0.2", "10.0.0.2:11211", 2);
    check_node(d, 2, "10.0.0.3:11212", "10.0.0.3:11212", 1);
    check_node(d, 3, "cache-4.example.net", "cache-4.example.net:11211", 1);
    json_decref(d);

    d = twemproxy_doc(yaml, len, "beta");
    CHECK(!strcmp(member(d, "key_hash"), "fnv1a_64"));
    CHECK(!strcmp(member(d, "hash_tag"), "{}"));
    check_node(d, 0, "server1", "127.0.0.1:6380", 1);
    check_node(d, 3, "server4", "127.0.0.1:6383", 1);
    json_decref(d);

    d = twemproxy_doc(yaml, len, "omega");
    CHECK(!strcmp(member(d, "distribution"), "modula"));
    CHECK(!strcmp(member(d, "key_hash"), "crc32a"));
    check_node(d, 0, "127.0.0.1:11214", "127.0.0.1:11214", 3);
    /* a socket: its path and the ':' before the weight (nc_conf.c's arithmetic) */
    check_node(d, 2, "/var/run/memcached/memcached.sock:", "/var/run/memcached/memcached.sock", 1);
    json_decref(d);

    /* defaults written out; a file of one pool needs no --pool */
    const char *one = "solo:\n  listen: 127.0.0.1:22121\n  servers:\n   - 10.1.1.1:11211:1\n";
    d = twemproxy_doc(one, strlen(one), NULL);
    CHECK(!strcmp(member(d, "distribution"), "ketama"));
    CHECK(!strcmp(member(d, "key_hash"), "fnv1a_64"));
    check_node(d, 0, "10.1.1.1", "10.1.1.1:11211", 1);
    json_decref(d);

    /* the snapshot: twemproxy's mode, every node */
    placer_snapshot *s = NULL;
    char why[512];
    CHECK_EQ(placer_twemproxy_import(yaml, len, "gamma", 9, &s, why, sizeof why), 0);
    if (s) {
        CHECK_EQ(placer_snapshot_compat(s), PLACER_COMPAT_TWEMPROXY);
        CHECK(!strcmp(placer_snapshot_compat_key_hash(s), "md5"));
        CHECK_EQ(placer_snapshot_epoch(s), 9);
        CHECK_EQ(placer_node_count(s), 4);
        CHECK(!strcmp(placer_node_address(s, 2), "10.0.0.3:11212"));
        /* the weight-2 server owns about twice the keys of the others */
        uint32_t count[4] = {0};
        char key[32];
        for (int i = 0; i < 20000; i++) {
            snprintf(key, sizeof key, "key:%d", i);
            int o = placer_lookup(s, key, strlen(key));
            CHECK_ALL(o >= 0 && o < 4, "owners of 20,000 keys");
            if (o >= 0 && o < 4)
                count[o]++;
        }
        CHECK(count[1] > count[0] * 3 / 2 && count[1] > count[2] * 3 / 2);
        placer_snapshot_free(s);
    } else {
        fprintf(stderr, "import gamma: %s\n", why);
    }
    free(yaml);
}

/* Each input refused with PLACER_EFORMAT and a message holding `want`. */
static void refused_yaml(const char *yaml, size_t len, const char *pool, const char *want)
{
    char *text = NULL, why[512];
    int err = placer_twemproxy_membership(yaml, len, pool, &text, NULL, why, sizeof why);
    CHECK_EQ(err, PLACER_EFORMAT);
    CHECK(text == NULL);
    if (!strstr(why, want)) {
        check_failed_++;
        fprintf(stderr, "twemproxy: want \"%s\" in \"%s\"\n", want, why);
    } else {
        check_passed_++;
    }
    placer_mem_free(text);
}

#define REFUSED_YAML(y, pool, want) refused_yaml(y, sizeof(y) - 1, pool, want)

static void test_twemproxy_refusals(void)
{
    size_t len;
    char *yaml = slurp("nutcracker.yml", &len);
    refused_yaml(yaml, len, NULL, "several pools: say which (\"alpha\", \"beta\", \"gamma\", \"omega\")");
    refused_yaml(yaml, len, "delta", "no pool \"delta\"");
    free(yaml);
    REFUSED_YAML("", NULL, "no pools");
    REFUSED_YAML("p:\n  listen: \"127.0.0.1:1\n", NULL, "line 3, column 1: YAML: found unexpected end of stream while scanning a quoted scalar");
    REFUSED_YAML("- a\n", NULL, "expected a mapping of pool names");
    REFUSED_YAML("p: 1\n", NULL, "pool \"p\": expected a mapping of directives");
    REFUSED_YAML("p:\n  servers:\n   - 1.2.3.4:1:1\n  bogus: 1\n", NULL,
                 "line 4, column 3: pool \"p\": unknown directive \"bogus\"");
    REFUSED_YAML("p:\n  hash: md5\n  hash: md5\n  servers:\n   - 1.2.3.4:1:1\n", NULL,
                 "line 3, column 3: pool \"p\": hash: a duplicate");
    REFUSED_YAML("p:\n  servers:\n   - 1.2.3.4:11211\n", NULL, "servers[0]: expected \"host:port:weight [name]\"");
    REFUSED_YAML("p:\n  servers:\n   - 1.2.3.4:11211:0\n", NULL, "servers[0]: the weight must be an integer");
    REFUSED_YAML("p:\n  servers:\n   - 1.2.3.4:11211:x\n", NULL, "the weight must be");
    REFUSED_YAML("p:\n  servers:\n   - 1.2.3.4:0:1\n", NULL, "the port must be from 1 to 65535");
    REFUSED_YAML("p:\n  servers:\n   - 1.2.3.4:70000:1\n", NULL, "the port must be");
    REFUSED_YAML("p:\n  servers:\n   - :11211:1\n", NULL, "no host");
    REFUSED_YAML("p:\n  servers:\n   - '1.2.3.4:11211:1 '\n", NULL, "an empty name");
    REFUSED_YAML("p:\n  servers:\n   - 1.2.3.4:11211:1 a\n   - 1.2.3.5:11211:1 a\n", NULL,
                 "line 4, column 6: pool \"p\": servers[1]: the name \"a\" is servers[0]'s too");
    REFUSED_YAML("p:\n  servers:\n   - 1.2.3.4:11211:1\n   - 1.2.3.4:11211:2\n", NULL,
                 "the name \"1.2.3.4\" is servers[0]'s too");
    REFUSED_YAML("p:\n  hash: sha1\n  servers:\n   - 1.2.3.4:1:1\n", NULL,
                 "hash: \"sha1\" is not one of nutcracker's hashes");
    REFUSED_YAML("p:\n  distribution: random\n  servers:\n   - 1.2.3.4:1:1\n", NULL,
                 "no placement can follow it");
    REFUSED_YAML("p:\n  distribution: vnode\n  servers:\n   - 1.2.3.4:1:1\n", NULL,
                 "\"vnode\" is not one of ketama, modula, random");
    REFUSED_YAML("p:\n  hash_tag: \"{\"\n  servers:\n   - 1.2.3.4:1:1\n", NULL,
                 "hash_tag: expected two characters");
    REFUSED_YAML("p:\n  listen: &a 127.0.0.1:1\n", NULL, "line 2, column 11: pool \"p\": a YAML anchor");
    REFUSED_YAML("p:\n  listen: *a\n", NULL, "YAML aliases are not supported");
    REFUSED_YAML("p:\n  listen: 127.0.0.1:1\n  servers:\n   - 1.2.3.4:1:1\n---\nq: 1\n", NULL,
                 "line 5, column 1: a document start (---)");
    REFUSED_YAML("p:\n  listen: 127.0.0.1:1\n  servers:\n   - 1.2.3.4:1:1\n...\n", NULL,
                 "a document end (...)");
    REFUSED_YAML("%YAML 1.1\n---\np: 1\n", NULL, "a %YAML or %TAG directive");
    REFUSED_YAML("p:\n  hash: !!str md5\n", NULL, "a YAML tag (!tag)");
    REFUSED_YAML("p:\n  servers: ['1.2.3.4:1:1']\n", NULL, "line 2, column 12: pool \"p\": a flow sequence");
    REFUSED_YAML("p:\n  timeout:\n", NULL, "line 2, column 11: pool \"p\": an empty value");
    REFUSED_YAML("p:\n  timeout: 1s\n", NULL, "timeout: not a number");
    REFUSED_YAML("p:\n  backlog: -1\n", NULL, "backlog: not a number");
    REFUSED_YAML("p:\n  server_connections: 0\n", NULL, "server_connections: cannot be 0");
    REFUSED_YAML("p:\n  tcpkeepalive: yes\n", NULL, "tcpkeepalive: not \"true\" or \"false\"");
    REFUSED_YAML("p:\n  listen: 127.0.0.1\n", NULL, "listen: expected \"hostname:port\"");
    REFUSED_YAML("p:\n  listen: 127.0.0.1:0\n", NULL, "listen: the port must be");
    REFUSED_YAML("p:\n  listen: :22121\n", NULL, "listen: no host");
    REFUSED_YAML("p:\n  listen: /tmp/s 1777\n", NULL, "listen: an invalid file permission");
    REFUSED_YAML("p:\n  listen: 127.0.0.1:1\n  servers:\n   - 1.2.3.4:1:1\nq:\n  listen: 127.0.0.1:1\n", NULL,
                 "line 6, column 11: pool \"q\": listen: 127.0.0.1:1 is pool \"p\"'s too");
    REFUSED_YAML("p:\n  servers:\n   - 1.2.3.4:1:1\n", NULL, "line 1, column 1: pool \"p\": no listen");
    REFUSED_YAML("p:\n  listen: 127.0.0.1:1\n  redis_auth: pw\n  servers:\n   - 1.2.3.4:1:1\n", NULL,
                 "redis_auth without \"redis: true\"");
    /* every pool is checked, not only the one imported */
    REFUSED_YAML("p:\n  listen: 127.0.0.1:1\n  servers:\n   - 1.2.3.4:1:1\nq:\n  listen: 127.0.0.1:2\n"
                 "  servers:\n   - 1.2.3.4:1:0\n", "p", "pool \"q\": servers[0]: the weight");
    REFUSED_YAML("p:\n  listen: 127.0.0.1:1\n", NULL, "line 1, column 1: pool \"p\": no servers");
    REFUSED_YAML("p:\n  servers:\n   - \"1.2.3.4:1:1 a\\0b\"\n", NULL, "a server holds a NUL byte");
    REFUSED_YAML("p:\n  servers:\n   - - 1\n", NULL, "servers: expected \"host:port:weight [name]\" strings");
    REFUSED_YAML("p:\n  servers: x\n", NULL, "servers: a list of");
    REFUSED_YAML("p:\n  servers:\n   - /tmp/a:b:1\n", NULL, "a socket path holds no ':'");
    REFUSED_YAML("p:\n  listen:\n    a: 1\n", NULL, "expected a value (a scalar)");
    REFUSED_YAML("p:\n  listen: 127.0.0.1:1\n  servers:\n   - 1.2.3.4:1:1\np:\n  listen: 127.0.0.1:2\n", "p",
                 "pool \"p\" is named twice");
    CHECK_EQ(placer_twemproxy_membership(NULL, 0, NULL, &(char *){NULL}, NULL, NULL, 0), PLACER_ENULL);
    /* many pools of long names: the list in the message is cut, with "..." */
    char many[8192];
    size_t at = 0;
    for (int i = 0; i < 40; i++)
        at += (size_t)snprintf(many + at, sizeof many - at,
                               "pool-with-a-long-name-number-%02d:\n  listen: 127.0.0.1:%d\n"
                               "  servers:\n   - 1.2.3.4:1:1\n", i, 100 + i);
    refused_yaml(many, at, "nope", "no pool \"nope\" (the file has \"pool-with-a-long-name-number-00\", ");
    refused_yaml(many, at, "nope", ", ...)");
    refused_yaml(many, at, NULL, "several pools: say which (\"pool-with-a-long-name-number-00\"");
}

static json_t *redis_doc(const char *text, size_t len)
{
    char *out = NULL, why[512];
    size_t n = 0;
    int err = placer_redis_membership(text, len, &out, &n, why, sizeof why);
    CHECK_EQ(err, 0);
    if (err) {
        fprintf(stderr, "redis: %s\n", why);
        return NULL;
    }
    json_t *doc = json_loadb(out, n, 0, NULL);
    placer_mem_free(out);
    return doc;
}

#define MASTER_A "a1ea75d53788398f5bab311ecb932f88df9302cf" /* 127.0.0.1:31001 */
#define MASTER_B "3fa5bbc25515466ecca3aef8cfc3f1109c9f115f" /* 127.0.0.1:31002 */
#define MASTER_C "0fd9ed842502046983d2cbbea23541f4446654cd" /* 127.0.0.1:31003 */
#define REPLICA_A "46801a8e5fa542fd003647150ab55b5bd8f19491"

static void check_row(const json_t *doc, size_t i, long first, long last, const char *master,
                      size_t ids)
{
    const json_t *row = json_array_get(json_object_get(doc, "slots"), i);
    CHECK_EQ(json_array_size(row), 2 + ids);
    CHECK_EQ(json_integer_value(json_array_get(row, 0)), first);
    CHECK_EQ(json_integer_value(json_array_get(row, 1)), last);
    CHECK(!strcmp(json_string_value(json_array_get(row, 2)) ? json_string_value(json_array_get(row, 2)) : "", master));
}

static int node_named(const placer_snapshot *s, const char *id)
{
    for (uint32_t i = 0; i < placer_node_count(s); i++)
        if (!strcmp(placer_node_id(s, i), id))
            return (int)i;
    return -1;
}

static void test_redis_cluster(void)
{
    size_t len;
    char *text = slurp("redis-cluster-nodes.txt", &len);
    json_t *d = redis_doc(text, len);
    CHECK(!strcmp(member(d, "compat"), "redis"));
    CHECK_EQ(json_integer_value(json_object_get(d, "epoch")), 3);
    CHECK_EQ(json_array_size(json_object_get(d, "nodes")), 6);
    /* slot 200 moved to C; slot 100 migrating to B stays A's */
    CHECK_EQ(json_array_size(json_object_get(d, "slots")), 5);
    check_row(d, 0, 0, 199, MASTER_A, 2);
    check_row(d, 1, 200, 200, MASTER_C, 2);
    check_row(d, 2, 201, 5460, MASTER_A, 2);
    check_row(d, 3, 5461, 10922, MASTER_B, 2);
    check_row(d, 4, 10923, 16383, MASTER_C, 2);
    CHECK(!strcmp(json_string_value(json_array_get(json_array_get(json_object_get(d, "slots"), 0), 3)),
                  REPLICA_A));
    json_decref(d);

    placer_snapshot *s = NULL;
    char why[512];
    CHECK_EQ(placer_redis_import(text, len, &s, why, sizeof why), 0);
    if (!s) {
        fprintf(stderr, "redis import: %s\n", why);
        free(text);
        return;
    }
    CHECK_EQ(placer_snapshot_compat(s), PLACER_COMPAT_REDIS);
    CHECK_EQ(placer_snapshot_strategy(s), PLACER_PARTITIONS);
    CHECK_EQ(placer_partition_count(s), 16384);
    CHECK_EQ(placer_partition_copies(s), 2);
    CHECK_EQ(placer_snapshot_epoch(s), 3);
    int a = node_named(s, MASTER_A), b = node_named(s, MASTER_B), c = node_named(s, MASTER_C);
    int ra = node_named(s, REPLICA_A);
    CHECK(a >= 0 && b >= 0 && c >= 0 && ra >= 0);
    CHECK(!strcmp(placer_node_address(s, (uint32_t)a), "127.0.0.1:31001"));
    const struct { uint32_t slot; int *owner; } rows[] = {
        {0, &a}, {100, &a}, {199, &a}, {200, &c}, {201, &a}, {5460, &a}, {5461, &b},
        {10922, &b}, {10923, &c}, {16383, &c}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint32_t owner = PLACER_NO_NODE, next = PLACER_NO_NODE;
        CHECK_EQ(placer_partition_owner(s, rows[i].slot, &owner, &next), 0);
        CHECK_EQ(owner, (uint32_t)*rows[i].owner);
    }
    uint32_t copies[2] = {0, 0};
    CHECK_EQ(placer_partition_replicas(s, 7, copies, 2), 2);
    CHECK_EQ(copies[0], (uint32_t)a);
    CHECK_EQ(copies[1], (uint32_t)ra);
    /* keys: CLUSTER KEYSLOT's answers on that cluster (tests/data/README.md) */
    static const struct { const char *key; int slot; } keys[] = {
        {"foo", 12182}, {"bar", 5061}, {"hello", 866}, {"{user1000}.following", 3443}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        CHECK_EQ(placer_partition(s, keys[i].key, strlen(keys[i].key)), keys[i].slot);
        uint32_t owner = 0, next = 0;
        placer_partition_owner(s, (uint32_t)keys[i].slot, &owner, &next);
        CHECK_EQ(placer_lookup(s, keys[i].key, strlen(keys[i].key)), owner);
    }
    placer_snapshot_free(s);
    free(text);
}

static void refused_nodes(const char *text, const char *want)
{
    char *out = NULL, why[512];
    int err = placer_redis_membership(text, strlen(text), &out, NULL, why, sizeof why);
    CHECK_EQ(err, PLACER_EFORMAT);
    CHECK(out == NULL);
    if (!strstr(why, want)) {
        check_failed_++;
        fprintf(stderr, "redis: want \"%s\" in \"%s\"\n", want, why);
    } else {
        check_passed_++;
    }
    placer_mem_free(out);
}

#define ID1 "1111111111111111111111111111111111111111"
#define ID2 "2222222222222222222222222222222222222222"
#define M1 ID1 " 127.0.0.1:7000@17000 myself,master - 0 0 1 connected "
#define M2 ID2 " 127.0.0.1:7001@17001 master - 0 0 2 connected "

static void test_redis_refusals(void)
{
    refused_nodes("", "no nodes");
    refused_nodes("\n\n", "no nodes");
    refused_nodes("hello world\n", "line 1: expected id, address, flags");
    refused_nodes(M1 "0-16383\nabc 127.0.0.1:7001@17001 master - 0 0 2 connected\n",
                  "line 2: the node id must be 40 lowercase hex digits");
    refused_nodes(M1 "0-8000\n", "slots 8001 to 16383 have no master");
    refused_nodes(M1 "0-16382\n", "slot 16383 has no master");
    refused_nodes(M1 "0-9000\n" M2 "9000-16383\n", "line 2: slot 9000 of " ID2 " is also claimed on line 1");
    refused_nodes(M1 "0-16384\n", "line 1: \"0-16384\": expected a slot");
    refused_nodes(M1 "9-3\n", "expected a slot or a range");
    refused_nodes(M1 "0-16383\n" M1 "\n", "line 2: node " ID1 " is also on line 1");
    refused_nodes(M1 "0-16383\n" ID2 " 127.0.0.1:7001@17001 slave 3333333333333333333333333333333333333333 0 0 1 connected\n",
                  "line 2: replica of 3333333333333333333333333333333333333333, a node not in the text");
    refused_nodes(M1 "0-100\n" ID2 " 127.0.0.1:7001@17001 slave " ID1 " 0 0 1 connected 101-16383\n",
                  "line 2: replica " ID2 " lists slots");
    refused_nodes(ID1 " 127.0.0.1:7000@17000 myself,noflags - 0 0 1 connected 0-16383\n",
                  "expected master or slave");
    refused_nodes(ID1 " 127.0.0.1@17000 master - 0 0 1 connected 0-16383\n", "the address must be ip:port");
    refused_nodes(ID1 " 127.0.0.1:99999@17000 master - 0 0 1 connected 0-16383\n", "the address must be");
    refused_nodes(ID1 " 127.0.0.1:7000@17000 master - x 0 1 connected 0-16383\n", "must be integers");
    refused_nodes(ID1 " 127.0.0.1:7000@17000 master " ID2 " 0 0 1 connected 0-16383\n",
                  "a master's master field must be \"-\"");
    /* numbers past 2^63-1 are refused, not overflowed (fuzz_import found
     * the signed overflow in CI) */
    refused_nodes(ID1 " 127.0.0.1:7000@17000 master - 99999999999999999999 0 1 connected 0-16383\n",
                  "must be integers");
    refused_nodes(ID1 " 127.0.0.1:7000@17000 master - 0 0 9223372036854775808 connected 0-16383\n",
                  "must be integers");
    refused_nodes(ID1 " 127.0.0.1:7000@17000 master - 0 0 1 connected 0-99999999999999999999999\n",
                  "expected a slot");
    char nul[] = M1 "0-16383\n";
    nul[3] = '\0';
    char *out = NULL, why[256];
    CHECK_EQ(placer_redis_membership(nul, sizeof nul - 1, &out, NULL, why, sizeof why), PLACER_EFORMAT);
    CHECK(strstr(why, "line 1: holds a NUL byte") != NULL);
    /* a handshake node is not a member; "[...]" markers are skipped */
    json_t *d = redis_doc(M1 "0-16383 [5->-" ID2 "]\n" ID2 " 127.0.0.1:7001@17001 handshake - 0 0 0 disconnected\n",
                          strlen(M1 "0-16383 [5->-" ID2 "]\n" ID2 " 127.0.0.1:7001@17001 handshake - 0 0 0 disconnected\n"));
    CHECK_EQ(json_array_size(json_object_get(d, "nodes")), 1);
    json_decref(d);
    /* hostnames after the address (Redis 7), CRLF line ends */
    const char *host = ID1 " 10.0.0.1:6379@16379,cache-1.example.net myself,master - 0 0 7 connected 0-16383\r\n";
    d = redis_doc(host, strlen(host));
    CHECK(!strcmp(member(json_array_get(json_object_get(d, "nodes"), 0), "address"), "10.0.0.1:6379"));
    CHECK_EQ(json_integer_value(json_object_get(d, "epoch")), 7);
    json_decref(d);
}

/* Mutated real inputs: import or a refusal, never a crash or a leak. */
static void test_mutations(void)
{
    const char *files[] = {"nutcracker.yml", "redis-cluster-nodes.txt"};
    uint64_t rng = 20261201;
    for (int f = 0; f < 2; f++) {
        size_t len;
        char *orig = slurp(files[f], &len);
        char *buf = malloc(len + 64);
        for (int round = 0; round < 3000; round++) {
            memcpy(buf, orig, len);
            size_t n = len;
            int edits = 1 + (int)(check_rand(&rng) % 4);
            for (int e = 0; e < edits && n > 1; e++) {
                size_t at = check_rand(&rng) % n;
                static const char bytes[] = ": -\n{}[]&*!'\"#0123456789/,@\x80\t";
                switch (check_rand(&rng) % 3) {
                case 0:
                    buf[at] = bytes[check_rand(&rng) % (sizeof bytes - 1)];
                    break;
                case 1:
                    memmove(buf + at, buf + at + 1, n - at - 1);
                    n--;
                    break;
                default:
                    n = at + 1; /* truncated */
                    break;
                }
            }
            char *doc = NULL, why[512];
            int err = f == 0 ? placer_twemproxy_membership(buf, n, "gamma", &doc, NULL, why, sizeof why)
                             : placer_redis_membership(buf, n, &doc, NULL, why, sizeof why);
            CHECK_ALL(err == 0 || (err == PLACER_EFORMAT && *why), "mutations: imported or refused with a reason");
            if (err && (err != PLACER_EFORMAT || !*why))
                fprintf(stderr, "err %d why %s\n%.*s\n", err, why, (int)n, buf);
            if (!err) {
                placer_builder *b = NULL;
                uint64_t epoch;
                int got = placer_membership_parse(doc, strlen(doc), "doc", &b, &epoch, why, sizeof why);
                placer_snapshot *s = NULL;
                int built = got >= 0 ? placer_builder_build(b, epoch, &s) : got;
                /* what an import writes parses and builds (or is refused with its place) */
                CHECK_ALL(built == 0 || (got == PLACER_EFORMAT && strstr(why, "doc:")),
                          "mutations: the document builds");
                placer_snapshot_free(s);
                placer_builder_free(b);
            }
            placer_mem_free(doc);
        }
        free(buf);
        free(orig);
    }
}

int main(void)
{
    test_twemproxy_pools();
    test_twemproxy_refusals();
    test_redis_cluster();
    test_redis_refusals();
    test_mutations();
    return check_done("test_compat_import");
}
