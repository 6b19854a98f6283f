/*
 * _native.c -- placer.Snapshot's per-key calls and batches, and a router's
 * lookups and lookup batches, as a CPython extension linked with libplacer
 * (the same libplacer.so.1 ctypes loaded first: the dynamic linker shares a
 * library by its soname, and the module is imported after ctypes loaded it).
 *
 * Lifetime without a per-call lock. One-key calls hold the GIL from start
 * to end; a batch of BATCH_UNLOCKED keys or more releases it around the C
 * call, and counts itself in `busy` first (changed only with the GIL
 * held). Retiring a reader (Snapshot.close, or the snapshot handed to a
 * router) sets its pointer to NULL under the GIL, so no call starts after
 * it; the pointer is then freed at once when nothing is busy, else by the
 * last batch to return, and a pointer handed to a router is handed over
 * only once no batch uses it. The keys of a batch stay alive while it
 * runs: a list's are copied a chunk at a time under the GIL, buffers are
 * held exported.
 *
 * A router reader calls placer_router_acquire / _release around each
 * lookup and each batch: the RCU read side (liburcu-bp registers the
 * calling thread by itself), so a snapshot another thread replaces is
 * reclaimed only after the call, and a batch's keys all get one epoch.
 * Inside the section runs no Python code and nothing waits for the GIL: a
 * list's keys are all copied before it, node ids copied out as bytes and
 * made str after it. The router itself is freed as a snapshot is, above.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <time.h>

#include "placer.h"
#include "_native_keys.h"

#define MAX_REPLICAS 8
/* From this many keys a batch releases the GIL: ~10 us of lookups, against
 * a GIL hand-off of about a microsecond. */
#define BATCH_UNLOCKED 256

/* ---- what a snapshot reader and a router reader share ------------------ */

typedef struct {
    PyObject_HEAD
    void *ptr;        /* the snapshot or router; NULL once retired */
    void *pending;    /* retired while busy: freed by the last batch */
    void (*free)(void *);
    int busy;         /* batches running without the GIL */
    PyObject *ids;    /* tuple: node index -> id (a snapshot reader) */
    uint64_t epoch;   /* a router reader: the epoch ids are of */
    PyObject *key_bytes; /* key_bytes(key) for keys other than str and bytes */
    PyObject *fail;   /* fail(code) raises PlacerError */
    PyObject *closed; /* closed() raises ClosedError */
} Reader;

static void snapshot_free(void *p) { placer_snapshot_free(p); }
static void router_free(void *p) { placer_router_free(p); }

static void reader_dealloc(Reader *r)
{
    if (r->pending) /* not reached: a busy batch holds a reference */
        r->free(r->pending);
    Py_XDECREF(r->ids);
    Py_XDECREF(r->key_bytes);
    Py_XDECREF(r->fail);
    Py_XDECREF(r->closed);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

static int reader_setup(Reader *r, unsigned long long ptr, PyObject *ids, PyObject *key_bytes,
                        PyObject *fail, PyObject *closed)
{
    if (!ptr) {
        PyErr_SetString(PyExc_ValueError, "null pointer");
        return -1;
    }
    if (r->ptr || r->pending || r->busy) {
        PyErr_SetString(PyExc_ValueError, "the reader is already set up");
        return -1;
    }
    r->ptr = (void *)(uintptr_t)ptr;
    Py_XINCREF(ids);
    Py_INCREF(key_bytes);
    Py_INCREF(fail);
    Py_INCREF(closed);
    Py_XSETREF(r->ids, ids);
    Py_XSETREF(r->key_bytes, key_bytes);
    Py_XSETREF(r->fail, fail);
    Py_XSETREF(r->closed, closed);
    return 0;
}

/* The key's bytes (*p, *n); *hold keeps a converted key alive (NULL when
 * the key's own buffer is used). 0, or -1 with an exception. */
static int key_of(Reader *r, PyObject *key, const char **p, Py_ssize_t *n, PyObject **hold)
{
    *hold = NULL;
    if (PyUnicode_Check(key)) {
        *p = PyUnicode_AsUTF8AndSize(key, n);
        return *p ? 0 : -1;
    }
    if (PyBytes_Check(key)) {
        *p = PyBytes_AS_STRING(key);
        *n = PyBytes_GET_SIZE(key);
        return 0;
    }
    PyObject *b = PyObject_CallOneArg(r->key_bytes, key); /* bytearray, memoryview, NumPy */
    if (!b)
        return -1;
    if (!PyBytes_Check(b)) {
        Py_DECREF(b);
        PyErr_SetString(PyExc_TypeError, "key_bytes did not return bytes");
        return -1;
    }
    *hold = b;
    *p = PyBytes_AS_STRING(b);
    *n = PyBytes_GET_SIZE(b);
    return 0;
}

static PyObject *raise_closed(Reader *r)
{
    PyObject *res = PyObject_CallNoArgs(r->closed);
    if (res) { /* closed() must raise; if it did not, say so */
        Py_DECREF(res);
        PyErr_SetString(PyExc_ValueError, "closed");
    }
    return NULL;
}

static PyObject *raise_code(Reader *r, int code)
{
    PyObject *res = PyObject_CallFunction(r->fail, "i", code);
    if (res) {
        Py_DECREF(res);
        PyErr_Format(PyExc_RuntimeError, "placer: error %d", code);
    }
    return NULL;
}

static PyObject *id_in(PyObject *ids, int i)
{
    if (i >= PyTuple_GET_SIZE(ids)) {
        PyErr_Format(PyExc_RuntimeError, "placer: node %d past the snapshot's nodes", i);
        return NULL;
    }
    PyObject *id = PyTuple_GET_ITEM(ids, i);
    Py_INCREF(id);
    return id;
}

/* retire(free): no call starts from now on. free true: the pointer is
 * freed now, or by the last batch in flight; false (handed to a router):
 * returns once no batch uses it. */
static PyObject *reader_retire(Reader *r, PyObject *arg)
{
    int free_it = PyObject_IsTrue(arg);
    if (free_it < 0)
        return NULL;
    void *p = r->ptr;
    r->ptr = NULL;
    if (free_it && p) {
        if (r->busy)
            r->pending = p;
        else
            r->free(p);
    }
    while (!free_it && r->busy) { /* batches are bounded work: wait them out */
        Py_BEGIN_ALLOW_THREADS
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
        Py_END_ALLOW_THREADS
    }
    Py_RETURN_NONE;
}

/* ---- snapshot readers -------------------------------------------------- */

static int snap_init(Reader *r, PyObject *args, PyObject *kw)
{
    unsigned long long snap;
    PyObject *ids, *key_bytes, *fail, *closed;
    static char *names[] = {"snapshot", "ids", "key_bytes", "fail", "closed", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "KO!OOO", names, &snap, &PyTuple_Type, &ids,
                                     &key_bytes, &fail, &closed))
        return -1;
    r->free = snapshot_free;
    return reader_setup(r, snap, ids, key_bytes, fail, closed);
}

static PyObject *snap_lookup(Reader *r, PyObject *key)
{
    const char *p;
    Py_ssize_t n;
    PyObject *hold;
    if (key_of(r, key, &p, &n, &hold))
        return NULL;
    if (!r->ptr) { /* checked after key_of: key_bytes may run Python, another thread close() */
        Py_XDECREF(hold);
        return raise_closed(r);
    }
    int owner = placer_lookup(r->ptr, p, (size_t)n);
    Py_XDECREF(hold);
    if (owner >= 0)
        return id_in(r->ids, owner);
    if (owner == PLACER_ENOLIVE)
        Py_RETURN_NONE;
    return raise_code(r, owner);
}

/* n of replicas(key, n=3) or of the batches' (keys, n, ...): 1..8, or -1. */
static long replicas_wanted(PyObject *nobj)
{
    long want = nobj ? PyLong_AsLong(nobj) : 3;
    if (want == -1 && PyErr_Occurred())
        return -1;
    if (want < 1 || want > MAX_REPLICAS) {
        PyErr_SetString(PyExc_ValueError, "n is from 1 to 8");
        return -1;
    }
    return want;
}

static PyObject *snap_replicas(Reader *r, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs < 1 || nargs + nkw > 2) {
        PyErr_SetString(PyExc_TypeError, "replicas(key, n=3)");
        return NULL;
    }
    PyObject *key = args[0];
    PyObject *nobj = nargs == 2 ? args[1] : NULL;
    if (nkw) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0)) ||
            PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "n")) {
            PyErr_SetString(PyExc_TypeError, "replicas(key, n=3): unknown keyword");
            return NULL;
        }
        nobj = args[nargs];
    }
    long want = replicas_wanted(nobj);
    if (want < 0)
        return NULL;
    const char *p;
    Py_ssize_t n;
    PyObject *hold;
    if (key_of(r, key, &p, &n, &hold))
        return NULL;
    if (!r->ptr) {
        Py_XDECREF(hold);
        return raise_closed(r);
    }
    uint32_t out[MAX_REPLICAS];
    int got = placer_replicas(r->ptr, p, (size_t)n, out, (uint32_t)want);
    Py_XDECREF(hold);
    if (got < 0)
        return raise_code(r, got);
    PyObject *list = PyList_New(got);
    for (int i = 0; list && i < got; i++) {
        PyObject *id = id_in(r->ids, (int)out[i]);
        if (!id) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, id);
    }
    return list;
}

/* ---- batches ----------------------------------------------------------- */

/* out: a writable contiguous buffer of exactly n uint32. */
static int out_buffer(Py_buffer *b, PyObject *out, Py_ssize_t n, const char *what)
{
    if (PyObject_GetBuffer(out, b, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE))
        return -1;
    if (b->itemsize != 4 || b->len != n * 4) {
        PyBuffer_Release(b);
        PyErr_Format(PyExc_ValueError, "%s: %zd uint32 values wanted", what, n);
        return -1;
    }
    return 0;
}

/* U rows: keys a library call, each call preceded by the request for as
 * many rows of the next chunk (keys_fetch_rows), so that the memory
 * streams the next rows while these are looked up (the lookup computes,
 * the narrowing waits on the memory). Measured against asking for them
 * row by row while this chunk was narrowed: U batches 8-10% faster with
 * two calls of 128 for a chunk of 256 rows; calls of 64, or the whole
 * next chunk asked for before one call, were no faster. */
#define U_LOOKUP_SLICE 128

/* The owners (want 0) or replica sets (want 1..8) of chunk at .. at + m - 1,
 * whose keys are in k->ptrs and k->lens, into o (and counts): one library
 * call for most keys, U_LOOKUP_SLICE keys a call for U rows. 0 or the
 * library's error code. */
static int chunk_lookup(const placer_snapshot *s, Keys *k, Py_ssize_t at, size_t m, long want,
                        uint32_t *o, uint32_t *counts)
{
    size_t slice = k->ucs4 ? U_LOOKUP_SLICE : m, per = want ? (size_t)want : 1;
    int err = 0;
    for (size_t i = 0; i < m && !err; i += slice) {
        size_t q = m - i < slice ? m - i : slice;
        keys_fetch_rows(k, at + (Py_ssize_t)(m + i), (Py_ssize_t)q);
        if (!want)
            err = placer_lookup_batch(s, k->ptrs + i, k->lens + i, q, o + i);
        else
            err = placer_replicas_batch(s, k->ptrs + i, k->lens + i, q, (uint32_t)want,
                                        o + i * per, counts + i);
    }
    return err;
}

/* A batch that ran without the GIL ends (the GIL held again): the last
 * one frees a pointer retired meanwhile. */
static void batch_done(Reader *r)
{
    if (!--r->busy && r->pending) {
        r->free(r->pending);
        r->pending = NULL;
    }
}

/* Runs one batch on the reader's snapshot: `want` 0 looks up (owners into
 * out), 1..8 gives replica sets (out and counts); the keys a chunk at a
 * time. From BATCH_UNLOCKED keys the batch counts itself busy and
 * releases the GIL: around each C call for a list or a packed buffer,
 * around the whole batch for an array's rows (keys_chunk_free). None, NotImplemented when some key
 * of a list is neither str nor bytes, or NULL with an exception. */
static PyObject *snap_batch(Reader *r, Keys *k, long want, PyObject *out, PyObject *counts)
{
    Py_buffer ob, cb;
    PyObject *res = NULL;
    if (out_buffer(&ob, out, k->n * (want ? want : 1), "out"))
        return NULL;
    if (want && out_buffer(&cb, counts, k->n, "counts")) {
        PyBuffer_Release(&ob);
        return NULL;
    }
    const placer_snapshot *s = r->ptr;
    if (!s) {
        raise_closed(r);
        goto done;
    }
    int unlocked = k->n >= BATCH_UNLOCKED, err = 0, keys_err = 0;
    /* an array's rows are read without the GIL too: one release for the
     * whole batch, each small chunk looked up as soon as it is ready */
    int free_rows = unlocked && keys_rows_free(k), refused = 0;
    if (unlocked)
        r->busy++;
    PyThreadState *whole = free_rows ? PyEval_SaveThread() : NULL;
    Py_ssize_t step = k->step;
    for (Py_ssize_t at = 0; at < k->n && !err && !keys_err; at += step) {
        size_t m = (size_t)(k->n - at < step ? k->n - at : step);
        if (free_rows)
            keys_err = refused = keys_chunk_free(k, at, (Py_ssize_t)m);
        else
            keys_err = keys_chunk(k, at, (Py_ssize_t)m);
        if (keys_err)
            break;
        uint32_t *o = (uint32_t *)ob.buf + (size_t)at * (size_t)(want ? want : 1);
        PyThreadState *ts = unlocked && !free_rows ? PyEval_SaveThread() : NULL;
        err = chunk_lookup(s, k, at, m, want, o, want ? (uint32_t *)cb.buf + at : NULL);
        if (ts)
            PyEval_RestoreThread(ts);
    }
    if (whole)
        PyEval_RestoreThread(whole);
    if (refused)
        keys_raise_refused(k);
    if (unlocked)
        batch_done(r);
    if (keys_err > 0)
        res = Py_NewRef(Py_NotImplemented);
    else if (!keys_err && err < 0)
        raise_code(r, err);
    else if (!keys_err)
        res = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&ob);
    if (want)
        PyBuffer_Release(&cb);
    return res;
}

/* lookup_batch(keys, out): keys a list or tuple of str and bytes, out n
 * uint32. None, or NotImplemented when some key is neither. */
static PyObject *snap_lookup_batch(Reader *r, PyObject *args)
{
    PyObject *keys, *out;
    if (!PyArg_ParseTuple(args, "OO", &keys, &out))
        return NULL;
    Keys k = {0};
    int e = keys_from_sequence(&k, keys, CHUNK);
    PyObject *res = e ? NULL : snap_batch(r, &k, 0, out, NULL);
    keys_done(&k);
    return e > 0 ? Py_NewRef(Py_NotImplemented) : res;
}

/* lookup_packed(data, offsets, out): owners of packed keys, the offsets
 * checked here (the caller's array, not a copy). */
static PyObject *snap_lookup_packed(Reader *r, PyObject *args)
{
    PyObject *data, *offsets, *out;
    if (!PyArg_ParseTuple(args, "OOO", &data, &offsets, &out))
        return NULL;
    Keys k = {0};
    PyObject *res = keys_from_buffer(&k, data, offsets, CHUNK, r->fail) ? NULL : snap_batch(r, &k, 0, out, NULL);
    keys_done(&k);
    return res;
}

/* The arguments (data, width, ucs4, out) of a rows call: the rows of a
 * NumPy S (ucs4 0) or U array (ucs4 1, the host's byte order), `width`
 * bytes a row, as k's keys, `chunk` rows at a time (0: the snapshot's
 * chunk; keys_from_rows). 0, or -1 with an exception. */
static int rows_arguments(PyObject *args, Keys *k, Py_ssize_t chunk, PyObject **out)
{
    PyObject *data;
    Py_ssize_t width;
    int ucs4;
    if (!PyArg_ParseTuple(args, "OnpO", &data, &width, &ucs4, out))
        return -1;
    return keys_from_rows(k, data, width, ucs4, chunk ? chunk : rows_chunk(width, ucs4));
}

/* lookup_rows(data, width, ucs4, out): owners of an array's rows. */
static PyObject *snap_lookup_rows(Reader *r, PyObject *args)
{
    PyObject *out;
    Keys k = {0};
    PyObject *res = rows_arguments(args, &k, 0, &out) ? NULL : snap_batch(r, &k, 0, out, NULL);
    keys_done(&k);
    return res;
}

/* replicas_rows(data, width, ucs4, n, out, counts). */
static PyObject *snap_replicas_rows(Reader *r, PyObject *args)
{
    PyObject *data, *nobj, *out, *counts;
    Py_ssize_t width;
    int ucs4;
    if (!PyArg_ParseTuple(args, "OnpOOO", &data, &width, &ucs4, &nobj, &out, &counts))
        return NULL;
    long want = replicas_wanted(nobj);
    if (want < 0)
        return NULL;
    Keys k = {0};
    PyObject *res = keys_from_rows(&k, data, width, ucs4, rows_chunk(width, ucs4))
                        ? NULL
                        : snap_batch(r, &k, want, out, counts);
    keys_done(&k);
    return res;
}

/* replicas_batch(keys, n, out, counts): as lookup_batch, n per key. */
static PyObject *snap_replicas_batch(Reader *r, PyObject *args)
{
    PyObject *keys, *nobj, *out, *counts;
    if (!PyArg_ParseTuple(args, "OOOO", &keys, &nobj, &out, &counts))
        return NULL;
    long want = replicas_wanted(nobj);
    if (want < 0)
        return NULL;
    Keys k = {0};
    int e = keys_from_sequence(&k, keys, CHUNK);
    PyObject *res = e ? NULL : snap_batch(r, &k, want, out, counts);
    keys_done(&k);
    return e > 0 ? Py_NewRef(Py_NotImplemented) : res;
}

/* replicas_packed(data, offsets, n, out, counts). */
static PyObject *snap_replicas_packed(Reader *r, PyObject *args)
{
    PyObject *data, *offsets, *nobj, *out, *counts;
    if (!PyArg_ParseTuple(args, "OOOOO", &data, &offsets, &nobj, &out, &counts))
        return NULL;
    long want = replicas_wanted(nobj);
    if (want < 0)
        return NULL;
    Keys k = {0};
    PyObject *res =
        keys_from_buffer(&k, data, offsets, CHUNK, r->fail) ? NULL : snap_batch(r, &k, want, out, counts);
    keys_done(&k);
    return res;
}

static PyObject *snap_busy(Reader *r, void *unused)
{
    (void)unused;
    return PyLong_FromLong(r->busy);
}

/* The address of placer_lookup as this module calls it: the tests compare
 * it with the one ctypes found (one libplacer for both paths). */
static PyObject *library_lookup_address(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyLong_FromVoidPtr((void *)(uintptr_t)&placer_lookup);
}

static PyMethodDef snap_methods[] = {
    {"lookup", (PyCFunction)snap_lookup, METH_O,
     "lookup(key): the id of the node that owns key (str or bytes), or None"},
    {"replicas", (PyCFunction)(void (*)(void))snap_replicas, METH_FASTCALL | METH_KEYWORDS,
     "replicas(key, n=3): the key's replica set, ids, owner first"},
    {"lookup_batch", (PyCFunction)snap_lookup_batch, METH_VARARGS,
     "lookup_batch(keys, out): owners of a list or tuple of str and bytes into n uint32; "
     "NotImplemented when a key is neither"},
    {"lookup_packed", (PyCFunction)snap_lookup_packed, METH_VARARGS,
     "lookup_packed(data, offsets, out): owners of packed keys (n + 1 uint64 or int64 offsets)"},
    {"replicas_batch", (PyCFunction)snap_replicas_batch, METH_VARARGS,
     "replicas_batch(keys, n, out, counts): replica sets of a list or tuple of keys"},
    {"replicas_packed", (PyCFunction)snap_replicas_packed, METH_VARARGS,
     "replicas_packed(data, offsets, n, out, counts): replica sets of packed keys"},
    {"lookup_rows", (PyCFunction)snap_lookup_rows, METH_VARARGS,
     "lookup_rows(data, width, ucs4, out): owners of a NumPy S or U array's rows"},
    {"replicas_rows", (PyCFunction)snap_replicas_rows, METH_VARARGS,
     "replicas_rows(data, width, ucs4, n, out, counts): replica sets of an array's rows"},
    {"retire", (PyCFunction)reader_retire, METH_O,
     "retire(free): no call starts from now on; free the snapshot (when the last batch in "
     "flight ends) or, free false, return once no batch uses it"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef reader_getset[] = {
    {"busy", (getter)snap_busy, NULL, "batches running without the GIL", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject snap_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "placer._native.Reader",
    .tp_basicsize = sizeof(Reader),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A snapshot's per-key calls and batches (placer/_native.c)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)snap_init,
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_methods = snap_methods,
    .tp_getset = reader_getset,
};

/* ---- router readers ---------------------------------------------------- */

static int router_init(Reader *r, PyObject *args, PyObject *kw)
{
    unsigned long long router;
    PyObject *key_bytes, *fail, *closed;
    static char *names[] = {"router", "key_bytes", "fail", "closed", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "KOOO", names, &router, &key_bytes, &fail,
                                     &closed))
        return -1;
    r->free = router_free;
    return reader_setup(r, router, NULL, key_bytes, fail, closed);
}

/* A snapshot's node ids copied out as bytes: n of them, id i is
 * bytes[off[i]:off[i + 1]]. Raw memory (no GIL wanted, no Python object
 * made), so it is copied inside the RCU read-side section, which must run
 * no Python code and never wait for the GIL (another thread holding it may
 * be freeing a router: placer_router_free waits for this section's end),
 * and made str objects after the release. */
typedef struct {
    uint32_t n;
    size_t *off;
    char *bytes;
} RawIds;

static void raw_ids_free(RawIds *ids)
{
    PyMem_RawFree(ids->off);
    PyMem_RawFree(ids->bytes);
    ids->off = NULL;
    ids->bytes = NULL;
}

/* 0, or -1 when out of memory (nothing set: the caller raises). */
static int raw_ids_copy(const placer_snapshot *s, RawIds *ids)
{
    ids->n = placer_node_count(s);
    ids->off = PyMem_RawMalloc(((size_t)ids->n + 1) * sizeof *ids->off);
    if (!ids->off)
        return -1;
    ids->off[0] = 0;
    for (uint32_t i = 0; i < ids->n; i++)
        ids->off[i + 1] = ids->off[i] + strlen(placer_node_id(s, i));
    ids->bytes = PyMem_RawMalloc(ids->off[ids->n] ? ids->off[ids->n] : 1);
    if (!ids->bytes) {
        raw_ids_free(ids);
        return -1;
    }
    for (uint32_t i = 0; i < ids->n; i++)
        memcpy(ids->bytes + ids->off[i], placer_node_id(s, i), ids->off[i + 1] - ids->off[i]);
    return 0;
}

/* Caches the copied ids (released here) as the ids of epoch e, a tuple of
 * str; 0, or -1 with an exception. */
static int ids_keep(Reader *r, RawIds *raw, uint64_t e)
{
    PyObject *t = PyTuple_New(raw->n);
    for (uint32_t i = 0; t && i < raw->n; i++) {
        PyObject *id = PyUnicode_DecodeUTF8(raw->bytes + raw->off[i],
                                            (Py_ssize_t)(raw->off[i + 1] - raw->off[i]), "replace");
        if (!id)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, i, id);
    }
    raw_ids_free(raw);
    if (!t)
        return -1;
    Py_XSETREF(r->ids, t);
    r->epoch = e;
    return 0;
}

/* lookup(key): the id of the node that owns key in the current snapshot.
 * Between placer_router_acquire and _release runs no Python code (no
 * exception raised, no object made: a collection could run a finalizer
 * that frees a router, which placer.h forbids inside the section); the
 * node ids of a new epoch are copied out and made a tuple after the
 * release. */
static PyObject *router_lookup(Reader *r, PyObject *key)
{
    const char *p;
    Py_ssize_t n;
    PyObject *hold, *id = NULL;
    if (key_of(r, key, &p, &n, &hold))
        return NULL;
    if (!r->ptr) {
        Py_XDECREF(hold);
        return raise_closed(r);
    }
    RawIds fresh = {0};
    int nomem = 0;
    const placer_snapshot *s = placer_router_acquire(r->ptr); /* RCU read side */
    int owner = placer_lookup(s, p, (size_t)n);
    uint64_t e = placer_snapshot_epoch(s);
    if (owner >= 0 && r->ids && r->epoch == e && owner < PyTuple_GET_SIZE(r->ids))
        id = Py_NewRef(PyTuple_GET_ITEM(r->ids, owner));
    else if (owner >= 0)
        nomem = raw_ids_copy(s, &fresh);
    placer_router_release(r->ptr, s);
    Py_XDECREF(hold);
    if (id)
        return id;
    if (owner == PLACER_ENOLIVE)
        Py_RETURN_NONE;
    if (owner < 0)
        return raise_code(r, owner);
    if (nomem)
        return PyErr_NoMemory();
    if (ids_keep(r, &fresh, e))
        return NULL;
    return id_in(r->ids, owner);
}

/* Runs a batch on the router's current snapshot: every key on one epoch,
 * the list's keys all copied first (under the GIL; an array's rows a chunk
 * at a time inside the section, keys_chunk_free), then the GIL released
 * (from BATCH_UNLOCKED keys, the batch counted busy as a snapshot's is)
 * around the whole section, so the section neither runs Python code nor
 * waits for the GIL. (node ids, epoch); NotImplemented when some key of a
 * list is neither str nor bytes; or NULL with an exception. */
static PyObject *router_batch(Reader *r, Keys *k, PyObject *out)
{
    Py_buffer ob;
    if (out_buffer(&ob, out, k->n, "out"))
        return NULL;
    PyObject *res = NULL, *known = NULL;
    /* an array's rows are narrowed a chunk at a time inside the section
     * (keys_chunk_free calls no Python code); other keys all before it */
    int free_rows = keys_rows_free(k), refused = 0;
    int keys_err = k->n && !free_rows ? keys_chunk(k, 0, k->n) : 0;
    if (keys_err > 0)
        res = Py_NewRef(Py_NotImplemented);
    if (keys_err)
        goto done;
    void *router = r->ptr;
    if (!router) {
        raise_closed(r);
        goto done;
    }
    known = Py_XNewRef(r->ids); /* another thread may replace r->ids meanwhile */
    uint64_t known_epoch = r->epoch;
    int unlocked = k->n >= BATCH_UNLOCKED, err = 0, nomem = 0;
    RawIds fresh = {0};
    if (unlocked)
        r->busy++;
    PyThreadState *ts = unlocked ? PyEval_SaveThread() : NULL;
    const placer_snapshot *s = placer_router_acquire(router); /* RCU read side */
    if (free_rows) {
        for (Py_ssize_t at = 0; at < k->n && err >= 0 && !refused; at += k->step) {
            Py_ssize_t m = k->n - at < k->step ? k->n - at : k->step;
            if ((refused = keys_chunk_free(k, at, m)))
                break;
            err = chunk_lookup(s, k, at, (size_t)m, 0, (uint32_t *)ob.buf + at, NULL);
        }
    } else if (k->n) {
        err = placer_lookup_batch(s, k->ptrs, k->lens, (size_t)k->n, ob.buf);
    }
    uint64_t e = placer_snapshot_epoch(s);
    int have = known && known_epoch == e;
    if (err >= 0 && !refused && !have)
        nomem = raw_ids_copy(s, &fresh);
    placer_router_release(router, s);
    if (ts)
        PyEval_RestoreThread(ts);
    if (unlocked)
        batch_done(r);
    if (refused)
        keys_raise_refused(k);
    else if (err < 0)
        raise_code(r, err);
    else if (nomem)
        PyErr_NoMemory();
    else if (have)
        res = Py_BuildValue("(OK)", known, (unsigned long long)e);
    else if (!ids_keep(r, &fresh, e))
        res = Py_BuildValue("(OK)", r->ids, (unsigned long long)e);
done:
    Py_XDECREF(known);
    PyBuffer_Release(&ob);
    return res;
}

/* lookup_batch(keys, out): keys a list or tuple of str and bytes, out n
 * uint32: (node ids, epoch) of the snapshot that answered. */
static PyObject *router_lookup_batch(Reader *r, PyObject *args)
{
    PyObject *keys, *out;
    if (!PyArg_ParseTuple(args, "OO", &keys, &out))
        return NULL;
    Keys k = {0};
    int e = keys_from_sequence(&k, keys, PY_SSIZE_T_MAX);
    PyObject *res = e ? NULL : router_batch(r, &k, out);
    keys_done(&k);
    return e > 0 ? Py_NewRef(Py_NotImplemented) : res;
}

/* lookup_rows(data, width, ucs4, out): as lookup_batch, a NumPy S or U
 * array's rows (read a chunk at a time inside the read side). */
static PyObject *router_lookup_rows(Reader *r, PyObject *args)
{
    PyObject *out;
    Keys k = {0};
    PyObject *res = rows_arguments(args, &k, 0, &out) ? NULL : router_batch(r, &k, out);
    keys_done(&k);
    return res;
}

/* lookup_packed(data, offsets, out): as lookup_batch, packed keys. */
static PyObject *router_lookup_packed(Reader *r, PyObject *args)
{
    PyObject *data, *offsets, *out;
    if (!PyArg_ParseTuple(args, "OOO", &data, &offsets, &out))
        return NULL;
    Keys k = {0};
    PyObject *res = keys_from_buffer(&k, data, offsets, PY_SSIZE_T_MAX, r->fail) ? NULL : router_batch(r, &k, out);
    keys_done(&k);
    return res;
}

static PyMethodDef router_methods[] = {
    {"lookup", (PyCFunction)router_lookup, METH_O,
     "lookup(key): the id of the node that owns key now, or None"},
    {"lookup_batch", (PyCFunction)router_lookup_batch, METH_VARARGS,
     "lookup_batch(keys, out): owners of a list or tuple of str and bytes into n uint32, all "
     "from one epoch: (node ids, epoch); NotImplemented when a key is neither"},
    {"lookup_packed", (PyCFunction)router_lookup_packed, METH_VARARGS,
     "lookup_packed(data, offsets, out): as lookup_batch, packed keys (n + 1 uint64 or int64 offsets)"},
    {"lookup_rows", (PyCFunction)router_lookup_rows, METH_VARARGS,
     "lookup_rows(data, width, ucs4, out): as lookup_batch, a NumPy S or U array's rows"},
    {"retire", (PyCFunction)reader_retire, METH_O,
     "retire(free): no call starts from now on; free the router if free is true (when the "
     "last batch in flight ends)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject router_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "placer._native.RouterReader",
    .tp_basicsize = sizeof(Reader),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A router's one-key lookups on the RCU read side (placer/_native.c)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)router_init,
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_methods = router_methods,
    .tp_getset = reader_getset,
};

/* ---- the module -------------------------------------------------------- */

static PyMethodDef module_methods[] = {
    {"library_lookup_address", library_lookup_address, METH_NOARGS,
     "the address of placer_lookup in the libplacer this module is linked with"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "placer._native",
    .m_doc = "placer's per-key calls and batches at C-extension speed", .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__native(void);

static int add_type(PyObject *m, PyTypeObject *t, const char *name)
{
    if (PyType_Ready(t) < 0)
        return -1;
    Py_INCREF(t);
    if (PyModule_AddObject(m, name, (PyObject *)t) < 0) {
        Py_DECREF(t);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__native(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    if (add_type(m, &snap_type, "Reader") || add_type(m, &router_type, "RouterReader")) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
