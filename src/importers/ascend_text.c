/* ascend_text.c — torch_npu's CSV memory files (format "ascend-text"); the
 * mapping onto the model is described in ascend.h. */
#include "ascend.h"
#include "csv.h"
#include "decimal.h"
#include "devkind.h"
#include "importer.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The first line of head, without a BOM, as a NUL-terminated copy. */
static void first_line(const unsigned char *head, size_t n, char *out, size_t cap)
{
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) head += 3, n -= 3;
    size_t k = 0;
    while (k < n && k + 1 < cap && head[k] != '\n' && head[k] != '\r') {
        out[k] = (char)head[k];
        k++;
    }
    out[k] = 0;
}

/* Whether the header line has a cell equal to name (spaces, tabs and quotes
 * around a cell ignored).  Whole cells: "Device" is not "Device Type". */
static bool has_col(const char *line, const char *name)
{
    size_t want = strlen(name);
    for (const char *s = line;;) {
        const char *end = strchr(s, ',');
        if (!end) end = s + strlen(s);
        while (s < end && (*s == ' ' || *s == '\t' || *s == '"')) s++;
        const char *e = end;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '"')) e--;
        if ((size_t)(e - s) == want && memcmp(s, name, want) == 0) return true;
        if (!*end) return false;
        s = end + 1;
    }
}

ml_ascend_file ml_ascend_file_kind(const unsigned char *head, size_t n)
{
    char line[1024];
    first_line(head, n, line, sizeof line);
    if (has_col(line, "Node Index Start") && has_col(line, "Op Name") && has_col(line, "Size(KB)"))
        return ML_ASCEND_STATIC_OP_MEM;
    if (has_col(line, "Allocation Time(us)") && has_col(line, "Size(KB)") && has_col(line, "Name"))
        return ML_ASCEND_OPERATOR_MEMORY;
    if (!has_col(line, "Component") || !has_col(line, "Timestamp(us)")) return ML_ASCEND_UNKNOWN;
    /* memory_record names the allocator's device "Device Type" and has streams;
     * npu_module_mem has "Device".  msprof's memory_record has "Device" too, but
     * also Total Allocated, which npu_module_mem never has. */
    if (has_col(line, "Device Type") || has_col(line, "Stream Ptr") || has_col(line, "Total Allocated(MB)") ||
        has_col(line, "Total Allocated(KB)"))
        return ML_ASCEND_MEMORY_RECORD;
    if (has_col(line, "Device")) return ML_ASCEND_MODULE_MEM;
    return ML_ASCEND_UNKNOWN;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

ml_ascend_file ml_ascend_file_kind_by_name(const char *path)
{
    static const struct { const char *stem; ml_ascend_file kind; } names[] = {
        {"memory_record", ML_ASCEND_MEMORY_RECORD},
        {"operator_memory", ML_ASCEND_OPERATOR_MEMORY},
        {"npu_module_mem", ML_ASCEND_MODULE_MEM},
        {"static_op_mem", ML_ASCEND_STATIC_OP_MEM},
    };
    const char *b = base_name(path);
    size_t n = strlen(b);
    if (n > 3 && !strcmp(b + n - 3, ".gz")) n -= 3;
    if (n < 4 || strncmp(b + n - 4, ".csv", 4)) return ML_ASCEND_UNKNOWN;
    n -= 4;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t k = strlen(names[i].stem);
        /* torch_npu writes NAME.csv; msprof NAME_<timestamp>.csv */
        if (n >= k && !strncmp(b, names[i].stem, k) && (n == k || b[k] == '_')) return names[i].kind;
    }
    return ML_ASCEND_UNKNOWN;
}

/* ---- cells ---- */

/* "NPU:3" (any case) or "3" -> npu:3. */
static int device_cell(ml_csv *c, int col, ml_profile *p, uint16_t *dev, ml_err *e)
{
    size_t n;
    const char *s = ml_csv_cell(c, col, &n);
    const char *d = s;
    if (n > 4 && strncasecmp(s, "npu:", 4) == 0) d = s + 4;
    size_t nd = n - (size_t)(d - s);
    int64_t idx;
    if (nd == 0 || nd > 5 || strspn(d, "0123456789") != nd || ml_parse_i64(d, nd, &idx) || idx > 65535)
        return ml_fail(e, "%s: line %llu: column '%s': '%.40s' is not a device like NPU:0",
                       ml_csv_name(c), (unsigned long long)ml_csv_line(c), ml_csv_header(c, col), s);
    *dev = ml_device_get(p, ML_DEV_NPU, (int)idx);
    return 0;
}

/* A time or size cell (ml_csv_scaled) that must also be real (ml_ascend_bad_value). */
static int value_cell(ml_csv *c, int col, int64_t mul, int64_t *out, bool *blank, ml_ascend_value kind, ml_err *e)
{
    if (ml_csv_scaled(c, col, mul, out, blank, e)) return -1;
    const char *why = blank && *blank ? NULL : ml_ascend_bad_value(*out, kind);
    if (!why) return 0;
    size_t n;
    const char *s = ml_csv_cell(c, col, &n);
    return ml_fail(e, "%s: line %llu: column '%s': '%.*s' is out of range: %s", ml_csv_name(c),
                   (unsigned long long)ml_csv_line(c), ml_csv_header(c, col), (int)(n > 40 ? 40 : n), s, why);
}

static ml_str str_cell(ml_csv *c, int col, ml_profile *p)
{
    size_t n;
    const char *s = ml_csv_cell(c, col, &n);
    return n ? ml_intern(p->strings, s, n) : 0;
}

static int need_text(ml_csv *c, int col, ml_err *e)
{
    size_t n;
    ml_csv_cell(c, col, &n);
    if (n == 0)
        return ml_fail(e, "%s: line %llu: column '%s' is empty", ml_csv_name(c),
                       (unsigned long long)ml_csv_line(c), ml_csv_header(c, col));
    return 0;
}

/* "Device Type" in memory_record/operator_memory, "Device" in npu_module_mem. */
static int device_col(ml_csv *c, int *col, ml_err *e)
{
    *col = ml_csv_col(c, "Device Type");
    if (*col < 0) *col = ml_csv_col(c, "Device");
    if (*col < 0) return ml_csv_need(c, "Device Type", col, e);
    return 0;
}

/* A size column in MB (torch_npu) or KB (CANN's msprof): its index and the
 * bytes per unit.  A missing required column is reported by its MB name. */
static int size_col(ml_csv *c, const char *base, bool required, int *col, int64_t *unit, ml_err *e)
{
    char mb[64], kb[64];
    snprintf(mb, sizeof mb, "%s(MB)", base);
    snprintf(kb, sizeof kb, "%s(KB)", base);
    *unit = ML_MIB;
    if ((*col = ml_csv_col(c, mb)) >= 0) return 0;
    if ((*col = ml_csv_col(c, kb)) >= 0) {
        *unit = ML_KIB;
        return 0;
    }
    return required ? ml_csv_need(c, mb, col, e) : 0;
}

static void push_point(ml_profile *p, uint16_t dev, ml_series_kind kind, ml_str comp, ml_str stream,
                       int64_t t, int64_t v)
{
    /* Looked up per push: ml_series_get may move the series table. */
    ml_series_push(ml_series_get(p, dev, kind, comp, 0), t, v);
    if (stream) ml_series_push(ml_series_get(p, dev, kind, comp, stream), t, v);
}

void ml_ascend_record(ml_profile *p, uint16_t dev, ml_str comp, ml_str stream, int64_t t,
                      const int64_t *allocated, const int64_t *reserved, const int64_t *active)
{
    if (comp == ml_intern_cstr(p->strings, "APP")) {
        if (reserved) ml_series_push(ml_series_get(p, dev, ML_SERIES_APP_RESERVED, 0, 0), t, *reserved);
        return;
    }
    if (allocated) push_point(p, dev, ML_SERIES_ALLOCATED, comp, stream, t, *allocated);
    if (reserved) push_point(p, dev, ML_SERIES_RESERVED, comp, stream, t, *reserved);
    if (active) push_point(p, dev, ML_SERIES_ACTIVE, comp, stream, t, *active);
}

void ml_ascend_caps(ml_profile *p)
{
    p->caps.devkind = ML_DK_NPU;
    p->caps.insight_names = true;
    p->caps.memory_first = true;
}

void ml_ascend_overall(ml_profile *p)
{
    if (ml_allocs_count(p) && !p->time_is_event_order)
        ml_note(p, "operator_memory lists the allocations operators made in the profiling window; the rest of "
                   "Total Allocated at the peak is shown as (allocated before trace)");
    static const char *prefer[] = {"PTA+GE", "PTA"};
    static const ml_series_kind kinds[] = {ML_SERIES_ALLOCATED, ML_SERIES_RESERVED, ML_SERIES_ACTIVE};
    for (size_t d = 0; d < p->devices.len; d++) {
        ml_str comp = 0;
        for (size_t k = 0; k < 2 && !comp; k++) {
            ml_str c = ml_intern_cstr(p->strings, prefer[k]);
            for (size_t i = 0; i < p->series.len && !comp; i++)
                if (p->series.v[i].device == d && p->series.v[i].component == c &&
                    p->series.v[i].kind == ML_SERIES_ALLOCATED && p->series.v[i].ts.len)
                    comp = c;
        }
        if (!comp) continue;
        for (size_t k = 0; k < 3; k++) {
            ml_series *dst = ml_series_get(p, (uint16_t)d, kinds[k], 0, 0); /* may move the table */
            if (dst->ts.len) continue;
            size_t src = p->series.len;
            for (size_t i = 0; i < p->series.len; i++)
                if (p->series.v[i].device == d && p->series.v[i].kind == kinds[k] &&
                    p->series.v[i].component == comp && p->series.v[i].stream == 0)
                    src = i;
            if (src == p->series.len) continue;
            dst = ml_series_get(p, (uint16_t)d, kinds[k], 0, 0);
            const ml_series *s = &p->series.v[src];
            for (size_t i = 0; i < s->ts.len; i++) ml_series_push(dst, s->ts.v[i], s->value.v[i]);
        }
    }
}

bool ml_ascend_has_app(const ml_profile *p)
{
    for (size_t i = 0; i < p->series.len; i++)
        if (p->series.v[i].kind == ML_SERIES_APP_RESERVED && p->series.v[i].ts.len) return true;
    return false;
}

/* ---- memory_record.csv ---- */

/* The readers return the number of rows read, or -1. */
static int64_t read_memory_record(ml_csv *c, ml_profile *p, ml_err *e)
{
    int ccomp, cts, calloc, cres, cact, cdev;
    int64_t ualloc, ures, uact;
    if (ml_csv_need(c, "Component", &ccomp, e) || ml_csv_need(c, "Timestamp(us)", &cts, e) ||
        size_col(c, "Total Allocated", true, &calloc, &ualloc, e) ||
        size_col(c, "Total Reserved", true, &cres, &ures, e) || size_col(c, "Total Active", false, &cact, &uact, e) ||
        device_col(c, &cdev, e))
        return -1;
    int cstream = ml_csv_col(c, "Stream Ptr");
    int r;
    int64_t rows = 0;
    while ((r = ml_csv_next(c, e)) > 0) {
        int64_t t, a, res, act;
        bool ba, br, bx;
        uint16_t dev;
        if (need_text(c, ccomp, e) || value_cell(c, cts, ML_US_TO_NS, &t, NULL, ML_ASCEND_TIME, e) ||
            device_cell(c, cdev, p, &dev, e) || value_cell(c, calloc, ualloc, &a, &ba, ML_ASCEND_SIZE, e) ||
            value_cell(c, cres, ures, &res, &br, ML_ASCEND_SIZE, e) ||
            value_cell(c, cact, uact, &act, &bx, ML_ASCEND_SIZE, e))
            return -1;
        ml_ascend_record(p, dev, str_cell(c, ccomp, p), str_cell(c, cstream, p), t, ba ? NULL : &a,
                         br ? NULL : &res, bx ? NULL : &act);
        rows++;
    }
    return r < 0 ? -1 : rows;
}

/* ---- operator_memory.csv ---- */

static int64_t read_operator_memory(ml_csv *c, ml_profile *p, ml_err *e)
{
    int cname, csize, calloc, crel, cdev;
    if (ml_csv_need(c, "Name", &cname, e) || ml_csv_need(c, "Size(KB)", &csize, e) ||
        ml_csv_need(c, "Allocation Time(us)", &calloc, e) ||
        ml_csv_need(c, "Release Time(us)", &crel, e) || device_col(c, &cdev, e))
        return -1;
    int cactrel = ml_csv_col(c, "Active Release Time(us)"), cstream = ml_csv_col(c, "Stream Ptr");
    int r;
    int64_t rows = 0;
    ml_ascend_bad_sizes bad = {0};
    while ((r = ml_csv_next(c, e)) > 0) {
        ml_alloc_row row;
        memset(&row, 0, sizeof row);
        bool brel, bact;
        int64_t tact;
        if (ml_csv_scaled(c, csize, ML_KIB, &row.size, NULL, e) ||
            value_cell(c, calloc, ML_US_TO_NS, &row.t_alloc, NULL, ML_ASCEND_TIME, e) ||
            value_cell(c, crel, ML_US_TO_NS, &row.t_free, &brel, ML_ASCEND_TIME, e) ||
            value_cell(c, cactrel, ML_US_TO_NS, &tact, &bact, ML_ASCEND_TIME, e) ||
            device_cell(c, cdev, p, &row.device, e))
            return -1;
        rows++;
        if (!ml_ascend_size_ok(row.size)) {
            size_t n;
            const char *cell = ml_csv_cell(c, csize, &n);
            if (!bad.n++)
                snprintf(bad.first, sizeof bad.first, "line %llu, Size(KB) %.*s",
                         (unsigned long long)ml_csv_line(c), (int)(n > 40 ? 40 : n), cell);
            continue;
        }
        if (brel) {
            row.t_free = ML_TIME_END;
            row.flags = ML_ALLOC_NEVER_FREED;
        }
        row.t_free_req = bact ? row.t_free : tact;
        row.op = row.op_top = str_cell(c, cname, p);
        row.stream = str_cell(c, cstream, p);
        row.ev_alloc = row.ev_free = row.thread = ML_NONE32;
        ml_alloc_push(p, &row);
    }
    ml_ascend_note_bad_sizes(p, "operator_memory.csv", &bad);
    return r < 0 ? -1 : rows;
}

/* ---- npu_module_mem.csv ---- */

static int64_t read_module_mem(ml_csv *c, ml_profile *p, ml_err *e)
{
    int ccomp, cts, cres, cdev;
    int64_t unit;
    if (ml_csv_need(c, "Component", &ccomp, e) || ml_csv_need(c, "Timestamp(us)", &cts, e) ||
        size_col(c, "Total Reserved", true, &cres, &unit, e) || device_col(c, &cdev, e))
        return -1;
    int r;
    int64_t rows = 0, only_frees = 0;
    while ((r = ml_csv_next(c, e)) > 0) {
        int64_t t, v;
        bool bv;
        uint16_t dev;
        if (need_text(c, ccomp, e) || value_cell(c, cts, ML_US_TO_NS, &t, NULL, ML_ASCEND_TIME, e) ||
            value_cell(c, cres, unit, &v, &bv, ML_ASCEND_LEVEL, e) || device_cell(c, cdev, p, &dev, e))
            return -1;
        rows++;
        if (bv) continue;
        if (ml_ascend_only_frees(v, unit)) {
            only_frees++;
            continue;
        }
        ml_series_push(ml_series_get(p, dev, ML_SERIES_OTHER, str_cell(c, ccomp, p), 0), t, v);
    }
    ml_ascend_note_only_frees(p, only_frees);
    return r < 0 ? -1 : rows;
}

/* ---- static_op_mem.csv ---- */

static int node_cell(ml_csv *c, int col, int64_t *out, ml_err *e)
{
    size_t n;
    const char *s = ml_csv_cell(c, col, &n);
    if (n == 0 || n > 12 || strspn(s, "0123456789") != n || ml_parse_i64(s, n, out))
        return ml_fail(e, "%s: line %llu: column '%s': '%.40s' is not a node index", ml_csv_name(c),
                       (unsigned long long)ml_csv_line(c), ml_csv_header(c, col), s);
    return 0;
}

#define NODE_TO_END 4294967295LL

static int64_t read_static_op_mem(ml_csv *c, ml_profile *p, ml_err *e)
{
    int cdev, cname, cmodel, cgraph, cstart, cend, csize;
    if (ml_csv_need(c, "Device_id", &cdev, e) || ml_csv_need(c, "Op Name", &cname, e) ||
        ml_csv_need(c, "Model Name", &cmodel, e) || ml_csv_need(c, "Graph ID", &cgraph, e) ||
        ml_csv_need(c, "Node Index Start", &cstart, e) || ml_csv_need(c, "Node Index End", &cend, e) ||
        ml_csv_need(c, "Size(KB)", &csize, e))
        return -1;
    p->format = "ascend-static";
    ml_ascend_caps(p);
    p->caps.static_graph = true;
    p->time_is_event_order = true;
    p->time_is_absolute = false;
    int r;
    int64_t rows = 0;
    bool host_noted = false;
    while ((r = ml_csv_next(c, e)) > 0) {
        rows++;
        int64_t start, end, size;
        if (need_text(c, cname, e) || node_cell(c, cstart, &start, e) || node_cell(c, cend, &end, e) ||
            value_cell(c, csize, ML_KIB, &size, NULL, ML_ASCEND_SIZE, e))
            return -1;
        size_t n;
        const char *d = ml_csv_cell(c, cdev, &n);
        int64_t idx;
        uint16_t dev;
        if (n && strspn(d, "0123456789") == n && n < 6 && ml_parse_i64(d, n, &idx) == 0) {
            dev = ml_device_get(p, ML_DEV_NPU, (int)idx);
        } else {
            dev = ml_device_get(p, ML_DEV_CPU, -1);
            if (!host_noted)
                ml_note(p, "static_op_mem: Device_id '%.40s' is not a device number; shown as cpu", d);
            host_noted = true;
        }
        char label[160];
        snprintf(label, sizeof label, "model %.60s graph %.60s", ml_csv_cell(c, cmodel, NULL),
                 ml_csv_cell(c, cgraph, NULL));
        ml_str graph = ml_intern_cstr(p->strings, label);
        const char *name = ml_csv_cell(c, cname, NULL);
        if (strcmp(name, "TOTAL") == 0) {
            ml_series_push(ml_series_get(p, dev, ML_SERIES_RESERVED, graph, 0), start, size);
            continue;
        }
        ml_alloc_row row;
        memset(&row, 0, sizeof row);
        row.t_alloc = start;
        row.t_free = row.t_free_req = end == NODE_TO_END ? ML_TIME_END : end + 1;
        row.flags = end == NODE_TO_END ? ML_ALLOC_NEVER_FREED : 0;
        row.size = size;
        row.device = dev;
        row.op = str_cell(c, cname, p);
        row.op_top = graph;
        row.ev_alloc = row.ev_free = row.thread = ML_NONE32;
        ml_alloc_push(p, &row);
    }
    return r < 0 ? -1 : rows;
}

/* ---- entry points ---- */

bool ml_ascend_size_ok(int64_t bytes) { return bytes >= 0 && bytes < ML_VALUE_LIMIT; }

const char *ml_ascend_bad_value(int64_t v, ml_ascend_value kind)
{
    if (kind == ML_ASCEND_TIME && v < 0) return "a negative time (before 1970) cannot be real";
    if (kind == ML_ASCEND_SIZE && v < 0) return "a negative size cannot be real";
    if (!ml_value_ok(v)) return kind == ML_ASCEND_TIME ? "a time of 2^62 ns or more cannot be real"
                                                       : "a size of 2^62 bytes or more cannot be real";
    return NULL;
}

void ml_ascend_note_bad_sizes(ml_profile *p, const char *what, const ml_ascend_bad_sizes *b)
{
    if (b->n)
        ml_note(p, "%s: %lld operator allocation%s with a negative or impossible size skipped (first: %s)", what,
                (long long)b->n, b->n == 1 ? "" : "s", b->first);
}

bool ml_ascend_only_frees(int64_t bytes, int64_t unit) { return bytes == -unit || bytes == -ML_KIB; }

void ml_ascend_note_only_frees(ml_profile *p, int64_t n)
{
    if (n)
        ml_note(p, "npu_module_mem: %lld sample%s of -1 (only frees seen) left out", (long long)n, n == 1 ? "" : "s");
}

int ml_ascend_csv_add(ml_source *src, ml_profile *p, ml_err *e)
{
    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, 4096, e);
    const char *name = ml_source_name(src);
    /* A known file name decides the kind, so that a file missing a column is
     * told so rather than read as another kind; other names go by the header. */
    ml_ascend_file kind = ml_ascend_file_kind_by_name(name);
    if (kind == ML_ASCEND_UNKNOWN) kind = ml_ascend_file_kind(head, n);
    if (kind == ML_ASCEND_UNKNOWN)
        return ml_fail(e, "%s: line 1: not an Ascend memory CSV (memory_record, operator_memory, "
                          "npu_module_mem or static_op_mem header expected)", name);
    ml_csv *c;
    if (ml_csv_open(src, &c, e)) return -1;
    int64_t rows = kind == ML_ASCEND_MEMORY_RECORD     ? read_memory_record(c, p, e)
                   : kind == ML_ASCEND_OPERATOR_MEMORY ? read_operator_memory(c, p, e)
                   : kind == ML_ASCEND_MODULE_MEM      ? read_module_mem(c, p, e)
                                                       : read_static_op_mem(c, p, e);
    ml_csv_close(c);
    if (rows < 0) return -1;
    if (rows == 0) ml_note(p, "%s: header only, no rows", base_name(name));
    if (kind != ML_ASCEND_STATIC_OP_MEM) p->time_is_absolute = true;
    return 0;
}

int ml_ascend_text_sniff(const char *path, const unsigned char *head, size_t n)
{
    if (ml_ascend_file_kind(head, n) != ML_ASCEND_UNKNOWN) return 90;
    /* memory_record.csv & co. whose header we cannot place (a column missing)
     * but that has some Ascend column: still ours, so that the error names
     * what is missing.  Another tool's CSV of that name is not. */
    static const char *cols[] = {"Component", "Timestamp(us)", "Name", "Size(KB)", "Op Name", "Device_id",
                                 "Device Type", "Device"};
    if (ml_ascend_file_kind_by_name(path) == ML_ASCEND_UNKNOWN) return 0;
    char line[1024];
    first_line(head, n, line, sizeof line);
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        if (has_col(line, cols[i])) return 90;
    return 0;
}

int ml_ascend_text_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e)
{
    ml_ascend_caps(p);
    if (ml_ascend_csv_add(src, p, e)) return -1;
    ml_ascend_overall(p);
    ml_profile_finish_keep(p, keep);
    return 0;
}
