/*
 * _native_keys.c -- a batch's keys for the extension: see _native_keys.h.
 */
#include "_native_keys.h"
#include "_native_narrow.h"

#include "placer.h"

#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h> /* part of every x86-64: no flags, no dispatch */
#endif

void keys_done(Keys *k)
{
    PyMem_Free(k->own_data);
    PyMem_Free(k->row_copy);
    PyMem_Free(k->own_offsets);
    PyMem_Free(k->ptrs);
    PyMem_Free(k->lens);
    if (k->have_data)
        PyBuffer_Release(&k->data_view);
    if (k->have_offsets)
        PyBuffer_Release(&k->offsets_view);
}

/* The chunk's arrays for k->n keys `chunk` at a time, and `cap` bytes of
 * scratch. 0, or -1 with an exception. */
static int keys_alloc(Keys *k, Py_ssize_t chunk, size_t cap)
{
    size_t m = (size_t)(k->n < chunk ? k->n : chunk);
    k->step = chunk;
    k->cap = cap;
    k->own_offsets = PyMem_Malloc(sizeof *k->own_offsets * (m + 1));
    k->ptrs = PyMem_Malloc(sizeof *k->ptrs * (m ? m : 1));
    k->lens = PyMem_Malloc(sizeof *k->lens * (m ? m : 1));
    k->own_data = PyMem_Malloc(cap ? cap : 1);
    if (!k->own_offsets || !k->ptrs || !k->lens || !k->own_data) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

int keys_from_sequence(Keys *k, PyObject *keys, Py_ssize_t chunk)
{
    if (!PyList_CheckExact(keys) && !PyTuple_CheckExact(keys))
        return 1;
    k->seq = keys;
    k->n = PySequence_Fast_GET_SIZE(keys);
    return keys_alloc(k, chunk, (size_t)CHUNK * 32);
}

/* Packs keys at .. at + m - 1 of k->seq (m at most the chunk), under the GIL. 1 when
 * some key is neither str nor bytes, 0, or -1 with an exception. No Python
 * code runs here; between chunks the GIL was released, so the list is
 * read afresh and must still have n items. */
static int keys_seq_chunk(Keys *k, Py_ssize_t at, Py_ssize_t m)
{
    if (PySequence_Fast_GET_SIZE(k->seq) != k->n) {
        PyErr_SetString(PyExc_RuntimeError, "the list of keys changed size during the batch");
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(k->seq) + at;
    size_t used = 0;
    k->own_offsets[0] = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *key = items[i];
        if (i + 32 < m) { /* the objects lie apart: fetch ahead, both lines a key spans */
            __builtin_prefetch(items[i + 32]);
            __builtin_prefetch((const char *)items[i + 32] + 64);
        }
        const char *p;
        Py_ssize_t len;
        if (PyUnicode_Check(key) && PyUnicode_IS_COMPACT_ASCII(key)) { /* its own UTF-8 form */
            p = (const char *)PyUnicode_DATA(key);
            len = PyUnicode_GET_LENGTH(key);
        } else if (PyUnicode_Check(key)) {
            p = PyUnicode_AsUTF8AndSize(key, &len);
            if (!p)
                return -1;
        } else if (PyBytes_Check(key)) {
            p = PyBytes_AS_STRING(key);
            len = PyBytes_GET_SIZE(key);
        } else {
            return 1;
        }
        if ((size_t)len > k->cap - used) {
            size_t want = k->cap * 2 > used + (size_t)len ? k->cap * 2 : used + (size_t)len;
            char *grown = PyMem_Realloc(k->own_data, want);
            if (!grown) {
                PyErr_NoMemory();
                return -1;
            }
            k->own_data = grown;
            k->cap = want;
        }
        memcpy(k->own_data + used, p, (size_t)len);
        used += (size_t)len;
        k->own_offsets[i + 1] = used;
    }
    /* pointers only now: the scratch may have moved while it grew */
    for (Py_ssize_t i = 0; i < m; i++) {
        k->ptrs[i] = k->own_data + k->own_offsets[i];
        k->lens[i] = (size_t)(k->own_offsets[i + 1] - k->own_offsets[i]);
    }
    return 0;
}

/* A snapshot's batch of S rows `width` bytes wide reads CHUNK rows at a
 * time, fewer when they are wide. U rows go U_CHUNK at a time, fewer when
 * wide: each chunk is narrowed into at most 64 KiB of scratch (one row
 * when wider; room for UTF-8, 4 bytes a code point) and looked up at once,
 * while its bytes are still in the first caches. */
Py_ssize_t rows_chunk(Py_ssize_t width, int ucs4)
{
    Py_ssize_t most = width > 0 ? ((Py_ssize_t)1 << (ucs4 ? 16 : 22)) / width : CHUNK;
    Py_ssize_t cap = ucs4 ? U_CHUNK : CHUNK;
    return most < 1 ? 1 : most < cap ? most : cap;
}

int keys_from_rows(Keys *k, PyObject *data, Py_ssize_t width, int ucs4, Py_ssize_t chunk)
{
    if (PyObject_GetBuffer(data, &k->data_view, PyBUF_C_CONTIGUOUS))
        return -1;
    k->have_data = 1;
    if (width <= 0 || (ucs4 && width % 4) || k->data_view.len % width) {
        PyErr_SetString(PyExc_ValueError, "rows: a whole number of rows of a positive width");
        return -1;
    }
    k->width = width;
    k->ucs4 = ucs4;
    k->n = k->data_view.len / width;
    size_t m = (size_t)(k->n < chunk ? k->n : chunk);
    if (ucs4) {
        k->narrow = narrow_rows_kernel();
        k->row_copy = PyMem_Malloc((size_t)width);
        if (!k->row_copy) {
            PyErr_NoMemory();
            return -1;
        }
    }
    /* U rows only: UTF-8 takes at most 4 bytes a code point */
    return keys_alloc(k, chunk, ucs4 ? m * (size_t)width : 0);
}

/* A code point that str.encode("utf-8") refuses: UnicodeEncodeError, as
 * for a list's str, or ValueError past U+10FFFF (NumPy holds any 32 bits). */
static int refuse_code_point(const uint32_t *row, Py_ssize_t at, Py_ssize_t len)
{
    if (row[at] > 0x10FFFF) {
        char text[64];
        snprintf(text, sizeof text, "code point 0x%lx is past U+10FFFF", (unsigned long)row[at]);
        PyErr_SetString(PyExc_ValueError, text);
        return -1;
    }
    PyObject *text = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, row, len);
    if (text) {
        PyObject *e = PyObject_CallFunction(PyExc_UnicodeEncodeError, "sOnns", "utf-8", text, at,
                                            at + 1, "surrogates not allowed");
        if (e) {
            PyErr_SetObject(PyExc_UnicodeEncodeError, e);
            Py_DECREF(e);
        }
        Py_DECREF(text);
    }
    return -1;
}

/* The length of a row without its trailing NULs, a word at a time: the
 * reference (and the path off x86-64 and for rows under 16 bytes). */
static size_t kept_length_words(const unsigned char *row, size_t len)
{
    for (; len >= 8; len -= 8) {
        uint64_t w;
        memcpy(&w, row + len - 8, 8);
        if (w)
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return len - (size_t)__builtin_ctzll(w) / 8;
#else
            return len - 8 + (size_t)(63 - __builtin_clzll(w)) / 8 + 1;
#endif
    }
    while (len && !row[len - 1])
        len--;
    return len;
}

#ifdef __SSE2__
/* Bit i set when p[i] is not 0, for 16 bytes. */
static inline uint64_t nonzero16(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    return ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) & 0xFFFFu;
}

/* Bit i set when p[i] is not 0, for len bytes (16 to 64): 16-byte blocks
 * from the end, the first len % 16 bytes from one more block at p (it
 * overlaps the next, whose bits are already there). */
static inline uint64_t nonzero_bits(const unsigned char *p, size_t len)
{
    uint64_t m = 0;
    size_t at = len;
    for (; at >= 16; at -= 16)
        m |= nonzero16(p + at - 16) << (at - 16);
    if (at)
        m |= nonzero16(p) & ((1u << at) - 1);
    return m;
}
#endif

/* The length of a row without its trailing NULs (NumPy's value of an S
 * row). Rows of 16 to 64 bytes with SSE2:
 * one mask, one count, no branch on where the key ends (a padded array's
 * lengths vary row to row and would mispredict). */
static size_t kept_length(const unsigned char *row, size_t len)
{
#ifdef __SSE2__
    if (len >= 16) {
        size_t end = len;
        for (; end > 64; end -= 64) {
            uint64_t m = nonzero_bits(row + end - 64, 64);
            if (m)
                return end - (size_t)__builtin_clzll(m);
        }
        uint64_t m = end >= 16 ? nonzero_bits(row, end) : nonzero16(row) & ((1u << end) - 1);
        return m ? 64 - (size_t)__builtin_clzll(m) : 0;
    }
#endif
    return kept_length_words(row, len);
}

/* A U row's code points, trailing NULs dropped, as UTF-8 into out: what
 * str.encode("utf-8") gives. The row is read once, into k->row_copy (a
 * writer of the array meanwhile cannot make it differ from what is
 * encoded). No Python call: the byte count, or -1 for a code point that
 * str.encode refuses, its place kept in k->refused_at and k->refused_len
 * (the row stays in k->row_copy) for keys_raise_refused. */
static Py_ssize_t encode_utf8(Keys *k, const unsigned char *row, Py_ssize_t ncp, unsigned char *out)
{
    uint32_t *cp = k->row_copy;
    memcpy(cp, row, (size_t)ncp * 4);
    Py_ssize_t len = ncp, used = 0;
    while (len && !cp[len - 1])
        len--;
    for (Py_ssize_t j = 0; j < len; j++) {
        uint32_t c = cp[j];
        if (c < 0x80) {
            out[used++] = (unsigned char)c;
        } else if (c < 0x800) {
            out[used++] = (unsigned char)(0xC0 | c >> 6);
            out[used++] = (unsigned char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000 && (c < 0xD800 || c > 0xDFFF)) {
            out[used++] = (unsigned char)(0xE0 | c >> 12);
            out[used++] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
            out[used++] = (unsigned char)(0x80 | (c & 0x3F));
        } else if (c >= 0x10000 && c <= 0x10FFFF) {
            out[used++] = (unsigned char)(0xF0 | c >> 18);
            out[used++] = (unsigned char)(0x80 | (c >> 12 & 0x3F));
            out[used++] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
            out[used++] = (unsigned char)(0x80 | (c & 0x3F));
        } else {
            k->refused_at = j;
            k->refused_len = len;
            return -1;
        }
    }
    return used;
}

void keys_raise_refused(Keys *k)
{
    refuse_code_point(k->row_copy, k->refused_at, k->refused_len);
}

int keys_rows_free(const Keys *k)
{
    return k->width && !k->seq && !k->packed;
}

/* Rows at .. at + m - 1 of k's array as keys (m at most the chunk). An S
 * row is read where it lies: a pointer to it and its length. A U row is
 * narrowed into the scratch (`width` bytes a row: enough for UTF-8), a
 * byte a code point when all are ASCII (then its length is that of the
 * bytes without trailing NULs), else encoded. No Python call (see
 * keys_chunk_free). */
int keys_chunk_free(Keys *k, Py_ssize_t at, Py_ssize_t m)
{
    const unsigned char *rows = (const unsigned char *)k->data_view.buf + at * k->width;
    size_t width = (size_t)k->width;
    if (!k->ucs4) {
        for (Py_ssize_t i = 0; i < m; i++) {
            const unsigned char *row = rows + (size_t)i * width;
            k->ptrs[i] = row;
            k->lens[i] = kept_length(row, width);
        }
        return 0;
    }
    unsigned char *out = (unsigned char *)k->own_data;
    size_t used = 0, ncp = width / 4, done = 0;
    while ((done += k->narrow(rows + done * width, (size_t)m - done, ncp, out, &used,
                              k->ptrs + done, k->lens + done)) < (size_t)m) {
        /* row `done` has a code point past ASCII */
        Py_ssize_t got = encode_utf8(k, rows + done * width, (Py_ssize_t)ncp, out + used);
        if (got < 0)
            return -1;
        k->ptrs[done] = out + used;
        k->lens[done] = (size_t)got;
        used += (size_t)got;
        done++;
    }
    return 0;
}

/* Every offset: 0, or -1 with PlacerError raised through k->fail, in the
 * ctypes path's order (negative, past the end, decreasing). */
static int offsets_check(Keys *k, const unsigned char *raw, size_t count)
{
    uint64_t most = 0, less = 0;
    int64_t least = 0;
    if (k->offsets_signed) {
        const int64_t *o = (const int64_t *)(const void *)raw;
        for (size_t i = 0; i < count; i++)
            least = o[i] < least ? o[i] : least;
    }
    const uint64_t *o = (const uint64_t *)(const void *)raw;
    for (size_t i = 0; i < count; i++) {
        most = o[i] > most ? o[i] : most;
        if (i)
            less |= o[i] < o[i - 1];
    }
    char detail[96];
    int code = 0;
    if (least < 0) {
        code = PLACER_ERANGE;
        snprintf(detail, sizeof detail, "offsets: negative");
    } else if (most > (uint64_t)k->data_view.len) {
        code = PLACER_ERANGE;
        snprintf(detail, sizeof detail, "offsets: past the end of the %lld-byte buffer",
                 (long long)k->data_view.len);
    } else if (less) {
        code = PLACER_EINVAL;
        detail[0] = 0;
    }
    if (!code)
        return 0;
    PyObject *res = PyObject_CallFunction(k->fail, "is", code, detail);
    Py_XDECREF(res);
    if (res) /* fail() did not raise: not reached */
        PyErr_SetString(PyExc_ValueError, "offsets refused");
    return -1;
}

/* Keys at .. at + m - 1 of a packed buffer: the chunk's m + 1 offsets
 * copied, then checked again on the copy (another thread may have written
 * them since the first check: refused as then) and made pointers. */
static int keys_packed_chunk(Keys *k, Py_ssize_t at, Py_ssize_t m)
{
    uint64_t *o = k->own_offsets;
    memcpy(o, (const uint64_t *)k->offsets_view.buf + at, sizeof *o * (size_t)(m + 1));
    uint64_t size = (uint64_t)k->data_view.len, bad = o[m] > size;
    for (Py_ssize_t i = 0; i < m; i++)
        bad |= o[i] > o[i + 1];
    if (bad) { /* offsets_check finds what `bad` saw and raises */
        if (!offsets_check(k, (const unsigned char *)o, (size_t)m + 1))
            PyErr_SetString(PyExc_ValueError, "offsets refused"); /* not reached */
        return -1;
    }
    const unsigned char *base = k->data_view.buf;
    for (Py_ssize_t i = 0; i < m; i++) {
        k->ptrs[i] = base + o[i];
        k->lens[i] = (size_t)(o[i + 1] - o[i]);
    }
    return 0;
}

int keys_chunk(Keys *k, Py_ssize_t at, Py_ssize_t m)
{
    if (k->seq)
        return keys_seq_chunk(k, at, m);
    if (k->packed)
        return keys_packed_chunk(k, at, m);
    if (keys_chunk_free(k, at, m)) {
        keys_raise_refused(k);
        return -1;
    }
    return 0;
}

int keys_from_buffer(Keys *k, PyObject *data, PyObject *offsets, Py_ssize_t chunk,
                     PyObject *fail)
{
    if (PyObject_GetBuffer(data, &k->data_view, PyBUF_FULL_RO))
        return -1;
    k->have_data = 1;
    if (!PyBuffer_IsContiguous(&k->data_view, 'C')) {
        PyErr_SetString(PyExc_ValueError, "the key buffer must be contiguous");
        return -1;
    }
    if (PyObject_GetBuffer(offsets, &k->offsets_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT))
        return -1;
    k->have_offsets = 1;
    const char *f = k->offsets_view.format ? k->offsets_view.format : "B";
    if (*f == '@' || *f == '=' || (PY_LITTLE_ENDIAN && *f == '<') || (!PY_LITTLE_ENDIAN && *f == '>'))
        f++;
    int is_unsigned = !strcmp(f, "Q") || !strcmp(f, "L");
    k->offsets_signed = !strcmp(f, "q") || !strcmp(f, "l");
    if (k->offsets_view.itemsize != 8 || (!is_unsigned && !k->offsets_signed) ||
        k->offsets_view.len < 8) {
        PyErr_SetString(PyExc_TypeError, "offsets: n + 1 uint64 or int64 values");
        return -1;
    }
    k->packed = 1;
    k->fail = fail;
    k->n = k->offsets_view.len / 8 - 1;
    /* checked once here in full (the error before any lookup), and again
     * a chunk at a time on the batch's own copy (keys_packed_chunk) */
    if (offsets_check(k, k->offsets_view.buf, (size_t)k->n + 1))
        return -1;
    return keys_alloc(k, chunk, 0);
}
