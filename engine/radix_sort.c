/* radix_sort.c -- see radix_sort.h. */
#include "radix_sort.h"

#include "alloc.h"

plc_sort_entry *plc_radix_sort(plc_sort_entry *e, plc_sort_entry *tmp, size_t n)
{
    static const unsigned digits = 8;
    size_t(*count)[256] = plc_calloc(digits, sizeof *count);
    if (!count)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t t = e[i].token;
        for (unsigned d = 0; d < digits; d++)
            count[d][(t >> (8 * d)) & 0xff]++;
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
        for (size_t i = 0; i < n; i++)
            dst[count[d][(src[i].token >> (8 * d)) & 0xff]++] = src[i];
        plc_sort_entry *swap = src;
        src = dst;
        dst = swap;
    }
    plc_free(count);
    return src;
}
