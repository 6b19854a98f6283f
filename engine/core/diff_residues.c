/*
 * diff_residues.c -- two tables read as hash % n and hash % m over a
 * 32-bit key hash (twemproxy modula, haproxy map-based, Kafka's
 * partitioners), counted exactly.
 *
 * Hash h has slots h % n and h % m, which depend only on h % L, L =
 * lcm(n, m): every residue r < L stands for the values r, r + L, ... of
 * each span [lo, hi) of the values the tables read (the 2^32 of a 32-bit
 * hash, or a program's: Kafka's murmur2 masks the sign bit, so its values
 * are [0, 2^31) twice each), floor(hi / L) - floor(lo / L) of them give or
 * take one at the partial periods. One walk over the residues, each slot
 * advanced by one and wrapped, weighs each moving pair by those counts;
 * equal pairs of consecutive residues are added as one run. Evenly spaced
 * positions would alias with the period (every multiple of 2^k falls on a
 * few residues), which is why the diff counts residues and never samples
 * positions here.
 */
#include "diff_internal.h"

#define MOST_RESIDUES ((uint64_t)1 << 26)

static uint64_t gcd(uint64_t x, uint64_t y)
{
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return x;
}

typedef struct run {
    uint32_t from, to;
    uint64_t count;
} run;

/* How many values of [lo, hi) are r mod L: those below hi less those
 * below lo, each count floor(x / L) plus one when r < x % L. */
static uint64_t in_span(const plc_hash_span *s, uint64_t period, uint64_t r)
{
    uint64_t below_hi = s->hi / period + (r < s->hi % period);
    uint64_t below_lo = s->lo / period + (r < s->lo % period);
    return (below_hi - below_lo) * s->times;
}

int plc_diff_residues(const plc_diff_view *va, const plc_diff_view *vb, const uint32_t *map,
                      const plc_hash_span *spans, size_t nspans, plc_diff_add_fn *add, void *ctx)
{
    uint64_t n = va->mod_n, m = vb->mod_n;
    uint64_t period = n / gcd(n, m) * m; /* n, m <= 2^32: no overflow past 2^64 */
    if (period > MOST_RESIDUES)
        return PLACER_ENOTSUP;
    run r = {0, 0, 0};
    uint32_t i = 0, j = 0;
    for (uint64_t k = 0; k < period; k++) {
        uint32_t oa = va->mod_own[(size_t)i * va->mod_stride];
        uint32_t ob = vb->mod_own[(size_t)j * vb->mod_stride];
        if ((oa == PLC_NO_NODE ? PLC_NO_NODE : map[oa]) != ob) {
            uint64_t weight = 0;
            for (size_t s = 0; s < nspans; s++)
                weight += in_span(&spans[s], period, k);
            if (r.count && (r.from != oa || r.to != ob)) {
                int err = add(ctx, r.from, r.to, r.count);
                if (err)
                    return err;
                r.count = 0;
            }
            if (weight)
                r = (run){oa, ob, r.count + weight};
        }
        if (++i == va->mod_n)
            i = 0;
        if (++j == vb->mod_n)
            j = 0;
    }
    return r.count ? add(ctx, r.from, r.to, r.count) : 0;
}
