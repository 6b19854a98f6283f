/*
 * _native.c -- placer.Snapshot's per-key calls (lookup, replicas) as a
 * CPython extension: the key's bytes read in place, the library called
 * through the function pointers ctypes already loaded (so both paths use
 * one libplacer), the node id returned from a tuple. No lock: the calls
 * hold the GIL from start to end (a lookup takes nanoseconds), and
 * Snapshot.close() detaches the reader under the GIL before it frees the
 * snapshot, so no call can be in flight with a freed pointer. Batches stay
 * on the ctypes path, which releases the GIL. Without this module (a pure
 * Python install) placer uses ctypes for everything.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define ENOLIVE (-14) /* PLACER_ENOLIVE: no owner, lookup answers None */
#define MAX_REPLICAS 8

typedef int (*lookup_fn)(const void *s, const void *key, size_t len);
typedef int (*replicas_fn)(const void *s, const void *key, size_t len, uint32_t *out, uint32_t n);

typedef struct {
    PyObject_HEAD
    const void *snap; /* NULL once detached */
    lookup_fn lookup;
    replicas_fn replicas;
    PyObject *ids;       /* tuple: node index -> id */
    PyObject *key_bytes; /* key_bytes(key) for key types other than str and bytes */
    PyObject *fail;      /* fail(code) raises PlacerError */
    PyObject *closed;    /* closed() raises ClosedError */
} Reader;

static void reader_dealloc(Reader *r)
{
    Py_XDECREF(r->ids);
    Py_XDECREF(r->key_bytes);
    Py_XDECREF(r->fail);
    Py_XDECREF(r->closed);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

static int reader_init(Reader *r, PyObject *args, PyObject *kw)
{
    unsigned long long snap, lookup, replicas;
    PyObject *ids, *key_bytes, *fail, *closed;
    static char *names[] = {"snapshot", "lookup", "replicas", "ids", "key_bytes", "fail", "closed",
                            NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "KKKO!OOO", names, &snap, &lookup, &replicas,
                                     &PyTuple_Type, &ids, &key_bytes, &fail, &closed))
        return -1;
    if (!snap || !lookup || !replicas) {
        PyErr_SetString(PyExc_ValueError, "null pointer");
        return -1;
    }
    r->snap = (const void *)(uintptr_t)snap;
    r->lookup = (lookup_fn)(uintptr_t)lookup;
    r->replicas = (replicas_fn)(uintptr_t)replicas;
    Py_INCREF(ids);
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
        PyErr_SetString(PyExc_ValueError, "the snapshot is closed");
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

static PyObject *id_at(Reader *r, int i)
{
    if (i >= PyTuple_GET_SIZE(r->ids)) {
        PyErr_Format(PyExc_RuntimeError, "placer: node %d past the snapshot's nodes", i);
        return NULL;
    }
    PyObject *id = PyTuple_GET_ITEM(r->ids, i);
    Py_INCREF(id);
    return id;
}

static PyObject *reader_lookup(Reader *r, PyObject *key)
{
    const char *p;
    Py_ssize_t n;
    PyObject *hold;
    if (key_of(r, key, &p, &n, &hold))
        return NULL;
    if (!r->snap) { /* checked after key_of: key_bytes may run Python, another thread close() */
        Py_XDECREF(hold);
        return raise_closed(r);
    }
    int owner = r->lookup(r->snap, p, (size_t)n);
    Py_XDECREF(hold);
    if (owner >= 0)
        return id_at(r, owner);
    if (owner == ENOLIVE)
        Py_RETURN_NONE;
    return raise_code(r, owner);
}

static PyObject *reader_replicas(Reader *r, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    PyObject *key = NULL;
    long want = 3;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs < 1 || nargs + nkw > 2) {
        PyErr_SetString(PyExc_TypeError, "replicas(key, n=3)");
        return NULL;
    }
    key = args[0];
    PyObject *nobj = nargs == 2 ? args[1] : NULL;
    if (nkw) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0)) ||
            PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "n")) {
            PyErr_SetString(PyExc_TypeError, "replicas(key, n=3): unknown keyword");
            return NULL;
        }
        nobj = args[nargs];
    }
    if (nobj) {
        want = PyLong_AsLong(nobj);
        if (want == -1 && PyErr_Occurred())
            return NULL;
    }
    if (want < 1 || want > MAX_REPLICAS) {
        PyErr_SetString(PyExc_ValueError, "n is from 1 to 8");
        return NULL;
    }
    const char *p;
    Py_ssize_t n;
    PyObject *hold;
    if (key_of(r, key, &p, &n, &hold))
        return NULL;
    if (!r->snap) {
        Py_XDECREF(hold);
        return raise_closed(r);
    }
    uint32_t out[MAX_REPLICAS];
    int got = r->replicas(r->snap, p, (size_t)n, out, (uint32_t)want);
    Py_XDECREF(hold);
    if (got < 0)
        return raise_code(r, got);
    PyObject *list = PyList_New(got);
    for (int i = 0; list && i < got; i++) {
        PyObject *id = id_at(r, (int)out[i]);
        if (!id) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, id);
    }
    return list;
}

static PyObject *reader_detach(Reader *r, PyObject *unused)
{
    (void)unused;
    r->snap = NULL;
    Py_RETURN_NONE;
}

static PyMethodDef reader_methods[] = {
    {"lookup", (PyCFunction)reader_lookup, METH_O,
     "lookup(key): the id of the node that owns key (str or bytes), or None"},
    {"replicas", (PyCFunction)(void (*)(void))reader_replicas, METH_FASTCALL | METH_KEYWORDS,
     "replicas(key, n=3): the key's replica set, ids, owner first"},
    {"detach", (PyCFunction)reader_detach, METH_NOARGS,
     "detach(): no call uses the snapshot from now on (before it is freed)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject reader_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "placer._native.Reader",
    .tp_basicsize = sizeof(Reader),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A snapshot's per-key lookups, holding the GIL (placer/_native.c)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)reader_init,
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_methods = reader_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "placer._native",
    .m_doc = "placer's per-key calls at C-extension speed", .m_size = -1,
};

PyMODINIT_FUNC PyInit__native(void);

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&reader_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&reader_type);
    if (PyModule_AddObject(m, "Reader", (PyObject *)&reader_type) < 0) {
        Py_DECREF(&reader_type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
