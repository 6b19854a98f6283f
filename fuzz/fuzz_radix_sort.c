/*
 * fuzz_radix_sort.c -- differential: plc_radix_sort and plc_radix_sort_in_place
 * (engine/core/radix_sort.c, with a scratch of 0, 48, 300 or all the
 * entries) against a stable merge sort on entries whose tokens come from
 * the input, spread by a mode byte over the shapes that take the sort's paths
 * (equal high bits, clusters, repeats, 32-bit points).
 *
 * Input: mode (1 byte), repeat and scratch (1), then 8-byte tokens.
 */
#include "fuzz.h"
#include "radix_sort.h"

#define MAX_N 4096

static plc_sort_entry e[MAX_N], tmp[MAX_N], want[MAX_N], scratch[MAX_N], orig[MAX_N];

/* Stable merge sort by token (the reference: O(n log n), so that inputs of
 * MAX_N entries stay quick under ASan). */
static void ref_sort(plc_sort_entry *a, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2, i = 0, j = h, k = 0;
    ref_sort(a, h);
    ref_sort(a + h, n - h);
    while (i < h && j < n)
        scratch[k++] = a[j].token < a[i].token ? a[j++] : a[i++];
    while (i < h)
        scratch[k++] = a[i++];
    while (j < n)
        scratch[k++] = a[j++];
    memcpy(a, scratch, n * sizeof *a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    static const size_t caps[4] = {0, 48, 300, MAX_N};
    unsigned mode = fuzz_u8(&p), rs = fuzz_u8(&p), repeat = rs % 16 + 1;
    size_t n = 0;
    while (p.size >= 8 && n < MAX_N) {
        uint64_t t = fuzz_u64(&p);
        if (mode & 1)
            t &= 0xffffffffu;      /* compat points */
        if (mode & 2)
            t >>= (mode >> 4) * 4; /* equal high bits */
        if (mode & 4)
            t &= ~(uint64_t)0xffff; /* equal low bits: clusters */
        for (unsigned r = 0; r < repeat && n < MAX_N; r++, n++)
            e[n] = (plc_sort_entry){t, (uint32_t)n * 2654435761u, (uint32_t)n};
    }
    /* scale past the sort's insertion bound and its narrow digits: copies
     * of the tokens, each copy's told apart in bits 8.. or 40.. */
    if ((mode & 8) && n) {
        size_t n0 = n;
        unsigned shift = mode & 0x30 ? 8 : 40;
        for (; n < MAX_N; n++)
            e[n] = (plc_sort_entry){e[n % n0].token ^ (uint64_t)(n / n0) << shift,
                                    (uint32_t)n * 2654435761u, (uint32_t)n};
    }
    memcpy(want, e, n * sizeof *e);
    memcpy(orig, e, n * sizeof *e);
    ref_sort(want, n);
    plc_sort_entry *got = plc_radix_sort(e, tmp, n);
    FUZZ_ASSERT(got == e || got == tmp);
    for (size_t i = 0; i < n; i++)
        FUZZ_ASSERT(got[i].token == want[i].token && got[i].owner == want[i].owner &&
                    got[i].seq == want[i].seq);
    memcpy(e, orig, n * sizeof *e); /* seq is the index: the same result */
    plc_radix_sort_in_place(e, n, 64, tmp, caps[rs >> 6]);
    FUZZ_ASSERT(memcmp(e, want, n * sizeof *e) == 0);
    return 0;
}
