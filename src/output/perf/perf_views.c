/*
 * perf_views.c — the text views of `memlens perf` (perf_views.h).
 */
#include "devkind.h"
#include "perf_views.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "perf_gputime.h"
#include "perf.h"
#include "perf_hta.h"
#include "perf_runs.h"
#include "textwidth.h"

unsigned ml_perf_view_parse(const char *name)
{
    static const struct { const char *name; unsigned bit; } views[] = {
        {"overview", ML_VIEW_OVERVIEW}, {"operators", ML_VIEW_OPERATORS}, {"kernels", ML_VIEW_KERNELS},
        {"distributed", ML_VIEW_DISTRIBUTED}, {"modules", ML_VIEW_MODULES}, {"critical-path", ML_VIEW_CRITPATH},
        {"all", ML_VIEW_ALL | ML_VIEW_CRITPATH}};
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
        if (!strcmp(name, views[i].name)) return views[i].bit;
    return 0;
}

static size_t limit(size_t n, int top) { return top > 0 && (size_t)top < n ? (size_t)top : n; }
static const char *dur(int64_t ns, char *buf, size_t cap) { return ml_fmt_duration(ns, buf, cap); }

/* Columns left for the name after `used` columns; 0 (unlimited) without a width. */
static int name_cols(int width, int used)
{
    if (width <= 0) return 0;
    return width - used > 12 ? width - used : 12;
}

/* Prints s in cols columns (no padding), cut in the middle when longer. */
static void put_name(FILE *f, const char *s, int cols, int middle)
{
    size_t cap = 4 * (cols > 0 ? (size_t)cols : strlen(s)) + 8;
    char *buf = malloc(cap);
    fputs(buf ? ml_fit(s, cols, middle, buf, cap) : s, f);
    free(buf);
}

/* The rows past --top, added up, in the table's columns. */
static void text_rest(FILE *f, ml_rows_rest o, bool ops, const char *what)
{
    if (!o.rows) return;
    char a[32], b[32], c[32], d[32], cnt[32];
    ml_fmt_count((int64_t)o.rows, cnt, sizeof cnt);
    if (ops)
        fprintf(f, "  %8lld %11s %11s %11s %11s %2s  (others: %s more %s%s)\n", (long long)o.calls,
                dur(o.device_self_ns, a, sizeof a), dur(o.device_total_ns, b, sizeof b), dur(o.host_self_ns, c, sizeof c),
                dur(o.host_total_ns, d, sizeof d), "", cnt, what, o.rows == 1 ? "" : "s");
    else
        fprintf(f, "  %8lld %11s %11s %8s %8s %2s  (others: %s more %s%s)\n", (long long)o.calls,
                dur(o.total_ns, a, sizeof a), dur(o.calls ? o.total_ns / o.calls : 0, b, sizeof b), "", "", "", cnt, what,
                o.rows == 1 ? "" : "s");
}

static void text_steps(FILE *f, const ml_profile *p, const ml_steps *st)
{
    static const char *const heads[ML_ROLE__COUNT] = {"Kernel", "Memcpy",     "Memset",   "Comm",
                                                      "Runtime", "DataLoader", "CPU Exec", "Other"};
    bool show[ML_ROLE__COUNT];
    for (int r = 0; r < ML_ROLE__COUNT; r++) show[r] = st->avg[r] > 0 || r == ML_ROLE_KERNEL || r == ML_ROLE_OTHER;
    fprintf(f, "Steps%s\n", st->whole_trace ? " (no ProfilerStep#: the whole trace is one step)" : "");
    if (st->steps.len) {
        char t0[64], t1[64];
        fprintf(f, "  from %s to %s\n", ml_fmt_time(st->begin, p->time_is_absolute, t0, sizeof t0),
                ml_fmt_time(st->end, p->time_is_absolute, t1, sizeof t1));
    }
    fprintf(f, "  %-14s %11s", "step", "total");
    for (int r = 0; r < ML_ROLE__COUNT; r++)
        if (show[r]) fprintf(f, " %11s", heads[r]);
    fputc('\n', f);
    char b[32];
    for (size_t k = 0; k <= st->steps.len; k++) {
        bool avg = k == st->steps.len;
        if (avg && st->steps.len < 2) break;
        const ml_step *s = avg ? NULL : &st->steps.v[k];
        const char *name = avg ? "average" : ml_perf_step_label(s->name ? ml_s(p, s->name) : NULL);
        fputs("  ", f);
        char nb[64];
        fprintf(f, "%-14s", ml_fit(name, 14, 1, nb, sizeof nb));
        fprintf(f, " %11s", dur(avg ? llround(st->avg_total) : s->end - s->begin, b, sizeof b));
        for (int r = 0; r < ML_ROLE__COUNT; r++)
            if (show[r]) fprintf(f, " %11s", dur(avg ? llround(st->avg[r]) : s->cost[r], b, sizeof b));
        fputc('\n', f);
    }
    if (st->avg_total > 0) {
        fprintf(f, "  %-14s %11s", "share", "100%");
        for (int r = 0; r < ML_ROLE__COUNT; r++)
            if (show[r]) fprintf(f, " %10.1f%%", 100 * st->avg[r] / st->avg_total);
        fputc('\n', f);
    }
}

static void pct(FILE *f, const char *label, double v100)
{
    if (v100 < 0) fprintf(f, "    %-28s n/a\n", label);
    else fprintf(f, "    %-28s %.2f %%\n", label, v100);
}

static void text_gpus(FILE *f, const ml_profile *p, const ml_perf *perf)
{
    char b[64], c[64];
    for (size_t i = 0; i < perf->gpus.len; i++) {
        const ml_gpu_metrics *g = &perf->gpus.v[i];
        const ml_device *d = g->device >= 0 && (size_t)g->device < p->devices.len ? &p->devices.v[g->device] : NULL;
        bool gpu = !d || d->kind == ML_DEV_CUDA || d->kind == ML_DEV_HIP, npu = d && d->kind == ML_DEV_NPU;
        const char *id = d ? d->id : g->gpu >= 0 ? (snprintf(b, sizeof b, "cuda:%d", g->gpu), b) : "gpu";
        fprintf(f, "\n%s %s", gpu ? "GPU" : npu ? "NPU" : "Device", id);
        if (d && d->name) fprintf(f, "  %s", ML_TEXT_SAFE(ml_s(p, d->name)));
        if (d && d->total_memory >= 0) fprintf(f, "  %s", ml_fmt_bytes(d->total_memory, c, sizeof c));
        if (d && d->cc_major >= 0) fprintf(f, "  compute capability %d.%d", d->cc_major, d->cc_minor);
        fputc('\n', f);
        pct(f, gpu ? "GPU utilization" : npu ? "NPU utilization" : "utilization", g->utilization < 0 ? -1 : 100 * g->utilization);
        if (!npu) { /* CUDA's SMs and Tensor Cores: an NPU has AI Cores (the kernels by Accelerator Core) */
            pct(f, "est. SM efficiency", g->sm_efficiency < 0 ? -1 : 100 * g->sm_efficiency);
            pct(f, "est. achieved occupancy", g->occupancy);
            pct(f, "kernel time on Tensor Cores", g->tc_share < 0 ? -1 : 100 * g->tc_share);
        }
        fprintf(f, "    %-28s %s in %s kernels\n", "kernel time", dur(g->kernel_ns, b, sizeof b),
                ml_fmt_count(g->kernels, c, sizeof c));
    }
    if (!perf->gpus.len) fprintf(f, "\nGPU: none (the trace has no GPU kernels)\n");
}

static void text_recs(FILE *f, const ml_perf *perf)
{
    fprintf(f, "\nRecommendations\n");
    if (!perf->recs.len) fprintf(f, "  none: no rule was triggered\n");
    for (size_t i = 0; i < perf->recs.len; i++) fprintf(f, "  - [%s] %s\n", perf->recs.v[i].id, ML_TEXT_SAFE(perf->recs.v[i].text));
}

static void text_operators(FILE *f, const ml_profile *p, const ml_perf *perf, const ml_perf_view_opts *o)
{
    bool shape = o->group == ML_PERF_BY_SHAPE;
    const ml_op_rows *ops = shape ? &perf->ops.by_shape : &perf->ops.by_name;
    bool gpu = perf->kernels.kernels > 0, tc = ml_devkind_words_of(ml_devkind_of_profile(p))->matrix_units != NULL;
    size_t n = limit(ops->len, o->top);
    if (!ops->len) {
        fprintf(f, "\nOperators: none (the trace has no CPU operators)\n");
        return;
    }
    fprintf(f, "\n%s by %s self time%s (%zu of %zu)\n", n < ops->len ? "Top operators" : "Operators",
            gpu ? "device" : "host", shape ? ", by name and input shape" : "", n, ops->len);
    const int fixed = 2 + 8 + 4 * 12 + 3 + 2; /* "  calls dev-self dev-total host-self host-total TC  " */
    int cols = name_cols(o->width, fixed);
    int namew = 0;
    if (shape) { /* name column as wide as the longest name, leaving the shapes their room */
        int shapew = 0;
        for (size_t i = 0; i < n; i++) {
            int c = ml_text_cols(ml_s(p, ops->v[i].name));
            if (c > namew) namew = c;
            c = ops->v[i].shape ? ml_text_cols(ml_s(p, ops->v[i].shape)) : 0;
            if (c > shapew) shapew = c;
        }
        if (cols > 0) {
            int room = cols - shapew - 2 > cols / 2 ? cols - shapew - 2 : cols / 2;
            if (namew > room) namew = room;
        }
    }
    fprintf(f, "  %8s %11s %11s %11s %11s %2s  %s\n", "calls", "dev self", "dev total", "host self", "host total", tc ? "TC" : "",
            shape ? "name, input shape" : "name");
    char b[32], c[32], x[32], y[32];
    char **fitted = NULL; /* by name alone: two operators never print alike */
    if (!shape) {
        const char **names = ml_malloc((n ? n : 1) * sizeof *names);
        for (size_t i = 0; i < n; i++) names[i] = ml_s(p, ops->v[i].name);
        fitted = ml_fit_apart(names, n, cols, 0);
        free(names);
    }
    for (size_t i = 0; i < n; i++) {
        const ml_op_row *r = &ops->v[i];
        fprintf(f, "  %8lld %11s %11s %11s %11s %2s  ", (long long)r->calls, dur(r->device_self_ns, b, sizeof b),
                dur(r->device_total_ns, c, sizeof c), dur(r->host_self_ns, x, sizeof x),
                dur(r->host_total_ns, y, sizeof y), r->tc_eligible && tc ? "E" : "");
        if (fitted) fputs(fitted[i], f);
        else {
            const char *nm = ml_s(p, r->name);
            size_t cap = 4 * (namew > 0 ? (size_t)namew : strlen(nm)) + 8;
            char *buf = malloc(cap);
            const char *fit = buf ? ml_fit(nm, namew, 0, buf, cap) : nm;
            const char *sh = r->shape ? ml_s(p, r->shape) : "";
            if (*sh) fprintf(f, "%s%*s  ", fit, namew - ml_text_cols(fit) > 0 ? namew - ml_text_cols(fit) : 0, "");
            else fputs(fit, f);
            free(buf);
            put_name(f, sh, cols > 0 ? cols - namew - 2 : 0, 0);
        }
        fputc('\n', f);
    }
    ml_fit_apart_free(fitted, n);
    text_rest(f, ml_op_rows_rest(ops, o->top), true, "operator");
    if (tc) fprintf(f, "  (TC: E = Tensor Core eligible)\n");
}

/* NPU tasks by Accelerator Core (AI_CORE, AI_VECTOR_CORE, AI_CPU, HCCL ...), as Insight's operator view. */
static void text_cores(FILE *f, const ml_profile *p, const ml_kernel_table *kt)
{
    if (!kt->by_core.len) return;
    int64_t all = 0;
    for (size_t i = 0; i < kt->by_core.len; i++) all += kt->by_core.v[i].total_ns;
    fprintf(f, "\nKernels by Accelerator Core\n  %8s %11s %7s %11s  %s\n", "calls", "total", "share", "mean", "core");
    char b[32], c[32];
    for (size_t i = 0; i < kt->by_core.len; i++) {
        const ml_kernel_row *r = &kt->by_core.v[i];
        fprintf(f, "  %8lld %11s %6.1f%% %11s  %s\n", (long long)r->calls, dur(r->total_ns, b, sizeof b),
                all > 0 ? 100.0 * (double)r->total_ns / (double)all : 0.0,
                dur(r->calls ? r->total_ns / r->calls : 0, c, sizeof c), ML_TEXT_SAFE(ml_s(p, r->name)));
    }
}

static void text_kernels(FILE *f, const ml_profile *p, const ml_perf *perf, const ml_perf_view_opts *o)
{
    const ml_kernel_table *kt = &perf->kernels;
    if (!kt->by_name.len) {
        if (perf->cupti.n)
            fprintf(f, "\nKernels: no kernel times (the trace was recorded in CUPTI profiler mode: its %zu kernels' "
                       "hardware counters are below)\n", perf->cupti.n);
        else fprintf(f, "\nKernels: none (the trace has no GPU kernels)\n");
        return;
    }
    size_t n = limit(kt->by_name.len, o->top);
    fprintf(f, "\n%s by total time (%zu of %zu)\n", n < kt->by_name.len ? "Top kernels" : "Kernels", n,
            kt->by_name.len);
    const int fixed = 2 + 8 + 2 * 12 + 2 * 9 + 3 + 2; /* "  calls total mean blk/SM occ TC  " */
    int cols = name_cols(o->width, fixed);
    fprintf(f, "  %8s %11s %11s %8s %8s %2s  %s\n", "calls", "total", "mean", "blk/SM", "occ %",
            ml_devkind_words_of(ml_devkind_of_profile(p))->matrix_units ? "TC" : "", "name");
    char b[32], c[32];
    const char **names = ml_malloc((n ? n : 1) * sizeof *names);
    for (size_t i = 0; i < n; i++) names[i] = ml_s(p, kt->by_name.v[i].name);
    char **fit = ml_fit_apart(names, n, cols, 1); /* two kernels never print alike */
    free(names);
    for (size_t i = 0; i < n; i++) {
        const ml_kernel_row *r = &kt->by_name.v[i];
        char x[16], y[16];
        if (r->blocks_per_sm < 0) snprintf(x, sizeof x, "-");
        else snprintf(x, sizeof x, "%.2f", r->blocks_per_sm);
        if (r->occupancy < 0) snprintf(y, sizeof y, "-");
        else snprintf(y, sizeof y, "%.2f", r->occupancy);
        fprintf(f, "  %8lld %11s %11s %8s %8s %2s  ", (long long)r->calls, dur(r->total_ns, b, sizeof b),
                dur(r->calls ? r->total_ns / r->calls : 0, c, sizeof c), x, y, r->tensor_cores ? "Y" : "");
        fputs(fit[i], f);
        fputc('\n', f);
    }
    ml_fit_apart_free(fit, n);
    text_rest(f, ml_kernel_rows_rest(kt->by_name.v, kt->by_name.len, o->top), false, "kernel");
    if (ml_devkind_words_of(ml_devkind_of_profile(p))->matrix_units) fprintf(f, "  (TC: Y = uses Tensor Cores)\n");
    text_cores(f, p, kt);
}

static void text_modules(FILE *f, const ml_modules *m, const ml_perf_view_opts *o, bool asked)
{
    if (!m || !m->n) {
        if (asked) fprintf(f, "\nModules: none%s%s\n", m && m->hint ? ": " : "", m && m->hint ? m->hint : "");
        return;
    }
    char b[32], c[32];
    size_t n = limit(m->n, o->top);
    fprintf(f, "\nModules (%zu of %zu rows)\n", n, m->n);
    fprintf(f, "  %8s %11s %11s  %s\n", "calls", "host", "device", "module");
    const int fixed = 2 + 8 + 2 * 12 + 2;
    for (size_t i = 0; i < n; i++) {
        const ml_module_row *r = &m->rows[i];
        int indent = 2 * (int)(r->depth < 20 ? r->depth : 20);
        fprintf(f, "  %8llu %11s %11s  %*s", (unsigned long long)r->occurrences, dur(r->host_ns, b, sizeof b),
                dur(r->device_ns, c, sizeof c), indent, "");
        put_name(f, r->name ? r->name : "", name_cols(o->width, fixed + indent), 0);
        fputc('\n', f);
    }
}

static void text_distributed(FILE *f, const ml_distributed *d, const ml_perf_view_opts *o, bool asked)
{
    if (!d) {
        if (asked) fprintf(f, "\nDistributed: none (not part of a distributed run: no world size above 1, no communication)\n");
        return;
    }
    char a[32], b[32], c[32], e[32];
    fprintf(f, "\nDistributed (%s, world size %d", d->backend ? ML_TEXT_SAFE(d->backend) : "backend unknown", d->world_size);
    if (d->slowest_rank >= 0) fprintf(f, ", slowest rank %d", d->slowest_rank);
    fprintf(f, ")\n  %5s %-14s %11s %11s %11s %11s\n", "rank", "step", "compute", "comm", "overlap", "other");
    for (size_t i = 0; i < d->n_steps; i++) {
        const ml_dist_step *s = &d->steps[i];
        char nb[64];
        const char *label = ml_perf_step_label(s->step && strcmp(s->step, "(whole trace)") ? s->step : NULL);
        fprintf(f, "  %5d %-14s %11s %11s %11s %11s\n", s->rank, ml_fit(label, 14, 1, nb, sizeof nb),
                dur(s->computation_ns, a, sizeof a), dur(s->communication_ns, b, sizeof b),
                dur(s->overlap_ns, c, sizeof c), dur(s->other_ns, e, sizeof e));
    }
    if (d->n_collectives) {
        size_t n = limit(d->n_collectives, o->top > 0 ? o->top * 2 : 0);
        fprintf(f, "  %5s %8s %11s %11s %12s  %s\n", "rank", "calls", "total", "mean", "bytes", "collective");
        const int fixed = 2 + 5 + 9 + 2 * 12 + 13 + 2; /* "  rank calls total mean bytes  " */
        for (size_t i = 0; i < n; i++) {
            const ml_collective *col = &d->collectives[i];
            char bytes[32] = "-";
            if (col->bytes >= 0) ml_fmt_bytes(col->bytes, bytes, sizeof bytes);
            fprintf(f, "  %5d %8llu %11s %11s %12s  ", col->rank, (unsigned long long)col->calls,
                    dur(col->total_ns, a, sizeof a), dur(col->mean_ns, b, sizeof b), bytes);
            put_name(f, col->name ? col->name : "", name_cols(o->width, fixed), 0);
            fputc('\n', f);
        }
    }
    ml_perf_stragglers_text(f, d, o->width);
}

void ml_perf_distributed_text(FILE *f, const ml_distributed *d, const ml_perf_view_opts *o)
{
    text_distributed(f, d, o, true);
}

void ml_perf_views_distributed(FILE *f, const ml_distributed *d, const ml_perf_view_opts *o)
{
    if (o->views & ML_VIEW_DISTRIBUTED) text_distributed(f, d, o, o->views != ML_VIEW_ALL);
}

void ml_perf_views_text(FILE *f, const ml_profile *p, const ml_perf *perf, const ml_perf_view_opts *o,
                        const ml_distributed *dist)
{
    bool all = (o->views & ML_VIEW_ALL) == ML_VIEW_ALL;
    for (size_t i = 0; i < perf->notes.len; i++) fprintf(f, "note: %s\n", ML_TEXT_SAFE(perf->notes.v[i]));
    if (o->views & ML_VIEW_OVERVIEW) {
        text_steps(f, p, &perf->steps);
        text_gpus(f, p, perf);
        ml_gputime_text_overview(f, &perf->gputime);
        text_recs(f, perf);
    }
    if (o->views & ML_VIEW_OPERATORS) text_operators(f, p, perf, o);
    if (o->views & ML_VIEW_KERNELS) {
        text_kernels(f, p, perf, o);
        ml_gputime_text_kernels(f, p, &perf->gputime, o->top, o->width);
        ml_perf_kseqs_text(f, p, perf, o->top, o->width);
        ml_perf_cupti_text(f, p, perf, o->top, o->width);
    }
    if (o->views & ML_VIEW_MODULES) text_modules(f, perf->modules, o, !all);
    if ((o->views & ML_VIEW_DISTRIBUTED) && !o->dist_elsewhere) text_distributed(f, dist, o, !all);
    if ((o->views & ML_VIEW_CRITPATH) && perf->has_critpath) ml_perf_critpath_text(f, p, perf, o->top, o->width);
    else if (o->views == ML_VIEW_ALL)
        fprintf(f, "\nCritical path per step: memlens perf --view critical-path (computed only when asked for)\n");
}
