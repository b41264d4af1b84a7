/* summary_ascend.c — component, stream, static-graph and cross-rank parts of
 * `memlens summary`; see summary_ascend.h. */
#include "summary_ascend.h"
#include "textwidth.h"
#include "components.h"
#include "curve.h"
#include "format.h"

#include <stdlib.h>
#include <string.h>

int ml_curves_by_parse(const char *s)
{
    if (!strcmp(s, "overall")) return ML_CURVES_OVERALL;
    if (!strcmp(s, "stream")) return ML_CURVES_STREAM;
    if (!strcmp(s, "component")) return ML_CURVES_COMPONENT;
    return -1;
}

const char *ml_curves_by_name(int curves_by)
{
    return curves_by == ML_CURVES_STREAM ? "stream" : curves_by == ML_CURVES_OVERALL ? "overall" : "component";
}

/* Whether the device has named components (Ascend) or static graphs. */
static bool has_components(const ml_profile *p, int device)
{
    for (size_t i = 0; i < p->series.len; i++)
        if (p->series.v[i].device == device &&
            (p->series.v[i].component || p->series.v[i].kind == ML_SERIES_APP_RESERVED))
            return true;
    return false;
}

/* One row of the component table. */
typedef struct comp_row {
    const char *name;
    const char *source;        /* "allocator", "process", "module", "device", "graph" */
    int64_t reserved, t_reserved;
    bool has_allocated;
    int64_t allocated, t_allocated;
} comp_row;

static int cmp_row(const void *a, const void *b)
{
    const comp_row *x = a, *y = b;
    if (x->reserved != y->reserved) return x->reserved > y->reserved ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Component rows of a device: allocator components (reserved, allocated),
 * APP, driver modules and the whole device (ML_SERIES_OTHER), sorted by peak. */
static size_t component_rows(const ml_profile *p, int device, comp_row **out)
{
    comp_row *rows = ml_calloc(p->series.len + 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < p->series.len; i++) {
        const ml_series *s = &p->series.v[i];
        if (s->device != device || s->stream) continue;
        int64_t v, t;
        if (!ml_series_peak(s, &v, &t)) continue;
        comp_row r = {ml_s(p, s->component), NULL, v, t, false, 0, 0};
        if (s->kind == ML_SERIES_APP_RESERVED) r.name = "APP", r.source = "process";
        else if (s->kind == ML_SERIES_OTHER) r.source = strcmp(r.name, "DEVICE") ? "module" : "device";
        else if (s->kind == ML_SERIES_RESERVED && s->component) {
            r.source = p->time_is_event_order ? "graph total" : "allocator";
            const ml_series *a = ml_series_find(p, (uint16_t)device, ML_SERIES_ALLOCATED, r.name, 0);
            r.has_allocated = ml_series_peak(a, &r.allocated, &r.t_allocated);
        } else continue;
        rows[n++] = r;
    }
    qsort(rows, n, sizeof *rows, cmp_row);
    *out = rows;
    return n;
}

/* When a component row peaked: a time, or a node index in a static graph. */
static const char *row_when(const ml_profile *p, int64_t t, char *buf, size_t cap)
{
    if (p->time_is_event_order) snprintf(buf, cap, "node %lld", (long long)t);
    else ml_fmt_time(t, p->time_is_absolute, buf, cap);
    return buf;
}

/* The name a component row is shown under: driver modules may share a name
 * with an allocator component or the process (APP, GE), so they say so. */
static void row_name(const comp_row *r, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s", strcmp(r->source, "module") ? "" : "module ", r->name);
}

static void text_components(FILE *f, const ml_profile *p, int device, const ml_summary_opts *o)
{
    comp_row *rows;
    size_t n = component_rows(p, device, &rows), hidden = 0;
    char a[32], b[48], c[32], name[96];
    int width = 10;
    for (size_t i = 0; i < n; i++) {
        row_name(&rows[i], name, sizeof name);
        if ((o->all || rows[i].reserved >= ML_SMALL_COMPONENT) && (int)strlen(name) > width) width = (int)strlen(name);
    }
    fprintf(f, "  components, peak reserved%s:\n", o->all ? "" : " (under 100 MiB hidden; --all shows them)");
    for (size_t i = 0; i < n; i++) {
        if (!o->all && rows[i].reserved < ML_SMALL_COMPONENT) {
            hidden++;
            continue;
        }
        row_name(&rows[i], name, sizeof name);
        fprintf(f, "    %-*s %-11s %12s  at %s", width, ML_TEXT_SAFE(name), rows[i].source, ml_fmt_bytes(rows[i].reserved, a, sizeof a),
                row_when(p, rows[i].t_reserved, b, sizeof b));
        if (rows[i].has_allocated) fprintf(f, "   (peak allocated %s)", ml_fmt_bytes(rows[i].allocated, c, sizeof c));
        fputc('\n', f);
    }
    if (hidden) fprintf(f, "    (%zu smaller components hidden)\n", hidden);
    free(rows);
}

static void text_streams(FILE *f, const ml_profile *p, int device)
{
    char a[32], b[32];
    fprintf(f, "  streams (component totals sampled at each stream's records):\n");
    for (size_t i = 0; i < p->series.len; i++) {
        const ml_series *s = &p->series.v[i];
        if (s->device != device || !s->stream || s->kind != ML_SERIES_ALLOCATED) continue;
        int64_t va, ta, vr = 0, tr;
        const ml_series *r = ml_series_find(p, (uint16_t)device, ML_SERIES_RESERVED, ml_s(p, s->component), s->stream);
        if (!ml_series_peak(s, &va, &ta)) continue;
        bool has_r = ml_series_peak(r, &vr, &tr);
        fprintf(f, "    %-8s stream %-16s peak allocated %12s  reserved %12s  (%zu records)\n",
                ML_TEXT_SAFE(ml_s(p, s->component)), ML_TEXT_SAFE(ml_s(p, s->stream)), ml_fmt_bytes(va, a, sizeof a),
                has_r ? ml_fmt_bytes(vr, b, sizeof b) : "-", s->ts.len);
    }
}

/* Static graphs: op_top labels of the allocs on the device, in first-seen
 * order, as an allocated array (*out); returns the count. */
static size_t graphs_of(const ml_profile *p, int device, ml_str **out)
{
    VEC(ml_str) gs = {0};
    for (size_t i = 0; i < p->allocs.t_alloc.len; i++) {
        if (p->allocs.device.v[i] != device) continue;
        ml_str g = p->allocs.op_top.v[i];
        size_t k = gs.len;
        /* the same graph's rows are usually together: look from the last one back */
        while (k > 0 && gs.v[k - 1] != g) k--;
        if (k == 0) VEC_PUSH(&gs, g);
    }
    *out = gs.v;
    return gs.len;
}

static void text_static(FILE *f, const ml_profile *p, int device, const ml_summary_opts *o)
{
    ml_str *graphs;
    size_t n = graphs_of(p, device, &graphs);
    char a[32], b[32];
    for (size_t g = 0; g < n; g++) {
        int64_t peak, at, total = -1, tt;
        if (!ml_allocs_peak(p, (uint16_t)device, graphs[g], &peak, &at)) continue;
        ml_series_peak(ml_series_find(p, (uint16_t)device, ML_SERIES_RESERVED, ml_s(p, graphs[g]), 0), &total, &tt);
        fprintf(f, "  %s: peak of live operator memory %s at node %lld; TOTAL row %s\n", ML_TEXT_SAFE(ml_s(p, graphs[g])),
                ml_fmt_bytes(peak, a, sizeof a), (long long)at, total >= 0 ? ml_fmt_bytes(total, b, sizeof b) : "-");
    }
    free(graphs);
}

void ml_summary_ascend_text(FILE *f, const ml_profile *p, int device, const ml_summary_opts *o)
{
    if (!has_components(p, device)) return;
    char a[32], b[48];
    if (p->time_is_event_order) {
        text_static(f, p, device, o);
        if (o->curves_by != ML_CURVES_OVERALL) text_components(f, p, device, o);
        return;
    }
    ml_str head = ml_headline_component(p, (uint16_t)device);
    if (head) fprintf(f, "  device totals    from component %s\n", ML_TEXT_SAFE(ml_s(p, head)));
    int64_t v, t;
    if (ml_series_peak(ml_series_find(p, (uint16_t)device, ML_SERIES_ACTIVE, NULL, 0), &v, &t))
        fprintf(f, "  peak active      %-12s at %s\n", ml_fmt_bytes(v, a, sizeof a), ml_fmt_time(t, p->time_is_absolute, b, sizeof b));
    if (ml_series_peak(ml_series_find(p, (uint16_t)device, ML_SERIES_APP_RESERVED, NULL, 0), &v, &t))
        fprintf(f, "  APP reserved     %-12s at %s  (whole process)\n", ml_fmt_bytes(v, a, sizeof a),
                ml_fmt_time(t, p->time_is_absolute, b, sizeof b));
    if (o->curves_by == ML_CURVES_COMPONENT) text_components(f, p, device, o);
    else if (o->curves_by == ML_CURVES_STREAM) text_streams(f, p, device);
}

static void json_peak(jw *w, const char *key, const char *tkey, const ml_series *s)
{
    int64_t v, t;
    bool ok = ml_series_peak(s, &v, &t);
    jw_key(w, key);
    if (ok) jw_i64(w, v); else jw_null(w);
    if (tkey) {
        jw_key(w, tkey);
        if (ok) jw_i64(w, t); else jw_null(w);
    }
}

void ml_summary_ascend_json(jw *w, const ml_profile *p, int device, const ml_summary_opts *o)
{
    if (!has_components(p, device)) return;
    uint16_t d = (uint16_t)device;
    ml_str head = ml_headline_component(p, d);
    jw_key(w, "headline_component");
    if (head) jw_str(w, ml_s(p, head)); else jw_null(w);
    int64_t v, t;
    bool ok = ml_series_peak(ml_series_find(p, d, ML_SERIES_RESERVED, NULL, 0), &v, &t);
    jw_key(w, "peak_reserved_time_ns");
    if (ok) jw_i64(w, t); else jw_null(w);
    json_peak(w, "peak_active_bytes", "peak_active_time_ns", ml_series_find(p, d, ML_SERIES_ACTIVE, NULL, 0));
    json_peak(w, "app_reserved_peak_bytes", "app_reserved_peak_time_ns",
              ml_series_find(p, d, ML_SERIES_APP_RESERVED, NULL, 0));
    int64_t cnt, bytes;
    ml_unreleased(p, d, &cnt, &bytes);
    jw_key(w, "unreleased_allocations"); jw_i64(w, cnt);
    jw_key(w, "unreleased_bytes"); jw_i64(w, bytes);
    comp_row *rows;
    size_t n = component_rows(p, device, &rows);
    jw_key(w, "components");
    jw_arr(w);
    for (size_t i = 0; i < n; i++) {
        jw_obj(w);
        jw_key(w, "component"); jw_str(w, rows[i].name);
        jw_key(w, "source"); jw_str(w, rows[i].source);
        jw_key(w, "peak_reserved_bytes"); jw_i64(w, rows[i].reserved);
        jw_key(w, "peak_reserved_time_ns"); jw_i64(w, rows[i].t_reserved);
        jw_key(w, "peak_allocated_bytes");
        if (rows[i].has_allocated) jw_i64(w, rows[i].allocated); else jw_null(w);
        jw_end(w);
    }
    jw_end(w);
    free(rows);
    jw_key(w, "streams");
    jw_arr(w);
    for (size_t i = 0; i < p->series.len; i++) {
        const ml_series *s = &p->series.v[i];
        if (s->device != d || !s->stream || s->kind != ML_SERIES_ALLOCATED || !ml_series_peak(s, &v, &t)) continue;
        jw_obj(w);
        jw_key(w, "component"); jw_str(w, ml_s(p, s->component));
        jw_key(w, "stream"); jw_str(w, ml_s(p, s->stream));
        jw_key(w, "peak_allocated_bytes"); jw_i64(w, v);
        jw_key(w, "peak_allocated_time_ns"); jw_i64(w, t);
        jw_key(w, "records"); jw_i64(w, (int64_t)s->ts.len);
        jw_end(w);
    }
    jw_end(w);
    if (p->time_is_event_order) {
        ml_str *graphs;
        size_t ng = graphs_of(p, device, &graphs);
        jw_key(w, "graphs");
        jw_arr(w);
        for (size_t g = 0; g < ng; g++) {
            int64_t peak, at;
            if (!ml_allocs_peak(p, d, graphs[g], &peak, &at)) continue;
            jw_obj(w);
            jw_key(w, "graph"); jw_str(w, ml_s(p, graphs[g]));
            jw_key(w, "peak_bytes"); jw_i64(w, peak);
            jw_key(w, "peak_node"); jw_i64(w, at);
            json_peak(w, "total_row_bytes", NULL, ml_series_find(p, d, ML_SERIES_RESERVED, ml_s(p, graphs[g]), 0));
            jw_end(w);
        }
        jw_end(w);
        free(graphs);
    }
}

