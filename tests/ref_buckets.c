/*
 * ref_buckets.c -- the plain references of ref_buckets.h. Slow on
 * purpose where slowness is plainer: JumpBackHash reads its bits one at
 * a time and counts them by hand; Memento keeps a
 * flat array per bucket instead of a table of removed ones; Anchor runs
 * the paper's four arrays through every removal and addition.
 */
#include "ref_buckets.h"

#include <stdlib.h>

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t draw(uint64_t h, uint64_t i)
{
    return mix(h + (i + 1) * 0x9e3779b97f4a7c15ull);
}

/* floor(u * n) for u the top 32 bits of r as a fraction. */
static uint32_t scale(uint64_t r, uint32_t n)
{
    return (uint32_t)((r >> 32) * (uint64_t)n >> 32);
}

/* JumpBackHash as the paper states it, one bit at a time (no clz, parity
 * or masks): the range bits are r0's halves xored, range i's largest point
 * is 2^i + one half of r0 mod 2^i (the half by the parity of the set range
 * bits at or below i), and the top range's further points are the next
 * draws' halves mod 2^(i+1), ending at one below 2^i. */
uint32_t ref_jumpback(uint64_t h, uint32_t n)
{
    if (n < 2)
        return 0;
    uint64_t r0 = draw(h, 0);
    uint32_t bits = (uint32_t)r0 ^ (uint32_t)(r0 >> 32), top = 0;
    while (top < 31 && ((n - 1) >> (top + 1)) != 0)
        top++;
    for (int i = (int)top; i >= 0; i--) {
        if (!((bits >> i) & 1))
            continue;
        uint32_t set = 0;
        for (int j = 0; j <= i; j++)
            set += (bits >> j) & 1;
        uint64_t lo = UINT64_C(1) << i, half = set % 2 ? r0 >> 32 : r0 & UINT32_MAX;
        uint64_t m = lo + half % lo;
        if (m < n)
            return (uint32_t)m;
        int more = 1;
        for (uint64_t k = 1; more; k++) {
            uint64_t r = draw(h, k), y[2] = {r & UINT32_MAX, r >> 32};
            for (int t = 0; t < 2 && more; t++) {
                uint64_t v = y[t] % (2 * lo);
                if (v < lo)
                    more = 0;
                else if (v < n)
                    return (uint32_t)v;
            }
        }
    }
    return 0;
}

uint32_t ref_jumpback_first(uint64_t h, uint32_t mask)
{
    uint64_t r0 = draw(h, 0);
    uint32_t x = ((uint32_t)r0 ^ (uint32_t)(r0 >> 32)) & mask;
    if (!x)
        return 0;
    int top = 31, set = 0;
    while (!((x >> top) & 1))
        top--;
    for (int j = 0; j < 32; j++)
        set += (x >> j) & 1;
    uint32_t half = set % 2 ? (uint32_t)(r0 >> 32) : (uint32_t)r0;
    return (UINT32_C(1) << top) | (half & ((UINT32_C(1) << top) - 1));
}

/* JumpBackHash as Ertl's paper loops it (Algorithm 2, SplitMix64 as its
 * generator, seeded with the key's 64-bit hash): the range bits and the
 * first point from one output, the walk down the top range two 32-bit
 * draws an output, then the next lower set bit. Java's bitCount(x) << 5
 * as a long shift count is 32 * its parity. */
uint32_t ref_jumpback_paper(uint64_t h, uint32_t n)
{
    if (n <= 1)
        return 0;
    uint64_t state = h + 0x9e3779b97f4a7c15ull, r0 = mix(state);
    uint32_t x = ((uint32_t)r0 ^ (uint32_t)(r0 >> 32)) & (UINT32_MAX >> __builtin_clz(n - 1));
    for (;;) {
        if (x == 0)
            return 0;
        uint32_t lo = UINT32_C(1) << (31 - __builtin_clz(x));
        uint32_t b = lo + ((uint32_t)(r0 >> ((unsigned)__builtin_parity(x) << 5)) & (lo - 1));
        if (b < n)
            return b;
        uint32_t hi = (lo << 1) - 1;
        for (;;) {
            state += 0x9e3779b97f4a7c15ull;
            uint64_t r1 = mix(state);
            b = (uint32_t)r1 & hi;
            if (b < lo)
                break;
            if (b < n)
                return b;
            b = (uint32_t)(r1 >> 32) & hi;
            if (b < lo)
                break;
            if (b < n)
                return b;
        }
        x ^= lo;
    }
}

static uint32_t relocate(uint32_t b, uint64_t h)
{
    if (b < 2)
        return b;
    uint32_t base = 1;
    while (base * 2 <= b)
        base *= 2;
    return base + (uint32_t)(draw(h, base) % base);
}

uint32_t ref_binomial(uint64_t h, uint32_t n)
{
    if (n < 2)
        return 0;
    uint32_t tree = 1;
    while (tree < n)
        tree *= 2;
    uint32_t e = tree - 1, m = e / 2;
    uint64_t hs = __builtin_bswap64(h); /* the module's "key hash": the position's bytes swapped */
    uint32_t b = relocate((uint32_t)(hs % tree), h);
    if (b < n)
        return b;
    for (uint32_t i = 0; i < 4; i++) {
        b = (uint32_t)((draw(h, (uint64_t)e * 8 + i) >> 32) % tree);
        if (b <= m)
            break;
        if (b < n)
            return b;
    }
    return relocate((uint32_t)(hs % (m + 1)), h);
}

void ref_memento_init(ref_memento *m, int64_t cap)
{
    m->n = 0;
    m->l = 0;
    m->cap = cap;
    m->repl = malloc((size_t)cap * sizeof *m->repl);
    m->prev = malloc((size_t)cap * sizeof *m->prev);
    for (int64_t i = 0; i < cap; i++)
        m->repl[i] = -1;
}

void ref_memento_free(ref_memento *m)
{
    free(m->repl);
    free(m->prev);
}

static int64_t removed_count(const ref_memento *m)
{
    int64_t k = 0;
    for (int64_t i = 0; i < m->n; i++)
        k += m->repl[i] >= 0;
    return k;
}

/* The paper's removeBucket: the last bucket with nothing removed shrinks
 * the range; otherwise remember (b, working - 1, l) and b becomes l. */
void ref_memento_remove(ref_memento *m, int64_t b)
{
    int64_t removed = removed_count(m);
    if (removed == 0 && b == m->n - 1) {
        m->n--;
        m->l = m->n;
        return;
    }
    m->repl[b] = m->n - removed - 1;
    m->prev[b] = m->l;
    m->l = b;
}

/* addBucket: restore l (its predecessor becomes l), or grow. */
int64_t ref_memento_add(ref_memento *m)
{
    int64_t b = m->l;
    if (removed_count(m) == 0) {
        m->l = b + 1;
    } else {
        m->l = m->prev[b];
        m->repl[b] = -1;
    }
    if (m->n <= b)
        m->n = b + 1;
    return b;
}

/* 64-bit jump hash, the paper's loop (Lamping & Veach). */
static int64_t jump(uint64_t key, int64_t n)
{
    int64_t b = -1, j = 0;
    while (j < n) {
        b = j;
        key = key * 2862933555777941757ull + 1;
        j = (int64_t)((double)(b + 1) * ((double)(1ll << 31) / (double)((key >> 33) + 1)));
    }
    return b;
}

int64_t ref_memento_lookup(const ref_memento *m, uint64_t h)
{
    int64_t b = jump(h, m->n);
    int64_t r = m->repl[b];
    while (r >= 0) {
        int64_t x = scale(draw(h, (uint64_t)b), (uint32_t)r);
        int64_t d = m->repl[x];
        while (d >= r) {
            x = d;
            d = m->repl[x];
        }
        b = x;
        r = m->repl[b];
    }
    return b;
}

void ref_anchor_init(ref_anchor *x, uint32_t a)
{
    x->a = a;
    x->A = calloc(a, sizeof *x->A);
    x->K = calloc(a, sizeof *x->K);
    x->W = calloc(a, sizeof *x->W);
    x->L = calloc(a, sizeof *x->L);
    x->R = calloc(a, sizeof *x->R);
    for (uint32_t b = 0; b < a; b++)
        x->K[b] = x->W[b] = x->L[b] = b;
    /* INITANCHOR(a, w = 0): R gets a-1 .. 0, A[b] = b */
    x->nr = 0;
    for (uint32_t b = a; b-- > 0;) {
        x->R[x->nr++] = b;
        x->A[b] = b;
    }
    x->N = 0;
}

void ref_anchor_free(ref_anchor *x)
{
    free(x->A);
    free(x->K);
    free(x->W);
    free(x->L);
    free(x->R);
}

void ref_anchor_remove(ref_anchor *x, uint32_t b)
{
    x->R[x->nr++] = b;
    x->N--;
    x->A[b] = x->N;
    x->W[x->L[b]] = x->W[x->N];
    x->L[x->W[x->N]] = x->L[b];
    x->K[b] = x->W[x->N];
}

uint32_t ref_anchor_add(ref_anchor *x)
{
    uint32_t b = x->R[--x->nr];
    x->A[b] = 0;
    x->L[x->W[x->N]] = x->N;
    x->W[x->L[b]] = b;
    x->K[b] = b;
    x->N++;
    return b;
}

uint32_t ref_anchor_lookup(const ref_anchor *x, uint64_t h)
{
    uint32_t b = (uint32_t)(((unsigned __int128)h * x->a) >> 64);
    while (x->A[b] > 0) {
        uint32_t y = scale(draw(h, b), x->A[b]);
        while (x->A[y] >= x->A[b])
            y = x->K[y];
        b = y;
    }
    return b;
}

void ref_dx_init(ref_dx *x, uint32_t a)
{
    x->a = a;
    x->active = calloc(a, 1);
    x->inactive = malloc(a * sizeof *x->inactive);
    x->ni = 0;
    for (uint32_t b = a; b-- > 0;)
        x->inactive[x->ni++] = b;
}

void ref_dx_free(ref_dx *x)
{
    free(x->active);
    free(x->inactive);
}

uint32_t ref_dx_add(ref_dx *x)
{
    uint32_t b = x->inactive[--x->ni];
    x->active[b] = 1;
    return b;
}

void ref_dx_remove(ref_dx *x, uint32_t b)
{
    x->active[b] = 0;
    x->inactive[x->ni++] = b;
}

uint32_t ref_dx_lookup(const ref_dx *x, uint64_t h)
{
    uint32_t b = 0;
    for (uint32_t i = 0; i < 64; i++) {
        b = (uint32_t)(draw(h, i) >> 32) % x->a;
        if (x->active[b])
            return b;
    }
    for (uint32_t k = 1; k <= x->a; k++)
        if (x->active[(b + k) % x->a])
            return (b + k) % x->a;
    return 0;
}
