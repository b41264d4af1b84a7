/*
 * perf_cmd.c — the `memlens perf` command line: loads every input with its
 * time side (operators, kernels, steps) and prints the profiler views of
 * each rank as text (output/perf_views.c) or JSON: "runs" (output/perf_runs.c,
 * the documented fields) and "ranks" (output/perf.c, the web's perf object).
 */
#include "phase.h"
#include "cli.h"
#include "cluster_out.h"
#include "job.h"
#include "logdir_list.h"
#include "perf.h"
#include "perf_runs.h"
#include "perf_views.h"
#include "summary.h" /* MEMLENS_VERSION */
#include "textwidth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage_to(FILE *f)
{
    fprintf(f, "usage: memlens perf [--json] [--view overview|operators|kernels|distributed|modules|critical-path|all]\n"
               "                    [--group-by name|shape] [--top N] [--rank N] [--all] [--hta-rules] [-j N] INPUT...\n"
               "Where the time went, as TensorBoard's PyTorch profiler plugin shows it: the step time\n"
               "breakdown (kernel, memcpy, communication, runtime, DataLoader, CPU...), GPU utilization,\n"
               "recommendations, and the operators and kernels; from HolisticTraceAnalysis, frequent kernel\n"
               "sequences, CUPTI counters, stragglers and (--view critical-path) the critical path per step.\n"
               "INPUT: a Kineto trace (.json/.json.gz), an Ascend profiler folder, - for stdin, or a directory\n"
               "--view V: print only these views (repeat, or V,V); default: every view but the critical path,\n"
               "          tables cut to 10 rows; all: every view\n"
               "--group-by: operators by name (default) or by name and input shape\n"
               "--top N: rows of each table, the rest added up in an \"others\" line (text: 10 without\n"
               "         --view, 1000 with it; --json: 1000)\n"
               "--all: every rank's views (a job of more than %d ranks gets the cluster digest instead)\n"
               "--hta-rules: device times rounded inward to whole us as HolisticTraceAnalysis does, to compare\n"
               "             with it, its defects included (a kernel under 1 us can count -1 us); default:\n"
               "             exact, in ns as the trace writes them, never negative\n"
               "-j N: ranks read at once (default: one per core)\n"
               "--json: {\"memlens\", \"inputs\", \"runs\": [...], \"meta\", \"ranks\", \"distributed\", \"cluster\"}\n"
               "        (README, memlens perf)\n", ML_PERF_DETAIL_RANKS);
}

static int fail_usage(const ml_cli_io *io, const char *msg, const char *arg)
{
    fprintf(io->err, "memlens: perf: %s%s\n", msg, arg);
    usage_to(io->err);
    return 2;
}

/* What each rank's views need, and what the command prints. */
typedef struct perf_args {
    bool json;
    ml_time_rules rules;
    int top;
    ml_perf_group group;
    ml_perf_view_opts view;
} perf_args;

enum { PIECE_TEXT, PIECE_RUN, PIECE_META, PIECE_RANK };
enum { MARK_RUN_DIST, MARK_RANK_DIST };

/* What the text views chosen read of the analyses (perf_views.c): one
 * operator table, no row's kernels or histogram, no kernels by operator
 * (the page's: --json writes its perf object, so it wants everything). */
static ml_perf_wants wants_of(const perf_args *a)
{
    ml_perf_wants w = {0};
    if (a->json) return w;
    unsigned v = a->view.views;
    bool ops = v & ML_VIEW_OPERATORS, shape = a->view.group == ML_PERF_BY_SHAPE;
    w.ops = (ml_op_wants){.no_by_name = !ops || shape, .no_by_shape = !ops || !shape, .no_kernels = true, .no_hists = true};
    w.kernels = (ml_kernel_wants){.no_by_op = true, .no_hists = true};
    w.no_gpus = !(v & ML_VIEW_OVERVIEW);
    w.no_gputime = !(v & (ML_VIEW_OVERVIEW | ML_VIEW_KERNELS));
    w.no_kseqs = w.no_cupti = !(v & ML_VIEW_KERNELS);
    w.no_modules = !(v & ML_VIEW_MODULES);
    return w;
}

/* A --json piece, built in memory (a FILE's write for every value cost more
 * than the values) at the depth of the document's arrays; a file's JSON,
 * not a page's: not script_safe. */
static void piece_begin(jw *w, ml_buf *b)
{
    b->len = 0;
    jw_init_buf(w, b, true);
    w->script_safe = false;
    jw_enter(w, 2, false);
}

/* One rank, while it is loaded: its views (text), or its run, meta and
 * perf objects (--json) with a placeholder for "distributed". */
static void rank_pieces(void *arg, const ml_profile *p, ml_peak_memo *memo, ml_rankrec *r, ml_spool *s)
{
    const perf_args *a = arg;
    ml_perf perf;
    ml_perf_wants wants = wants_of(a);
    bool ok = ml_perf_compute_rules(p, a->rules, &wants, &perf);
    /* the critical path costs more than the other views together: only when shown */
    if (ok && (a->json || (a->view.views & ML_VIEW_CRITPATH))) ml_perf_want_critical_path(p, &perf);
    if (!a->json) {
        ml_spool_writer m;
        FILE *f = ml_spool_begin(&m);
        fprintf(f, "== %s", ML_TEXT_SAFE(p->path));
        if (p->rank >= 0) fprintf(f, " (rank %d)", p->rank);
        fprintf(f, "\n");
        if (!ok) fprintf(f, "no profiler views: %s\n", ml_perf_unavailable(p));
        else {
            ml_perf_view_opts ro = a->view; /* the distributed table spans the ranks: after the last one */
            ro.dist_elsewhere = true;
            ml_perf_views_text(f, p, &perf, &ro, NULL);
        }
        r->piece[PIECE_TEXT] = ml_spool_end(&m, s);
    } else {
        jw w;
        long at = -1;
        ml_buf b = {0};
        piece_begin(&w, &b);
        ml_perf_run_json_at(&w, p, ok ? &perf : NULL, a->group, a->top, NULL, &at);
        r->mark[MARK_RUN_DIST] = at;
        r->piece[PIECE_RUN] = ml_spool_put(s, b.p, b.len);
        piece_begin(&w, &b);
        const char *why = ml_perf_unavailable(p);
        jw_obj(&w);
        jw_key(&w, "path"); jw_str(&w, p->path);
        jw_key(&w, "format"); jw_str(&w, p->format);
        jw_key(&w, "rank");
        if (p->rank >= 0) jw_i64(&w, p->rank);
        else jw_null(&w);
        jw_key(&w, "perfWhy");
        if (why) jw_str(&w, why);
        else jw_null(&w);
        jw_end(&w);
        r->piece[PIECE_META] = ml_spool_put(s, b.p, b.len);
        piece_begin(&w, &b);
        at = -1;
        if (ok) ml_perf_json_write_at(&w, p, &perf, a->top, NULL, &at);
        else jw_null(&w);
        r->mark[MARK_RANK_DIST] = at;
        r->piece[PIECE_RANK] = ml_spool_put(s, b.p, b.len);
        ml_buf_free(&b);
    }
    if (ok) ml_perf_free(&perf);
}

/* The distributed view as one rank's run sees it: the job's backend, world
 * size and slowest rank, the rank's own steps and collectives (each run
 * carried every rank's once: a job's output grew with the ranks squared). */
typedef struct dist_cut {
    ml_distributed one;
    size_t step_at, coll_at;    /* where the next rank's rows begin in the job's view */
} dist_cut;

static const ml_distributed *dist_of_rank(dist_cut *c, const ml_distributed *all, const ml_rankrec *r)
{
    if (!all) return NULL;
    c->one = *all;
    c->one.stragglers = NULL; /* cross-rank: in the job's distributed object only */
    c->one.stragglers_why = NULL;
    size_t ns = r->has_time ? r->steps.len : 0, nc = r->has_time ? r->colls.len : 0;
    c->one.steps = all->steps + c->step_at;
    c->one.n_steps = ns;
    c->one.collectives = all->collectives + c->coll_at;
    c->one.n_collectives = nc;
    c->step_at += ns;
    c->coll_at += nc;
    return &c->one;
}

/* Pastes a rank's piece into w's open array, the value of `d` (written by
 * write_dist at w's depth + 1) in place of the placeholder at mark. */
static void paste_marked(jw *w, ml_spool *s, ml_piece pc, int64_t mark, const ml_distributed *d,
                         void (*write_dist)(jw *, const ml_distributed *))
{
    if (!pc.len) return;
    jw_paste_begin(w);
    fflush(w->f);
    if (mark < 0) {
        ml_spool_copy(s, pc, w->f);
        return;
    }
    ml_spool_copy(s, (ml_piece){pc.off, (uint64_t)mark}, w->f);
    jw dw;
    jw_init_in(&dw, w->f, w->pretty, w->depth + 1, true);
    write_dist(&dw, d);
    fflush(w->f);
    ml_spool_copy(s, (ml_piece){pc.off + (uint64_t)mark + 4, pc.len - (uint64_t)mark - 4}, w->f); /* past "null" */
}

static void write_json(const ml_cli_io *io, const ml_job *job, const char *const *inputs, size_t n_inputs, const ml_distributed *dist)
{
    jw w;
    jw_init(&w, io->out, true);
    jw_obj(&w);
    jw_key(&w, "memlens"); jw_str(&w, MEMLENS_VERSION);
    jw_key(&w, "inputs");
    jw_arr(&w);
    for (size_t i = 0; i < n_inputs; i++) jw_str(&w, inputs[i]);
    jw_end(&w);
    jw_key(&w, "runs");
    jw_arr(&w);
    dist_cut cut = {0};
    for (size_t r = 0; r < job->n; r++) {
        const ml_rankrec *rec = job->recs[r];
        const ml_distributed *d = dist_of_rank(&cut, dist, rec);
        paste_marked(&w, job->spool, rec->piece[PIECE_RUN], rec->mark[MARK_RUN_DIST], d, ml_perf_run_distributed);
    }
    jw_end(&w);
    jw_key(&w, "meta");
    jw_arr(&w);
    for (size_t r = 0; r < job->n; r++) jw_paste_begin(&w), fflush(io->out), ml_spool_copy(job->spool, job->recs[r]->piece[PIECE_META], io->out);
    jw_end(&w);
    jw_key(&w, "ranks");
    jw_arr(&w);
    memset(&cut, 0, sizeof cut);
    for (size_t r = 0; r < job->n; r++) {
        const ml_rankrec *rec = job->recs[r];
        const ml_distributed *d = dist_of_rank(&cut, dist, rec);
        paste_marked(&w, job->spool, rec->piece[PIECE_RANK], rec->mark[MARK_RANK_DIST], d, ml_perf_json_distributed);
    }
    jw_end(&w);
    /* the distributed view of the job, once (its runs each have their own rows) */
    jw_key(&w, "distributed");
    ml_perf_run_distributed(&w, dist);
    if (ml_cluster_is_job(job->recs, job->n, NULL, 0)) { /* unrelated inputs are no job */
        ml_cluster *c = ml_cluster_compute(job->recs, job->n);
        ml_cluster_json(&w, c);
        ml_cluster_free(c);
    }
    jw_end(&w);
    fputc('\n', io->out);
}

static void write_text(const ml_cli_io *io, const ml_job *job, const perf_args *a, bool all, const ml_distributed *dist)
{
    const ml_perf_view_opts *o = &a->view;
    bool detail = job->n <= ML_PERF_DETAIL_RANKS || all;
    /* the distributed view alone spans the ranks: no per-rank headings */
    bool dist_only = o->views == ML_VIEW_DISTRIBUTED;
    if (dist_only && detail) ml_perf_distributed_text(io->out, dist, o);
    for (size_t r = 0; r < job->n && !dist_only && detail; r++) {
        if (r) fputc('\n', io->out);
        fflush(io->out);
        ml_spool_copy(job->spool, job->recs[r]->piece[PIECE_TEXT], io->out);
        if (r + 1 == job->n && !job->recs[r]->perf_why) ml_perf_views_distributed(io->out, dist, o);
    }
    if (job->n > ML_PERF_DETAIL_RANKS && ml_cluster_is_job(job->recs, job->n, NULL, 0)) {
        if (detail) fputc('\n', io->out);
        ml_cluster *c = ml_cluster_compute(job->recs, job->n);
        ml_cluster_text(io->out, c, "perf");
        ml_cluster_free(c);
    }
}

int ml_cmd_perf(int argc, char **argv, const ml_cli_io *io)
{
    bool json = false, all = false, hta_rules = false;
    int rank = -1, top = -1, jobs = 0;
    unsigned views = 0;
    ml_perf_group group = ML_PERF_BY_NAME;
    VEC(const char *) inputs = {0};
    int rc = -1;
    for (int i = 0; i < argc && rc < 0; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_to(io->out);
            rc = 0;
        } else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--all")) all = true;
        else if (!strcmp(a, "--hta-rules")) hta_rules = true;
        else if (!strcmp(a, "-j") && i + 1 < argc) {
            if (ml_job_parse_jobs(io->err, argv[++i], &jobs) < 0) rc = 2;
        } else if (!strcmp(a, "--rank") && i + 1 < argc) {
            if (ml_cli_rank(io->err, argv[++i], &rank) < 0) rc = 2;
        } else if (!strcmp(a, "--top") && i + 1 < argc) {
            if (ml_cli_count(io->err, "--top", argv[++i], 1, 1000000, "a number of rows (1 or more)", &top) < 0) rc = 2;
        } else if (!strcmp(a, "--group-by") && i + 1 < argc) {
            const char *g = argv[++i];
            if (!strcmp(g, "name")) group = ML_PERF_BY_NAME;
            else if (!strcmp(g, "shape")) group = ML_PERF_BY_SHAPE;
            else rc = fail_usage(io, "--group-by takes name or shape, not ", g);
        } else if (!strcmp(a, "--view") && i + 1 < argc) {
            char list[256];
            snprintf(list, sizeof list, "%s", argv[++i]);
            for (char *save = NULL, *v = strtok_r(list, ",", &save); v && rc < 0; v = strtok_r(NULL, ",", &save)) {
                unsigned bit = ml_perf_view_parse(v);
                if (!bit) rc = fail_usage(io, "--view takes overview, operators, kernels, distributed, modules, critical-path or all, not ", v);
                views |= bit;
            }
            if (!views && rc < 0) rc = fail_usage(io, "--view needs a view name", "");
        } else if (a[0] == '-' && a[1]) rc = fail_usage(io, "unknown option ", a);
        else VEC_PUSH(&inputs, a);
    }
    if (rc < 0 && !inputs.len) {
        usage_to(io->err);
        rc = 2;
    }
    if (rc >= 0) {
        VEC_FREE(&inputs);
        return rc;
    }
    perf_args pa = {.json = json, .rules = hta_rules ? ML_TIME_HTA : ML_TIME_EXACT, .top = top > 0 ? top : ML_PERF_TOP_DEFAULT, .group = group,
                    .view = {.views = views ? views : ML_VIEW_ALL, .group = group,
                             .top = top > 0 ? top : views ? ML_PERF_TOP_DEFAULT : 10, .width = ml_term_width(io->out)}};
    /* perf shows no memory categories or attribution, and of the memory side reads only the
     * curves (the recommendations): lean storage holds them.  Its text grouped by name shows no
     * input shapes (but the distributed view's bytes, from its collectives' ops: needs.h);
     * no view reads an op's order args */
    ml_needs needs = {.time = true, .no_categories = true, .no_op_memory = true, .lean = true,
                      .no_op_shapes = !json && group == ML_PERF_BY_NAME, .no_op_order = true};
    ml_job_opts jo = {.err = io->err, .needs = needs, .jobs = jobs,
                      .fn = rank_pieces, .arg = &pa, .fn_pieces_only = true, .lists_logdir = true,
                      .rec = {.no_stragglers = !json && !(pa.view.views & ML_VIEW_DISTRIBUTED)}};
    ml_job job;
    rc = ml_job_run(inputs.v, inputs.len, &jo, &job);
    if (rc != 0) {
        VEC_FREE(&inputs);
        ml_job_free(&job);
        return ml_job_exit(rc < 0 ? 2 : 0);
    }
    if (rank >= 0 && ml_job_keep_rank(&job, rank, io->err) < 0) {
        VEC_FREE(&inputs);
        ml_job_free(&job);
        return ml_job_exit(2);
    }
    if (job.units.logdir >= 0) { /* a logdir of several runs or spans: list them (logdir_list.h) */
        const char *logdir = inputs.v[job.units.logdir];
        if (json) ml_logdir_list_json(io->out, &job.units, logdir, job.recs, job.n, "perf");
        else ml_logdir_list_text(io->out, &job.units, logdir, job.recs, job.n, "perf");
        VEC_FREE(&inputs);
        ml_job_free(&job);
        return ml_job_exit(fflush(io->out) == 0 ? 0 : 1);
    }
    ml_distributed *dist = ml_rankrec_distributed(job.recs, job.n); /* NULL unless distributed */
    if (json) write_json(io, &job, inputs.v, inputs.len, dist);
    else write_text(io, &job, &pa, all, dist);
    ml_phase("output");
    VEC_FREE(&inputs);
    if (dist) ml_rankrec_dist_free(dist);
    ml_job_free(&job);
    ml_phase("free");
    return ml_job_exit(fflush(io->out) == 0 ? 0 : 1);
}
