/*
 * report_job.c — the report of a job of many ranks; see report.h
 * (ml_report_job_write).
 *
 * The ranks were read once for their records (cli/job.h).  The ranks that
 * matter come first: those that ran out of memory, the other outliers by
 * score, the one with the highest peak, then the rest in rank order; each
 * is loaded again, one at a time, and embedded whole (its memory side, its
 * trace, its profiler views) while the page stays within the budget.  The
 * others are summarised: their records stand in the Cluster view, and their
 * rank objects in the meta say so ("summarised": true).  Blob numbers run on
 * across the ranks in the order they were embedded, so the page is the same
 * bytes for the same inputs and options.
 */
#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_out.h"
#include "cluster_view.h"
#include "jsonw.h"
#include "report_caps.h"
#include "outfile.h"
#include "perfdata.h"
#include "phase.h"
#include "web_assets.h"

/* The Cluster view's data (web/DATA.md "cluster", cluster_view.h): its
 * matrices as typed columns, which ranks are embedded, the cluster object. */
static void cluster_data(const ml_rankset *rs, const ml_cluster *c, int64_t origin, const bool *embedded,
                         ml_blobs *bl, jw *w)
{
    ml_cluster_matrix x;
    ml_cluster_matrix_of(rs->recs, rs->n, origin, &x);
    size_t cells = x.n_ranks * x.n_steps;
    jw_key(w, "cluster"), jw_obj(w);
    jw_key(w, "steps"), jw_arr(w);
    for (size_t k = 0; k < x.n_steps; k++) jw_text(w, x.labels[k]);
    jw_end(w);
    jw_key(w, "n_ranks"), jw_i64(w, (int64_t)x.n_ranks);
    jw_key(w, "n_steps"), jw_i64(w, (int64_t)x.n_steps);
    const char *keys[] = {"step_begin", "step_time", "step_peak", "step_comm"};
    const int64_t *cols[] = {x.begin, x.time, x.peak, x.any_comm ? x.comm : NULL};
    for (int k = 0; k < 4; k++) {
        jw_key(w, keys[k]);
        if (!cols[k]) jw_null(w);
        else jw_value_begin(w), ml_col_i64(bl, w->buf, cols[k], cells, 0); /* the encoder writes the descriptor */
    }
    jw_key(w, "embedded"), jw_arr(w);
    for (size_t i = 0; i < rs->n; i++) jw_i64(w, embedded[i] ? 1 : 0);
    jw_end(w);
    ml_cluster_json_members(w, c);
    jw_end(w);
    ml_cluster_matrix_free(&x);
}

/* A rank that is not embedded: who it is, and why the views have nothing. */
static void stub(jw *w, const ml_rankrec *r, size_t n_embedded, size_t n, int64_t budget)
{
    jw_obj(w);
    jw_key(w, "rank"), jw_i64(w, r->rank);
    jw_key(w, "world_size"), jw_i64(w, r->world_size);
    jw_key(w, "path"), jw_text(w, r->path);
    jw_key(w, "format"), jw_text(w, r->format);
    ml_report_caps_json(w, &r->caps, (ml_devkind)r->caps.devkind);
    jw_key(w, "host"), jw_text(w, r->host ? r->host : "");
    jw_key(w, "time"), jw_str(w, r->time_is_absolute ? "abs" : "rel");
    jw_key(w, "notes"), jw_arr(w), jw_end(w);
    jw_key(w, "perf"), jw_bool(w, false);
    char why[400];
    snprintf(why, sizeof why,
             "this rank is summarised: the report embeds the full data of %zu of the %zu ranks (those that "
             "matter first) within its budget of %.0f MB; memlens serve has every rank, and memlens report "
             "--rank %d writes this one's",
             n_embedded, n, (double)budget / 1e6, r->rank);
    jw_key(w, "perfWhy"), jw_str(w, why);
    jw_key(w, "summarised"), jw_bool(w, true);
    jw_key(w, "devices"), jw_arr(w), jw_end(w);
    jw_end(w);
}

/* The order ranks are embedded in: out of memory, the other outliers by
 * score, the highest peak, then rank order. */
static size_t *importance(const ml_rankset *rs, const ml_cluster *c)
{
    size_t n = rs->n, k = 0;
    size_t *order = ml_malloc((n ? n : 1) * sizeof *order);
    bool *seen = ml_calloc(n ? n : 1, sizeof *seen);
#define TAKE(i) do { size_t i_ = (i); if (i_ < n && !seen[i_]) { seen[i_] = true; order[k++] = i_; } } while (0)
    for (size_t i = 0; i < c->n_outliers; i++)
        if (!c->outliers[i].scored) TAKE(c->outliers[i].at);
    size_t *sc = ml_malloc((c->n_outliers ? c->n_outliers : 1) * sizeof *sc), nsc = 0;
    for (size_t i = 0; i < c->n_outliers; i++)
        if (c->outliers[i].scored) sc[nsc++] = i;
    for (size_t i = 1; i < nsc; i++) { /* by score, highest first (stable) */
        size_t x = sc[i], j = i;
        while (j > 0 && c->outliers[sc[j - 1]].score < c->outliers[x].score) sc[j] = sc[j - 1], j--;
        sc[j] = x;
    }
    for (size_t i = 0; i < nsc; i++) TAKE(c->outliers[sc[i]].at);
    free(sc);
    if (c->digest[ML_CM_PEAK_ALLOCATED].n) TAKE(c->digest[ML_CM_PEAK_ALLOCATED].max_at);
    for (size_t i = 0; i < n; i++) TAKE(i);
#undef TAKE
    free(seen);
    return order;
}

/* One rank embedded: its meta object, its blobs, its perf object, and
 * the few fields the page reads of every rank at its start (lazy). */
typedef struct embed {
    ml_buf meta, html, perf, lazy;
} embed;

/* Beyond this many ranks, an embedded rank's object is parsed when needed
 * (few ranks: in the meta, as in the report of one input). */
#define LAZY_FROM 8

/* The rank object of an embedded rank in the meta: who it is, and where its
 * full object is (`<script id="ml-rank-K">`, parsed when the page first
 * needs one of its columns: parsing every embedded rank's up front was most
 * of the start of a 4,096-rank page, source.js). */
static void lazy_stub(ml_buf *m, const ml_profile *p, const ml_rankrec *r, size_t k)
{
    jw w;
    jw_init_buf(&w, m, false);
    ml_report_rank_head(p, &w);
    jw_key(&w, "lazy"), jw_i64(&w, (int64_t)k);
    jw_key(&w, "best_peak"), jw_i64(&w, r->peak_allocated);
    jw_end(&w);
}

/* The rank object just written into m (it ends with its '}') gets the
 * rank's place in a logdir: run, worker, span, spans (the page's run picker). */
static void put_place(ml_buf *m, const ml_report_job_opts *o, const ml_rankrec *r)
{
    if (!o->units || r->unit >= o->units->units.len) return;
    const ml_logdir_place *pl = &o->units->units.v[r->unit].place;
    jw w;
    if (!pl->run || !jw_reopen(&w, m)) return;
    jw_key(&w, "run"), jw_text(&w, pl->run);
    jw_key(&w, "worker"), jw_text(&w, pl->worker);
    jw_key(&w, "span"), jw_i64(&w, pl->span);
    jw_key(&w, "spans"), jw_i64(&w, pl->spans);
    jw_end(&w);
}

int ml_report_job_write(const ml_rankset *rs, const ml_report_job_opts *o, const char *path, ml_err *e)
{
    if (!rs->n) return ml_fail(e, "report: no profile to show");
    int64_t budget = o->budget > 0 ? o->budget : ML_REPORT_BUDGET;
    size_t max_allocs = o->base.max_allocs ? o->base.max_allocs : ML_REPORT_MAX_ALLOCS;
    int64_t origin = INT64_MAX;
    for (size_t i = 0; i < rs->n; i++)
        if (rs->recs[i]->first_time_ns < origin) origin = rs->recs[i]->first_time_ns;
    if (origin == INT64_MAX) origin = 0;
    ml_cluster *c = ml_cluster_compute(rs->recs, rs->n);
    bool job = ml_cluster_is_job(rs->recs, rs->n, NULL, 0); /* inputs that are not one job: no Cluster view */
    ml_distributed *dist = ml_rankrec_distributed(rs->recs, rs->n);
    size_t *step_at = ml_calloc(rs->n + 1, sizeof *step_at), *coll_at = ml_calloc(rs->n + 1, sizeof *coll_at);
    for (size_t i = 0; i < rs->n; i++) { /* where each rank's rows are in the job's distributed view */
        const ml_rankrec *r = rs->recs[i];
        step_at[i + 1] = step_at[i] + (r->has_time ? r->steps.len : 0);
        coll_at[i + 1] = coll_at[i] + (r->has_time ? r->colls.len : 0);
    }

    /* what the page holds whatever is embedded: the UI, a stub per rank, the cluster data */
    int64_t fixed = (int64_t)(ml_asset_uplot_js_len + ml_asset_uplot_css_len + ml_asset_style_len + ml_asset_body_len +
                              ml_asset_app_len) + 4096;
    for (size_t i = 0; i < rs->n; i++) {
        ml_buf s = {0};
        jw sw;
        jw_init_buf(&sw, &s, false);
        stub(&sw, rs->recs[i], rs->n, rs->n, budget);
        fixed += (int64_t)s.len + 1;
        ml_buf_free(&s);
    }
    ml_blobs cbl = {0};
    ml_buf cmeta = {0};
    bool *embedded = ml_calloc(rs->n + 1, sizeof *embedded);
    jw cw;
    jw_init_buf(&cw, &cmeta, false);
    jw_resume(&cw, 1); /* after the ranks, as in the meta */
    if (job) cluster_data(rs, c, origin, embedded, &cbl, &cw); /* its size (the embedded flags change no length) */
    fixed += (int64_t)(cmeta.len + cbl.html.len);
    ml_buf_free(&cmeta);
    unsigned next_id = cbl.count;
    ml_blobs_free(&cbl);
    ml_phase("report: records, cluster");

    /* the ranks that matter, loaded again one at a time, while they fit */
    embed *em = ml_calloc(rs->n, sizeof *em);
    size_t *order = importance(rs, c), n_embedded = 0;
    int64_t used = fixed;
    double ratio = 0; /* the most page bytes an input byte made so far */
    for (size_t oi = 0; oi < rs->n && used < budget; oi++) {
        size_t i = order[oi];
        const ml_rankrec *r = rs->recs[i];
        if (n_embedded && ratio > 0 && r->input_bytes > 0 && (double)r->input_bytes * ratio > (double)(budget - used))
            continue; /* it would not fit: not worth reading */
        ml_profile *p = o->load(o->load_arg, r, e);
        if (!p) {
            for (size_t k = 0; k < rs->n; k++)
                ml_buf_free(&em[k].meta), ml_buf_free(&em[k].html), ml_buf_free(&em[k].perf), ml_buf_free(&em[k].lazy);
            free(em), free(order), free(embedded), free(step_at), free(coll_at);
            if (dist) ml_rankrec_dist_free(dist);
            ml_cluster_free(c);
            return -1;
        }
        embed x = {0};
        ml_blobs bl = {0};
        bl.count = next_id;
        if (o->base.zlevel) bl.level = o->base.zlevel;
        ml_blobs_async(&bl);
        ml_report_rank(p, origin, max_allocs, o->base.max_history, &x.meta, &bl);
        ml_blobs_finish(&bl, &x.meta);
        ml_distributed one;
        const ml_distributed *d = NULL;
        if (dist) {
            one = *dist;
            one.steps = dist->steps + step_at[i];
            one.n_steps = step_at[i + 1] - step_at[i];
            one.collectives = dist->collectives + coll_at[i];
            one.n_collectives = coll_at[i + 1] - coll_at[i];
            d = &one;
        }
        lazy_stub(&x.lazy, p, r, i);
        ml_buf_printf(&x.perf, "<script type=\"application/json\" id=\"ml-perf-%zu\">", i);
        if (ml_report_perf_json_with(p, d, o->base.top, &x.perf)) ml_buf_puts(&x.perf, "</script>\n");
        else x.perf.len = 0;
        o->unload(o->load_arg, p);
        x.html = bl.html;
        bl.html = (ml_buf){0};
        int64_t size = (int64_t)(x.meta.len + x.html.len + x.perf.len + x.lazy.len + 64);
        if (r->input_bytes > 0 && (double)size / (double)r->input_bytes > ratio) ratio = (double)size / (double)r->input_bytes;
        if (!n_embedded || used + size <= budget) { /* the most important one goes in whatever its size */
            em[i] = x;
            embedded[i] = true;
            used += size;
            n_embedded++;
            next_id = bl.count;
        } else {
            ml_buf_free(&x.meta);
            ml_buf_free(&x.html);
            ml_buf_free(&x.perf);
            ml_buf_free(&x.lazy);
        }
        ml_blobs_free(&bl);
    }
    free(order);
    ml_phase("report: ranks embedded");

    /* the meta: the ranks in rank order (embedded, or their stubs), the cluster data */
    ml_buf meta = {0}, html = {0}, perf = {0};
    jw w;
    jw_init_buf(&w, &meta, false);
    ml_report_meta_open(&w, origin, o->base.inputs, o->base.n_inputs, rs->skipped, rs->n_skipped);
    for (size_t i = 0; i < rs->n; i++) {
        if (embedded[i] && rs->n <= LAZY_FROM) jw_paste(&w, em[i].meta.p, em[i].meta.len);
        else if (embedded[i]) {
            jw_paste(&w, em[i].lazy.p, em[i].lazy.len);
            ml_buf_printf(&perf, "<script type=\"application/json\" id=\"ml-rank-%zu\">", i);
            ml_buf_put(&perf, em[i].meta.p, em[i].meta.len);
            ml_buf_puts(&perf, "</script>\n");
        }
        if (embedded[i]) {
            ml_buf_put(&perf, em[i].perf.p ? em[i].perf.p : "", em[i].perf.len);
        } else stub(&w, rs->recs[i], n_embedded, rs->n, budget);
        put_place(&meta, o, rs->recs[i]);
    }
    jw_end(&w);
    for (size_t i = 0; i < rs->n; i++) { /* blobs in the order they were numbered: rank importance */
        ml_buf_put(&html, em[i].html.p ? em[i].html.p : "", em[i].html.len);
        ml_buf_free(&em[i].meta);
        ml_buf_free(&em[i].html);
        ml_buf_free(&em[i].perf);
        ml_buf_free(&em[i].lazy);
    }
    free(em);
    ml_blobs cb2 = {0};
    if (job) cluster_data(rs, c, origin, embedded, &cb2, &w);
    jw_key(&w, "embedded"), jw_obj(&w);
    jw_key(&w, "ranks"), jw_i64(&w, (int64_t)n_embedded);
    jw_key(&w, "of"), jw_i64(&w, (int64_t)rs->n);
    jw_key(&w, "budget_bytes"), jw_i64(&w, budget);
    jw_end(&w);
    jw_end(&w);
    ml_buf_put(&html, cb2.html.p ? cb2.html.p : "", cb2.html.len);
    ml_blobs_free(&cb2);
    free(embedded);
    free(step_at);
    free(coll_at);
    if (dist) ml_rankrec_dist_free(dist);
    ml_cluster_free(c);

    const char *title = o->base.n_inputs ? o->base.inputs[0] : rs->recs[0]->path;
    int rc = ml_report_page(path, title, &meta, o->base.extra_html, o->base.extra_len, &perf, &html, o->base.std_out, e);
    ml_buf_free(&meta);
    ml_buf_free(&perf);
    ml_buf_free(&html);
    return rc;
}
