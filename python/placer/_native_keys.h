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

/* One batch's keys: a packed buffer, held exported, and its n + 1 offsets;
 * or a list or tuple (seq) of str and bytes or a NumPy array's rows (NumPy's
 * value of a row: trailing NULs dropped, a U row as UTF-8), copied a chunk
 * (CHUNK keys, fewer when rows are wide) at a time
 * under the GIL into memory of the batch's own (own_data, own_offsets):
 * no other thread can change or free them while the GIL is released, a
 * copy is one read of each key (holding references would write every
 * object twice), and the scratch stays small (fresh pages cost more than
 * the lookups) and in cache for the call that reads it. */
#define CHUNK 4096

typedef struct {
    Py_ssize_t n;
    PyObject *seq;
    Py_ssize_t width; /* rows: a NumPy S or U array, `width` bytes a row */
    int ucs4;         /* rows of code points (U), in the host's order */
    int chunked;      /* seq or rows: copied `step` keys at a time */
    Py_ssize_t step;
    const void *data;
    const uint64_t *offsets;
    char *own_data;
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
/* How many rows `width` bytes wide a snapshot's batch copies at a time. */
Py_ssize_t rows_chunk(Py_ssize_t width);
/* A NumPy S (ucs4 0) or U array's rows (ucs4 1, the host's order), `width`
 * bytes a row, copied at most `chunk` rows at a time. 0, or -1 with an
 * exception. */
int keys_from_rows(Keys *k, PyObject *data, Py_ssize_t width, int ucs4, Py_ssize_t chunk);
/* Copies keys at .. at + m - 1 of a list or an array (k->chunked) into the
 * batch's own memory, under the GIL. 1 when some key of a list is neither
 * str nor bytes, 0, or -1 with an exception. */
int keys_chunk(Keys *k, Py_ssize_t at, Py_ssize_t m);
/* data: any contiguous buffer; offsets: n + 1 uint64 (native order), copied.
 * 0, or -1 with an exception. */
int keys_from_buffer(Keys *k, PyObject *data, PyObject *offsets);

#endif
