/*
 * outfile.h — writing an output file (`-o`) whole or not at all, the way Unix
 * tools treat their destination.  Used by `report` and `export`.
 *
 *   "-"                   the command's output (the stream the caller gives:
 *                         the program's stdout, an embedder's own), written
 *                         straight through: to its descriptor when it has
 *                         one, else into the stream.
 *   a regular file, or    the content goes to a temporary file in the same
 *   no file yet           directory (so a rename stays on one file system),
 *                         which is renamed over the target only once complete:
 *                         a reader never sees half a file and a failed write
 *                         leaves none behind.  Where the system allows it the
 *                         temporary file is unnamed (O_TMPFILE) until linked
 *                         beside the target just before the rename, so a run
 *                         killed even with SIGKILL leaves nothing; elsewhere it
 *                         is PATH.tmp.XXXXXX from the start.  A new file gets
 *                         the mode a plain fopen would give it (0666 less the
 *                         umask), a replaced one keeps its permission bits.
 *   a symbolic link       followed (to any depth, dangling or not): its final
 *                         target is written as above, the link stays.
 *   a FIFO or a device    opened and written straight through, never replaced.
 *   a directory, socket   an error.
 *
 * Content is gzip-compressed when the target name ends in .gz (or when asked).
 * Every write error (ENOSPC on /dev/full, EPIPE on a closed pipe: SIGPIPE is
 * ignored while such a target is open, unless the program installed its own
 * handler) is reported naming the target.
 */
#ifndef ML_OUTFILE_H
#define ML_OUTFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "err.h"

typedef struct ml_outfile_sink ml_outfile_sink;

typedef struct ml_outfile {
    char *path;                 /* the target as given: messages name it */
    char *final;                /* the file renamed onto (the link's target); NULL when written through */
    char *tmp;                  /* the named temporary file, once it has a name */
    int fd;                     /* the file written: temporary, device, FIFO or the stream's; -1 for none */
    bool borrowed;              /* fd is the caller's stream's: never closed here */
    bool anon;                  /* fd is an unnamed O_TMPFILE not linked yet */
    bool sigpipe_saved;         /* old_pipe holds SIGPIPE's disposition to restore */
    struct sigaction old_pipe;
    ml_outfile_sink *sink;      /* where f's bytes go (and the first write error) */
    FILE *f;                    /* write here */
} ml_outfile;

/* Opens the destination; std is where "-" writes (the command's output,
 * cli.h ml_cli_io.out; NULL where "-" is refused).  On failure the error names path. */
int ml_outfile_open(ml_outfile *o, const char *path, FILE *std, ml_err *e);

/* The same, gzip-compressing when gz > 0, not when gz == 0, and by the name's
 * .gz when gz < 0 (for "-", whose name says nothing). */
int ml_outfile_open_as(ml_outfile *o, const char *path, int gz, FILE *std, ml_err *e);

/* Flushes and closes the file and, if ok and every write succeeded, puts it in
 * place (rename onto the target); otherwise removes the temporary file.
 * Returns 0 only when everything was written.  A failed write, close or rename
 * is reported in e, naming the target; with !ok alone, e is left as the caller
 * set it. */
int ml_outfile_close(ml_outfile *o, bool ok, ml_err *e);

/* For tests: when set, never use O_TMPFILE (the named-temporary fallback). */
extern bool ml_outfile_no_tmpfile;

#endif
