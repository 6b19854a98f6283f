/*
 * test_states.c -- node states: a joining node takes no primary traffic and
 * the target placement is exactly the ring with it; a draining node keeps
 * its ranges now and has none in the target; a down node keeps its ranges
 * and reads go to the next live replica; the handoff returns both owners
 * exactly for the keys the transition diff lists; errors.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "placer.h"
#include "reference.h"

static placer_builder *ring_builder(int nodes)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, 64);
    char id[16], zone[16];
    for (int i = 0; i < nodes; i++) {
        snprintf(id, sizeof id, "node-%03d", i);
        snprintf(zone, sizeof zone, "zone-%d", i % 3);
        placer_builder_add_node(b, id, zone, 1.0);
    }
    return b;
}

static placer_snapshot *build(placer_builder *b)
{
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_build(b, 1, &s), 0);
    return s;
}

static void no_transition(void)
{
    placer_builder *b = ring_builder(10);
    placer_snapshot *s = build(b);
    CHECK_EQ(placer_snapshot_in_transition(s), 0);
    uint32_t o, next;
    CHECK_EQ(placer_lookup_handoff(s, "k", 1, &o, &next), 0);
    CHECK(o == next && o == (uint32_t)placer_lookup(s, "k", 1));
    placer_move *m;
    size_t n;
    CHECK_EQ(placer_diff_transition(s, &m, &n), 0);
    CHECK(n == 0 && m == NULL);
    CHECK_EQ(placer_node_state(s, 3), PLACER_NODE_ACTIVE);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static void join(void)
{
    placer_builder *b120 = ring_builder(120), *b121 = ring_builder(121), *bj = ring_builder(121);
    CHECK_EQ(placer_builder_set_state(bj, 120, PLACER_NODE_JOINING), 0);
    placer_snapshot *s120 = build(b120), *s121 = build(b121), *sj = build(bj);
    CHECK_EQ(placer_snapshot_in_transition(sj), 1);
    CHECK_EQ(placer_node_state(sj, 120), PLACER_NODE_JOINING);
    CHECK_EQ(placer_node_tokens(sj, 120), 0); /* owns nothing yet */
    CHECK_EQ(placer_token_count(sj), placer_token_count(s120));
    placer_move *m;
    size_t n;
    CHECK_EQ(placer_diff_transition(sj, &m, &n), 0);
    long bad = 0, moving = 0;
    for (int q = 0; q < 50000; q++) {
        char key[24];
        int len = snprintf(key, sizeof key, "user:%d", q);
        uint32_t o, next;
        CHECK_ALL(placer_lookup_handoff(sj, key, (size_t)len, &o, &next) == 0, "handoff");
        bad += o != (uint32_t)placer_lookup(s120, key, (size_t)len); /* now: the 120-node ring */
        bad += next != (uint32_t)placer_lookup(s121, key, (size_t)len); /* after: with node 121 */
        bad += (o != next) != ref_in_moves(m, n, placer_snapshot_hash(sj, key, (size_t)len));
        bad += (o != next) && next != 120;
        bad += o == 120 || (uint32_t)placer_lookup(sj, key, (size_t)len) == 120;
        moving += o != next;
    }
    double f = placer_moves_coverage(m, n);
    printf("join: %.4f of the space moves to the joining node (1/121 = %.4f); %ld of 50000 keys "
           "in flight\n",
           f, 1.0 / 121, moving);
    CHECK_ALL(bad == 0, "joining: current = old ring, target = new ring, moves = handoff keys");
    CHECK(fabs(f - 1.0 / 121) < 0.3 / 121);
    placer_moves_free(m);
    placer_snapshot_free(s120);
    placer_snapshot_free(s121);
    placer_snapshot_free(sj);
    placer_builder_free(b120);
    placer_builder_free(b121);
    placer_builder_free(bj);
}

static void drain(void)
{
    placer_builder *b = ring_builder(30);
    CHECK_EQ(placer_builder_set_state(b, 7, PLACER_NODE_DRAINING), 0);
    placer_snapshot *s = build(b);
    placer_move *m;
    size_t n;
    CHECK_EQ(placer_diff_transition(s, &m, &n), 0);
    int only_from_7 = n > 0, owns_now = 0;
    for (size_t i = 0; i < n; i++)
        only_from_7 &= m[i].from == 7 && m[i].to != 7;
    for (int q = 0; q < 20000; q++) {
        char key[24];
        int len = snprintf(key, sizeof key, "d:%d", q);
        uint32_t o, next;
        placer_lookup_handoff(s, key, (size_t)len, &o, &next);
        owns_now |= o == 7;
        CHECK_ALL(next != 7, "a draining node owns nothing in the target");
    }
    CHECK(only_from_7);
    CHECK(owns_now); /* still serves its ranges until the transition ends */
    placer_moves_free(m);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static void down(void)
{
    placer_builder *b = ring_builder(12);
    CHECK_EQ(placer_builder_set_state(b, 3, PLACER_NODE_DOWN), 0);
    placer_snapshot *s = build(b);
    CHECK_EQ(placer_snapshot_in_transition(s), 0); /* a failure does not rewrite the ring */
    CHECK_EQ(placer_node_state(s, 3), PLACER_NODE_DOWN);
    long owned = 0, bad = 0;
    for (int q = 0; q < 20000; q++) {
        char key[24];
        int len = snprintf(key, sizeof key, "u:%d", q);
        uint32_t rep[4];
        int nrep = placer_replicas(s, key, (size_t)len, rep, 4);
        int live = placer_lookup_live(s, key, (size_t)len);
        int owner = placer_lookup(s, key, (size_t)len);
        if (owner == 3) {
            owned++;
            bad += nrep < 2 || live != (int)rep[1] || rep[1] == 3;
        } else {
            bad += live != owner;
        }
    }
    CHECK(owned > 0);
    CHECK_ALL(bad == 0, "live = owner, or the next replica when the owner is down");
    placer_snapshot_free(s);
    placer_builder_free(b);

    b = ring_builder(2);
    placer_builder_set_state(b, 0, PLACER_NODE_DOWN);
    placer_builder_set_state(b, 1, PLACER_NODE_DOWN);
    s = build(b);
    CHECK_EQ(placer_lookup_live(s, "k", 1), PLACER_ENOLIVE);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

static void errors_and_zones(void)
{
    placer_builder *b = ring_builder(3);
    placer_snapshot *s = NULL;
    CHECK_EQ(placer_builder_set_state(b, 3, PLACER_NODE_DOWN), PLACER_ERANGE);
    CHECK_EQ(placer_builder_set_state(b, 0, 9), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_state(b, 0, -1), PLACER_EINVAL);
    CHECK_EQ(placer_builder_set_state(NULL, 0, 0), PLACER_ENULL);
    for (uint32_t i = 0; i < 3; i++)
        placer_builder_set_state(b, i, PLACER_NODE_JOINING);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_ENONODES); /* nobody owns anything now */
    for (uint32_t i = 0; i < 3; i++)
        placer_builder_set_state(b, i, PLACER_NODE_DRAINING);
    CHECK_EQ(placer_builder_build(b, 1, &s), PLACER_ENONODES); /* nobody after */
    CHECK(s == NULL);
    /* zone-2's only node is joining: two zones can be used now. */
    placer_builder_set_state(b, 0, PLACER_NODE_ACTIVE);
    placer_builder_set_state(b, 1, PLACER_NODE_ACTIVE);
    placer_builder_set_state(b, 2, PLACER_NODE_JOINING);
    s = build(b);
    uint32_t out[3];
    placer_replica_report r = {.size = sizeof r};
    CHECK_EQ(placer_replicas_ex(s, "k", 1, out, 3, &r), 2);
    CHECK(r.zones == 2 && r.zones_possible == 2 && r.under_replicated); /* 2 nodes < 3 wanted */
    CHECK_EQ(placer_node_state(s, 9), PLACER_ERANGE);
    CHECK_EQ(placer_node_state(NULL, 0), PLACER_ENULL);
    uint32_t o, next;
    CHECK_EQ(placer_lookup_handoff(s, NULL, 1, &o, &next), PLACER_ENULL);
    CHECK_EQ(placer_lookup_handoff(s, "k", 1, NULL, &next), PLACER_ENULL);
    CHECK_EQ(placer_lookup_live(NULL, "k", 1), PLACER_ENULL);
    placer_move *m;
    size_t n;
    CHECK_EQ(placer_diff_transition(NULL, &m, &n), PLACER_ENULL);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

int main(void)
{
    no_transition();
    join();
    drain();
    down();
    errors_and_zones();
    return check_done("test_states");
}
