/*
 * test_haproxy_default.c -- haproxy's avalanche as haproxy 2.6 parses
 * hash-type: "hash-type consistent" with no function named is
 * sdbm with avalanche; map-based, and any function named without the word,
 * are without. Checked for the C API (opt NULL, PLACER_COMPAT_AS_PROGRAM)
 * and membership files (no "avalanche"), each against the explicit form,
 * key by key; and the explicit forms are checked to differ, so the
 * comparison can fail. The real haproxy proves the explicit forms
 * (tests/compat_programs.py runs the bare ones through haproxy too).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "placer_control.h"

#define KEYS 500

static placer_snapshot *build_opt(const placer_compat_options *o)
{
    placer_builder *b = placer_builder_new();
    for (int i = 0; i < 5; i++) {
        char id[8];
        snprintf(id, sizeof id, "s%d", i);
        placer_builder_add_node(b, id, NULL, 1 + i % 2);
    }
    placer_snapshot *s = NULL;
    int err = placer_builder_set_compat(b, PLACER_COMPAT_HAPROXY, o);
    CHECK_EQ(err, 0);
    if (!err)
        CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    placer_builder_free(b);
    return s;
}

static placer_snapshot *build_doc(const char *top)
{
    char doc[512], why[256];
    snprintf(doc, sizeof doc,
             "{\"compat\": \"haproxy\"%s, \"nodes\": [{\"id\": \"s0\"}, {\"id\": \"s1\", "
             "\"weight\": 2}, {\"id\": \"s2\"}, {\"id\": \"s3\", \"weight\": 2}, {\"id\": \"s4\"}]}",
             top);
    placer_builder *b = NULL;
    uint64_t epoch = 0;
    placer_snapshot *s = NULL;
    int err = placer_membership_parse(doc, strlen(doc), "m.json", &b, &epoch, why, sizeof why);
    CHECK(err >= 0);
    if (err < 0) {
        fprintf(stderr, "%s: %s\n", top, why);
        return NULL;
    }
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    placer_builder_free(b);
    return s;
}

/* Keys whose hashes differ between a and b: 0 when they agree on all. */
static int differing(const placer_snapshot *a, const placer_snapshot *b)
{
    int n = 0;
    if (!a || !b)
        return -1;
    for (int i = 0; i < KEYS; i++) {
        char key[32];
        int len = snprintf(key, sizeof key, "user:%d", i * 7919);
        n += placer_snapshot_hash(a, key, (size_t)len) != placer_snapshot_hash(b, key, (size_t)len) ||
             placer_lookup(a, key, (size_t)len) != placer_lookup(b, key, (size_t)len);
    }
    return n;
}

static void same(placer_snapshot *got, placer_snapshot *want, const char *what)
{
    int d = differing(got, want);
    if (d)
        fprintf(stderr, "%s: %d of %d keys differ\n", what, d, KEYS);
    CHECK_EQ(d, 0);
    placer_snapshot_free(got);
}

int main(void)
{
    placer_snapshot *con_av = build_opt(&(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "consistent", .key_hash = "sdbm", .avalanche = 1});
    placer_snapshot *con = build_opt(&(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "consistent", .key_hash = "sdbm", .avalanche = 0});
    placer_snapshot *map = build_opt(&(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "map-based", .key_hash = "sdbm", .avalanche = 0});
    placer_snapshot *map_av = build_opt(&(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "map-based", .key_hash = "sdbm", .avalanche = 1});
    /* the explicit forms differ, so agreeing with one of them says which */
    CHECK(differing(con_av, con) > KEYS / 2);
    CHECK(differing(map_av, map) > KEYS / 2);

    /* the C API */
    same(build_opt(NULL), con_av, "opt NULL");
    same(build_opt(&(placer_compat_options){.size = sizeof(placer_compat_options), .avalanche = PLACER_COMPAT_AS_PROGRAM}), con_av,
         "all defaults, as the program");
    same(build_opt(&(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "consistent", .avalanche = PLACER_COMPAT_AS_PROGRAM}),
         con_av, "hash-type consistent");
    same(build_opt(&(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "consistent", .key_hash = "sdbm", .avalanche = PLACER_COMPAT_AS_PROGRAM}),
         con, "hash-type consistent sdbm");
    same(build_opt(&(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "map-based", .avalanche = PLACER_COMPAT_AS_PROGRAM}),
         map, "hash-type map-based");
    same(build_opt(&(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "map-based", .key_hash = "sdbm", .avalanche = PLACER_COMPAT_AS_PROGRAM}),
         map, "hash-type map-based sdbm");
    /* an explicit 0 still wins */
    same(build_opt(&(placer_compat_options){.size = sizeof(placer_compat_options), .distribution = "consistent", .avalanche = 0}), con, "avalanche 0");

    /* values outside -1 .. 1 are refused; -1 is fine for the other programs */
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_HAPROXY,
                                       &(placer_compat_options){.size = sizeof(placer_compat_options), .avalanche = -2}),
             PLACER_EINVAL);
    CHECK(strstr(placer_builder_error(b), "PLACER_COMPAT_AS_PROGRAM") != NULL);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_NGINX,
                                       &(placer_compat_options){.size = sizeof(placer_compat_options), .avalanche = -1}),
             0);
    CHECK_EQ(placer_builder_set_compat(b, PLACER_COMPAT_NGINX,
                                       &(placer_compat_options){.size = sizeof(placer_compat_options), .avalanche = 1}),
             PLACER_EINVAL);
    placer_builder_free(b);

    /* membership files: no "avalanche" means as haproxy would */
    same(build_doc(""), con_av, "{compat: haproxy}");
    same(build_doc(", \"distribution\": \"consistent\""), con_av, "distribution consistent");
    same(build_doc(", \"key_hash\": \"sdbm\""), con, "key_hash sdbm");
    same(build_doc(", \"distribution\": \"map-based\""), map, "distribution map-based");
    same(build_doc(", \"avalanche\": false"), con, "avalanche false");
    same(build_doc(", \"key_hash\": \"sdbm\", \"avalanche\": true"), con_av, "sdbm, avalanche");
    same(build_doc(", \"distribution\": \"map-based\", \"avalanche\": true"), map_av,
         "map-based, avalanche");

    placer_snapshot_free(con_av);
    placer_snapshot_free(con);
    placer_snapshot_free(map);
    placer_snapshot_free(map_av);
    return check_done("haproxy_default");
}
