/*
 * export_html.c — `memlens export INPUT -o FILE.html`: what torch.profiler's
 * export_memory_timeline writes for .html — the stacked plot of one device's
 * memory by category over time (the .json timeline: PyTorch's categories in
 * its order and colours, time in ms from the first point, memory in GiB,
 * which PyTorch's plot holds but labels "GB": memlens names its units
 * alike everywhere), titled with the maximum memory allocated and
 * reserved — as one self-contained page: an inline SVG instead of
 * matplotlib's PNG, so it needs nothing and stays sharp.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "stats.h"

/* PyTorch's _CATEGORY_TO_COLORS, in its _CATEGORY_TO_INDEX order (the timeline's sizes[k + 1]). */
static const char *const cat_name[8] = {"PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY",
                                        "ACTIVATION", "GRADIENT", "AUTOGRAD_DETAIL", "Unknown"};
static const char *const cat_color[8] = {"darkgreen", "goldenrod", "black", "mediumpurple",
                                         "red", "mediumblue", "royalblue", "grey"};

#define FIG_W 1600
#define FIG_H 960
#define PL 110 /* plot box in the figure */
#define PR 230
#define PT 110
#define PB 90
#define COLUMNS 1600 /* points kept per band at most: each pixel column's extremes */

static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

/* A round step for about `want` ticks over [0, span]. */
static double nice_step(double span, int want)
{
    if (span <= 0) return 1;
    double raw = span / want, p = pow(10, floor(log10(raw)));
    for (int i = 0; i < 4; i++) {
        static const double m[] = {1, 2, 2.5, 5};
        if (m[i] * p >= raw) return m[i] * p;
    }
    return 10 * p;
}

int ml_export_html(FILE *f, const ml_profile *p, int device)
{
    int64_t *tus, *sz;
    size_t n = ml_export_timeline(p, device, &tus, &sz);
    ml_device_stats ds;
    ml_device_stats_compute(p, device, ML_BY_TOPLEVEL, &ds);

    /* Which points to draw: all of them when few, else per pixel column the
     * first, last and the extremes of the total (the plot's outline). */
    uint8_t *keep = ml_calloc(n ? n : 1, 1);
    int64_t t0 = n ? tus[0] : 0, t1 = n ? tus[n - 1] : 1;
    if (t1 <= t0) t1 = t0 + 1;
    double ymax = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t tot = 0;
        for (int k = 1; k < 9; k++) tot += sz[i * 9 + k];
        if (tot > ymax) ymax = (double)tot;
    }
    if (n <= 4 * COLUMNS) {
        memset(keep, 1, n);
    } else {
        int64_t *lo = ml_malloc(COLUMNS * sizeof *lo), *hi = ml_malloc(COLUMNS * sizeof *hi);
        size_t *ilo = ml_malloc(COLUMNS * sizeof *ilo), *ihi = ml_malloc(COLUMNS * sizeof *ihi);
        for (int c = 0; c < COLUMNS; c++) lo[c] = INT64_MAX, hi[c] = INT64_MIN, ilo[c] = ihi[c] = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            int c = (int)((double)(tus[i] - t0) / (double)(t1 - t0) * (COLUMNS - 1));
            int64_t tot = 0;
            for (int k = 1; k < 9; k++) tot += sz[i * 9 + k];
            if (ilo[c] == SIZE_MAX) keep[i] = 1; /* the column's first */
            if (tot < lo[c]) lo[c] = tot, ilo[c] = i;
            if (tot >= hi[c]) hi[c] = tot, ihi[c] = i;
        }
        for (int c = 0; c < COLUMNS; c++) {
            if (ilo[c] != SIZE_MAX) keep[ilo[c]] = 1;
            if (ihi[c] != SIZE_MAX) keep[ihi[c]] = 1;
        }
        keep[n - 1] = 1;
        free(lo); free(hi); free(ilo); free(ihi);
    }
    const double GiB = 1024.0 * 1024 * 1024;
    double ym = ymax / GiB * 1.05;
    if (ym <= 0) ym = 1;
    double xm = (double)(t1 - t0) / 1e3; /* ms */
    const int W = FIG_W - PL - PR, H = FIG_H - PT - PB;
#define X(ms) (PL + (ms) / xm * W)
#define Y(gb) (PT + H - (gb) / ym * H)

    char alloc_s[64] = "unknown", resv_s[64] = "unknown";
    if (ds.peak_allocated.found) snprintf(alloc_s, sizeof alloc_s, "%.2f GiB", ds.peak_allocated.value / GiB);
    if (ds.peak_reserved.found) snprintf(resv_s, sizeof resv_s, "%.2f GiB", ds.peak_reserved.value / GiB);
    const ml_device *d = &p->devices.v[device];

    fputs("<html><head><meta charset=\"utf-8\" /><title>GPU Memory Timeline HTML</title>\n"
          "<style>body{margin:0;background:#fff;font-family:DejaVu Sans,Helvetica,Arial,sans-serif}"
          "svg text{font-family:DejaVu Sans,Helvetica,Arial,sans-serif}</style></head><body>\n", f);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
               "aria-label=\"Memory timeline of %s\">\n", FIG_W, FIG_H, FIG_W, FIG_H, d->id);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", FIG_W, FIG_H);
    /* title, as PyTorch's: the maxima */
    fprintf(f, "<text x=\"%d\" y=\"40\" text-anchor=\"middle\" font-size=\"17\">Max memory allocated: %s</text>\n", PL + W / 2, alloc_s);
    fprintf(f, "<text x=\"%d\" y=\"64\" text-anchor=\"middle\" font-size=\"17\">Max memory reserved: %s</text>\n", PL + W / 2, resv_s);
    fprintf(f, "<text x=\"%d\" y=\"90\" text-anchor=\"middle\" font-size=\"13\" fill=\"#555\">", PL + W / 2);
    esc(f, p->path);
    fputs(" \xc2\xb7 ", f);
    esc(f, d->id);
    if (d->name) { fputs(" ", f); esc(f, ml_s(p, d->name)); }
    fputs(" \xc2\xb7 memlens</text>\n", f);
    /* grid and ticks */
    double ys = nice_step(ym, 8), xs = nice_step(xm, 10);
    fputs("<g stroke=\"#e5e5e5\" stroke-width=\"1\">\n", f);
    for (double v = 0; v <= ym + 1e-9; v += ys) fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", PL, PL + W, Y(v), Y(v));
    fputs("</g>\n", f);
    /* the bands: category k between the sum of those before it and that plus it */
    size_t nk = 0;
    for (size_t i = 0; i < n; i++) nk += keep[i];
    double *base = ml_calloc(nk ? nk : 1, sizeof *base), *xs_ = ml_malloc((nk ? nk : 1) * sizeof *xs_);
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (keep[i]) xs_[j++] = X((double)(tus[i] - t0) / 1e3);
    for (int k = 0; k < 8; k++) {
        bool any = false;
        for (size_t i = 0; i < n && !any; i++) any = sz[i * 9 + k + 1] != 0;
        if (!any) continue;
        fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.7\" stroke=\"none\" data-category=\"%s\" d=\"M", cat_color[k], cat_name[k]);
        j = 0;
        double *top = ml_malloc((nk ? nk : 1) * sizeof *top);
        for (size_t i = 0; i < n; i++) {
            if (!keep[i]) continue;
            top[j] = base[j] + (double)sz[i * 9 + k + 1] / GiB;
            fprintf(f, "%s%.1f %.2f", j ? " L" : "", xs_[j], Y(top[j]));
            j++;
        }
        for (size_t q = nk; q-- > 0;) fprintf(f, " L%.1f %.2f", xs_[q], Y(base[q]));
        fputs(" Z\"/>\n", f);
        memcpy(base, top, nk * sizeof *base);
        free(top);
    }
    /* axes */
    fprintf(f, "<g stroke=\"#000\" stroke-width=\"1\" fill=\"none\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></g>\n", PL, PT, W, H);
    fputs("<g font-size=\"14\" fill=\"#000\">\n", f);
    for (double v = 0; v <= ym + 1e-9; v += ys)
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%g</text>\n", PL - 8, Y(v), round(v * 1e6) / 1e6);
    for (double v = 0; v <= xm + 1e-9; v += xs)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n",
                X(v), PT + H + 22, round(v * 1e6) / 1e6, X(v), X(v), PT + H, PT + H + 5);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"16\">Time (ms)</text>\n", PL + W / 2, FIG_H - 30);
    fprintf(f, "<text transform=\"translate(40 %d) rotate(-90)\" text-anchor=\"middle\" font-size=\"16\">Memory (GiB)</text>\n", PT + H / 2);
    fputs("</g>\n", f);
    /* the legend, as PyTorch's: every category, in its order */
    fprintf(f, "<g font-size=\"14\"><rect x=\"%d\" y=\"%d\" width=\"200\" height=\"%d\" fill=\"#fff\" stroke=\"#ccc\"/>\n",
            FIG_W - PR + 16, PT, 8 * 24 + 12);
    for (int k = 0; k < 8; k++)
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"22\" height=\"12\" fill=\"%s\" fill-opacity=\"0.7\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
                FIG_W - PR + 26, PT + 12 + k * 24, cat_color[k], FIG_W - PR + 56, PT + 23 + k * 24, cat_name[k]);
    fputs("</g>\n</svg>\n</body></html>\n", f);
#undef X
#undef Y
    free(base);
    free(xs_);
    free(keep);
    free(tus);
    free(sz);
    ml_device_stats_free(&ds);
    return ferror(f) ? -1 : 0;
}
