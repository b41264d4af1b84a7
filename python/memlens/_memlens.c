/*
 * _memlens.c — the CPython extension: memlens's C library in the Python
 * process, no subprocess.
 *
 * Two kinds of entry point:
 *   run(args)          a command line (ml_cli_run, the same function the
 *                      program calls) on streams of its own (open_memstream):
 *                      (status, output bytes, message bytes).  The documents
 *                      of Run.summary()/perf(), diff(), check() are its
 *                      output, so they are the CLI's --json byte for byte.
 *   load(paths, rank)  the profiles loaded whole (ml_load), held by a
 *                      capsule, and table(capsule, name[, t]): one table of
 *                      them (operators, kernels, allocations, live_at) as a
 *                      dict of equal-length lists, which pandas takes as is.
 *   main(args)         the `memlens` command (console script): ml_cli_main
 *                      on the process's stdout and stderr.
 * The GIL is released while the library works.  The library keeps no state
 * between calls; the fatal handler (out of memory) is set once at import.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "categories.h"
#include "cli.h"
#include "err.h"
#include "importer.h"
#include "profile.h"
#include "trace.h"

/* ---- arguments ---------------------------------------------------------- */

/* A list of str (or path-like) into a NULL-terminated argv (free_argv). */
static char **to_argv(PyObject *list, int *argc)
{
    PyObject *seq = PySequence_Fast(list, "arguments must be a sequence of str");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    char **argv = calloc((size_t)n + 2, sizeof *argv);
    if (!argv) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    argv[0] = strdup("memlens");
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = NULL;
        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(seq, i), &b)) {
            for (Py_ssize_t k = 0; k <= i; k++) free(argv[k]);
            free(argv);
            Py_DECREF(seq);
            return NULL;
        }
        argv[i + 1] = strdup(PyBytes_AS_STRING(b));
        Py_DECREF(b);
    }
    Py_DECREF(seq);
    *argc = (int)n + 1;
    return argv;
}

static void free_argv(char **argv, int argc)
{
    for (int i = 0; i < argc; i++) free(argv[i]);
    free(argv);
}

/* ---- run: a command on the caller's streams ------------------------------ */

static PyObject *py_run(PyObject *self, PyObject *args)
{
    PyObject *list;
    if (!PyArg_ParseTuple(args, "O", &list)) return NULL;
    int argc;
    char **argv = to_argv(list, &argc);
    if (!argv) return NULL;
    char *out = NULL, *err = NULL;
    size_t n_out = 0, n_err = 0;
    FILE *fo = open_memstream(&out, &n_out), *fe = open_memstream(&err, &n_err);
    if (!fo || !fe) {
        if (fo) fclose(fo), free(out);
        if (fe) fclose(fe), free(err);
        free_argv(argv, argc);
        return PyErr_NoMemory();
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    ml_cli_io io = {fo, fe};
    rc = ml_cli_run(argc, argv, &io);
    fclose(fo);
    fclose(fe);
    Py_END_ALLOW_THREADS
    free_argv(argv, argc);
    PyObject *r = Py_BuildValue("(iy#y#)", rc, out ? out : "", (Py_ssize_t)n_out, err ? err : "", (Py_ssize_t)n_err);
    free(out);
    free(err);
    return r;
}

static PyObject *py_main(PyObject *self, PyObject *args)
{
    PyObject *list;
    if (!PyArg_ParseTuple(args, "O", &list)) return NULL;
    int argc;
    char **argv = to_argv(list, &argc);
    if (!argv) return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ml_cli_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    Py_END_ALLOW_THREADS
    free_argv(argv, argc);
    return PyLong_FromLong(rc);
}

/* ---- load: profiles held in the process ---------------------------------- */

#define CAPSULE "memlens.profiles"

static PyObject *Error; /* memlens._memlens.LoadError: set by memlens/__init__.py to memlens.Error */

static void free_capsule(PyObject *cap)
{
    ml_profiles *ps = PyCapsule_GetPointer(cap, CAPSULE);
    if (ps) {
        ml_profiles_free(ps);
        free(ps);
    }
}

static PyObject *py_load(PyObject *self, PyObject *args)
{
    PyObject *list;
    int rank = -1;
    if (!PyArg_ParseTuple(args, "O|i", &list, &rank)) return NULL;
    int argc;
    char **argv = to_argv(list, &argc); /* argv[1..]: the inputs */
    if (!argv) return NULL;
    ml_profiles *ps = calloc(1, sizeof *ps);
    if (!ps) {
        free_argv(argv, argc);
        return PyErr_NoMemory();
    }
    ps->want = ML_WANT_TRACE;
    ml_err e = {{0}};
    int rc = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int i = 1; i < argc && rc == 0; i++) rc = ml_load(argv[i], ps, &e);
    if (rc == 0) {
        ml_profiles_sort(ps);
        if (rank >= 0) rc = ml_profiles_keep_rank(ps, rank, &e);
    }
    Py_END_ALLOW_THREADS
    free_argv(argv, argc);
    if (rc < 0) {
        ml_profiles_free(ps);
        free(ps);
        PyErr_SetString(Error, e.msg);
        return NULL;
    }
    PyObject *cap = PyCapsule_New(ps, CAPSULE, free_capsule);
    if (!cap) {
        ml_profiles_free(ps);
        free(ps);
    }
    return cap;
}

/* ---- tables -------------------------------------------------------------- */

/* A table under construction: named columns of equal length. */
typedef struct table {
    PyObject *dict;
    int n_cols;
    PyObject *col[16];
} table;

static int table_init(table *t, const char *const *names)
{
    t->dict = PyDict_New();
    t->n_cols = 0;
    if (!t->dict) return -1;
    for (; *names; names++) {
        PyObject *l = PyList_New(0);
        if (!l || PyDict_SetItemString(t->dict, *names, l) < 0) {
            Py_XDECREF(l);
            return -1;
        }
        Py_DECREF(l); /* the dict holds it */
        t->col[t->n_cols++] = l;
    }
    return 0;
}

/* Appends a new reference (NULL: an error is set) to column c. */
static int put(table *t, int c, PyObject *v)
{
    if (!v) return -1;
    int rc = PyList_Append(t->col[c], v);
    Py_DECREF(v);
    return rc;
}

static PyObject *str_or_none(const ml_profile *p, ml_str s)
{
    if (!s) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(ml_s(p, s), (Py_ssize_t)ml_strlen(p->strings, s), "replace");
}

static PyObject *time_or_none(int64_t t)
{
    if (t == ML_TIME_NONE || t == ML_TIME_END) Py_RETURN_NONE;
    return PyLong_FromLongLong(t);
}

static PyObject *thread_of(const ml_profile *p, uint32_t th)
{
    if (th == ML_NONE32 || th >= p->thread_tid.len) Py_RETURN_NONE;
    return str_or_none(p, p->thread_tid.v[th]);
}

static int operators(table *t, const ml_profile *p)
{
    const ml_ops *o = &p->ops;
    static const char *const kinds[] = {"cpu_op", "annotation", "python", "other"};
    for (size_t i = 0; i < o->ts.len; i++) {
        if (put(t, 0, PyLong_FromLong(p->rank)) || put(t, 1, str_or_none(p, o->name.v[i])) ||
            put(t, 2, PyLong_FromLongLong(o->ts.v[i])) || put(t, 3, PyLong_FromLongLong(o->dur.v[i])) ||
            put(t, 4, thread_of(p, o->thread.v[i])) ||
            put(t, 5, PyUnicode_FromString(kinds[o->kind.v[i] < 4 ? o->kind.v[i] : 3])))
            return -1;
    }
    return 0;
}

static int kernels(table *t, const ml_profile *p)
{
    const ml_trace *tr = p->trace;
    if (!tr) return 0;
    const ml_slices *s = &tr->slices;
    for (size_t i = 0; i < s->ts.len; i++) {
        unsigned k = s->kind.v[i];
        if (k != ML_SL_KERNEL && k != ML_SL_MEMCPY && k != ML_SL_MEMSET) continue;
        uint32_t info = s->info.v[i];
        const ml_kernel_info *ki = info != ML_NONE32 && info < tr->kernel_info.len ? &tr->kernel_info.v[info] : NULL;
        if (put(t, 0, PyLong_FromLong(p->rank)) || put(t, 1, str_or_none(p, s->name.v[i])) ||
            put(t, 2, PyLong_FromLongLong(s->ts.v[i])) || put(t, 3, PyLong_FromLongLong(s->dur.v[i])) ||
            put(t, 4, PyUnicode_FromString(ml_slice_kind_name(k))) ||
            put(t, 5, ki ? PyLong_FromLong(ki->device) : (Py_INCREF(Py_None), Py_None)) ||
            put(t, 6, ki ? PyLong_FromLongLong(ki->stream) : (Py_INCREF(Py_None), Py_None)) ||
            put(t, 7, s->corr.v[i] >= 0 ? PyLong_FromLongLong(s->corr.v[i]) : (Py_INCREF(Py_None), Py_None)))
            return -1;
    }
    return 0;
}

/* Every allocation, or (live) those live at time `at`: allocated at or
 * before it, freed after it. */
static int allocations(table *t, const ml_profile *p, bool live, int64_t at)
{
    const ml_allocs *a = &p->allocs;
    size_t n = a->size.len;
    for (size_t i = 0; i < n; i++) {
        int64_t ta = a->t_alloc.v[i], tf = a->t_free.v[i];
        if (live && !((ta == ML_TIME_NONE || ta <= at) && tf > at)) continue;
        uint16_t d = a->device.len ? a->device.v[i] : 0;
        ml_str op = a->op.len ? a->op.v[i] : 0, top = a->op_top.len ? a->op_top.v[i] : 0;
        int cat = a->category.len ? a->category.v[i] : 0;
        if (put(t, 0, PyLong_FromLong(p->rank)) ||
            put(t, 1, PyUnicode_FromString(d < p->devices.len ? p->devices.v[d].id : "?")) ||
            put(t, 2, PyLong_FromLongLong(a->size.v[i])) ||
            put(t, 3, a->addr.len ? PyLong_FromUnsignedLongLong(a->addr.v[i]) : (Py_INCREF(Py_None), Py_None)) ||
            put(t, 4, time_or_none(ta)) || put(t, 5, time_or_none(tf)) || put(t, 6, str_or_none(p, op)) ||
            put(t, 7, str_or_none(p, top)) || put(t, 8, PyUnicode_FromString(ml_category_name(cat))))
            return -1;
    }
    return 0;
}

static PyObject *py_table(PyObject *self, PyObject *args)
{
    PyObject *cap;
    const char *name;
    long long at = 0;
    if (!PyArg_ParseTuple(args, "Os|L", &cap, &name, &at)) return NULL;
    ml_profiles *ps = PyCapsule_GetPointer(cap, CAPSULE);
    if (!ps) return NULL;
    static const char *const op_cols[] = {"rank", "name", "ts_ns", "dur_ns", "thread", "kind", NULL};
    static const char *const k_cols[] = {"rank", "name", "ts_ns", "dur_ns", "kind", "device", "stream",
                                         "correlation", NULL};
    static const char *const a_cols[] = {"rank", "device", "size", "addr", "t_alloc_ns", "t_free_ns", "op",
                                         "op_top", "category", NULL};
    int which = !strcmp(name, "operators") ? 0 : !strcmp(name, "kernels") ? 1 : !strcmp(name, "allocations") ? 2
              : !strcmp(name, "live_at") ? 3 : -1;
    if (which < 0) return PyErr_Format(PyExc_ValueError, "no table %s", name);
    table t;
    if (table_init(&t, which == 0 ? op_cols : which == 1 ? k_cols : a_cols) < 0) {
        Py_XDECREF(t.dict);
        return NULL;
    }
    for (size_t i = 0; i < ps->items.len; i++) {
        const ml_profile *p = ps->items.v[i];
        int rc = which == 0 ? operators(&t, p) : which == 1 ? kernels(&t, p) : allocations(&t, p, which == 3, at);
        if (rc < 0) {
            Py_DECREF(t.dict);
            return NULL;
        }
    }
    return t.dict;
}

/* The profiles' ranks and formats: [(rank, format, path), ...]. */
static PyObject *py_ranks(PyObject *self, PyObject *args)
{
    PyObject *cap;
    if (!PyArg_ParseTuple(args, "O", &cap)) return NULL;
    ml_profiles *ps = PyCapsule_GetPointer(cap, CAPSULE);
    if (!ps) return NULL;
    PyObject *l = PyList_New((Py_ssize_t)ps->items.len);
    for (size_t i = 0; l && i < ps->items.len; i++) {
        const ml_profile *p = ps->items.v[i];
        PyList_SET_ITEM(l, (Py_ssize_t)i, Py_BuildValue("(iss)", p->rank, p->format, p->path ? p->path : ""));
    }
    return l;
}

static PyObject *py_set_error(PyObject *self, PyObject *cls)
{
    Py_XSETREF(Error, Py_NewRef(cls));
    Py_RETURN_NONE;
}

/* Out of memory inside the library: nothing to return to, so the message
 * goes to the interpreter's stderr stream (fd 2) and the process aborts. */
static void fatal(const char *msg)
{
    fprintf(stderr, "memlens: %s\n", msg);
    fflush(stderr);
}

static PyMethodDef methods[] = {
    {"run", py_run, METH_VARARGS, "run(args) -> (status, stdout bytes, stderr bytes): a memlens command line, in-process"},
    {"main", py_main, METH_VARARGS, "main(argv) -> status: the memlens command on this process's stdout/stderr"},
    {"load", py_load, METH_VARARGS, "load(paths, rank=-1) -> capsule of the loaded profiles"},
    {"table", py_table, METH_VARARGS, "table(capsule, name[, t_ns]) -> {column: [values]}"},
    {"ranks", py_ranks, METH_VARARGS, "ranks(capsule) -> [(rank, format, path)]"},
    {"_set_error", py_set_error, METH_O, "the exception class load() raises"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_memlens", "memlens's C library, in-process", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__memlens(void)
{
    ml_set_fatal_handler(fatal);
    Error = Py_NewRef(PyExc_RuntimeError);
    return PyModule_Create(&module);
}
