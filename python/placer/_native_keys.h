/*
 * _native_keys.h -- a batch's keys for the extension (_native.c): a list or
 * tuple of str and bytes, a packed buffer with offsets, or a NumPy S or U
 * array's rows, as the library's packed batch reads them.
 */
#ifndef PLACER_NATIVE_KEYS_H
#define PLACER_NATIVE_KEYS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "_native_narrow.h"

/* One batch's keys, a chunk (`step` keys, fewer when rows are wide) at a
 * time as the pointer and length arrays placer_lookup_batch takes (ptrs,
 * lens), filled under the GIL by keys_chunk:
 *   a list or tuple (seq) of str and bytes: copied into memory of the
 *     batch's own (own_data): no other thread can change or free them while
 *     the GIL is released, a copy is one read of each key (holding
 *     references would write every object twice), and the scratch stays
 *     small (fresh pages cost more than the lookups) and in cache;
 *   a NumPy S array's rows: read where they lie (the array held exported),
 *     each row's length (trailing NULs dropped, NumPy's value) found here;
 *   a NumPy U array's rows: narrowed to UTF-8 into own_data, a chunk of
 *     U_CHUNK rows at most (its bytes stay in the first caches until the
 *     lookup reads them), the next chunk's rows fetched meanwhile
 *     (keys_fetch_rows);
 *   a packed buffer (held exported) and its n + 1 offsets: the chunk's
 *     offsets copied into own_offsets and checked there, so another thread
 *     writing the caller's offsets cannot send the library past the buffer.
 * A writer of an S array or a buffer while the batch runs changes at most
 * which bytes a key has, never where the library reads. */
#define CHUNK 4096
#define U_CHUNK 256

typedef struct {
    Py_ssize_t n;
    PyObject *seq;
    Py_ssize_t width; /* rows: a NumPy S or U array, `width` bytes a row */
    int ucs4;         /* rows of code points (U), in the host's order */
    int packed;       /* a buffer and offsets */
    int offsets_signed; /* the offsets are int64 (else uint64) */
    Py_ssize_t step;
    PyObject *fail;   /* fail(code, detail) raises PlacerError (packed buffers) */
    const void **ptrs;
    size_t *lens;
    char *own_data;
    narrow_rows_fn narrow; /* U rows' ASCII kernel, chosen once a batch */
    uint32_t *row_copy;    /* a U row being encoded as UTF-8 (width bytes) */
    Py_ssize_t refused_at, refused_len; /* the code point encode refused, the row's length */
    size_t cap;
    uint64_t *own_offsets;
    Py_buffer data_view, offsets_view;
    int have_data, have_offsets;
} Keys;

/* Frees what the batch's keys hold (a zeroed Keys is empty). */
void keys_done(Keys *k);
/* keys: a list or tuple, copied at most `chunk` keys at a time. 1 when it
 * is something else (the caller takes another path), 0, or -1 with an
 * exception. */
int keys_from_sequence(Keys *k, PyObject *keys, Py_ssize_t chunk);
/* How many rows `width` bytes wide (U rows: ucs4 1) a batch takes at a
 * time. */
Py_ssize_t rows_chunk(Py_ssize_t width, int ucs4);
/* A NumPy S (ucs4 0) or U array's rows (ucs4 1, the host's order), `width`
 * bytes a row: S rows read where they lie (their trailing NULs dropped),
 * U rows encoded to UTF-8 at most `chunk` rows at a time. 0, or -1 with an
 * exception. */
int keys_from_rows(Keys *k, PyObject *data, Py_ssize_t width, int ucs4, Py_ssize_t chunk);
/* Keys at .. at + m - 1 (m at most the step) into k->ptrs and k->lens,
 * under the GIL. 1 when some key of a list is neither str nor bytes, 0, or
 * -1 with an exception. */
int keys_chunk(Keys *k, Py_ssize_t at, Py_ssize_t m);
/* Whether k's keys are an array's rows, which keys_chunk_free fills
 * without the GIL. */
int keys_rows_free(const Keys *k);
/* As keys_chunk for an array's rows (keys_rows_free), calling no Python
 * API, so the GIL may be released around it: the array is held exported,
 * the scratch is the batch's own. 0, or -1 when a U row has a code point
 * that str.encode refuses: keys_raise_refused, with the GIL, raises it. */
int keys_chunk_free(Keys *k, Py_ssize_t at, Py_ssize_t m);
/* A U array's rows at .. at + m - 1 (those before k->n) asked of the
 * memory, to be read later: the batch asks for the next chunk's rows
 * while this chunk is looked up (a range's last partial line comes with
 * the next range). Nothing for other keys (S rows are read once, where
 * they lie, by the lookup itself). Inline: it runs between the calls. */
static inline void keys_fetch_rows(const Keys *k, Py_ssize_t at, Py_ssize_t m)
{
    if (!k->ucs4 || at >= k->n || m <= 0)
        return;
    m = k->n - at < m ? k->n - at : m;
    const unsigned char *p = (const unsigned char *)k->data_view.buf + at * k->width;
    size_t bytes = (size_t)m * (size_t)k->width;
    for (size_t b = 0; b < bytes; b += 64)
        __builtin_prefetch(p + b);
}
/* The exception of the code point keys_chunk_free refused: UnicodeEncodeError
 * (a surrogate), ValueError (past U+10FFFF). */
void keys_raise_refused(Keys *k);
/* data: any C-contiguous buffer; offsets: n + 1 uint64 or int64 (native
 * order, C-contiguous), read a chunk at a time (`chunk` keys). Every offset
 * is checked first, as the ctypes path checks them: PlacerError through
 * `fail` (PLACER_ERANGE negative or past the buffer, PLACER_EINVAL
 * decreasing), TypeError for other offsets, ValueError for a buffer that is
 * not contiguous. 0, or -1 with an exception. */
int keys_from_buffer(Keys *k, PyObject *data, PyObject *offsets, Py_ssize_t chunk,
                     PyObject *fail);

#endif
