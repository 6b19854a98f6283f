/*
 * replica_wide.c -- wide line sets: a ring's precomputed replica sets of 4
 * or 5 nodes beside its line table, so that placer_replicas reads such a
 * set from lines whose addresses all come from the key's hash, as the
 * line sets of replica_lines.c do for sets of up to 3.
 *
 * The per-slot sets (s->rep, R nodes a token) are found from the slot,
 * known only after the key's line is read: a second, dependent miss, and
 * for a Cassandra NetworkTopologyStrategy set of 5 (dc1: 3, dc2: 2) the
 * largest cost of the call beside the hash. So for every line i of the
 * line table (simd/buckets.h) 16 more entries, one for each rank r <= k
 * (k tokens in the line; rank r means the slot base[i] + r, wrapping),
 * hold the set's nodes 2 to R in four lanes (the last lane 0 for sets of
 * 4). The owner, the set's first node, is the line's own[r]. A ring of at
 * most 255 nodes has 8-bit lanes: a 4-byte entry, one 64-byte line of
 * entries a line (s->rep_wide_bytes 1); a larger one 16-bit lanes: an
 * 8-byte entry, two lines, ranks 0 to 7 (where a line's 4 to 8 tokens put
 * most hashes) in the first (s->rep_wide_bytes 2). The narrower entries
 * halve what the sets add to the caches the lookups share.
 *
 * An entry's first lane is all ones (0xFF or 0xFFFF), and the reader
 * takes the per-slot sets (exact), where the line cannot answer: a
 * crowded line (16 tokens or more, whose keys take the tree), a set padded
 * because nodes ran out, a node index the lanes cannot hold, or a set
 * whose first node is not the line's owner at that rank. Built
 * from s->rep, whatever its rule (placer's walk or Cassandra's), in
 * O(lines), after the sets exist (the build and the decoder both assemble
 * through ring_build.c). 2^b * 64 or 2^b * 128 bytes: with 4 to 16
 * tokens a line on average (plc_bkt_choose_bits), 4 to 16 or 8 to 32
 * bytes a token beside the per-slot sets' 4 * R and the narrow line sets'
 * 1 to 4 (placer_snapshot_replica_bytes counts all three).
 */
#include "snapshot_internal.h"

uint32_t plc_replica_wide_lane_bytes(uint32_t nnodes)
{
    return nnodes <= 0xFFu ? 1 : 2; /* node 255 (0xFF) would read as "cannot answer" */
}

size_t plc_replica_wide_bytes(uint32_t bkt_bits, uint32_t rep_r, uint32_t nnodes)
{
    if (!bkt_bits || rep_r < 4 || rep_r > PLC_WIDE_MAX)
        return 0; /* no line table, or sets the narrow line sets hold (or too wide) */
    return ((size_t)1 << bkt_bits) * PLC_BKT_LANES * 4 * plc_replica_wide_lane_bytes(nnodes);
}

/* The entry of one per-slot set of R (4 or 5) whose rank's owner in the
 * line is `owner`: nodes 2 to R in lanes of `bits`, or all ones when one
 * does not fit or the set does not start with that owner (the reader
 * writes the line's owner first: a replication rule's set starts
 * elsewhere when the token's owner is in a datacenter it does not
 * replicate to). */
static uint64_t wide_entry(const uint32_t *set, uint32_t R, uint32_t bits, uint32_t owner)
{
    uint64_t e = 0, none = bits == 8 ? 0xFFFFFFFFu : UINT64_MAX, lane = ((uint64_t)1 << bits) - 1;
    if (set[0] != owner || owner >= PLC_BKT_ASK_TREE)
        return none;
    for (uint32_t j = 1; j < R; j++) {
        if (set[j] >= lane)
            return none; /* padded (UINT32_MAX), or past the lane */
        e |= (uint64_t)set[j] << (bits * (j - 1));
    }
    return e;
}

void plc_replica_wide_build(const placer_snapshot *s, void *wide)
{
    const plc_bkt *k = &s->bkt;
    uint64_t m = (uint64_t)1 << k->bits;
    uint32_t n = s->tree.n, R = s->rep_r, lane = plc_replica_wide_lane_bytes(s->nnodes);
    for (uint64_t i = 0; i < m; i++) {
        uint32_t base = k->base[i], end = i + 1 < m ? k->base[i + 1] : n, count = end - base;
        for (uint32_t r = 0; r < PLC_BKT_LANES; r++) {
            uint64_t entry = lane == 1 ? 0xFFFFFFFFu : UINT64_MAX;
            if (count < PLC_BKT_LANES && r <= count) { /* not crowded, within the line's slots */
                uint32_t slot = base + r >= n ? base + r - n : base + r;
                entry = wide_entry(s->rep + (size_t)slot * R, R, 8 * lane, k->line[i].own[r]);
            }
            if (lane == 1)
                ((uint32_t *)wide)[i * PLC_BKT_LANES + r] = (uint32_t)entry;
            else
                ((uint64_t *)wide)[i * PLC_BKT_LANES + r] = entry;
        }
    }
}
