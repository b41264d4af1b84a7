/*
 * perf_gputime.c — HTA's GPU-time analyses as runs fields, text and the
 * perf object's "gputime" (perf_gputime.h).
 */
#include "perf_gputime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "textwidth.h"

/* ---- shared ----------------------------------------------------------------- */

/* Kernel-type combinations with time, longest first (HTA's order). */
static int type_order(const ml_kernel_types *kt, unsigned order[ML_KT_MASKS])
{
    int n = 0;
    for (unsigned m = 1; m < ML_KT_MASKS; m++)
        if (kt->ns[m] > 0) order[n++] = m;
    for (int i = 1; i < n; i++) /* insertion sort: 7 at most */
        for (int j = i; j > 0 && kt->ns[order[j]] > kt->ns[order[j - 1]]; j--) {
            unsigned x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    return n;
}

static const char *const idle_keys[ML_IDLE__COUNT] = {"host_wait", "kernel_wait", "other"};
static const int64_t outlier_cutoff_ns[ML_OUTLIER__COUNT] = {ML_LAUNCH_RUNTIME_CUTOFF_NS, ML_LAUNCH_RUNTIME_CUTOFF_NS,
                                                             ML_LAUNCH_DELAY_CUTOFF_NS};

static void key_i64(jw *w, const char *k, int64_t v)
{
    jw_key(w, k);
    jw_i64(w, v);
}

/* ns as µs: a whole number when it is one, else its exact decimals ("10771.7") */
static void key_us(jw *w, const char *k, int64_t ns)
{
    jw_key(w, k);
    jw_us(w, ns);
}

static void key_dbl(jw *w, const char *k, double v)
{
    jw_key(w, k);
    if (isfinite(v)) jw_dbl(w, v);
    else jw_null(w);
}

static void key_str(jw *w, const char *k, const char *s)
{
    jw_key(w, k);
    jw_str(w, s ? s : "");
}

/* ---- runs (µs, exact decimals) ---------------------------------------------------------------- */

void ml_gputime_runs_json(jw *w, const ml_profile *p, const ml_gputime *g)
{
    const ml_slices *s = p->trace ? &p->trace->slices : NULL;
    jw_key(w, "temporal");
    if (g && g->temporal.known) {
        jw_obj(w);
        key_us(w, "span_us", g->temporal.span);
        key_us(w, "idle_us", g->temporal.idle);
        key_us(w, "compute_us", g->temporal.compute);
        key_us(w, "non_compute_us", g->temporal.non_compute);
        jw_end(w);
    } else jw_null(w);

    jw_key(w, "idle_by_stream");
    jw_arr(w);
    for (size_t i = 0; g && i < g->idle.len; i++) {
        const ml_stream_idle *r = &g->idle.v[i];
        jw_obj(w);
        key_i64(w, "stream", r->stream);
        key_us(w, "host_wait_us", r->ns[ML_IDLE_HOST_WAIT]);
        key_us(w, "kernel_wait_us", r->ns[ML_IDLE_KERNEL_WAIT]);
        key_us(w, "other_us", r->ns[ML_IDLE_OTHER]);
        jw_end(w);
    }
    jw_end(w);

    jw_key(w, "kernel_types");
    jw_arr(w);
    unsigned order[ML_KT_MASKS];
    int nt = g ? type_order(&g->types, order) : 0;
    for (int i = 0; i < nt; i++) {
        jw_obj(w);
        key_str(w, "type", ml_kernel_mask_name(order[i]));
        key_us(w, "total_us", g->types.ns[order[i]]);
        jw_end(w);
    }
    jw_end(w);
    key_dbl(w, "comm_comp_overlap_pct", g ? 100 * g->types.comm_comp_overlap : NAN);

    jw_key(w, "launches");
    if (g && g->launches.count) {
        const ml_launch_stats *l = &g->launches;
        jw_obj(w);
        key_i64(w, "count", l->count);
        key_us(w, "cpu_us", l->cpu);
        key_us(w, "gpu_us", l->gpu);
        key_us(w, "delay_us", l->delay);
        key_us(w, "delay_max_us", l->delay_max);
        for (int k = 0; k < ML_OUTLIER__COUNT; k++) {
            const ml_launch_outliers *o = &l->outliers[k];
            jw_key(w, ml_launch_outlier_key(k));
            jw_obj(w);
            key_us(w, "cutoff_us", outlier_cutoff_ns[k]);
            key_i64(w, "count", o->count);
            jw_key(w, "top");
            jw_arr(w);
            for (uint32_t j = 0; j < o->n; j++) {
                const ml_launch *x = &o->top[j];
                jw_obj(w);
                key_str(w, "kernel", ml_s(p, s->name.v[x->kernel]));
                key_str(w, "launcher", ml_s(p, s->name.v[x->launcher]));
                key_i64(w, "correlation", ml_slice_corr(s, x->kernel));
                key_us(w, "cpu_us", x->cpu);
                key_us(w, "gpu_us", x->gpu);
                key_us(w, "delay_us", x->delay);
                jw_end(w);
            }
            jw_end(w);
            jw_end(w);
        }
        jw_end(w);
    } else jw_null(w);

    jw_key(w, "queue_length");
    jw_arr(w);
    for (size_t i = 0; g && i < g->queues.len; i++) {
        const ml_stream_queue *q = &g->queues.v[i];
        jw_obj(w);
        key_i64(w, "stream", q->stream);
        key_i64(w, "max", q->max);
        key_dbl(w, "mean", q->mean);
        key_us(w, "blocked_us", q->blocked);
        jw_end(w);
    }
    jw_end(w);

    jw_key(w, "memory_bw");
    jw_arr(w);
    for (size_t i = 0; g && i < g->membw.len; i++) {
        jw_obj(w);
        key_str(w, "kind", g->membw.v[i].kind);
        key_dbl(w, "max_gbps", g->membw.v[i].max);
        jw_end(w);
    }
    jw_end(w);
}

/* ---- text ---------------------------------------------------------------------- */

static const char *dur_ns(int64_t ns, char *buf, size_t cap) { return ml_fmt_duration(ns, buf, cap); }

static double share(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * (double)part / (double)whole : 0; }

void ml_gputime_text_overview(FILE *f, const ml_gputime *g)
{
    if (!g || !g->temporal.known) return;
    const ml_temporal *t = &g->temporal;
    char a[32], b[32], c[32], d[32];
    const char *dev = ml_devkind_words_of(g->devkind)->device;
    fprintf(f, "\n%s time (HTA's temporal breakdown, %s%s)\n", dev,
            g->rules == ML_TIME_HTA ? "times rounded inward to whole us as HTA does" : "exact ns",
            g->last_step_cut ? "; work launched from the last ProfilerStep# on left out, as HTA does" : "");
    fprintf(f, "  span %s: compute %s (%.1f %%), non-compute %s (%.1f %%), idle %s (%.1f %%)\n",
            dur_ns(t->span, a, sizeof a), dur_ns(t->compute, b, sizeof b), share(t->compute, t->span),
            dur_ns(t->non_compute, c, sizeof c), share(t->non_compute, t->span), dur_ns(t->idle, d, sizeof d),
            share(t->idle, t->span));
    if (g->idle.len) {
        fprintf(f, "  %s idle by cause (gaps between a stream's merged kernels; kernel wait: under %d us)\n", dev,
                ML_KERNEL_WAIT_NS / 1000);
        fprintf(f, "  %10s %11s %11s %11s\n", "stream", "host wait", "kernel wait", "other");
        for (size_t i = 0; i < g->idle.len; i++) {
            const ml_stream_idle *r = &g->idle.v[i];
            fprintf(f, "  %10lld %11s %11s %11s\n", (long long)r->stream, dur_ns(r->ns[0], a, sizeof a),
                    dur_ns(r->ns[1], b, sizeof b), dur_ns(r->ns[2], c, sizeof c));
        }
    }
    if (isfinite(g->types.comm_comp_overlap))
        fprintf(f, "  communication under computation: %.2f %% of %s of communication\n",
                100 * g->types.comm_comp_overlap, dur_ns(g->types.comm_ns, a, sizeof a));
}

void ml_gputime_text_kernels(FILE *f, const ml_profile *p, const ml_gputime *g, int top, int width)
{
    if (!g || !g->any) return;
    char a[32], b[32], c[32], d[32], e[32];
    unsigned order[ML_KT_MASKS];
    int nt = type_order(&g->types, order);
    int64_t all = 0;
    for (int i = 0; i < nt; i++) all += g->types.ns[order[i]];
    if (nt) {
        fprintf(f, "\nKernel types (time with each busy, overlaps apart)\n");
        for (int i = 0; i < nt; i++)
            fprintf(f, "  %11s %6.1f %%  %s\n", dur_ns(g->types.ns[order[i]], a, sizeof a),
                    share(g->types.ns[order[i]], all), ml_kernel_mask_name(order[i]));
    }
    const ml_launch_stats *l = &g->launches;
    if (l->count) {
        fprintf(f, "\nKernel launches: %s (calls %s, kernels %s; launch delay %s in all, %s at most)\n",
                ml_fmt_count(l->count, a, sizeof a), dur_ns(l->cpu, b, sizeof b), dur_ns(l->gpu, c, sizeof c),
                dur_ns(l->delay, d, sizeof d), dur_ns(l->delay_max, e, sizeof e));
        static const char *const what[ML_OUTLIER__COUNT] = {
            "short kernels (call at most 50 us, kernel shorter than the call)", "runtime outliers (call over 50 us)",
            "launch-delay outliers (delay over 100 us)"};
        const ml_slices *s = &p->trace->slices;
        for (int k = 0; k < ML_OUTLIER__COUNT; k++) {
            const ml_launch_outliers *o = &l->outliers[k];
            fprintf(f, "  %s: %s\n", what[k], ml_fmt_count(o->count, a, sizeof a));
            uint32_t n = top > 0 && (uint32_t)top < o->n ? (uint32_t)top : o->n;
            if (n > 3 && top <= 0) n = 3;
            for (uint32_t j = 0; j < n; j++) {
                const ml_launch *x = &o->top[j];
                fprintf(f, "    call %9s  kernel %9s  delay %9s  ", dur_ns(x->cpu, a, sizeof a),
                        dur_ns(x->gpu, b, sizeof b), dur_ns(x->delay, c, sizeof c));
                const char *nm = ml_s(p, s->name.v[x->kernel]);
                int cols = width > 0 ? (width - 54 > 12 ? width - 54 : 12) : 0;
                size_t cap = 4 * (size_t)(cols > 0 ? cols : 1) + 8;
                char *buf = malloc(cap);
                fputs(buf ? ml_fit(nm, cols, 1, buf, cap) : nm, f);
                free(buf);
                fputc('\n', f);
            }
        }
    }
    if (g->queues.len) {
        fprintf(f, "\nLaunch queue per stream (launched, not started)\n  %10s %6s %9s %11s\n", "stream", "max", "mean",
                "full (1024)");
        for (size_t i = 0; i < g->queues.len; i++) {
            const ml_stream_queue *q = &g->queues.v[i];
            fprintf(f, "  %10lld %6lld %9.2f %11s\n", (long long)q->stream, (long long)q->max, q->mean,
                    dur_ns(q->blocked, a, sizeof a));
        }
    }
    if (g->membw.len) {
        fprintf(f, "\nMemory bandwidth (highest, all streams)\n");
        for (size_t i = 0; i < g->membw.len; i++)
            fprintf(f, "  %10.2f GB/s  %s\n", g->membw.v[i].max, g->membw.v[i].kind);
    }
}

/* ---- perf object (ns) ------------------------------------------------------------- */

/* A step series for a counter track: "t0_ns" (the first point, after
 * span.begin_ns), "dt_us" (each point's µs after the one before, the first
 * 0), "v" (the value from that point on). Over
 * SERIES_MAX points it is cut to the first, lowest, highest and last point
 * of each of SERIES_COLS columns of time (M4: no peak lost), "summarised"
 * then saying how many points there were. */
#define SERIES_MAX 200000
#define SERIES_COLS 40000

static void write_series(jw *w, const ml_gputime *g, int64_t origin, const int64_t *t, const int32_t *qi,
                         const double *qd, size_t n)
{
    size_t *keep = NULL, nk = n;
    if (n > SERIES_MAX) {
        keep = ml_malloc(4 * SERIES_COLS * sizeof *keep + 4 * sizeof *keep);
        nk = 0;
        double t0 = (double)t[0], per_col = ((double)t[n - 1] - t0 + 1) / SERIES_COLS;
        for (size_t i = 0; i < n;) {
            int64_t col = (int64_t)(((double)t[i] - t0) / per_col);
            size_t j = i, lo = i, hi = i;
            while (j < n && (int64_t)(((double)t[j] - t0) / per_col) == col) {
                double v = qi ? qi[j] : qd[j], vlo = qi ? qi[lo] : qd[lo], vhi = qi ? qi[hi] : qd[hi];
                if (v < vlo) lo = j;
                if (v > vhi) hi = j;
                j++;
            }
            size_t pick[4] = {i, lo < hi ? lo : hi, lo < hi ? hi : lo, j - 1};
            for (int k = 0; k < 4; k++)
                if (!nk || keep[nk - 1] < pick[k]) keep[nk++] = pick[k];
            i = j;
        }
    }
    key_i64(w, "t0_ns", nk ? ml_gputime_ns(g, t[keep ? keep[0] : 0]) - origin : 0);
    jw_key(w, "dt_us");
    jw_arr(w);
    for (size_t k = 0; k < nk; k++) {
        size_t i = keep ? keep[k] : k, prev = k ? (keep ? keep[k - 1] : k - 1) : i;
        jw_us(w, t[i] - t[prev]);
    }
    jw_end(w);
    jw_key(w, "v");
    jw_arr(w);
    for (size_t k = 0; k < nk; k++) {
        size_t i = keep ? keep[k] : k;
        if (qi) jw_i64(w, qi[i]);
        else jw_dbl(w, qd[i]);
    }
    jw_end(w);
    jw_key(w, "summarised");
    if (keep) jw_i64(w, (int64_t)n);
    else jw_null(w);
    free(keep);
}

void ml_gputime_perf_json(jw *w, const ml_profile *p, const ml_gputime *g)
{
    jw_key(w, "gputime");
    if (!g || !g->any) {
        jw_null(w);
        return;
    }
    const ml_slices *s = &p->trace->slices;
    int64_t origin = p->trace->span_begin;
    jw_obj(w);
    key_i64(w, "events", (int64_t)g->events);
    jw_key(w, "last_step_cut");
    jw_bool(w, g->last_step_cut);
    key_i64(w, "kernel_wait_ns", ML_KERNEL_WAIT_NS);
    key_str(w, "time_rules", g->rules == ML_TIME_HTA ? "hta" : "exact");
    key_str(w, "device_word", ml_devkind_words_of(g->devkind)->device);
    jw_key(w, "temporal");
    jw_obj(w);
    key_i64(w, "span_ns", g->temporal.span);
    key_i64(w, "idle_ns", g->temporal.idle);
    key_i64(w, "compute_ns", g->temporal.compute);
    key_i64(w, "non_compute_ns", g->temporal.non_compute);
    jw_end(w);

    jw_key(w, "idle_by_stream");
    jw_arr(w);
    for (size_t i = 0; i < g->idle.len; i++) {
        const ml_stream_idle *r = &g->idle.v[i];
        jw_obj(w);
        key_i64(w, "stream", r->stream);
        for (int k = 0; k < ML_IDLE__COUNT; k++) {
            char key[32];
            snprintf(key, sizeof key, "%s_ns", idle_keys[k]);
            key_i64(w, key, r->ns[k]);
        }
        jw_key(w, "gaps");
        jw_arr(w);
        for (int k = 0; k < ML_IDLE__COUNT; k++) jw_i64(w, r->gaps[k]);
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);

    jw_key(w, "kernel_types");
    jw_arr(w);
    unsigned order[ML_KT_MASKS];
    int nt = type_order(&g->types, order);
    for (int i = 0; i < nt; i++) {
        jw_obj(w);
        key_str(w, "type", ml_kernel_mask_name(order[i]));
        key_i64(w, "ns", g->types.ns[order[i]]);
        jw_end(w);
    }
    jw_end(w);
    key_dbl(w, "comm_comp_overlap", g->types.comm_comp_overlap);
    key_i64(w, "comm_ns", g->types.comm_ns);

    jw_key(w, "launches");
    const ml_launch_stats *l = &g->launches;
    if (l->count) {
        jw_obj(w);
        key_i64(w, "count", l->count);
        key_i64(w, "cpu_ns", l->cpu);
        key_i64(w, "gpu_ns", l->gpu);
        key_i64(w, "delay_ns", l->delay);
        key_i64(w, "delay_max_ns", l->delay_max);
        int lo = 0, hi = -1;
        for (int b = 0; b < ML_DURHIST_BINS; b++)
            if (l->delay_hist.counts[b]) {
                if (hi < 0) lo = b;
                hi = b;
            }
        jw_key(w, "delay_hist");
        jw_obj(w);
        key_i64(w, "bin0", lo);
        jw_key(w, "counts");
        jw_arr(w);
        for (int b = lo; b <= hi; b++) jw_i64(w, l->delay_hist.counts[b]);
        jw_end(w);
        jw_end(w);
        jw_key(w, "outliers");
        jw_obj(w);
        for (int k = 0; k < ML_OUTLIER__COUNT; k++) {
            const ml_launch_outliers *o = &l->outliers[k];
            jw_key(w, ml_launch_outlier_key(k));
            jw_obj(w);
            key_i64(w, "cutoff_ns", outlier_cutoff_ns[k]);
            key_i64(w, "count", o->count);
            jw_key(w, "top");
            jw_arr(w);
            for (uint32_t j = 0; j < o->n; j++) {
                const ml_launch *x = &o->top[j];
                jw_obj(w);
                key_str(w, "name", ml_s(p, s->name.v[x->kernel]));
                key_str(w, "launcher", ml_s(p, s->name.v[x->launcher]));
                key_i64(w, "start_ns", s->ts.v[x->kernel] - origin);
                key_i64(w, "dur_ns", ml_slice_dur(s, x->kernel));
                key_i64(w, "launch_start_ns", s->ts.v[x->launcher] - origin);
                key_i64(w, "launch_dur_ns", ml_slice_dur(s, x->launcher));
                key_i64(w, "cpu_ns", x->cpu);
                key_i64(w, "gpu_ns", x->gpu);
                key_i64(w, "delay_ns", x->delay);
                jw_end(w);
            }
            jw_end(w);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    } else jw_null(w);

    jw_key(w, "queues");
    jw_arr(w);
    for (size_t i = 0; i < g->queues.len; i++) {
        const ml_stream_queue *q = &g->queues.v[i];
        jw_obj(w);
        key_i64(w, "stream", q->stream);
        key_i64(w, "max", q->max);
        key_dbl(w, "mean", q->mean);
        key_i64(w, "blocked_ns", q->blocked);
        write_series(w, g, origin, q->t, q->q, NULL, q->n);
        jw_end(w);
    }
    jw_end(w);

    jw_key(w, "membw");
    jw_arr(w);
    for (size_t i = 0; i < g->membw.len; i++) {
        const ml_membw *m = &g->membw.v[i];
        jw_obj(w);
        key_str(w, "kind", m->kind);
        key_dbl(w, "max_gbps", m->max);
        write_series(w, g, origin, m->t, NULL, m->gbps, m->n);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}
