/*
 * fuzz_diff.c -- differential: for two fuzzer-built rings, a hash changes
 * owner (by node id) if and only if placer_diff lists a range holding it;
 * the shares add up to the moved fraction.
 *
 * Input: for each of the two rings a node count, then per node an id byte
 * (a small pool, so nodes match, join and leave between the rings), a
 * weight byte and explicit tokens (small values, so ties and shared
 * boundaries are common); the second ring's nodes also get fuzzer-chosen
 * states, so it may be in transition: then a hash's owner and next owner
 * differ if and only if placer_diff_transition lists a range holding it.
 * Then hashes.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "placer.h"
#include "reference.h"

#define MAX_NODES 8

static placer_snapshot *ring_from(fuzz_producer *p, int with_states)
{
    placer_builder *b = placer_builder_new();
    FUZZ_ASSERT(b);
    placer_builder_set_vnodes(b, 1 + fuzz_u8(p) % 4);
    int n = 1 + fuzz_u8(p) % MAX_NODES, added = 0;
    char id[8];
    for (int i = 0; i < n; i++) {
        snprintf(id, sizeof id, "n%u", (unsigned)(fuzz_u8(p) % 10));
        int idx = placer_builder_add_node(b, id, "", 0.25 * (1 + fuzz_u8(p) % 8));
        if (idx < 0)
            continue; /* an id already taken */
        added++;
        if (with_states)
            FUZZ_ASSERT(placer_builder_set_state(b, (uint32_t)idx, fuzz_u8(p) % 4) == 0);
        int explicit_tokens = fuzz_u8(p) % 4;
        for (int t = 0; t < explicit_tokens; t++)
            placer_builder_add_token(b, (uint32_t)idx, (uint64_t)(fuzz_u8(p) % 24) << 59);
    }
    placer_snapshot *s = NULL;
    int rc = placer_builder_build(b, 1, &s);
    /* States may leave nobody owning anything now or after: that is the
     * one error a valid membership can get. */
    FUZZ_ASSERT(added > 0 && (rc == 0 || (with_states && rc == PLACER_ENONODES)));
    placer_builder_free(b);
    return s;
}

static void check_hash(const placer_snapshot *a, const placer_snapshot *b, const placer_move *m,
                       size_t n, uint64_t h)
{
    const char *ida = placer_node_id(a, (uint32_t)placer_lookup_hash(a, h));
    const char *idb = placer_node_id(b, (uint32_t)placer_lookup_hash(b, h));
    FUZZ_ASSERT((strcmp(ida, idb) != 0) == ref_in_moves(m, n, h));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    placer_snapshot *a = ring_from(&p, 0), *b = ring_from(&p, 1);
    if (!b) {
        placer_snapshot_free(a);
        return 0;
    }
    placer_move *m = NULL;
    size_t n = 0;
    FUZZ_ASSERT(placer_diff(a, b, &m, &n) == 0);
    for (const placer_snapshot *s = a; s; s = s == a ? b : NULL)
        for (uint32_t i = 0; i < placer_token_count(s); i++) {
            uint64_t t;
            uint32_t o;
            placer_token_at(s, i, &t, &o);
            check_hash(a, b, m, n, t);
            check_hash(a, b, m, n, t - 1);
            check_hash(a, b, m, n, t + 1);
        }
    check_hash(a, b, m, n, 0);
    check_hash(a, b, m, n, UINT64_MAX);
    for (int q = 0; p.size && q < 64; q++) /* fuzzer-chosen hashes, at most 64 */
        check_hash(a, b, m, n, fuzz_u64(&p));
    double out_of[MAX_NODES], into[MAX_NODES], f = placer_moves_coverage(m, n), sum = 0;
    FUZZ_ASSERT(placer_moves_shares(a, b, m, n, out_of, into) == 0);
    for (uint32_t i = 0; i < placer_node_count(a); i++)
        sum += out_of[i];
    FUZZ_ASSERT(fabs(sum - f) < 1e-9 && f <= 1.0 + 1e-12);
    placer_moves_free(m);

    /* b's own transition: owner and next owner differ exactly in the moves. */
    FUZZ_ASSERT(placer_diff_transition(b, &m, &n) == 0);
    FUZZ_ASSERT(placer_snapshot_in_transition(b) || n == 0);
    for (uint32_t i = 0; i < placer_token_count(b); i++) {
        uint64_t t;
        uint32_t o;
        placer_token_at(b, i, &t, &o);
        for (int d = -1; d <= 1; d++) {
            uint64_t h = t + (uint64_t)(int64_t)d;
            uint32_t owner = (uint32_t)placer_lookup_hash(b, h); /* joining nodes own nothing */
            FUZZ_ASSERT(owner < placer_node_count(b) &&
                        placer_node_state(b, owner) != PLACER_NODE_JOINING);
        }
    }
    for (int q = 0; q < 64; q++) {
        char key[16];
        int len = snprintf(key, sizeof key, "k%d", q);
        uint32_t owner, next;
        FUZZ_ASSERT(placer_lookup_handoff(b, key, (size_t)len, &owner, &next) == 0);
        FUZZ_ASSERT((owner != next) == ref_in_moves(m, n, placer_snapshot_hash(b, key, (size_t)len)));
        FUZZ_ASSERT(placer_node_state(b, owner) != PLACER_NODE_JOINING);
        FUZZ_ASSERT(placer_node_state(b, next) != PLACER_NODE_DRAINING);
    }
    placer_moves_free(m);
    placer_snapshot_free(a);
    placer_snapshot_free(b);
    return 0;
}
