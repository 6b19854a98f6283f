/*
 * test_radix_sort.c -- plc_radix_sort (engine/core/radix_sort.c, the MSD
 * sort of both ring builders) against a plain stable merge sort, on the
 * sizes and token shapes that take each of its paths: insertion only, one
 * digit, wide and narrow digits, the jump past equal high bits (32-bit
 * points, clustered tokens), buckets of equal tokens, all tokens equal;
 * and plc_radix_sort_in_place, ties broken by seq, with scratch from the
 * smallest (every large bucket split by flag passes) to the whole array.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "radix_sort.h"

/* Stable merge sort by token: the reference. */
static void ref_sort(plc_sort_entry *a, plc_sort_entry *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    ref_sort(a, tmp, h);
    ref_sort(a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[j].token < a[i].token ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

enum { SHAPES = 8 };

static uint64_t token_of(int shape, uint64_t r, uint32_t i)
{
    switch (shape) {
    case 0: return r;                                  /* random 64-bit: the ring */
    case 1: return r & 0xffffffffu;                    /* 32-bit compat points */
    case 2: return r % 1000;                           /* many equal, low bits only */
    case 3: return r >> 40 << 40;                      /* only high bits differ */
    case 4: return 7;                                  /* all equal */
    case 5: return (r & 0xff) | (uint64_t)(i % 3) << 62; /* few high values, each a cluster */
    case 6: return i % 2 ? UINT64_MAX - (r & 0xf) : r & 0xf; /* both ends */
    default: return (uint64_t)i << 20;                 /* already sorted */
    }
}

/* n entries of the shape in their order made (seq = index), and the
 * reference's sort of them in want. */
static void make_entries(plc_sort_entry *e, plc_sort_entry *want, plc_sort_entry *scratch, size_t n,
                         int shape, uint64_t *st)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = check_rand(st);
        e[i] = (plc_sort_entry){token_of(shape, r, (uint32_t)i), (uint32_t)(r >> 7), (uint32_t)i};
    }
    memcpy(want, e, n * sizeof *e);
    ref_sort(want, scratch, n);
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 47, 48, 49, 100, 383, 384, 385, 4096, 30720, 200000};
    size_t max = 200000;
    plc_sort_entry *e = malloc(max * sizeof *e), *tmp = malloc(max * sizeof *tmp);
    plc_sort_entry *want = malloc(max * sizeof *want), *scratch = malloc(max * sizeof *scratch);
    if (!e || !tmp || !want || !scratch)
        return 1;
    uint64_t st = 25;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int shape = 0; shape < SHAPES; shape++) {
            size_t n = sizes[z];
            make_entries(e, want, scratch, n, shape, &st);
            plc_sort_entry *got = plc_radix_sort(e, tmp, n);
            CHECK(got == e || got == tmp);
            CHECK_ALL(memcmp(got, want, n * sizeof *got) == 0,
                      "the radix sort is the stable sort, every size and shape");
            static const size_t caps[] = {0, 48, 1000, 200000};
            for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
                make_entries(e, want, scratch, n, shape, &st);
                plc_radix_sort_in_place(e, n, 64, tmp, caps[c]);
                CHECK_ALL(memcmp(e, want, n * sizeof *e) == 0,
                          "the in-place sort is the stable sort, every size, shape and scratch");
            }
        }
    free(e);
    free(tmp);
    free(want);
    free(scratch);
    return check_done("radix_sort");
}
