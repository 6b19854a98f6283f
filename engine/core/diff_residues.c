/*
 * diff_residues.c -- two tables read as hash % n and hash % m over a
 * 32-bit key hash (twemproxy modula, haproxy map-based), counted exactly.
 *
 * Hash h has slots h % n and h % m, which depend only on h % L, L =
 * lcm(n, m): every residue r < L stands for the hashes r, r + L, ... below
 * the hash count H (2^32), that is q = floor(H / L) of them, plus one more
 * when r < H % L (the partial period). One walk over the residues, each slot advanced by
 * one and wrapped, weighs each moving pair by those counts; equal pairs of
 * consecutive residues are added as one run. Evenly spaced positions would
 * alias with the period (every multiple of 2^k falls on a few residues),
 * which is why the diff counts residues and never samples positions here.
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

/* Walk residues [lo, hi), each weighing `weight` hashes. */
static int walk(const plc_diff_view *va, const plc_diff_view *vb, const uint32_t *map, uint64_t lo,
                uint64_t hi, uint64_t weight, run *r, plc_diff_add_fn *add, void *ctx)
{
    if (!weight || lo >= hi)
        return 0;
    uint32_t i = (uint32_t)(lo % va->mod_n), j = (uint32_t)(lo % vb->mod_n);
    for (uint64_t k = lo; k < hi; k++) {
        uint32_t oa = va->mod_own[(size_t)i * va->mod_stride];
        uint32_t ob = vb->mod_own[(size_t)j * vb->mod_stride];
        if ((oa == PLC_NO_NODE ? PLC_NO_NODE : map[oa]) != ob) {
            if (r->count && (r->from != oa || r->to != ob)) {
                int err = add(ctx, r->from, r->to, r->count);
                if (err)
                    return err;
                r->count = 0;
            }
            *r = (run){oa, ob, r->count + weight};
        }
        if (++i == va->mod_n)
            i = 0;
        if (++j == vb->mod_n)
            j = 0;
    }
    return 0;
}

int plc_diff_residues(const plc_diff_view *va, const plc_diff_view *vb, const uint32_t *map,
                      uint64_t hashes, plc_diff_add_fn *add, void *ctx)
{
    uint64_t n = va->mod_n, m = vb->mod_n;
    uint64_t period = n / gcd(n, m) * m; /* n, m <= 2^32: no overflow past 2^64 */
    if (period > MOST_RESIDUES)
        return PLACER_ENOTSUP;
    uint64_t q = hashes / period, partial = hashes % period;
    run r = {0, 0, 0};
    int err = walk(va, vb, map, 0, partial, q + 1, &r, add, ctx);
    if (!err)
        err = walk(va, vb, map, partial, period, q, &r, add, ctx);
    if (!err && r.count)
        err = add(ctx, r.from, r.to, r.count);
    return err;
}
