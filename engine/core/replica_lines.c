/*
 * replica_lines.c -- a ring's precomputed replica sets beside its line
 * table, so that placer_replicas reads a key's set from two lines whose
 * addresses both come from the key's hash: no second, dependent miss.
 *
 * The per-slot sets (s->rep, R nodes a token) are found from the slot,
 * which is known only after the key's line is read: two misses in a row.
 * So for every line i of the line table (simd/buckets.h) one more 64-byte
 * line, rep_lines[i * 16 ...], holds for each rank r <= k (k tokens in the
 * line; rank r means the slot base[i] + r, wrapping) the set's second and
 * third nodes as two 16-bit halves (second | third << 16). The owner, the
 * set's first node, is the line's own[r]. Rank 15 is the last a line of
 * 15 tokens needs. A crowded line (16 tokens or more) sends its keys
 * past the line table, and its line of sets holds what finds their slot
 * instead (up to PLC_BKT_CROWD_MAX tokens, simd/buckets.h): its first
 * token's slot and its tokens' suffixes, ranked like the line's; the
 * batch takes that slot's per-slot set, where the tree's descent (a
 * dependent miss a level) was a fifth of the batch's time at 4,096 x 256
 * (0.8% of keys land in crowded lines there).
 *
 * An entry is UINT32_MAX, and the reader takes the per-slot sets (exact,
 * as before), when the line cannot answer: a set padded
 * because nodes ran out, a node index of 65,535 or more (also the
 * owner 0xFFFF that asks the tree), or a set that does not start with the
 * line's owner at that rank (the reader writes that owner first; a
 * datacenter rule's set starts elsewhere when the token's owner is in a
 * datacenter it does not replicate to). Built from s->rep, whatever its rule
 * (placer's walk or Cassandra's), in O(lines + tokens): the build and the decoder
 * both call it after the sets exist. 64 bytes a line: 2^b * 64 bytes, 4 to
 * 8 bytes a token beside the per-slot sets' 4 * R (counted in
 * placer_snapshot_replica_bytes).
 */
#include <string.h>

#include "snapshot_internal.h"

size_t plc_replica_lines_bytes(uint32_t bkt_bits, uint32_t rep_r)
{
    if (!bkt_bits || rep_r < 2)
        return 0; /* no line table, or sets of the owner alone */
    return ((size_t)1 << bkt_bits) * PLC_BKT_LANES * sizeof(uint32_t);
}

/* The line of sets of crowded line i (count tokens from slot base): the
 * slot, the suffixes, the mark; all UINT32_MAX past PLC_BKT_CROWD_MAX. */
static void crowded_line(const placer_snapshot *s, uint32_t base, uint32_t count, uint32_t *e)
{
    for (uint32_t r = 0; r < PLC_BKT_LANES; r++)
        e[r] = UINT32_MAX;
    if (count > PLC_BKT_CROWD_MAX)
        return;
    int16_t suf[2 * PLC_BKT_LANES - 4];
    for (uint32_t j = 0; j < 2 * PLC_BKT_LANES - 4; j++)
        suf[j] = j < count ? plc_bkt_suffix(plc_stree_token(&s->tree, base + j), s->bkt.sshift)
                           : PLC_BKT_PAD;
    e[0] = base;
    memcpy(e + 1, suf, sizeof suf);
    e[PLC_BKT_LANES - 1] = PLC_BKT_CROWD_MARK;
}

void plc_replica_lines_build(const placer_snapshot *s, uint32_t *lines)
{
    const plc_bkt *k = &s->bkt;
    uint64_t m = (uint64_t)1 << k->bits;
    uint32_t n = s->tree.n, R = s->rep_r;
    for (uint64_t i = 0; i < m; i++) {
        uint32_t *e = lines + i * PLC_BKT_LANES;
        uint32_t base = k->base[i], end = i + 1 < m ? k->base[i + 1] : n, count = end - base;
        if (count >= PLC_BKT_LANES) {
            crowded_line(s, base, count, e);
            continue;
        }
        for (uint32_t r = 0; r < PLC_BKT_LANES; r++) {
            e[r] = UINT32_MAX;
            if (r > count)
                continue; /* past the line's slots */
            uint32_t slot = base + r >= n ? base + r - n : base + r;
            const uint32_t *set = s->rep + (size_t)slot * R;
            uint32_t second = set[1], third = R > 2 ? set[2] : 0;
            if (set[0] != k->line[i].own[r] || set[0] >= PLC_BKT_ASK_TREE ||
                second >= PLC_BKT_ASK_TREE || third >= PLC_BKT_ASK_TREE)
                continue; /* not led by the line's owner, padded (UINT32_MAX), or past 16 bits */
            e[r] = second | third << 16;
        }
    }
}
