/*
 * api.h — the HTTP/JSON API of `memlens serve`, as pure functions: a path
 * and its query parameters in, a status and a JSON body out.  No sockets
 * here (server.c is the libmicrohttpd glue), so every route is testable
 * with plain calls (tests/test_api.c).
 *
 * Routes (GET; every parameter validated, 400 + {"error":...} otherwise):
 *   /api/meta                    inputs, skipped paths, the ranks and their load state
 *   /api/rank?rank&wait          imports the rank if needed (waits up to `wait` ms);
 *                                200 + the rank's meta (web/DATA.md), or 202 + its state
 *   /api/curve?rank&dev&curve&t0&t1&px[&fmt]    {t, v, max}: M4 of the window, every extreme kept
 *   /api/curves?rank&dev&list&t0&t1&px[&fmt]   several curves at once (list: "0,1,op:2"):
 *                                {n, max:[...], t0, v0, t1, v1, ...}
 *   /api/catcurve?rank&dev&t0&t1&px[&fmt]  the category chart: {cats, max, t, v0..vK}: the top
 *                                of each category's band (bottom first), on the union of
 *                                every top's M4 points, so each band edge keeps its extremes
 *   /api/stackbase?rank&dev&t0&t1&px[&fmt]  per pixel column for the stacked timeline:
 *                                {curve, before_known, t, v, base}: when the curve is highest
 *                                in the column, that value, and the part of it allocated
 *                                before the trace (no allocation of the trace accounts for it)
 *   /api/allocs?rank&dev&t0&t1&px[&limit&keep&fmt]   allocations intersecting the window at
 *                                least 1 px wide, as columns; the rest counted and summed, and
 *                                per pixel column and group (small_x, small_group, small_n)
 *   /api/table?rank&dev&text&min&max&cat&inwin&t0&t1&sort&dir&page&size   a sorted, filtered page;
 *                                Ascend (active release times): its rows also carry MindStudio
 *                                Insight's columns, tr and the totals aA aR aC rA rR rC (-1: unknown)
 *   /api/export?(the table's parameters)&fmt=csv|tsv   all of its rows, streamed (server.c)
 *   /api/detail?rank&dev&id      one allocation with its call stack
 *   /api/stack?rank&id           one stack of the rank's stack table (device.segview's block
 *                                and event stacks: the Allocator State History hover)
 *   /api/peak?rank&dev, /api/ops?rank&dev   the peak and its live set; per-operator stats
 *   /api/live?rank&dev&t&by      the live set at any time t, grouped by op|frame|stack|
 *                                innermost|size|category
 *   /api/cluster?wait            the Cluster view's data (cluster_view.h): every rank listed at the
 *                                start read once in the background for its record; 200 + the data,
 *                                202 + {"state":"reading","done","total"} until then (waits up to
 *                                `wait` ms), 404 with fewer than two ranks
 *   /api/compare?base&new        two loaded runs compared as `memlens diff` compares them:
 *                                {base_rank, new_rank, diff} (web/DATA.md "Compare")
 *   /api/perf?rank[&top=N]       the rank's perf object (web/DATA.md "Profiler views"), its
 *                                tables cut to N rows (default 1000) plus "others", made
 *                                when asked; 404 + {"error": why} when it has no time side
 *   /api/trace?rank&t0&t1&px[&q&fmt]   the Trace view's window: slices >= 1 px, sub-pixel runs
 *                                merged per lane (api_trace.h); /api/slice?rank&id one slice's
 *                                detail; /api/trace.json?rank the slices as a Chrome trace;
 *                                /api/findslice?rank&q&after&dir the search's next match
 *   PUT|POST /api/upload?name=FILE   a profile as the body, imported as new ranks (server.c,
 *                                 upload.h; see server.h)
 * Times are ns relative to the rank's origin_ns (as in the report's meta).
 * fmt=bin answers the column routes as a binary frame (colbuf.h, content
 * type application/octet-stream) that the page maps onto typed arrays;
 * fmt=json (the default) as JSON with the same fields.
 */
#ifndef ML_SERVER_API_H
#define ML_SERVER_API_H

#include <stdint.h>

#include "ranks.h"
#include "report_enc.h"
#include "view.h"

/* Returns the value of query parameter `key`, or NULL if absent. */
typedef const char *(*ml_api_arg_fn)(void *user, const char *key);

/* Answers one API request; returns the HTTP status, with the JSON in out. */
int ml_api_route(ml_ranks *rs, const char *path, ml_api_arg_fn arg, void *user, ml_buf *out);

/* The routes' work on a loaded rank (validated arguments). */
void ml_api_curve(const ml_sv_curve *c, double t0, double t1, int px, int binary, ml_buf *out);
int64_t ml_api_curve_max(const ml_sv_curve *c, double t0, double t1);
void ml_api_curves(const ml_sv_curve *const *cs, size_t n, double t0, double t1, int px, int binary, ml_buf *out);
void ml_api_catcurve(const ml_sv_device *d, double t0, double t1, int px, int binary, ml_buf *out);
void ml_api_stackbase(const ml_sv_device *d, double t0, double t1, int px, int binary, ml_buf *out);
void ml_api_allocs(const ml_sv_device *d, double t0, double t1, int px, size_t limit, int64_t keep, int binary,
                   ml_buf *out);
void ml_api_detail(const ml_sv_rank *r, const ml_sv_device *d, size_t id, ml_buf *out);
/* /api/stack: stack s of the rank's stack table (the ids of device.segview's blocks and
 * events), {"id", "stack": [{name, file, line}, ...]}. */
void ml_api_stack(const ml_sv_rank *r, uint32_t s, ml_buf *out);

/* The table's query: its filter, sort and page (memview.h). */
typedef ml_mv_table_query ml_table_query;
void ml_api_table(ml_sv_rank *r, ml_sv_device *d, const ml_table_query *q, ml_buf *out);

/* /api/export?rank&dev&text&min&max&cat&inwin&t0&t1&sort&dir&fmt=csv|tsv: every row of the
 * table that the filter keeps, in its order, as CSV or TSV (the columns of the page's
 * export, web/src/table.js exportAllocs), made as it is read so that a million rows
 * need no buffer.  Returns 200 with *x set, or an error status with its JSON in err. */
typedef struct ml_export ml_export;
int ml_api_export_open(ml_ranks *rs, ml_api_arg_fn arg, void *user, ml_export **x, ml_buf *err);
/* Up to max bytes of the text into buf; 0 at the end. */
size_t ml_api_export_read(ml_export *x, char *buf, size_t max);
int ml_api_export_tsv(const ml_export *x);
void ml_api_export_free(ml_export *x);

/* /api/trace.json?rank: the rank's slices as a Chrome trace (chrome_json.h), made as it
 * is read.  Returns 200 with *x set, or an error status with its JSON in err. */
struct ml_chrome_json;
int ml_api_trace_json_open(ml_ranks *rs, ml_api_arg_fn arg, void *user, struct ml_chrome_json **x, ml_buf *err);

/* by: "op", "frame", "stack", "innermost", "size", "category". */
void ml_api_live(const ml_sv_rank *r, const ml_sv_device *d, double t, const char *by, ml_buf *out);

#endif
