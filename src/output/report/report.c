/*
 * report.c — writes the HTML report: the embedded web UI around the data of
 * report_data.c, as one file, atomically (outfile.h).
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "phase.h"
#include "web_assets.h"

static int put_all(FILE *f, const char *s, size_t n) { return fwrite(s, 1, n, f) == n ? 0 : -1; }

int ml_report_write(const ml_profiles *ps, const ml_report_opts *o, const char *path, ml_err *e)
{
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
        if ((has[r] = ml_distributed_part(p, p->rank >= 0 ? p->rank : (int)r, &parts[k]))) k++;
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
    int rc = ml_report_page(path, title, &meta, o ? o->extra_html : NULL, o ? o->extra_len : 0, &perf, &bl.html, e);
    ml_buf_free(&perf);
    ml_buf_free(&meta);
    ml_blobs_free(&bl);
    return rc;
}

int ml_report_page(const char *path, const char *title, const ml_buf *meta, const char *extra, size_t extra_len,
                   const ml_buf *perf, const ml_buf *html, ml_err *e)
{
    ml_outfile out;
    if (ml_outfile_open(&out, path, e) != 0) return -1;
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
