/*
 * test_registry.c -- the public face of the strategy registry:
 * placer_strategy_next lists every id once, in order; placer_strategy_from_name
 * and placer_strategy_name agree; placer_strategy_describe honours its size
 * prefix; and what it reports is what the library does (a trait or option
 * claimed is checked against the calls it stands for), so the membership
 * parser, the command and Python, which ask it instead of comparing ids,
 * are told the truth. The six strategies of today are also pinned.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "placer.h"

static placer_snapshot *build(int id, int balanced, uint32_t count)
{
    placer_builder *b = placer_builder_new();
    placer_snapshot *s = NULL;
    if (placer_builder_set_strategy(b, id) == 0) {
        if (balanced)
            placer_builder_set_token_allocation(b, PLACER_TOKENS_BALANCED);
        if (count)
            placer_builder_set_partitions(b, count);
        placer_builder_add_node(b, "a", "z1", 1);
        placer_builder_add_node(b, "b", "z2", 1);
        placer_builder_add_node(b, "c", "z3", 2);
        if (placer_builder_build(b, 1, &s) != 0)
            s = NULL;
    }
    placer_builder_free(b);
    return s;
}

/* What the library does matches what describe says of id. */
static void check_behaviour(const placer_strategy_traits *t)
{
    int id = t->id;
    int implied = (t->traits & PLACER_TRAIT_IMPLIED) != 0;
    placer_builder *b = placer_builder_new();
    CHECK_EQ(placer_builder_set_strategy(b, id) == 0, !implied);
    placer_builder_free(b);
    if (implied)
        return; /* chosen by placer_builder_set_compat: test_compat_api */
    placer_snapshot *s = build(id, 0, 0);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_EQ(placer_snapshot_strategy(s), id);
    uint32_t loads[3] = {0, 0, 0}, owner;
    int rc = placer_lookup_bounded(s, "k", 1, loads, 0, 1.25, &owner);
    CHECK_EQ(rc == PLACER_ENOTSUP, !(t->traits & PLACER_TRAIT_BOUNDED));
    placer_move *moves = NULL;
    size_t n = 0;
    rc = placer_diff(s, s, &moves, &n);
    placer_moves_free(moves);
    CHECK_EQ(rc == PLACER_ENOTSUP, !(t->traits & PLACER_TRAIT_RANGES));
    CHECK_EQ(placer_partition(s, "k", 1) >= 0, (t->traits & PLACER_TRAIT_PARTITIONS) != 0);
    CHECK_EQ(strcmp(placer_snapshot_layout_name(s), "candidates") == 0,
             (t->traits & PLACER_TRAIT_SCANS_NODES) != 0);
    placer_snapshot_free(s);
    /* a balanced token allocation builds where it is an option only */
    s = build(id, 1, 0);
    CHECK_EQ(s != NULL, (t->options & PLACER_OPTION_ALLOCATION) != 0);
    placer_snapshot_free(s);
    if (t->options & PLACER_OPTION_PARTITIONS) {
        const placer_strategy_count *c = &t->partitions;
        CHECK(c->min >= 1 && c->min <= c->def && c->def <= c->max && c->what);
        s = build(id, 0, c->min);
        CHECK(s != NULL);
        CHECK_EQ(placer_token_count(s), c->min);
        placer_snapshot_free(s);
        if (c->prime) { /* the smallest odd composite above min is refused */
            uint32_t odd = c->min < 9 ? 9 : c->min | 1;
            while (odd % 3 && odd % 5 && odd % 7)
                odd += 2;
            s = build(id, 0, odd);
            CHECK(s == NULL);
            placer_snapshot_free(s);
        }
    } else {
        CHECK_EQ(t->partitions.max, 0);
    }
}

int main(void)
{
    int n = 0, last = 0;
    for (int id = placer_strategy_next(0); id; id = placer_strategy_next(id), n++) {
        CHECK(id > last);
        last = id;
        placer_strategy_traits t = {.size = sizeof t};
        CHECK_EQ(placer_strategy_describe(id, &t), 0);
        CHECK_EQ(t.size, sizeof t);
        CHECK_EQ(t.id, id);
        CHECK(t.name && placer_strategy_name(id) && strcmp(t.name, placer_strategy_name(id)) == 0);
        CHECK_EQ(placer_strategy_from_name(t.name), id);
        CHECK(t.key_hashes >> PLACER_HASH_PLACER_V2 & 1 || t.traits & PLACER_TRAIT_IMPLIED);
        check_behaviour(&t);
    }
    CHECK(n >= 6);
    CHECK_EQ(placer_strategy_next(last), 0);
    CHECK_EQ(placer_strategy_next(-5), placer_strategy_next(0));

    /* the names and ids of today's strategies, pinned */
    static const struct {
        int id;
        const char *name;
        unsigned options, traits;
    } known[] = {
        {PLACER_RING, "ring",
         PLACER_OPTION_VNODES | PLACER_OPTION_TOKENS | PLACER_OPTION_ALLOCATION |
             PLACER_OPTION_REPLICAS | PLACER_OPTION_PREVIOUS,
         PLACER_TRAIT_RANGES | PLACER_TRAIT_WRAPS | PLACER_TRAIT_BOUNDED},
        {PLACER_PARTITIONS, "partitions",
         PLACER_OPTION_REPLICAS | PLACER_OPTION_PARTITIONS | PLACER_OPTION_PREVIOUS,
         PLACER_TRAIT_RANGES | PLACER_TRAIT_REPLICA_MAP | PLACER_TRAIT_PARTITIONS |
             PLACER_TRAIT_TARGET_ALONE},
        {PLACER_JUMP, "jump", PLACER_OPTION_TOKENS | PLACER_OPTION_PREVIOUS, PLACER_TRAIT_BUCKETS},
        {PLACER_RENDEZVOUS, "rendezvous", 0, PLACER_TRAIT_SCANS_NODES},
        {PLACER_MAGLEV, "maglev", PLACER_OPTION_PARTITIONS, PLACER_TRAIT_RANGES},
        {PLACER_EMULATED, "compat", 0,
         PLACER_TRAIT_RANGES | PLACER_TRAIT_WRAPS | PLACER_TRAIT_IMPLIED},
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        placer_strategy_traits t = {.size = sizeof t};
        CHECK_EQ(placer_strategy_describe(known[i].id, &t), 0);
        CHECK(strcmp(t.name, known[i].name) == 0);
        CHECK_EQ(t.options, known[i].options);
        CHECK_EQ(t.traits, known[i].traits);
    }
    placer_strategy_traits m = {.size = sizeof m};
    placer_strategy_describe(PLACER_MAGLEV, &m);
    CHECK_EQ(m.partitions.prime, 1);
    CHECK_EQ(m.partitions.def, PLACER_DEFAULT_MAGLEV_SIZE);
    CHECK_EQ(m.partitions.max, PLACER_MAX_MAGLEV_SIZE);

    /* the size prefix: too small refused, a newer caller's tail zeroed */
    placer_strategy_traits small = {.size = sizeof small - 1};
    CHECK_EQ(placer_strategy_describe(PLACER_RING, &small), PLACER_EINVAL);
    struct {
        placer_strategy_traits t;
        unsigned char newer[16];
    } big;
    memset(&big, 0xa5, sizeof big);
    big.t.size = sizeof big;
    CHECK_EQ(placer_strategy_describe(PLACER_RING, &big.t), 0);
    CHECK_EQ(big.t.size, sizeof big);
    int zero = 1;
    for (size_t i = 0; i < sizeof big.newer; i++)
        zero &= big.newer[i] == 0;
    CHECK(zero);
    CHECK_EQ(placer_strategy_describe(PLACER_RING, NULL), PLACER_ENULL);
    placer_strategy_traits t0 = {.size = sizeof t0};
    CHECK_EQ(placer_strategy_describe(0, &t0), PLACER_EINVAL);
    CHECK_EQ(placer_strategy_describe(999, &t0), PLACER_EINVAL);
    CHECK_EQ(placer_strategy_from_name("no-such"), PLACER_EINVAL);
    CHECK_EQ(placer_strategy_from_name(NULL), PLACER_ENULL);
    return check_done("test_registry");
}
