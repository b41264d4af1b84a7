/*
 * perf.c — text and JSON output of the time-side analyses.
 */
#include "devkind.h"
#include "perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csvout.h"
#include "format.h"
#include "perf_fields.h"
#include "perf_gputime.h"
#include "perf_hta.h"

/* The web's perf object: times in integer ns (web/DATA.md); the fields it
 * shares with the runs are perf_fields.h's. */
#define NS ML_PERF_NS

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

/* "hist": {"bin0": first bin with a count, "counts": [that bin's count, …, the last's]},
 * "slowest": [[start ns after span.begin_ns, duration ns], …] (durhist.h) */
static void write_durhist(jw *w, const ml_durhist *h, int64_t origin)
{
    int lo = 0, hi = -1;
    for (int b = 0; b < ML_DURHIST_BINS; b++)
        if (h->counts[b]) {
            if (hi < 0) lo = b;
            hi = b;
        }
    jw_key(w, "hist");
    jw_obj(w);
    jw_key(w, "bin0"); jw_i64(w, lo);
    jw_key(w, "counts");
    jw_arr(w);
    for (int b = lo; b <= hi; b++) jw_i64(w, h->counts[b]);
    jw_end(w);
    jw_end(w);
    jw_key(w, "slowest");
    jw_arr(w);
    for (int k = 0; k < h->n_slow; k++) {
        jw_arr(w);
        jw_i64(w, h->slow_ts[k] - origin);
        jw_i64(w, h->slow_dur[k]);
        jw_end(w);
    }
    jw_end(w);
}

ml_rows_rest ml_op_rows_rest(const ml_op_rows *rows, int top)
{
    ml_rows_rest o = {0};
    for (size_t i = limit(rows->len, top); i < rows->len; i++) {
        const ml_op_row *r = &rows->v[i];
        o.rows++;
        o.calls = ml_add_sat(o.calls, r->calls);
        o.host_self_ns = ml_add_sat(o.host_self_ns, r->host_self_ns);
        o.host_total_ns = ml_add_sat(o.host_total_ns, r->host_total_ns);
        o.device_self_ns = ml_add_sat(o.device_self_ns, r->device_self_ns);
        o.device_total_ns = ml_add_sat(o.device_total_ns, r->device_total_ns);
    }
    return o;
}

ml_rows_rest ml_kernel_rows_rest(const ml_kernel_row *rows, size_t n, int top)
{
    ml_rows_rest o = {0};
    for (size_t i = limit(n, top); i < n; i++) {
        o.rows++;
        o.calls = ml_add_sat(o.calls, rows[i].calls);
        o.total_ns = ml_add_sat(o.total_ns, rows[i].total_ns);
    }
    return o;
}

/* web/DATA.md OTHERS: what the rows past the cut add up to, or null. */
static void write_rest(jw *w, const char *key, ml_rows_rest o, bool kernels)
{
    jw_key(w, key);
    if (!o.rows) {
        jw_null(w);
        return;
    }
    jw_obj(w);
    jw_key(w, "rows"); jw_i64(w, (int64_t)o.rows);
    jw_key(w, "calls"); jw_i64(w, o.calls);
    if (kernels) {
        ml_perf_json_time(w, NS, ML_PT_TOTAL, o.total_ns);
    } else {
        ml_perf_json_op_times(w, NS, o.host_self_ns, o.host_total_ns, o.device_self_ns, o.device_total_ns);
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
        ml_perf_json_op_times(w, NS, r->host_self_ns, r->host_total_ns, r->device_self_ns, r->device_total_ns);
        jw_key(w, "tc_eligible"); jw_bool(w, r->tc_eligible);
        jw_key(w, "tc_self_ratio"); jw_dbl(w, r->device_self_ns > 0 ? (double)r->tc_self_ns / (double)r->device_self_ns : 0);
        jw_key(w, "tc_total_ratio");
        jw_dbl(w, r->device_total_ns > 0 ? (double)r->tc_total_ns / (double)r->device_total_ns : 0);
        jw_key(w, "stack");
        if (r->stack) write_stack(w, ml_s(p, r->stack));
        else jw_null(w);
        jw_key(w, "kernels");
        jw_arr(w);
        for (size_t k = 0; k < r->n_kernels; k++) /* rows cut by top are not there to point at */
            if (top <= 0 || r->kernels[k] < (uint32_t)top) jw_i64(w, r->kernels[k]);
        jw_end(w);
        if (r->hist) write_durhist(w, r->hist, p->trace->span_begin);
        else {
            jw_key(w, "hist"); jw_null(w);
            jw_key(w, "slowest"); jw_null(w);
        }
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
            if (r->op) jw_str(w, ml_s(p, r->op));
            else jw_null(w);
        }
        jw_key(w, "calls"); jw_i64(w, r->calls);
        ml_perf_json_time(w, NS, ML_PT_TOTAL, r->total_ns);
        ml_perf_json_time(w, NS, ML_PT_MEAN, r->calls ? llround((double)r->total_ns / (double)r->calls) : 0);
        ml_perf_json_time(w, NS, ML_PT_MIN, r->min_ns);
        ml_perf_json_time(w, NS, ML_PT_MAX, r->max_ns);
        opt_dbl(w, "blocks_per_sm", r->blocks_per_sm);
        opt_dbl(w, "occupancy", r->occupancy);
        jw_key(w, "tensor_cores"); jw_bool(w, r->tensor_cores);
        write_durhist(w, &r->hist, p->trace->span_begin);
        jw_end(w);
    }
    jw_end(w);
}

static void write_modules(jw *w, const ml_modules *m)
{
    jw_key(w, "modules");
    jw_arr(w);
    for (size_t i = 0; m && i < m->n; i++) {
        const ml_module_row *r = &m->rows[i];
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, r->name ? r->name : "");
        jw_key(w, "parent"); jw_i64(w, r->parent);
        jw_key(w, "depth"); jw_i64(w, r->depth);
        jw_key(w, "occurrences"); jw_i64(w, (int64_t)r->occurrences);
        jw_key(w, "operators"); jw_i64(w, (int64_t)r->operators);
        ml_perf_json_time(w, NS, ML_PT_HOST, r->host_ns);
        ml_perf_json_time(w, NS, ML_PT_DEVICE, r->device_ns);
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "modules_hint");
    if (m && !m->n && m->hint) jw_str(w, m->hint);
    else jw_null(w);
}

void ml_perf_json_distributed(jw *w, const ml_distributed *d)
{
    if (!d) {
        jw_null(w);
        return;
    }
    jw_obj(w);
    jw_key(w, "backend");
    if (d->backend) jw_str(w, d->backend);
    else jw_null(w);
    jw_key(w, "world_size"); jw_i64(w, d->world_size);
    jw_key(w, "steps");
    jw_arr(w);
    for (size_t i = 0; i < d->n_steps; i++) {
        const ml_dist_step *s = &d->steps[i];
        jw_obj(w);
        jw_key(w, "rank"); jw_i64(w, s->rank);
        jw_key(w, "step"); jw_str(w, s->step ? s->step : "");
        ml_perf_json_time(w, NS, ML_PT_COMPUTATION, s->computation_ns);
        ml_perf_json_time(w, NS, ML_PT_COMMUNICATION, s->communication_ns);
        ml_perf_json_time(w, NS, ML_PT_OVERLAP, s->overlap_ns);
        ml_perf_json_time(w, NS, ML_PT_OTHER, s->other_ns);
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "collectives");
    jw_arr(w);
    for (size_t i = 0; i < d->n_collectives; i++) {
        const ml_collective *c = &d->collectives[i];
        jw_obj(w);
        jw_key(w, "rank"); jw_i64(w, c->rank);
        jw_key(w, "name"); jw_str(w, c->name ? c->name : "");
        jw_key(w, "group_size");
        if (c->group_size > 0) jw_i64(w, c->group_size);
        else jw_null(w);
        jw_key(w, "calls"); jw_i64(w, (int64_t)c->calls);
        jw_key(w, "bytes");
        if (c->bytes >= 0) jw_i64(w, c->bytes);
        else jw_null(w);
        ml_perf_json_time(w, NS, ML_PT_TOTAL, c->total_ns);
        ml_perf_json_time(w, NS, ML_PT_MEAN, c->mean_ns);
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "slowest_rank");
    if (d->slowest_rank >= 0) jw_i64(w, d->slowest_rank);
    else jw_null(w);
    ml_perf_stragglers_json(w, d);
    jw_end(w);
}

void ml_perf_json_write(jw *w, const ml_profile *p, const ml_perf *perf, int top, const ml_distributed *dist)
{
    ml_perf_json_write_at(w, p, perf, top, dist, NULL);
}

void ml_perf_json_write_at(jw *w, const ml_profile *p, const ml_perf *perf, int top, const ml_distributed *dist,
                           long *dist_at)
{
    const ml_trace *t = p->trace;
    const ml_steps *st = &perf->steps;
    jw_obj(w);
    jw_key(w, "span");
    jw_obj(w);
    jw_key(w, "begin_ns"); jw_i64(w, t->span_begin);
    jw_key(w, "end_ns"); jw_i64(w, t->span_end);
    jw_end(w);

    /* the accelerator's words (devkind.h), for outputs that label what they show */
    const ml_devkind_words *words = ml_devkind_words_of(ml_devkind_of_profile(p));
    jw_key(w, "accelerator");
    jw_obj(w);
    jw_key(w, "device"); jw_str(w, words->device);
    jw_key(w, "runtime"); jw_str(w, words->runtime);
    jw_key(w, "alloc_env"); jw_str(w, words->alloc_env);
    jw_key(w, "tensor_cores"); jw_bool(w, words->matrix_units != NULL);
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
        ml_perf_json_time(w, NS, ML_PT_KERNEL, g->kernel_ns);
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
        ml_perf_json_time(w, NS, ML_PT_TOTAL, s->end - s->begin);
        for (int r = 0; r < ML_ROLE__COUNT; r++) ml_perf_json_time(w, NS, (ml_perf_time_field)r, s->cost[r]);
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "step_average");
    if (st->steps.len) {
        jw_obj(w);
        ml_perf_json_time(w, NS, ML_PT_TOTAL, llround(st->avg_total));
        for (int r = 0; r < ML_ROLE__COUNT; r++) ml_perf_json_time(w, NS, (ml_perf_time_field)r, llround(st->avg[r]));
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
    jw_key(w, "others");
    jw_obj(w);
    write_rest(w, "by_name", ml_op_rows_rest(&perf->ops.by_name, top), false);
    write_rest(w, "by_shape", ml_op_rows_rest(&perf->ops.by_shape, top), false);
    jw_end(w);
    jw_end(w);
    jw_key(w, "kernels");
    jw_obj(w);
    jw_key(w, "by_name"); write_kernels(w, p, perf->kernels.by_name.v, perf->kernels.by_name.len, false, top);
    jw_key(w, "by_op"); write_kernels(w, p, perf->kernels.by_op.v, perf->kernels.by_op.len, true, top);
    /* NPU tasks by Accelerator Core (AI_CORE, AI_VECTOR_CORE, AI_CPU, HCCL ...): every core, no cut */
    jw_key(w, "by_core"); write_kernels(w, p, perf->kernels.by_core.v, perf->kernels.by_core.len, false, -1);
    jw_key(w, "others");
    jw_obj(w);
    write_rest(w, "by_name", ml_kernel_rows_rest(perf->kernels.by_name.v, perf->kernels.by_name.len, top), true);
    write_rest(w, "by_op", ml_kernel_rows_rest(perf->kernels.by_op.v, perf->kernels.by_op.len, top), true);
    jw_end(w);
    jw_end(w);
    write_modules(w, perf->modules);
    jw_key(w, "distributed");
    if (dist_at) { /* a placeholder the caller replaces (rankrec.h: marks) */
        *dist_at = jw_offset(w);
        jw_null(w);
    } else ml_perf_json_distributed(w, dist);
    ml_gputime_perf_json(w, p, &perf->gputime);
    jw_key(w, "notes");
    jw_arr(w);
    for (size_t i = 0; i < perf->notes.len; i++) jw_str(w, perf->notes.v[i]);
    jw_end(w);
    ml_perf_hta_json(w, p, perf, top);
    jw_end(w);
}

void ml_perf_json_rank_with(jw *w, const ml_profile *p, int top, const ml_distributed *dist)
{
    ml_perf perf;
    if (!ml_perf_compute(p, &perf)) {
        jw_null(w);
        return;
    }
    ml_perf_want_critical_path(p, &perf);
    ml_perf_json_write(w, p, &perf, top, dist);
    ml_perf_free(&perf);
}

void ml_perf_json_rank(jw *w, const ml_profile *p, int top)
{
    if (ml_perf_unavailable(p)) {
        jw_null(w);
        return;
    }
    /* distributed.h reads the profiles only; its signature lacks the const */
    ml_profile *one = (ml_profile *)p;
    ml_distributed *d = ml_distributed_compute(&one, 1);
    ml_perf_json_rank_with(w, p, top, d);
    if (d) ml_distributed_free(d);
}

/* ---- CSV ----------------------------------------------------------------- */

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
            ml_csv_field(f, ml_s(p, r->name));
            if (shape) {
                fputc(',', f);
                ml_csv_field(f, ml_s(p, r->shape));
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
            ml_csv_field(f, ml_s(p, r->name));
            if (op) {
                fputc(',', f);
                ml_csv_field(f, r->op ? ml_s(p, r->op) : "N/A");
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
