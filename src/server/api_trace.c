/*
 * api_trace.c — /api/trace, /api/slice (see api_trace.h).
 *
 * The index groups the slices of p->trace (sorted by track, then start)
 * into lanes, one per (track, depth): slices of a lane never overlap, so
 * their starts and ends are both ascending and a window is two binary
 * searches away.  A window walks each lane with jumps of one pixel column
 * (binary search), merging the runs of slices narrower than a pixel, as
 * web/src/tracedata.js mergeLane does.
 */
#include "api_trace.h"
#include "jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colbuf.h"
#include "report_trace.h"
#include "trace.h"
#include "textmatch.h"

struct ml_sv_trace {
    size_t n, nlanes;
    int64_t origin, t0, t1;
    uint32_t *lane_track;
    uint16_t *lane_depth;
    size_t *lane_lo;          /* nlanes + 1 offsets into ids/ts/end */
    uint32_t *ids;
    int64_t *ts, *end;        /* relative */
    uint32_t *launched_start, *launched;   /* CSR: the GPU work each slice launched */
    uint32_t *flow_start, *flow_items;     /* CSR: the flows of each slice */
};

static uint32_t *csr_start(size_t n) { return ml_calloc(n + 2, sizeof(uint32_t)); }

ml_sv_trace *ml_sv_trace_build(const ml_profile *p, int64_t origin)
{
    const ml_trace *t = p->trace;
    if (!t || !t->slices.ts.len) return NULL;
    const ml_slices *s = &t->slices;
    ml_sv_trace *x = ml_calloc(1, sizeof *x);
    size_t n = s->ts.len, ntr = t->tracks.len;
    x->n = n;
    x->origin = origin;
    x->t0 = t->span_begin - origin;
    x->t1 = t->span_end - origin;
    /* lanes: per track its depths */
    uint16_t *dmax = ml_calloc(ntr + 1, sizeof *dmax);
    uint8_t *has = ml_calloc(ntr + 1, 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = s->track.v[i];
        if (k >= ntr) continue;
        has[k] = 1;
        if (s->depth.v[i] > dmax[k]) dmax[k] = s->depth.v[i];
    }
    size_t *base = ml_malloc((ntr + 1) * sizeof *base);
    for (size_t k = 0; k < ntr; k++) {
        base[k] = x->nlanes;
        if (has[k]) x->nlanes += (size_t)dmax[k] + 1;
    }
    x->lane_track = ml_malloc((x->nlanes + 1) * sizeof *x->lane_track);
    x->lane_depth = ml_malloc((x->nlanes + 1) * sizeof *x->lane_depth);
    x->lane_lo = ml_calloc(x->nlanes + 2, sizeof *x->lane_lo);
    for (size_t k = 0; k < ntr; k++)
        for (size_t d = 0; has[k] && d <= dmax[k]; d++) {
            x->lane_track[base[k] + d] = (uint32_t)k;
            x->lane_depth[base[k] + d] = (uint16_t)d;
        }
    for (size_t i = 0; i < n; i++)
        if (s->track.v[i] < ntr) x->lane_lo[base[s->track.v[i]] + s->depth.v[i] + 1]++;
    for (size_t l = 0; l < x->nlanes; l++) x->lane_lo[l + 1] += x->lane_lo[l];
    size_t total = x->lane_lo[x->nlanes];
    x->ids = ml_malloc((total + 1) * sizeof *x->ids);
    x->ts = ml_malloc((total + 1) * sizeof *x->ts);
    x->end = ml_malloc((total + 1) * sizeof *x->end);
    size_t *at = ml_malloc((x->nlanes + 1) * sizeof *at);
    memcpy(at, x->lane_lo, (x->nlanes + 1) * sizeof *at);
    /* the store is sorted by (track, start): a counting sort keeps each lane by start */
    for (size_t i = 0; i < n; i++) {
        if (s->track.v[i] >= ntr) continue;
        size_t q = at[base[s->track.v[i]] + s->depth.v[i]]++;
        x->ids[q] = (uint32_t)i;
        x->ts[q] = s->ts.v[i] - origin;
        x->end[q] = s->ts.v[i] + ml_slice_dur(s, i) - origin;
    }
    free(at);
    free(base);
    free(dmax);
    free(has);
    /* launched: the inverse of launcher */
    x->launched_start = csr_start(n);
    size_t nl = 0;
    for (size_t i = 0; i < n && s->launcher.len; i++)
        if (s->launcher.v[i] < n) { x->launched_start[s->launcher.v[i] + 2]++; nl++; }
    for (size_t i = 0; i < n; i++) x->launched_start[i + 2] += x->launched_start[i + 1];
    x->launched = ml_malloc((nl + 1) * sizeof *x->launched);
    for (size_t i = 0; i < n && s->launcher.len; i++)
        if (s->launcher.v[i] < n) x->launched[x->launched_start[s->launcher.v[i] + 1]++] = (uint32_t)i;
    /* flows per slice (both ends) */
    x->flow_start = csr_start(n);
    size_t nf = 0;
    for (size_t f = 0; f < t->flows.len; f++) {
        const ml_flow *fl = &t->flows.v[f];
        if (fl->from < n) { x->flow_start[fl->from + 2]++; nf++; }
        if (fl->to < n && fl->to != fl->from) { x->flow_start[fl->to + 2]++; nf++; }
    }
    for (size_t i = 0; i < n; i++) x->flow_start[i + 2] += x->flow_start[i + 1];
    x->flow_items = ml_malloc((nf + 1) * sizeof *x->flow_items);
    for (size_t f = 0; f < t->flows.len; f++) {
        const ml_flow *fl = &t->flows.v[f];
        if (fl->from < n) x->flow_items[x->flow_start[fl->from + 1]++] = (uint32_t)f;
        if (fl->to < n && fl->to != fl->from) x->flow_items[x->flow_start[fl->to + 1]++] = (uint32_t)f;
    }
    return x;
}

void ml_sv_trace_free(ml_sv_trace *x)
{
    if (!x) return;
    free(x->lane_track);
    free(x->lane_depth);
    free(x->lane_lo);
    free(x->ids);
    free(x->ts);
    free(x->end);
    free(x->launched_start);
    free(x->launched);
    free(x->flow_start);
    free(x->flow_items);
    free(x);
}

void ml_sv_trace_span(const ml_sv_trace *x, int64_t *t0, int64_t *t1)
{
    *t0 = x ? x->t0 : 0;
    *t1 = x ? x->t1 : 1;
}

size_t ml_sv_trace_count(const ml_sv_trace *x) { return x ? x->n : 0; }

/* ---- the window ---------------------------------------------------------- */

static size_t lb(const int64_t *a, size_t lo, size_t hi, double v)
{
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if ((double)a[m] < v) lo = m + 1;
        else hi = m;
    }
    return lo;
}

typedef struct win {
    VEC(uint32_t) sl;                 /* slice ids */
    VEC(uint32_t) mtrack, mdepth, mn, mhits;
    VEC(int64_t) mx0, mx1;
} win;

static void merge_lane(const ml_sv_trace *x, size_t l, double t0, double t1, int px, const uint8_t *hit,
                       const ml_slices *s, win *w)
{
    const int64_t *ts = x->ts, *end = x->end;
    size_t lo = x->lane_lo[l], hi = x->lane_lo[l + 1];
    double k = px / (t1 - t0);
    size_t i = lb(end, lo, hi, t0);
    if (i < hi && (double)end[i] == t0 && (double)ts[i] < t0) i++;
    while (i < hi && (double)ts[i] < t1) {
        double x0 = ((double)ts[i] - t0) * k, x1 = ((double)end[i] - t0) * k;
        if (x1 - x0 >= 1) { VEC_PUSH(&w->sl, x->ids[i]); i++; continue; }
        size_t first = i;
        for (;;) {
            double lim = t0 + (floor(x1) + 1) / k;
            size_t j = lb(ts, i + 1, hi, lim), last = j - 1;
            int stop = 0;
            if (last > i && ((double)end[last] - (double)ts[last]) * k >= 1) { j = last; stop = 1; }
            else if (last > i) { double e = ((double)end[last] - t0) * k; if (e > x1) x1 = e; }
            i = j;
            if (stop || i >= hi || (double)ts[i] >= t1) break;
            double nx0 = ((double)ts[i] - t0) * k, nx1 = ((double)end[i] - t0) * k;
            if (nx1 - nx0 >= 1 || nx0 - x1 >= 1) break;
            if (nx1 > x1) x1 = nx1;
        }
        if (i - first == 1) { VEC_PUSH(&w->sl, x->ids[first]); continue; }
        uint32_t hits = 0;
        if (hit)
            for (size_t q = first; q < i; q++) hits += hit[s->name.v[x->ids[q]]];
        if (x1 < x0 + 1) x1 = x0 + 1;
        VEC_PUSH(&w->mtrack, x->lane_track[l]);
        VEC_PUSH(&w->mdepth, x->lane_depth[l]);
        VEC_PUSH(&w->mx0, (int64_t)floor(x0 < -1 ? -1 : x0));
        VEC_PUSH(&w->mx1, (int64_t)ceil(x1 > px + 1 ? px + 1 : x1));
        VEC_PUSH(&w->mn, (uint32_t)(i - first));
        VEC_PUSH(&w->mhits, hits);
    }
}

void ml_api_trace(const ml_sv_trace *x, const ml_profile *p, double t0, double t1, int px, const char *q, int binary,
                  ml_buf *out)
{
    const ml_slices *s = &p->trace->slices;
    size_t nstr = ml_strpool_count(p->strings);
    uint8_t *hit = NULL;
    int64_t hits = 0;
    if (q && *q) {
        size_t ql = strlen(q);
        hit = ml_calloc(nstr + 1, 1);
        uint8_t *seen = ml_calloc(nstr + 1, 1);
        for (size_t i = 0; i < x->n; i++) {
            ml_str nm = s->name.v[i];
            if (nm >= nstr) continue;
            if (!seen[nm]) { seen[nm] = 1; hit[nm] = (uint8_t)ml_contains_ci(ml_s(p, nm), q, ql); }
            hits += hit[nm];
        }
        free(seen);
    }
    win w = {0};
    for (size_t l = 0; l < x->nlanes; l++) merge_lane(x, l, t0, t1, px, hit, s, &w);
    size_t n = w.sl.len;
    /* names as a local string table */
    uint32_t *local = ml_calloc(nstr + 1, sizeof *local);
    VEC(ml_str) strs = {0};
    VEC_PUSH(&strs, 0);
    uint32_t *name = ml_malloc((n + 1) * sizeof *name), *track = ml_malloc((n + 1) * sizeof *track),
             *depth = ml_malloc((n + 1) * sizeof *depth);
    int64_t *ts = ml_malloc((n + 1) * sizeof *ts), *dur = ml_malloc((n + 1) * sizeof *dur);
    uint8_t *kind = ml_malloc(n + 1);
    for (size_t k = 0; k < n; k++) {
        uint32_t i = w.sl.v[k];
        ml_str nm = s->name.v[i];
        if (nm && nm < nstr && !local[nm]) { local[nm] = (uint32_t)strs.len; VEC_PUSH(&strs, nm); }
        name[k] = nm < nstr ? local[nm] : 0;
        track[k] = s->track.v[i];
        depth[k] = s->depth.v[i];
        ts[k] = s->ts.v[i] - x->origin;
        dur[k] = ml_slice_dur(s, i);
        kind[k] = s->kind.v[i];
    }
    /* flows between returned slices: mark them, then each flow from one of them */
    const ml_trace *t = p->trace;
    VEC(uint32_t) ff = {0}, ft = {0};
    VEC(uint8_t) fc = {0};
    ml_str cats[32];
    size_t ncats = 0;
    if (t->flows.len && n) {
        uint8_t *in = ml_calloc(x->n + 1, 1);
        for (size_t k = 0; k < n; k++) in[w.sl.v[k]] = 1;
        for (size_t k = 0; k < n; k++) {
            uint32_t i = w.sl.v[k];
            for (uint32_t e = x->flow_start[i]; e < x->flow_start[i + 1]; e++) {
                const ml_flow *f = &t->flows.v[x->flow_items[e]];
                if (f->from != i || f->to >= x->n || !in[f->to]) continue;
                size_t c = 0;
                while (c < ncats && cats[c] != f->cat) c++;
                if (c == ncats && ncats < 32) cats[ncats++] = f->cat;
                VEC_PUSH(&ff, f->from);
                VEC_PUSH(&ft, f->to);
                VEC_PUSH(&fc, (uint8_t)(c < 32 ? c : 31));
            }
        }
        free(in);
    }
    ml_colbuf cb;
    ml_cb_begin(&cb, out, binary);
    ml_cb_i64(&cb, "n", (int64_t)x->n);
    ml_cb_i64(&cb, "hits", hits);
    jw *js = ml_cb_key(&cb, "strings");
    jw_arr(js);
    for (size_t k = 0; k < strs.len; k++) jw_text(js, k ? ml_s(p, strs.v[k]) : "");
    jw_end(js);
    js = ml_cb_key(&cb, "cats");
    jw_arr(js);
    for (size_t c = 0; c < ncats; c++) jw_text(js, ml_s(p, cats[c]));
    jw_end(js);
    ml_cb_col_u32(&cb, "id", w.sl.v, NULL, n);
    ml_cb_col_u32(&cb, "track", track, NULL, n);
    ml_cb_col_i64(&cb, "ts", ts, NULL, n);
    ml_cb_col_i64(&cb, "dur", dur, NULL, n);
    ml_cb_col_u32(&cb, "depth", depth, NULL, n);
    ml_cb_col_u32(&cb, "name", name, NULL, n);
    ml_cb_col_u8(&cb, "kind", kind, NULL, n);
    size_t nm = w.mtrack.len;
    ml_cb_col_u32(&cb, "m_track", w.mtrack.v, NULL, nm);
    ml_cb_col_u32(&cb, "m_depth", w.mdepth.v, NULL, nm);
    ml_cb_col_i64(&cb, "m_x0", w.mx0.v, NULL, nm);
    ml_cb_col_i64(&cb, "m_x1", w.mx1.v, NULL, nm);
    ml_cb_col_u32(&cb, "m_n", w.mn.v, NULL, nm);
    ml_cb_col_u32(&cb, "m_hits", w.mhits.v, NULL, nm);
    ml_cb_col_u32(&cb, "f_from", ff.v, NULL, ff.len);
    ml_cb_col_u32(&cb, "f_to", ft.v, NULL, ft.len);
    ml_cb_col_u8(&cb, "f_cat", fc.v, NULL, fc.len);
    ml_cb_finish(&cb);
    VEC_FREE(&ff);
    VEC_FREE(&ft);
    VEC_FREE(&fc);
    VEC_FREE(&strs);
    VEC_FREE(&w.sl);
    VEC_FREE(&w.mtrack);
    VEC_FREE(&w.mdepth);
    VEC_FREE(&w.mn);
    VEC_FREE(&w.mhits);
    VEC_FREE(&w.mx0);
    VEC_FREE(&w.mx1);
    free(local);
    free(name);
    free(track);
    free(depth);
    free(ts);
    free(dur);
    free(kind);
    free(hit);
}

/* ---- one slice ----------------------------------------------------------- */

static int gpu_kind(uint8_t k) { return k == ML_SL_KERNEL || k == ML_SL_MEMCPY || k == ML_SL_MEMSET; }

static void put_brief(jw *w, const ml_sv_trace *x, const ml_profile *p, uint32_t i, bool open)
{
    const ml_slices *s = &p->trace->slices;
    jw_obj(w);
    jw_key(w, "id"), jw_i64(w, i);
    jw_key(w, "track"), jw_i64(w, s->track.v[i]);
    jw_key(w, "depth"), jw_i64(w, s->depth.v[i]);
    jw_key(w, "ts"), jw_i64_js(w, s->ts.v[i] - x->origin);
    jw_key(w, "dur"), jw_i64_js(w, ml_slice_dur(s, i));
    jw_key(w, "name"), jw_text(w, ml_s(p, s->name.v[i]));
    jw_key(w, "kind"), jw_str(w, ml_slice_kind_name(s->kind.v[i]));
    if (!open) jw_end(w);
}

static void put_idx(jw *w, uint32_t v)
{
    if (v == ML_NONE32) jw_null(w);
    else jw_i64(w, v);
}

/* A figure with three decimals, as printf's %.3f. */
static void put_3f(jw *w, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", v);
    jw_raw(w, buf);
}

void ml_api_slice(const ml_sv_trace *x, const ml_profile *p, size_t id, ml_buf *out)
{
    const ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    uint32_t i = (uint32_t)id;
    uint8_t kd = s->kind.v[i];
    jw w;
    jw_init_buf(&w, out, false);
    /* the body as the brief, extended */
    put_brief(&w, x, p, i, true);
    jw_key(&w, "args"), jw_obj(&w);
    if (ml_slice_corr(s, i) >= 0) jw_key(&w, "correlation"), jw_i64(&w, ml_slice_corr(s, i));
    if (ml_slice_ext_id(s, i) >= 0) jw_key(&w, "External id"), jw_i64(&w, ml_slice_ext_id(s, i));
    uint32_t inf = s->info.v[i];
    const char *stack = NULL;
    if (inf != ML_NONE32 && gpu_kind(kd) && inf < t->kernel_info.len) {
        const ml_kernel_info *k = &t->kernel_info.v[inf];
        if (k->grid[0] >= 0) {
            jw_key(&w, "grid"), jw_arr(&w);
            for (int j = 0; j < 3; j++) jw_i64(&w, k->grid[j]);
            jw_end(&w);
        }
        if (k->block[0] >= 0) {
            jw_key(&w, "block"), jw_arr(&w);
            for (int j = 0; j < 3; j++) jw_i64(&w, k->block[j]);
            jw_end(&w);
        }
        if (k->registers >= 0) jw_key(&w, "registers per thread"), jw_i64(&w, k->registers);
        if (k->shared_memory >= 0) jw_key(&w, "shared memory"), jw_i64(&w, k->shared_memory);
        if (k->blocks_per_sm >= 0) jw_key(&w, "blocks per SM"), put_3f(&w, k->blocks_per_sm);
        if (k->occupancy >= 0) jw_key(&w, "est. achieved occupancy %"), put_3f(&w, k->occupancy);
        if (k->bytes >= 0) jw_key(&w, "bytes"), jw_i64(&w, k->bytes);
        if (k->device >= 0) jw_key(&w, "device"), jw_i64(&w, k->device);
        if (k->stream >= 0) jw_key(&w, "stream"), jw_i64(&w, k->stream);
    } else if (inf != ML_NONE32 && inf < t->op_info.len) {
        const ml_op_info *o = &t->op_info.v[inf];
        if (o->input_dims) jw_key(&w, "Input Dims"), jw_text(&w, ml_s(p, o->input_dims));
        if (o->input_types) jw_key(&w, "Input type"), jw_text(&w, ml_s(p, o->input_types));
        if (ml_op_seq(t, o) >= 0) jw_key(&w, "Sequence number"), jw_i64(&w, ml_op_seq(t, o));
        if (ml_op_fwd_thread(t, o) >= 0) jw_key(&w, "Fwd thread id"), jw_i64(&w, ml_op_fwd_thread(t, o));
        if (o->call_stack) stack = ml_s(p, o->call_stack);
    }
    jw_end(&w);
    jw_key(&w, "stack"), jw_arr(&w);
    VEC(uint32_t) rel = {0};
    uint32_t parent = s->parent.len ? s->parent.v[i] : ML_NONE32;
    if (stack && *stack) { /* "a;b;c" or lines */
        for (const char *a = stack; *a;) {
            const char *e = a;
            while (*e && *e != ';' && *e != '\n') e++;
            if (e > a) jw_strn(&w, a, (size_t)(e - a));
            a = *e ? e + 1 : e;
        }
    } else {
        int k = 0;
        for (uint32_t a = parent; a != ML_NONE32 && a < x->n && k < 200; a = s->parent.v[a], k++)
            jw_text(&w, ml_s(p, s->name.v[a]));
    }
    jw_end(&w);
    uint32_t launcher = s->launcher.len ? s->launcher.v[i] : ML_NONE32;
    if (launcher >= x->n) launcher = ML_NONE32;
    /* the operator: the innermost cpu_op around the slice, or around its launch */
    uint32_t host = launcher != ML_NONE32 ? launcher : i, op = ML_NONE32;
    if (host != i && s->kind.v[host] == ML_SL_CPU_OP) op = host;
    for (uint32_t a = s->parent.len ? s->parent.v[host] : ML_NONE32; op == ML_NONE32 && a < x->n; a = s->parent.v[a])
        if (s->kind.v[a] == ML_SL_CPU_OP) op = a;
    jw_key(&w, "parent"), put_idx(&w, parent < x->n ? parent : ML_NONE32);
    jw_key(&w, "launcher"), put_idx(&w, launcher);
    jw_key(&w, "op"), put_idx(&w, op);
    if (parent < x->n) VEC_PUSH(&rel, parent);
    if (launcher != ML_NONE32) VEC_PUSH(&rel, launcher);
    if (op != ML_NONE32) VEC_PUSH(&rel, op);
    jw_key(&w, "launched"), jw_arr(&w);
    for (uint32_t e = x->launched_start[i]; e < x->launched_start[i + 1]; e++) {
        jw_i64(&w, x->launched[e]);
        if (e - x->launched_start[i] < 500) VEC_PUSH(&rel, x->launched[e]);
    }
    jw_end(&w);
    jw_key(&w, "flows"), jw_arr(&w);
    for (uint32_t e = x->flow_start[i]; e < x->flow_start[i + 1]; e++) {
        const ml_flow *f = &t->flows.v[x->flow_items[e]];
        jw_obj(&w);
        jw_key(&w, "from"), put_idx(&w, f->from);
        jw_key(&w, "to"), put_idx(&w, f->to);
        jw_key(&w, "cat"), jw_text(&w, ml_s(p, f->cat));
        jw_end(&w);
        if (f->from < x->n) VEC_PUSH(&rel, f->from);
        if (f->to < x->n) VEC_PUSH(&rel, f->to);
    }
    jw_end(&w);
    jw_key(&w, "related"), jw_obj(&w);
    for (size_t k = 0; k < rel.len; k++) {
        size_t d = 0;
        while (d < k && rel.v[d] != rel.v[k]) d++;
        if (d < k) continue; /* named twice */
        char key[16];
        snprintf(key, sizeof key, "%u", rel.v[k]);
        jw_key(&w, key);
        put_brief(&w, x, p, rel.v[k], false);
    }
    jw_end(&w);
    jw_end(&w);
    VEC_FREE(&rel);
}

/* ---- the search's next match ------------------------------------------ */

void ml_api_findslice(const ml_sv_trace *x, const ml_profile *p, const char *q, double after, int dir, ml_buf *out)
{
    const ml_slices *s = &p->trace->slices;
    size_t nstr = ml_strpool_count(p->strings), ql = strlen(q);
    uint8_t *hit = ml_calloc(nstr + 1, 1), *seen = ml_calloc(nstr + 1, 1);
    uint32_t best = ML_NONE32, wrap = ML_NONE32; /* the next one; the first (last) of all, for wrapping */
    for (size_t i = 0; ql && i < x->n; i++) {
        ml_str nm = s->name.v[i];
        if (nm >= nstr) continue;
        if (!seen[nm]) { seen[nm] = 1; hit[nm] = (uint8_t)ml_contains_ci(ml_s(p, nm), q, ql); }
        if (!hit[nm]) continue;
        double t = (double)(s->ts.v[i] - x->origin);
        if (wrap == ML_NONE32 || (dir > 0 ? s->ts.v[i] < s->ts.v[wrap] : s->ts.v[i] > s->ts.v[wrap])) wrap = (uint32_t)i;
        if (dir > 0 ? t > after : t < after)
            if (best == ML_NONE32 || (dir > 0 ? s->ts.v[i] < s->ts.v[best] : s->ts.v[i] > s->ts.v[best])) best = (uint32_t)i;
    }
    if (best == ML_NONE32) best = wrap;
    jw w;
    jw_init_buf(&w, out, false);
    jw_obj(&w);
    jw_key(&w, "found"), jw_bool(&w, best != ML_NONE32);
    if (best != ML_NONE32) jw_key(&w, "slice"), put_brief(&w, x, p, best, false);
    jw_end(&w);
    free(hit);
    free(seen);
}
