/*
 * upload.c — uploaded files, streamed into a temporary folder; see upload.h.
 */
#include "upload.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ml_uploads {
    pthread_mutex_t mu;
    char *dir;                  /* NULL until the first upload */
    unsigned next;              /* the next subfolder's number */
    FILE *log;                  /* the caller's stream for the folder's name, or NULL */
};

struct ml_upload {
    int fd;
    char *path, *prefix;
    int64_t bytes;
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (flag == FTW_DP) rmdir(path);
    else unlink(path);
    return 0;
}

static void rm_tree(const char *dir) { nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

ml_uploads *ml_uploads_new(FILE *log)
{
    ml_uploads *u = ml_calloc(1, sizeof *u);
    u->log = log;
    pthread_mutex_init(&u->mu, NULL);
    u->next = 1;
    return u;
}

void ml_uploads_free(ml_uploads *u)
{
    if (!u) return;
    if (u->dir) {
        rm_tree(u->dir);
        free(u->dir);
    }
    pthread_mutex_destroy(&u->mu);
    free(u);
}

const char *ml_uploads_dir(ml_uploads *u)
{
    pthread_mutex_lock(&u->mu);
    const char *d = u->dir;
    pthread_mutex_unlock(&u->mu);
    return d;
}

const char *ml_upload_name_problem(const char *name)
{
    if (!name || !*name) return "no file name (name=...)";
    if (strlen(name) > 200) return "file name longer than 200 bytes";
    if (!strcmp(name, ".") || !strcmp(name, "..")) return "file name is . or ..";
    if (name[0] == '.') return "file name starts with '.'";
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        if (*c == '/' || *c == '\\') return "file name holds a '/' or '\\' (a name, not a path)";
        if (*c < 0x20 || *c == 0x7f) return "file name holds a control character";
    }
    return NULL;
}

ml_upload *ml_upload_begin(ml_uploads *u, const char *name, ml_err *e)
{
    const char *why = ml_upload_name_problem(name);
    if (why) { ml_fail(e, "%s", why); return NULL; }
    pthread_mutex_lock(&u->mu);
    if (!u->dir) {
        const char *tmp = getenv("TMPDIR");
        char templ[4096];
        snprintf(templ, sizeof templ, "%s/memlens-uploads-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(templ)) {
            pthread_mutex_unlock(&u->mu);
            ml_fail(e, "cannot make a folder for uploads (%s): %s", templ, strerror(errno));
            return NULL;
        }
        u->dir = ml_strdup(templ);
        if (u->log) {
            fprintf(u->log, "memlens serve: uploads are kept in %s until exit\n", u->dir);
            fflush(u->log);
        }
    }
    unsigned k = u->next++;
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/%u", u->dir, k);
    pthread_mutex_unlock(&u->mu);
    if (mkdir(sub, 0700) != 0) {
        ml_fail(e, "cannot make %s: %s", sub, strerror(errno));
        return NULL;
    }
    ml_upload *f = ml_calloc(1, sizeof *f);
    size_t n = strlen(sub) + 1 + strlen(name) + 1;
    f->path = ml_malloc(n);
    snprintf(f->path, n, "%s/%s", sub, name);
    f->prefix = ml_strndup(f->path, strlen(sub) + 1);
    f->fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (f->fd < 0) {
        ml_fail(e, "cannot create %s: %s", f->path, strerror(errno));
        ml_upload_end(f, 1);
        return NULL;
    }
    return f;
}

int ml_upload_write(ml_upload *f, const void *p, size_t n, ml_err *e)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(f->fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return ml_fail(e, "cannot write the upload to %s: %s", f->path, w < 0 ? strerror(errno) : "disk full");
        c += w;
        n -= (size_t)w;
        f->bytes += w;
    }
    return 0;
}

int ml_upload_close(ml_upload *f, ml_err *e)
{
    int fd = f->fd;
    f->fd = -1;
    if (fd >= 0 && close(fd) != 0) return ml_fail(e, "cannot write the upload to %s: %s", f->path, strerror(errno));
    return 0;
}

const char *ml_upload_path(const ml_upload *f) { return f->path; }
const char *ml_upload_prefix(const ml_upload *f) { return f->prefix; }
int64_t ml_upload_bytes(const ml_upload *f) { return f->bytes; }

void ml_upload_end(ml_upload *f, int discard)
{
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    if (discard) {
        unlink(f->path);
        char *sub = ml_strndup(f->prefix, strlen(f->prefix) - 1);
        rmdir(sub);
        free(sub);
    }
    free(f->path);
    free(f->prefix);
    free(f);
}

void ml_upload_strip(const char *msg, const char *prefix, char *out, size_t cap)
{
    size_t pl = strlen(prefix), o = 0;
    if (!cap) return;
    while (*msg && o + 1 < cap) {
        if (pl && !strncmp(msg, prefix, pl)) { msg += pl; continue; }
        out[o++] = *msg++;
    }
    out[o] = 0;
}
