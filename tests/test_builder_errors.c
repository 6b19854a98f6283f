/*
 * test_builder_errors.c -- bad input never crashes: every misuse returns
 * its own negative PLACER_E* code, placer_strerror names it, and a failed
 * call leaves the builder unchanged.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "placer.h"

static void distinct_named_codes(void)
{
    const int codes[] = {PLACER_ENULL,    PLACER_ENOMEM,   PLACER_EIDEMPTY, PLACER_EIDDUP,
                         PLACER_EIDLONG,  PLACER_EWEIGHT,  PLACER_ENONODES, PLACER_ETOOMANY,
                         PLACER_ERANGE,   PLACER_EINVAL,   PLACER_ENOTSUP,  PLACER_ESTALE,
                         PLACER_ENOTMINE, PLACER_ENOLIVE,  PLACER_EFORMAT,  PLACER_EVERSION,
                         PLACER_ETRUNC,   PLACER_ECHECKSUM, PLACER_ECORRUPT, PLACER_ECONFLICT,
                         PLACER_EUNAVAIL, PLACER_ECOMPACTED, PLACER_EMISSING, PLACER_EAUTH};
    size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        CHECK(codes[i] < 0);
        CHECK(strcmp(placer_strerror(codes[i]), "unknown error") != 0);
        for (size_t j = 0; j < i; j++) {
            CHECK(codes[i] != codes[j]);
            CHECK(strcmp(placer_strerror(codes[i]), placer_strerror(codes[j])) != 0);
        }
    }
    CHECK(!strcmp(placer_strerror(-9999), "unknown error"));
    CHECK(!strcmp(placer_strerror(12345), "unknown error"));
}

static void null_pointers(void)
{
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_set_seed(NULL, 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_set_vnodes(NULL, 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_add_node(NULL, "a", "z", 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_add_token(NULL, 0, 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_build(NULL, 0, &s), PLACER_ENULL);
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_add_node(b, NULL, "z", 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_add_node(b, "a", NULL, 1), 0); /* NULL zone is "no zone" */
    CHECK_EQ(placer_builder_build(b, 0, NULL), PLACER_ENULL);
    CHECK_EQ(placer_lookup(NULL, "k", 1), PLACER_ENULL);
    CHECK_EQ(placer_lookup_hash(NULL, 1), PLACER_ENULL);
    CHECK_EQ(placer_builder_build(b, 0, &s), 0);
    CHECK_EQ(placer_lookup(s, NULL, 1), PLACER_ENULL);
    CHECK_EQ(placer_lookup(s, NULL, 0), 0); /* empty key is a key */
    uint64_t t;
    uint32_t o;
    CHECK_EQ(placer_token_at(s, 0, NULL, &o), PLACER_ENULL);
    CHECK_EQ(placer_token_at(NULL, 0, &t, &o), PLACER_ENULL);
    CHECK(placer_node_id(s, 1) == NULL);
    CHECK(placer_node_zone(s, 5) == NULL);
    CHECK(!strcmp(placer_node_zone(s, 0), ""));
    CHECK(placer_node_weight(s, 7) == 0.0);
    CHECK_EQ(placer_node_tokens(s, 7), 0);
    CHECK(placer_node_id(NULL, 0) == NULL);
    CHECK_EQ(placer_node_count(NULL), 0);
    CHECK_EQ(placer_token_count(NULL), 0);
    CHECK_EQ(placer_snapshot_epoch(NULL), 0);
    CHECK_EQ(placer_snapshot_seed(NULL), 0);
    CHECK_EQ(placer_snapshot_hash(NULL, "k", 1), 0);
    /* the position with its error apart from it */
    uint64_t pos = 7;
    CHECK_EQ(placer_snapshot_key_position(NULL, "k", 1, &pos), PLACER_ENULL);
    CHECK_EQ(placer_snapshot_key_position(s, NULL, 1, &pos), PLACER_ENULL);
    CHECK_EQ(placer_snapshot_key_position(s, "k", 1, NULL), PLACER_ENULL);
    CHECK_EQ(pos, 7);
    CHECK_EQ(placer_snapshot_key_position(s, "k", 1, &pos), 0);
    CHECK_EQ(pos, placer_snapshot_hash(s, "k", 1));
    CHECK_EQ(placer_snapshot_key_position(s, NULL, 0, &pos), 0);
    CHECK_EQ(pos, placer_snapshot_hash(s, NULL, 0));
    placer_snapshot_free(s);
    placer_snapshot_free(NULL);
    placer_builder_free(b);
    placer_builder_free(NULL);
}

static void bad_nodes_leave_builder_unchanged(void)
{
    placer_builder *b = placer_builder_new();
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ENONODES);
    CHECK(s == NULL);
    CHECK_EQ(placer_builder_add_node(b, "", "z", 1), PLACER_EIDEMPTY);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", 0), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", -1), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", NAN), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", INFINITY), PLACER_EWEIGHT);
    /* past the range: a subnormal weight once made rendezvous's 1/w infinite */
    CHECK_EQ(placer_builder_add_node(b, "a", "z", 1.35e-312), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", PLACER_MIN_WEIGHT / 2), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", PLACER_MAX_WEIGHT * 2), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", 1e300), PLACER_EWEIGHT);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", -INFINITY), PLACER_EWEIGHT);
    char longid[PLACER_MAX_ID_LEN + 2];
    memset(longid, 'x', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    CHECK_EQ(placer_builder_add_node(b, longid, "z", 1), PLACER_EIDLONG);
    CHECK_EQ(placer_builder_add_node(b, "a", longid, 1), PLACER_EIDLONG);
    longid[PLACER_MAX_ID_LEN] = '\0'; /* exactly the cap is fine */
    CHECK_EQ(placer_builder_add_node(b, longid, "z", 1), 0);
    CHECK_EQ(placer_builder_add_node(b, "a", "z", 1), 1);
    CHECK_EQ(placer_builder_add_node(b, "a", "y", 2), PLACER_EIDDUP);
    CHECK_EQ(placer_builder_add_node(b, longid, "z", 1), PLACER_EIDDUP);
    CHECK_EQ(placer_builder_add_token(b, 2, 5), PLACER_ERANGE);
    CHECK_EQ(placer_builder_add_token(b, UINT32_MAX, 5), PLACER_ERANGE);
    CHECK_EQ(placer_builder_set_vnodes(b, 0), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_vnodes(b, PLACER_MAX_TOKENS + 1), PLACER_EINVAL);
    CHECK_EQ(placer_builder_add_node(b, "b", "z", 1), 2); /* indices continue in order */
    CHECK_EQ(placer_builder_build(b, 0, &s), 0);
    CHECK_EQ(placer_node_count(s), 3);
    CHECK(!strcmp(placer_node_id(s, 1), "a") && !strcmp(placer_node_zone(s, 1), "z"));
    CHECK(placer_node_weight(s, 1) == 1.0);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static void token_cap(void)
{
    placer_builder *b = placer_builder_new();
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_set_vnodes(b, PLACER_MAX_TOKENS), 0);
    CHECK_EQ(placer_builder_add_node(b, "big", NULL, 1.5), 0); /* 1.5 x cap */
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ETOOMANY);
    placer_builder_free(b);

    b = placer_builder_new();
    CHECK_EQ(placer_builder_set_vnodes(b, PLACER_MAX_TOKENS / 2 + 1), 0);
    CHECK_EQ(placer_builder_add_node(b, "x", NULL, 1), 0);
    CHECK_EQ(placer_builder_add_node(b, "y", NULL, 1), 1); /* together over the cap */
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ETOOMANY);
    CHECK(s == NULL);
    CHECK_EQ(placer_builder_add_node(b, "z", NULL, PLACER_MAX_WEIGHT), 2);
    CHECK_EQ(placer_builder_build(b, 0, &s), PLACER_ETOOMANY); /* weight x V overflows */
    placer_builder_free(b);
}

int main(void)
{
    distinct_named_codes();
    null_pointers();
    bad_nodes_leave_builder_unchanged();
    token_cap();
    return check_done("test_builder_errors");
}
