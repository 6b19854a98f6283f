/*
 * balancer.h -- the balanced token allocator, incremental: a
 * ring that nodes join one at a time, each join choosing the new node's
 * tokens by the rule below, in O(count * (K + log N) * log n) for count
 * tokens on a ring of n tokens and N nodes (K = BALANCE_BAND
 * candidates), so a ring of N nodes is built in O(N log N) joins' work
 * instead of the O(N^2) of rescanning the ring for every node.
 *
 * The rule (what tests/reference_balance.c recomputes from scratch):
 *   - the participants are the nodes owning tokens, and the node joining;
 *     W is their total weight, summed in the order they came: the ring's
 *     owners in index order, then each joining node;
 *   - a node's share a_o is the exact number of hashes it owns (a token
 *     owns (previous token, token]); its key is a_o / w_o (double); its
 *     widest range is the longest it owns, the one ending first among
 *     equal ones; a node is a candidate when it is a participant other
 *     than the joining node x and its widest range is >= 2 hashes;
 *   - x's share to take is q = max(1, floor(2^64 * (w_x / W) / count));
 *     each of its count tokens takes d = min(q, len - max(1, len / 16))
 *     from the bottom of a candidate's widest range (p, s]: the token
 *     p + d, so x owns (p, p + d] and the candidate keeps the rest;
 *   - the band: the candidates ordered by key (descending, then index),
 *     at most BALANCE_BAND of them: the first, and those after it with
 *     key >= the first's minus BALANCE_SLACK * 2^64 / W (ratios share /
 *     weight share within BALANCE_SLACK of the best);
 *   - among the band, the one whose split evens out x's zone ring most:
 *     in the ring of x's zone's tokens alone, x's new token takes g =
 *     p + d - (the zone's last token <= p, wrapping) from f, the owner
 *     of the zone's first token >= s (wrapping); the score is
 *     G * ((2 A + G) / w_x - (2 F - G) / w_f) with G, A, F = g, x's and
 *     f's zone-ring shares over 2^64 (the change of sum (a - t)^2 / t
 *     over the zone ring, up to a positive factor); 0 when the zone has
 *     no token yet or f is x; the lowest score wins, then band order.
 * An empty ring gets count evenly spaced tokens from base. Deterministic:
 * exact integers for tokens and shares, the same double operations in the
 * same order on every machine.
 */
#ifndef PLC_ENGINE_BALANCER_H
#define PLC_ENGINE_BALANCER_H

#include <stdint.h>

#include "token_balance.h"

#ifndef BALANCE_BAND
#define BALANCE_BAND 32u
#endif
/* 1.25% keeps the whole ring within 1.05 of the mean and brings the zone
 * rings from about 1.65 (no zone term) to about 1.3 of theirs, for 16
 * tokens per node. */
#ifndef BALANCE_SLACK
#define BALANCE_SLACK 0.0125
#endif

typedef struct plc_balancer plc_balancer;

/*
 * A balancer over ring (sorted tokens, owners below nodes.n; nodes and
 * their arrays must outlive it); room[o] is the most tokens node o will
 * hold: its tokens in ring, or those it will join with. Returns 0,
 * PLACER_EINVAL (an argument NULL, an owner out of range, tokens not
 * ascending, a weight not positive and finite, room below a node's tokens)
 * or PLACER_ENOMEM. Cost O(ring.n + N log N).
 */
int plc_balancer_new(plc_token_ring ring, plc_token_nodes nodes, const uint32_t *room,
                     plc_balancer **out);

/*
 * Node x (owning no token, room[x] >= count) joins with count tokens,
 * written to out ascending. Returns 0, PLACER_EINVAL (count 0, x out of
 * range or already placed, out NULL, count above room[x]), PLACER_ETOOMANY
 * (no range left wide enough to split) or PLACER_ENOMEM; after an error
 * the balancer is only good for plc_balancer_free.
 */
int plc_balancer_join(plc_balancer *B, uint32_t x, uint32_t count, uint64_t base, uint64_t *out);

/* The elementary steps done so far (candidates scored, heap and search
 * steps, entries moved): what tests bound instead of timing. */
uint64_t plc_balancer_work(const plc_balancer *B);

void plc_balancer_free(plc_balancer *B);

#endif
