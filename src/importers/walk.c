/*
 * walk.c — every profile below a directory, each loaded as one rank.
 *
 * A torch_npu `*_ascend_pt` folder (one holding ASCEND_PROFILER_OUTPUT/) is
 * one rank and is not descended into; any other file is loaded when an
 * importer recognises its content (Kineto traces, snapshots, ...).  Entries are
 * visited in name order so that output does not depend on the file system.
 * Hidden entries and symbolic links to directories are not followed.  What is
 * passed over is kept in ml_profiles.skipped ("path: why"); a directory with
 * no profile at all is an error that lists them.  A file that an importer
 * recognises but cannot parse is an error: a silently missing rank would be
 * worse.  Paths below the walked directory that exist but cannot be read
 * (permissions, I/O errors) are skipped as unreadable (ML_SKIP_UNREADABLE), so
 * that outputs can warn about them; the directory named on the command line
 * itself must be readable.
 */
#include "ascend.h"
#include "importer.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 32

typedef struct walk {
    ml_profiles *out;
    ml_err *e;
    size_t found;
    ml_units *list;         /* listing only (ml_list_dir): paths, nothing loaded */
} walk;

static void skip(walk *w, const char *path, const char *why)
{
    size_t n = strlen(path) + strlen(why) + 3;
    char *s = ml_malloc(n);
    int at = snprintf(s, n, "%s: ", path);
    /* keep the why free of ": " (ml_skipped_path_len) */
    for (const char *c = why; *c; c++) s[at++] = c[0] == ':' && c[1] == ' ' ? ';' : *c;
    s[at] = 0;
    VEC_PUSH(&w->out->skipped, s);
}

static void skip_unreadable(walk *w, const char *path, const char *reason)
{
    char why[ML_ERR_MAX + 32];
    snprintf(why, sizeof why, ML_SKIP_UNREADABLE " (%s)", reason);
    skip(w, path, why);
}

size_t ml_skipped_path_len(const char *entry)
{
    const char *last = NULL;
    for (const char *s = strstr(entry, ": "); s; s = strstr(s + 1, ": ")) last = s;
    return last ? (size_t)(last - entry) : strlen(entry);
}

bool ml_skipped_unreadable(const char *entry)
{
    const char *why = entry + ml_skipped_path_len(entry);
    return why[0] && !strncmp(why + 2, ML_SKIP_UNREADABLE, strlen(ML_SKIP_UNREADABLE));
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int try_file(walk *w, const char *path)
{
    ml_source *src;
    ml_err e2 = {{0}};
    if (access(path, R_OK) < 0) {
        skip_unreadable(w, path, strerror(errno));
        return 0;
    }
    if (ml_source_open(path, &src, &e2)) { /* "path: reason" */
        size_t n = strlen(path);
        skip_unreadable(w, path, strncmp(e2.msg, path, n) || strncmp(e2.msg + n, ": ", 2) ? e2.msg : e2.msg + n + 2);
        return 0;
    }
    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, 4096, &e2);
    const ml_importer *imp = n ? ml_detect_format(path, head, n) : NULL;
    ml_source_close(src);
    if (!imp) {
        skip(w, path, n ? "not a profile memlens knows" : "empty file");
        return 0;
    }
    if (w->list) {
        VEC_PUSH(&w->list->paths, ml_strdup(path));
        w->found++;
        return 0;
    }
    size_t before = w->out->items.len;
    if (ml_load_file(path, w->out, w->e)) return -1;
    w->found += w->out->items.len - before;
    return 0;
}

/* One Ascend `*_ascend_pt` folder: its profiles (none, with a note among
 * the skipped, when it holds no memory data). */
static int load_ascend(walk *w, const char *path, int depth)
{
    ml_profile *ps[2];
    size_t n;
    int rc = ml_ascend_load_dir_want(path, w->out->needs.time, ps, &n, w->e);
    if (rc == ML_ASCEND_UNREADABLE && depth > 0) { /* e is "path: cannot read (...)" */
        VEC_PUSH(&w->out->skipped, ml_strdup(w->e->msg));
        w->e->msg[0] = 0;
        return 0;
    }
    if (rc) return -1;
    for (size_t i = 0; i < n; i++) {
        ml_prepare(ps[i], &w->out->needs); /* as load.c prepares a file's profile */
        VEC_PUSH(&w->out->items, ps[i]);
    }
    w->found += n;
    if (!n)
        skip(w, path, "Ascend profile without memory data (no memory_record.csv, operator_memory.csv, "
                      "static_op_mem.csv or .db; was it taken with profile_memory=True?)");
    return 0;
}

static int walk_dir(walk *w, const char *path, int depth)
{
    if (ml_ascend_is_profile_dir(path) && w->list) {
        VEC_PUSH(&w->list->paths, ml_strdup(path));
        w->found++;
        return 0;
    }
    if (ml_ascend_is_profile_dir(path)) return load_ascend(w, path, depth);
    if (depth > MAX_DEPTH) {
        skip(w, path, "nested too deep, not searched");
        return 0;
    }
    DIR *d = opendir(path);
    if (!d) {
        if (depth == 0) return ml_fail(w->e, "%s: cannot read directory: %s", path, strerror(errno));
        skip_unreadable(w, path, strerror(errno));
        return 0;
    }
    VEC(char *) names = {0};
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.') VEC_PUSH(&names, ml_strdup(de->d_name));
    closedir(d);
    if (names.len) qsort(names.v, names.len, sizeof *names.v, cmp_name);
    int rc = 0;
    for (size_t i = 0; i < names.len && rc == 0; i++) {
        size_t len = strlen(path) + strlen(names.v[i]) + 2;
        char *child = ml_malloc(len);
        snprintf(child, len, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", names.v[i]);
        struct stat lst, st;
        if (lstat(child, &lst) < 0) skip_unreadable(w, child, strerror(errno));
        else if (stat(child, &st) < 0) /* ELOOP: a link to itself, or round a cycle of links */
            skip(w, child, !S_ISLNK(lst.st_mode) ? strerror(errno) : errno == ELOOP ? "symlink loop" : "broken link");
        else if (S_ISDIR(st.st_mode) && S_ISLNK(lst.st_mode)) skip(w, child, "link to a directory, not followed");
        else if (S_ISDIR(st.st_mode)) rc = walk_dir(w, child, depth + 1);
        else if (S_ISREG(st.st_mode)) rc = try_file(w, child);
        else skip(w, child, "not a regular file");
        free(child);
    }
    for (size_t i = 0; i < names.len; i++) free(names.v[i]);
    VEC_FREE(&names);
    return rc;
}

int ml_no_profiles_error(const char *dir, char *const *skipped, size_t n, ml_err *e)
{
    /* Say what was looked at, as much as fits on the line. */
    char list[ML_ERR_MAX] = "";
    size_t used = 0, listed = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = skipped[i];
        if (used + strlen(s) + 4 > 400) break;
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", listed ? "; " : "", s);
        listed++;
    }
    if (!n) return ml_fail(e, "%s: no profiles found: the directory is empty", dir);
    if (listed < n)
        snprintf(list + used, sizeof list - used, "%s%zu more", listed ? "; and " : "", n - listed);
    return ml_fail(e, "%s: no profiles found (skipped %zu: %s)", dir, n, list);
}

static int load_or_list(const char *dir, ml_profiles *out, ml_units *listing, ml_err *e)
{
    walk w = {out, e, 0, listing};
    size_t skipped_before = out->skipped.len;
    if (walk_dir(&w, dir, 0)) return -1;
    if (w.found) return 0;
    return ml_no_profiles_error(dir, out->skipped.v + skipped_before, out->skipped.len - skipped_before, e);
}

int ml_load_unit(const char *path, bool listed, ml_profiles *out, ml_err *e)
{
    if (!listed) return ml_load(path, out, e);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!ml_ascend_is_profile_dir(path)) return ml_load_dir(path, out, e);
        walk w = {out, e, 0, NULL};
        return load_ascend(&w, path, 1);
    }
    return ml_load_file(path, out, e);
}

int ml_load_dir(const char *dir, ml_profiles *out, ml_err *e) { return load_or_list(dir, out, NULL, e); }

int ml_list_dir(const char *dir, ml_units *out, ml_err *e)
{
    ml_profiles tmp = {0};
    int rc = load_or_list(dir, &tmp, out, e);
    for (size_t i = 0; i < tmp.skipped.len; i++) VEC_PUSH(&out->skipped, tmp.skipped.v[i]);
    VEC_FREE(&tmp.skipped);
    return rc;
}

void ml_units_free(ml_units *u)
{
    for (size_t i = 0; i < u->paths.len; i++) free(u->paths.v[i]);
    for (size_t i = 0; i < u->skipped.len; i++) free(u->skipped.v[i]);
    VEC_FREE(&u->paths);
    VEC_FREE(&u->skipped);
}

int ml_rank_missing_error(int rank, const int *loaded, size_t n, ml_err *e)
{
    char have[200] = "";
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (loaded[i] != rank && used + 16 < sizeof have)
            used += (size_t)snprintf(have + used, sizeof have - used, "%s%d", used ? ", " : "", loaded[i]);
    if (!n) return ml_fail(e, "--rank %d: no profiles loaded", rank);
    return ml_fail(e, "--rank %d: no such rank (loaded: %s; -1 = unknown)", rank, have);
}

int ml_profiles_keep_rank(ml_profiles *ps, int rank, ml_err *e)
{
    size_t kept = 0, had = ps->items.len;
    int *loaded = ml_malloc((had ? had : 1) * sizeof *loaded);
    for (size_t i = 0; i < had; i++) {
        ml_profile *p = ps->items.v[i];
        loaded[i] = p->rank;
        if (p->rank == rank) ps->items.v[kept++] = p;
        else ml_profile_free(p);
    }
    ps->items.len = kept;
    int rc = kept ? 0 : ml_rank_missing_error(rank, loaded, had, e);
    free(loaded);
    return rc;
}
