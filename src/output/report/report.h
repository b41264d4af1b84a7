/*
 * report.h — `memlens report`: one self-contained, offline HTML file with
 * memory curves, the allocation timeline, the peak breakdown and tables.
 *
 * report_data.c turns profiles into the page's data (meta JSON + typed
 * column blobs, contract in web/DATA.md); report.c wraps it with the web UI
 * that the build embedded (build/gen/web_assets.c) and writes the file
 * atomically (temp file + rename).
 */
#ifndef ML_REPORT_H
#define ML_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "distributed.h"
#include "err.h"
#include "importer.h"
#include "jsonw.h"
#include "loadpar.h"
#include "rankrec.h"
#include "report_enc.h"

#define ML_REPORT_MAX_ALLOCS 2000000  /* per device, default budget of drawn allocations */

typedef struct ml_report_opts {
    size_t max_allocs;       /* per device; 0 = ML_REPORT_MAX_ALLOCS */
    size_t max_history;      /* allocator events per device in a snapshot's state history; 0 = ML_REPORT_MAX_HISTORY */
    int zlevel;              /* zlib level for blobs; 0 = 1 (fast) */
    const char *const *inputs; /* input names for the header */
    size_t n_inputs;
    int top;                 /* rows of each perf table; 0 = ML_PERF_TOP_DEFAULT */
    /* `memlens diff -o`: more page data (a <script> element, written after
     * the meta), and no distributed view (the ranks are two runs, not one job). */
    const char *extra_html;
    size_t extra_len;
    bool no_distributed;
    /* `memlens diff -o --budget MB`: the page's size.  The ranks go in units
     * of `unit` ranks (2: a pair's base and new runs, side by side in ps),
     * the units in `order` (most important first; NULL: as listed); each unit
     * is embedded whole while the page stays within the budget (the first
     * whatever its size), the others summarised ("summarised": true, as the
     * report of a job does).  0: every rank embedded. */
    int64_t budget;
    size_t unit;
    const size_t *order;
    /* Where a path of "-" writes: the command's output (cli.h ml_cli_io.out);
     * NULL refuses "-". */
    FILE *std_out;
} ml_report_opts;

/* Fills meta (one JSON object) and the blobs for all ranks of ps. */
int ml_report_data(const ml_profiles *ps, const ml_report_opts *o, ml_buf *meta,
                   ml_blobs *bl, ml_err *e);

/* The start of a rank's object of the meta: `{"rank", "world_size", "path",
 * "format", "host", "time", "notes", "perf", "perfWhy"` (left open for the
 * rest) by w. */
/* Who the rank is, the meta object's first members (rank, world_size, path,
 * format, caps, host, time): the head's and a summarised rank's stub's. */
void ml_report_rank_who(const ml_profile *p, jw *w);
void ml_report_rank_head(const ml_profile *p, jw *w);
/* One rank's object of the meta ("ranks" items), times relative to origin
 * (`memlens serve` builds each rank alone, with bl->capture set).  Its
 * large arrays go through a scratch pool of the calling thread's, opened
 * and closed here (scratch.h; one the caller has open is its again after). */
void ml_report_rank(const ml_profile *p, int64_t origin, size_t max_allocs, size_t max_history, ml_buf *meta,
                    ml_blobs *bl);
/* The same, keeping what it wrote from (`memlens serve` answers from it):
 * the memory view of each device shown, in order (*views, *nviews: an
 * array of them, the caller's to free with ml_memview_free), and the
 * rank's strings (*strings, the caller's, memview.h). */
struct ml_memview;
struct ml_mv_strings;
void ml_report_rank_keep(const ml_profile *p, int64_t origin, size_t max_allocs, size_t max_history, ml_buf *meta,
                         ml_blobs *bl, struct ml_mv_strings *strings, struct ml_memview ***views, size_t *nviews);
/* A device view's "peak" object and "ops" list (web/DATA.md), as the report writes them. */
void ml_report_put_peak(const struct ml_memview *v, jw *w);
void ml_report_put_ops(const struct ml_memview *v, jw *w);

/* The perf object of a rank (web/DATA.md "Profiler views"; output/perf.h) as
 * JSON appended to out, with every '<' written \u003c so that it can sit in a
 * <script> element; returns false (out untouched) when the rank has no time
 * side (ml_perf_unavailable says why: the rank's "perfWhy" in the meta). */
bool ml_report_perf_json(const ml_profile *p, ml_buf *out);
/* The same with dist, the distributed view of all the ranks loaded together
 * (ml_distributed_compute over them, once), as the perf object's
 * "distributed"; NULL there writes null.  ml_report_perf_json computes the
 * rank's own, alone.  top: rows of each table (perf.h; 0 = the default). */
bool ml_report_perf_json_with(const ml_profile *p, const ml_distributed *dist, int top, ml_buf *out);

/* The label of a curve (web/DATA.md curves' "label"): kind "allocated",
 * "reserved", "active" or "app reserved", of the whole device (comp and
 * stream NULL), of an allocator component or of a stream.  insight (Ascend
 * inputs): as MindStudio Insight names them, so that its users recognise
 * them: "Operator Allocated", "Operator Reserved", "Operator Activated",
 * "APP Reserved", "PTA Activated", "Allocated of 897357296"; else
 * "allocated", "PTA allocated", "stream 7 allocated". */
void ml_report_curve_label(char *buf, size_t cap, bool insight, const char *kind, const char *comp, const char *stream);

/* The page's meta up to its ranks: {"version", "generator", "created" (now,
 * UTC), "origin_ns", "inputs", "skipped", and "ranks":[ left open for the
 * caller (report.c's runs, report_job.c's ranks) at w's depth 2. */
void ml_report_meta_open(jw *w, int64_t origin, const char *const *inputs, size_t n_inputs,
                         char *const *skipped, size_t n_skipped);
/* Writes the whole HTML page to path (temp file in the same directory, then rename). */
int ml_report_write(const ml_profiles *ps, const ml_report_opts *o, const char *path, ml_err *e);

/* The page around its parts: the meta JSON, more elements (extra, as
 * ml_report_opts.extra_html), the perf objects' <script> elements, the
 * blobs' (html); title: an input's name. */
int ml_report_page(const char *path, const char *title, const ml_buf *meta, const char *extra, size_t extra_len,
                   const ml_buf *perf, const ml_buf *html, FILE *std_out, ml_err *e);

/* A job of many ranks (report_job.c), from the records of its ranks
 * (cli/job.h): the Cluster view of every rank, and the full data of the
 * ranks that matter, loaded again one at a time, within a size budget; the
 * others summarised (web/DATA.md: "cluster", "embedded", a rank's
 * "summarised"). */
#define ML_REPORT_BUDGET ((int64_t)50 * 1000 * 1000) /* bytes of page, default */
typedef struct ml_report_job_opts {
    ml_report_opts base;     /* max_allocs, max_history, zlevel, inputs */
    int64_t budget;          /* bytes; 0 = ML_REPORT_BUDGET */
    /* the rank's profile with everything the report shows (NULL and e set
     * when it cannot be read), and giving it back */
    ml_profile *(*load)(void *arg, const ml_rankrec *r, ml_err *e);
    void (*unload)(void *arg, ml_profile *p);
    void *load_arg;
    const ml_unit_list *units; /* the units the records came from (their unit): a logdir's runs and
                                * spans go in each rank's object as run, worker, span, spans; NULL: none */
} ml_report_job_opts;
int ml_report_job_write(const ml_rankset *rs, const ml_report_job_opts *o, const char *path, ml_err *e);

#endif
