/* radix_sort.c -- see radix_sort.h. */
#include "radix_sort.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef plc_sort_entry ent;

/* The scatter moves an entry as two words: the token, then owner and seq. */
_Static_assert(sizeof(plc_sort_entry) == 16 && offsetof(plc_sort_entry, token) == 0 &&
                   offsetof(plc_sort_entry, owner) == 8,
               "plc_sort_entry is the token, then owner and seq");

/* Below this many entries an insertion sort (stable) costs less than a
 * histogram: small rings, the balanced allocator's hand-overs, and the
 * buckets the digits leave (about 8 entries). */
#define SMALL_SORT 48

/* Two 8-byte words, not a struct assignment: under ASan that is a call to
 * __asan_memcpy per entry (most of a sort's time). */
static inline void move_entry(ent *to, const ent *from)
{
    uint64_t t, rest;
    memcpy(&t, from, 8);
    memcpy(&rest, (const unsigned char *)from + 8, 8);
    memcpy(to, &t, 8);
    memcpy((unsigned char *)to + 8, &rest, 8);
}

/* e[0..n) in place, stably. */
static void insertion(ent *e, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t t = e[i].token;
        if (e[i - 1].token <= t)
            continue;
        ent v;
        move_entry(&v, &e[i]);
        size_t j = i;
        for (; j > 0 && e[j - 1].token > t; j--)
            move_entry(&e[j], &e[j - 1]);
        move_entry(&e[j], &v);
    }
}

/* src[0..n) into dst[0..n) (another buffer), stably. */
static void insertion_to(const ent *src, ent *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t t = src[i].token;
        size_t j = i;
        for (; j > 0 && dst[j - 1].token > t; j--)
            move_entry(&dst[j], &dst[j - 1]);
        move_entry(&dst[j], &src[i]);
    }
}

/* A digit is as wide as splits n entries into buckets of about LEAF (then
 * sorted by insertion), at most MAX_WIDTH bits: 2^20 random tokens take an
 * 11-bit pass over memory, a 6-bit pass over each 8 KiB bucket in L1, and
 * insertion over about 8 entries (LEAF 8 against 24 and 4: 2.9x against
 * 2.8x and 3.0x the LSD sort's time, in noise; 30,720 tokens: 1.28x
 * against 1.73x and 1.27x). */
#define MAX_WIDTH 11
#define LEAF 8u
#define MAXD (1u << MAX_WIDTH)

static unsigned digit_width(size_t n)
{
    unsigned w = 1;
    while (w < MAX_WIDTH && ((size_t)LEAF << w) < n)
        w++;
    return w;
}

/* The digit that splits a[0..n) (n >= 1): bits [shift, shift + width) with
 * shift returned, the histogram in count (end of each bucket after
 * scatter); -1 when every token is equal. Bits from `top` up are equal in
 * a[] (the digits before split it). One pass when the digit just below top
 * splits it (random tokens), a second after a jump to the highest bit that
 * differs (equal high bits: 32-bit compat points, clustered explicit
 * tokens). */
static int split_digit(const ent *a, size_t n, int top, unsigned width, size_t *count)
{
    uint64_t t0 = a[0].token, diff = 0, mask = ((uint64_t)1 << width) - 1;
    int shift = top > (int)width ? top - (int)width : 0;
    memset(count, 0, ((size_t)1 << width) * sizeof *count);
    for (size_t i = 0; i < n; i++) {
        uint64_t t = a[i].token;
        diff |= t ^ t0;
        count[(t >> shift) & mask]++;
    }
    if (!diff)
        return -1;
    if (diff >> shift & mask)
        return shift;
    int high = 63 - __builtin_clzll(diff); /* below shift */
    shift = high >= (int)width - 1 ? high - (int)width + 1 : 0;
    memset(count, 0, ((size_t)1 << width) * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[(a[i].token >> shift) & mask]++;
    return shift;
}

/* Stable scatter of src[0..n) into dst by the digit at shift; count (the
 * histogram) becomes each bucket's end. */
static void scatter(const ent *src, ent *dst, size_t n, int shift, unsigned width, size_t *count)
{
    uint64_t mask = ((uint64_t)1 << width) - 1;
    size_t at = 0;
    for (size_t v = 0; v <= mask; v++) {
        size_t c = count[v];
        count[v] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++)
        move_entry(&dst[count[(src[i].token >> shift) & mask]++], &src[i]);
}

static void sort_to(ent *src, ent *dst, size_t n, int top);

/* buf[0..n) in place, stably, with scratch[0..n): MSD, the digit below
 * bit top first, each bucket sorted back into buf. */
static void sort_in_place(ent *buf, ent *scratch, size_t n, int top)
{
    if (n < SMALL_SORT) {
        insertion(buf, n);
        return;
    }
    size_t end[MAXD];
    unsigned width = digit_width(n);
    int shift = split_digit(buf, n, top, width, end);
    if (shift < 0)
        return; /* all equal: already in order */
    scatter(buf, scratch, n, shift, width, end);
    if (shift == 0) { /* every bucket's tokens are equal */
        memcpy(buf, scratch, n * sizeof *buf);
        return;
    }
    for (size_t v = 0, lo = 0; v < (size_t)1 << width; lo = end[v++])
        sort_to(scratch + lo, buf + lo, end[v] - lo, shift);
}

/* src[0..n) sorted into dst[0..n), stably; src is scratch afterwards. */
static void sort_to(ent *src, ent *dst, size_t n, int top)
{
    if (n < SMALL_SORT) {
        insertion_to(src, dst, n);
        return;
    }
    size_t end[MAXD];
    unsigned width = digit_width(n);
    int shift = split_digit(src, n, top, width, end);
    if (shift < 0) {
        memcpy(dst, src, n * sizeof *dst);
        return;
    }
    scatter(src, dst, n, shift, width, end);
    if (shift == 0)
        return;
    for (size_t v = 0, lo = 0; v < (size_t)1 << width; lo = end[v++])
        sort_in_place(dst + lo, src + lo, end[v] - lo, shift);
}

plc_sort_entry *plc_radix_sort(plc_sort_entry *e, plc_sort_entry *tmp, size_t n)
{
    if (n < SMALL_SORT) {
        insertion(e, n);
        return e;
    }
    /* The first digit from e into tmp (over memory), then each bucket in
     * place in tmp with the start of e as its scratch: the same few KiB of
     * e for every bucket, so they stay in cache and only tmp's lines are
     * read and written again. */
    size_t end[MAXD];
    unsigned width = digit_width(n);
    int shift = split_digit(e, n, 64, width, end);
    if (shift < 0)
        return e;
    scatter(e, tmp, n, shift, width, end);
    if (shift == 0)
        return tmp;
    for (size_t v = 0, lo = 0; v < (size_t)1 << width; lo = end[v++])
        sort_in_place(tmp + lo, e, end[v] - lo, shift);
    return tmp;
}

/* Order by seq, for the runs of equal tokens. */
static int by_seq(const void *x, const void *y)
{
    uint32_t a = ((const ent *)x)->seq, b = ((const ent *)y)->seq;
    return (a > b) - (a < b);
}

/* a[0..n), sorted by token, with each run of equal tokens put in seq
 * order: what a stable sort of entries made in seq order gives. */
static void order_ties(ent *a, size_t n)
{
    for (size_t i = 0; i + 1 < n;) {
        size_t j = i + 1;
        while (j < n && a[j].token == a[i].token)
            j++;
        if (j - i > 1)
            qsort(a + i, j - i, sizeof *a, by_seq);
        i = j;
    }
}

/* American flag pass: a[0..n) permuted in place into the buckets of the
 * digit at shift, each entry read and written about once, not stably;
 * count (the histogram) becomes each bucket's end. Each entry taken out of
 * a slot is carried to its bucket's next free slot, swapping out the entry
 * there, until one belongs where the cycle began. */
static void flag_pass(ent *a, int shift, unsigned width, size_t *count)
{
    size_t next[MAXD];
    uint64_t mask = ((uint64_t)1 << width) - 1;
    size_t at = 0;
    for (size_t v = 0; v <= mask; v++) {
        next[v] = at;
        at += count[v];
        count[v] = at;
    }
    for (size_t v = 0; v <= mask; v++)
        while (next[v] < count[v]) {
            ent x, y;
            move_entry(&x, &a[next[v]]);
            size_t d = (x.token >> shift) & mask;
            while (d != v) {
                move_entry(&y, &a[next[d]]);
                move_entry(&a[next[d]++], &x);
                move_entry(&x, &y);
                d = (x.token >> shift) & mask;
            }
            move_entry(&a[next[v]++], &x);
        }
}

/* a[0..n) by (token, seq), bits from top up equal: flag passes until a
 * bucket fits the scratch, then the stable MSD sort above in it. */
static void sort_flag(ent *a, size_t n, int top, ent *scratch, size_t cap)
{
    if (n <= cap) {
        sort_in_place(a, scratch, n, top);
        order_ties(a, n);
        return;
    }
    size_t end[MAXD];
    unsigned width = digit_width(n);
    int shift = split_digit(a, n, top, width, end);
    if (shift < 0) { /* all equal */
        order_ties(a, n);
        return;
    }
    flag_pass(a, shift, width, end);
    if (shift == 0) { /* every bucket's tokens are equal */
        order_ties(a, n);
        return;
    }
    for (size_t v = 0, lo = 0; v < (size_t)1 << width; lo = end[v++])
        sort_flag(a + lo, end[v] - lo, shift, scratch, cap);
}

void plc_radix_sort_in_place(plc_sort_entry *e, size_t n, int top, plc_sort_entry *scratch,
                             size_t cap)
{
    sort_flag(e, n, top, scratch, cap);
}
