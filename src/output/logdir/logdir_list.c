/*
 * logdir_list.c — see logdir_list.h.
 */
#include "logdir_list.h"

#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "jsonw.h"
#include "textwidth.h"

typedef struct item {
    const ml_unit *u;
    const ml_rankrec *r;    /* NULL: none */
} item;

static int by_place(const void *a, const void *b)
{
    const ml_logdir_place *x = &((const item *)a)->u->place, *y = &((const item *)b)->u->place;
    int c = strcmp(x->run, y->run);
    if (!c) c = strcmp(x->worker, y->worker);
    if (!c) c = (x->span > y->span) - (x->span < y->span);
    return c;
}

/* The logdir's units in run, worker, span order, each with its record. */
static item *items_of(const ml_unit_list *l, ml_rankrec *const *recs, size_t n_recs, size_t *n_out)
{
    item *v = ml_malloc((l->units.len ? l->units.len : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < l->units.len; i++) {
        const ml_unit *u = &l->units.v[i];
        if ((int)u->input != l->logdir || !u->place.run) continue;
        const ml_rankrec *r = NULL;
        for (size_t k = 0; k < n_recs && !r; k++)
            if (recs[k]->unit == i) r = recs[k];
        v[n++] = (item){u, r};
    }
    qsort(v, n, sizeof *v, by_place);
    *n_out = n;
    return v;
}

/* The folder of a unit's file: its run's path. */
static void run_path(const ml_unit *u, char *buf, size_t cap)
{
    const char *slash = strrchr(u->path, '/');
    size_t len = slash ? (size_t)(slash - u->path) : 0;
    if (!slash) snprintf(buf, cap, ".");
    else snprintf(buf, cap, "%.*s", (int)len, u->path);
}

static bool new_run(const item *v, size_t i) { return !i || strcmp(v[i].u->place.run, v[i - 1].u->place.run); }
static bool new_worker(const item *v, size_t i)
{
    return new_run(v, i) || strcmp(v[i].u->place.worker, v[i - 1].u->place.worker);
}

void ml_logdir_list_text(FILE *f, const ml_unit_list *l, const char *input, ml_rankrec *const *recs, size_t n_recs,
                         const char *cmd)
{
    size_t n;
    item *v = items_of(l, recs, n_recs, &n);
    size_t runs = 0;
    for (size_t i = 0; i < n; i++) runs += new_run(v, i);
    fprintf(f, "%s: a TensorBoard logdir of %zu run%s (run > worker, a rank > span, a profiling window)\n",
            ML_TEXT_SAFE(input), runs, runs == 1 ? "" : "s");
    char path[4096], first[4096] = "", b1[32], b2[32], t[64];
    int most = 0;
    for (size_t i = 0; i < n; i++) {
        const ml_unit *u = v[i].u;
        const ml_rankrec *r = v[i].r;
        if (new_run(v, i)) {
            size_t workers = 0, spans = 0;
            for (size_t k = i; k < n && (k == i || !new_run(v, k)); k++) workers += new_worker(v, k), spans++;
            run_path(u, path, sizeof path);
            if (!first[0]) snprintf(first, sizeof first, "%s", path);
            fprintf(f, "\nrun %s  (%s)  %zu worker%s, %zu span%s\n", ML_TEXT_SAFE(u->place.run), ML_TEXT_SAFE(path),
                    workers, workers == 1 ? "" : "s", spans, spans == 1 ? "" : "s");
        }
        if (new_worker(v, i)) fprintf(f, "  worker %s\n", ML_TEXT_SAFE(u->place.worker));
        if (u->place.spans > most) most = u->place.spans;
        fprintf(f, "    span %-3d", u->place.span);
        if (r && r->main_device[0] && r->peak_allocated >= 0)
            fprintf(f, " %s peak %s allocated", r->main_device, ml_fmt_bytes(r->peak_allocated, b1, sizeof b1));
        else if (r) fprintf(f, " no device memory");
        if (r && r->peak_reserved > 0) fprintf(f, ", %s reserved", ml_fmt_bytes(r->peak_reserved, b2, sizeof b2));
        if (r && r->steps.len) fprintf(f, ", %zu step%s", r->steps.len, r->steps.len == 1 ? "" : "s");
        if (r && r->first_time_ns != INT64_MAX && r->time_is_absolute)
            fprintf(f, ", %.23s UTC", ml_fmt_utc(r->first_time_ns, 6, t, sizeof t)); /* to the ms */
        const char *base = strrchr(u->path, '/');
        fprintf(f, "  %s\n", ML_TEXT_SAFE(base ? base + 1 : u->path));
    }
    fprintf(f, "\nName a run (its workers are its ranks) or one span of it:\n  memlens %s %s\n", cmd, ML_TEXT_SAFE(first));
    if (most > 1)
        fprintf(f, "  memlens %s %s@%d   (span %d of each worker; or @TIMESTAMP, the number in a file's name)\n",
                cmd, ML_TEXT_SAFE(first), most, most);
    free(v);
}

void ml_logdir_list_json(FILE *f, const ml_unit_list *l, const char *input, ml_rankrec *const *recs, size_t n_recs,
                         const char *cmd)
{
    size_t n;
    item *v = items_of(l, recs, n_recs, &n);
    jw w;
    jw_init(&w, f, true);
    jw_obj(&w);
    jw_key(&w, "logdir");
    jw_str(&w, input);
    jw_key(&w, "runs");
    jw_arr(&w);
    char path[4096], pick[4200];
    snprintf(pick, sizeof pick, "memlens %s RUN_PATH[@SPAN]", cmd);
    for (size_t i = 0; i < n; i++) {
        const ml_unit *u = v[i].u;
        const ml_rankrec *r = v[i].r;
        if (new_run(v, i)) {
            if (i) jw_end(&w), jw_end(&w), jw_end(&w), jw_end(&w); /* spans, worker, workers, run */
            run_path(u, path, sizeof path);
            jw_obj(&w);
            jw_key(&w, "name");
            jw_str(&w, u->place.run);
            jw_key(&w, "path");
            jw_str(&w, path);
            jw_key(&w, "workers");
            jw_arr(&w);
        } else if (new_worker(v, i)) jw_end(&w), jw_end(&w); /* spans, worker */
        if (new_worker(v, i)) {
            jw_obj(&w);
            jw_key(&w, "name");
            jw_str(&w, u->place.worker);
            jw_key(&w, "spans");
            jw_arr(&w);
        }
        jw_obj(&w);
        jw_key(&w, "span");
        jw_i64(&w, u->place.span);
        jw_key(&w, "timestamp");
        jw_str(&w, u->place.stamp);
        jw_key(&w, "path");
        jw_str(&w, u->path);
        jw_key(&w, "bytes");
        jw_i64(&w, u->bytes);
        if (r) {
            jw_key(&w, "rank");
            jw_i64(&w, r->rank);
            jw_key(&w, "device");
            if (r->main_device[0]) jw_str(&w, r->main_device);
            else jw_null(&w);
            jw_key(&w, "peak_allocated_bytes");
            jw_i64(&w, r->peak_allocated);
            jw_key(&w, "peak_reserved_bytes");
            jw_i64(&w, r->peak_reserved);
            jw_key(&w, "steps");
            jw_i64(&w, (int64_t)r->steps.len);
            jw_key(&w, "first_time_ns");
            if (r->first_time_ns != INT64_MAX) jw_i64(&w, r->first_time_ns);
            else jw_null(&w);
        }
        jw_end(&w);
    }
    if (n) jw_end(&w), jw_end(&w), jw_end(&w), jw_end(&w);
    jw_end(&w);
    jw_key(&w, "pick");
    jw_str(&w, pick);
    jw_end(&w);
    fputc('\n', f);
    free(v);
}
