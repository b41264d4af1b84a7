/*
 * perfdata.c — runs the time-side analyses of one rank in order.
 */
#include "perfdata.h"
#include "devkind.h"
#include "par.h"
#include "phase.h"
#include "scratch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ml_perf_unavailable(const ml_profile *p)
{
    if (!p->trace) {
        if (ml_devkind_of_profile(p) == ML_DK_NPU) /* (an Ascend export: its importer says so) */
            return "this Ascend run has no time data (trace_view.json, kernel_details.csv, or the db's TASK table): no operators or kernels with times";
        if (!p->caps.memory_record) return "the trace was loaded without its time side";
        return "this input records memory only (no operators or kernels with times)";
    }
    if (!p->trace->slices.ts.len) return "the trace has no events with a duration";
    return NULL;
}

typedef struct perf_job {
    const ml_profile *p;
    ml_time_rules rules;
    const ml_perf_wants *w;
    ml_perf *out;
} perf_job;

/* Two chains that share nothing but the (read-only) profile: the step-time
 * side, and the operator side, which reads the kernels it builds. */
static void step_side(void *arg)
{
    perf_job *j = arg;
    const ml_perf_wants *w = j->w;
    ml_bufpool pool = {0}; /* (each analysis's large arrays go into the next one's: pages in already) */
    ml_scratch_open(&pool);
    ml_steps_compute(j->p, &j->out->steps);
    if (!w->no_gpus) ml_gpu_metrics_compute(j->p, &j->out->steps, &j->out->gpus);
    if (!w->no_modules) j->out->modules = ml_modules_compute(j->p);
    if (!w->no_gputime) ml_gputime_compute(j->p, j->rules, &j->out->gputime);
    if (!w->no_kseqs) {
        ml_kseq_opts ko = ML_KSEQ_DEFAULTS;
        ko.rules = j->rules;
        ml_kseqs_compute(j->p, &ko, &j->out->kseqs);
    }
    if (!w->no_cupti) ml_cupti_compute(j->p, &j->out->cupti);
    ml_scratch_close();
}

static void operator_side(void *arg)
{
    perf_job *j = arg;
    ml_bufpool pool = {0};
    ml_scratch_open(&pool);
    ml_optree_build(j->p, &j->out->tree);
    ml_kernels_compute(j->p, &j->out->tree, &j->w->kernels, &j->out->kernels);
    ml_operators_compute(j->p, &j->out->tree, &j->out->kernels, &j->w->ops, &j->out->ops);
    ml_scratch_close();
}

static void note(ml_perf *perf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(ml_perf *perf, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    VEC_PUSH(&perf->notes, ml_strdup(buf));
}

static const char *plural(size_t n, const char *one, const char *many) { return n == 1 ? one : many; }

/* The notes: what of the input the analyses had to adjust, and why. */
static void make_notes(const ml_profile *p, ml_perf *perf)
{
    const ml_trace *t = p->trace;
    const ml_optree *tr = &perf->tree;
    const ml_steps *st = &perf->steps;
    if (tr->clipped)
        note(perf, "%zu operator range%s end%s after the range %s start%s in (ranges on one thread that cross): "
                   "each is cut at that range's end (the profiler plugin leaves them out)",
             tr->clipped, plural(tr->clipped, "", "s"), plural(tr->clipped, "s", ""), plural(tr->clipped, "it", "they"),
             plural(tr->clipped, "s", ""));
    if (tr->self_clamped)
        note(perf, "%zu operator%s had runtime calls or children longer than %s: %s host self time is counted "
                   "as 0, not negative", tr->self_clamped, plural(tr->self_clamped, "", "s"),
             plural(tr->self_clamped, "itself", "themselves"), plural(tr->self_clamped, "its", "their"));
    if (t->kernel_args_dropped)
        note(perf, "%zu kernel arg%s outside %s physical range (occupancy outside 0-100 %%, blocks per SM "
                   "negative or not finite, sizes below 0 or 1) dropped: shown as unknown",
             t->kernel_args_dropped, plural(t->kernel_args_dropped, "", "s"),
             plural(t->kernel_args_dropped, "its", "their"));
    if (t->bad_dur_dropped)
        note(perf, "%zu complete event%s (\"ph\": \"X\") left out: %s \"dur\" is negative or not a number "
                   "(NaN, Infinity, a string, null, a list): %s no length, not a 0 ns one",
             t->bad_dur_dropped, plural(t->bad_dur_dropped, "", "s"), plural(t->bad_dur_dropped, "its", "their"),
             plural(t->bad_dur_dropped, "it has", "they have"));
    if (t->shared_corr_ids)
        note(perf, "%zu correlation id%s repeat%s across %zu separate launches: GPU work with such an id is "
                   "given to the launch that began last before it",
             t->shared_corr_ids, plural(t->shared_corr_ids, "", "s"), plural(t->shared_corr_ids, "s", ""),
             t->shared_corr_calls);
    if (st->overlapping)
        note(perf, "%zu step%s begin%s before the step before %s ends (overlapping ProfilerStep# ranges): "
                   "the time they share is counted in the earlier step",
             st->overlapping, plural(st->overlapping, "", "s"), plural(st->overlapping, "s", ""),
             plural(st->overlapping, "it", "them"));
    if (st->backward)
        note(perf, "%zu step%s numbered lower than the step before %s in time (ProfilerStep# going backward): "
                   "steps are taken in time order",
             st->backward, plural(st->backward, " is", "s are"), plural(st->backward, "it", "them"));
    if (st->dropped)
        note(perf, "%zu trailing step%s dropped as cut short by the profiler, as the profiler plugin does: "
                   "%zu launched no GPU work, %zu less than 80%% of the step before",
             st->dropped, plural(st->dropped, "", "s"), st->dropped_idle, st->dropped - st->dropped_idle);
}

bool ml_perf_compute(const ml_profile *p, ml_perf *out) { return ml_perf_compute_rules(p, ML_TIME_EXACT, NULL, out); }

bool ml_perf_compute_rules(const ml_profile *p, ml_time_rules rules, const ml_perf_wants *w, ml_perf *out)
{
    memset(out, 0, sizeof *out);
    if (ml_perf_unavailable(p)) return false;
    static const ml_perf_wants all = {0};
    perf_job job = {p, rules, w ? w : &all, out};
    ml_par2(operator_side, &job, step_side, &job);
    ml_phase("perf analyses");
    if (!job.w->no_gpus) ml_recommend(p, &out->steps, &out->gpus, &out->tree, &out->kernels, &out->recs);
    make_notes(p, out);
    return true;
}

void ml_perf_free(ml_perf *perf)
{
    ml_steps_free(&perf->steps);
    VEC_FREE(&perf->gpus);
    ml_optree_free(&perf->tree);
    ml_kernels_free(&perf->kernels);
    ml_operators_free(&perf->ops);
    VEC_FREE(&perf->recs);
    if (perf->modules) ml_modules_free(perf->modules);
    ml_gputime_free(&perf->gputime);
    perf->modules = NULL;
    for (size_t i = 0; i < perf->notes.len; i++) free(perf->notes.v[i]);
    VEC_FREE(&perf->notes);
    ml_kseqs_free(&perf->kseqs);
    ml_cupti_free(&perf->cupti);
    if (perf->has_critpath) ml_critpath_free(&perf->critpath);
    perf->has_critpath = false;
}

void ml_perf_want_critical_path(const ml_profile *p, ml_perf *perf)
{
    if (perf->has_critpath) return;
    ml_critpath_compute(p, &perf->critpath);
    perf->has_critpath = true;
    ml_phase("critical path");
}
