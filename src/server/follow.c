/*
 * follow.c — see follow.h.
 */
#include "follow.h"

#include <errno.h>
#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loadpar.h"

#define WATCH_MASK (IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MODIFY | IN_DELETE)
#define MAX_WATCH_DEPTH 8

/* What a listing saw of a file: to tell a settled file from a growing one. */
typedef struct seen {
    char *path;
    int64_t size, mtime_ns;
} seen;

struct ml_follow {
    ml_ranks *rs;
    VEC(char *) dirs;       /* the directory inputs */
    VEC(size_t) dir_input;  /* their index among the server's inputs */
    ml_follow_opts o;
    int ino;                /* inotify descriptor, -1: polling */
    int wake[2];            /* a pipe: ml_follow_stop wakes the thread */
    pthread_t thread;
    VEC(seen) before;       /* the files of the listing before */
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Watches dir and the folders below it (inotify_add_watch keeps one watch
 * per folder however often it is asked); false when the kernel's limit is
 * reached: then polling. */
static bool watch_tree(ml_follow *f, const char *dir, int depth)
{
    if (inotify_add_watch(f->ino, dir, WATCH_MASK) < 0) return errno != ENOSPC && errno != ENOMEM;
    if (depth >= MAX_WATCH_DEPTH) return true;
    DIR *d = opendir(dir);
    if (!d) return true;
    struct dirent *de;
    bool ok = true;
    while (ok && (de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        size_t n = strlen(dir) + strlen(de->d_name) + 2;
        char *child = ml_malloc(n);
        snprintf(child, n, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode)) ok = watch_tree(f, child, depth + 1);
        free(child);
    }
    closedir(d);
    return ok;
}

static const seen *seen_before(const ml_follow *f, const char *path)
{
    for (size_t i = 0; i < f->before.len; i++)
        if (!strcmp(f->before.v[i].path, path)) return &f->before.v[i];
    return NULL;
}

/* One listing: the settled units to the ranks; true while some file is not settled yet. */
static bool scan(ml_follow *f)
{
    ml_unit_list l = {0};
    ml_err e = {{0}};
    bool pending = false;
    VEC(seen) now = {0};
    if (ml_units_list((const char *const *)f->dirs.v, f->dirs.len, &l, &e) == 0) {
        int64_t t = now_ns(), settle = (int64_t)f->o.settle_ms * 1000000;
        ml_unit_list settled = {0};
        settled.logdir = -1;
        for (size_t i = 0; i < l.units.len; i++) {
            ml_unit *u = &l.units.v[i];
            struct stat st;
            if (stat(u->path, &st) != 0) continue;
            int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
            int64_t size = S_ISDIR(st.st_mode) ? u->bytes : (int64_t)st.st_size;
            const seen *b = seen_before(f, u->path);
            VEC_PUSH(&now, ((seen){ml_strdup(u->path), size, mt}));
            if (!b || b->size != size || b->mtime_ns != mt || t - mt < settle) {
                pending = true;
                if (!ml_ranks_has(f->rs, u->path)) continue; /* not whole yet */
            }
            ml_unit x = *u;
            x.input = f->dir_input.v[u->input];
            VEC_PUSH(&settled.units, x);
        }
        ml_ranks_sync(f->rs, &settled);
        VEC_FREE(&settled.units); /* the units' strings are l's */
    }
    ml_unit_list_free(&l);
    for (size_t i = 0; i < f->before.len; i++) free(f->before.v[i].path);
    VEC_FREE(&f->before);
    f->before.v = now.v, f->before.len = now.len, f->before.cap = now.cap;
    return pending;
}

static void *run(void *arg)
{
    ml_follow *f = arg;
    bool pending = true; /* the first listing is the one the server began with: settle it */
    for (;;) {
        struct pollfd p[2] = {{f->wake[0], POLLIN, 0}, {f->ino, POLLIN, 0}};
        int wait = f->ino < 0 || pending ? (pending && f->o.settle_ms / 2 < f->o.interval_ms ? f->o.settle_ms / 2 : f->o.interval_ms)
                                         : -1;
        int r = poll(p, f->ino >= 0 ? 2 : 1, wait < 50 ? 50 : wait);
        if (r > 0 && (p[0].revents & POLLIN)) break;
        if (r > 0 && (p[1].revents & POLLIN)) {
            char buf[16384];
            while (read(f->ino, buf, sizeof buf) > 0) {} /* what changed does not matter: list again */
            for (size_t i = 0; i < f->dirs.len; i++) watch_tree(f, f->dirs.v[i], 0); /* new folders too */
        }
        pending = scan(f);
    }
    return NULL;
}

ml_follow *ml_follow_start(ml_ranks *rs, const char *const *inputs, size_t n, const ml_follow_opts *o)
{
    ml_follow *f = ml_calloc(1, sizeof *f);
    f->rs = rs;
    f->o = o ? *o : (ml_follow_opts){0};
    if (f->o.interval_ms <= 0) f->o.interval_ms = 2000;
    if (f->o.settle_ms <= 0) f->o.settle_ms = 1000;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        char *dir = NULL;
        const char *span;
        if (ml_logdir_split(inputs[i], &dir, &span)) { free(dir); continue; } /* a span is fixed */
        if (strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            VEC_PUSH(&f->dirs, ml_strdup(inputs[i]));
            VEC_PUSH(&f->dir_input, i);
        }
    }
    if (!f->dirs.len || pipe(f->wake) != 0) {
        VEC_FREE(&f->dirs);
        VEC_FREE(&f->dir_input);
        free(f);
        return NULL;
    }
    f->ino = f->o.no_inotify ? -1 : inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    for (size_t i = 0; f->ino >= 0 && i < f->dirs.len; i++)
        if (!watch_tree(f, f->dirs.v[i], 0)) close(f->ino), f->ino = -1;
    scan(f); /* what is there now: seen, so that the next listing can tell what grew */
    if (pthread_create(&f->thread, NULL, run, f) != 0) {
        f->thread = 0;
        ml_follow_stop(f);
        return NULL;
    }
    ml_ranks_set_follow(rs, ml_follow_mode(f));
    return f;
}

const char *ml_follow_mode(const ml_follow *f) { return f->ino >= 0 ? "inotify" : "polling"; }

void ml_follow_stop(ml_follow *f)
{
    if (!f) return;
    if (f->thread) {
        ssize_t w = write(f->wake[1], "x", 1);
        (void)w;
        pthread_join(f->thread, NULL);
    }
    close(f->wake[0]);
    close(f->wake[1]);
    if (f->ino >= 0) close(f->ino);
    for (size_t i = 0; i < f->dirs.len; i++) free(f->dirs.v[i]);
    VEC_FREE(&f->dirs);
    VEC_FREE(&f->dir_input);
    for (size_t i = 0; i < f->before.len; i++) free(f->before.v[i].path);
    VEC_FREE(&f->before);
    free(f);
}
