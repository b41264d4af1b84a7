/*
 * perf_hta.c — text and JSON of the HTA analyses (perf_hta.h).
 */
#include "perf_hta.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "devkind.h"
#include "format.h"
#include "perf_fields.h"
#include "textwidth.h"

static size_t limit(size_t n, int top) { return top > 0 && (size_t)top < n ? (size_t)top : n; }
static const char *dur(int64_t ns, char *buf, size_t cap) { return ml_fmt_duration(ns, buf, cap); }
static const char *slice_name(const ml_profile *p, uint32_t i) { return ml_s(p, p->trace->slices.name.v[i]); }

/* The CUPTI counter table's header, in both JSON shapes (--hta and the
 * report's): the object opened, its counts and counter names, and its "rows"
 * array opened for the caller.  with_flops: the report's "flops" flag. */
static void cupti_head(jw *w, const ml_profile *p, const ml_cupti *cu, bool with_flops)
{
    jw_obj(w);
    jw_key(w, "kernels"); jw_i64(w, (int64_t)cu->n);
    jw_key(w, "launches"); jw_i64(w, (int64_t)cu->launches);
    jw_key(w, "paired"); jw_bool(w, cu->paired);
    if (with_flops) {
        jw_key(w, "flops"); jw_bool(w, cu->has_flops);
    }
    jw_key(w, "counters");
    jw_arr(w);
    for (size_t c = 0; c < cu->n_counters; c++) jw_str(w, ml_s(p, cu->counters[c]));
    jw_end(w);
    jw_key(w, "rows");
    jw_arr(w);
}

/* A CUPTI row's operator stack, outermost first, as an array of names. */
static void op_stack(jw *w, const ml_profile *p, const ml_cupti *cu, const ml_cupti_row *row)
{
    jw_arr(w);
    for (uint32_t j = 0; j < row->stack_n; j++) jw_str(w, slice_name(p, cu->stack[row->stack_first + j]));
    jw_end(w);
}

/* s cut to cols columns (0: as is), then a newline. */
static void put_line(FILE *f, const char *s, int cols, int middle)
{
    if (cols <= 0) {
        fprintf(f, "%s\n", s);
        return;
    }
    size_t cap = 4 * (size_t)cols + 8;
    char *buf = malloc(cap);
    fprintf(f, "%s\n", buf ? ml_fit(s, cols, middle, buf, cap) : s);
    free(buf);
}

static int rest(int width, int used) { return width <= 0 ? 0 : width - used > 16 ? width - used : 16; }

/* ---- text ---- */

void ml_perf_kseqs_text(FILE *f, const ml_profile *p, const ml_perf *perf, int top, int width)
{
    const ml_kseqs *k = &perf->kseqs;
    if (!k->n) return;
    char a[32], b[32], c[32];
    size_t n = limit(k->n, top);
    fprintf(f, "\nFrequent kernel sequences under one operator (fusion candidates: %zu of %s patterns, %s calls)\n", n,
            ml_fmt_count((int64_t)k->total, a, sizeof a), ml_fmt_count((int64_t)k->roots, b, sizeof b));
    fprintf(f, "  %8s %11s %11s  %s\n", "count", "GPU time", "CPU time", "operator, then its GPU work in launch order");
    const int indent = 2 + 8 + 2 * 12 + 2;
    for (size_t i = 0; i < n; i++) {
        const ml_kseq *q = &k->seqs[i];
        fprintf(f, "  %8s %11s %11s  ", ml_fmt_count((int64_t)q->count, a, sizeof a), dur(q->gpu_ns, b, sizeof b),
                dur(q->cpu_ns, c, sizeof c));
        put_line(f, ml_s(p, q->op), rest(width, indent), 0);
        uint32_t shown = q->n <= 8 ? q->n : 6;
        for (uint32_t j = 0; j < shown; j++) {
            fprintf(f, "%*s%2u. ", indent + 2, "", j + 1);
            put_line(f, ml_s(p, k->names[q->first + j]), rest(width, indent + 6), 1);
        }
        if (shown < q->n) fprintf(f, "%*s… %u more (--json lists them all)\n", indent + 2, "", q->n - shown);
    }
}

/* A count with an SI prefix: "18.26 G", "524.3 k", "0". */
static const char *si(double v, char *buf, size_t cap)
{
    static const char *const pre[] = {"", " k", " M", " G", " T", " P", " E"};
    int e = 0;
    while (fabs(v) >= 1000 && e < 6) v /= 1000, e++;
    snprintf(buf, cap, e ? "%.4g%s" : "%.0f%s", v, pre[e]);
    return buf;
}

void ml_perf_cupti_text(FILE *f, const ml_profile *p, const ml_perf *perf, int top, int width)
{
    const ml_cupti *cu = &perf->cupti;
    if (!cu->n) return;
    char a[32], b[64];
    fprintf(f, "\nCUPTI counters (%s kernels measured in CUPTI profiler mode, %zu counters", ml_fmt_count((int64_t)cu->n, a, sizeof a),
            cu->n_counters);
    if (!cu->paired)
        fprintf(f, "; %zu cudaLaunchKernel calls for %zu kernels: which operator launched each is unknown", cu->launches, cu->n);
    fprintf(f, ")\n");
    size_t n = limit(cu->n, top);
    /* the operators column: as wide as its longest entry, at most 48 */
    int opw = 9;
    for (size_t r = 0; r < n; r++) {
        const ml_cupti_row *row = &cu->rows[r];
        int w = 0;
        if (row->stack_n) w += ml_text_cols(slice_name(p, cu->stack[row->stack_first]));
        if (row->stack_n > 1) w += 3 + ml_text_cols(slice_name(p, cu->stack[row->stack_first + row->stack_n - 1]));
        if (w > opw) opw = w;
    }
    if (opw > 48) opw = 48;
    fprintf(f, "  %5s %12s  %-*s  %s\n", "#", cu->has_flops ? "FLOPs" : "", opw, "operators", "kernel");
    for (size_t r = 0; r < n; r++) {
        const ml_cupti_row *row = &cu->rows[r];
        char ops[512] = "-", fit[1024];
        if (row->stack_n > 1)
            snprintf(ops, sizeof ops, "%s \u25b8 %s", slice_name(p, cu->stack[row->stack_first]),
                     slice_name(p, cu->stack[row->stack_first + row->stack_n - 1]));
        else if (row->stack_n) snprintf(ops, sizeof ops, "%s", slice_name(p, cu->stack[row->stack_first]));
        const char *o = ml_fit(ops, opw, 0, fit, sizeof fit);
        int pad = opw - ml_text_cols(o);
        fprintf(f, "  %5zu %12s  %s%*s  ", r + 1, cu->has_flops ? si(row->flops, b, sizeof b) : "", o, pad > 0 ? pad : 0, "");
        put_line(f, slice_name(p, row->slice), rest(width, 2 + 5 + 13 + 2 + opw + 2), 1);
    }
    if (n < cu->n) fprintf(f, "  (%zu more kernel%s: --top N, or --json for every value)\n", cu->n - n, cu->n - n == 1 ? "" : "s");
    fprintf(f, "  counter totals over the kernels:\n");
    double *sum = ml_calloc(cu->n_counters ? cu->n_counters : 1, sizeof *sum);
    for (size_t k = 0; k < cu->n_cells; k++)
        if (!isnan(cu->cells[k].value)) sum[cu->cells[k].counter] += cu->cells[k].value;
    uint32_t shown[ML_CUPTI_SHOWN];
    size_t ns = ml_cupti_shown(cu, ML_CUPTI_SHOWN, shown);
    for (size_t s = 0; s < ns; s++) {
        fprintf(f, "  %14s  ", si(sum[shown[s]], b, sizeof b));
        put_line(f, ml_s(p, cu->counters[shown[s]]), rest(width, 18), 0);
    }
    if (ns < cu->n_counters)
        fprintf(f, "  (%zu more counter%s, on fewer kernels: --json for every counter)\n", cu->n_counters - ns,
                cu->n_counters - ns == 1 ? "" : "s");
    free(sum);
}

/* The columns' heads, in the words of the run's accelerator ("GPU compute", "NPU compute"). */
static void kind_heads_of(const char *dev, char heads[ML_CP__COUNT][24])
{
    static const char *const fixed[ML_CP__COUNT] = {"CPU", NULL, NULL, "Launch", "Kernel gaps", ""};
    for (int k = 0; k < ML_CP__COUNT; k++) snprintf(heads[k], sizeof heads[k], "%s", fixed[k] ? fixed[k] : "");
    snprintf(heads[ML_CP_GPU_COMPUTE], sizeof heads[0], "%.12s compute", dev);
    snprintf(heads[ML_CP_GPU_COMM], sizeof heads[0], "%.12s comm", dev);
}

void ml_perf_critpath_text(FILE *f, const ml_profile *p, const ml_perf *perf, int top, int width)
{
    const ml_critpath *cp = &perf->critpath;
    ml_devkind kind = ml_devkind_of_profile(p);
    const char *dev = ml_devkind_words_of(kind)->device;
    char kind_heads[ML_CP__COUNT][24];
    kind_heads_of(dev, kind_heads);
    fprintf(f, "\nCritical path per step (the longest chain of dependent work: host calls, launches, kernels, syncs)\n");
    if (!cp->n_steps) {
        fprintf(f, "  none: the trace has no host calls or %s work\n", dev);
        return;
    }
    fprintf(f, "  %-14s %11s", "step", "path");
    for (int k = 0; k < ML_CP_NONE; k++) fprintf(f, " %11s", kind_heads[k]);
    fputc('\n', f);
    char b[32];
    double avg[ML_CP__COUNT] = {0}, avg_path = 0;
    size_t ok = 0;
    for (size_t s = 0; s <= cp->n_steps; s++) {
        bool is_avg = s == cp->n_steps;
        if (is_avg && ok < 2) break;
        const ml_cp_step *st = is_avg ? NULL : &cp->steps[s];
        char nb[64];
        const char *name = is_avg ? "average" : ml_perf_step_label(st->name ? ml_s(p, st->name) : NULL);
        fprintf(f, "  %-14s", ml_fit(name, 14, 1, nb, sizeof nb));
        if (!is_avg && !st->ok) {
            fprintf(f, " %s\n", st->events ? "no path: the dependency graph has a cycle (a malformed trace)"
                                           : "no path: no host calls in the step");
            continue;
        }
        fprintf(f, " %11s", dur(is_avg ? llround(avg_path / (double)ok) : st->path_ns, b, sizeof b));
        for (int k = 0; k < ML_CP_NONE; k++)
            fprintf(f, " %11s", dur(is_avg ? llround(avg[k] / (double)ok) : st->by_kind[k], b, sizeof b));
        fputc('\n', f);
        if (is_avg) continue;
        ok++;
        avg_path += (double)st->path_ns;
        for (int k = 0; k < ML_CP_NONE; k++) avg[k] += (double)st->by_kind[k];
    }
    if (avg_path > 0) {
        fprintf(f, "  %-14s %11s", "share", "100%");
        for (int k = 0; k < ML_CP_NONE; k++) fprintf(f, " %10.1f%%", 100 * avg[k] / avg_path);
        fputc('\n', f);
    }
    if (cp->n_top) {
        fprintf(f, "  Longest on the path (all steps):\n  %11s  %-11s  %s\n", "time", "kind", "name");
        for (size_t i = 0; i < limit(cp->n_top, top); i++) {
            const ml_cp_top *t = &cp->top[i];
            fprintf(f, "  %11s  %-11s  ", dur(t->ns, b, sizeof b), kind_heads[t->kind < ML_CP__COUNT ? t->kind : ML_CP_NONE]);
            put_line(f, ml_s(p, t->name), rest(width, 2 + 11 + 2 + 11 + 2), 1);
        }
    }
    if (!cp->has_sync && kind == ML_DK_NPU) /* torch_npu writes no sync events */
        fprintf(f, "  (the export has no synchronisation events: waits of the host for the NPU are not on the path)\n");
    else if (!cp->has_sync)
        fprintf(f, "  (the trace has no cuda_sync events: waits of the host for the %s are not on the path; "
                   "PyTorch 2.1+ records them)\n", dev);
}

void ml_perf_stragglers_text(FILE *f, const ml_distributed *d, int width)
{
    if (!d) return;
    const ml_stragglers *s = d->stragglers;
    if (!s) {
        fprintf(f, "  Stragglers: none named (%s)\n", d->stragglers_why ? d->stragglers_why : "no data");
        return;
    }
    char b[32], c[32];
    fprintf(f, "  Potential stragglers (ranks that start the collective late, HTA's rule): ");
    for (size_t i = 0; i < s->n_ranks; i++) fprintf(f, "%s%d", i ? ", " : "", s->ranks[i]);
    fprintf(f, "\n  the collective: stream %" PRId64 ", ", s->stream);
    put_line(f, s->kernel, rest(width, 40), 1);
    fprintf(f, "  %5s %-14s %11s %11s  %s\n", "rank", "step", "late by", "start/step", "among the latest");
    for (size_t i = 0; i < s->n_rows; i++) {
        const ml_straggler_row *r = &s->rows[i];
        snprintf(c, sizeof c, "%" PRId64, r->step);
        fprintf(f, "  %5d %-14s %11s %11.4f  %s\n", r->rank, c, dur(r->late_ns, b, sizeof b), r->normalized_start,
                r->straggler ? "yes" : "");
    }
}

/* ---- runs (µs) ---- */

void ml_perf_hta_run_json(jw *w, const ml_profile *p, const ml_perf *perf, int top)
{
    jw_key(w, "kernel_sequences");
    jw_arr(w);
    for (size_t i = 0; perf && i < perf->kseqs.n; i++) {
        const ml_kseq *q = &perf->kseqs.seqs[i];
        jw_obj(w);
        jw_key(w, "operator"); jw_str(w, ml_s(p, q->op));
        jw_key(w, "kernels");
        jw_arr(w);
        for (uint32_t j = 0; j < q->n; j++) jw_str(w, ml_s(p, perf->kseqs.names[q->first + j]));
        jw_end(w);
        jw_key(w, "count"); jw_i64(w, (int64_t)q->count);
        ml_perf_json_us(w, "gpu_us", q->gpu_ns);
        ml_perf_json_us(w, "cpu_us", q->cpu_ns);
        jw_end(w);
    }
    jw_end(w);

    jw_key(w, "cupti_counters");
    const ml_cupti *cu = perf ? &perf->cupti : NULL;
    if (!cu || !cu->n) jw_null(w);
    else {
        cupti_head(w, p, cu, false);
        for (size_t r = 0; r < limit(cu->n, top); r++) {
            const ml_cupti_row *row = &cu->rows[r];
            jw_obj(w);
            jw_key(w, "kernel"); jw_str(w, slice_name(p, row->slice));
            jw_key(w, "top_op");
            if (row->stack_n) jw_str(w, slice_name(p, cu->stack[row->stack_first]));
            else jw_null(w);
            jw_key(w, "bottom_op");
            if (row->stack_n) jw_str(w, slice_name(p, cu->stack[row->stack_first + row->stack_n - 1]));
            else jw_null(w);
            jw_key(w, "op_stack");
            op_stack(w, p, cu, row);
            jw_key(w, "values");
            jw_obj(w);
            for (size_t k = row->cell_first; k < row->cell_first + row->cell_n; k++) {
                double v = cu->cells[k].value;
                if (isnan(v)) continue;
                ml_perf_json_num(w, ml_s(p, cu->counters[cu->cells[k].counter]), v, 6);
            }
            jw_end(w);
            ml_perf_json_num(w, "flops", cu->has_flops ? row->flops : -1, 3);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    }

    jw_key(w, "critical_path");
    jw_arr(w);
    const ml_critpath *cp = perf && perf->has_critpath ? &perf->critpath : NULL;
    static const char *const keys[ML_CP_NONE] = {"cpu_us", "gpu_compute_us", "gpu_communication_us", "launch_us",
                                                  "kernel_kernel_us"};
    for (size_t s = 0; cp && s < cp->n_steps; s++) {
        const ml_cp_step *st = &cp->steps[s];
        jw_obj(w);
        jw_key(w, "step"); jw_str(w, ml_perf_step_label(st->name ? ml_s(p, st->name) : NULL));
        jw_key(w, "ok"); jw_bool(w, st->ok);
        ml_perf_json_us(w, "path_us", st->path_ns);
        for (int k = 0; k < ML_CP_NONE; k++) ml_perf_json_us(w, keys[k], st->by_kind[k]);
        jw_key(w, "top");
        jw_arr(w);
        for (size_t i = 0; i < st->n_top; i++) {
            jw_obj(w);
            jw_key(w, "name"); jw_str(w, ml_s(p, st->top[i].name));
            jw_key(w, "kind"); jw_str(w, ml_cp_kind_name((ml_cp_kind)st->top[i].kind));
            ml_perf_json_us(w, "us", st->top[i].ns);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
}

static void stragglers_body(jw *w, const ml_stragglers *s, bool in_us)
{
    jw_obj(w);
    jw_key(w, "kernel"); jw_str(w, s->kernel);
    jw_key(w, "stream"); jw_i64(w, s->stream);
    if (in_us) {
        ml_perf_json_us(w, "mean_step_us", s->mean_step_ns);
        ml_perf_json_us(w, "min_kernel_us", s->min_kernel_ns);
    } else {
        jw_key(w, "mean_step_ns"); jw_i64(w, s->mean_step_ns);
        jw_key(w, "min_kernel_ns"); jw_i64(w, s->min_kernel_ns);
    }
    jw_key(w, "candidates"); jw_i64(w, s->candidates);
    jw_key(w, "ranks");
    jw_arr(w);
    for (size_t i = 0; i < s->n_ranks; i++) jw_i64(w, s->ranks[i]);
    jw_end(w);
    jw_key(w, "counts");
    jw_arr(w);
    for (size_t i = 0; i < s->n_counts; i++) {
        jw_obj(w);
        jw_key(w, "rank"); jw_i64(w, s->counts[i].rank);
        jw_key(w, "count"); jw_i64(w, s->counts[i].count);
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "rows");
    jw_arr(w);
    for (size_t i = 0; i < s->n_rows; i++) {
        const ml_straggler_row *r = &s->rows[i];
        jw_obj(w);
        jw_key(w, "rank"); jw_i64(w, r->rank);
        jw_key(w, "step"); jw_i64(w, r->step);
        if (in_us) ml_perf_json_us(w, "late_us", r->late_ns);
        else {
            jw_key(w, "late_ns"); jw_i64(w, r->late_ns);
        }
        ml_perf_json_num(w, "normalized_start", r->normalized_start, 6);
        jw_key(w, "straggler"); jw_bool(w, r->straggler);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

void ml_perf_stragglers_run_json(jw *w, const ml_distributed *d)
{
    if (!d || (!d->stragglers && !d->stragglers_why)) return; /* a rank's own cut of the view (perf --json's runs) */
    jw_key(w, "stragglers");
    if (d && d->stragglers) stragglers_body(w, d->stragglers, true);
    else jw_null(w);
    jw_key(w, "stragglers_why");
    if (d && !d->stragglers && d->stragglers_why) jw_str(w, d->stragglers_why);
    else jw_null(w);
}

/* ---- the perf object (ns) ---- */

void ml_perf_stragglers_json(jw *w, const ml_distributed *d)
{
    if (!d || (!d->stragglers && !d->stragglers_why)) return;
    jw_key(w, "stragglers");
    if (d && d->stragglers) stragglers_body(w, d->stragglers, false);
    else jw_null(w);
    jw_key(w, "stragglers_why");
    if (d && !d->stragglers && d->stragglers_why) jw_str(w, d->stragglers_why);
    else jw_null(w);
}

void ml_perf_hta_json(jw *w, const ml_profile *p, const ml_perf *perf, int top)
{
    const ml_trace *t = p->trace;
    const ml_slices *sl = &t->slices;
    int64_t origin = t->span_begin;
    const ml_kseqs *k = &perf->kseqs;
    jw_key(w, "kernel_sequences");
    jw_obj(w);
    jw_key(w, "roots"); jw_i64(w, (int64_t)k->roots);
    jw_key(w, "patterns"); jw_i64(w, (int64_t)k->total);
    jw_key(w, "top");
    jw_arr(w);
    for (size_t i = 0; i < k->n; i++) {
        const ml_kseq *q = &k->seqs[i];
        jw_obj(w);
        jw_key(w, "op"); jw_str(w, ml_s(p, q->op));
        jw_key(w, "kernels");
        jw_arr(w);
        for (uint32_t j = 0; j < q->n; j++) jw_str(w, ml_s(p, k->names[q->first + j]));
        jw_end(w);
        jw_key(w, "count"); jw_i64(w, (int64_t)q->count);
        jw_key(w, "gpu_ns"); jw_i64(w, q->gpu_ns);
        jw_key(w, "cpu_ns"); jw_i64(w, q->cpu_ns);
        jw_key(w, "example"); /* the first call with it: [start after span.begin_ns, duration] */
        jw_arr(w);
        jw_i64(w, sl->ts.v[q->example] - origin);
        jw_i64(w, ml_slice_dur(sl, q->example));
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);

    const ml_cupti *cu = &perf->cupti;
    jw_key(w, "cupti");
    if (!cu->n) jw_null(w);
    else {
        cupti_head(w, p, cu, true);
        for (size_t r = 0; r < limit(cu->n, top); r++) {
            const ml_cupti_row *row = &cu->rows[r];
            jw_obj(w);
            jw_key(w, "name"); jw_str(w, slice_name(p, row->slice));
            jw_key(w, "stack");
            op_stack(w, p, cu, row);
            jw_key(w, "values"); /* sparse: {"counter index": value}, the counters it has */
            jw_obj(w);
            for (size_t c = row->cell_first; c < row->cell_first + row->cell_n; c++) {
                char key[16];
                snprintf(key, sizeof key, "%u", cu->cells[c].counter);
                jw_key(w, key);
                if (isnan(cu->cells[c].value)) jw_null(w);
                else jw_dbl(w, cu->cells[c].value);
            }
            jw_end(w);
            jw_key(w, "flops");
            if (cu->has_flops) jw_dbl(w, row->flops);
            else jw_null(w);
            jw_key(w, "launch"); /* the launching call: [start after span.begin_ns, duration], or null */
            if (row->launch != ML_NONE32) {
                jw_arr(w);
                jw_i64(w, sl->ts.v[row->launch] - origin);
                jw_i64(w, ml_slice_dur(sl, row->launch));
                jw_end(w);
            } else jw_null(w);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    }

    jw_key(w, "critical_path");
    const ml_critpath *cp = perf->has_critpath ? &perf->critpath : NULL;
    if (!cp) {
        jw_null(w);
        return;
    }
    jw_obj(w);
    jw_key(w, "kinds");
    jw_arr(w);
    for (int q = 0; q < ML_CP__COUNT; q++) jw_str(w, ml_cp_kind_name((ml_cp_kind)q));
    jw_end(w);
    jw_key(w, "has_sync"); jw_bool(w, cp->has_sync);
    jw_key(w, "top");
    jw_arr(w);
    for (size_t i = 0; i < cp->n_top; i++) {
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, ml_s(p, cp->top[i].name));
        jw_key(w, "kind"); jw_i64(w, cp->top[i].kind);
        jw_key(w, "ns"); jw_i64(w, cp->top[i].ns);
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "steps");
    jw_arr(w);
    for (size_t s = 0; s < cp->n_steps; s++) {
        const ml_cp_step *st = &cp->steps[s];
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, st->name ? ml_s(p, st->name) : "(whole trace)");
        jw_key(w, "begin"); jw_i64(w, st->begin - origin);
        jw_key(w, "end"); jw_i64(w, st->end - origin);
        jw_key(w, "ok"); jw_bool(w, st->ok);
        jw_key(w, "path_ns"); jw_i64(w, st->path_ns);
        jw_key(w, "by_kind");
        jw_arr(w);
        for (int q = 0; q < ML_CP__COUNT; q++) jw_i64(w, st->by_kind[q]);
        jw_end(w);
        jw_key(w, "path_begin"); jw_i64(w, st->ok ? st->path_begin - origin : 0);
        jw_key(w, "path_end"); jw_i64(w, st->ok ? st->path_end - origin : 0);
        jw_key(w, "events"); jw_i64(w, (int64_t)st->events);
        jw_key(w, "edges"); jw_i64(w, (int64_t)st->edges);
        jw_key(w, "top");
        jw_arr(w);
        for (size_t i = 0; i < st->n_top; i++) {
            jw_obj(w);
            jw_key(w, "name"); jw_str(w, ml_s(p, st->top[i].name));
            jw_key(w, "kind"); jw_i64(w, st->top[i].kind);
            jw_key(w, "ns"); jw_i64(w, st->top[i].ns);
            jw_end(w);
        }
        jw_end(w);
        /* the legs as columns: tracks, times after span.begin_ns, depths of their slices, kind, time on the path */
        const ml_cp_leg *L = cp->legs + st->first_leg;
        size_t n = st->n_legs;
#define LEG_COL(key, expr)                            \
    do {                                              \
        jw_key(w, key);                               \
        jw_arr(w);                                    \
        for (size_t i = 0; i < n; i++) jw_i64(w, (expr)); \
        jw_end(w);                                    \
    } while (0)
        jw_key(w, "legs");
        jw_obj(w);
        LEG_COL("from_track", L[i].from_track);
        LEG_COL("from_t", L[i].from_ts - origin);
        LEG_COL("from_depth", sl->depth.v[L[i].from_slice]);
        LEG_COL("to_track", L[i].to_track);
        LEG_COL("to_t", L[i].to_ts - origin);
        LEG_COL("to_depth", sl->depth.v[L[i].to_slice]);
        LEG_COL("kind", L[i].kind);
        LEG_COL("w", L[i].weight_ns);
#undef LEG_COL
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}
