/*
 * perf.c — text and JSON output of the time-side analyses.
 */
#include "perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

static const char *const role_keys[ML_ROLE__COUNT] = {"kernel_ns",  "memcpy_ns",     "memset_ns",   "communication_ns",
                                                      "runtime_ns", "dataloader_ns", "cpu_exec_ns", "other_ns"};

static void opt_dbl(jw *w, const char *key, double v)
{
    jw_key(w, key);
    if (v < 0 || !isfinite(v)) jw_null(w);
    else jw_dbl(w, v);
}

static void opt_str(jw *w, const char *key, const ml_profile *p, ml_str s)
{
    jw_key(w, key);
    if (s) jw_str(w, ml_s(p, s));
    else jw_null(w);
}

static size_t limit(size_t n, int top) { return top > 0 && (size_t)top < n ? (size_t)top : n; }

static const char *device_id(const ml_profile *p, const ml_gpu_metrics *g, char *buf, size_t cap)
{
    if (g->device >= 0 && (size_t)g->device < p->devices.len) return p->devices.v[g->device].id;
    if (g->gpu >= 0) snprintf(buf, cap, "cuda:%d", g->gpu);
    else snprintf(buf, cap, "gpu");
    return buf;
}

/* "a;b;c" -> ["a", "b", "c"] */
static void write_stack(jw *w, const char *s)
{
    jw_arr(w);
    while (*s) {
        const char *e = strchr(s, ';');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n) jw_strn(w, s, n);
        s += n + (e ? 1 : 0);
    }
    jw_end(w);
}

static void write_ops(jw *w, const ml_profile *p, const ml_op_rows *rows, bool shape, int top)
{
    jw_arr(w);
    for (size_t i = 0; i < limit(rows->len, top); i++) {
        const ml_op_row *r = &rows->v[i];
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, ml_s(p, r->name));
        jw_key(w, "input_shape");
        if (shape && r->shape) jw_str(w, ml_s(p, r->shape));
        else jw_null(w);
        jw_key(w, "calls"); jw_i64(w, r->calls);
        jw_key(w, "host_self_ns"); jw_i64(w, r->host_self_ns);
        jw_key(w, "host_total_ns"); jw_i64(w, r->host_total_ns);
        jw_key(w, "device_self_ns"); jw_i64(w, r->device_self_ns);
        jw_key(w, "device_total_ns"); jw_i64(w, r->device_total_ns);
        jw_key(w, "tc_eligible"); jw_bool(w, r->tc_eligible);
        jw_key(w, "tc_self_ratio"); jw_dbl(w, r->device_self_ns > 0 ? (double)r->tc_self_ns / (double)r->device_self_ns : 0);
        jw_key(w, "tc_total_ratio");
        jw_dbl(w, r->device_total_ns > 0 ? (double)r->tc_total_ns / (double)r->device_total_ns : 0);
        jw_key(w, "stack");
        if (r->stack) write_stack(w, ml_s(p, r->stack));
        else jw_null(w);
        jw_key(w, "kernels");
        jw_arr(w);
        for (size_t k = 0; k < r->n_kernels; k++) jw_i64(w, r->kernels[k]);
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
}

static void write_kernels(jw *w, const ml_profile *p, const ml_kernel_row *rows, size_t n, bool op, int top)
{
    jw_arr(w);
    for (size_t i = 0; i < limit(n, top); i++) {
        const ml_kernel_row *r = &rows[i];
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, ml_s(p, r->name));
        if (op) {
            jw_key(w, "op");
            jw_str(w, r->op ? ml_s(p, r->op) : "N/A");
        }
        jw_key(w, "calls"); jw_i64(w, r->calls);
        jw_key(w, "total_ns"); jw_i64(w, r->total_ns);
        jw_key(w, "mean_ns"); jw_i64(w, r->calls ? llround((double)r->total_ns / (double)r->calls) : 0);
        jw_key(w, "min_ns"); jw_i64(w, r->min_ns);
        jw_key(w, "max_ns"); jw_i64(w, r->max_ns);
        opt_dbl(w, "blocks_per_sm", r->blocks_per_sm);
        opt_dbl(w, "occupancy", r->occupancy);
        jw_key(w, "tensor_cores"); jw_bool(w, r->tensor_cores);
        jw_end(w);
    }
    jw_end(w);
}

void ml_perf_json_write(jw *w, const ml_profile *p, const ml_perf *perf, int top)
{
    const ml_trace *t = p->trace;
    const ml_steps *st = &perf->steps;
    jw_obj(w);
    jw_key(w, "span");
    jw_obj(w);
    jw_key(w, "begin_ns"); jw_i64(w, t->span_begin);
    jw_key(w, "end_ns"); jw_i64(w, t->span_end);
    jw_end(w);

    jw_key(w, "counts");
    jw_obj(w);
    jw_key(w, "events");
    jw_i64(w, (int64_t)(t->slices.ts.len + t->counters.ts.len + t->instants.ts.len + p->events.kind.len));
    jw_key(w, "slices"); jw_i64(w, (int64_t)t->slices.ts.len);
    jw_key(w, "steps"); jw_i64(w, st->whole_trace ? 0 : (int64_t)st->steps.len);
    jw_key(w, "operators_unique"); jw_i64(w, (int64_t)perf->ops.by_name.len);
    jw_key(w, "kernels"); jw_i64(w, perf->kernels.kernels);
    jw_key(w, "kernel_names"); jw_i64(w, (int64_t)perf->kernels.by_name.len);
    jw_end(w);

    jw_key(w, "devices");
    jw_arr(w);
    for (size_t i = 0; i < perf->gpus.len; i++) {
        const ml_gpu_metrics *g = &perf->gpus.v[i];
        const ml_device *d = g->device >= 0 ? &p->devices.v[g->device] : NULL;
        char buf[32];
        jw_obj(w);
        jw_key(w, "id"); jw_str(w, device_id(p, g, buf, sizeof buf));
        opt_str(w, "name", p, d ? d->name : 0);
        jw_key(w, "total_memory_bytes");
        if (d && d->total_memory >= 0) jw_i64(w, d->total_memory);
        else jw_null(w);
        jw_key(w, "compute_capability");
        if (d && d->cc_major >= 0 && d->cc_minor >= 0) {
            snprintf(buf, sizeof buf, "%d.%d", d->cc_major, d->cc_minor);
            jw_str(w, buf);
        } else jw_null(w);
        jw_key(w, "sm_count");
        if (d && d->num_sms >= 0) jw_i64(w, d->num_sms);
        else jw_null(w);
        opt_dbl(w, "utilization", g->utilization);
        opt_dbl(w, "sm_efficiency", g->sm_efficiency);
        opt_dbl(w, "occupancy", g->occupancy);
        opt_dbl(w, "tensor_core_share", g->tc_share);
        jw_key(w, "kernel_ns"); jw_i64(w, g->kernel_ns);
        jw_end(w);
    }
    jw_end(w);

    jw_key(w, "steps");
    jw_arr(w);
    for (size_t k = 0; k < st->steps.len; k++) {
        const ml_step *s = &st->steps.v[k];
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, s->name ? ml_s(p, s->name) : "(whole trace)");
        jw_key(w, "begin_ns"); jw_i64(w, s->begin);
        jw_key(w, "end_ns"); jw_i64(w, s->end);
        jw_key(w, "total_ns"); jw_i64(w, s->end - s->begin);
        for (int r = 0; r < ML_ROLE__COUNT; r++) {
            jw_key(w, role_keys[r]);
            jw_i64(w, s->cost[r]);
        }
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "step_average");
    if (st->steps.len) {
        jw_obj(w);
        jw_key(w, "total_ns"); jw_i64(w, llround(st->avg_total));
        for (int r = 0; r < ML_ROLE__COUNT; r++) {
            jw_key(w, role_keys[r]);
            jw_i64(w, llround(st->avg[r]));
        }
        jw_end(w);
    } else jw_null(w);

    jw_key(w, "recommendations");
    jw_arr(w);
    for (size_t i = 0; i < perf->recs.len; i++) {
        const ml_rec *r = &perf->recs.v[i];
        jw_obj(w);
        jw_key(w, "id"); jw_str(w, r->id);
        jw_key(w, "text"); jw_str(w, r->text);
        jw_key(w, "value"); jw_dbl(w, r->value);
        jw_key(w, "threshold"); jw_dbl(w, r->threshold);
        jw_end(w);
    }
    jw_end(w);

    jw_key(w, "operators");
    jw_obj(w);
    jw_key(w, "by_name"); write_ops(w, p, &perf->ops.by_name, false, top);
    jw_key(w, "by_shape"); write_ops(w, p, &perf->ops.by_shape, true, top);
    jw_end(w);
    jw_key(w, "kernels");
    jw_obj(w);
    jw_key(w, "by_name"); write_kernels(w, p, perf->kernels.by_name.v, perf->kernels.by_name.len, false, top);
    jw_key(w, "by_op"); write_kernels(w, p, perf->kernels.by_op.v, perf->kernels.by_op.len, true, top);
    jw_end(w);
    /* TODO(modules/distributed): filled from analysis/modules.h and distributed.h once the store branch lands. */
    jw_key(w, "modules"); jw_arr(w); jw_end(w);
    jw_key(w, "modules_hint");
    jw_str(w, "record nn.Module ranges with torch.profiler.profile(with_stack=True) (PyTorch 1.10+)");
    jw_key(w, "distributed"); jw_null(w);
    jw_end(w);
}

void ml_perf_json_rank(jw *w, const ml_profile *p, int top)
{
    ml_perf perf;
    if (!ml_perf_compute(p, &perf)) {
        jw_null(w);
        return;
    }
    ml_perf_json_write(w, p, &perf, top);
    ml_perf_free(&perf);
}

/* ---- text ---------------------------------------------------------------- */

static const char *dur(int64_t ns, char *buf, size_t cap) { return ml_fmt_duration(ns, buf, cap); }

static void text_steps(FILE *f, const ml_profile *p, const ml_steps *st)
{
    static const char *const heads[ML_ROLE__COUNT] = {"Kernel", "Memcpy",     "Memset",   "Comm",
                                                      "Runtime", "DataLoader", "CPU Exec", "Other"};
    bool show[ML_ROLE__COUNT];
    for (int r = 0; r < ML_ROLE__COUNT; r++) show[r] = st->avg[r] > 0 || r == ML_ROLE_KERNEL || r == ML_ROLE_OTHER;
    fprintf(f, "  %-18s %10s", "step", "total");
    for (int r = 0; r < ML_ROLE__COUNT; r++)
        if (show[r]) fprintf(f, " %10s", heads[r]);
    fputc('\n', f);
    char b[32];
    for (size_t k = 0; k <= st->steps.len; k++) {
        bool avg = k == st->steps.len;
        if (avg && st->steps.len < 2) break;
        const ml_step *s = avg ? NULL : &st->steps.v[k];
        fprintf(f, "  %-18.18s", avg ? "average" : s->name ? ml_s(p, s->name) : "(whole trace)");
        fprintf(f, " %10s", dur(avg ? llround(st->avg_total) : s->end - s->begin, b, sizeof b));
        for (int r = 0; r < ML_ROLE__COUNT; r++)
            if (show[r]) fprintf(f, " %10s", dur(avg ? llround(st->avg[r]) : s->cost[r], b, sizeof b));
        fputc('\n', f);
    }
    if (st->avg_total > 0) {
        fprintf(f, "  %-18s %10s", "share", "100%");
        for (int r = 0; r < ML_ROLE__COUNT; r++)
            if (show[r]) fprintf(f, " %9.1f%%", 100 * st->avg[r] / st->avg_total);
        fputc('\n', f);
    }
}

static void pct(FILE *f, const char *label, double v)
{
    if (v < 0) fprintf(f, "    %-26s n/a\n", label);
    else fprintf(f, "    %-26s %.2f %%\n", label, v * 100);
}

void ml_perf_text(FILE *f, const ml_profile *p, const ml_perf *perf, int top)
{
    char b[64], c[64];
    const ml_steps *st = &perf->steps;
    fprintf(f, "Steps%s\n", st->whole_trace ? " (no ProfilerStep#: the whole trace is one step)" : "");
    text_steps(f, p, st);

    for (size_t i = 0; i < perf->gpus.len; i++) {
        const ml_gpu_metrics *g = &perf->gpus.v[i];
        const ml_device *d = g->device >= 0 ? &p->devices.v[g->device] : NULL;
        bool gpu = !d || d->kind == ML_DEV_CUDA || d->kind == ML_DEV_HIP;
        const char *id = device_id(p, g, b, sizeof b);
        fputs(gpu ? "\nGPU " : "\nDevice ", f);
        fputs(id, f);
        if (d && d->name) fprintf(f, "  %s", ml_s(p, d->name));
        if (d && d->total_memory >= 0) fprintf(f, "  %s", ml_fmt_bytes(d->total_memory, c, sizeof c));
        if (d && d->cc_major >= 0) fprintf(f, "  compute capability %d.%d", d->cc_major, d->cc_minor);
        fputc('\n', f);
        pct(f, gpu ? "GPU utilization" : "utilization", g->utilization);
        pct(f, "est. SM efficiency", g->sm_efficiency);
        if (g->occupancy < 0) fprintf(f, "    %-26s n/a\n", "est. achieved occupancy");
        else fprintf(f, "    %-26s %.2f %%\n", "est. achieved occupancy", g->occupancy);
        pct(f, "kernel time on Tensor Cores", g->tc_share);
        fprintf(f, "    %-26s %s in %s kernels\n", "kernel time", dur(g->kernel_ns, b, sizeof b),
                ml_fmt_count(g->kernels, c, sizeof c));
    }

    fprintf(f, "\nRecommendations\n");
    if (!perf->recs.len) fprintf(f, "  none: no rule was triggered\n");
    for (size_t i = 0; i < perf->recs.len; i++) fprintf(f, "  - [%s] %s\n", perf->recs.v[i].id, perf->recs.v[i].text);

    const ml_op_rows *ops = &perf->ops.by_name;
    bool gpu = perf->kernels.kernels > 0;
    fprintf(f, "\nTop operators by %s self time (%zu of %zu)\n", gpu ? "device" : "host", limit(ops->len, top), ops->len);
    fprintf(f, "  %8s %11s %11s %11s %11s  %s\n", "calls", "dev self", "dev total", "host self", "host total", "name");
    for (size_t i = 0; i < limit(ops->len, top); i++) {
        const ml_op_row *r = &ops->v[i];
        char x[32], y[32];
        fprintf(f, "  %8lld %11s %11s %11s %11s  %s%s\n", (long long)r->calls, dur(r->device_self_ns, b, sizeof b),
                dur(r->device_total_ns, c, sizeof c), dur(r->host_self_ns, x, sizeof x),
                dur(r->host_total_ns, y, sizeof y), ml_s(p, r->name), r->tc_eligible ? "  [TC eligible]" : "");
    }
    const ml_kernel_table *kt = &perf->kernels;
    if (kt->by_name.len) {
        fprintf(f, "\nTop kernels by total time (%zu of %zu)\n", limit(kt->by_name.len, top), kt->by_name.len);
        fprintf(f, "  %8s %11s %11s %8s %8s  %s\n", "calls", "total", "mean", "blk/SM", "occ %", "name");
        for (size_t i = 0; i < limit(kt->by_name.len, top); i++) {
            const ml_kernel_row *r = &kt->by_name.v[i];
            char x[16], y[16];
            if (r->blocks_per_sm < 0) snprintf(x, sizeof x, "-");
            else snprintf(x, sizeof x, "%.2f", r->blocks_per_sm);
            if (r->occupancy < 0) snprintf(y, sizeof y, "-");
            else snprintf(y, sizeof y, "%.2f", r->occupancy);
            fprintf(f, "  %8lld %11s %11s %8s %8s  %.100s%s\n", (long long)r->calls, dur(r->total_ns, b, sizeof b),
                    dur(r->calls ? r->total_ns / r->calls : 0, c, sizeof c), x, y, ml_s(p, r->name),
                    r->tensor_cores ? "  [TC]" : "");
        }
    }
}

/* ---- CSV ----------------------------------------------------------------- */

static void put_csv(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void put_opt(FILE *f, double v)
{
    if (v >= 0 && isfinite(v)) fprintf(f, ",%.4f", v);
    else fputc(',', f);
}

int ml_perf_csv(FILE *f, const ml_profile *p, const ml_perf *perf, ml_perf_table table, ml_perf_group group)
{
    if (table == ML_PERF_TABLE_OPERATORS) {
        bool shape = group == ML_PERF_BY_SHAPE;
        const ml_op_rows *rows = shape ? &perf->ops.by_shape : &perf->ops.by_name;
        fputs(shape ? "name,input_shape," : "name,", f);
        fputs("calls,host_self_ns,host_total_ns,device_self_ns,device_total_ns,tc_eligible,tc_self_ratio,"
              "tc_total_ratio\n", f);
        for (size_t i = 0; i < rows->len; i++) {
            const ml_op_row *r = &rows->v[i];
            put_csv(f, ml_s(p, r->name));
            if (shape) {
                fputc(',', f);
                put_csv(f, ml_s(p, r->shape));
            }
            fprintf(f, ",%lld,%lld,%lld,%lld,%lld,%s,%.4f,%.4f\n", (long long)r->calls, (long long)r->host_self_ns,
                    (long long)r->host_total_ns, (long long)r->device_self_ns, (long long)r->device_total_ns,
                    r->tc_eligible ? "true" : "false",
                    r->device_self_ns > 0 ? (double)r->tc_self_ns / (double)r->device_self_ns : 0,
                    r->device_total_ns > 0 ? (double)r->tc_total_ns / (double)r->device_total_ns : 0);
        }
    } else {
        bool op = group == ML_PERF_BY_OP;
        const ml_kernel_row *rows = op ? perf->kernels.by_op.v : perf->kernels.by_name.v;
        size_t n = op ? perf->kernels.by_op.len : perf->kernels.by_name.len;
        fputs(op ? "name,op," : "name,", f);
        fputs("calls,total_ns,mean_ns,min_ns,max_ns,blocks_per_sm,occupancy,tensor_cores\n", f);
        for (size_t i = 0; i < n; i++) {
            const ml_kernel_row *r = &rows[i];
            put_csv(f, ml_s(p, r->name));
            if (op) {
                fputc(',', f);
                put_csv(f, r->op ? ml_s(p, r->op) : "N/A");
            }
            fprintf(f, ",%lld,%lld,%lld,%lld,%lld", (long long)r->calls, (long long)r->total_ns,
                    (long long)(r->calls ? llround((double)r->total_ns / (double)r->calls) : 0), (long long)r->min_ns,
                    (long long)r->max_ns);
            put_opt(f, r->blocks_per_sm);
            put_opt(f, r->occupancy);
            fprintf(f, ",%s\n", r->tensor_cores ? "true" : "false");
        }
    }
    return ferror(f) ? -1 : 0;
}
