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
     * first shown; "distributed" is that of all the ranks together, computed
     * once (NULL when they are not a distributed run). */
    ml_buf perf = {0};
    ml_distributed *dist = ps->items.len && !(o && o->no_distributed) ? ml_distributed_compute(ps->items.v, ps->items.len) : NULL;
    for (size_t r = 0; r < ps->items.len; r++) {
        size_t at = perf.len;
        ml_buf_printf(&perf, "<script type=\"application/json\" id=\"ml-perf-%zu\">", r);
        if (ml_report_perf_json_with(ps->items.v[r], dist, o ? o->top : 0, &perf)) ml_buf_puts(&perf, "</script>\n");
        else perf.len = at; /* no time side: no element */
    }
    if (dist) ml_distributed_free(dist);
    ml_phase("report: perf json");
    ml_blobs_finish(&bl, &meta);
    ml_phase("report: wait for the blobs");

    ml_outfile out;
    if (ml_outfile_open(&out, path, e) != 0) {
        ml_buf_free(&perf);
        ml_buf_free(&meta);
        ml_blobs_free(&bl);
        return -1;
    }
    FILE *f = out.f;
    const char *title = ps->items.len ? ps->items.v[0]->path : "memlens";
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
    rc |= put_all(f, meta.p, meta.len);
    rc |= put_all(f, "</script>\n", 10);
    if (o && o->extra_len) rc |= put_all(f, o->extra_html, o->extra_len);
    rc |= put_all(f, perf.p ? perf.p : "", perf.len);
    rc |= put_all(f, bl.html.p ? bl.html.p : "", bl.html.len);
    rc |= put_all(f, "<script>\n", 9);
    rc |= put_all(f, ml_asset_uplot_js, ml_asset_uplot_js_len);
    rc |= put_all(f, "</script>\n<script type=\"module\">\n", 33);
    rc |= put_all(f, ml_asset_app, ml_asset_app_len);
    rc |= put_all(f, "</script>\n</body>\n</html>\n", 26);
    ml_buf_free(&head);
    ml_buf_free(&perf);
    ml_buf_free(&meta);
    ml_blobs_free(&bl);
    ml_phase("report: write");
    rc = ml_outfile_close(&out, rc == 0, e);
    ml_phase("report: close, rename");
    return rc;
}
