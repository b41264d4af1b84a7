/* outfile.c — temporary file, then rename; see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static bool is_gz(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

static ssize_t gz_write_fn(void *cookie, const char *buf, size_t n)
{
    if (!n) return 0;
    int w = gzwrite((gzFile)cookie, buf, (unsigned)n);
    return w > 0 ? w : -1;
}

static int gz_close_fn(void *cookie) { return gzclose((gzFile)cookie) == Z_OK ? 0 : -1; }

/* The mode fopen(path, "w") would create the file with. */
static mode_t default_mode(void)
{
    mode_t mask = umask(0); /* reading the umask means setting it: put it back at once */
    umask(mask);
    return 0666 & ~mask;
}

int ml_outfile_open(ml_outfile *o, const char *path, ml_err *e)
{
    memset(o, 0, sizeof *o);
    size_t n = strlen(path);
    o->tmp = ml_malloc(n + 16);
    snprintf(o->tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        ml_fail(e, "%s: cannot create a file there: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    if (fchmod(fd, default_mode()) != 0) {
        ml_fail(e, "%s: cannot set the file's mode: %s", path, strerror(errno));
        close(fd);
        goto fail;
    }
    if (is_gz(path)) {
        gzFile gz = gzdopen(fd, "wb6");
        cookie_io_functions_t io = {NULL, gz_write_fn, NULL, gz_close_fn};
        o->f = gz ? fopencookie(gz, "w", io) : NULL;
        if (gz && !o->f) gzclose(gz);
        if (!gz) close(fd);
    } else {
        o->f = fdopen(fd, "w");
        if (!o->f) close(fd);
    }
    if (!o->f) {
        ml_fail(e, "%s: cannot open for writing: %s", path, strerror(errno));
        goto fail;
    }
    o->path = ml_strdup(path);
    return 0;
fail:
    unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return -1;
}

int ml_outfile_close(ml_outfile *o, bool ok, ml_err *e)
{
    int rc = 0;
    if (ferror(o->f)) rc = ml_fail(e, "%s: write failed: %s", o->path, strerror(errno));
    if (fclose(o->f) != 0 && rc == 0) rc = ml_fail(e, "%s: write failed: %s", o->path, strerror(errno));
    if (!ok && rc == 0) rc = -1; /* the caller's own failure, already in e */
    if (rc == 0 && rename(o->tmp, o->path) != 0) rc = ml_fail(e, "%s: cannot rename into place: %s", o->path, strerror(errno));
    if (rc) unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    return rc;
}
