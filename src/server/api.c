/*
 * api.c — the routes of `memlens serve` as pure functions (see api.h):
 * validates the query, reads the rank's view, writes JSON.
 */
#include "api.h"
#include "jsonw.h"
#include "perf.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "breakdown.h"
#include "beforetrace.h"
#include "categories.h"
#include "colbuf.h"
#include "format.h"
#include "api_trace.h"
#include "chrome_json.h"
#include "report_trace.h"
#include "perfdata.h"
#include "api_compare.h"
#include "report.h"
#include "search.h"


/* The allocation columns the API serves: memview.h's table, those marked for it. */
static void put_columns(ml_colbuf *cb, const ml_sv_device *d, const uint32_t *idx, size_t n)
{
    ml_cb_col_u32(cb, "id", idx, NULL, n);
#define PUT_COL(name, type, enc, delta, opt, api) \
    if (api && d->view->name) ml_cb_col_##enc(cb, #name, d->view->name, idx, n);
    ML_MV_COLUMNS(PUT_COL)
#undef PUT_COL
}

/* ---- curves: the view's window queries (memview.h) ---------------------- */

/* One curve's drawn points for a window into cb, as columns tKEY and vKEY. */
static void put_curve_cols(ml_colbuf *cb, const ml_sv_curve *c, double t0, double t1, int px, const char *suffix)
{
    ml_mv_points pts;
    ml_mv_curve_window(c, t0, t1, px, &pts);
    char key[24];
    snprintf(key, sizeof key, "t%s", suffix);
    ml_cb_col_i64(cb, key, pts.t, NULL, pts.n);
    snprintf(key, sizeof key, "v%s", suffix);
    ml_cb_col_i64(cb, key, pts.v, NULL, pts.n);
    ml_mv_points_free(&pts);
}

void ml_api_curve(const ml_sv_curve *c, double t0, double t1, int px, int binary, ml_buf *out)
{
    ml_colbuf cb;
    ml_cb_begin(&cb, out, binary);
    ml_cb_i64(&cb, "max", ml_api_curve_max(c, t0, t1));
    put_curve_cols(&cb, c, t0, t1, px, "");
    ml_cb_finish(&cb);
}

void ml_api_curves(const ml_sv_curve *const *cs, size_t n, double t0, double t1, int px, int binary, ml_buf *out)
{
    ml_colbuf cb;
    ml_cb_begin(&cb, out, binary);
    ml_cb_i64(&cb, "n", (int64_t)n);
    jw *maxes = ml_cb_key(&cb, "max");
    jw_arr(maxes);
    for (size_t k = 0; k < n; k++) jw_i64(maxes, ml_api_curve_max(cs[k], t0, t1));
    jw_end(maxes);
    for (size_t k = 0; k < n; k++) {
        char suffix[16];
        snprintf(suffix, sizeof suffix, "%zu", k);
        put_curve_cols(&cb, cs[k], t0, t1, px, suffix);
    }
    ml_cb_finish(&cb);
}

void ml_api_catcurve(const ml_sv_device *d, double t0, double t1, int px, int binary, ml_buf *out)
{
    ml_mv_band_points w;
    ml_mv_bands_window(d->cat_top, d->ncat, t0, t1, px, &w);
    ml_colbuf cb;
    ml_cb_begin(&cb, out, binary);
    jw *codes = ml_cb_key(&cb, "cats");
    jw_arr(codes);
    for (size_t k = 0; k < d->ncat; k++) jw_i64(codes, d->cat_code[k]);
    jw_end(codes);
    ml_cb_i64(&cb, "max", d->ncat ? ml_api_curve_max(&d->cat_top[d->ncat - 1], t0, t1) : 0);
    ml_cb_col_i64(&cb, "t", w.t, NULL, w.n);
    for (size_t k = 0; k < d->ncat; k++) {
        char key[16];
        snprintf(key, sizeof key, "v%zu", k);
        ml_cb_col_i64(&cb, key, w.v[k], NULL, w.n);
    }
    ml_cb_finish(&cb);
    ml_mv_band_points_free(&w);
}

void ml_api_stackbase(const ml_sv_device *d, double t0, double t1, int px, int binary, ml_buf *out)
{
    /* As the report: the part no allocation accounts for is known only when
     * the curve is recorded totals and the trace's allocations have a curve. */
    bool before_known = d->view->peak_total_known && d->tracked_curve >= 0;
    ml_mv_peak_columns cp;
    ml_mv_column_peaks(d->peak_curve >= 0 ? &d->curves[d->peak_curve] : NULL,
                       before_known ? &d->curves[d->tracked_curve] : NULL, t0, t1, px, &cp);
    ml_colbuf cb;
    ml_cb_begin(&cb, out, binary);
    ml_cb_i64(&cb, "curve", d->peak_curve);
    ml_cb_bool(&cb, "before_known", before_known);
    ml_cb_col_i64(&cb, "t", cp.t, NULL, cp.n);
    ml_cb_col_i64(&cb, "v", cp.v, NULL, cp.n);
    ml_cb_col_i64(&cb, "base", cp.base, NULL, cp.n);
    ml_cb_finish(&cb);
    ml_mv_peak_columns_free(&cp);
}

int64_t ml_api_curve_max(const ml_sv_curve *c, double t0, double t1) { return ml_mv_curve_max(c, t0, t1); }

/* ---- allocations in a window -------------------------------------------- */

void ml_api_allocs(const ml_sv_device *d, double t0, double t1, int px, size_t limit, int64_t keep, int binary,
                   ml_buf *out)
{
    ml_mv_window w;
    ml_memview_window(d->view, &d->ix, t0, t1, px, limit, keep, &w);
    ml_colbuf cb;
    ml_cb_begin(&cb, out, binary);
    ml_cb_i64(&cb, "n", (int64_t)w.ids.len);
    ml_cb_i64(&cb, "total", (int64_t)d->view->n);
    ml_cb_i64(&cb, "in_window", (int64_t)w.in_window);
    ml_cb_i64(&cb, "in_window_bytes", w.in_bytes);
    ml_cb_i64(&cb, "wide", (int64_t)w.wide);
    ml_cb_bool(&cb, "limited", w.limited);
    ml_cb_i64(&cb, "summarised", (int64_t)w.summarised);
    ml_cb_i64(&cb, "summarised_bytes", w.summarised_bytes);
    put_columns(&cb, d, w.ids.v, w.ids.len);
    ml_cb_col_u32(&cb, "small_x", w.small_x.v, NULL, w.small_x.len);
    ml_cb_col_u32(&cb, "small_group", w.small_group.v, NULL, w.small_group.len);
    ml_cb_col_u32(&cb, "small_n", w.small_n.v, NULL, w.small_n.len);
    ml_cb_finish(&cb);
    ml_mv_window_free(&w);
}

/* ---- one allocation ----------------------------------------------------- */

static void put_stack(const ml_sv_rank *r, uint32_t s, jw *w);


void ml_api_detail(const ml_sv_rank *r, const ml_sv_device *d, size_t i, ml_buf *out)
{
    const ml_memview *v = d->view; /* the columns */
    jw w;
    jw_init_buf(&w, out, false);
    jw_obj(&w);
    jw_key(&w, "id"), jw_i64(&w, (int64_t)i);
    jw_key(&w, "device"), jw_text(&w, d->id);
    jw_key(&w, "size"), jw_i64_js(&w, v->size[i]);
    char addr[32] = "";
    uint64_t a = (uint64_t)v->addr_hi[i] << 32 | v->addr_lo[i];
    if (a) snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)a);
    jw_key(&w, "addr"), jw_str(&w, addr);
    jw_key(&w, "stream"), jw_text(&w, r->strings[v->stream[i]]);
    jw_key(&w, "group"), jw_text(&w, v->group_label.v[v->group[i]]);
    jw_key(&w, "op"), jw_text(&w, r->strings[v->op[i]]);
    jw_key(&w, "ta"), jw_i64_js(&w, v->ta[i]);
    jw_key(&w, "tf"), jw_i64_js(&w, v->tf[i]);
    jw_key(&w, "beforeTrace"), jw_bool(&w, v->flags[i] & ML_MV_BEFORE_TRACE);
    jw_key(&w, "neverFreed"), jw_bool(&w, v->flags[i] & ML_MV_NEVER_FREED);
    jw_key(&w, "category"), jw_i64(&w, v->cat[i]);
    jw_key(&w, "categoryName"), jw_text(&w, ml_category_name(v->cat[i] < ML_CAT__COUNT ? v->cat[i] : 0));
    jw_key(&w, "reason");
    jw_text(&w, v->reason && v->reason[i] < ML_REASON__COUNT ? ml_category_reason_text(v->reason[i]) : "");
    jw_key(&w, "src"), jw_i64(&w, v->src[i]);
    jw_key(&w, "stack"), put_stack(r, v->stack[i], &w);
    jw_end(&w);
}

/* Stack s of the rank's stack table as [{name, file, line}, ...] ([] for 0 or none). */
static void put_stack(const ml_sv_rank *r, uint32_t s, jw *w)
{
    jw_arr(w);
    if (s && s < r->nstacks) {
        size_t b = r->stack_start[s], e = s + 1 < r->nstacks ? r->stack_start[s + 1] : r->nstack_frames;
        for (size_t k = b; k < e && k < r->nstack_frames; k++) {
            uint32_t f = r->stack_frames[k];
            jw_obj(w);
            jw_key(w, "name"), jw_text(w, r->strings[r->frame_name[f]]);
            jw_key(w, "file"), jw_text(w, r->strings[r->frame_file[f]]);
            jw_key(w, "line"), jw_i64_js(w, r->frame_line[f]);
            jw_end(w);
        }
    }
    jw_end(w);
}

void ml_api_stack(const ml_sv_rank *r, uint32_t s, ml_buf *out)
{
    jw w;
    jw_init_buf(&w, out, false);
    jw_obj(&w);
    jw_key(&w, "id"), jw_i64(&w, s);
    jw_key(&w, "stack"), put_stack(r, s, &w);
    jw_end(&w);
}

/* ---- the allocations table ---------------------------------------------- */

/* Ascend (MindStudio Insight's columns): the rows' active release times "tr" and the
 * totals at allocation and release "aA" "aR" "aC" "rA" "rR" "rC" (-1: unknown), for
 * the kinds the device has an overall curve of; nothing without active release times. */
static void put_insight(ml_colbuf *cb, const ml_sv_rank *r, const ml_sv_device *d, const uint32_t *rows, size_t n)
{
    if (!d->view->tr) return;
    ml_cb_col_i64(cb, "tr", d->view->tr, rows, n);
    static const char *const keys[2][3] = {{"aA", "aR", "aC"}, {"rA", "rR", "rC"}};
    int64_t *v = ml_malloc((n ? n : 1) * sizeof *v);
    for (int rel = 0; rel < 2; rel++)
        for (int k = 0; k < 3; k++) {
            if (d->totals.overall[k] < 0) continue;
            for (size_t j = 0; j < n; j++) v[j] = ml_memview_total_at(d->view, &d->totals, &r->names, k, rel, rows[j]);
            ml_cb_col_i64(cb, keys[rel][k], v, NULL, n);
        }
    free(v);
}

void ml_api_table(ml_sv_rank *r, ml_sv_device *d, const ml_table_query *q, ml_buf *out)
{
    ml_mv_filter f;
    ml_mv_filter_init(&f, d->view, &r->names, q);
    ml_mv_page pg;
    ml_memview_table(d->view, &f, ml_sv_order(d, r, q->sort), &pg);
    jw w;
    jw_init_buf(&w, out, false);
    jw_obj(&w);
    jw_key(&w, "total"), jw_i64(&w, (int64_t)pg.total);
    jw_key(&w, "page"), jw_i64(&w, (int64_t)pg.page);
    jw_key(&w, "pages"), jw_i64(&w, (int64_t)pg.pages);
    jw_key(&w, "n"), jw_i64(&w, (int64_t)d->view->n);
    jw_key(&w, "rows"); /* its value: an answer of columns, written after w's key */
    ml_colbuf cb;
    ml_cb_begin(&cb, out, 0);
    ml_cb_i64(&cb, "count", (int64_t)pg.rows.len);
    put_columns(&cb, d, pg.rows.v, pg.rows.len);
    put_insight(&cb, r, d, pg.rows.v, pg.rows.len);
    ml_cb_finish(&cb);
    jw_end(&w);
    VEC_FREE(&pg.rows);
    ml_mv_filter_free(&f);
}

/* ---- the table as CSV / TSV, streamed -------------------------------------- */

struct ml_export {
    const ml_sv_rank *r;
    ml_sv_device *d;
    ml_table_query q;
    char *text;                 /* q.text, owned */
    ml_mv_filter f;
    const uint32_t *order;
    size_t next;                /* position in order */
    int tsv, header_done;
    ml_buf row;                 /* text made but not yet read */
    size_t row_off;
};

/* One cell, as web/src/table.js cell(): TSV turns tabs and line breaks into
 * spaces; CSV quotes a cell holding a comma, quote or line break. */
static void put_cell(ml_buf *b, const char *s, int tsv, int first)
{
    if (!first) ml_buf_puts(b, tsv ? "\t" : ",");
    if (tsv) {
        for (; *s; s++) ml_buf_put(b, *s == '\t' || *s == '\n' || *s == '\r' ? " " : s, 1);
        return;
    }
    if (!strpbrk(s, ",\"\n\r")) { ml_buf_puts(b, s); return; }
    ml_buf_puts(b, "\"");
    for (; *s; s++) {
        if (*s == '"') ml_buf_puts(b, "\"\"");
        else ml_buf_put(b, s, 1);
    }
    ml_buf_puts(b, "\"");
}

/* A time of the export: absolute UTC with ns ("2022-11-30 04:48:07.404123456")
 * when the rank's times are wall clock, else the relative ns (web/src/format.js exact). */
static const char *export_time(const ml_sv_rank *r, int64_t t, char *buf, size_t cap)
{
    if (!r->p->time_is_absolute || r->p->time_is_event_order) {
        snprintf(buf, cap, "%lld", (long long)t);
        return buf;
    }
    return ml_fmt_utc(r->origin + t, 9, buf, cap);
}

static void export_row(ml_export *x, uint32_t i)
{
    const ml_sv_rank *r = x->r;
    const ml_memview *v = x->d->view; /* the columns */
    ml_buf *b = &x->row;
    char t[64];
    put_cell(b, v->group_label.v[v->group[i]], x->tsv, 1);
    put_cell(b, r->strings[v->op[i]], x->tsv, 0);
    snprintf(t, sizeof t, "%lld", (long long)v->size[i]);
    put_cell(b, t, x->tsv, 0);
    put_cell(b, v->flags[i] & ML_MV_BEFORE_TRACE ? "before trace" : export_time(r, v->ta[i], t, sizeof t), x->tsv, 0);
    put_cell(b, v->flags[i] & ML_MV_NEVER_FREED ? "not released" : export_time(r, v->tf[i], t, sizeof t), x->tsv, 0);
    snprintf(t, sizeof t, "%lld", (long long)(v->tf[i] - v->ta[i]));
    put_cell(b, t, x->tsv, 0);
    put_cell(b, ml_category_name(v->cat[i] < ML_CAT__COUNT ? v->cat[i] : 0), x->tsv, 0);
    put_cell(b, r->strings[v->stream[i]], x->tsv, 0); /* as the input writes it */
    uint64_t a = (uint64_t)v->addr_hi[i] << 32 | v->addr_lo[i];
    if (a) snprintf(t, sizeof t, "0x%llx", (unsigned long long)a);
    else t[0] = 0;
    put_cell(b, t, x->tsv, 0);
    put_cell(b, v->reason && v->reason[i] < ML_REASON__COUNT ? ml_category_reason_text(v->reason[i]) : "", x->tsv, 0);
    ml_buf_puts(b, "\n");
}

static ml_export *export_new(const ml_sv_rank *r, ml_sv_device *d, const ml_table_query *q, int tsv)
{
    ml_export *x = ml_calloc(1, sizeof *x);
    x->r = r;
    x->d = d;
    x->q = *q;
    x->text = strdup(q->text ? q->text : "");
    x->q.text = x->text;
    x->tsv = tsv;
    ml_mv_filter_init(&x->f, d->view, &r->names, &x->q);
    x->order = ml_sv_order(d, r, q->sort);
    return x;
}

size_t ml_api_export_read(ml_export *x, char *buf, size_t max)
{
    size_t w = 0;
    while (w < max) {
        if (x->row_off == x->row.len) {
            x->row.len = x->row_off = 0;
            if (!x->header_done) {
                static const char *const head[] = {"allocating op", "size_bytes", "allocated", "released", "duration_ns",
                                                   "category", "stream", "address", "reason"};
                put_cell(&x->row, x->d->view->by_frame ? "user frame" : "operator", x->tsv, 1);
                for (size_t k = 0; k < sizeof head / sizeof *head; k++) put_cell(&x->row, head[k], x->tsv, 0);
                ml_buf_puts(&x->row, "\n");
                x->header_done = 1;
            } else {
                const ml_sv_device *d = x->d;
                while (x->next < d->view->n && x->row.len < 65536) {
                    size_t j = x->next++;
                    uint32_t i = x->order[x->q.dir < 0 ? d->view->n - 1 - j : j];
                    if (ml_mv_filter_keeps(&x->f, d->view, i)) export_row(x, i);
                }
                if (!x->row.len) break;  /* the end */
            }
        }
        size_t n = x->row.len - x->row_off < max - w ? x->row.len - x->row_off : max - w;
        memcpy(buf + w, x->row.p + x->row_off, n);
        x->row_off += n;
        w += n;
    }
    return w;
}

void ml_api_export_free(ml_export *x)
{
    if (!x) return;
    ml_mv_filter_free(&x->f);
    ml_buf_free(&x->row);
    free(x->text);
    free(x);
}

int ml_api_export_tsv(const ml_export *x) { return x->tsv; }

/* ---- the live set at any time -------------------------------------------- */

typedef struct row { const char *label; int64_t bytes, count; } row;

static int row_cmp(const void *x, const void *y)
{
    const row *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    return strcmp(a->label, b->label);
}

/* The rows' part of a live answer, and its end. */
static void put_rows(jw *w, row *rows, size_t n)
{
    qsort(rows, n, sizeof *rows, row_cmp);
    size_t groups = 0;
    for (size_t k = 0; k < n; k++) groups += rows[k].bytes || rows[k].count;
    jw_key(w, "groups"), jw_i64(w, (int64_t)groups);
    jw_key(w, "rows"), jw_arr(w);
    size_t shown = 0;
    for (size_t k = 0; k < n && shown < 500; k++) {
        if (!rows[k].bytes && !rows[k].count) continue;
        shown++;
        jw_arr(w);
        jw_text(w, rows[k].label);
        jw_i64_js(w, rows[k].bytes);
        jw_i64_js(w, rows[k].count);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

void ml_api_live(const ml_sv_rank *r, const ml_sv_device *d, double t, const char *by, ml_buf *out)
{
    int64_t ti = (int64_t)floor(t);
    int64_t total = -1;
    jw w;
    jw_init_buf(&w, out, false);
    jw_obj(&w);
    jw_key(&w, "t"), jw_i64_js(&w, ti);
    jw_key(&w, "curve_value");
    if (d->peak_curve >= 0) {
        const ml_sv_curve *c = &d->curves[d->peak_curve];
        size_t k = ml_upper_bound_f(c->t, c->n, (double)ti);
        int64_t v = k ? c->v[k - 1] : 0;
        jw_i64_js(&w, v);
        if (d->view->peak_total_known) total = v;
    } else {
        jw_null(&w);
    }
    jw_key(&w, "by"), jw_text(&w, by);
    if (!strcmp(by, "category")) {
        /* By category, from the view's columns (ml_breakdown has no category
         * key), as the report's peak: memory from before the trace in its
         * category, except what is "(allocated before trace)" (beforetrace.h). */
        ml_mv_live lv;
        ml_memview_live_at(d->view, ti, total, &lv);
        jw_key(&w, "tracked"), jw_i64_js(&w, lv.tracked);
        jw_key(&w, "count"), jw_i64(&w, lv.count);
        jw_key(&w, "before"), jw_i64_js(&w, lv.before);
        row rows[ML_CAT__COUNT + 1];
        for (int c = 0; c < ML_CAT__COUNT; c++) rows[c] = (row){ ml_category_name(c), lv.by_cat[c], lv.n_cat[c] };
        rows[ML_CAT__COUNT] = (row){ ML_BEFORE_TRACE_GROUP, lv.shown_before, lv.shown_before_n };
        put_rows(&w, rows, ML_CAT__COUNT + 1);
        return;
    }
    ml_group_by g = !strcmp(by, "op") ? ML_BY_TOPLEVEL : (ml_group_by)ml_group_by_parse(by);
    ml_breakdown bd;
    ml_breakdown_at(r->p, d->pdev, (ml_instant){ r->origin + ti, ML_NONE32 }, total, g, &bd);
    jw_key(&w, "tracked"), jw_i64_js(&w, bd.traced_bytes);
    jw_key(&w, "count"), jw_i64(&w, bd.traced_count);
    jw_key(&w, "before"), jw_i64_js(&w, bd.before_bytes);
    row *rows = ml_malloc((bd.n + 1) * sizeof *rows);
    for (size_t k = 0; k < bd.n; k++) rows[k] = (row){ bd.groups[k].label, bd.groups[k].bytes, bd.groups[k].count };
    rows[bd.n] = (row){ ML_BEFORE_TRACE_GROUP, bd.before_bytes, bd.before_count };
    put_rows(&w, rows, bd.n + 1);
    free(rows);
    ml_breakdown_free(&bd);
}

/* ---- routing and validation ---------------------------------------------- */

typedef struct req {
    ml_api_arg_fn arg;
    void *user;
    ml_buf *out;
    int status;
} req;

static int fail(req *q, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(req *q, int status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    q->out->len = 0;
    jw w;
    jw_init_buf(&w, q->out, false);
    jw_obj(&w);
    jw_key(&w, "error"), jw_str(&w, msg);
    jw_key(&w, "status"), jw_i64(&w, status);
    jw_end(&w);
    q->status = status;
    return -1;
}

/* The documented number syntax of parameters: an optional '-', digits and,
 * where fractions are allowed, a '.' and digits; nothing else (no '+',
 * blanks, exponent, hex, inf or nan, which strtod would take). */
static bool number_syntax(const char *s, bool fraction)
{
    if (*s == '-') s++;
    if (*s < '0' || *s > '9') return false;
    while (*s >= '0' && *s <= '9') s++;
    if (fraction && *s == '.') {
        s++;
        if (*s < '0' || *s > '9') return false;
        while (*s >= '0' && *s <= '9') s++;
    }
    return *s == 0;
}

/* An integer parameter in [lo, hi]; `def` when absent (required when def < lo). */
static int arg_int(req *q, const char *key, int64_t lo, int64_t hi, int64_t def, int64_t *v)
{
    const char *s = q->arg(q->user, key);
    if (!s) {
        if (def < lo) return fail(q, 400, "missing parameter '%s'", key);
        *v = def;
        return 0;
    }
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (!number_syntax(s, false) || *end || errno || strlen(s) > 20)
        return fail(q, 400, "parameter '%s' must be an integer (digits, optionally after '-')", key);
    if (x < lo || x > hi) return fail(q, 400, "parameter '%s' must be in [%lld, %lld]", key, (long long)lo, (long long)hi);
    *v = x;
    return 0;
}

/* A time (ns, relative; fractions allowed) within +-2^62. */
static int arg_time(req *q, const char *key, int required, double def, double *v)
{
    const char *s = q->arg(q->user, key);
    if (!s) {
        if (required) return fail(q, 400, "missing parameter '%s'", key);
        *v = def;
        return 0;
    }
    char *end;
    double x = strtod(s, &end);
    if (!number_syntax(s, true) || *end || strlen(s) > 40 || !isfinite(x) || fabs(x) > 4.6e18)
        return fail(q, 400, "parameter '%s' must be a number of ns (digits, optionally after '-' and with a "
                            "'.' fraction) within 2^62", key);
    *v = x;
    return 0;
}

static int arg_enum(req *q, const char *key, const char *const *names, int n, int def, int *v)
{
    const char *s = q->arg(q->user, key);
    if (!s) {
        if (def < 0) return fail(q, 400, "missing parameter '%s'", key);
        *v = def;
        return 0;
    }
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i])) { *v = i; return 0; }
    char list[256] = "";
    size_t w = 0;
    for (int i = 0; i < n && w < sizeof list - 40; i++) w += (size_t)snprintf(list + w, sizeof list - w, "%s%s", i ? ", " : "", names[i]);
    return fail(q, 400, "parameter '%s' must be one of: %s", key, list);
}

/* rank (loaded) and dev; 409 while the rank is loading. */
static int arg_rank_dev(req *q, ml_ranks *rs, ml_sv_rank **r, ml_sv_device **d)
{
    int64_t k, dv;
    size_t n = ml_ranks_count(rs);
    if (arg_int(q, "rank", 0, n ? (int64_t)n - 1 : -1, -1, &k)) return -1;
    ml_slot_state st;
    ml_ranks_request(rs, (size_t)k);
    *r = ml_ranks_get(rs, (size_t)k, &st);
    if (!*r) {
        if (st == ML_SLOT_FAILED) return fail(q, 422, "rank %lld could not be loaded (see /api/meta)", (long long)k);
        if (st == ML_SLOT_EVICTED)
            return fail(q, 410, "rank %lld was evicted: the least recently viewed upload (upload it again to see it)", (long long)k);
        return fail(q, 409, "rank %lld is not loaded yet: ask /api/rank?rank=%lld&wait=MS", (long long)k, (long long)k);
    }
    if (!d) return 0;
    if (!(*r)->ndev) return fail(q, 404, "rank %lld has no device with memory data", (long long)k);
    if (arg_int(q, "dev", 0, (int64_t)(*r)->ndev - 1, -1, &dv)) return -1;
    *d = &(*r)->dev[dv];
    return 0;
}

static int arg_window(req *q, const ml_sv_device *d, double *t0, double *t1)
{
    if (arg_time(q, "t0", 0, (double)d->t0, t0) || arg_time(q, "t1", 0, (double)(d->t1 > d->t0 ? d->t1 : d->t0 + 1), t1))
        return -1;
    if (!(*t1 > *t0)) return fail(q, 400, "the window must have t1 > t0");
    return 0;
}

/* A curve named "K" (device.curves) or "op:K" (device.op_curves) in s[0..len); NULL if none. */
static const ml_sv_curve *curve_of(const ml_sv_device *d, const char *s, size_t len)
{
    int op = len >= 3 && !strncmp(s, "op:", 3);
    size_t i = op ? 3 : 0, k = 0;
    if (i == len || len - i > 9) return NULL;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return NULL;
        k = k * 10 + (size_t)(s[i] - '0');
    }
    if (k >= (op ? d->nop : d->ncurves)) return NULL;
    return op ? &d->op_curves[k] : &d->curves[k];
}

static int bad_curve(req *q, const char *key, const ml_sv_device *d)
{
    return fail(q, 400, "parameter '%s' must be a curve index (0..%zu) or op:K (0..%zu)%s", key,
                d->ncurves ? d->ncurves - 1 : 0, d->nop ? d->nop - 1 : 0, strcmp(key, "list") ? "" : ", comma-separated");
}

static const char *const sort_names[] = {"group", "op", "size", "ta", "tf", "dur", "stream", "addr", "cat", "reason",
                                          "tr", "adur", "aA", "aR", "aC", "rA", "rR", "rC"};

/* The table's query: its filter, sort and page (the export ignores the page). */
static int arg_table(req *q, const ml_sv_device *d, ml_table_query *tq)
{
    int sort, dir;
    int64_t mn, mx, page, size, inwin, cat;
    static const char *const dirs[] = {"asc", "desc"};
    memset(tq, 0, sizeof *tq);
    if (arg_window(q, d, &tq->t0, &tq->t1) ||
        arg_int(q, "min", 0, INT64_MAX, 0, &mn) || arg_int(q, "max", 0, INT64_MAX, 0, &mx) ||
        arg_int(q, "inwin", 0, 1, 0, &inwin) || arg_enum(q, "sort", sort_names, ML_MV_SORT__COUNT, ML_MV_SORT_SIZE, &sort) ||
        arg_int(q, "cat", -1, ML_CAT__COUNT - 1, -1, &cat) ||
        arg_enum(q, "dir", dirs, 2, 1, &dir) || arg_int(q, "page", 0, 1000000000, 0, &page) ||
        arg_int(q, "size", 1, 1000, 100, &size))
        return -1;
    tq->min_size = q->arg(q->user, "min") ? mn : -1;
    tq->max_size = q->arg(q->user, "max") ? mx : -1;
    tq->text = q->arg(q->user, "text");
    if (tq->text && strlen(tq->text) > 200) return fail(q, 400, "parameter 'text' is longer than 200 bytes");
    tq->in_window = (int)inwin;
    tq->cat = (int)cat;
    tq->sort = (ml_mv_sort)sort;
    tq->dir = dir ? -1 : 1;
    tq->page = (size_t)page;
    tq->page_size = (size_t)size;
    return 0;
}

static const char *const fmt_names[] = {"json", "bin"};
static const char *const by_names[] = {"op", "frame", "stack", "innermost", "size", "category"};

static int route(req *q, ml_ranks *rs, const char *path)
{
    ml_sv_rank *r;
    ml_sv_device *d;
    int64_t v;
    if (!strcmp(path, "/api/meta") || !strcmp(path, "/api/ranks")) {
        ml_ranks_status_json(rs, q->out);
        return 0;
    }
    if (!strcmp(path, "/api/cluster")) {
        int64_t wait;
        if (arg_int(q, "wait", 0, 10000, 0, &wait)) return -1;
        ml_sv_cluster *c = ml_ranks_cluster(rs);
        if (!c) return fail(q, 404, "not a job: the Cluster view compares two ranks or more, listed at the start");
        q->status = ml_sv_cluster_json(c, (int)wait, q->out);
        return 0;
    }
    if (!strcmp(path, "/api/rank")) {
        int64_t k, wait;
        size_t n = ml_ranks_count(rs);
        if (arg_int(q, "rank", 0, n ? (int64_t)n - 1 : -1, -1, &k) || arg_int(q, "wait", 0, 10000, 0, &wait)) return -1;
        ml_ranks_request(rs, (size_t)k);
        if (wait) ml_ranks_wait(rs, (size_t)k, (int)wait);
        ml_slot_state st;
        r = ml_ranks_get(rs, (size_t)k, &st);
        if (r) {
            ml_buf_put(q->out, r->meta.p, r->meta.len);
            return 0;
        }
        ml_ranks_slot_json(rs, (size_t)k, q->out);
        q->status = st == ML_SLOT_FAILED ? 422 : st == ML_SLOT_EVICTED ? 410 : 202;
        return 0;
    }
    if (!strcmp(path, "/api/curve") || !strcmp(path, "/api/curvemax")) {
        double t0, t1;
        if (arg_rank_dev(q, rs, &r, &d) || arg_window(q, d, &t0, &t1)) return -1;
        const char *c = q->arg(q->user, "curve");
        const ml_sv_curve *cv;
        if (!c) return fail(q, 400, "missing parameter 'curve'");
        if (!(cv = curve_of(d, c, strlen(c)))) return bad_curve(q, "curve", d);
        if (!strcmp(path, "/api/curvemax")) {
            jw w;
            jw_init_buf(&w, q->out, false);
            jw_obj(&w);
            jw_key(&w, "max"), jw_i64_js(&w, ml_api_curve_max(cv, t0, t1));
            jw_end(&w);
            return 0;
        }
        int fmt;
        if (arg_int(q, "px", 1, 20000, -1, &v) || arg_enum(q, "fmt", fmt_names, 2, 0, &fmt)) return -1;
        ml_api_curve(cv, t0, t1, (int)v, fmt, q->out);
        return 0;
    }
    if (!strcmp(path, "/api/curves")) {
        double t0, t1;
        int fmt;
        const ml_sv_curve *cs[32];
        size_t n = 0;
        if (arg_rank_dev(q, rs, &r, &d) || arg_window(q, d, &t0, &t1) || arg_int(q, "px", 1, 20000, -1, &v) ||
            arg_enum(q, "fmt", fmt_names, 2, 0, &fmt))
            return -1;
        const char *list = q->arg(q->user, "list");
        if (!list || !*list) return fail(q, 400, "missing parameter 'list'");
        if (strlen(list) > 400) return fail(q, 400, "parameter 'list' is longer than 400 bytes");
        for (const char *p = list;;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (n == 32) return fail(q, 400, "parameter 'list' names more than 32 curves");
            if (!(cs[n++] = curve_of(d, p, len))) return bad_curve(q, "list", d);
            if (!e) break;
            p = e + 1;
        }
        ml_api_curves(cs, n, t0, t1, (int)v, fmt, q->out);
        return 0;
    }
    if (!strcmp(path, "/api/allocs")) {
        double t0, t1;
        int64_t limit, keep;
        int fmt;
        if (arg_rank_dev(q, rs, &r, &d) || arg_window(q, d, &t0, &t1) || arg_int(q, "px", 1, 20000, -1, &v) ||
            arg_int(q, "limit", 1, 2000000, 200000, &limit) || arg_int(q, "keep", -1, (int64_t)d->view->n - 1, -1, &keep) ||
            arg_enum(q, "fmt", fmt_names, 2, 0, &fmt))
            return -1;
        ml_api_allocs(d, t0, t1, (int)v, (size_t)limit, keep, fmt, q->out);
        return 0;
    }
    if (!strcmp(path, "/api/catcurve") || !strcmp(path, "/api/stackbase")) {
        double t0, t1;
        int fmt;
        if (arg_rank_dev(q, rs, &r, &d) || arg_window(q, d, &t0, &t1) || arg_int(q, "px", 1, 20000, -1, &v) ||
            arg_enum(q, "fmt", fmt_names, 2, 0, &fmt))
            return -1;
        if (!strcmp(path, "/api/catcurve")) ml_api_catcurve(d, t0, t1, (int)v, fmt, q->out);
        else ml_api_stackbase(d, t0, t1, (int)v, fmt, q->out);
        return 0;
    }
    if (!strcmp(path, "/api/detail")) {
        if (arg_rank_dev(q, rs, &r, &d)) return -1;
        if (!d->view->n) return fail(q, 404, "device %s has no allocations", d->id);
        if (arg_int(q, "id", 0, (int64_t)d->view->n - 1, -1, &v)) return -1;
        ml_api_detail(r, d, (size_t)v, q->out);
        return 0;
    }
    if (!strcmp(path, "/api/table")) {
        ml_table_query tq;
        if (arg_rank_dev(q, rs, &r, &d) || arg_table(q, d, &tq)) return -1;
        ml_api_table(r, d, &tq, q->out);
        return 0;
    }
    if (!strcmp(path, "/api/peak") || !strcmp(path, "/api/ops")) {
        if (arg_rank_dev(q, rs, &r, &d)) return -1;
        jw w;
        jw_init_buf(&w, q->out, false);
        if (!strcmp(path, "/api/peak")) ml_report_put_peak(d->view, &w);
        else ml_report_put_ops(d->view, &w);
        return 0;
    }
    if (!strcmp(path, "/api/perf")) {
        int64_t top;
        if (arg_rank_dev(q, rs, &r, NULL) || arg_int(q, "top", 1, 100000000, ML_PERF_TOP_DEFAULT, &top)) return -1;
        const char *why = ml_perf_unavailable(r->p);
        if (why) return fail(q, 404, "%s", why);
        size_t key;
        const ml_distributed *dist = ml_ranks_distributed(rs, &key); /* over the ranks loaded so far */
        if (!ml_sv_perf(r, dist, key, (int)top, q->out)) return fail(q, 404, "this rank has no time data");
        return 0;
    }
    if (!strcmp(path, "/api/compare")) { /* two loaded runs compared (api_compare.h) */
        int64_t kb, kn;
        size_t n = ml_ranks_count(rs);
        if (arg_int(q, "base", 0, n ? (int64_t)n - 1 : -1, -1, &kb) || arg_int(q, "new", 0, n ? (int64_t)n - 1 : -1, -1, &kn))
            return -1;
        ml_sv_rank *rb, *rn;
        ml_slot_state sb, sn;
        ml_ranks_request(rs, (size_t)kb);
        ml_ranks_request(rs, (size_t)kn);
        rb = ml_ranks_get(rs, (size_t)kb, &sb);
        rn = ml_ranks_get(rs, (size_t)kn, &sn);
        if (!rb || !rn)
            return fail(q, sb == ML_SLOT_FAILED || sn == ML_SLOT_FAILED || sb == ML_SLOT_EVICTED || sn == ML_SLOT_EVICTED ? 422 : 409,
                        "rank %lld is not loaded%s: ask /api/rank?rank=%lld&wait=MS", (long long)(rb ? kn : kb),
                        (rb ? sn : sb) == ML_SLOT_FAILED ? " (it failed, see /api/meta)" : " yet", (long long)(rb ? kn : kb));
        ml_api_compare(rb, (size_t)kb, rn, (size_t)kn, q->out);
        return 0;
    }
    if (!strcmp(path, "/api/live")) {
        double t;
        int by;
        if (arg_rank_dev(q, rs, &r, &d) || arg_time(q, "t", 1, 0, &t) || arg_enum(q, "by", by_names, 6, 0, &by))
            return -1;
        ml_api_live(r, d, t, by_names[by], q->out);
        return 0;
    }
    if (!strcmp(path, "/api/trace") || !strcmp(path, "/api/slice") || !strcmp(path, "/api/findslice")) {
        if (arg_rank_dev(q, rs, &r, NULL)) return -1;
        if (!r->trace) return fail(q, 404, "this rank has no slices (no time side in its input)");
        if (!strcmp(path, "/api/slice")) {
            if (arg_int(q, "id", 0, (int64_t)ml_sv_trace_count(r->trace) - 1, -1, &v)) return -1;
            ml_api_slice(r->trace, r->p, (size_t)v, q->out);
            return 0;
        }
        if (!strcmp(path, "/api/findslice")) {
            double after;
            int64_t dir;
            const char *text = q->arg(q->user, "q");
            if (!text || !*text) return fail(q, 400, "missing parameter 'q'");
            if (strlen(text) > 200) return fail(q, 400, "parameter 'q' is longer than 200 bytes");
            if (arg_time(q, "after", 0, -4.6e18, &after) || arg_int(q, "dir", -1, 1, 1, &dir)) return -1;
            if (!dir) return fail(q, 400, "parameter 'dir' must be 1 or -1");
            ml_api_findslice(r->trace, r->p, text, after, (int)dir, q->out);
            return 0;
        }
        int64_t s0, s1;
        double t0, t1;
        int fmt;
        ml_sv_trace_span(r->trace, &s0, &s1);
        if (arg_time(q, "t0", 0, (double)s0, &t0) || arg_time(q, "t1", 0, (double)(s1 > s0 ? s1 : s0 + 1), &t1) ||
            arg_int(q, "px", 1, 20000, -1, &v) || arg_enum(q, "fmt", fmt_names, 2, 0, &fmt))
            return -1;
        if (!(t1 > t0)) return fail(q, 400, "the window must have t1 > t0");
        const char *text = q->arg(q->user, "q");
        if (text && strlen(text) > 200) return fail(q, 400, "parameter 'q' is longer than 200 bytes");
        ml_api_trace(r->trace, r->p, t0, t1, (int)v, text, fmt, q->out);
        return 0;
    }
    if (!strcmp(path, "/api/stack")) {
        if (arg_rank_dev(q, rs, &r, NULL)) return -1;
        if (arg_int(q, "id", 0, r->nstacks ? (int64_t)r->nstacks - 1 : 0, -1, &v)) return -1;
        ml_api_stack(r, (uint32_t)v, q->out);
        return 0;
    }
    return fail(q, 404, "no such API route");
}

int ml_api_route(ml_ranks *rs, const char *path, ml_api_arg_fn arg, void *user, ml_buf *out)
{
    req q = { arg, user, out, 200 };
    route(&q, rs, path);
    return q.status;
}

int ml_api_trace_json_open(ml_ranks *rs, ml_api_arg_fn arg, void *user, ml_chrome_json **x, ml_buf *err)
{
    req q = { arg, user, err, 200 };
    ml_sv_rank *r;
    *x = NULL;
    if (arg_rank_dev(&q, rs, &r, NULL)) return q.status;
    if (!r->trace) {
        fail(&q, 404, "this rank has no slices (no time side in its input)");
        return q.status;
    }
    *x = ml_chrome_json_open(r->p);
    return 200;
}

int ml_api_export_open(ml_ranks *rs, ml_api_arg_fn arg, void *user, ml_export **x, ml_buf *err)
{
    req q = { arg, user, err, 200 };
    ml_sv_rank *r;
    ml_sv_device *d;
    ml_table_query tq;
    int fmt;
    static const char *const fmts[] = {"csv", "tsv"};
    *x = NULL;
    if (arg_rank_dev(&q, rs, &r, &d) || arg_table(&q, d, &tq) || arg_enum(&q, "fmt", fmts, 2, 0, &fmt)) return q.status;
    *x = export_new(r, d, &tq, fmt == 1);
    return 200;
}
