/* outfile.c — the destination of `-o`: atomic files, streams; see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

bool ml_outfile_no_tmpfile = false;

struct ml_outfile_sink {
    int fd;                     /* plain writes go here */
    gzFile gz;                  /* or through gzip (on a dup of fd) */
    FILE *to;                   /* or, for "-" on a stream without a descriptor, here */
    z_stream *zs;               /* (through gzip: deflating into `to`) */
    int err;                    /* the first write error's errno */
};

static bool is_gz(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* The name messages give the target. */
static const char *shown(const char *path) { return strcmp(path, "-") == 0 ? "<stdout>" : path; }

/* Deflates in[0..n) into s->to (flush: Z_NO_FLUSH or Z_FINISH); 0, or -1 with s->err set. */
static int deflate_to(ml_outfile_sink *s, const char *in, size_t n, int flush)
{
    unsigned char out[16384];
    s->zs->next_in = (unsigned char *)in;
    s->zs->avail_in = (uInt)n;
    int r;
    do {
        s->zs->next_out = out;
        s->zs->avail_out = sizeof out;
        r = deflate(s->zs, flush);
        if (r == Z_STREAM_ERROR) { s->err = EIO; return -1; }
        size_t have = sizeof out - s->zs->avail_out;
        if (have && fwrite(out, 1, have, s->to) != have) { s->err = errno ? errno : EIO; return -1; }
    } while (s->zs->avail_out == 0 || (flush == Z_FINISH && r != Z_STREAM_END));
    return 0;
}

/* A write to the caller's stream (s->to), plain or through gzip. */
static ssize_t stream_write(ml_outfile_sink *s, const char *buf, size_t n)
{
    if (s->zs) {
        for (size_t done = 0; done < n;) { /* avail_in is 32 bits */
            size_t k = n - done < (1u << 30) ? n - done : (1u << 30);
            if (deflate_to(s, buf + done, k, Z_NO_FLUSH) < 0) { errno = s->err; return -1; }
            done += k;
        }
        return (ssize_t)n;
    }
    if (fwrite(buf, 1, n, s->to) != n) {
        s->err = errno ? errno : EIO;
        errno = s->err;
        return -1;
    }
    return (ssize_t)n;
}

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
    ml_outfile_sink *s = cookie;
    if (s->err) {
        errno = s->err;
        return -1;
    }
    if (!n) return 0;
    if (s->to) return stream_write(s, buf, n);
    if (s->gz) {
        int w = gzwrite(s->gz, buf, (unsigned)n);
        if (w > 0) return w;
        int en = errno, zerr = 0;
        gzerror(s->gz, &zerr);
        s->err = zerr == Z_ERRNO && en ? en : EIO;
        errno = s->err;
        return -1;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(s->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            s->err = w < 0 ? errno : EIO;
            errno = s->err;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int sink_close(void *cookie)
{
    ml_outfile_sink *s = cookie;
    if (s->zs) {
        if (!s->err) deflate_to(s, NULL, 0, Z_FINISH);
        deflateEnd(s->zs);
        free(s->zs);
        s->zs = NULL;
    }
    if (s->to && !s->err && fflush(s->to) != 0) s->err = errno ? errno : EIO;
    if (s->gz) {
        errno = 0;
        int r = gzclose(s->gz); /* flushes the rest; closes the dup */
        if (r != Z_OK && !s->err) s->err = r == Z_ERRNO && errno ? errno : EIO;
        s->gz = NULL;
    }
    return s->err ? -1 : 0;
}

/* The mode fopen(path, "w") would create the file with. */
static mode_t default_mode(void)
{
    mode_t mask = umask(0); /* reading the umask means setting it: put it back at once */
    umask(mask);
    return 0666 & ~mask;
}

/* path's final target, following symbolic links (a dangling one included):
 * *st is filled and *exists set when it exists. */
static char *resolve(const char *path, struct stat *st, bool *exists, ml_err *e)
{
    char *cur = ml_strdup(path);
    for (int hops = 0;; hops++) {
        if (lstat(cur, st) != 0) {
            if (errno == ENOENT) {
                *exists = false;
                return cur;
            }
            ml_fail(e, "%s: cannot write there: %s", path, strerror(errno));
            break;
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = true;
            return cur;
        }
        if (hops >= 40) {
            ml_fail(e, "%s: cannot write there: %s", path, strerror(ELOOP));
            break;
        }
        size_t cap = (size_t)st->st_size + 2 > 256 ? (size_t)st->st_size + 2 : 256;
        char *to = ml_malloc(cap);
        ssize_t n = readlink(cur, to, cap - 1);
        if (n < 0) {
            ml_fail(e, "%s: cannot read the link: %s", path, strerror(errno));
            free(to);
            break;
        }
        to[n] = 0;
        if (to[0] != '/') { /* relative to the link's own directory */
            const char *slash = strrchr(cur, '/');
            if (slash) {
                size_t d = (size_t)(slash - cur) + 1;
                char *j = ml_malloc(d + (size_t)n + 1);
                memcpy(j, cur, d);
                memcpy(j + d, to, (size_t)n + 1);
                free(to);
                to = j;
            }
        }
        free(cur);
        cur = to;
    }
    free(cur);
    return NULL;
}

/* The directory holding path ("." when it names none). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return ml_strdup(".");
    if (slash == path) return ml_strdup("/");
    size_t n = (size_t)(slash - path);
    char *d = ml_malloc(n + 1);
    memcpy(d, path, n);
    d[n] = 0;
    return d;
}

static void proc_path(char *buf, size_t cap, int fd) { snprintf(buf, cap, "/proc/self/fd/%d", fd); }

/* An unnamed file in final's directory that can be linked in later, or -1. */
static int open_anon(const char *final)
{
#ifdef O_TMPFILE
    if (ml_outfile_no_tmpfile) return -1;
    char *dir = dir_of(final);
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    free(dir);
    if (fd < 0) return -1;
    char pp[64];
    proc_path(pp, sizeof pp, fd);
    if (access(pp, F_OK) != 0) { /* no /proc: linkat could not name it */
        close(fd);
        return -1;
    }
    return fd;
#else
    (void)final;
    return -1;
#endif
}

/* final.tmp.XXXXXX with a fresh suffix (not yet created). */
static char *tmp_name(const char *final)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static unsigned long counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long v = (unsigned long long)ts.tv_nsec * 2654435761u ^ (unsigned long long)getpid() << 20 ^ ++counter * 0x9E3779B97F4A7C15ull;
    size_t n = strlen(final);
    char *t = ml_malloc(n + 16);
    memcpy(t, final, n);
    memcpy(t + n, ".tmp.", 5);
    for (int i = 0; i < 6; i++, v /= 62) t[n + 5 + i] = digits[v % 62];
    t[n + 11] = 0;
    return t;
}

/* Wraps fd, or the stream `to` when given, in o->f (and gzip when gz). */
static int make_stream(ml_outfile *o, bool gz, FILE *to, ml_err *e)
{
    o->sink = ml_calloc(1, sizeof *o->sink);
    o->sink->fd = o->fd;
    o->sink->to = to;
    if (gz && to) {
        o->sink->zs = ml_calloc(1, sizeof *o->sink->zs);
        if (deflateInit2(o->sink->zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) { /* +16: a gzip header */
            free(o->sink->zs);
            o->sink->zs = NULL;
            return ml_fail(e, "%s: cannot open for writing: %s", shown(o->path), strerror(ENOMEM));
        }
    } else if (gz) {
        int d = dup(o->fd);
        o->sink->gz = d >= 0 ? gzdopen(d, "wb6") : NULL;
        if (!o->sink->gz) {
            if (d >= 0) close(d);
            return ml_fail(e, "%s: cannot open for writing: %s", shown(o->path), strerror(errno ? errno : ENOMEM));
        }
    }
    cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
    o->f = fopencookie(o->sink, "w", io);
    if (!o->f) {
        if (o->sink->gz) gzclose(o->sink->gz);
        if (o->sink->zs) { deflateEnd(o->sink->zs); free(o->sink->zs); }
        return ml_fail(e, "%s: cannot open for writing: %s", shown(o->path), strerror(errno));
    }
    return 0;
}

static void ignore_sigpipe(ml_outfile *o)
{
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    o->sigpipe_saved = sigaction(SIGPIPE, NULL, &o->old_pipe) == 0;
    /* a handler the program installed (memlens's main: a closed stdout is a
     * quiet exit) decides for itself; only the default, death, is replaced */
    if (o->sigpipe_saved && o->old_pipe.sa_handler != SIG_DFL) {
        o->sigpipe_saved = false;
        return;
    }
    o->sigpipe_saved = sigaction(SIGPIPE, &ign, &o->old_pipe) == 0;
}

/* Releases everything; removes a named temporary file. */
static void cleanup(ml_outfile *o)
{
    if (o->sigpipe_saved) sigaction(SIGPIPE, &o->old_pipe, NULL);
    if (o->tmp) unlink(o->tmp);
    if (o->fd >= 0 && !o->borrowed) close(o->fd);
    free(o->sink);
    free(o->tmp);
    free(o->final);
    free(o->path);
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

int ml_outfile_open_as(ml_outfile *o, const char *path, int gz_want, FILE *std, ml_err *e)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->path = ml_strdup(path);
    bool gz = gz_want < 0 ? is_gz(path) : gz_want > 0;
    if (strcmp(path, "-") == 0) {
        /* The command's output: its descriptor written through when it has
         * one (the program's stdout, a file), else the stream itself (an
         * embedder's open_memstream). */
        if (!std) {
            ml_fail(e, "<stdout>: no output stream given");
            goto fail;
        }
        fflush(std);
        int fd = fileno(std);
        if (fd >= 0 && fcntl(fd, F_GETFL) < 0) {
            ml_fail(e, "<stdout>: standard output is closed");
            goto fail;
        }
        o->fd = fd;
        o->borrowed = true;
        ignore_sigpipe(o);
        if (make_stream(o, gz, fd >= 0 ? NULL : std, e) < 0) goto fail;
        return 0;
    }
    struct stat st;
    bool exists;
    o->final = resolve(path, &st, &exists, e);
    if (!o->final) goto fail;
    if (exists && S_ISDIR(st.st_mode)) {
        ml_fail(e, "%s: is a directory", path);
        goto fail;
    }
    if (exists && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
        /* Written straight through, as a shell's > would: never renamed over. */
        ignore_sigpipe(o);
        o->fd = open(o->final, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        struct stat now;
        if (o->fd < 0 || fstat(o->fd, &now) != 0) {
            ml_fail(e, "%s: cannot open for writing: %s", path, strerror(errno));
            goto fail;
        }
        if (!S_ISFIFO(now.st_mode) && !S_ISCHR(now.st_mode) && !S_ISBLK(now.st_mode)) {
            ml_fail(e, "%s: changed while being opened", path);
            goto fail;
        }
        free(o->final);
        o->final = NULL;
        if (make_stream(o, gz, NULL, e) < 0) goto fail;
        return 0;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        ml_fail(e, "%s: not a file, FIFO or device (a socket?): cannot write there", path);
        goto fail;
    }
    mode_t mode = exists ? st.st_mode & 0777 : default_mode();
    o->fd = open_anon(o->final);
    if (o->fd >= 0) o->anon = true;
    else {
        size_t n = strlen(o->final);
        o->tmp = ml_malloc(n + 16);
        snprintf(o->tmp, n + 16, "%s.tmp.XXXXXX", o->final);
        o->fd = mkostemp(o->tmp, O_CLOEXEC);
        if (o->fd < 0) {
            ml_fail(e, "%s: cannot create a file there: %s", path, strerror(errno));
            free(o->tmp);
            o->tmp = NULL;
            goto fail;
        }
    }
    if (fchmod(o->fd, mode) != 0) {
        ml_fail(e, "%s: cannot set the file's mode: %s", path, strerror(errno));
        goto fail;
    }
    if (make_stream(o, gz, NULL, e) < 0) goto fail;
    return 0;
fail:
    cleanup(o);
    return -1;
}

int ml_outfile_open(ml_outfile *o, const char *path, FILE *std, ml_err *e)
{
    return ml_outfile_open_as(o, path, -1, std, e);
}

/* Gives the unnamed file a name beside the final target. */
static int link_anon(ml_outfile *o, ml_err *e)
{
    char pp[64];
    proc_path(pp, sizeof pp, o->fd);
    for (int tries = 0; tries < 100; tries++) {
        char *t = tmp_name(o->final);
        if (linkat(AT_FDCWD, pp, AT_FDCWD, t, AT_SYMLINK_FOLLOW) == 0) {
            o->tmp = t;
            return 0;
        }
        int en = errno;
        free(t);
        if (en != EEXIST) return ml_fail(e, "%s: cannot put the file in place: %s", o->path, strerror(en));
    }
    return ml_fail(e, "%s: cannot put the file in place: %s", o->path, strerror(EEXIST));
}

int ml_outfile_close(ml_outfile *o, bool ok, ml_err *e)
{
    int rc = 0;
    const char *name = shown(o->path);
    if (o->f) {
        int fc = fclose(o->f); /* flushes through sink_write; sink_close ends gzip */
        o->f = NULL;
        if (o->sink->err) rc = ml_fail(e, "%s: write failed: %s", name, strerror(o->sink->err));
        else if (fc != 0) rc = ml_fail(e, "%s: write failed: %s", name, strerror(errno));
    }
    if (!ok && rc == 0) rc = -1; /* the caller's own failure, already in e */
    if (rc == 0 && o->anon) rc = link_anon(o, e); /* needs the descriptor still open */
    if (o->fd >= 0 && !o->borrowed) { /* a file, FIFO or device: close reports delayed errors (NFS, devices) */
        int c = close(o->fd);
        int en = errno;
        o->fd = -1;
        if (c != 0 && rc == 0 && en != EINTR) rc = ml_fail(e, "%s: write failed: %s", name, strerror(en));
    }
    if (rc == 0 && o->final && o->tmp) {
        if (rename(o->tmp, o->final) != 0) rc = ml_fail(e, "%s: cannot rename into place: %s", name, strerror(errno));
        else {
            free(o->tmp);
            o->tmp = NULL;
        }
    }
    cleanup(o);
    return rc;
}
