/*
 * report_trace.c — the Trace view's data (see report_trace.h, web/DATA.md).
 *
 * The report embeds the slices in start order (ties: track order), so that
 * the start times delta-code into small unsigned numbers; the page groups
 * them into lanes itself (web/src/tracedata.js buildLanes).  Columns:
 *   ts     u32 deltas from the previous start ("ts0" the first; a delta that
 *          does not fit is written 0xffffffff and listed in "ts_big")
 *   dur    u32 (one that does not fit: 0xffffffff, listed in "dur_big")
 *   track, name (index into "strings"), depth, kind, launcher (+1, 0 none),
 *   info (+1 into "op" or "kern" by kind, 0 none)
 * with the op args (input dims, input types, call stack: strings), the kernel
 * launch args and the flows (slice indices of this order).
 */
#include "report_trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratch.h"
#include "sortperm.h"

/* The slices' arrays come from the thread's scratch pool (scratch.h: the
 * report opens one for a rank), their pages in already where a device's
 * view freed them; those the encoder takes are its own, the others go
 * back (ml_scratch_alloc, ml_scratch_free). */

/* ---- tracks ------------------------------------------------------------- */

/* Text that is a (signed) integer compares as one. */
static int cmp_idtext(const char *a, const char *b)
{
    char *ea, *eb;
    long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);
    int na = *a && !*ea, nb = *b && !*eb;
    if (na && nb) return (x > y) - (x < y);
    if (na != nb) return na ? -1 : 1;
    return strcmp(a, b);
}

/* For qsort_r, the profile as context. */
static int track_cmp(const void *x, const void *y, void *profile)
{
    const ml_profile *p = profile;
    const ml_track *a = &p->trace->tracks.v[*(const uint32_t *)x], *b = &p->trace->tracks.v[*(const uint32_t *)y];
    if (a->process_sort != b->process_sort) return a->process_sort < b->process_sort ? -1 : 1;
    int c = cmp_idtext(ml_s(p, a->pid), ml_s(p, b->pid));
    if (c) return c;
    if ((a->kind == ML_TRACK_STREAM) != (b->kind == ML_TRACK_STREAM)) return a->kind == ML_TRACK_STREAM ? 1 : -1;
    if (a->thread_sort != b->thread_sort) return a->thread_sort < b->thread_sort ? -1 : 1;
    if (a->kind == ML_TRACK_STREAM && a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
    c = cmp_idtext(ml_s(p, a->tid), ml_s(p, b->tid));
    if (c) return c;
    return (*(const uint32_t *)x > *(const uint32_t *)y) - (*(const uint32_t *)x < *(const uint32_t *)y);
}

size_t ml_trace_track_order(const ml_profile *p, uint32_t **order)
{
    const ml_trace *t = p->trace;
    size_t n = t ? t->tracks.len : 0;
    *order = ml_malloc((n ? n : 1) * sizeof **order);
    for (size_t i = 0; i < n; i++) (*order)[i] = (uint32_t)i;
    if (n > 1) qsort_r(*order, n, sizeof **order, track_cmp, (void *)p);
    return n;
}

void ml_trace_track_label(const ml_profile *p, uint32_t track, ml_buf *b)
{
    const ml_track *k = &p->trace->tracks.v[track];
    if (k->name) ml_buf_puts(b, ml_s(p, k->name));
    else if (k->kind == ML_TRACK_STREAM && k->stream >= 0) ml_buf_printf(b, "stream %" PRId64, k->stream);
    else ml_buf_printf(b, "%s %s", k->kind == ML_TRACK_STREAM ? "stream" : "thread", ml_s(p, k->tid));
}

void ml_trace_process_label(const ml_profile *p, uint32_t track, ml_buf *b)
{
    const ml_track *k = &p->trace->tracks.v[track];
    if (k->kind == ML_TRACK_STREAM && k->device >= 0 && (size_t)k->device < p->devices.len)
        ml_buf_puts(b, p->devices.v[k->device].id); /* "cuda:0" */
    else if (k->process_name) ml_buf_printf(b, "%s (%s)", ml_s(p, k->process_name), ml_s(p, k->pid));
    else ml_buf_printf(b, "process %s", ml_s(p, k->pid));
}

static void put_tracks(const ml_profile *p, const uint32_t *has, const uint16_t *depths, jw *w)
{
    uint32_t *order;
    size_t n = ml_trace_track_order(p, &order);
    ml_buf lab = {0};
    jw_key(w, "tracks"), jw_arr(w);
    for (size_t k = 0; k < n; k++) {
        uint32_t i = order[k];
        if (has && !has[i]) continue;
        const ml_track *t = &p->trace->tracks.v[i];
        jw_obj(w);
        jw_key(w, "id"), jw_i64(w, i);
        jw_key(w, "pid"), jw_text(w, ml_s(p, t->pid));
        jw_key(w, "tid"), jw_text(w, ml_s(p, t->tid));
        jw_key(w, "kind"), jw_str(w, t->kind == ML_TRACK_THREAD ? "thread" : t->kind == ML_TRACK_STREAM ? "stream" : "other");
        lab.len = 0;
        ml_trace_track_label(p, i, &lab);
        jw_key(w, "label"), jw_text(w, lab.p);
        lab.len = 0;
        ml_trace_process_label(p, i, &lab);
        jw_key(w, "process"), jw_text(w, lab.p);
        jw_key(w, "device"), jw_i64(w, t->device);
        jw_key(w, "stream"), jw_i64(w, t->stream);
        jw_key(w, "slices"), jw_i64(w, has ? has[i] : 0);
        jw_key(w, "depths"), jw_i64(w, depths ? (unsigned)depths[i] + 1 : 1);
        jw_end(w);
    }
    jw_end(w);
    ml_buf_free(&lab);
    free(order);
}

/* ---- the embedded slices ------------------------------------------------ */

typedef struct strmap {
    const ml_profile *p;
    uint32_t *local;          /* profile string id -> local + 1, 0 = not yet */
    size_t nstr;
    VEC(ml_str) strings;
} strmap;

static __attribute__((noinline)) uint32_t str_local_new(strmap *s, ml_str id)
{
    VEC_PUSH(&s->strings, id);
    return s->local[id] = (uint32_t)s->strings.len; /* index 0 is "" */
}

/* (inline, a string met before at the cost of a load: this runs for every
 * slice's name and three times for every operator's args) */
static inline uint32_t str_local(strmap *s, ml_str id)
{
    if (!id || id >= s->nstr) return 0;
    return s->local[id] ? s->local[id] : str_local_new(s, id);
}

static int cmp_i64_desc(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a < b) - (a > b);
}

/* The key of a column and its place: the encoder (report_enc.h) writes its
 * descriptor into w's buffer. */
static ml_buf *col_at(jw *w, const char *key)
{
    jw_key(w, key);
    jw_value_begin(w);
    return w->buf;
}

/* A u32 column whose values that do not fit are UINT32_MAX in u, with
 * those values listed apart as KEY_big: [[i, v], ...] (big: their (i, v)
 * pairs, in order).  Takes u (ml_col_u32_take). */
typedef struct big_value { int64_t i, v; } big_value;
typedef VEC(big_value) big_values;

static void put_u32_big(ml_blobs *bl, jw *w, const char *key, uint32_t *u, size_t n, const big_values *big)
{
    ml_col_u32_take(bl, col_at(w, key), u, n);
    char name[32];
    snprintf(name, sizeof name, "%s_big", key);
    jw_key(w, name), jw_arr(w);
    for (size_t k = 0; k < big->len; k++) {
        jw_arr(w);
        jw_i64(w, big->v[k].i), jw_i64_js(w, big->v[k].v);
        jw_end(w);
    }
    jw_end(w);
}

/* v as a u32 value of put_u32_big's column (UINT32_MAX: listed in big). */
static inline uint32_t u32_or_big(int64_t v, size_t i, big_values *big)
{
    if (v >= 0 && v < (int64_t)UINT32_MAX) return (uint32_t)v;
    VEC_PUSH(big, ((big_value){ (int64_t)i, v }));
    return UINT32_MAX;
}

/* Slice indices in start order, ties in index order (the stable order of
 * indices taken ascending): a natural merge sort of the indices themselves
 * by the slices' starts (they come in a run a track), so that no key is
 * copied and no permutation applied after. */
#define START_LT(ts, x, y) ((ts)[x] != (ts)[y] ? (ts)[x] < (ts)[y] : (x) < (y))
ML_RUNSORT_DEFINE(sort_by_start, uint32_t, const int64_t *, START_LT)

void ml_report_trace(const ml_profile *p, int64_t origin, size_t max_slices, jw *w, ml_blobs *bl)
{
    const ml_trace *t = p->trace;
    if (!t || !t->slices.ts.len) return;
    const ml_slices *s = &t->slices;
    size_t total = s->ts.len;
    uint32_t *per_track = ml_calloc(t->tracks.len + 1, sizeof *per_track);
    uint16_t *depths = ml_calloc(t->tracks.len + 1, sizeof *depths);
    for (size_t i = 0; i < total; i++) {
        uint32_t k = s->track.v[i];
        if (k >= t->tracks.len) continue;
        per_track[k]++;
        if (s->depth.v[i] > depths[k]) depths[k] = s->depth.v[i];
    }

    jw_key(w, "trace"), jw_obj(w);
    jw_key(w, "kinds"), jw_arr(w);
    for (int k = 0; k < ML_SL__COUNT; k++) jw_str(w, ml_slice_kind_name((unsigned)k));
    jw_end(w);
    jw_key(w, "total"), jw_i64(w, (int64_t)total);
    jw_key(w, "begin"), jw_i64_js(w, t->span_begin - origin);
    jw_key(w, "end"), jw_i64_js(w, t->span_end - origin);
    put_tracks(p, per_track, depths, w);
    free(per_track);
    free(depths);
    if (bl->capture) { /* served: windows come from the store */
        jw_key(w, "served"), jw_bool(w, true);
        jw_key(w, "n"), jw_i64(w, (int64_t)total);
        jw_end(w);
        return;
    }

    /* Which slices: all, or the longest max_slices. */
    if (!max_slices) max_slices = ML_REPORT_MAX_SLICES;
    int64_t cut = -1; /* durations below it are left out; those equal to it kept while room remains */
    size_t at_cut = 0;
    if (total > max_slices) {
        int64_t *d = ml_scratch_alloc(total * sizeof *d);
        for (size_t i = 0; i < total; i++) d[i] = ml_slice_dur(s, i);
        qsort(d, total, sizeof *d, cmp_i64_desc);
        cut = d[max_slices - 1];
        size_t above = 0;
        while (above < total && d[above] > cut) above++;
        at_cut = max_slices - above;
        ml_scratch_free(d, total * sizeof *d);
    }
    ml_blobs_reclaim(bl); /* (the devices' encoded columns: the pages of these) */
    uint32_t *kept = ml_scratch_alloc(total * sizeof *kept), *newid = ml_scratch_alloc(total * sizeof *newid);
    size_t n = 0;
    for (size_t i = 0; i < total; i++) {
        newid[i] = ML_NONE32;
        if (cut >= 0 && (ml_slice_dur(s, i) < cut || (ml_slice_dur(s, i) == cut && !at_cut))) continue;
        if (cut >= 0 && ml_slice_dur(s, i) == cut) at_cut--;
        kept[n++] = (uint32_t)i;
    }
    /* start order, stable; the sort's scratch is the ts column's room,
     * written below only after kept is read (no third block of n written) */
    size_t room = n ? n : 1;
    uint32_t *ts = ml_scratch_alloc(room * sizeof *ts);
    if (n > 1) {
        uint32_t *sorted = sort_by_start(kept, ts, n, s->ts.v);
        if (sorted == ts) ts = kept; /* (kept's room, total >= n, becomes the column's) */
        kept = sorted;
    }
    for (size_t k = 0; k < n; k++) newid[kept[k]] = (uint32_t)k;

    strmap sm = { .p = p, .nstr = ml_strpool_count(p->strings) };
    sm.local = ml_calloc(sm.nstr ? sm.nstr : 1, sizeof *sm.local);

    jw_key(w, "n"), jw_i64(w, (int64_t)n);
    jw_key(w, "cut_ns"), jw_i64_js(w, cut);
    jw_key(w, "ts0"), jw_i64_js(w, n ? s->ts.v[kept[0]] - origin : 0);
    /* The slices' columns in one pass over them (each read through kept[]
     * once, not once a column); written in the order of their keys. */
    uint32_t *dur = ml_scratch_alloc(room * sizeof *dur);
    /* (tracks that fit in 16 bits, as their u16s: half the room; ml_col_u32
     * would pack them so) */
    bool track16 = t->tracks.len <= UINT16_MAX + 1u;
    uint32_t *track = track16 ? NULL : ml_scratch_alloc(room * sizeof *track), *name = ml_scratch_alloc(room * sizeof *name);
    uint16_t *track_u16 = track16 ? ml_scratch_alloc(room * sizeof *track_u16) : NULL;
    uint32_t *launcher = ml_scratch_alloc(room * sizeof *launcher), *info = ml_scratch_alloc(room * sizeof *info);
    uint8_t *depth = ml_scratch_alloc(room), *kind = ml_scratch_alloc(room);
    big_values ts_big = {0}, dur_big = {0};
    uint16_t dmax = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = kept[k];
        ts[k] = u32_or_big(k ? s->ts.v[i] - s->ts.v[kept[k - 1]] : 0, k, &ts_big);
        dur[k] = u32_or_big(ml_slice_dur(s, i), k, &dur_big);
        if (track16) track_u16[k] = (uint16_t)s->track.v[i];
        else track[k] = s->track.v[i];
        name[k] = str_local(&sm, s->name.v[i]);
        uint16_t d = s->depth.v[i];
        if (d > dmax) dmax = d;
        depth[k] = (uint8_t)d;
        kind[k] = s->kind.v[i];
        uint32_t l = s->launcher.len ? s->launcher.v[i] : ML_NONE32;
        launcher[k] = l < total && newid[l] != ML_NONE32 ? newid[l] + 1 : 0;
        info[k] = s->info.v[i] == ML_NONE32 ? 0 : s->info.v[i] + 1;
    }
    /* (each column the blob's own, not copied: ml_col_*_take) */
    put_u32_big(bl, w, "ts", ts, n, &ts_big);
    put_u32_big(bl, w, "dur", dur, n, &dur_big);
    VEC_FREE(&ts_big);
    VEC_FREE(&dur_big);
    if (track16) ml_col_u16_take(bl, col_at(w, "track"), track_u16, n);
    else ml_col_u32_take(bl, col_at(w, "track"), track, n);
    ml_col_u32_take(bl, col_at(w, "name"), name, n);
    ml_buf *m = col_at(w, "depth");
    if (dmax < 256) {
        ml_col_u8_take(bl, m, depth, n);
    } else { /* (deep: u32) */
        ml_scratch_free(depth, room);
        uint32_t *deep = ml_scratch_alloc(room * sizeof *deep);
        for (size_t k = 0; k < n; k++) deep[k] = s->depth.v[kept[k]];
        ml_col_u32_take(bl, m, deep, n);
    }
    ml_col_u8_take(bl, col_at(w, "kind"), kind, n);
    /* (row numbers, growing in start order among zeros: by their differences) */
    ml_col_u32_nz_delta_take(bl, col_at(w, "launcher"), launcher, n);
    ml_col_u32_nz_delta_take(bl, col_at(w, "info"), info, n);

    /* op args */
    size_t no = t->op_info.len, nk = t->kernel_info.len;
    size_t cap = (no > nk ? no : nk) * 3 + 1;
    uint32_t *ou = ml_scratch_alloc(cap * sizeof *ou);
    int64_t *oi = ml_scratch_alloc(cap * sizeof *oi);
    jw_key(w, "op"), jw_obj(w);
    jw_key(w, "n"), jw_i64(w, (int64_t)no);
    for (size_t i = 0; i < no; i++) ou[i] = str_local(&sm, t->op_info.v[i].input_dims);
    ml_col_u32(bl, col_at(w, "dims"), ou, no);
    for (size_t i = 0; i < no; i++) ou[i] = str_local(&sm, t->op_info.v[i].input_types);
    ml_col_u32(bl, col_at(w, "types"), ou, no);
    for (size_t i = 0; i < no; i++) ou[i] = str_local(&sm, t->op_info.v[i].call_stack);
    ml_col_u32(bl, col_at(w, "stack"), ou, no);
    /* (as i32s where they fit: no i64 column written first) */
    int32_t *seq = ml_scratch_alloc(no * sizeof *seq);
    bool fits = true;
    for (size_t i = 0; i < no; i++) {
        int64_t x = ml_op_seq(t, &t->op_info.v[i]);
        fits &= x >= INT32_MIN && x <= INT32_MAX;
        seq[i] = (int32_t)x;
    }
    if (fits) {
        ml_col_i32_take(bl, col_at(w, "seq"), seq, no);
    } else {
        ml_scratch_free(seq, no * sizeof *seq);
        for (size_t i = 0; i < no; i++) oi[i] = ml_op_seq(t, &t->op_info.v[i]);
        ml_col_i64(bl, col_at(w, "seq"), oi, no, 0);
    }
    jw_end(w);

    /* kernel launch args */
    jw_key(w, "kern"), jw_obj(w);
    jw_key(w, "n"), jw_i64(w, (int64_t)nk);
    const ml_kernel_info *ki = t->kernel_info.v;
#define KCOL(name, expr) do { \
        for (size_t i = 0; i < nk; i++) oi[i] = (expr); \
        ml_col_i64(bl, col_at(w, name), oi, nk, 0); \
    } while (0)
    for (int a = 0; a < 3; a++) {
        char nm[8];
        snprintf(nm, sizeof nm, "grid%d", a);
        for (size_t i = 0; i < nk; i++) oi[i] = ki[i].grid[a];
        ml_col_i64(bl, col_at(w, nm), oi, nk, 0);
        snprintf(nm, sizeof nm, "block%d", a);
        for (size_t i = 0; i < nk; i++) oi[i] = ki[i].block[a];
        ml_col_i64(bl, col_at(w, nm), oi, nk, 0);
    }
    KCOL("regs", ki[i].registers);
    KCOL("smem", ki[i].shared_memory);
    KCOL("bps", ki[i].blocks_per_sm < 0 ? -1 : (int64_t)(ki[i].blocks_per_sm * 1000.0f + 0.5f));
    KCOL("occ", ki[i].occupancy < 0 ? -1 : (int64_t)(ki[i].occupancy * 1000.0f + 0.5f));
    KCOL("bytes", ki[i].bytes);
    KCOL("device", ki[i].device);
    KCOL("stream", ki[i].stream);
#undef KCOL
    jw_end(w);
    ml_scratch_free(ou, cap * sizeof *ou);
    ml_scratch_free(oi, cap * sizeof *oi);

    /* flows between kept slices */
    size_t nf = 0;
    uint32_t *ff = ml_scratch_alloc((t->flows.len + 1) * sizeof *ff), *ft = ml_scratch_alloc((t->flows.len + 1) * sizeof *ft);
    uint8_t *fc = ml_scratch_alloc(t->flows.len + 1);
    ml_str cats[32];
    size_t ncats = 0;
    for (size_t i = 0; i < t->flows.len; i++) {
        const ml_flow *f = &t->flows.v[i];
        if (f->from >= total || f->to >= total || newid[f->from] == ML_NONE32 || newid[f->to] == ML_NONE32) continue;
        size_t c = 0;
        while (c < ncats && cats[c] != f->cat) c++;
        if (c == ncats && ncats < 32) cats[ncats++] = f->cat;
        if (c >= 32) c = 31;
        ff[nf] = newid[f->from];
        ft[nf] = newid[f->to];
        fc[nf++] = (uint8_t)c;
    }
    jw_key(w, "flows"), jw_obj(w);
    jw_key(w, "n"), jw_i64(w, (int64_t)nf);
    jw_key(w, "cats"), jw_arr(w);
    for (size_t c = 0; c < ncats; c++) jw_text(w, ml_s(p, cats[c]));
    jw_end(w);
    ml_col_u32(bl, col_at(w, "from"), ff, nf);
    ml_col_u32(bl, col_at(w, "to"), ft, nf);
    ml_col_u8(bl, col_at(w, "cat"), fc, nf);
    jw_end(w);
    ml_scratch_free(ff, (t->flows.len + 1) * sizeof *ff);
    ml_scratch_free(ft, (t->flows.len + 1) * sizeof *ft);
    ml_scratch_free(fc, t->flows.len + 1);

    jw_key(w, "strings"), jw_arr(w);
    jw_str(w, "");
    for (size_t i = 0; i < sm.strings.len; i++) jw_text(w, ml_s(p, sm.strings.v[i]));
    jw_end(w);
    jw_end(w);
    VEC_FREE(&sm.strings);
    free(sm.local);
    ml_scratch_free(kept, total * sizeof *kept);
    ml_scratch_free(newid, total * sizeof *newid);
}
