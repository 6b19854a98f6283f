/*
 * radix_sort.h -- the stable sort both ring builders use: placer's rings
 * (ring_build.c, 64-bit tokens) and the compatibility modes' points
 * (compat_build.c, 32-bit points in the low bits). Stability is the
 * tie-break both need: among equal tokens the order the entries were made
 * in (vnode order; the program's insertion order).
 */
#ifndef PLC_ENGINE_RADIX_SORT_H
#define PLC_ENGINE_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct plc_sort_entry {
    uint64_t token;
    uint32_t owner;
    uint32_t seq; /* the caller's (compat: insertion order); not read by the sort */
} plc_sort_entry;

/* Stable LSD radix sort of e[0..n) by token, 8 bits per pass: the
 * histograms (on the stack) come from one read pass, four of them when the
 * tokens fit in 32 bits, and a pass in which every token has the same digit
 * is skipped (32-bit tokens take four passes at most). The passes
 * ping-pong between e and tmp (n entries), so the result is in whichever
 * buffer the last pass wrote: the return value (never NULL: the sort
 * allocates nothing; callers may still test it). Short arrays are sorted
 * in place by insertion, as stably. */
plc_sort_entry *plc_radix_sort(plc_sort_entry *e, plc_sort_entry *tmp, size_t n);

#endif
