/*
 * csv.h — a streaming CSV reader over an ml_source, and exact decimal parsing.
 *
 * Reads one record at a time (RFC 4180: quoted cells with "" escapes and line
 * breaks inside, CRLF or LF, a UTF-8 BOM at the start).  The first record is
 * the header; columns are looked up by name.  Every cell is trimmed of spaces
 * and tabs at both ends, because Ascend writes times as "1736408883694624.810\t".
 *
 *     ml_csv *c;
 *     if (ml_csv_open(src, &c, e)) return -1;
 *     int size = ml_csv_col(c, "Size(KB)");
 *     while ((r = ml_csv_next(c, e)) > 0) { ... ml_csv_cell(c, size, &n) ... }
 *     ml_csv_close(c);
 *
 * Errors name the source and the line the record starts on:
 *   "operator_memory.csv: line 17: column 'Size(KB)': 'abc' is not a number".
 *
 * Numbers: ml_csv_number() reads a cell through ml_parse_units() (decimal.h):
 * an exact int64 multiple, never through a double.
 */
#ifndef ML_CSV_H
#define ML_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decimal.h"
#include "err.h"
#include "source.h"

typedef struct ml_csv ml_csv;

/* Reads the header.  Fails on an empty input or a read error.  The reader
 * does not own src. */
int ml_csv_open(ml_source *src, ml_csv **out, ml_err *e);
void ml_csv_close(ml_csv *c);

/* Column index of the header cell equal to name, or -1. */
int ml_csv_col(const ml_csv *c, const char *name);
/* Like ml_csv_col but fails with "file: line 1: missing column 'name'". */
int ml_csv_need(const ml_csv *c, const char *name, int *col, ml_err *e);
size_t ml_csv_ncols(const ml_csv *c);
const char *ml_csv_header(const ml_csv *c, int col);

/* Reads the next record: 1 = a record, 0 = end of input, -1 = error.  Blank
 * lines are skipped.  A record whose cell count differs from the header's is
 * an error. */
int ml_csv_next(ml_csv *c, ml_err *e);

/* The trimmed text of cell col of the current record (NUL-terminated), and
 * its length; "" for col < 0.  Valid until the next ml_csv_next. */
const char *ml_csv_cell(const ml_csv *c, int col, size_t *len);
/* Line on which the current record starts (1 = header). */
uint64_t ml_csv_line(const ml_csv *c);
const char *ml_csv_name(const ml_csv *c);

/* The cell as an exact integer: decimal x mul, rounded to the nearest integer
 * (ties away from zero) when the decimal has more digits than mul can absorb.
 * *blank is set (and *out = 0) for an empty cell; pass blank = NULL to make an
 * empty cell an error.  Errors name file, line, column and text. */
int ml_csv_scaled(const ml_csv *c, int col, int64_t mul, int64_t *out, bool *blank, ml_err *e);



#endif
