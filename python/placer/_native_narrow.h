/*
 * _native_narrow.h -- a NumPy U array's rows of ASCII code points narrowed
 * to bytes, a byte a code point, for the extension's batches
 * (_native_keys.c): SSE2 on every x86-64, AVX2 where the CPU has it
 * (_native_narrow_avx2.c, chosen at run time), plain C elsewhere.
 */
#ifndef PLACER_NATIVE_NARROW_H
#define PLACER_NATIVE_NARROW_H

#include <stddef.h>

/* Narrows rows 0 .. n - 1 (ncp code points each, 4 bytes a code point in
 * the host's order, one row after another) while every code point of a row
 * is under 0x80: row i's bytes at out + *used, ptrs[i] pointing there,
 * lens[i] the row's length without its trailing NULs, *used advanced by
 * that length. Stops at the first row with a code point of 0x80 or more
 * (the caller encodes it as UTF-8) and returns how many rows it narrowed.
 * A row writes ncp bytes at out + *used (its tail past lens[i] is
 * garbage); no row is read twice, so a writer of the rows meanwhile
 * changes at most which bytes a key has. */
typedef size_t (*narrow_rows_fn)(const unsigned char *rows, size_t n, size_t ncp,
                                 unsigned char *out, size_t *used, const void **ptrs,
                                 size_t *lens);

/* The kernel for this CPU (placer_cpu_features(), read on each call so that
 * a test's placer_set_cpu_mask picks the other one). */
narrow_rows_fn narrow_rows_kernel(void);

/* The portable kernel (SSE2 on x86-64): the reference of the others. */
size_t narrow_rows_sse2(const unsigned char *rows, size_t n, size_t ncp, unsigned char *out,
                        size_t *used, const void **ptrs, size_t *lens);
#ifdef PLACER_NARROW_AVX2
size_t narrow_rows_avx2(const unsigned char *rows, size_t n, size_t ncp, unsigned char *out,
                        size_t *used, const void **ptrs, size_t *lens);
#endif

#endif
