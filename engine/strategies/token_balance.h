/*
 * token_balance.h -- balanced token allocation: where a node
 * joining a ring should put its tokens so that every node's share of the
 * hash space stays close to its weight share, with few tokens per node.
 *
 * Pure functions on arrays: no builder, no snapshot. The ring is given as
 * sorted tokens with their owners' indices; nodes as weights and zone
 * indices. The builder (PLACER_TOKENS_BALANCED) and the simulator call
 * these; tests check them against an exact share computation.
 */
#ifndef PLC_ENGINE_TOKEN_BALANCE_H
#define PLC_ENGINE_TOKEN_BALANCE_H

#include <stddef.h>
#include <stdint.h>

/* A ring as the allocator sees it: n tokens ascending (equal tokens
 * allowed), owners[i] the node index of tokens[i]; the token at i owns the
 * hashes h with tokens[i-1] < h <= tokens[i] (wrapping before the first). */
typedef struct plc_token_ring {
    const uint64_t *tokens;
    const uint32_t *owners;
    uint32_t n;
} plc_token_ring;

/* The nodes: weight (> 0, finite) and zone index (any value; equal values
 * are one zone) of node i, for i < n. */
typedef struct plc_token_nodes {
    const double *weights;
    const uint32_t *zones;
    uint32_t n;
} plc_token_nodes;

/*
 * The `count` tokens for node `node` (an index into nodes, owning no token
 * in ring) joining ring: written to out ascending. Each token splits one
 * range of the ring, taking at most the new node's weight share over count
 * from its lower part: the widest range of the node furthest above its
 * weight share (the nodes that own tokens, and the new one), preferring
 * among near-equal choices the one that evens out the ring of the new
 * node's zone alone -- the load a node carries when every key has one
 * replica per zone, as placer's replica walk gives it. An empty ring gets
 * count evenly spaced tokens from `base`. Deterministic: the same arguments
 * give the same tokens on every machine.
 * Cost: O(ring.n log ring.n + count * (nodes.n + log ring.n)) time, O(ring.n
 * + nodes.n + count) memory.
 * Returns 0, PLACER_EINVAL (count 0, node or an owner out of range, node
 * already owning a token, tokens not ascending, a weight not positive and
 * finite, out NULL), PLACER_ETOOMANY (ring.n + count past PLACER_MAX_TOKENS,
 * or no range left wide enough to split) or PLACER_ENOMEM. out is
 * unspecified on error.
 */
int plc_tokens_balance(plc_token_ring ring, plc_token_nodes nodes, uint32_t node,
                       uint32_t count, uint64_t base, uint64_t *out);

/*
 * The heirs of leaving nodes' tokens, for a removal that keeps everyone
 * else's tokens: ring holds every token, those of the nodes staying and
 * those of the nodes with leaving[o] set; owners_out[i] gets ring.owners[i]
 * for a staying node's token, and for a leaving node's the eligible node
 * (eligible[o] set; leaving ones never are) that will own it, at the same
 * position, with the same range. The leavers' tokens go widest first, each
 * to the eligible node lowest under its weight share (among the nodes that
 * stay) once it holds the range, preferring within a small slack a node of
 * the leaver's zone, so that the zone's own ring keeps the range whole
 * too; ties to the lowest index. Only the leavers' share moves, and it
 * evens out the ring instead of piling onto the successors. Deterministic.
 * Cost: O(ring.n + nodes.n log nodes.n + L log L + L * (C + log nodes.n))
 * for L leaving tokens and C classes of eligible nodes (one per zone and
 * distinct weight: nodes of one class compare as their shares do, kept in
 * a tournament tree per class; the classes' bests are compared one by one).
 * Returns 0, PLACER_EINVAL (an argument NULL, an owner out of range, tokens
 * not ascending, a node both leaving and eligible, a staying node's weight
 * not positive and finite, leaving tokens but no eligible node, weights so
 * far apart that no eligible node's share over its target is finite) or
 * PLACER_ENOMEM.
 */
int plc_tokens_hand_over(plc_token_ring ring, plc_token_nodes nodes, const uint8_t *leaving,
                         const uint8_t *eligible, uint32_t *owners_out);

/* Exact share of the hash space (0 .. 1) of every node of ring, in
 * share[0 .. nnodes): owned hashes counted with 128-bit sums, divided once.
 * Owners must be below nnodes. A ring of n = 0 gives all zeros. */
void plc_token_shares(plc_token_ring ring, uint32_t nnodes, double *share);

/* Exact share of every node of zone `zone` in the ring of that zone's
 * tokens alone (nodes of other zones get 0). */
void plc_token_zone_shares(plc_token_ring ring, plc_token_nodes nodes, uint32_t zone,
                           double *share);

#endif
