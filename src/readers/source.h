/*
 * source.h — a byte stream from a file, stdin, or either of them gzipped.
 *
 * Readers pull bytes with ml_source_read(); gzip is detected by its magic
 * bytes (not the file name) and inflated on a second thread into a ring of
 * buffers, so that parsing and inflating overlap on two cores.
 * ml_source_offset() is the count of (decompressed) bytes handed out so far,
 * which readers use to name positions in error messages.
 */
#ifndef ML_SOURCE_H
#define ML_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

typedef struct ml_source ml_source;

/* Opens path ("-" = stdin).  Fails with "path: reason". */
int ml_source_open(const char *path, ml_source **out, ml_err *e);
/* Bytes [offset, offset+length) of a plain file, no gzip detection: lets
 * two threads parse two halves of one big file. */
int ml_source_open_range(const char *path, uint64_t offset, uint64_t length, ml_source **out, ml_err *e);
/* The size of the file behind s if it is a plain (not gzip) regular file
 * opened by path, else -1. */
int64_t ml_source_plain_size(const ml_source *s);
/* The rest of the input in memory, for a reader that parses in place
 * (mapview.h): a plain regular file opened by path (mapped), or a memory
 * source; NULL for anything else (gzip, stdin, a range, reads limited for
 * tests), which is then read.  Nothing more is read from s after. */
struct ml_mapview *ml_source_mapview(ml_source *s);
/* The rest of a plain regular file opened by path (or of a range of one)
 * in memory, for a reader that parses it in place rather than copy it by
 * read(2): *len bytes at the pointer returned, then at least
 * ML_SOURCE_MAP_PAD bytes that may be read and written (a private mapping:
 * what the reader writes stays its own, e.g. a NUL after the data).  NULL
 * for anything else (gzip, stdin, memory, limits set, reads limited for
 * tests): read it then.  Nothing more is read from s after.  The pages a
 * reader is done with count in its RSS until ml_source_map_done() lets
 * those before `upto` go (every MB or so); the mapping goes with
 * ml_source_close(). */
#define ML_SOURCE_MAP_PAD 64
char *ml_source_map(ml_source *s, size_t *len);
void ml_source_map_done(ml_source *s, size_t upto);
/* A source over memory (tests, fuzzers); the bytes must outlive the source. */
ml_source *ml_source_from_memory(const char *name, const void *data, size_t n);

/* Copies up to n bytes into buf.  Returns the count, 0 at end of input, -1 on
 * error (corrupt gzip, I/O error) with the message in e. */
ssize_t ml_source_read(ml_source *s, void *buf, size_t n, ml_err *e);

/* The first bytes of the decoded stream, without consuming them (for format
 * detection).  Returns how many are available (<= want; fewer only at EOF). */
size_t ml_source_peek(ml_source *s, const unsigned char **bytes, size_t want, ml_err *e);

/* Reads and discards the rest of the input, to learn whether it is intact:
 * 0, or -1 with the error (for gzip: a corrupt or cut stream, a bad checksum). */
int ml_source_drain(ml_source *s, ml_err *e);

/* Limits on what one input may hold, for inputs from strangers (uploads to
 * `memlens serve`): max_bytes of decoded (decompressed) input, after which a
 * read fails with "NAME: more than N bytes once decompressed (HINT)"; and
 * max_value, the longest single value (a JSON string or number) a reader
 * may buffer (jsonscan.h; 0 = its own limit).  The hints (may be NULL) go
 * in parentheses after the errors: whose limit it is, how to raise it.  Set
 * right after opening, before the first read. */
typedef struct ml_input_limits {
    uint64_t max_bytes;          /* 0 = no limit */
    size_t max_value;            /* 0 = the reader's own */
    const char *bytes_hint, *value_hint;
} ml_input_limits;
void ml_source_set_limits(ml_source *s, const ml_input_limits *lim);
/* max_value of the limits set (0 = none set), and its hint (or NULL). */
size_t ml_source_max_value(const ml_source *s);
const char *ml_source_value_hint(const ml_source *s);

/* For tests of readers: from now on each read returns at most 1..max bytes
 * (varying), so that tokens are split across refills. */
void ml_source_limit_reads(ml_source *s, size_t max);

const char *ml_source_name(const ml_source *s);  /* the path as given, "<stdin>" for "-" */
int ml_source_is_gzip(const ml_source *s);
uint64_t ml_source_offset(const ml_source *s);   /* decoded bytes consumed so far */
void ml_source_close(ml_source *s);

#endif
