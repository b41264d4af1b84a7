/*
 * spool.c — see spool.h.  Pieces are written with pwrite at an offset taken
 * under the lock, so that threads copy their bytes at the same time.
 */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

struct ml_spool {
    int fd;
    uint64_t end;
    pthread_mutex_t mu;
    int failed_errno;           /* the first write or read that failed (ml_spool_error), 0: none */
    bool failed_read;
};

/* The first failure sticks (under the lock: writers run on several threads). */
static void fail(ml_spool *s, int err, bool reading)
{
    pthread_mutex_lock(&s->mu);
    if (!s->failed_errno) s->failed_errno = err ? err : ENOSPC, s->failed_read = reading;
    pthread_mutex_unlock(&s->mu);
}

static int temp_fd(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
#endif
    size_t n = strlen(dir) + 32;
    char *path = ml_malloc(n);
    snprintf(path, n, "%s/memlens-spool-XXXXXX", dir);
    int fd2 = mkstemp(path);
    if (fd2 >= 0) unlink(path);
    free(path);
    return fd2;
}

ml_spool *ml_spool_new(void)
{
    int fd = temp_fd();
    if (fd < 0) return NULL;
    ml_spool *s = ml_calloc(1, sizeof *s);
    s->fd = fd;
    pthread_mutex_init(&s->mu, NULL);
    return s;
}

void ml_spool_free(ml_spool *s)
{
    if (!s) return;
    close(s->fd);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

ml_piece ml_spool_put(ml_spool *s, const void *bytes, size_t n)
{
    pthread_mutex_lock(&s->mu);
    ml_piece p = {s->end, n};
    s->end += n;
    pthread_mutex_unlock(&s->mu);
    const char *b = bytes;
    for (size_t done = 0; done < n;) {
        ssize_t w = pwrite(s->fd, b + done, n - done, (off_t)(p.off + done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            fail(s, w < 0 ? errno : ENOSPC, false);
            break;
        }
        done += (size_t)w;
    }
    return p;
}

static int read_at(ml_spool *s, char *buf, size_t n, uint64_t off)
{
    for (size_t done = 0; done < n;) {
        ssize_t r = pread(s->fd, buf + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        done += (size_t)r;
    }
    return 0;
}

int ml_spool_copy(ml_spool *s, ml_piece piece, FILE *f)
{
    char buf[1 << 16];
    for (uint64_t done = 0; done < piece.len;) {
        size_t n = piece.len - done < sizeof buf ? (size_t)(piece.len - done) : sizeof buf;
        if (read_at(s, buf, n, piece.off + done) < 0 || fwrite(buf, 1, n, f) != n) return -1;
        done += n;
    }
    return 0;
}

char *ml_spool_get(ml_spool *s, ml_piece piece)
{
    char *buf = ml_malloc((size_t)piece.len + 1);
    if (read_at(s, buf, (size_t)piece.len, piece.off) < 0) {
        fail(s, errno, true);
        memset(buf, 0, (size_t)piece.len);
    }
    buf[piece.len] = 0;
    return buf;
}

int ml_spool_error(ml_spool *s, ml_err *e)
{
    pthread_mutex_lock(&s->mu);
    int err = s->failed_errno;
    bool reading = s->failed_read;
    pthread_mutex_unlock(&s->mu);
    if (!err) return 0;
    if (reading) return ml_fail(e, "cannot read back a temporary file: %s", strerror(err));
    const char *dir = getenv("TMPDIR");
    return ml_fail(e, "cannot write a temporary file in %s: %s", dir && *dir ? dir : "/tmp", strerror(err));
}

FILE *ml_spool_begin(ml_spool_writer *w)
{
    w->p = NULL;
    w->n = 0;
    w->f = open_memstream(&w->p, &w->n);
    if (!w->f) ml_fatal("out of memory (a spool piece)");
    return w->f;
}

ml_piece ml_spool_end(ml_spool_writer *w, ml_spool *s)
{
    fclose(w->f);
    ml_piece pc = ml_spool_put(s, w->p, w->n);
    free(w->p);
    return pc;
}
