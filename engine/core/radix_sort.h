/*
 * radix_sort.h -- the stable sort both ring builders use: placer's rings
 * (ring_build.c, 64-bit tokens) and the compatibility modes' points
 * (compat_layout_kit.c, 32-bit points in the low bits). Stability is the
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
    uint32_t seq; /* the caller's (compat: insertion order); the in-place sort's tie-break */
} plc_sort_entry;

/* Stable MSD radix sort of e[0..n) by token: the first digit (up to 11
 * bits, as wide as leaves buckets of about 8 entries) moves e into tmp in
 * one pass over memory, then each bucket is sorted in place in tmp by
 * narrower digits with the start of e as its scratch (cache-resident), and
 * buckets under 48 entries by insertion. Equal high bits are skipped in one
 * jump to the highest bit that differs (32-bit points cost no extra pass).
 * The histograms are on the stack (at most 16 KiB a level, a level per
 * digit). The result is in the buffer returned: e or tmp (never NULL: the
 * sort allocates nothing; callers may still test it). Short arrays are
 * sorted in place by insertion, as stably. */
plc_sort_entry *plc_radix_sort(plc_sort_entry *e, plc_sort_entry *tmp, size_t n);

/* e[0..n) sorted in place by (token, seq), with scratch[0..cap); bits
 * from top (64: none) up are equal in every token. When seq ascends with the index, as the ring builder makes it,
 * the result is plc_radix_sort's. Buckets larger than cap are split in
 * place (American flag passes, not stable); those that fit are sorted by
 * the MSD sort above in cache; then runs of equal tokens are put in seq
 * order (a comparison sort of each run, so O(n log n) even when every
 * token is equal). For a result in the caller's final memory with no
 * second buffer as large as e. */
void plc_radix_sort_in_place(plc_sort_entry *e, size_t n, int top, plc_sort_entry *scratch,
                             size_t cap);

#endif
