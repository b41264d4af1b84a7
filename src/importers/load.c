/*
 * load.c — opening inputs, detecting their format by content, and running
 * the importer, keeping what the command needs (needs.h -> keep.h); then the
 * preparation every loaded profile goes through (ml_prepare).
 */
#include "phase.h"
#include "importer.h"
#include "attribute.h"
#include "categories.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SNIFF_BYTES 4096

static const ml_importer importers[] = {
    {"kineto", ml_kineto_sniff, ml_kineto_import},     /* first: the fallback for JSON (ml_load_file) */
    {"torch-snapshot", ml_snapshot_sniff, ml_snapshot_import},
    {"ascend-text", ml_ascend_text_sniff, ml_ascend_text_import},
    {"ascend-db", ml_ascend_db_sniff, ml_ascend_db_import},
    {"ascend-text", ml_ascend_time_sniff, ml_ascend_time_import}, /* trace_view.json, kernel_details.csv alone */
    {"torch-memory-timeline", ml_memtimeline_sniff, ml_memtimeline_import},
};

const ml_importer *ml_detect_format(const char *path, const unsigned char *head, size_t n)
{
    const ml_importer *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < sizeof importers / sizeof *importers; i++) {
        int score = importers[i].sniff(path, head, n);
        if (score > best_score) best = &importers[i], best_score = score;
    }
    return best;
}

static void describe_head(const unsigned char *head, size_t n, char *out, size_t cap)
{
    size_t w = 0;
    for (size_t i = 0; i < n && i < 16 && w + 5 < cap; i++) {
        unsigned char c = head[i];
        if (c >= 32 && c < 127 && c != '"') out[w++] = (char)c;
        else w += (size_t)snprintf(out + w, cap - w, "\\x%02x", c);
    }
    out[w] = 0;
}

/* What an import of path keeps, for a command with these needs: lean
 * storage only for what can be read again (ML_IMPORT_AGAIN), a regular file. */
static ml_keep keep_for(const ml_needs *needs, const char *path)
{
    struct stat st;
    bool again = strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
    return (ml_keep){.lean = needs->lean && again,
                     .threads_unread = needs->no_categories,
                     .first_op_only = needs->no_op_memory,
                     .no_op_shapes = needs->no_op_shapes,
                     .no_op_order = needs->no_op_order};
}

/* One import of path: its format detected, then read into a new profile
 * (*out), keeping what keep asks.  0, -1, or ML_IMPORT_AGAIN. */
static int import_once(const char *path, const ml_profiles *ps, const ml_keep *keep, ml_profile **out, ml_err *e)
{
    ml_source *src;
    if (ml_source_open(path, &src, e) < 0) return -1;
    ml_source_set_limits(src, &ps->limits);
    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, SNIFF_BYTES, e);
    const char *name = ml_source_name(src);
    if (n == 0) {
        int failed = e && e->msg[0];
        if (!failed) ml_fail(e, "%s: byte 0: the file is empty", name);
        ml_source_close(src);
        return -1;
    }
    const ml_importer *imp = ml_detect_format(path, head, n);
    if (!imp && ml_kineto_may_be(head, n)) imp = &importers[0]; /* its errors say what the JSON lacks */
    const char *page = imp ? NULL : ml_html_page_what(head, n);
    if (page) {
        ml_fail(e, "%s: byte 0: %s", name, page);
        ml_source_close(src);
        return -1;
    }
    if (!imp) {
        char what[80];
        describe_head(head, n, what, sizeof what);
        ml_fail(e, "%s: byte 0: unknown format (starts with \"%s\"); memlens reads Kineto/PyTorch traces, "
                   "CUDA allocator snapshots, memory timelines and Ascend profiler output", name, what);
        ml_source_close(src);
        return -1;
    }
    ml_profile *p = ml_profile_new(name, imp->format);
    if (ps->needs.time) p->trace = ml_trace_new(); /* importers that have a time side fill it */
    int rc = imp->import(src, p, keep, e);
    ml_source_close(src);
    if (rc < 0) ml_profile_free(p);
    else *out = p;
    return rc;
}

void ml_prepare(ml_profile *p, const ml_needs *needs)
{
    if (!needs->no_op_memory) ml_attribute(p);
    ml_phase("attribute");
    if (!needs->no_categories) ml_categorize(p); /* after attribution: it reads the top-level ops */
    ml_phase("categorize");
}

int ml_load_file(const char *path, ml_profiles *out, ml_err *e)
{
    ml_keep keep = keep_for(&out->needs, path);
    ml_profile *p = NULL;
    int rc = import_once(path, out, &keep, &p, e);
    if (rc == ML_IMPORT_AGAIN && keep.lean) { /* the lean storage could not hold it: once more without */
        keep.lean = false;
        if (e) e->msg[0] = 0;
        rc = import_once(path, out, &keep, &p, e);
    }
    if (rc < 0) return -1;
    ml_prepare(p, &out->needs);
    VEC_PUSH(&out->items, p);
    return 0;
}

int ml_load(const char *path, ml_profiles *out, ml_err *e)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) < 0) return ml_fail(e, "%s: %s", path, strerror(errno));
    if (strcmp(path, "-") != 0 && S_ISDIR(st.st_mode)) return ml_load_dir(path, out, e); /* walk.c */
    return ml_load_file(path, out, e);
}

static int by_rank(const void *a, const void *b)
{
    const ml_profile *x = *(ml_profile *const *)a, *y = *(ml_profile *const *)b;
    if ((x->rank < 0) != (y->rank < 0)) return x->rank < 0 ? 1 : -1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return strcmp(x->path, y->path);
}

void ml_profiles_sort(ml_profiles *ps)
{
    if (ps->items.len > 1) qsort(ps->items.v, ps->items.len, sizeof *ps->items.v, by_rank);
}

void ml_profiles_free(ml_profiles *ps)
{
    for (size_t i = 0; i < ps->items.len; i++) ml_profile_free(ps->items.v[i]);
    VEC_FREE(&ps->items);
    for (size_t i = 0; i < ps->skipped.len; i++) free(ps->skipped.v[i]);
    VEC_FREE(&ps->skipped);
}
