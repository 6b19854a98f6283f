/*
 * _native_keys.c -- a batch's keys for the extension: see _native_keys.h.
 */
#include "_native_keys.h"

#include <stdio.h>
#include <string.h>

void keys_done(Keys *k)
{
    PyMem_Free(k->own_data);
    PyMem_Free(k->own_offsets);
    if (k->have_data)
        PyBuffer_Release(&k->data_view);
    if (k->have_offsets)
        PyBuffer_Release(&k->offsets_view);
}

int keys_from_sequence(Keys *k, PyObject *keys, Py_ssize_t chunk)
{
    if (!PyList_CheckExact(keys) && !PyTuple_CheckExact(keys))
        return 1;
    k->seq = keys;
    k->chunked = 1;
    k->n = PySequence_Fast_GET_SIZE(keys);
    k->cap = (size_t)CHUNK * 32;
    size_t m = (size_t)(k->n < chunk ? k->n : chunk);
    k->step = chunk;
    k->own_offsets = PyMem_Malloc(sizeof *k->own_offsets * (m + 1));
    k->own_data = PyMem_Malloc(k->cap);
    if (!k->own_offsets || !k->own_data) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
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
    k->data = k->own_data;
    k->offsets = k->own_offsets;
    return 0;
}

/* A snapshot's batch of rows `width` bytes wide copies CHUNK rows at a
 * time, fewer when they are wide: the scratch stays at most 4 MiB. */
Py_ssize_t rows_chunk(Py_ssize_t width)
{
    Py_ssize_t most = width > 0 ? ((Py_ssize_t)1 << 22) / width : CHUNK;
    return most < 1 ? 1 : most < CHUNK ? most : CHUNK;
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
    k->chunked = 1;
    k->n = k->data_view.len / width;
    k->step = chunk;
    size_t m = (size_t)(k->n < chunk ? k->n : chunk);
    k->cap = m * (size_t)width; /* UTF-8 takes at most 4 bytes a code point */
    k->own_offsets = PyMem_Malloc(sizeof *k->own_offsets * (m + 1));
    k->own_data = PyMem_Malloc(k->cap ? k->cap : 1);
    if (!k->own_offsets || !k->own_data) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
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

/* The length of a row without its trailing NULs, 8 bytes at a time. */
static size_t kept_length(const unsigned char *row, size_t len)
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

/* Copies rows at .. at + m - 1 of k's array as keys (m at most the chunk):
 * a whole row at a time (the scratch holds `width` bytes a row), then its
 * length without the trailing NULs; a U row of ASCII code points narrowed
 * in one pass. */
static int keys_rows_chunk(Keys *k, Py_ssize_t at, Py_ssize_t m)
{
    const unsigned char *rows = (const unsigned char *)k->data_view.buf + at * k->width;
    unsigned char *out = (unsigned char *)k->own_data;
    size_t used = 0;
    k->own_offsets[0] = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        const unsigned char *row = rows + i * k->width;
        if (!k->ucs4) {
            memcpy(out + used, row, (size_t)k->width);
            used += kept_length(row, (size_t)k->width);
        } else {
            uint32_t cps[64];
            Py_ssize_t ncp = k->width / 4, len = ncp;
            const uint32_t *cp = (const uint32_t *)(const void *)row;
            uint32_t *copy = NULL;
            if ((uintptr_t)row % 4) { /* a view at an odd offset: read through a copy */
                copy = ncp <= 64 ? cps : PyMem_Malloc((size_t)k->width);
                if (!copy) {
                    PyErr_NoMemory();
                    return -1;
                }
                memcpy(copy, row, (size_t)k->width);
                cp = copy;
            }
            uint32_t any = 0;
            for (Py_ssize_t j = 0; j < ncp; j++)
                any |= cp[j];
            if (any < 0x80) { /* ASCII: a byte a code point */
                for (Py_ssize_t j = 0; j < ncp; j++)
                    out[used + (size_t)j] = (unsigned char)cp[j];
                used += kept_length(out + used, (size_t)ncp);
                len = 0;
            }
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
                    refuse_code_point(cp, j, len);
                    if (copy != cps)
                        PyMem_Free(copy);
                    return -1;
                }
            }
            if (copy != cps)
                PyMem_Free(copy);
        }
        k->own_offsets[i + 1] = used;
    }
    k->data = k->own_data;
    k->offsets = k->own_offsets;
    return 0;
}

int keys_chunk(Keys *k, Py_ssize_t at, Py_ssize_t m)
{
    return k->seq ? keys_seq_chunk(k, at, m) : keys_rows_chunk(k, at, m);
}

/* The offsets' last at most data's length (the library refuses decreasing
 * ones), checked on the batch's own copy. */
int keys_from_buffer(Keys *k, PyObject *data, PyObject *offsets)
{
    if (PyObject_GetBuffer(data, &k->data_view, PyBUF_C_CONTIGUOUS))
        return -1;
    k->have_data = 1;
    if (PyObject_GetBuffer(offsets, &k->offsets_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT))
        return -1;
    k->have_offsets = 1;
    const char *f = k->offsets_view.format ? k->offsets_view.format : "B";
    if (*f == '@' || *f == '=' || (PY_LITTLE_ENDIAN && *f == '<') || (!PY_LITTLE_ENDIAN && *f == '>'))
        f++;
    if (k->offsets_view.itemsize != 8 || (strcmp(f, "Q") && strcmp(f, "L")) ||
        k->offsets_view.len < 8) {
        PyErr_SetString(PyExc_TypeError, "offsets: n + 1 uint64 values");
        return -1;
    }
    k->n = k->offsets_view.len / 8 - 1;
    k->data = k->data_view.buf;
    /* The offsets are copied: a batch runs without the GIL, and another
     * thread writing the caller's array after the check below would send
     * the library past the end of the buffer. The copy is 8 bytes a key. */
    k->own_offsets = PyMem_Malloc((size_t)k->offsets_view.len);
    if (!k->own_offsets) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(k->own_offsets, k->offsets_view.buf, (size_t)k->offsets_view.len);
    k->offsets = k->own_offsets;
    if (k->offsets[k->n] > (uint64_t)k->data_view.len) {
        PyErr_SetString(PyExc_ValueError, "offsets past the end of the keys' buffer");
        return -1;
    }
    return 0;
}
