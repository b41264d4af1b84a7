/*
 * report_data.c — the data of the HTML report: for every rank and device,
 * the memory curves with their M4 pyramids, the exact peak and the live set
 * at it, the allocations (capped by a budget that keeps the ones that
 * matter) and per-operator statistics.  The page sees only this, never raw
 * events; web/DATA.md is the contract.
 *
 * Times are written relative to one origin (the earliest time of all ranks),
 * as int64 ns, so that the page can hold them exactly in doubles.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "breakdown.h"
#include "components.h"
#include "format.h"
#include "curve.h"
#include "m4.h"
#include "memview.h"
#include "report.h"
#include "report_caps.h"
#include "stats.h"
#include "perf.h"
#include "categories.h"
#include "report_trace.h"
#include "report_static.h"
#include "report_segments.h"
#include "unmatched.h"
#include "beforetrace.h"
#include "par.h"
#include "phase.h"
#include "sortperm.h"



void ml_report_curve_label(char *buf, size_t cap, bool insight, const char *kind, const char *comp, const char *stream)
{
    static const char *const kinds[][2] = {
        {"allocated", "Allocated"}, {"reserved", "Reserved"}, {"active", "Activated"}, {"app reserved", "APP Reserved"}};
    const char *name = kind;
    for (size_t k = 0; insight && k < sizeof kinds / sizeof *kinds; k++)
        if (!strcmp(kind, kinds[k][0])) name = kinds[k][1];
    if (stream && insight) snprintf(buf, cap, "%s of %s", name, stream);
    else if (stream) snprintf(buf, cap, "stream %s %s", stream, kind);
    else if (comp) snprintf(buf, cap, "%s %s", comp, name);
    else if (insight && strcmp(kind, "app reserved")) snprintf(buf, cap, "Operator %s", name);
    else snprintf(buf, cap, "%s", name);
}

/* Whether a profile's curves go by MindStudio Insight's names (its importer says: Ascend inputs). */
static bool insight_names(const ml_profile *p) { return p->caps.insight_names; }

/* ---- per-rank context -------------------------------------------------- */

typedef struct rank_ctx {
    const ml_profile *p;
    int64_t origin;
    ml_blobs *bl;
    ml_buf *meta;
    ml_mv_strings str;        /* the rank's "strings" (memview.h) */
    uint32_t *calls;          /* profile string id -> number of cpu ops with that name */
    size_t max_allocs;
    size_t max_history;       /* a snapshot's state history: allocator events per device (report_segments.h) */
    /* The device's overall allocated curve: its times' column descriptor,
     * which the category bands share when their times are the same (a
     * second copy of the largest column, in a memory-heavy trace). */
    ml_buf alloc_tdesc;
} rank_ctx;

static int64_t rel(const rank_ctx *c, int64_t t) { return t - c->origin; }

/* ---- writing a device's view ------------------------------------------- */

/* One curve into meta: points, pyramid, maximum; save_t: copy the times'
 * descriptor into alloc_tdesc. */
static void put_curve(rank_ctx *c, const ml_mv_curve *cv, bool save_t)
{
    ml_buf *m = c->meta;
    ml_buf_puts(m, "{\"kind\":");
    ml_json_str(m, cv->kind);
    ml_buf_puts(m, ",\"group\":");
    ml_json_str(m, cv->group);
    ml_buf_puts(m, ",\"label\":");
    ml_json_str(m, cv->label);
    if (cv->of) {
        ml_buf_puts(m, ",\"of\":");
        ml_json_str(m, cv->of);
    }
    ml_buf_printf(m, ",\"n\":%zu,\"fan\":%d,\"max\":", cv->n, ML_M4_FAN);
    ml_json_i64(m, cv->max);
    ml_buf_puts(m, ",\"tmax\":");
    ml_json_i64(m, cv->tmax);
    ml_buf_puts(m, ",\"t\":");
    size_t at = m->len;
    ml_col_i64(c->bl, m, cv->t, cv->n, 1);
    if (save_t) {
        c->alloc_tdesc.len = 0;
        ml_buf_put(&c->alloc_tdesc, m->p + at, m->len - at);
    }
    ml_buf_puts(m, ",\"v\":");
    ml_col_i64(c->bl, m, cv->v, cv->n, 1);
    ml_buf_puts(m, ",\"mn\":");
    ml_col_u32(c->bl, m, cv->py.argmin, cv->py.total);
    ml_buf_puts(m, ",\"mx\":");
    ml_col_u32(c->bl, m, cv->py.argmax, cv->py.total);
    ml_buf_puts(m, "}");
}

static void put_label_sums(ml_buf *m, const ml_mv_sum *ls, size_t n)
{
    ml_buf_puts(m, "[");
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ls[i].bytes && !ls[i].count) continue;
        ml_buf_puts(m, shown++ ? "," : "");
        ml_buf_puts(m, "[");
        ml_json_str(m, ls[i].label);
        ml_buf_puts(m, ",");
        ml_json_i64(m, ls[i].bytes);
        ml_buf_printf(m, ",%" PRId64 "]", ls[i].count);
    }
    ml_buf_puts(m, "]");
}

void ml_report_put_peak(const ml_memview *v, ml_buf *m)
{
    ml_buf_printf(m, "{\"curve\":%d,\"v\":", v->peak_curve);
    ml_json_i64(m, v->peak_v);
    ml_buf_puts(m, ",\"t\":");
    ml_json_i64(m, v->peak_t - v->origin);
    ml_buf_printf(m, ",\"event\":%" PRId64 ",\"kind\":\"%s\",\"live_tracked\":", v->peak_event, v->peak_kind);
    ml_json_i64(m, v->live_tracked);
    ml_buf_printf(m, ",\"live_count\":%" PRId64 ",\"untracked\":", v->live_count);
    ml_json_i64(m, v->untracked);
    ml_buf_puts(m, ",\"by_op\":");
    put_label_sums(m, v->peak_by_op, v->group_label.len);
    ml_buf_puts(m, ",\"by_frame\":");
    put_label_sums(m, v->peak_by_frame, v->npeak_by_frame);
    ml_buf_puts(m, ",\"by_category\":");
    put_label_sums(m, v->peak_by_cat, ML_CAT__COUNT + 1);
    ml_buf_puts(m, "}");
}

void ml_report_put_ops(const ml_memview *v, ml_buf *m)
{
    ml_buf_puts(m, "[");
    size_t nops = 0;
    for (size_t g = 0; g < v->group_label.len; g++) {
        const ml_mv_group_stat *gs = &v->gs[g];
        if (!gs->allocs && !gs->peak) continue;
        ml_buf_puts(m, nops++ ? ",[" : "[");
        ml_json_str(m, v->group_label.v[g]);
        if (v->calls[g] >= 0) ml_buf_printf(m, ",%" PRId64 ",", v->calls[g]);
        else ml_buf_puts(m, ",null,");
        ml_buf_printf(m, "%" PRId64 ",", gs->allocs);
        ml_json_i64(m, gs->bytes);
        ml_buf_puts(m, ",");
        ml_json_i64(m, gs->net);
        ml_buf_puts(m, ",");
        ml_json_i64(m, gs->peak);
        ml_buf_puts(m, "]");
    }
    ml_buf_puts(m, "]");
}

/* The column encoders by the table's name for them (memview.h ML_MV_COLUMNS). */
static void col_i64(ml_blobs *bl, ml_buf *m, const int64_t *v, size_t n, int delta) { ml_col_i64(bl, m, v, n, delta); }
static void col_u32(ml_blobs *bl, ml_buf *m, const uint32_t *v, size_t n, int delta) { (void)delta; ml_col_u32(bl, m, v, n); }
static void col_u8(ml_blobs *bl, ml_buf *m, const uint8_t *v, size_t n, int delta) { (void)delta; ml_col_u8(bl, m, v, n); }

/* category_curves: the bands of the view on their shared time column
 * (written once; the allocated curve's own when the times are its).  They
 * need no M4 pyramid of their own: the page and the server build one per
 * band top. */
static void put_category_curves(rank_ctx *c, ml_memview *v)
{
    ml_memview_categories(v);
    if (!v->cat_any) return;
    ml_buf tcol = {0};
    if (v->cat_t_shared) ml_buf_put(&tcol, c->alloc_tdesc.p, c->alloc_tdesc.len);
    else ml_col_i64(c->bl, &tcol, v->cat_t, v->ncat_t, 1);
    int64_t *val = ml_malloc((v->ncat_t ? v->ncat_t : 1) * sizeof *val);
    for (size_t k = 0; k < v->bands.len; k++) {
        const ml_mv_band *b = &v->bands.v[k];
        ml_buf_printf(c->meta, "%s{\"cat\":%d,\"curve\":{\"kind\":\"allocated\",\"group\":\"category\",\"label\":",
                      k ? "," : "", b->cat);
        ml_json_str(c->meta, b->label);
        ml_buf_printf(c->meta, ",\"n\":%zu,\"max\":", v->ncat_t);
        ml_json_i64(c->meta, b->max);
        ml_buf_puts(c->meta, ",\"tmax\":");
        ml_json_i64(c->meta, b->tmax);
        ml_buf_puts(c->meta, ",\"t\":");
        ml_buf_put(c->meta, tcol.p, tcol.len);
        ml_buf_puts(c->meta, ",\"v\":");
        ml_memview_band_values(v, k, val);
        ml_col_i64(c->bl, c->meta, val, v->ncat_t, 1);
        ml_buf_puts(c->meta, "}}");
    }
    free(val);
    ml_buf_free(&tcol);
}

/* ---- one device -------------------------------------------------------- */

/* Writes device dev's view; keep: return it whole, else what has been
 * written is freed as it goes (NULL returned). */
static ml_memview *put_device(rank_ctx *c, uint16_t dev, bool keep)
{
    const ml_profile *p = c->p;
    ml_buf *m = c->meta;
    const ml_device *d = &p->devices.v[dev];
    ml_mv_opts o = { .max_allocs = c->max_allocs, .insight_names = insight_names(p), .calls = c->calls };
    ml_memview *v = ml_memview_build(p, dev, c->origin, &o, &c->str);

    ml_buf_puts(m, "{\"id\":");
    ml_json_str(m, d->id);
    ml_buf_puts(m, ",\"name\":");
    ml_json_str(m, d->name ? ml_s(p, d->name) : "");
    ml_buf_puts(m, ",\"total\":");
    ml_json_i64(m, d->total_memory);
    ml_buf_puts(m, ",\"t0\":");
    ml_json_i64(m, rel(c, v->t0));
    ml_buf_puts(m, ",\"t1\":");
    ml_json_i64(m, rel(c, v->t1));

    /* Curves: overall, per component / stream, then the trace's allocations. */
    ml_buf_puts(m, ",\"curves\":[");
    c->alloc_tdesc.len = 0;
    for (size_t k = 0; k < v->curves.len; k++) {
        ml_buf_puts(m, k ? "," : "");
        put_curve(c, &v->curves.v[k], (int)k == v->alloc_curve);
        if (!keep) ml_memview_release_curve(v, &v->curves.v[k]);
    }
    ml_buf_puts(m, "],\"peak\":");
    ml_report_put_peak(v, m);

    /* A trace without addresses: its memory events by top-level operator,
     * and their nets until the peak (which add up to the replayed curve there). */
    if (ml_unmatched_applies(p, dev)) {
        ml_unmatched um;
        ml_unmatched_by_op(p, dev, v->peak_found ? v->peak_t : INT64_MAX, &um);
        ml_buf_printf(m, ",\"unmatched\":{\"why\":\"the trace's memory events carry no addresses (PyTorch before 1.10): "
                         "a free cannot be told from which allocation it frees\",\"allocs\":%" PRId64 ",\"frees\":%" PRId64
                         ",\"by_op\":[", um.allocs, um.frees);
        for (size_t k = 0; k < um.n; k++) {
            const ml_unmatched_row *r = &um.rows[k];
            ml_buf_puts(m, k ? ",[" : "[");
            ml_json_str(m, r->op ? ml_s(p, r->op) : ML_UNMATCHED_NO_OP);
            ml_buf_printf(m, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]", r->allocs, r->alloc_bytes,
                          r->frees, r->free_bytes, r->net_at);
        }
        ml_buf_puts(m, "]}");
        ml_unmatched_free(&um);
    }

    /* Per-operator statistics over all allocations (not only the drawn ones). */
    ml_buf_puts(m, ",\"ops\":");
    ml_report_put_ops(v, m);

    size_t ngroups = v->group_label.len;
    ml_buf_printf(m, ",\"allocs\":{\"n\":%zu,\"total\":%zu,\"summarised\":%zu,\"summarised_bytes\":",
                  v->n, v->total, v->summarised);
    ml_json_i64(m, v->summarised_bytes);
    /* which columns the device's allocations fill (the table leaves out the others) */
    ml_buf_printf(m, ",\"has\":{\"op\":%s,\"stream\":%s,\"addr\":%s}", v->has_op ? "true" : "false",
                  v->has_stream ? "true" : "false", v->has_addr ? "true" : "false");
    ml_buf_printf(m, ",\"group_by\":\"%s\",\"groups\":[", v->by_frame ? "frame" : "op");
    for (size_t g = 0; g < ngroups; g++) {
        ml_buf_puts(m, g ? "," : "");
        ml_json_str(m, v->group_label.v[g]);
    }
    /* each group's allocations and bytes (all of them, embedded or not): the lane order */
    ml_buf_puts(m, "],\"group_bytes\":[");
    for (size_t g = 0; g < ngroups; g++) {
        ml_buf_puts(m, g ? "," : "");
        ml_json_i64(m, v->gs[g].bytes);
    }
    ml_buf_puts(m, "],\"group_count\":[");
    for (size_t g = 0; g < ngroups; g++) ml_buf_printf(m, "%s%" PRId64, g ? "," : "", v->gs[g].allocs);
    ml_buf_puts(m, "]");
    /* the columns, as memview.h's table declares them (an optional one only when the view has it) */
#define PUT_COL(name, type, enc, delta, opt, api)                                    \
    if (v->name) {                                                                  \
        ml_buf_puts(m, ",\"" #name "\":");                                          \
        col_##enc(c->bl, m, v->name, v->n, delta);                                  \
        if (!keep) { free(v->name); v->name = NULL; }                               \
    }
    ML_MV_COLUMNS(PUT_COL)
#undef PUT_COL
    ml_buf_puts(m, "}");

    /* Curves per group (largest at the peak first), for "group by op". */
    ml_buf_puts(m, ",\"op_curves\":[");
    for (size_t k = 0; k < v->op_curves.len; k++) {
        ml_buf_puts(m, k ? "," : "");
        put_curve(c, &v->op_curves.v[k], false);
        if (!keep) ml_memview_release_curve(v, &v->op_curves.v[k]);
    }
    ml_buf_puts(m, "],\"category_curves\":[");
    put_category_curves(c, v);
    ml_buf_puts(m, "]");
    if (ml_report_is_static(p)) ml_report_static(p, dev, m);
    if (ml_report_has_segments(p)) ml_report_segments(p, dev, c->origin, c->max_history, m);
    ml_buf_puts(m, "}");
    if (keep) return v;
    ml_memview_free(v);
    return NULL;
}

/* ---- one rank ---------------------------------------------------------- */

void ml_report_rank_head(const ml_profile *p, ml_buf *m)
{
    ml_buf_printf(m, "{\"rank\":%d,\"world_size\":%d,\"path\":", p->rank, p->world_size);
    ml_json_str(m, p->path);
    ml_buf_puts(m, ",\"format\":");
    ml_json_str(m, p->format);
    ml_report_caps_json(m, &p->caps, ml_devkind_of_profile(p));
    ml_buf_puts(m, ",\"host\":");
    ml_json_str(m, p->host ? ml_s(p, p->host) : "");
    ml_buf_printf(m, ",\"time\":\"%s\"", p->time_is_event_order ? "order" : p->time_is_absolute ? "abs" : "rel");
    ml_buf_puts(m, ",\"notes\":[");
    for (size_t i = 0; i < p->notes.len; i++) {
        ml_buf_puts(m, i ? "," : "");
        ml_json_str(m, ml_s(p, p->notes.v[i]));
    }
    ml_buf_puts(m, "]");
    /* The time side (Overview, Operators ... views): whether the rank has one, else why not. */
    const char *why = ml_perf_unavailable(p);
    ml_buf_printf(m, ",\"perf\":%s,\"perfWhy\":", why ? "false" : "true");
    if (why) ml_json_str(m, why);
    else ml_buf_puts(m, "null");
}

void ml_report_rank_keep(const ml_profile *p, int64_t origin, size_t max_allocs, size_t max_history, ml_buf *m,
                         ml_blobs *bl, ml_mv_strings *strings, ml_memview ***views, size_t *nviews)
{
    bool keep = views != NULL;
    if (keep) {
        *views = ml_calloc(p->devices.len + 1, sizeof **views);
        *nviews = 0;
    }
    rank_ctx c = { .p = p, .origin = origin, .bl = bl, .meta = m, .max_allocs = max_allocs, .max_history = max_history };
    ml_mv_strings_init(&c.str, p);
    size_t nstr = c.str.nstr;
    c.calls = ml_calloc(nstr ? nstr : 1, sizeof *c.calls);
    for (size_t i = 0; i < p->ops.name.len; i++)
        if (p->ops.kind.v[i] == ML_OP_CPU && p->ops.name.v[i] < nstr) c.calls[p->ops.name.v[i]]++;

    ml_report_rank_head(p, m);
    ml_buf_puts(m, ",\"devices\":[");
    size_t shown = 0;
    for (size_t d = 0; d < p->devices.len; d++) {
        if (!ml_memview_device_shown(p, (uint16_t)d)) continue;
        ml_buf_puts(m, shown++ ? "," : "");
        ml_memview *v = put_device(&c, (uint16_t)d, keep);
        if (keep) (*views)[(*nviews)++] = v;
    }
    ml_buf_puts(m, "]");
    ml_phase("report: devices (memory side)");

    /* Stacks and frames (the whole pool of the rank: they are deduplicated). */
    size_t nst = p->stack_start.len;
    uint32_t *u = ml_malloc((p->frames.len + nst + p->stack_frames.len + 1) * sizeof *u);
    for (size_t i = 0; i < nst; i++) u[i] = p->stack_start.v[i];
    ml_buf_puts(m, ",\"stack_start\":");
    ml_col_u32(bl, m, u, nst);
    ml_buf_puts(m, ",\"stack_frames\":");
    ml_col_u32(bl, m, p->stack_frames.v, p->stack_frames.len);
    for (size_t i = 0; i < p->frames.len; i++) u[i] = ml_mv_str(&c.str, p->frames.v[i].name);
    ml_buf_puts(m, ",\"frame_name\":");
    ml_col_u32(bl, m, u, p->frames.len);
    for (size_t i = 0; i < p->frames.len; i++) u[i] = ml_mv_str(&c.str, p->frames.v[i].file);
    ml_buf_puts(m, ",\"frame_file\":");
    ml_col_u32(bl, m, u, p->frames.len);
    int64_t *ln = ml_malloc((p->frames.len + 1) * sizeof *ln);
    for (size_t i = 0; i < p->frames.len; i++) ln[i] = p->frames.v[i].line;
    ml_buf_puts(m, ",\"frame_line\":");
    ml_col_i64(bl, m, ln, p->frames.len, 0);
    free(ln);
    free(u);

    /* Memory categories: names and colours by code, reasons by code (categories.h). */
    ml_buf_puts(m, ",\"categories\":[");
    for (int k = 0; k < ML_CAT__COUNT; k++) {
        ml_buf_puts(m, k ? ",{\"name\":" : "{\"name\":");
        ml_json_str(m, ml_category_name(k));
        ml_buf_puts(m, ",\"color\":");
        ml_json_str(m, ml_category_color(k));
        ml_buf_puts(m, "}");
    }
    ml_buf_puts(m, "],\"category_order\":[");
    for (int j = 0; j < ML_CAT__COUNT; j++) ml_buf_printf(m, "%s%d", j ? "," : "", ml_category_order[j]);
    ml_buf_puts(m, "],\"reasons\":[");
    for (int k = 0; k < ML_REASON__COUNT; k++) {
        ml_buf_puts(m, k ? "," : "");
        ml_json_str(m, ml_category_reason_text(k));
    }
    ml_buf_puts(m, "]");
    ml_phase("report: stacks, frames");
    ml_report_trace(p, origin, ML_REPORT_MAX_SLICES, m, bl); /* the Trace view's slices (report_trace.h) */
    ml_phase("report: trace slices");
    ml_buf_puts(m, ",\"strings\":[");
    for (size_t i = 0; i < c.str.ids.len; i++) {
        ml_buf_puts(m, i ? "," : "");
        ml_json_str(m, ml_s(p, c.str.ids.v[i]));
    }
    ml_buf_puts(m, "]}");
    if (keep && strings) *strings = c.str;
    else ml_mv_strings_free(&c.str);
    ml_buf_free(&c.alloc_tdesc);
    free(c.calls);
}

void ml_report_rank(const ml_profile *p, int64_t origin, size_t max_allocs, size_t max_history, ml_buf *m, ml_blobs *bl)
{
    ml_report_rank_keep(p, origin, max_allocs, max_history, m, bl, NULL, NULL, NULL);
}

int ml_report_data(const ml_profiles *ps, const ml_report_opts *o, ml_buf *m, ml_blobs *bl, ml_err *e)
{
    if (!ps->items.len) return ml_fail(e, "report: no profile to show");
    int64_t origin = INT64_MAX;
    for (size_t r = 0; r < ps->items.len; r++) {
        int64_t t = ml_profile_first_time(ps->items.v[r]);
        if (t < origin) origin = t;
    }
    if (origin == INT64_MAX) origin = 0;
    size_t max_allocs = o && o->max_allocs ? o->max_allocs : ML_REPORT_MAX_ALLOCS;
    if (o && o->zlevel) bl->level = o->zlevel;

    ml_report_meta_open(m, origin, o ? (const char *const *)o->inputs : NULL, o ? o->n_inputs : 0, ps->skipped.v,
                        ps->skipped.len);
    /* Blobs deflate on a second thread; a caller that started that itself
     * (ml_report_write) waits for it when it needs the page. */
    bool mine = !bl->q;
    if (mine) ml_blobs_async(bl);
    for (size_t r = 0; r < ps->items.len; r++) {
        ml_buf_puts(m, r ? "," : "");
        ml_report_rank(ps->items.v[r], origin, max_allocs, o ? o->max_history : 0, m, bl);
    }
    ml_buf_puts(m, "]}");
    if (mine) ml_blobs_finish(bl, m);
    return 0;
}

static bool perf_json(const ml_profile *p, bool own, const ml_distributed *dist, int top, ml_buf *out)
{
    if (top <= 0) top = ML_PERF_TOP_DEFAULT;
    if (ml_perf_unavailable(p)) return false;
    char *mem = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&mem, &n);
    if (!f) return false;
    jw w;
    jw_init(&w, f, false);
    if (own) ml_perf_json_rank(&w, p, top);
    else ml_perf_json_rank_with(&w, p, top, dist);
    if (fclose(f) != 0 || !mem || n < 2 || !strncmp(mem, "null", 4)) {
        free(mem);
        return false;
    }
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        if (mem[i] != '<') continue;
        ml_buf_put(out, mem + from, i - from);
        ml_buf_puts(out, "\\u003c");
        from = i + 1;
    }
    ml_buf_put(out, mem + from, n - from);
    free(mem);
    return true;
}

bool ml_report_perf_json(const ml_profile *p, ml_buf *out) { return perf_json(p, true, NULL, 0, out); }

bool ml_report_perf_json_with(const ml_profile *p, const ml_distributed *dist, int top, ml_buf *out)
{
    return perf_json(p, false, dist, top, out);
}
