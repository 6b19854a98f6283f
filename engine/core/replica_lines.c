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
 * already read for the rank. No lane a set names is r (own[r] leads the
 * set), and a set of 2 names a second lane b that is neither a nor r, so
 * that a == b and a lane r stay free for the spills. A rank whose nodes
 * are not among the lanes (5.2% of keys at 4,096 x 256, 3 zones) takes,
 * when its line has bytes to spare past its ranks (never read: a rank is
 * at most k), a spill. Nearly all of them miss one node alone: the line's
 * spill word holds that node as a 16-bit word at byte PLC_BKT_SET_WORD
 * (14, so k <= 13), and the byte of every rank of the line that misses
 * that node alone names lane r in its place (a second node: r | b << 4; a
 * third: a | r << 4). The others take a record, both nodes as 16-bit words
 * at byte j (k < j, j + 4 <= 16, or <= 14 beside the word), their byte j |
 * j << 4, one record for the ranks of the same two nodes. The builder
 * spills the heaviest ranks (the most hashes) first and keeps, line by
 * line, the word with records below it or records alone, whichever answers
 * more hashes: 0.69% of keys are left at 4,096 x 256 (3.1% with records
 * alone). A byte a rank, where two 16-bit node ids take four: the line
 * sets are a quarter of the line table's size (2 MiB beside its 8 at 4,096
 * x 256), so fewer of a key's second reads miss the caches than of a
 * second table as large as the line table.
 *
 * A byte is 0xFF, and the reader takes the per-slot sets (exact), when the
 * line cannot answer: a set padded because nodes ran out, a node of 65,535
 * or more (also the owner 0xFFFF that asks the tree), a second or third
 * node not among the line's 16 owners and no room to spill it, or a set
 * that does not start with the line's owner at that rank (the reader
 * writes that owner first; a datacenter rule's set starts elsewhere when
 * the token's owner is in a datacenter it does not replicate to); and in a
 * crowded line (16 tokens or more), whose rank is always 0 and whose keys
 * the batch gives their slot from the line's first-token index and the
 * tree's leaves (simd/buckets_sets_body.h), without the tree's descent.
 * A crowded line's other bytes name the tokens of it to read: from byte
 * 2, PLC_BKT_CROWD_PIVOTS suffixes (16 bits, biased as the line table's)
 * of its tokens 3, 7, 11, ... (PLC_BKT_PAD past its tokens), so that a
 * key's suffix against them leaves at most 3 of up to 27 tokens, one or
 * two leaves of the tree instead of up to seven.
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

/* A rank whose set's nodes are not all among its line's lanes: its weight
 * (the hashes it answers), the lanes of its second and third nodes
 * (PLC_BKT_LANES: not among them) and the nodes. */
typedef struct spill_rank {
    uint32_t r, a, b;
    int32_t weight;
    uint16_t second, third;
} spill_rank;

/* The byte of rank r of line l (its set at `set`, R nodes), or
 * PLC_BKT_SET_NONE; *sp filled, and *spill set, when only the lanes are
 * missing (the set can take a spill). A set of 2 names a second lane b,
 * neither a nor r, so that its byte is never a spill's or an escape's. */
static uint8_t set_byte(const plc_bkt_line *l, uint32_t r, const uint32_t *set, uint32_t R,
                        spill_rank *sp, int *spill)
{
    *spill = 0;
    uint32_t third = R > 2 ? set[2] : set[1];
    if (set[0] != l->own[r] || set[0] >= PLC_BKT_ASK_TREE || set[1] >= PLC_BKT_ASK_TREE ||
        third >= PLC_BKT_ASK_TREE)
        return PLC_BKT_SET_NONE; /* not led by the line's owner, padded, or past 16 bits */
    uint32_t a = lane_of(l, set[1]), b;
    if (R > 2)
        b = lane_of(l, third);
    else /* a is never r (own[r] leads the set), so b = r ^ 1 names neither */
        b = a >= PLC_BKT_LANES ? r ^ 1u : (a ^ 1u) != r ? a ^ 1u : a ^ 2u;
    if (a >= PLC_BKT_LANES || b >= PLC_BKT_LANES) {
        *sp = (spill_rank){.r = r, .a = a, .b = b, .second = (uint16_t)set[1],
                           .third = (uint16_t)third};
        *spill = 1;
        return PLC_BKT_SET_NONE; /* not among the lanes */
    }
    return (uint8_t)(a | b << 4);
}

/* The node of a rank that misses exactly one of its nodes, or -1. */
static int32_t single_miss(const spill_rank *sp)
{
    if (sp->a >= PLC_BKT_LANES && sp->b < PLC_BKT_LANES)
        return sp->second;
    if (sp->b >= PLC_BKT_LANES && sp->a < PLC_BKT_LANES)
        return sp->third;
    return -1;
}

/* One way to spill line's ranks sp[0..ns) (the heaviest first) into e:
 * when `word` >= 0, the line's spill word (that node, at byte
 * PLC_BKT_SET_WORD) for the ranks missing it alone, their byte naming
 * their rank r in its place (own[r] leads the set: no lane names r);
 * the others a record of both nodes at byte j of [from, to), shared by
 * ranks of the same two nodes, their byte j | j << 4. Returns the weight
 * answered. */
static int64_t spill_into(const spill_rank *sp, uint32_t ns, uint32_t from, uint32_t to,
                          int32_t word, uint8_t *e)
{
    int64_t got = 0;
    uint32_t j = from;
    if (word >= 0) {
        uint16_t v = (uint16_t)word;
        memcpy(e + PLC_BKT_SET_WORD, &v, sizeof v);
    }
    for (uint32_t x = 0; x < ns; x++) {
        const spill_rank *p = &sp[x];
        if (word >= 0 && single_miss(p) == word) {
            e[p->r] = (uint8_t)((p->a < PLC_BKT_LANES ? p->a : p->r) |
                                (p->b < PLC_BKT_LANES ? p->b : p->r) << 4);
            got += p->weight;
            continue;
        }
        uint16_t nodes[2] = {p->second, p->third};
        uint32_t at = from;
        while (at < j && memcmp(e + at, nodes, sizeof nodes) != 0)
            at += 4; /* the same two nodes already spilled */
        if (at == j) {
            if (j + 4 > to)
                continue;
            memcpy(e + j, nodes, sizeof nodes);
            j += 4;
        }
        e[p->r] = (uint8_t)(at | at << 4);
        got += p->weight;
    }
    return got;
}

/* Spill line i's ranks whose nodes are not all among its lanes
 * (sp[0..ns)) into the free bytes past its ranks (count < byte <= 15),
 * the heaviest ranks first: records of two words only, or the line's
 * spill word (the node most of the hashes missing one node miss) and
 * records in the bytes below it, whichever answers more hashes. */
static void place_spills(const plc_bkt_line *l, uint32_t count, spill_rank *sp, uint32_t ns,
                         uint8_t *e)
{
    for (uint32_t x = 0; x < ns; x++) { /* a rank's keys: the hashes from its last token on */
        uint32_t r = sp[x].r; /* by the line's suffixes, 1 / 65,536 of a line */
        int32_t from = r ? l->suf[r - 1] : INT16_MIN, to = r < count ? l->suf[r] : INT16_MAX + 1;
        sp[x].weight = to - from;
    }
    for (uint32_t x = 0; x < ns; x++) /* a few: the heaviest first */
        for (uint32_t y = x + 1; y < ns; y++)
            if (sp[y].weight > sp[x].weight) {
                spill_rank t = sp[x];
                sp[x] = sp[y];
                sp[y] = t;
            }
    uint8_t records[PLC_BKT_LANES], worded[PLC_BKT_LANES];
    memcpy(records, e, sizeof records);
    int64_t by_records = spill_into(sp, ns, count + 1, PLC_BKT_LANES, -1, records), by_word = -1;
    if (count < PLC_BKT_SET_WORD) {
        int32_t word = -1;
        int64_t best = 0;
        for (uint32_t x = 0; x < ns; x++) { /* the missed node of the most hashes */
            int32_t node = single_miss(&sp[x]);
            int64_t sum = 0;
            for (uint32_t y = 0; y < ns && node >= 0; y++)
                sum += single_miss(&sp[y]) == node ? sp[y].weight : 0;
            if (sum > best)
                best = sum, word = node;
        }
        if (word >= 0) {
            memcpy(worded, e, sizeof worded);
            by_word = spill_into(sp, ns, count + 1, PLC_BKT_SET_WORD, word, worded);
        }
    }
    memcpy(e, by_word > by_records ? worded : records, PLC_BKT_LANES);
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
        if (count >= PLC_BKT_LANES) { /* crowded: the suffixes of its tokens 3, 7, 11, ... */
            for (uint32_t j = 0; j < PLC_BKT_CROWD_PIVOTS; j++) {
                uint32_t at = 4 * j + 3;
                int16_t v = PLC_BKT_PAD;
                if (at < count)
                    v = plc_bkt_suffix(plc_stree_token(&s->tree, base + at), k->sshift);
                memcpy(e + 2 + 2 * j, &v, sizeof v);
            }
            continue;
        }
        spill_rank sp[PLC_BKT_LANES];
        uint32_t ns = 0;
        for (uint32_t r = 0; r <= count; r++) { /* ranks past count: never read */
            uint32_t slot = base + r >= n ? base + r - n : base + r;
            int spill;
            e[r] = set_byte(l, r, s->rep + (size_t)slot * R, R, &sp[ns], &spill);
            ns += (uint32_t)spill;
        }
        if (ns && count + 1 < PLC_BKT_LANES)
            place_spills(l, count, sp, ns, e);
    }
}
