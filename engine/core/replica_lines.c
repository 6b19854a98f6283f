/*
 * replica_lines.c -- a ring's precomputed replica sets beside its line
 * table, so that placer_replicas reads a key's set from its line and 16
 * bytes whose addresses both come from the key's hash: no second,
 * dependent miss.
 *
 * The per-slot sets (s->rep, R nodes a token) are found from the slot,
 * which is known only after the key's line is read: two misses in a row.
 * So for every line i of the line table (simd/buckets.h) 16 bytes,
 * rep_lines[16 * i ...], hold for each rank r <= k (k tokens in the line;
 * rank r means the slot base[i] + r, wrapping) the lanes of the line
 * whose owners are the set's second and third nodes, a | b << 4: the
 * line's own[j] is the owner of token base[i] + j for every lane j, past
 * its tokens too, so the nodes a set takes from the next tokens are
 * mostly in its 16 lanes. The set is own[r], own[a], own[b]; its line is
 * already read for the rank. A set of 2 has b = a ^ 1, so that a byte is
 * never 0xFF when it answers and a == b stays free: a rank whose nodes
 * are not among the lanes (5.2% of keys at 4,096 x 256, 3 zones) takes,
 * when its line has bytes to spare past its ranks (never read: a rank is
 * at most k), a spill there: the two nodes as 16-bit words at byte j
 * (k < j <= 12) and the rank's byte j | j << 4, the heaviest such ranks
 * (the most hashes) first, which leaves 3.1%. A byte a rank, where two
 * 16-bit node ids take four: the line sets are a quarter of the line
 * table's size (2 MiB beside its 8 at 4,096 x 256), so fewer of a key's
 * second reads miss the caches than of a second table as large as the
 * line table.
 *
 * A byte is 0xFF, and the reader takes the per-slot sets (exact), when the
 * line cannot answer: a set padded because nodes ran out, a node of
 * 65,535 or more (also the owner 0xFFFF that asks the tree), a second or
 * third node not among the line's 16 owners and no spill, or a set that
 * does not start with the line's owner at that rank (the reader writes
 * that owner first; a datacenter rule's set starts elsewhere when the
 * token's owner is in a datacenter it does not replicate to); and in a
 * crowded line (16 tokens or more), whose rank is always 0 and whose keys
 * the batch gives their slot from the line's first-token index and the
 * tree's leaves (simd/buckets_sets_body.h), without the tree's descent.
 *
 * Built from s->rep, whatever its rule (placer's walk or Cassandra's), in
 * O(lines + tokens): the build and the decoder both call it after the
 * sets exist. 2^b * 16 bytes: 1 to 4 bytes a token (2 at 4,096 x 256)
 * beside the per-slot sets' 4 * R (counted in
 * placer_snapshot_replica_bytes).
 */
#include <string.h>

#include "snapshot_internal.h"

size_t plc_replica_lines_bytes(uint32_t bkt_bits, uint32_t rep_r)
{
    if (!bkt_bits || rep_r < 2)
        return 0; /* no line table, or sets of the owner alone */
    return (((size_t)PLC_BKT_LANES << bkt_bits) + 63) & ~(size_t)63;
}

/* The first lane of line l owned by node, or PLC_BKT_LANES: none, or a
 * node no lane can name (0xFFFF asks the tree, UINT32_MAX pads a set). */
static uint32_t lane_of(const plc_bkt_line *l, uint32_t node)
{
    if (node >= PLC_BKT_ASK_TREE)
        return PLC_BKT_LANES;
    /* the 16 lanes compared in two vectors of eight (the compiler's: SSE2
     * on x86-64, NEON on arm64), read back as four words of four lanes (the
     * first lane a word's low bits, or its high bits on a big-endian host):
     * a scan lane by lane was a sixth of a 3-zone build at 4,096 x 256 */
    typedef uint16_t v8u16 __attribute__((vector_size(16)));
    v8u16 lo, hi, want = {0, 0, 0, 0, 0, 0, 0, 0};
    want += (uint16_t)node;
    memcpy(&lo, l->own, sizeof lo);
    memcpy(&hi, l->own + 8, sizeof hi);
    v8u16 eq[2] = {(v8u16)(lo == want), (v8u16)(hi == want)};
    uint64_t w[4];
    memcpy(w, eq, sizeof w);
    for (uint32_t x = 0; x < 4; x++)
        if (w[x]) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return 4 * x + (uint32_t)__builtin_clzll(w[x]) / 16;
#else
            return 4 * x + (uint32_t)__builtin_ctzll(w[x]) / 16;
#endif
        }
    return PLC_BKT_LANES;
}

/* The byte of rank r of line l (its set at `set`, R nodes), or
 * PLC_BKT_SET_NONE; *spill set when only the lanes are missing (the set
 * can take a spill entry). */
static uint8_t set_byte(const plc_bkt_line *l, uint32_t r, const uint32_t *set, uint32_t R,
                        int *spill)
{
    *spill = 0;
    uint32_t third = R > 2 ? set[2] : 0;
    if (set[0] != l->own[r] || set[0] >= PLC_BKT_ASK_TREE || set[1] >= PLC_BKT_ASK_TREE ||
        third >= PLC_BKT_ASK_TREE)
        return PLC_BKT_SET_NONE; /* not led by the line's owner, padded, or past 16 bits */
    uint32_t a = lane_of(l, set[1]);
    uint32_t b = R > 2 ? lane_of(l, third) : a ^ 1; /* never a: a == b is a spill */
    if (a >= PLC_BKT_LANES || b >= PLC_BKT_LANES) {
        *spill = 1;
        return PLC_BKT_SET_NONE; /* not among the lanes */
    }
    return (uint8_t)(a | b << 4);
}

/* Give the heaviest of line i's ranks whose nodes are not among its lanes
 * (spills[0..ns), the most keys first) the free bytes past its ranks: a
 * spill at byte j (count < j <= 12) holds the second and third nodes as
 * 16-bit words, and the rank's byte is j | j << 4 (a == b, which no lanes
 * give). */
static void place_spills(const placer_snapshot *s, uint64_t i, uint32_t base, uint32_t count,
                         uint32_t *spills, uint32_t ns, uint8_t *e)
{
    const plc_bkt_line *l = &s->bkt.line[i];
    int32_t w[PLC_BKT_LANES + 1];
    for (uint32_t x = 0; x < ns; x++) { /* a rank's keys: the hashes from its last token on */
        uint32_t r = spills[x]; /* by the line's suffixes, 1 / 65,536 of a line */
        int32_t from = r ? l->suf[r - 1] : INT16_MIN, to = r < count ? l->suf[r] : INT16_MAX + 1;
        w[x] = to - from;
    }
    for (uint32_t x = 0; x < ns; x++) /* a few: the heaviest first */
        for (uint32_t y = x + 1; y < ns; y++)
            if (w[y] > w[x]) {
                int32_t tw = w[x];
                uint32_t tr = spills[x];
                w[x] = w[y], spills[x] = spills[y];
                w[y] = tw, spills[y] = tr;
            }
    for (uint32_t x = 0, j = count + 1; x < ns && j + 4 <= PLC_BKT_LANES; x++, j += 4) {
        uint32_t r = spills[x], slot = base + r >= s->tree.n ? base + r - s->tree.n : base + r;
        const uint32_t *set = s->rep + (size_t)slot * s->rep_r;
        uint16_t nodes[2] = {(uint16_t)set[1], (uint16_t)(s->rep_r > 2 ? set[2] : set[1])};
        memcpy(e + j, nodes, sizeof nodes);
        e[r] = (uint8_t)(j | j << 4);
    }
}

void plc_replica_lines_build(const placer_snapshot *s, uint8_t *sets)
{
    const plc_bkt *k = &s->bkt;
    uint64_t m = (uint64_t)1 << k->bits;
    uint32_t n = s->tree.n, R = s->rep_r;
    for (uint64_t i = 0; i < m; i++) {
        uint8_t *e = sets + i * PLC_BKT_LANES;
        const plc_bkt_line *l = &k->line[i];
        uint32_t base = k->base[i], end = i + 1 < m ? k->base[i + 1] : n, count = end - base;
        memset(e, PLC_BKT_SET_NONE, PLC_BKT_LANES);
        if (count >= PLC_BKT_LANES)
            continue; /* crowded */
        uint32_t spills[PLC_BKT_LANES], ns = 0;
        for (uint32_t r = 0; r <= count; r++) { /* ranks past count: never read */
            uint32_t slot = base + r >= n ? base + r - n : base + r;
            int spill;
            e[r] = set_byte(l, r, s->rep + (size_t)slot * R, R, &spill);
            if (spill)
                spills[ns++] = r;
        }
        if (ns && count + 4 < PLC_BKT_LANES)
            place_spills(s, i, base, count, spills, ns, e);
    }
}
