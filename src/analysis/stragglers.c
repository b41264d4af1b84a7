/*
 * stragglers.c — late-starting ranks from their communication kernels
 * (stragglers.h).
 */
#include "stragglers.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "steps.h"

/* N of "ProfilerStep#N" (HTA's ProfilerStep\s*#\s*(\d+)), or -1. */
static int64_t step_number(const char *s)
{
    if (strncmp(s, "ProfilerStep", 12)) return -1;
    s += 12;
    while (isspace((unsigned char)*s)) s++;
    if (*s++ != '#') return -1;
    while (isspace((unsigned char)*s)) s++;
    if (!isdigit((unsigned char)*s)) return -1;
    int64_t n = 0;
    for (; isdigit((unsigned char)*s) && n < INT64_MAX / 10 - 10; s++) n = n * 10 + (*s - '0');
    return n;
}

static bool is_comm_kernel(const char *s) { return !strncmp(s, "ncclKernel", 10) || !strncmp(s, "ncclDevKernel", 13); }

typedef struct step_span {
    int64_t ts, end, n;
} step_span;

static int cmp_span(const void *x, const void *y)
{
    const step_span *a = x, *b = y;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int cmp_kernel(const void *x, const void *y)
{
    const ml_straggler_kernel *a = x, *b = y;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return (a->stream > b->stream) - (a->stream < b->stream);
}

/* The step whose [ts, end) holds t (the last such in start order), or -1.
 * *last: the span of the answer before, tried first (a thread's slices come
 * in time order, so most fall in the step of the one before). */
static int64_t step_at(const step_span *sp, size_t n, int64_t t, size_t *last)
{
    size_t f = *last;
    if (f < n && sp[f].ts <= t && t < sp[f].end && (f + 1 == n || sp[f + 1].ts > t)) return sp[f].n;
    size_t lo = 0, hi = n; /* first span starting after t */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sp[mid].ts <= t) lo = mid + 1;
        else hi = mid;
    }
    for (size_t k = lo; k-- > 0;)
        if (t < sp[k].end) {
            *last = k;
            return sp[k].n;
        }
    return -1;
}

void ml_straggler_record_of(const ml_profile *p, int rank, ml_straggler_record *out)
{
    memset(out, 0, sizeof *out);
    out->rank = rank;
    out->first = 0;
    out->last = -1;
    const ml_trace *t = p->trace;
    if (!t) return;
    const ml_slices *s = &t->slices;
    size_t n = s->ts.len;
    VEC(step_span) spans = {0};
    for (size_t i = 0; i < n; i++) {
        if (s->kind.v[i] != ML_SL_PROFILER_STEP) continue;
        int64_t num = step_number(ml_s(p, s->name.v[i]));
        if (num < 0) continue;
        step_span sp = {s->ts.v[i], s->ts.v[i] + ml_slice_dur(s, i), num};
        VEC_PUSH(&spans, sp);
    }
    if (!spans.len) return;
    qsort(spans.v, spans.len, sizeof *spans.v, cmp_span);
    /* HTA's loader keeps only the work before the last step begins (that step may be cut short) */
    int64_t cut = spans.v[spans.len - 1].ts;
    while (spans.len && spans.v[spans.len - 1].ts >= cut) spans.len--;
    if (!spans.len) {
        VEC_FREE(&spans);
        return;
    }
    out->steps = ml_malloc(spans.len * sizeof *out->steps);
    for (size_t k = 0; k < spans.len; k++) out->steps[k] = spans.v[k].n;
    qsort(out->steps, spans.len, sizeof *out->steps, cmp_i64);
    for (size_t k = 0; k < spans.len; k++)
        if (!out->n_steps || out->steps[out->n_steps - 1] != out->steps[k]) out->steps[out->n_steps++] = out->steps[k];
    VEC(ml_straggler_kernel) ks = {0};
    bool any = false;
    size_t last_span = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t k = s->kind.v[i];
        bool stream = t->tracks.v[s->track.v[i]].kind == ML_TRACK_STREAM || k == ML_SL_CUDA_SYNC;
        int64_t step = -1, host_ts = -1;
        if (!stream && !ml_slice_is_gpu(k)) host_ts = s->ts.v[i];
        else if (s->launcher.v[i] != ML_NONE32) host_ts = s->ts.v[s->launcher.v[i]];
        if (host_ts >= 0 && host_ts < cut) step = step_at(spans.v, spans.len, host_ts, &last_span);
        if (step < 0) continue;
        int64_t b = s->ts.v[i], e = b + ml_slice_dur(s, i);
        if (!any || b < out->first) out->first = b;
        if (!any || e > out->last) out->last = e;
        any = true;
        if (k != ML_SL_KERNEL) continue;
        const char *name = ml_s(p, s->name.v[i]);
        uint32_t info = s->info.v[i];
        if (!is_comm_kernel(name) || info == ML_NONE32 || info >= t->kernel_info.len) continue;
        ml_straggler_kernel sk = {step, t->kernel_info.v[info].stream, b, ml_slice_dur(s, i), name};
        VEC_PUSH(&ks, sk);
    }
    /* start order (the stream tracks come one after another) */
    if (ks.len > 1) qsort(ks.v, ks.len, sizeof *ks.v, cmp_kernel);
    out->kernels = ks.v;
    out->n_kernels = ks.len;
    VEC_FREE(&spans);
}

void ml_straggler_record_free(ml_straggler_record *r)
{
    free(r->steps);
    free(r->kernels);
    memset(r, 0, sizeof *r);
}

/* ---- across ranks ---- */

typedef struct cand {       /* the last long kernel of a (rank, stream, step, name) */
    int rank;
    int64_t stream, step, ts, dur;
    const char *name;
} cand;

static int cmp_cand(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    if (a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

static int cmp_count(const void *x, const void *y)
{
    const ml_straggler_count *a = x, *b = y;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static int cmp_dbl_desc(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a < b) - (a > b);
}

/* Flags the rows [a, b) whose metric is among the k largest (ties included). */
static void flag_latest(ml_straggler_row *rows, size_t a, size_t b, int k)
{
    size_t n = b - a;
    double *v = ml_malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = rows[a + i].normalized_start;
    qsort(v, n, sizeof *v, cmp_dbl_desc);
    double threshold = v[(size_t)k <= n ? (size_t)k - 1 : n - 1];
    for (size_t i = a; i < b; i++) rows[i].straggler = rows[i].normalized_start >= threshold;
    free(v);
}

ml_stragglers *ml_stragglers_find(const ml_straggler_record *recs, size_t n, int candidates, const char **why)
{
    if (candidates < 1) candidates = 1;
    size_t with_steps = 0, n_iters = 0;
    VEC(int64_t) iters = {0};
    int64_t t_min = 0, t_max = 0;
    bool any = false;
    for (size_t r = 0; r < n; r++) {
        if (recs[r].n_steps) with_steps++;
        for (size_t k = 0; k < recs[r].n_steps; k++) VEC_PUSH(&iters, recs[r].steps[k]);
        if (recs[r].last < recs[r].first) continue;
        if (!any || recs[r].first < t_min) t_min = recs[r].first;
        if (!any || recs[r].last > t_max) t_max = recs[r].last;
        any = true;
    }
    if (iters.len) qsort(iters.v, iters.len, sizeof *iters.v, cmp_i64);
    for (size_t k = 0; k < iters.len; k++) n_iters += !k || iters.v[k] != iters.v[k - 1];
    VEC_FREE(&iters);
    if (n < 2) {
        *why = "it compares ranks: load two or more ranks of the job";
        return NULL;
    }
    if (with_steps < 2 || !any || !n_iters) {
        *why = "it needs ProfilerStep#N steps in two or more ranks";
        return NULL;
    }
    double mean_step = (double)(t_max - t_min) / (double)n_iters;
    double min_dur = mean_step * 0.01;

    /* the last long kernel per (rank, stream, step, name) */
    VEC(cand) cs = {0};
    for (size_t r = 0; r < n; r++)
        for (size_t k = 0; k < recs[r].n_kernels; k++) {
            const ml_straggler_kernel *x = &recs[r].kernels[k];
            if (x->step <= 0 || x->stream <= 0 || (double)x->dur < min_dur) continue;
            cand c = {recs[r].rank, x->stream, x->step, x->ts, x->dur, x->name};
            VEC_PUSH(&cs, c);
        }
    if (cs.len) qsort(cs.v, cs.len, sizeof *cs.v, cmp_cand);
    size_t w = 0;
    for (size_t i = 0; i < cs.len; i++) { /* keep each group's latest start: its last in this order */
        if (w && cs.v[w - 1].rank == cs.v[i].rank && cs.v[w - 1].stream == cs.v[i].stream &&
            cs.v[w - 1].step == cs.v[i].step && !strcmp(cs.v[w - 1].name, cs.v[i].name))
            cs.v[w - 1] = cs.v[i];
        else cs.v[w++] = cs.v[i];
    }
    cs.len = w;

    /* the (stream, name) whose durations differ most across ranks, on average over the steps */
    size_t best_a = 0, best_b = 0;
    double best = -1;
    for (size_t a = 0, b; a < cs.len; a = b) {
        for (b = a; b < cs.len && cs.v[b].stream == cs.v[a].stream && !strcmp(cs.v[b].name, cs.v[a].name); b++) {}
        double sum = 0;
        int steps = 0;
        for (size_t i = a, j; i < b; i = j) {
            double m = 0, q = 0;
            size_t cnt = 0;
            for (j = i; j < b && cs.v[j].step == cs.v[i].step; j++) m += (double)cs.v[j].dur / mean_step, cnt++;
            if (cnt < 2) continue; /* pandas' std of one value is NaN: not counted */
            m /= (double)cnt;
            for (size_t x = i; x < j; x++) {
                double d = (double)cs.v[x].dur / mean_step - m;
                q += d * d;
            }
            sum += sqrt(q / (double)(cnt - 1));
            steps++;
        }
        if (steps && sum / steps > best) {
            best = sum / steps;
            best_a = a;
            best_b = b;
        }
    }
    if (best < 0) {
        VEC_FREE(&cs);
        *why = "no communication kernel (ncclKernel*, ncclDevKernel*) of a step after the first lasts 1% of a step "
               "on two ranks in the same step";
        return NULL;
    }

    ml_stragglers *s = ml_calloc(1, sizeof *s);
    s->kernel = ml_malloc(strlen(cs.v[best_a].name) + 1);
    strcpy(s->kernel, cs.v[best_a].name);
    s->stream = cs.v[best_a].stream;
    s->mean_step_ns = llround(mean_step);
    s->min_kernel_ns = llround(min_dur);
    s->candidates = candidates;
    s->n_rows = best_b - best_a;
    s->rows = ml_calloc(s->n_rows, sizeof *s->rows);
    size_t distinct_steps = 0;
    for (size_t i = best_a, j; i < best_b; i = j) { /* a step at a time: lateness against its earliest start */
        int64_t earliest = cs.v[i].ts;
        for (j = i; j < best_b && cs.v[j].step == cs.v[i].step; j++)
            if (cs.v[j].ts < earliest) earliest = cs.v[j].ts;
        for (size_t x = i; x < j; x++) {
            ml_straggler_row *row = &s->rows[x - best_a];
            row->rank = cs.v[x].rank;
            row->step = cs.v[x].step;
            row->ts = cs.v[x].ts;
            row->late_ns = cs.v[x].ts - earliest;
            row->normalized_start = (double)(cs.v[x].ts - t_min) / mean_step;
        }
        distinct_steps++;
    }
    if (distinct_steps > 1) {
        for (size_t i = 0, j; i < s->n_rows; i = j) {
            for (j = i; j < s->n_rows && s->rows[j].step == s->rows[i].step; j++) {}
            flag_latest(s->rows, i, j, candidates);
        }
    } else flag_latest(s->rows, 0, s->n_rows, candidates);
    VEC_FREE(&cs);

    s->counts = ml_calloc(s->n_rows, sizeof *s->counts);
    for (size_t i = 0; i < s->n_rows; i++) {
        size_t k = 0;
        while (k < s->n_counts && s->counts[k].rank != s->rows[i].rank) k++;
        if (k == s->n_counts) s->counts[s->n_counts++].rank = s->rows[i].rank;
        s->counts[k].count += s->rows[i].straggler;
    }
    qsort(s->counts, s->n_counts, sizeof *s->counts, cmp_count);
    s->n_ranks = (size_t)candidates < s->n_counts ? (size_t)candidates : s->n_counts;
    s->ranks = ml_malloc((s->n_ranks ? s->n_ranks : 1) * sizeof *s->ranks);
    for (size_t k = 0; k < s->n_ranks; k++) s->ranks[k] = s->counts[k].rank;
    *why = NULL;
    return s;
}

void ml_stragglers_free(ml_stragglers *s)
{
    if (!s) return;
    free(s->kernel);
    free(s->rows);
    free(s->counts);
    free(s->ranks);
    free(s);
}

ml_stragglers *ml_stragglers_compute(ml_profile *const *ranks, size_t n, const char **why)
{
    ml_straggler_record *recs = ml_calloc(n ? n : 1, sizeof *recs);
    size_t m = 0;
    for (size_t r = 0; r < n; r++)
        if (ranks[r]->trace) ml_straggler_record_of(ranks[r], ranks[r]->rank >= 0 ? ranks[r]->rank : (int)r, &recs[m++]);
    ml_stragglers *s = ml_stragglers_find(recs, m, ML_STRAGGLER_CANDIDATES, why);
    for (size_t r = 0; r < m; r++) ml_straggler_record_free(&recs[r]);
    free(recs);
    return s;
}
