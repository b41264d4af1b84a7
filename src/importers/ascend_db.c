/* ascend_db.c — torch_npu's SQLite export ascend_pytorch_profiler_{rank}.db
 * (format "ascend-db").  Opened read-only through libsqlite3; the tables map
 * onto the model exactly as the CSV files do (ascend.h): times are already
 * ns and sizes bytes, names come from STRING_IDS and ENUM_MODULE. */
#include "ascend.h"
#include "csv.h"
#include "decimal.h"
#include "importer.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct db_ctx {
    sqlite3 *db;
    const char *path;
    ml_profile *p;
    ml_err *e;
    bool ge_active;          /* MEMORY_RECORD has a GE Total Active that is not all zeros */
    int64_t only_frees;      /* NPU_MODULE_MEM samples of -1 */
    ml_ascend_bad_sizes bad_sizes; /* OP_MEMORY rows skipped */
    int64_t unnamed_ops;     /* OP_MEMORY rows whose name id is not in STRING_IDS */
    long long unnamed_first_row, unnamed_first_id;
} db_ctx;

static int db_fail(db_ctx *d, const char *what)
{
    int code = d->db ? sqlite3_errcode(d->db) : SQLITE_CANTOPEN;
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
        return ml_fail(d->e, "%s: %s: database is locked by another process (is the profiler still writing it?)",
                       d->path, what);
    return ml_fail(d->e, "%s: %s: %s", d->path, what, d->db ? sqlite3_errmsg(d->db) : "cannot open");
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static bool has_table(db_ctx *d, const char *name)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1,
                           &st, NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

/* Column col of the current row as an exact int64.  *null is set for NULL
 * (pass null = NULL to make NULL an error).  Integers, integral reals and
 * text that is exactly an integer ("12", "12.0") are accepted. */
static int col_i64(db_ctx *d, sqlite3_stmt *st, const char *table, int col, int64_t *out, bool *null)
{
    *out = 0;
    if (null) *null = false;
    int type = sqlite3_column_type(st, col);
    const char *name = sqlite3_column_name(st, col);
    long long rowid = sqlite3_column_int64(st, 0);
    if (type == SQLITE_NULL) {
        if (null) {
            *null = true;
            return 0;
        }
        return ml_fail(d->e, "%s: table %s: row %lld: column %s is NULL", d->path, table, rowid, name);
    }
    if (type == SQLITE_INTEGER) {
        *out = sqlite3_column_int64(st, col);
        return 0;
    }
    if (type == SQLITE_FLOAT) {
        double v = sqlite3_column_double(st, col);
        if (v >= -9.2e18 && v <= 9.2e18 && v == (double)(int64_t)v) {
            *out = (int64_t)v;
            return 0;
        }
    } else {
        const char *s = (const char *)sqlite3_column_text(st, col);
        int n = sqlite3_column_bytes(st, col);
        if (s && ml_parse_integral(s, (size_t)n, out) == 0) return 0;
    }
    return ml_fail(d->e, "%s: table %s: row %lld: column %s: '%.40s' is not an integer", d->path, table,
                   rowid, name, (const char *)sqlite3_column_text(st, col));
}

/* col_i64, then the value must be real (ml_ascend_bad_value), as in the CSV reader. */
static int col_value(db_ctx *d, sqlite3_stmt *st, const char *table, int col, int64_t *out, bool *null,
                     ml_ascend_value kind)
{
    if (col_i64(d, st, table, col, out, null)) return -1;
    const char *why = null && *null ? NULL : ml_ascend_bad_value(*out, kind);
    if (!why) return 0;
    return ml_fail(d->e, "%s: table %s: row %lld: column %s: %lld is out of range: %s", d->path, table,
                   (long long)sqlite3_column_int64(st, 0), sqlite3_column_name(st, col), (long long)*out, why);
}

static ml_str col_str(db_ctx *d, sqlite3_stmt *st, int col)
{
    const char *s = (const char *)sqlite3_column_text(st, col);
    int n = sqlite3_column_bytes(st, col);
    return s && n > 0 ? ml_intern(d->p->strings, s, (size_t)n) : 0;
}

static int device_of(db_ctx *d, const char *table, sqlite3_stmt *st, int col, uint16_t *dev)
{
    int64_t id;
    if (col_i64(d, st, table, col, &id, NULL)) return -1;
    if (id < 0 || id > 65535)
        return ml_fail(d->e, "%s: table %s: row %lld: deviceId %lld is not a device number", d->path, table,
                       (long long)sqlite3_column_int64(st, 0), (long long)id);
    *dev = ml_device_get(d->p, ML_DEV_NPU, (int)id);
    return 0;
}

/* Runs sql; row() is called for each result row.  Column 0 must be the rowid.
 * A table without rows adds a note naming it. */
static int each_row(db_ctx *d, const char *table, const char *sql,
                    int (*row)(db_ctx *, const char *, sqlite3_stmt *))
{
    char what[64];
    snprintf(what, sizeof what, "table %s", table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) return db_fail(d, what);
    int rc;
    int64_t rows = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        if (row(d, table, st)) {
            sqlite3_finalize(st);
            return -1;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(d, what);
    if (!rows) ml_note(d->p, "%s: table %s has no rows", base_name(d->path), table);
    return 0;
}

/* ---- tables ---- */

static int memory_record_row(db_ctx *d, const char *table, sqlite3_stmt *st)
{
    int64_t t, a, r, x, stream;
    bool na, nr, nx, ns;
    uint16_t dev;
    if (col_value(d, st, table, 2, &t, NULL, ML_ASCEND_TIME) || col_value(d, st, table, 3, &a, &na, ML_ASCEND_SIZE) ||
        col_value(d, st, table, 4, &r, &nr, ML_ASCEND_SIZE) || col_value(d, st, table, 5, &x, &nx, ML_ASCEND_SIZE) ||
        col_i64(d, st, table, 6, &stream, &ns) || device_of(d, table, st, 7, &dev))
        return -1;
    ml_str comp = col_str(d, st, 1);
    if (!comp)
        return ml_fail(d->e, "%s: table %s: row %lld: component has no name in STRING_IDS", d->path, table,
                       (long long)sqlite3_column_int64(st, 0));
    if (!d->ge_active && comp == ml_intern_cstr(d->p->strings, "GE")) nx = true; /* as blank as in the text */
    char sbuf[24];
    ml_str s = 0;
    if (!ns) { /* the text export writes the pointer in decimal: name it the same way */
        snprintf(sbuf, sizeof sbuf, "%lld", (long long)stream);
        s = ml_intern_cstr(d->p->strings, sbuf);
    }
    ml_ascend_record(d->p, dev, comp, s, t, na ? NULL : &a, nr ? NULL : &r, nx ? NULL : &x);
    return 0;
}

/* A GE operator's name as operator_memory.csv writes it: torch_npu prefixes
 * "cann::" in the text export only.  GE rows are the ones without a stream. */
static ml_str ge_op_name(db_ctx *d, sqlite3_stmt *st, int col)
{
    const char *s = (const char *)sqlite3_column_text(st, col);
    int n = sqlite3_column_bytes(st, col);
    if (!s || n <= 0) return 0;
    if (n >= 6 && !memcmp(s, "cann::", 6)) return ml_intern(d->p->strings, s, (size_t)n);
    char *full = ml_malloc((size_t)n + 7);
    memcpy(full, "cann::", 6);
    memcpy(full + 6, s, (size_t)n);
    ml_str r = ml_intern(d->p->strings, full, (size_t)n + 6);
    free(full);
    return r;
}

static int op_memory_row(db_ctx *d, const char *table, sqlite3_stmt *st)
{
    ml_alloc_row row;
    memset(&row, 0, sizeof row);
    int64_t tact, stream;
    bool nrel, nact, ns;
    if (col_i64(d, st, table, 2, &row.size, NULL) || col_value(d, st, table, 3, &row.t_alloc, NULL, ML_ASCEND_TIME) ||
        col_value(d, st, table, 4, &row.t_free, &nrel, ML_ASCEND_TIME) ||
        col_value(d, st, table, 5, &tact, &nact, ML_ASCEND_TIME) ||
        col_i64(d, st, table, 6, &stream, &ns) || device_of(d, table, st, 7, &row.device))
        return -1;
    if (!ml_ascend_size_ok(row.size)) {
        if (!d->bad_sizes.n++)
            snprintf(d->bad_sizes.first, sizeof d->bad_sizes.first, "row %lld, size %lld",
                     (long long)sqlite3_column_int64(st, 0), (long long)row.size);
        return 0;
    }
    if (sqlite3_column_type(st, 1) == SQLITE_NULL && sqlite3_column_type(st, 8) != SQLITE_NULL) {
        if (!d->unnamed_ops++) {
            d->unnamed_first_row = (long long)sqlite3_column_int64(st, 0);
            d->unnamed_first_id = (long long)sqlite3_column_int64(st, 8);
        }
    }
    if (nrel) {
        row.t_free = ML_TIME_END;
        row.flags = ML_ALLOC_NEVER_FREED;
    }
    row.t_free_req = nact ? row.t_free : tact;
    row.op = row.op_top = ns ? ge_op_name(d, st, 1) : col_str(d, st, 1);
    if (!ns) {
        char sbuf[24];
        snprintf(sbuf, sizeof sbuf, "%lld", (long long)stream);
        row.stream = ml_intern_cstr(d->p->strings, sbuf);
    }
    row.ev_alloc = row.ev_free = row.thread = ML_NONE32;
    ml_alloc_push(d->p, &row);
    return 0;
}

static int npu_mem_row(db_ctx *d, const char *table, sqlite3_stmt *st)
{
    int64_t t, hbm, ddr;
    bool nh, nd;
    uint16_t dev;
    if (col_value(d, st, table, 2, &t, NULL, ML_ASCEND_TIME) || col_value(d, st, table, 3, &hbm, &nh, ML_ASCEND_SIZE) ||
        col_value(d, st, table, 4, &ddr, &nd, ML_ASCEND_SIZE) || device_of(d, table, st, 5, &dev))
        return -1;
    const char *type = (const char *)sqlite3_column_text(st, 1);
    int64_t v = hbm + ddr; /* each below 2^62: no overflow */
    if (ml_ascend_bad_value(v, ML_ASCEND_SIZE))
        return ml_fail(d->e, "%s: table %s: row %lld: hbm + ddr is out of range: %s", d->path, table,
                       (long long)sqlite3_column_int64(st, 0), ml_ascend_bad_value(v, ML_ASCEND_SIZE));
    if (nh && nd) return 0;
    if (type && strcmp(type, "app") == 0) {
        ml_series_push(ml_series_get(d->p, dev, ML_SERIES_APP_RESERVED, 0, 0), t, v);
    } else if (type && strcmp(type, "device") == 0) {
        ml_str devc = ml_intern_cstr(d->p->strings, "DEVICE");
        ml_series_push(ml_series_get(d->p, dev, ML_SERIES_OTHER, devc, 0), t, v);
    }
    return 0;
}

static int module_mem_row(db_ctx *d, const char *table, sqlite3_stmt *st)
{
    int64_t t, v, id;
    bool nv;
    uint16_t dev;
    if (col_i64(d, st, table, 2, &id, NULL) || col_value(d, st, table, 3, &t, NULL, ML_ASCEND_TIME) ||
        col_value(d, st, table, 4, &v, &nv, ML_ASCEND_LEVEL) || device_of(d, table, st, 5, &dev))
        return -1;
    if (nv) return 0;
    if (ml_ascend_only_frees(v, 1)) { /* -1, as bytes or as -1 KB: skipped as the CSV reader does */
        d->only_frees++;
        return 0;
    }
    ml_str name = col_str(d, st, 1);
    if (!name) {
        char buf[32];
        snprintf(buf, sizeof buf, "module %lld", (long long)id);
        name = ml_intern_cstr(d->p->strings, buf);
    }
    ml_series_push(ml_series_get(d->p, dev, ML_SERIES_OTHER, name, 0), t, v);
    return 0;
}

static int rank_row(db_ctx *d, const char *table, sqlite3_stmt *st)
{
    int64_t rank;
    if (col_i64(d, st, table, 1, &rank, NULL)) return -1;
    if (d->p->rank < 0 && rank >= 0 && rank < 1000000) d->p->rank = (int)rank;
    return 0;
}

/* "file:" URI of path for sqlite3_open_v2 with SQLITE_OPEN_URI: every byte
 * but unreserved ones and '/' percent-encoded (%, ?, #, non-ASCII ...); an
 * absolute path gets an empty authority ("file:///..."), so that "//x" stays a
 * path.  The caller frees it. */
static char *file_uri(const char *path, const char *query)
{
    size_t n = strlen(path), cap = 8 + 3 * n + strlen(query) + 1, w = 0;
    char *u = ml_malloc(cap);
    w += (size_t)snprintf(u, cap, "file:%s", path[0] == '/' ? "//" : "");
    for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
            strchr("-._~/", *s))
            u[w++] = (char)*s;
        else
            w += (size_t)snprintf(u + w, cap - w, "%%%02X", *s);
    }
    snprintf(u + w, cap - w, "%s", query);
    return u;
}

/* Whether path + suffix exists with at least min bytes. */
static bool side_file(const char *path, const char *suffix, off_t min)
{
    size_t n = strlen(path) + strlen(suffix) + 1;
    char *f = ml_malloc(n);
    snprintf(f, n, "%s%s", path, suffix);
    struct stat st;
    bool yes = stat(f, &st) == 0 && st.st_size >= min;
    free(f);
    return yes;
}

/* A finished export never changes while it is read, so it is opened
 * immutable: SQLite then takes no locks and creates nothing beside the user's
 * file (a WAL-mode db would otherwise get -wal and -shm files, and could not
 * be opened in a read-only directory).  Only where a writer has left its
 * traces (a -journal, or a -wal with frames in it) is it opened as a plain
 * read-only connection, so that SQLite honours the writer's lock and reads
 * what the WAL holds. */
static int open_db(db_ctx *d)
{
    struct stat st;
    if (stat(d->path, &st) < 0)
        return ml_fail(d->e, "%s: cannot open as SQLite: %s", d->path, strerror(errno));
    if (S_ISREG(st.st_mode) && st.st_size == 0)
        return ml_fail(d->e, "%s: empty file, not an SQLite database", d->path);
    bool writer = side_file(d->path, "-journal", 0) || side_file(d->path, "-wal", 1);
    char *uri = file_uri(d->path, writer ? "?mode=ro" : "?mode=ro&immutable=1");
    int rc = sqlite3_open_v2(uri, &d->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK) return db_fail(d, "cannot open as SQLite");
    sqlite3_busy_timeout(d->db, 500); /* a profiler still writing: wait a little, then say "locked" */
    return 0;
}

/* Whether MEMORY_RECORD has a GE Total Active other than 0: torch_npu writes 0
 * in every GE row of the db where the text export leaves the cell blank. */
static bool ge_active_known(db_ctx *d)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db,
                           "SELECT 1 FROM MEMORY_RECORD m JOIN STRING_IDS s ON s.id = m.component "
                           "WHERE s.value = 'GE' AND m.totalActive IS NOT NULL AND m.totalActive != 0 LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return true; /* the row reader reports what is wrong */
    bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

int ml_ascend_db_add(const char *path, ml_profile *p, ml_err *e)
{
    db_ctx d = {.db = NULL, .path = path, .p = p, .e = e, .ge_active = true};
    int rc = -1;
    if (open_db(&d)) goto out;
    bool rec = false, ops = false, mem = false;
    /* A first statement also tells a non-database file ("file is not a database"). */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d.db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        db_fail(&d, "not a readable SQLite database");
        sqlite3_finalize(st);
        goto out;
    }
    sqlite3_finalize(st);
    bool strings = has_table(&d, "STRING_IDS");
    rec = strings && has_table(&d, "MEMORY_RECORD");
    ops = strings && has_table(&d, "OP_MEMORY");
    mem = strings && has_table(&d, "NPU_MEM");
    if (!rec && !ops && !mem) {
        ml_fail(e, "%s: no Ascend memory tables (MEMORY_RECORD, OP_MEMORY, NPU_MEM with STRING_IDS): "
                   "was the profile taken with profile_memory=True?", path);
        goto out;
    }
    d.ge_active = rec && ge_active_known(&d);
    if (rec && each_row(&d, "MEMORY_RECORD",
                        "SELECT m.rowid, s.value, m.timestamp, m.totalAllocated, m.totalReserved, "
                        "m.totalActive, m.streamPtr, m.deviceId FROM MEMORY_RECORD m "
                        "LEFT JOIN STRING_IDS s ON s.id = m.component ORDER BY m.rowid",
                        memory_record_row))
        goto out;
    /* NPU_MEM "app" is memory_record.csv's APP rows; only one of them is kept. */
    if (mem && !ml_ascend_has_app(p) &&
        each_row(&d, "NPU_MEM",
                 "SELECT m.rowid, s.value, m.timestampNs, m.hbm, m.ddr, m.deviceId FROM NPU_MEM m "
                 "LEFT JOIN STRING_IDS s ON s.id = m.type ORDER BY m.rowid",
                 npu_mem_row))
        goto out;
    if (ops && each_row(&d, "OP_MEMORY",
                        "SELECT o.rowid, s.value, o.size, o.allocationTime, o.releaseTime, "
                        "o.activeReleaseTime, o.streamPtr, o.deviceId, o.name FROM OP_MEMORY o "
                        "LEFT JOIN STRING_IDS s ON s.id = o.name ORDER BY o.rowid",
                        op_memory_row))
        goto out;
    if (ops) {
        ml_ascend_note_bad_sizes(p, "OP_MEMORY", &d.bad_sizes);
        if (d.unnamed_ops)
            ml_note(p, "OP_MEMORY: %lld operator allocation%s name an id missing from STRING_IDS (first: row %lld, "
                       "name %lld): shown as (no operator)", (long long)d.unnamed_ops, d.unnamed_ops == 1 ? "" : "s",
                    d.unnamed_first_row, d.unnamed_first_id);
    }
    if (has_table(&d, "NPU_MODULE_MEM")) {
        const char *sql = has_table(&d, "ENUM_MODULE")
            ? "SELECT n.rowid, e.name, n.moduleId, n.timestampNs, n.totalReserved, n.deviceId "
              "FROM NPU_MODULE_MEM n LEFT JOIN ENUM_MODULE e ON e.id = n.moduleId ORDER BY n.rowid"
            : "SELECT rowid, NULL, moduleId, timestampNs, totalReserved, deviceId "
              "FROM NPU_MODULE_MEM ORDER BY rowid";
        if (each_row(&d, "NPU_MODULE_MEM", sql, module_mem_row)) goto out;
        ml_ascend_note_only_frees(p, d.only_frees);
    }
    if (has_table(&d, "RANK_DEVICE_MAP") &&
        each_row(&d, "RANK_DEVICE_MAP", "SELECT rowid, rankId FROM RANK_DEVICE_MAP ORDER BY rowid LIMIT 1",
                 rank_row))
        goto out;
    p->time_is_absolute = true;
    rc = 0;
out:
    sqlite3_close(d.db);
    return rc;
}

int ml_ascend_db_sniff(const char *path, const unsigned char *head, size_t n)
{
    return n >= 16 && memcmp(head, "SQLite format 3", 16) == 0 ? 80 : 0;
}

int ml_ascend_db_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e)
{
    ml_ascend_caps(p);
    if (strcmp(ml_source_name(src), "<stdin>") == 0)
        return ml_fail(e, "<stdin>: an Ascend SQLite export must be read from a file, not stdin");
    if (ml_source_is_gzip(src))
        return ml_fail(e, "%s: a gzipped SQLite file cannot be read in place; gunzip it first",
                       ml_source_name(src));
    if ((!p->trace || ml_ascend_db_has_memory(ml_source_name(src))) && ml_ascend_db_add(ml_source_name(src), p, e))
        return -1;
    if (ml_ascend_db_time(ml_source_name(src), p, e)) return -1; /* ascend_db_time.c */
    ml_ascend_overall(p);
    ml_profile_finish_keep(p, keep);
    return 0;
}
