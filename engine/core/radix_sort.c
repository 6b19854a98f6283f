/* radix_sort.c -- see radix_sort.h. */
#include "radix_sort.h"

#include <stddef.h>
#include <string.h>

/* The scatter moves an entry as two words: the token, then owner and seq. */
_Static_assert(sizeof(plc_sort_entry) == 16 && offsetof(plc_sort_entry, token) == 0 &&
                   offsetof(plc_sort_entry, owner) == 8,
               "plc_sort_entry is the token, then owner and seq");

/* Below this many entries an insertion sort (stable, in place) costs less
 * than clearing and summing the histograms (small rings, the balanced
 * allocator's hand-overs). */
#define SMALL_SORT 48

plc_sort_entry *plc_radix_sort(plc_sort_entry *e, plc_sort_entry *tmp, size_t n)
{
    if (n < SMALL_SORT) { /* field by field, as the scatter below */
        for (size_t i = 1; i < n; i++) {
            uint64_t t = e[i].token;
            uint32_t owner = e[i].owner, seq = e[i].seq;
            size_t j = i;
            for (; j > 0 && e[j - 1].token > t; j--) {
                e[j].token = e[j - 1].token;
                e[j].owner = e[j - 1].owner;
                e[j].seq = e[j - 1].seq;
            }
            e[j].token = t;
            e[j].owner = owner;
            e[j].seq = seq;
        }
        return e;
    }
    /* The histograms on the stack (16 KB): no allocation, none to clear
     * beyond the digits counted. Tokens of 32 bits (the compat points) take
     * four: eight when the first token is wider, and the high four in a
     * second pass should a later one be wider after all. */
    size_t count[8][256];
    unsigned digits = n && e[0].token >> 32 ? 8 : 4;
    memset(count, 0, sizeof count[0] * digits);
    if (digits == 8) {
        for (size_t i = 0; i < n; i++) {
            uint64_t t = e[i].token;
            for (unsigned d = 0; d < 8; d++)
                count[d][(t >> (8 * d)) & 0xff]++;
        }
    } else {
        uint64_t high = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t t = e[i].token;
            high |= t >> 32;
            for (unsigned d = 0; d < 4; d++)
                count[d][(t >> (8 * d)) & 0xff]++;
        }
        if (high) {
            digits = 8;
            memset(count[4], 0, sizeof count[0] * 4);
            for (size_t i = 0; i < n; i++)
                for (unsigned d = 4; d < 8; d++)
                    count[d][(e[i].token >> (8 * d)) & 0xff]++;
        }
    }
    plc_sort_entry *src = e, *dst = tmp;
    for (unsigned d = 0; d < digits && n > 0; d++) {
        if (count[d][(src[0].token >> (8 * d)) & 0xff] == n)
            continue; /* every token has this digit: the pass would not move anything */
        size_t at = 0;
        for (int v = 0; v < 256; v++) {
            size_t c = count[d][v];
            count[d][v] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++) {
            /* Two 8-byte words, not a struct assignment: under ASan that is
             * a call to __asan_memcpy per entry (most of a sort's time). */
            const unsigned char *from = (const unsigned char *)&src[i];
            uint64_t t, rest;
            memcpy(&t, from, 8);
            memcpy(&rest, from + 8, 8);
            unsigned char *to = (unsigned char *)&dst[count[d][(t >> (8 * d)) & 0xff]++];
            memcpy(to, &t, 8);
            memcpy(to + 8, &rest, 8);
        }
        plc_sort_entry *swap = src;
        src = dst;
        dst = swap;
    }
    return src;
}
