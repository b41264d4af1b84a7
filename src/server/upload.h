/*
 * upload.h — files uploaded to `memlens serve` (/api/upload): the temporary
 * folder they are kept in, the check of their names, and a request body
 * streamed to disk as it arrives (never held in memory, no size cap).
 *
 * The folder is made (mkdtemp under $TMPDIR, else /tmp) at the first upload
 * and removed with everything in it by ml_uploads_free (serve calls it when
 * it stops, on SIGINT/SIGTERM; no atexit hook: the library keeps no state
 * beyond its handles).  Each upload gets a subfolder of its own
 * ("N/NAME"), so two uploads of the same name never meet, and the importer
 * sees the name as given (it tells formats by name: .json.gz, .pickle...).
 * The folder's path is printed on stdout when it is made ("memlens serve:
 * uploads are kept in DIR until exit").  Thread-safe: uploads run on the server's connection threads.
 * How many are held is bounded by the server (ml_ranks_evict_uploads: the
 * least recently viewed upload's file and views go).
 */
#ifndef ML_SERVER_UPLOAD_H
#define ML_SERVER_UPLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

typedef struct ml_uploads ml_uploads;
typedef struct ml_upload ml_upload;

/* log: where the folder is announced when the first upload makes it (serve
 * passes its io->out; NULL: nowhere). */
ml_uploads *ml_uploads_new(FILE *log);
/* Removes the folder and everything in it; frees. */
void ml_uploads_free(ml_uploads *u);
/* The folder, or NULL while nothing was uploaded. */
const char *ml_uploads_dir(ml_uploads *u);

/* NULL if name is fine as a file name in the folder, else why not: empty,
 * too long, "." / "..", a '/' or '\\', a control character, a leading '.'. */
const char *ml_upload_name_problem(const char *name);

/* Starts an upload of `name` (checked by ml_upload_name_problem): creates
 * its file.  On a failure sets e and returns NULL. */
ml_upload *ml_upload_begin(ml_uploads *u, const char *name, ml_err *e);
/* Appends n bytes; -1 (e set) when the disk refuses them. */
int ml_upload_write(ml_upload *f, const void *p, size_t n, ml_err *e);
/* Closes the file; -1 (e set) if it could not be written out. */
int ml_upload_close(ml_upload *f, ml_err *e);
/* The file's path, and the part of it before the name ("DIR/N/"): the
 * importer's messages say the name as the user gave it without it. */
const char *ml_upload_path(const ml_upload *f);
const char *ml_upload_prefix(const ml_upload *f);
int64_t ml_upload_bytes(const ml_upload *f);
/* Frees; with discard, the file and its subfolder are removed too. */
void ml_upload_end(ml_upload *f, int discard);

/* Copies msg into out with every occurrence of prefix removed. */
void ml_upload_strip(const char *msg, const char *prefix, char *out, size_t cap);

#endif
