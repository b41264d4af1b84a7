/*
 * perf_runs.c — the "runs" objects of `memlens perf --json` (perf_runs.h).
 */
#include "perf_runs.h"
#include "perf.h"
#include "perf_gputime.h"
#include "perf_hta.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The runs: times in exact µs (README); the fields they share with the
 * web's perf object are perf_fields.h's. */
#define US ML_PERF_US

/* Mean of total_ns over calls, in µs to the ns. */
static void mean_us(jw *w, const char *key, int64_t total_ns, int64_t calls)
{
    ml_perf_json_num(w, key, calls > 0 ? (double)total_ns / (double)calls / 1000.0 : 0, 3);
}

static void pct_of(jw *w, const char *key, int64_t part, int64_t whole)
{
    ml_perf_json_num(w, key, whole > 0 ? 100.0 * (double)part / (double)whole : 0, 4);
}

static size_t limit(size_t n, int top) { return top > 0 && (size_t)top < n ? (size_t)top : n; }

static void write_steps(jw *w, const ml_profile *p, const ml_steps *st)
{
    jw_key(w, "steps");
    jw_arr(w);
    for (size_t k = 0; st && k < st->steps.len; k++) {
        const ml_step *s = &st->steps.v[k];
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, ml_perf_step_label(s->name ? ml_s(p, s->name) : NULL));
        for (int r = 0; r < ML_ROLE__COUNT; r++) ml_perf_json_time(w, US, (ml_perf_time_field)r, s->cost[r]);
        ml_perf_json_time(w, US, ML_PT_TOTAL, s->end - s->begin);
        jw_end(w);
    }
    jw_end(w);
}

static void write_gpus(jw *w, const ml_profile *p, const ml_gpu_metrics_list *gpus)
{
    jw_key(w, "gpus");
    jw_arr(w);
    for (size_t i = 0; gpus && i < gpus->len; i++) {
        const ml_gpu_metrics *g = &gpus->v[i];
        const ml_device *d = g->device >= 0 && (size_t)g->device < p->devices.len ? &p->devices.v[g->device] : NULL;
        jw_obj(w);
        jw_key(w, "id");
        if (g->gpu >= 0) jw_i64(w, g->gpu);
        else jw_null(w);
        jw_key(w, "device");
        if (d) jw_str(w, d->id);
        else jw_null(w);
        jw_key(w, "name");
        if (d && d->name) jw_str(w, ml_s(p, d->name));
        else jw_null(w);
        jw_key(w, "memory_bytes");
        if (d && d->total_memory >= 0) jw_i64(w, d->total_memory);
        else jw_null(w);
        jw_key(w, "compute_capability");
        if (d && d->cc_major >= 0 && d->cc_minor >= 0) {
            char buf[32];
            snprintf(buf, sizeof buf, "%d.%d", d->cc_major, d->cc_minor);
            jw_str(w, buf);
        } else jw_null(w);
        ml_perf_json_num(w, "utilization_pct", g->utilization < 0 ? -1 : 100 * g->utilization, 4);
        ml_perf_json_num(w, "sm_efficiency_pct", g->sm_efficiency < 0 ? -1 : 100 * g->sm_efficiency, 4);
        ml_perf_json_num(w, "achieved_occupancy_pct", g->occupancy, 4);
        ml_perf_json_num(w, "tensor_core_kernel_pct", g->tc_share < 0 ? -1 : 100 * g->tc_share, 4);
        jw_key(w, "kernels"); jw_i64(w, g->kernels);
        ml_perf_json_time(w, US, ML_PT_KERNEL, g->kernel_ns);
        jw_end(w);
    }
    jw_end(w);
}

static void write_operators(jw *w, const ml_profile *p, const ml_op_table *ops, ml_perf_group group, int top)
{
    bool shape = group == ML_PERF_BY_SHAPE;
    const ml_op_rows *rows = ops ? (shape ? &ops->by_shape : &ops->by_name) : NULL;
    jw_key(w, "operators");
    jw_arr(w);
    for (size_t i = 0; rows && i < limit(rows->len, top); i++) {
        const ml_op_row *r = &rows->v[i];
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, ml_s(p, r->name));
        jw_key(w, "input_shape");
        if (shape) jw_str(w, r->shape ? ml_s(p, r->shape) : "");
        else jw_null(w);
        jw_key(w, "calls"); jw_i64(w, r->calls);
        ml_perf_json_op_times(w, US, r->host_self_ns, r->host_total_ns, r->device_self_ns, r->device_total_ns);
        jw_key(w, "tc_eligible"); jw_bool(w, r->tc_eligible);
        pct_of(w, "tc_self_pct", r->tc_self_ns, r->device_self_ns);
        pct_of(w, "tc_total_pct", r->tc_total_ns, r->device_total_ns);
        jw_end(w);
    }
    ml_rows_rest o = rows ? ml_op_rows_rest(rows, top) : (ml_rows_rest){0};
    if (o.rows) { /* the rows past the cut, added up: "others" says how many */
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, "(others)");
        jw_key(w, "others"); jw_i64(w, (int64_t)o.rows);
        jw_key(w, "calls"); jw_i64(w, o.calls);
        ml_perf_json_op_times(w, US, o.host_self_ns, o.host_total_ns, o.device_self_ns, o.device_total_ns);
        jw_end(w);
    }
    jw_end(w);
}

static void write_kernels(jw *w, const ml_profile *p, const ml_kernel_table *kt, int top)
{
    jw_key(w, "kernels");
    jw_arr(w);
    for (size_t i = 0; kt && i < limit(kt->by_name.len, top); i++) {
        const ml_kernel_row *r = &kt->by_name.v[i];
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, ml_s(p, r->name));
        jw_key(w, "calls"); jw_i64(w, r->calls);
        ml_perf_json_time(w, US, ML_PT_TOTAL, r->total_ns);
        mean_us(w, "mean_us", r->total_ns, r->calls); /* the mean of doubles, not the perf object's rounded ns */
        ml_perf_json_time(w, US, ML_PT_MIN, r->min_ns);
        ml_perf_json_time(w, US, ML_PT_MAX, r->max_ns);
        ml_perf_json_num(w, "blocks_per_sm", r->blocks_per_sm, 4);
        ml_perf_json_num(w, "achieved_occupancy_pct", r->occupancy, 4);
        jw_key(w, "tensor_cores_used"); jw_bool(w, r->tensor_cores);
        jw_end(w);
    }
    ml_rows_rest o = kt ? ml_kernel_rows_rest(kt->by_name.v, kt->by_name.len, top) : (ml_rows_rest){0};
    if (o.rows) {
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, "(others)");
        jw_key(w, "others"); jw_i64(w, (int64_t)o.rows);
        jw_key(w, "calls"); jw_i64(w, o.calls);
        ml_perf_json_time(w, US, ML_PT_TOTAL, o.total_ns);
        jw_end(w);
    }
    jw_end(w);
}

static void write_modules(jw *w, const ml_modules *m, int top)
{
    jw_key(w, "modules");
    jw_arr(w);
    /* rows are parents first: a cut keeps every kept row's parent */
    for (size_t i = 0; m && i < limit(m->n, top); i++) {
        const ml_module_row *r = &m->rows[i];
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, r->name ? r->name : "");
        jw_key(w, "parent"); jw_i64(w, r->parent);
        jw_key(w, "depth"); jw_i64(w, r->depth);
        jw_key(w, "occurrences"); jw_i64(w, (int64_t)r->occurrences);
        jw_key(w, "operators"); jw_i64(w, (int64_t)r->operators);
        ml_perf_json_time(w, US, ML_PT_HOST, r->host_ns);
        ml_perf_json_time(w, US, ML_PT_DEVICE, r->device_ns);
        jw_end(w);
    }
    jw_end(w);
}

void ml_perf_run_distributed(jw *w, const ml_distributed *d)
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
    jw_key(w, "slowest_rank");
    if (d->slowest_rank >= 0) jw_i64(w, d->slowest_rank);
    else jw_null(w);
    jw_key(w, "steps");
    jw_arr(w);
    for (size_t i = 0; i < d->n_steps; i++) {
        const ml_dist_step *s = &d->steps[i];
        jw_obj(w);
        jw_key(w, "rank"); jw_i64(w, s->rank);
        jw_key(w, "step"); jw_str(w, ml_perf_step_label(s->step && strcmp(s->step, "(whole trace)") ? s->step : NULL));
        ml_perf_json_time(w, US, ML_PT_COMPUTATION, s->computation_ns);
        ml_perf_json_time(w, US, ML_PT_COMMUNICATION, s->communication_ns);
        ml_perf_json_time(w, US, ML_PT_OVERLAP, s->overlap_ns);
        ml_perf_json_time(w, US, ML_PT_OTHER, s->other_ns);
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
        ml_perf_json_time(w, US, ML_PT_TOTAL, c->total_ns);
        ml_perf_json_time(w, US, ML_PT_MEAN, c->mean_ns);
        jw_end(w);
    }
    jw_end(w);
    ml_perf_stragglers_run_json(w, d);
    jw_end(w);
}

void ml_perf_run_json(jw *w, const ml_profile *p, const ml_perf *perf, ml_perf_group group, int top,
                      const ml_distributed *dist)
{
    ml_perf_run_json_at(w, p, perf, group, top, dist, NULL);
}

void ml_perf_run_json_at(jw *w, const ml_profile *p, const ml_perf *perf, ml_perf_group group, int top,
                         const ml_distributed *dist, long *dist_at)
{
    jw_obj(w);
    jw_key(w, "path"); jw_str(w, p->path);
    jw_key(w, "rank");
    if (p->rank >= 0) jw_i64(w, p->rank);
    else jw_null(w);
    jw_key(w, "format"); jw_str(w, p->format);
    jw_key(w, "group_by"); jw_str(w, group == ML_PERF_BY_SHAPE ? "shape" : "name");

    write_steps(w, p, perf ? &perf->steps : NULL);
    write_gpus(w, p, perf ? &perf->gpus : NULL);
    jw_key(w, "recommendations");
    jw_arr(w);
    for (size_t i = 0; perf && i < perf->recs.len; i++) jw_str(w, perf->recs.v[i].text);
    jw_end(w);
    write_operators(w, p, perf ? &perf->ops : NULL, group, top);
    write_kernels(w, p, perf ? &perf->kernels : NULL, top);
    jw_key(w, "distributed");
    if (dist_at) { /* a placeholder the caller replaces (rankrec.h: marks) */
        *dist_at = jw_offset(w);
        jw_null(w);
    } else ml_perf_run_distributed(w, dist);
    write_modules(w, perf ? perf->modules : NULL, top);
    ml_gputime_runs_json(w, p, perf ? &perf->gputime : NULL);
    ml_perf_hta_run_json(w, p, perf, top);

    /* what is empty and why, in words */
    jw_key(w, "notes");
    jw_arr(w);
    if (!perf) jw_str(w, ml_perf_unavailable(p));
    else {
        if (perf->steps.whole_trace) jw_str(w, "no ProfilerStep#: the whole trace is one step, \"(whole trace)\"");
        if (!perf->ops.by_name.len) jw_str(w, "no operators: the trace has no CPU operators");
        if (!perf->kernels.kernels)
            jw_str(w, perf->cupti.n ? "no kernel times: the trace was recorded in CUPTI profiler mode; its kernels' "
                                      "hardware counters are in cupti_counters"
                                    : "no kernels: the trace has no GPU kernels");
        if (perf->gputime.last_step_cut)
            jw_str(w, "GPU time (temporal ... memory_bw): work launched from the last ProfilerStep# on is left out, as HTA does");
        if (perf->modules && !perf->modules->n && perf->modules->hint) {
            char buf[512];
            snprintf(buf, sizeof buf, "no modules: %s", perf->modules->hint);
            jw_str(w, buf);
        }
        for (size_t i = 0; i < perf->notes.len; i++) jw_str(w, perf->notes.v[i]);
    }
    jw_end(w);
    jw_end(w);
}

