/*
 * test_alloc_fail.c -- every allocation-failure path (libuv's test-loop-oom
 * idea): the k-th allocation fails, for k = 0, 1, 2, ... until a whole
 * scenario runs without meeting the failure. Each failure must surface as
 * NULL or PLACER_ENOMEM, leave earlier state usable, and leak nothing
 * (LeakSanitizer checks that in the sanitizer build).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "check.h"
#include "placer_control.h"

/* Returns 1 when the whole scenario succeeded, 0 when it met a failure.
 * strategy: the one to build; transition: a node joins and one drains, so
 * the target placement is built too; previous: a snapshot to start from. */
static int scenario(int strategy, int transition, const placer_snapshot *previous)
{
    placer_builder *b = placer_builder_new();
    if (!b)
        return 0;
    placer_builder_set_strategy(b, strategy);
    placer_builder_set_previous(b, previous);
    int ok = 1;
    char id[16];
    for (int i = 0; i < 40 && ok; i++) {
        snprintf(id, sizeof id, "n%d", i);
        int r = placer_builder_add_node(b, id, i % 2 ? "even" : "odd", 1);
        if (r == PLACER_ENOMEM) {
            ok = 0;
            /* The builder is unchanged: the same id can be added later. */
            plc_alloc_fail_at(-1);
            CHECK_EQ(placer_builder_add_node(b, id, "z", 1), i);
        } else {
            CHECK_EQ(r, i);
        }
    }
    for (int i = 0; i < 40 && ok; i++) {
        int r = placer_builder_add_token(b, 3, (uint64_t)i * 1000);
        if (r == PLACER_ENOMEM)
            ok = 0;
        else
            CHECK_EQ(r, 0);
    }
    if (transition && ok) {
        placer_builder_set_state(b, 5, PLACER_NODE_JOINING);
        placer_builder_set_state(b, 7, PLACER_NODE_DRAINING);
    }
    placer_snapshot *s = NULL;
    if (ok) {
        int r = placer_builder_build(b, 1, &s);
        if (r == PLACER_ENOMEM) {
            CHECK(s == NULL);
            ok = 0;
        } else {
            CHECK_EQ(r, 0);
            CHECK_EQ(placer_node_count(s), 40);
        }
    }
    plc_alloc_fail_at(-1);
    if (!ok) {
        /* After a failure, the same builder still builds. */
        placer_snapshot *again = NULL;
        CHECK_EQ(placer_builder_build(b, 2, &again), 0);
        placer_snapshot_free(again);
    }
    placer_snapshot_free(s);
    placer_builder_free(b);
    return ok;
}

/* A snapshot of the strategy to use as `previous` (no failures). */
static placer_snapshot *plain(int strategy)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, strategy);
    for (int i = 0; i < 30; i++) {
        char id[16];
        snprintf(id, sizeof id, "n%d", i * 2);
        placer_builder_add_node(b, id, "z", 1);
    }
    placer_snapshot *s = NULL;
    placer_builder_build(b, 1, &s);
    placer_builder_free(b);
    return s;
}

/* Fail each allocation of the import of a small Couchbase map in turn. */
static long import_failures(void)
{
    const char *doc = "{\"rev\": 3, \"vBucketServerMap\": {\"numReplicas\": 1, "
                      "\"serverList\": [\"a:1\", \"b:1\"], \"vBucketMap\": [[0,1],[1,0]], "
                      "\"vBucketMapForward\": [[1,0],[1,0]]}}";
    long k = 0;
    for (; k < 10000; k++) {
        plc_alloc_fail_at(k);
        placer_snapshot *s = NULL;
        int r = placer_couchbase_import(doc, strlen(doc), &s);
        plc_alloc_fail_at(-1);
        if (r == 0) {
            CHECK_EQ(placer_partition_count(s), 2);
            placer_snapshot_free(s);
            break;
        }
        CHECK_EQ(r, PLACER_ENOMEM);
        CHECK(s == NULL);
    }
    return k;
}

/* Fail each allocation of decoding s's bytes in turn (and of parsing a
 * membership file: only placer's own allocations are injected). */
static long decode_failures(const placer_snapshot *s)
{
    void *buf;
    size_t len;
    CHECK_EQ(placer_snapshot_encode(s, &buf, &len), 0);
    long k = 0;
    for (; k < 10000; k++) {
        plc_alloc_fail_at(k);
        placer_snapshot *d = NULL;
        int r = placer_snapshot_decode(buf, len, &d);
        plc_alloc_fail_at(-1);
        if (r == 0) {
            CHECK_EQ(placer_lookup(d, "k", 1), placer_lookup(s, "k", 1));
            placer_snapshot_free(d);
            break;
        }
        CHECK_EQ(r, PLACER_ENOMEM);
        CHECK(d == NULL);
    }
    placer_buffer_free(buf);
    const char *doc = "{\"strategy\": \"ring\", \"nodes\": [{\"id\": \"a\", \"address\": \"h:1\", "
                      "\"tokens\": [1, 2]}, {\"id\": \"b\", \"state\": \"down\"}]}";
    long j = 0;
    for (; j < 1000; j++) {
        plc_alloc_fail_at(j);
        placer_builder *b = NULL;
        uint64_t epoch;
        int r = placer_membership_parse(doc, strlen(doc), "m.json", &b, &epoch, NULL, 0);
        plc_alloc_fail_at(-1);
        placer_builder_free(b);
        if (r >= 0)
            break;
        CHECK_EQ(r, PLACER_ENOMEM);
    }
    CHECK(j < 1000);
    return k;
}

/* The control plane's JSON through placer's seam: the test (the library
 * never does) hands jansson placer_mem_alloc, so the injected failures
 * reach JSON parsing too. Jansson reports some of its allocation failures
 * as syntax errors ("invalid token"), so a failed parse is PLACER_ENOMEM
 * or PLACER_EFORMAT; what must hold is no crash, no leak (LeakSanitizer),
 * and success once memory is there. Returns how many allocations the
 * parse made, jansson's included. */
static long json_failures(const char *doc, int import)
{
    json_set_alloc_funcs(placer_mem_alloc, placer_mem_free);
    long j = 0;
    for (; j < 10000; j++) {
        plc_alloc_fail_at(j);
        placer_builder *b = NULL;
        placer_snapshot *s = NULL;
        uint64_t epoch;
        int r = import ? placer_couchbase_import(doc, strlen(doc), &s)
                       : placer_membership_parse(doc, strlen(doc), "m.json", &b, &epoch, NULL, 0);
        plc_alloc_fail_at(-1);
        placer_builder_free(b);
        placer_snapshot_free(s);
        if (r >= 0)
            break;
        CHECK(r == PLACER_ENOMEM || r == PLACER_EFORMAT);
        CHECK(b == NULL && s == NULL);
    }
    json_set_alloc_funcs(malloc, free);
    return j;
}

/* How many allocations a parse makes with jansson on plain malloc: only
 * placer's own are counted. */
static long own_allocations(const char *doc, int import)
{
    long j = 0;
    for (; j < 10000; j++) {
        plc_alloc_fail_at(j);
        placer_builder *b = NULL;
        placer_snapshot *s = NULL;
        uint64_t epoch;
        int r = import ? placer_couchbase_import(doc, strlen(doc), &s)
                       : placer_membership_parse(doc, strlen(doc), "m.json", &b, &epoch, NULL, 0);
        plc_alloc_fail_at(-1);
        placer_builder_free(b);
        placer_snapshot_free(s);
        if (r >= 0)
            break;
    }
    return j;
}

int main(void)
{
    static const int strategies[] = {PLACER_RING, PLACER_PARTITIONS, PLACER_JUMP,
                                     PLACER_RENDEZVOUS, PLACER_MAGLEV};
    for (size_t si = 0; si < sizeof strategies / sizeof strategies[0]; si++) {
        placer_snapshot *prev = plain(strategies[si]);
        for (int transition = 0; transition < 2; transition++) {
            long k = 0;
            for (; k < 100000; k++) {
                plc_alloc_fail_at(k);
                if (scenario(strategies[si], transition, transition ? prev : NULL))
                    break;
            }
            plc_alloc_fail_at(-1);
            printf("allocator %s, %s%s: scenario needed %ld allocations; each one failed in turn\n",
                   plc_allocator_name(), placer_strategy_name(strategies[si]),
                   transition ? " in transition, from a previous snapshot" : "", k);
            CHECK(k > 10 && k < 100000);
        }
        long d = decode_failures(prev);
        printf("decode, %s: %ld allocations, each one failed in turn\n",
               placer_strategy_name(strategies[si]), d);
        CHECK(d > 3 && d < 10000);
        placer_snapshot_free(prev);
    }
    long k = import_failures();
    printf("couchbase import: %ld allocations, each one failed in turn\n", k);
    CHECK(k > 3 && k < 10000);
    static const char *const docs[2] = {
        "{\"strategy\": \"ring\", \"nodes\": [{\"id\": \"a\", \"address\": \"h:1\", "
        "\"tokens\": [1, 2]}, {\"id\": \"b\", \"state\": \"down\"}]}",
        "{\"rev\": 3, \"vBucketServerMap\": {\"numReplicas\": 1, "
        "\"serverList\": [\"a:1\", \"b:1\"], \"vBucketMap\": [[0,1],[1,0]], "
        "\"vBucketMapForward\": [[1,0],[1,0]]}}",
    };
    for (int import = 0; import < 2; import++) {
        long own = own_allocations(docs[import], import);
        long all = json_failures(docs[import], import);
        printf("%s with jansson on placer's seam: %ld allocations (%ld of them placer's own), "
               "each one failed in turn\n",
               import ? "couchbase import" : "membership parse", all, own);
        /* the seam reaches JSON parsing: jansson's allocations fail too */
        CHECK(all > own + 5 && all < 10000);
    }
    return check_done("test_alloc_fail");
}
