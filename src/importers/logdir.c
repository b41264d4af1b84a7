/*
 * logdir.c — runs, workers and spans of a TensorBoard logdir; see logdir.h.
 */
#include "logdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source.h"
#include "vec.h"

/* The name's worker and timestamp, as the plugin's WORKER_PATTERN reads it:
 * `^(.*?)(\.\d+)?\.pt\.trace\.json(\.gz)?$`.  False when the name is not a
 * trace's. */
bool ml_logdir_parse_name(const char *base, char **worker, char **stamp)
{
    size_t n = strlen(base);
    const char *sfx[] = {".pt.trace.json.gz", ".pt.trace.json"};
    size_t stem = 0;
    bool ok = false;
    for (int i = 0; i < 2 && !ok; i++) {
        size_t m = strlen(sfx[i]);
        if (n > m && !strcmp(base + n - m, sfx[i])) stem = n - m, ok = true;
    }
    if (!ok) return false;
    size_t d = stem; /* the digits before the suffix, after a dot */
    while (d > 0 && base[d - 1] >= '0' && base[d - 1] <= '9') d--;
    size_t wlen = stem, s0 = stem;
    if (d < stem && d > 0 && base[d - 1] == '.') wlen = d - 1, s0 = d;
    *worker = ml_malloc(wlen + 1);
    memcpy(*worker, base, wlen);
    (*worker)[wlen] = 0;
    *stamp = ml_malloc(stem - s0 + 1);
    memcpy(*stamp, base + s0, stem - s0);
    (*stamp)[stem - s0] = 0;
    return true;
}

int ml_logdir_rank_in(const unsigned char *head, size_t n)
{
    const char *key = "\"distributedInfo\"";
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl < n; i++) {
        if (memcmp(head + i, key, kl)) continue;
        for (size_t j = i + kl; j + 6 < n && head[j] != '}'; j++) {
            if (memcmp(head + j, "\"rank\"", 6)) continue;
            size_t k = j + 6;
            while (k < n && (head[k] == ' ' || head[k] == ':' || head[k] == '\n' || head[k] == '\r' || head[k] == '\t')) k++;
            long v = 0;
            bool digits = false;
            while (k < n && head[k] >= '0' && head[k] <= '9' && v < 100000000) v = v * 10 + (head[k++] - '0'), digits = true;
            return digits ? (int)v : -1;
        }
        return -1;
    }
    return -1;
}

/* The rank of a trace's distributedInfo in its first 64 KiB, or -1. */
static int sniff_rank(const char *path)
{
    ml_source *src;
    ml_err e = {{0}};
    if (ml_source_open(path, &src, &e)) return -1;
    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, 64 * 1024, &e);
    int rank = ml_logdir_rank_in(head, n);
    ml_source_close(src);
    return rank;
}

/* The run of path below dir: its folder relative to dir, or dir's base name. */
static char *run_of(const char *dir, const char *path)
{
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dl--;
    const char *slash = strrchr(path, '/');
    size_t folder = slash ? (size_t)(slash - path) : 0;
    if (folder > dl + 1 && !strncmp(path, dir, dl) && path[dl] == '/') {
        size_t len = folder - dl - 1;
        char *r = ml_malloc(len + 1);
        memcpy(r, path + dl + 1, len);
        r[len] = 0;
        return r;
    }
    size_t b = dl;
    while (b > 0 && dir[b - 1] != '/') b--;
    char *r = ml_malloc(dl - b + 1);
    memcpy(r, dir + b, dl - b);
    r[dl - b] = 0;
    return r;
}

typedef struct file {
    size_t i;               /* in paths */
    int rank;
    const ml_logdir_place *pl; /* place[i] */
} file;

static bool same_worker(const ml_logdir_place *x, const ml_logdir_place *y)
{
    return !strcmp(x->run, y->run) && !strcmp(x->worker, y->worker);
}


/* Spans of one worker in timestamp order (numeric: longer is later). */
static int by_worker_stamp(const void *a, const void *b)
{
    const ml_logdir_place *x = ((const file *)a)->pl, *y = ((const file *)b)->pl;
    int c = strcmp(x->run, y->run);
    if (!c) c = strcmp(x->worker, y->worker);
    if (!c) c = strlen(x->stamp) != strlen(y->stamp) ? (strlen(x->stamp) < strlen(y->stamp) ? -1 : 1)
                                                     : strcmp(x->stamp, y->stamp);
    if (!c) c = ((const file *)a)->i < ((const file *)b)->i ? -1 : 1;
    return c;
}

bool ml_logdir_classify(const char *dir, char *const *paths, size_t n, ml_logdir_place *place, size_t *runs,
                        int *max_spans)
{
    memset(place, 0, n * sizeof *place);
    *runs = 0;
    *max_spans = 0;
    if (!n) return false;
    for (size_t i = 0; i < n; i++) {
        const char *base = strrchr(paths[i], '/');
        base = base ? base + 1 : paths[i];
        if (!ml_logdir_parse_name(base, &place[i].worker, &place[i].stamp)) {
            for (size_t k = 0; k <= i; k++) ml_logdir_place_free(&place[k]);
            return false; /* another kind of file: a set of files, as before */
        }
        place[i].run = run_of(dir, paths[i]);
    }
    file *f = ml_malloc(n * sizeof *f);
    for (size_t i = 0; i < n; i++) f[i] = (file){i, -1, &place[i]};
    qsort(f, n, sizeof *f, by_worker_stamp);
    /* one worker name with different distributedInfo ranks: ranks, not spans */
    bool renamed = false;
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && same_worker(&place[f[a].i], &place[f[b].i])) b++;
        bool differ = false;
        for (size_t k = a; b - a > 1 && k < b; k++) {
            f[k].rank = sniff_rank(paths[f[k].i]);
            differ |= f[k].rank != f[a].rank;
        }
        for (size_t k = a; differ && k < b; k++) {
            ml_logdir_place *pl = &place[f[k].i];
            if (f[k].rank < 0) continue;
            char *w = ml_malloc(strlen(pl->worker) + 24);
            sprintf(w, "%s, rank %d", pl->worker, f[k].rank);
            free(pl->worker);
            pl->worker = w;
            renamed = true;
        }
        a = b;
    }
    if (renamed) qsort(f, n, sizeof *f, by_worker_stamp);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && same_worker(&place[f[b].i], &place[f[a].i])) b++;
        for (size_t k = a; k < b; k++) place[f[k].i].span = (int)(k - a + 1), place[f[k].i].spans = (int)(b - a);
        if ((int)(b - a) > *max_spans) *max_spans = (int)(b - a);
        if (!a || strcmp(place[f[a].i].run, place[f[a - 1].i].run)) ++*runs;
        a = b;
    }
    free(f);
    return *runs > 1 || *max_spans > 1;
}

void ml_logdir_place_free(ml_logdir_place *p)
{
    free(p->run);
    free(p->worker);
    free(p->stamp);
    memset(p, 0, sizeof *p);
}

bool ml_logdir_split(const char *input, char **dir, const char **span)
{
    const char *at = strrchr(input, '@');
    struct stat st;
    if (!at || !at[1] || at == input || stat(input, &st) == 0) return false;
    char *d = ml_malloc((size_t)(at - input) + 1);
    memcpy(d, input, (size_t)(at - input));
    d[at - input] = 0;
    if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(d);
        return false;
    }
    *dir = d;
    *span = at + 1;
    return true;
}

bool ml_logdir_span_is(const ml_logdir_place *place, const char *span)
{
    if (place->stamp[0] && !strcmp(place->stamp, span)) return true;
    char *end;
    long k = strtol(span, &end, 10);
    return !*end && end != span && k == place->span;
}
