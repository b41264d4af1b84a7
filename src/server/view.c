/*
 * view.c — builds the server's view of one rank from the report's data
 * (see view.h): runs report_data.c on the rank with the blobs in capture
 * mode, parses the rank's meta back, and points into the captured columns.
 */
#include "view.h"
#include "api_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "categories.h"
#include "jsonvalue.h"
#include "m4.h"
#include "report.h"
#include "source.h"

/* ---- reading the meta back -------------------------------------------- */

typedef struct rd {
    ml_sv_rank *r;
    ml_err *e;
    int bad;
} rd;

static ml_pv get(rd *x, ml_pv dict, const char *key)
{
    ml_pv out;
    ml_str k = ml_intern_cstr(ml_pvs_strings(x->r->pvs), key);
    if (ml_pv_type_of(x->r->pvs, dict) != ML_PV_DICT || ml_pv_dict_get(x->r->pvs, dict, k, &out) != 0)
        return ML_PV_NONE_V;
    return out;
}

static int64_t get_i64(rd *x, ml_pv dict, const char *key)
{
    int64_t v = 0;
    ml_pv p = get(x, dict, key);
    if (ml_pv_int(x->r->pvs, p, &v) == 0) return v;
    ml_str s;
    if (ml_pv_str(x->r->pvs, p, &s) == 0) return strtoll(ml_strget(ml_pvs_strings(x->r->pvs), s), NULL, 10);
    return 0;
}

static const char *get_str(rd *x, ml_pv v)
{
    ml_str s;
    if (ml_pv_str(x->r->pvs, v, &s) != 0) return "";
    return ml_strget(ml_pvs_strings(x->r->pvs), s);
}

/* A captured column from its descriptor; NULL (and x->bad) if it is not one of type dt. */
static const void *col(rd *x, ml_pv dict, const char *key, char dt, size_t *n)
{
    ml_pv d = get(x, dict, key);
    int64_t b;
    if (ml_pv_int(x->r->pvs, get(x, d, "b"), &b) != 0 || b < 0 || (size_t)b >= x->r->bl.raw.len ||
        x->r->bl.raw.v[b].dt != dt) {
        x->bad = 1;
        if (n) *n = 0;
        return NULL;
    }
    if (n) *n = x->r->bl.raw.v[b].n;
    return x->r->bl.raw.v[b].v;
}

/* A curve's points (t, v). */
static void read_points(rd *x, ml_pv c, ml_sv_curve *out)
{
    size_t nt, nv;
    out->t = col(x, c, "t", 'i', &nt);
    out->v = col(x, c, "v", 'i', &nv);
    out->n = nt;
    if (nv != nt) x->bad = 1;
}

/* The level sizes and offsets of an M4 pyramid of c->n points with fan-out
 * c->fan; returns its node count. */
static size_t pyramid_levels(ml_sv_curve *c)
{
    size_t off = 0;
    c->levels = 0;
    for (size_t m = c->n; m > 1 && c->levels < ML_SV_MAX_LEVELS;) {
        m = (m + (size_t)c->fan - 1) / (size_t)c->fan;
        c->lvl_off[c->levels] = off;
        c->lvl_size[c->levels++] = m;
        off += m;
    }
    return off;
}

static void read_curve(rd *x, ml_pv c, ml_sv_curve *out)
{
    size_t nmn, nmx;
    read_points(x, c, out);
    out->mn = col(x, c, "mn", 'u', &nmn);
    out->mx = col(x, c, "mx", 'u', &nmx);
    out->fan = (int)get_i64(x, c, "fan");
    if (out->fan < 2) out->fan = 4;
    if (nmn != nmx || pyramid_levels(out) != nmn) x->bad = 1;
    /* Every index in the pyramid must name a point. */
    for (size_t k = 0; k < nmn && !x->bad; k++)
        if (out->mn[k] >= out->n || out->mx[k] >= out->n) x->bad = 1;
}

/* ---- sorting ------------------------------------------------------------ */

/* Stable order of ids by an unsigned 64-bit key: LSD radix, 16-bit digits,
 * skipping digits that are the same for all. */
static void radix_order(const uint64_t *key, size_t n, uint32_t *order)
{
    uint32_t *tmp = ml_malloc((n ? n : 1) * sizeof *tmp);
    size_t *cnt = ml_malloc(65536 * sizeof *cnt);
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    uint64_t all_or = 0, all_and = ~0ull;
    for (size_t i = 0; i < n; i++) { all_or |= key[i]; all_and &= key[i]; }
    for (int shift = 0; shift < 64; shift += 16) {
        if ((((all_or ^ all_and) >> shift) & 0xffff) == 0) continue;
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(key[order[i]] >> shift) & 0xffff]++;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) { size_t c = cnt[d]; cnt[d] = sum; sum += c; }
        for (size_t i = 0; i < n; i++) tmp[cnt[(key[order[i]] >> shift) & 0xffff]++] = order[i];
        memcpy(order, tmp, n * sizeof *order);
    }
    free(cnt);
    free(tmp);
}

static uint64_t i64_key(int64_t v) { return (uint64_t)v ^ 0x8000000000000000ull; }

/* Rank of each label in byte order, so that names sort as numbers. */
static uint32_t *name_ranks(const char **names, size_t n)
{
    uint32_t *order = ml_malloc((n ? n : 1) * sizeof *order), *rank = ml_malloc((n ? n : 1) * sizeof *rank);
    for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
    /* insertion into a sorted list is fine for the few thousand names a rank has */
    for (size_t i = 1; i < n; i++) {
        uint32_t v = order[i];
        size_t j = i;
        while (j > 0 && strcmp(names[order[j - 1]], names[v]) > 0) { order[j] = order[j - 1]; j--; }
        order[j] = v;
    }
    for (size_t i = 0; i < n; i++) rank[order[i]] = (uint32_t)i;
    free(order);
    return rank;
}

uint32_t ml_sv_cat_rank(unsigned cat)
{
    for (uint32_t j = 0; j < ML_CAT__COUNT; j++)
        if (ml_category_order[j] == cat) return j;
    return ML_CAT__COUNT;
}

static size_t upper_bound_t(const int64_t *a, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (a[m] <= x) lo = m + 1;
        else hi = m;
    }
    return lo;
}

int64_t ml_sv_total_at(const ml_sv_rank *r, const ml_sv_device *d, int k, int rel, uint32_t i)
{
    int c = d->comp_curve[strncmp(r->strings[d->op[i]], "cann::", 6) ? 0 : 1][k];
    if (c < 0) c = d->tot_curve[k];
    if (c < 0 || (rel && d->flags[i] & 2)) return -1;
    const ml_sv_curve *cv = &d->curves[c];
    size_t j = upper_bound_t(cv->t, cv->n, rel ? d->tf[i] : d->ta[i]);
    return j ? cv->v[j - 1] : -1;
}

const uint32_t *ml_sv_order(ml_sv_device *d, const ml_sv_rank *r, ml_sort_key key)
{
    pthread_mutex_lock(&d->mu);
    if (!d->order[key]) {
        uint64_t *k = ml_malloc((d->n ? d->n : 1) * sizeof *k);
        uint32_t *rank = NULL;
        if (key == ML_SORT_GROUP) rank = name_ranks(d->groups, d->ngroups);
        else if (key == ML_SORT_OP || key == ML_SORT_STREAM) rank = name_ranks(r->strings, r->nstrings);
        uint32_t reason_rank[ML_REASON__COUNT];
        if (key == ML_SORT_REASON) { /* by the reason's text, as the page shows it */
            const char *texts[ML_REASON__COUNT];
            for (int k2 = 0; k2 < ML_REASON__COUNT; k2++) texts[k2] = ml_category_reason_text(k2);
            uint32_t *rr = name_ranks(texts, ML_REASON__COUNT);
            memcpy(reason_rank, rr, sizeof reason_rank);
            free(rr);
        }
        for (size_t i = 0; i < d->n; i++) {
            switch (key) {
            case ML_SORT_GROUP: k[i] = d->group[i] < d->ngroups ? rank[d->group[i]] : 0; break;
            case ML_SORT_OP: k[i] = d->op[i] < r->nstrings ? rank[d->op[i]] : 0; break;
            case ML_SORT_STREAM: k[i] = d->stream[i] < r->nstrings ? rank[d->stream[i]] : 0; break;
            case ML_SORT_SIZE: k[i] = i64_key(d->size[i]); break;
            case ML_SORT_TA: k[i] = i64_key(d->ta[i]); break;
            case ML_SORT_TF: k[i] = i64_key(d->tf[i]); break;
            case ML_SORT_DUR: k[i] = i64_key(d->tf[i] - d->ta[i]); break;
            case ML_SORT_CAT: k[i] = ml_sv_cat_rank(d->cat[i]); break;
            case ML_SORT_REASON: k[i] = d->reason ? reason_rank[d->reason[i] < ML_REASON__COUNT ? d->reason[i] : 0] : 0; break;
            /* Ascend: as the page, an unknown value sorts as 0 */
            case ML_SORT_TR: k[i] = i64_key(d->tr ? d->tr[i] : 0); break;
            case ML_SORT_ADUR: k[i] = i64_key(d->tr ? d->tr[i] - d->ta[i] : 0); break;
            case ML_SORT_AA: case ML_SORT_AR: case ML_SORT_AC: case ML_SORT_RA: case ML_SORT_RR: case ML_SORT_RC: {
                int64_t v = ml_sv_total_at(r, d, (int)(key - ML_SORT_AA) % 3, key >= ML_SORT_RA, (uint32_t)i);
                k[i] = i64_key(v < 0 ? 0 : v);
                break;
            }
            default: k[i] = (uint64_t)d->addr_hi[i] << 32 | d->addr_lo[i]; break;
            }
        }
        uint32_t *o = ml_malloc((d->n ? d->n : 1) * sizeof *o);
        radix_order(k, d->n, o);
        free(k);
        free(rank);
        d->order[key] = o;
    }
    const uint32_t *o = d->order[key];
    pthread_mutex_unlock(&d->mu);
    return o;
}

/* ---- building ----------------------------------------------------------- */

static void build_index(ml_sv_device *d)
{
    size_t n = d->n;
    uint64_t *k = ml_malloc((n ? n : 1) * sizeof *k);
    uint32_t *o = ml_malloc((n ? n : 1) * sizeof *o);
    for (size_t i = 0; i < n; i++) k[i] = i64_key(d->tf[i]);
    radix_order(k, n, o);
    d->tf_sorted = ml_malloc((n ? n : 1) * sizeof *d->tf_sorted);
    d->bytes_tf = ml_malloc((n + 1) * sizeof *d->bytes_tf);
    d->bytes_ta = ml_malloc((n + 1) * sizeof *d->bytes_ta);
    d->bytes_tf[0] = d->bytes_ta[0] = 0;
    for (size_t j = 0; j < n; j++) {
        d->tf_sorted[j] = d->tf[o[j]];
        d->bytes_tf[j + 1] = d->bytes_tf[j] + d->size[o[j]];
        d->bytes_ta[j + 1] = d->bytes_ta[j] + d->size[j];
    }
    free(k);
    free(o);
    d->nblk = (n + ML_SV_BLOCK - 1) / ML_SV_BLOCK;
    d->blk_max_tf = ml_malloc((d->nblk ? d->nblk : 1) * sizeof *d->blk_max_tf);
    d->blk_max_dur = ml_malloc((d->nblk ? d->nblk : 1) * sizeof *d->blk_max_dur);
    for (size_t b = 0; b < d->nblk; b++) {
        int64_t mtf = INT64_MIN, mdur = INT64_MIN;
        for (size_t i = b * ML_SV_BLOCK; i < n && i < (b + 1) * ML_SV_BLOCK; i++) {
            if (d->tf[i] > mtf) mtf = d->tf[i];
            if (d->tf[i] - d->ta[i] > mdur) mdur = d->tf[i] - d->ta[i];
        }
        d->blk_max_tf[b] = mtf;
        d->blk_max_dur[b] = mdur;
    }
}

/* The category curves, summed bottom up into band tops (view.h). */
static void read_category_stack(rd *x, ml_pv list, ml_sv_device *d)
{
    size_t n = ml_pv_len(x->r->pvs, list);
    if (n > sizeof d->cat_code / sizeof *d->cat_code) { x->bad = 1; return; }
    for (size_t k = 0; k < n && !x->bad; k++) {
        ml_pv e = ml_pv_item(x->r->pvs, list, k);
        ml_sv_curve c = {0};
        read_points(x, get(x, e, "curve"), &c);  /* the bands share their times and have no pyramid */
        if (x->bad) return;
        if (k && (c.n != d->cat_top[0].n || (c.t != d->cat_top[0].t && memcmp(c.t, d->cat_top[0].t, c.n * sizeof *c.t)))) { x->bad = 1; return; }
        int64_t *top = ml_malloc((c.n ? c.n : 1) * sizeof *top);
        for (size_t i = 0; i < c.n; i++) top[i] = c.v[i] + (k ? d->cat_top_v[k - 1][i] : 0);
        ml_m4 py;
        ml_m4_build(top, c.n, &py);
        c.v = top;
        c.mn = py.argmin;
        c.mx = py.argmax;
        c.fan = ML_M4_FAN;
        pyramid_levels(&c);
        d->cat_code[k] = (int)get_i64(x, e, "cat");
        d->cat_top[k] = c;
        d->cat_top_v[k] = top;
        d->cat_mn[k] = py.argmin;
        d->cat_mx[k] = py.argmax;
        d->ncat = k + 1;
    }
}

static void read_device(rd *x, ml_pv dv, ml_sv_device *d)
{
    ml_sv_rank *r = x->r;
    pthread_mutex_init(&d->mu, NULL);
    d->id = get_str(x, get(x, dv, "id"));
    d->pdev = ml_device_find(r->p, d->id);
    if (d->pdev < 0) x->bad = 1;
    d->t0 = get_i64(x, dv, "t0");
    d->t1 = get_i64(x, dv, "t1");
    ml_pv cs = get(x, dv, "curves"), os = get(x, dv, "op_curves");
    d->ncurves = ml_pv_len(r->pvs, cs);
    d->nop = ml_pv_len(r->pvs, os);
    d->curves = ml_calloc(d->ncurves + 1, sizeof *d->curves);
    d->op_curves = ml_calloc(d->nop + 1, sizeof *d->op_curves);
    for (size_t k = 0; k < d->ncurves; k++) read_curve(x, ml_pv_item(r->pvs, cs, k), &d->curves[k]);
    for (size_t k = 0; k < d->nop; k++) read_curve(x, ml_pv_item(r->pvs, os, k), &d->op_curves[k]);
    d->tracked_curve = -1;
    for (size_t k = 0; k < d->ncurves; k++)
        if (!strcmp(get_str(x, get(x, ml_pv_item(r->pvs, cs, k), "group")), "tracked")) d->tracked_curve = (int)k;
    read_category_stack(x, get(x, dv, "category_curves"), d);
    d->peak = get(x, dv, "peak");
    d->ops = get(x, dv, "ops");
    d->peak_curve = -1;
    if (ml_pv_type_of(r->pvs, d->peak) == ML_PV_DICT && d->ncurves) {
        int64_t pc = get_i64(x, d->peak, "curve");
        d->peak_curve = pc >= 0 && (size_t)pc < d->ncurves ? (int)pc : 0;
        /* As the report: the gap between the curve and the live set is memory
         * allocated before the trace only when the curve is recorded totals. */
        const char *kind = get_str(x, get(x, d->peak, "kind"));
        const char *label = get_str(x, get(x, ml_pv_item(r->pvs, cs, (size_t)d->peak_curve), "label"));
        d->total_known = !strcmp(kind, "allocated") && !strstr(label, "replayed");
    }
    ml_pv a = get(x, dv, "allocs");
    size_t n;
    d->ta = col(x, a, "ta", 'i', &n);
    d->n = n;
    size_t m;
#define COL(field, key, dt) do { d->field = col(x, a, key, dt, &m); if (m != n) x->bad = 1; } while (0)
    COL(tf, "tf", 'i');
    COL(size, "size", 'i');
    COL(addr_hi, "addr_hi", 'u');
    COL(addr_lo, "addr_lo", 'u');
    COL(group, "group", 'u');
    COL(op, "op", 'u');
    COL(stream, "stream", 'u');
    COL(stack, "stack", 'u');
    COL(src, "src", 'u');
    COL(flags, "flags", 'b');
    COL(cat, "cat", 'b');
#undef COL
    if (ml_pv_type_of(r->pvs, get(x, a, "reason")) == ML_PV_DICT) { /* newer data: why each category */
        d->reason = col(x, a, "reason", 'b', &m);
        if (m != n) x->bad = 1;
    }
    d->tr = NULL;
    if (ml_pv_type_of(r->pvs, get(x, a, "tr")) == ML_PV_DICT) { /* Ascend: active release times */
        d->tr = col(x, a, "tr", 'i', &m);
        if (m != n) x->bad = 1;
    }
    {
        static const char *const kinds[] = {"allocated", "reserved", "active"}, *const comps[] = {"PTA", "GE"};
        for (int k = 0; k < 3; k++) {
            d->tot_curve[k] = d->comp_curve[0][k] = d->comp_curve[1][k] = -1;
            for (size_t c = d->ncurves; c-- > 0;) {
                ml_pv cv = ml_pv_item(r->pvs, cs, c);
                const char *g = get_str(x, get(x, cv, "group"));
                if (strcmp(get_str(x, get(x, cv, "kind")), kinds[k])) continue;
                if (!strcmp(g, "overall")) d->tot_curve[k] = (int)c; /* the first, as the page */
                for (int o = 0; o < 2 && !strcmp(g, "component"); o++) {
                    char plain[48], insight[48]; /* the writer's names (report.h), not a module's curve */
                    ml_report_curve_label(plain, sizeof plain, false, kinds[k], comps[o], NULL);
                    ml_report_curve_label(insight, sizeof insight, true, kinds[k], comps[o], NULL);
                    const char *label = get_str(x, get(x, cv, "label"));
                    if (!strcmp(get_str(x, get(x, cv, "of")), comps[o]) && (!strcmp(label, plain) || !strcmp(label, insight)))
                        d->comp_curve[o][k] = (int)c;
                }
            }
        }
    }
    d->group_by_frame = !strcmp(get_str(x, get(x, a, "group_by")), "frame");
    ml_pv gs = get(x, a, "groups");
    d->ngroups = ml_pv_len(r->pvs, gs);
    d->groups = ml_calloc(d->ngroups + 1, sizeof *d->groups);
    for (size_t g = 0; g < d->ngroups; g++) d->groups[g] = get_str(x, ml_pv_item(r->pvs, gs, g));
    if (x->bad) return;
    for (size_t i = 0; i < n; i++) {
        /* Queries index groups and strings by these: check them once here. */
        if (d->group[i] >= d->ngroups || d->op[i] >= r->nstrings || d->stream[i] >= r->nstrings ||
            (i && d->ta[i] < d->ta[i - 1]) || d->tf[i] < d->ta[i]) {
            x->bad = 1;
            return;
        }
    }
    build_index(d);
}

ml_sv_rank *ml_sv_rank_build(ml_profile *p, ml_err *e)
{
    ml_sv_rank *r = ml_calloc(1, sizeof *r);
    pthread_mutex_init(&r->perf_mu, NULL);
    r->p = p;
    r->origin = ml_profile_first_time(p);
    if (r->origin == INT64_MAX) r->origin = 0;
    r->bl.capture = 1;
    ml_buf m = {0};
    ml_report_rank(p, r->origin, SIZE_MAX, 0, &m, &r->bl); /* (the state history: the report's default) */
    ml_buf_printf(&r->meta, "{\"origin_ns\":\"%lld\",\"loaded\":true,", (long long)r->origin);
    ml_buf_put(&r->meta, m.p + 1, m.len - 1);

    r->pvs = ml_pvs_new(NULL);
    ml_source *src = ml_source_from_memory("rank meta", m.p, m.len);
    ml_pv top;
    int rc = ml_jsonvalue_read(src, r->pvs, NULL, NULL, &top, e);
    ml_source_close(src);
    ml_buf_free(&m);
    if (rc != 0) {
        ml_sv_rank_free(r);
        return NULL;
    }
    rd x = { r, e, 0 };
    ml_pv strs = get(&x, top, "strings");
    r->nstrings = ml_pv_len(r->pvs, strs);
    r->strings = ml_calloc(r->nstrings + 1, sizeof *r->strings);
    for (size_t i = 0; i < r->nstrings; i++) r->strings[i] = get_str(&x, ml_pv_item(r->pvs, strs, i));
    r->stack_start = col(&x, top, "stack_start", 'u', &r->nstacks);
    r->stack_frames = col(&x, top, "stack_frames", 'u', &r->nstack_frames);
    r->frame_name = col(&x, top, "frame_name", 'u', &r->nframes);
    size_t nf1, nf2;
    r->frame_file = col(&x, top, "frame_file", 'u', &nf1);
    r->frame_line = col(&x, top, "frame_line", 'i', &nf2);
    if (nf1 != r->nframes || nf2 != r->nframes) x.bad = 1;
    for (size_t i = 0; i < r->nframes && !x.bad; i++)
        if (r->frame_name[i] >= r->nstrings || r->frame_file[i] >= r->nstrings) x.bad = 1;
    for (size_t i = 0; i < r->nstack_frames && !x.bad; i++)
        if (r->stack_frames[i] >= r->nframes) x.bad = 1;
    for (size_t i = 0; i < r->nstacks && !x.bad; i++)
        if (r->stack_start[i] > r->nstack_frames) x.bad = 1;
    ml_pv devs = get(&x, top, "devices");
    r->ndev = ml_pv_len(r->pvs, devs);
    r->dev = ml_calloc(r->ndev + 1, sizeof *r->dev);
    for (size_t k = 0; k < r->ndev && !x.bad; k++) read_device(&x, ml_pv_item(r->pvs, devs, k), &r->dev[k]);
    if (x.bad) {
        ml_fail(e, "%s: internal error: the report data of this rank is inconsistent", p->path);
        ml_sv_rank_free(r);
        return NULL;
    }
    r->trace = ml_sv_trace_build(p, r->origin);
    return r;
}

void ml_sv_rank_free(ml_sv_rank *r)
{
    if (!r) return;
    for (size_t k = 0; k < r->ndev; k++) {
        ml_sv_device *d = &r->dev[k];
        free(d->curves);
        free(d->op_curves);
        free(d->groups);
        free(d->tf_sorted);
        free(d->bytes_ta);
        free(d->bytes_tf);
        free(d->blk_max_tf);
        free(d->blk_max_dur);
        for (size_t c = 0; c < d->ncat; c++) { free(d->cat_top_v[c]); free(d->cat_mn[c]); free(d->cat_mx[c]); }
        for (int s = 0; s < ML_SORT__COUNT; s++) free(d->order[s]);
        pthread_mutex_destroy(&d->mu);
    }
    free(r->dev);
    free(r->strings);
    ml_sv_trace_free(r->trace);
    if (r->pvs) ml_pvs_free(r->pvs);
    ml_blobs_free(&r->bl);
    ml_buf_free(&r->meta);
    ml_buf_free(&r->perf);
    pthread_mutex_destroy(&r->perf_mu);
    if (r->p) ml_profile_free(r->p);
    free(r);
}

bool ml_sv_perf(ml_sv_rank *r, const ml_distributed *dist, size_t key, int top, ml_buf *out)
{
    pthread_mutex_lock(&r->perf_mu);
    if (r->perf_state > 0 && (r->perf_key != key || r->perf_top != top)) {
        /* more ranks loaded since (the distributed view changed), or other rows asked for */
        r->perf.len = 0;
        r->perf_state = 0;
    }
    if (!r->perf_state) {
        /* the job's backend, world size and slowest rank with this rank's own
         * steps and collectives (every rank's in each grew with the ranks squared) */
        ml_dist_part part;
        ml_distributed one;
        const ml_distributed *d = dist;
        bool has_part = dist && ml_distributed_part(r->p, r->p->rank, &part);
        if (has_part) {
            one = *dist;
            one.steps = part.steps;
            one.n_steps = part.n_steps;
            one.collectives = part.collectives;
            one.n_collectives = part.n_collectives;
            d = &one;
        }
        r->perf_state = ml_report_perf_json_with(r->p, d, top, &r->perf) ? 1 : -1;
        r->perf_key = key;
        r->perf_top = top;
        if (has_part) ml_dist_part_free(&part);
    }
    bool ok = r->perf_state > 0;
    if (ok) ml_buf_put(out, r->perf.p, r->perf.len);
    pthread_mutex_unlock(&r->perf_mu);
    return ok;
}

/* ---- values as JSON ----------------------------------------------------- */

void ml_sv_put_value(ml_buf *b, const ml_pvs *st, ml_pv v)
{
    int64_t i;
    double f;
    ml_str s;
    switch (ml_pv_type_of(st, v)) {
    case ML_PV_BOOL: ml_pv_int(st, v, &i); ml_buf_puts(b, i ? "true" : "false"); return;
    case ML_PV_INT: ml_pv_int(st, v, &i); ml_json_i64(b, i); return;
    case ML_PV_FLOAT: ml_pv_num(st, v, &f); ml_buf_printf(b, "%.17g", f); return;
    case ML_PV_STR: ml_pv_str(st, v, &s); ml_json_str(b, ml_strget(ml_pvs_strings(st), s)); return;
    case ML_PV_LIST:
    case ML_PV_TUPLE: {
        ml_buf_puts(b, "[");
        for (size_t k = 0, n = ml_pv_len(st, v); k < n; k++) {
            if (k) ml_buf_puts(b, ",");
            ml_sv_put_value(b, st, ml_pv_item(st, v, k));
        }
        ml_buf_puts(b, "]");
        return;
    }
    case ML_PV_DICT: {
        ml_buf_puts(b, "{");
        for (size_t k = 0, n = ml_pv_len(st, v); k < n; k++) {
            if (k) ml_buf_puts(b, ",");
            ml_sv_put_value(b, st, ml_pv_item(st, v, k));
            ml_buf_puts(b, ":");
            ml_sv_put_value(b, st, ml_pv_dict_value(st, v, k));
        }
        ml_buf_puts(b, "}");
        return;
    }
    default: ml_buf_puts(b, "null"); return;
    }
}
