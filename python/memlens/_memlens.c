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
    ps->needs.time = true;
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

/* A table under construction: named columns of equal length, each either
 * int64 (a C array, handed over as bytes in native order: numpy.frombuffer
 * takes it without a copy; INT64_MIN where the value is absent) or Python
 * objects (a list of str / None).  Built so that 100,000 rows cost a few
 * milliseconds here and no per-value inference in pandas. */
#define ML_NA INT64_MIN

typedef struct column {
    const char *name;
    bool ints;
    int64_t *v;
    size_t n, cap;
    PyObject *list;
} column;

typedef struct table {
    column col[12];
    int n_cols;
    PyObject **str_cache;       /* the profile's strings, decoded once each */
    size_t n_cache;
    const ml_profile *p;
} table;

static int table_init(table *t, const char *const *names)
{
    memset(t, 0, sizeof *t);
    for (; *names; names++) {
        column *c = &t->col[t->n_cols++];
        c->name = *names + 1;
        c->ints = **names == 'i'; /* "iNAME": int64, "sNAME": objects */
        if (!c->ints && !(c->list = PyList_New(0))) return -1;
    }
    return 0;
}

static void table_free(table *t)
{
    for (int i = 0; i < t->n_cols; i++) {
        free(t->col[i].v);
        Py_XDECREF(t->col[i].list);
    }
    for (size_t i = 0; i < t->n_cache; i++) Py_XDECREF(t->str_cache[i]);
    free(t->str_cache);
}

/* The strings of profile p from now on (each profile has its own pool). */
static int table_profile(table *t, const ml_profile *p)
{
    for (size_t i = 0; i < t->n_cache; i++) Py_CLEAR(t->str_cache[i]);
    free(t->str_cache);
    t->n_cache = ml_strpool_count(p->strings);
    t->str_cache = calloc(t->n_cache ? t->n_cache : 1, sizeof *t->str_cache);
    t->p = p;
    if (!t->str_cache) {
        t->n_cache = 0;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int put_i(table *t, int c, int64_t v)
{
    column *col = &t->col[c];
    if (col->n == col->cap) {
        size_t cap = col->cap ? col->cap * 2 : 4096;
        int64_t *nv = realloc(col->v, cap * sizeof *nv);
        if (!nv) {
            PyErr_NoMemory();
            return -1;
        }
        col->v = nv, col->cap = cap;
    }
    col->v[col->n++] = v;
    return 0;
}

/* Appends a new reference (NULL: an error is set) to object column c. */
static int put_o(table *t, int c, PyObject *v)
{
    if (!v) return -1;
    int rc = PyList_Append(t->col[c].list, v);
    Py_DECREF(v);
    return rc;
}

/* A new reference to the text of s (None for 0), decoded once per profile. */
static PyObject *str_of(table *t, ml_str s)
{
    if (!s) Py_RETURN_NONE;
    if (s < t->n_cache && t->str_cache[s]) return Py_NewRef(t->str_cache[s]);
    PyObject *v = PyUnicode_DecodeUTF8(ml_s(t->p, s), (Py_ssize_t)ml_strlen(t->p->strings, s), "replace");
    if (v && s < t->n_cache) t->str_cache[s] = Py_NewRef(v);
    return v;
}

static PyObject *cstr_of(table *t, const char *s) { return PyUnicode_FromString(s); }

static PyObject *thread_of(table *t, uint32_t th)
{
    const ml_profile *p = t->p;
    if (th == ML_NONE32 || th >= p->thread_tid.len) Py_RETURN_NONE;
    return str_of(t, p->thread_tid.v[th]);
}

static int64_t time_or_na(int64_t v) { return v == ML_TIME_END ? ML_NA : v; } /* ML_TIME_NONE is ML_NA */

static int operators(table *t, const ml_profile *p)
{
    const ml_ops *o = &p->ops;
    static const char *const kinds[] = {"cpu_op", "annotation", "python", "other"};
    PyObject *kind[4] = {NULL};
    int rc = 0;
    for (int k = 0; k < 4 && rc == 0; k++) rc = (kind[k] = cstr_of(t, kinds[k])) ? 0 : -1;
    for (size_t i = 0; i < o->ts.len && rc == 0; i++) {
        unsigned k = o->kind.v[i] < 4 ? o->kind.v[i] : 3;
        rc = put_i(t, 0, p->rank) || put_o(t, 1, str_of(t, o->name.v[i])) || put_i(t, 2, o->ts.v[i]) ||
             put_i(t, 3, o->dur.v[i]) || put_o(t, 4, thread_of(t, o->thread.v[i])) ||
             put_o(t, 5, Py_NewRef(kind[k]))
                 ? -1 : 0;
    }
    for (int k = 0; k < 4; k++) Py_XDECREF(kind[k]);
    return rc;
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
        if (put_i(t, 0, p->rank) || put_o(t, 1, str_of(t, s->name.v[i])) || put_i(t, 2, s->ts.v[i]) ||
            put_i(t, 3, ml_slice_dur(s, i)) || put_o(t, 4, cstr_of(t, ml_slice_kind_name(k))) ||
            put_i(t, 5, ki ? ki->device : ML_NA) || put_i(t, 6, ki ? ki->stream : ML_NA) ||
            put_i(t, 7, ml_slice_corr(s, i) >= 0 ? ml_slice_corr(s, i) : ML_NA))
            return -1;
    }
    return 0;
}

/* Every allocation, or (live) those live at time `at`: allocated at or
 * before it (or before the trace), freed after it (or never). */
static int allocations(table *t, const ml_profile *p, bool live, int64_t at)
{
    const ml_allocs *a = &p->allocs;
    size_t n = a->size.len;
    PyObject **dev = calloc(p->devices.len ? p->devices.len : 1, sizeof *dev);
    PyObject *cats[256] = {NULL};
    if (!dev) {
        PyErr_NoMemory();
        return -1;
    }
    int rc = 0;
    for (size_t d = 0; d < p->devices.len && rc == 0; d++) rc = (dev[d] = cstr_of(t, p->devices.v[d].id)) ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int64_t ta = a->t_alloc.v[i], tf = a->t_free.v[i];
        if (live && !((ta == ML_TIME_NONE || ta <= at) && tf > at)) continue;
        uint16_t d = a->device.len ? a->device.v[i] : 0;
        ml_str op = a->op.len ? a->op.v[i] : 0, top = a->op_top.len ? a->op_top.v[i] : 0;
        uint8_t cat = a->category.len ? a->category.v[i] : 0;
        if (!cats[cat] && !(cats[cat] = cstr_of(t, ml_category_name(cat)))) rc = -1;
        else rc = put_i(t, 0, p->rank) ||
                  put_o(t, 1, d < p->devices.len ? Py_NewRef(dev[d]) : cstr_of(t, "?")) ||
                  put_i(t, 2, a->size.v[i]) || put_i(t, 3, a->addr.len ? (int64_t)a->addr.v[i] : ML_NA) ||
                  put_i(t, 4, time_or_na(ta)) || put_i(t, 5, time_or_na(tf)) || put_o(t, 6, str_of(t, op)) ||
                  put_o(t, 7, str_of(t, top)) || put_o(t, 8, Py_NewRef(cats[cat]))
                      ? -1 : 0;
    }
    for (size_t d = 0; d < p->devices.len; d++) Py_XDECREF(dev[d]);
    free(dev);
    for (int c = 0; c < 256; c++) Py_XDECREF(cats[c]);
    return rc;
}

/* {name: bytes of int64 | list}, in column order. */
static PyObject *table_dict(table *t)
{
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < t->n_cols; i++) {
        column *c = &t->col[i];
        PyObject *v = c->ints ? PyBytes_FromStringAndSize((const char *)c->v, (Py_ssize_t)(c->n * sizeof *c->v))
                              : Py_NewRef(c->list);
        if (!v || PyDict_SetItemString(d, c->name, v) < 0) Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

static PyObject *py_table(PyObject *self, PyObject *args)
{
    PyObject *cap;
    const char *name;
    long long at = 0;
    if (!PyArg_ParseTuple(args, "Os|L", &cap, &name, &at)) return NULL;
    ml_profiles *ps = PyCapsule_GetPointer(cap, CAPSULE);
    if (!ps) return NULL;
    static const char *const op_cols[] = {"irank", "sname", "its_ns", "idur_ns", "sthread", "skind", NULL};
    static const char *const k_cols[] = {"irank", "sname", "its_ns", "idur_ns", "skind", "idevice", "istream",
                                         "icorrelation", NULL};
    static const char *const a_cols[] = {"irank", "sdevice", "isize", "iaddr", "it_alloc_ns", "it_free_ns", "sop",
                                         "sop_top", "scategory", NULL};
    int which = !strcmp(name, "operators") ? 0 : !strcmp(name, "kernels") ? 1 : !strcmp(name, "allocations") ? 2
              : !strcmp(name, "live_at") ? 3 : -1;
    if (which < 0) return PyErr_Format(PyExc_ValueError, "no table %s", name);
    table t;
    PyObject *out = NULL;
    if (table_init(&t, which == 0 ? op_cols : which == 1 ? k_cols : a_cols) == 0) {
        int rc = 0;
        for (size_t i = 0; i < ps->items.len && rc == 0; i++) {
            const ml_profile *p = ps->items.v[i];
            rc = table_profile(&t, p);
            if (rc == 0) rc = which == 0 ? operators(&t, p) : which == 1 ? kernels(&t, p)
                                                                          : allocations(&t, p, which == 3, at);
        }
        if (rc == 0) out = table_dict(&t);
    }
    table_free(&t);
    return out;
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
