/*
 * outfile.h — writing an output file whole or not at all.
 *
 * The content goes to a temporary file beside the target (same directory, so
 * the rename stays on one file system), gzip-compressed when the target ends
 * in .gz, and is renamed over the target only once it is complete: a reader
 * never sees half a file, and a failed write leaves no file behind.  The file
 * gets the mode a plain fopen would give it (0666 less the umask), not
 * mkstemp's 0600.  Used by `report` and `export`.
 */
#ifndef ML_OUTFILE_H
#define ML_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

typedef struct ml_outfile {
    char *path;                 /* the target */
    char *tmp;                  /* the temporary file being written */
    FILE *f;                    /* write here */
} ml_outfile;

/* Creates the temporary file.  On failure the error names path. */
int ml_outfile_open(ml_outfile *o, const char *path, ml_err *e);

/* Closes the file and, if ok and every write succeeded, renames it onto the
 * target; otherwise removes it.  Returns 0 only when the target was written.
 * A failed write, close or rename is reported in e, naming the target; with
 * !ok alone, e is left as the caller set it. */
int ml_outfile_close(ml_outfile *o, bool ok, ml_err *e);

#endif
