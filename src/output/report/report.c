/*
 * report.c — writes the HTML report: the embedded web UI around the data of
 * report_data.c, as one file, atomically (outfile.h).
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "outfile.h"
#include "phase.h"
#include "report_caps.h"
#include "web_assets.h"

static int put_all(FILE *f, const char *s, size_t n) { return fwrite(s, 1, n, f) == n ? 0 : -1; }

/* A rank left out by the budget: who it is, and why its views are empty. */
static void summarised_stub(const ml_profile *p, size_t n_embedded, size_t n, int64_t budget, jw *w)
{
    jw_obj(w);
    ml_report_rank_who(p, w);
    jw_key(w, "notes"), jw_arr(w), jw_end(w);
    jw_key(w, "perf"), jw_bool(w, false);
    char why[400];
    snprintf(why, sizeof why,
             "this run is summarised: the page embeds the full data of %zu of the %zu runs (the pairs that changed "
             "most first) within its budget of %.0f MB (--budget MB); the Compare view has every pair",
             n_embedded, n, (double)budget / 1e6);
    jw_key(w, "perfWhy"), jw_str(w, why);
    jw_key(w, "summarised"), jw_bool(w, true);
    jw_key(w, "devices"), jw_arr(w), jw_end(w);
    jw_end(w);
}

/* One rank made for the page on its own: its meta object, blobs, perf element. */
typedef struct rank_part {
    ml_buf meta, html, perf;
} rank_part;

void ml_report_meta_open(jw *w, int64_t origin, const char *const *inputs, size_t n_inputs, char *const *skipped,
                         size_t n_skipped)
{
    char created[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    jw_obj(w);
    jw_key(w, "version"), jw_i64(w, 1);
    jw_key(w, "generator"), jw_str(w, "memlens");
    jw_key(w, "created"), jw_str(w, created);
    char num[24];
    snprintf(num, sizeof num, "%lld", (long long)origin);
    jw_key(w, "origin_ns"), jw_str(w, num); /* a string: beyond a double's exact integers */
    jw_key(w, "inputs"), jw_arr(w);
    for (size_t i = 0; i < n_inputs; i++) jw_text(w, inputs[i]);
    jw_end(w);
    jw_key(w, "skipped"), jw_arr(w);
    for (size_t i = 0; i < n_skipped; i++) jw_text(w, skipped[i]);
    jw_end(w);
    jw_key(w, "ranks"), jw_arr(w);
}

/* ml_report_write within o->budget (see report.h): each unit's ranks made
 * one at a time, kept while they fit.  Blob numbers run on in the order the
 * ranks were kept, so the page is the same bytes for the same inputs. */
static int write_within_budget(const ml_profiles *ps, const ml_report_opts *o, const char *path, ml_err *e)
{
    size_t n = ps->items.len, unit = o->unit ? o->unit : 1, n_units = (n + unit - 1) / unit;
    if (!n) return ml_fail(e, "report: no profile to show");
    int64_t origin = INT64_MAX;
    for (size_t r = 0; r < n; r++) {
        int64_t t = ml_profile_first_time(ps->items.v[r]);
        if (t < origin) origin = t;
    }
    if (origin == INT64_MAX) origin = 0;
    size_t max_allocs = o->max_allocs ? o->max_allocs : ML_REPORT_MAX_ALLOCS;
    rank_part *parts = ml_calloc(n, sizeof *parts);
    bool *kept = ml_calloc(n, sizeof *kept);
    int64_t used = (int64_t)(ml_asset_uplot_js_len + ml_asset_uplot_css_len + ml_asset_style_len + ml_asset_body_len +
                             ml_asset_app_len + o->extra_len) + 4096;
    unsigned next_id = 0;
    size_t n_kept = 0;
    for (size_t ui = 0; ui < n_units; ui++) {
        size_t u = o->order ? o->order[ui] : ui, size = 0;
        unsigned id = next_id;
        for (size_t r = u * unit; r < n && r < (u + 1) * unit; r++) {
            const ml_profile *p = ps->items.v[r];
            rank_part *x = &parts[r];
            ml_blobs bl = {0};
            bl.count = id;
            if (o->zlevel) bl.level = o->zlevel;
            ml_blobs_async(&bl);
            ml_report_rank(p, origin, max_allocs, o->max_history, &x->meta, &bl);
            ml_blobs_finish(&bl, &x->meta);
            id = bl.count;
            x->html = bl.html;
            bl.html = (ml_buf){0};
            ml_blobs_free(&bl);
            ml_buf_printf(&x->perf, "<script type=\"application/json\" id=\"ml-perf-%zu\">", r);
            if (ml_report_perf_json_with(p, NULL, o->top, &x->perf)) ml_buf_puts(&x->perf, "</script>\n");
            else x->perf.len = 0;
            size += x->meta.len + x->html.len + x->perf.len + 1;
        }
        bool fits = !n_kept || used + (int64_t)size <= o->budget; /* the most important unit whatever its size */
        for (size_t r = u * unit; r < n && r < (u + 1) * unit; r++) {
            if (fits) {
                kept[r] = true;
                n_kept++;
                continue;
            }
            ml_buf_free(&parts[r].meta), ml_buf_free(&parts[r].html), ml_buf_free(&parts[r].perf);
        }
        if (fits) used += (int64_t)size, next_id = id;
    }
    ml_phase("report: runs within the budget");

    ml_buf meta = {0}, perf = {0}, html = {0};
    jw w;
    jw_init_buf(&w, &meta, false);
    ml_report_meta_open(&w, origin, o->inputs, o->n_inputs, ps->skipped.v, ps->skipped.len);
    for (size_t r = 0; r < n; r++) {
        if (!kept[r]) {
            summarised_stub(ps->items.v[r], n_kept, n, o->budget, &w);
            continue;
        }
        jw_paste(&w, parts[r].meta.p, parts[r].meta.len);
        if (parts[r].perf.len) ml_buf_put(&perf, parts[r].perf.p, parts[r].perf.len);
    }
    jw_end(&w);
    jw_end(&w);
    for (size_t ui = 0; ui < n_units; ui++) { /* the blobs in the order they were numbered */
        size_t u = o->order ? o->order[ui] : ui;
        for (size_t r = u * unit; r < n && r < (u + 1) * unit; r++)
            if (kept[r] && parts[r].html.len) ml_buf_put(&html, parts[r].html.p, parts[r].html.len);
    }
    for (size_t r = 0; r < n; r++) ml_buf_free(&parts[r].meta), ml_buf_free(&parts[r].html), ml_buf_free(&parts[r].perf);
    free(parts);
    free(kept);
    int rc = ml_report_page(path, ps->items.v[0]->path, &meta, o->extra_html, o->extra_len, &perf, &html, o->std_out, e);
    ml_buf_free(&meta);
    ml_buf_free(&perf);
    ml_buf_free(&html);
    return rc;
}

int ml_report_write(const ml_profiles *ps, const ml_report_opts *o, const char *path, ml_err *e)
{
    if (o && o->budget > 0) return write_within_budget(ps, o, path, e);
    ml_buf meta = {0};
    ml_blobs bl = {0};
    /* The blobs deflate on a second thread until ml_blobs_finish: through
     * the memory side, the trace slices and the perf views below. */
    ml_blobs_async(&bl);
    if (ml_report_data(ps, o, &meta, &bl, e) != 0) {
        ml_buf_free(&meta);
        ml_blobs_free(&bl);
        return -1;
    }
    ml_phase("report: data");

    /* Each rank's perf object (the profiler views), parsed by the page when
     * first shown; its "distributed" has the job's backend, world size and
     * slowest rank with the rank's own steps and collectives (every rank's
     * in each made the page grow with the ranks squared). */
    ml_buf perf = {0};
    size_t n = ps->items.len;
    ml_dist_part *parts = ml_calloc(n ? n : 1, sizeof *parts);
    bool *has = ml_calloc(n ? n : 1, sizeof *has);
    size_t k = 0;
    for (size_t r = 0; r < n; r++) {
        const ml_profile *p = ps->items.v[r];
        if ((has[r] = ml_distributed_part(p, p->rank >= 0 ? p->rank : (int)r, n > 1, &parts[k]))) k++;
    }
    ml_distributed *dist = o && o->no_distributed ? NULL : ml_distributed_join(parts, k, n);
    size_t step_at = 0, coll_at = 0;
    for (size_t r = 0, q = 0; r < n; r++) {
        size_t at = perf.len;
        ml_distributed one = {0};
        if (dist) {
            one = *dist;
            one.steps = dist->steps + step_at;
            one.collectives = dist->collectives + coll_at;
            one.n_steps = has[r] ? parts[q].n_steps : 0;
            one.n_collectives = has[r] ? parts[q].n_collectives : 0;
            step_at += one.n_steps;
            coll_at += one.n_collectives;
        }
        if (has[r]) q++;
        ml_buf_printf(&perf, "<script type=\"application/json\" id=\"ml-perf-%zu\">", r);
        if (ml_report_perf_json_with(ps->items.v[r], dist ? &one : NULL, o ? o->top : 0, &perf)) ml_buf_puts(&perf, "</script>\n");
        else perf.len = at; /* no time side: no element */
    }
    if (dist) ml_distributed_free(dist);
    for (size_t i = 0; i < k; i++) ml_dist_part_free(&parts[i]);
    free(parts);
    free(has);
    ml_phase("report: perf json");
    ml_blobs_finish(&bl, &meta);
    ml_phase("report: wait for the blobs");

    const char *title = ps->items.len ? ps->items.v[0]->path : "memlens";
    int rc = ml_report_page(path, title, &meta, o ? o->extra_html : NULL, o ? o->extra_len : 0, &perf, &bl.html,
                            o ? o->std_out : NULL, e);
    ml_buf_free(&perf);
    ml_buf_free(&meta);
    ml_blobs_free(&bl);
    return rc;
}

int ml_report_page(const char *path, const char *title, const ml_buf *meta, const char *extra, size_t extra_len,
                   const ml_buf *perf, const ml_buf *html, FILE *std_out, ml_err *e)
{
    ml_outfile out;
    if (ml_outfile_open(&out, path, std_out, e) != 0) return -1;
    FILE *f = out.f;
    const char *slash = title ? strrchr(title, '/') : NULL;
    if (slash && slash[1]) title = slash + 1;
    ml_buf head = {0};
    ml_buf_puts(&head, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                       "<meta name=\"generator\" content=\"memlens\">\n<title>memlens — ");
    for (const char *c = title; c && *c; c++) { /* the title is the only text put raw into HTML */
        if (*c == '<') ml_buf_puts(&head, "&lt;");
        else if (*c == '&') ml_buf_puts(&head, "&amp;");
        else ml_buf_put(&head, c, 1);
    }
    ml_buf_puts(&head, "</title>\n<style>\n");
    int rc = put_all(f, head.p, head.len);
    rc |= put_all(f, ml_asset_uplot_css, ml_asset_uplot_css_len);
    rc |= put_all(f, ml_asset_style, ml_asset_style_len);
    rc |= put_all(f, "</style>\n</head>\n<body>\n", 24);
    rc |= put_all(f, ml_asset_body, ml_asset_body_len);
    rc |= put_all(f, "<script type=\"application/json\" id=\"ml-meta\">", 45);
    rc |= put_all(f, meta->p ? meta->p : "", meta->len);
    rc |= put_all(f, "</script>\n", 10);
    if (extra_len) rc |= put_all(f, extra, extra_len);
    rc |= put_all(f, perf->p ? perf->p : "", perf->len);
    rc |= put_all(f, html->p ? html->p : "", html->len);
    rc |= put_all(f, "<script>\n", 9);
    rc |= put_all(f, ml_asset_uplot_js, ml_asset_uplot_js_len);
    rc |= put_all(f, "</script>\n<script type=\"module\">\n", 33);
    rc |= put_all(f, ml_asset_app, ml_asset_app_len);
    rc |= put_all(f, "</script>\n</body>\n</html>\n", 26);
    ml_buf_free(&head);
    ml_phase("report: write");
    rc = ml_outfile_close(&out, rc == 0, e);
    ml_phase("report: close, rename");
    return rc;
}
