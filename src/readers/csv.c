/* csv.c — streaming CSV records and exact decimals; see csv.h. */
#include "csv.h"
#include "decimal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"

/* A record longer than this is not a CSV we know how to read: refuse it
 * rather than grow without bound on a binary file. */
#define MAX_RECORD (64u << 20)
#define BUF_SIZE (64u << 10)

struct ml_csv {
    ml_source *src;
    unsigned char *buf;
    size_t pos, end;
    bool eof;
    VEC(char) text;             /* current record: cells back to back, each NUL-terminated */
    VEC(size_t) cell_start;     /* cell -> offset in text */
    VEC(size_t) cell_len;
    char **header;              /* header cells, copied */
    size_t nheader;
    uint64_t line;              /* line the reader is on (1-based) */
    uint64_t rec_line;          /* line the current record starts on */
};

/* Next byte, -1 at end of input, -2 on a read error (message in e). */
static int next_byte(ml_csv *c, ml_err *e)
{
    if (c->pos == c->end) {
        if (c->eof) return -1;
        ssize_t n = ml_source_read(c->src, c->buf, BUF_SIZE, e);
        if (n < 0) return -2;
        if (n == 0) { c->eof = true; return -1; }
        c->pos = 0;
        c->end = (size_t)n;
    }
    return c->buf[c->pos++];
}

/* The next byte without consuming it, or -1/-2 as next_byte. */
static int peek_byte(ml_csv *c, ml_err *e)
{
    int b = next_byte(c, e);
    if (b >= 0) c->pos--;
    return b;
}

static void end_cell(ml_csv *c, size_t start)
{
    /* Trim spaces and tabs at both ends (Ascend's "...624.810\t"). */
    size_t a = start, b = c->text.len;
    while (a < b && (c->text.v[a] == ' ' || c->text.v[a] == '\t')) a++;
    while (b > a && (c->text.v[b - 1] == ' ' || c->text.v[b - 1] == '\t')) b--;
    VEC_PUSH(&c->cell_start, a);
    VEC_PUSH(&c->cell_len, b - a);
    c->text.len = b;
    VEC_PUSH(&c->text, '\0');
}

/* Reads one raw record into text/cells: 1, 0 at end of input, -1 on error. */
static int read_record(ml_csv *c, ml_err *e)
{
    c->text.len = c->cell_start.len = c->cell_len.len = 0;
    c->rec_line = c->line;
    int b = next_byte(c, e);
    if (b == -2) return -1;
    if (b == -1) return 0;
    size_t start = 0;
    for (;;) {
        if (c->text.len > MAX_RECORD)
            return ml_fail(e, "%s: line %llu: record longer than %u MiB; is this a CSV file?",
                           ml_source_name(c->src), (unsigned long long)c->rec_line, MAX_RECORD >> 20);
        if (b == -2) return -1;
        if (b == '"' && c->text.len == start) {
            /* Quoted cell: "" is a quote; anything else, line breaks too, is text. */
            for (;;) {
                b = next_byte(c, e);
                if (b == -2) return -1;
                if (b == -1)
                    return ml_fail(e, "%s: line %llu: quoted cell not closed before the end of the file",
                                   ml_source_name(c->src), (unsigned long long)c->rec_line);
                if (b == '"') {
                    int q = peek_byte(c, e);
                    if (q == -2) return -1;
                    if (q != '"') break;
                    c->pos++;
                } else if (b == '\n') {
                    c->line++;
                }
                VEC_PUSH(&c->text, (char)b);
                if (c->text.len > MAX_RECORD) break;
            }
            b = next_byte(c, e);
            continue;
        }
        if (b == ',') {
            end_cell(c, start);
            start = c->text.len;
        } else if (b == '\n' || b == '\r' || b == -1) {
            end_cell(c, start);
            if (b == '\r') {
                int q = peek_byte(c, e);
                if (q == -2) return -1;
                if (q == '\n') c->pos++;
            }
            if (b != -1) c->line++;
            return 1;
        } else {
            VEC_PUSH(&c->text, (char)b);
        }
        b = next_byte(c, e);
    }
}

int ml_csv_open(ml_source *src, ml_csv **out, ml_err *e)
{
    ml_csv *c = ml_calloc(1, sizeof *c);
    c->src = src;
    c->buf = ml_malloc(BUF_SIZE);
    c->line = 1;
    *out = NULL;
    /* Skip a UTF-8 byte order mark. */
    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, 3, e);
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) {
        unsigned char bom[3];
        if (ml_source_read(src, bom, 3, e) != 3) { ml_csv_close(c); return -1; }
    }
    int r;
    do {
        r = read_record(c, e);
    } while (r == 1 && c->cell_start.len == 1 && c->cell_len.v[0] == 0);
    if (r <= 0) {
        if (r == 0) ml_fail(e, "%s: empty file: no CSV header", ml_source_name(src));
        ml_csv_close(c);
        return -1;
    }
    c->nheader = c->cell_start.len;
    c->header = ml_calloc(c->nheader, sizeof *c->header);
    for (size_t i = 0; i < c->nheader; i++)
        c->header[i] = ml_strdup(c->text.v + c->cell_start.v[i]);
    *out = c;
    return 0;
}

void ml_csv_close(ml_csv *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->nheader; i++) free(c->header[i]);
    free(c->header);
    free(c->buf);
    VEC_FREE(&c->text);
    VEC_FREE(&c->cell_start);
    VEC_FREE(&c->cell_len);
    free(c);
}

int ml_csv_col(const ml_csv *c, const char *name)
{
    for (size_t i = 0; i < c->nheader; i++)
        if (strcmp(c->header[i], name) == 0) return (int)i;
    return -1;
}

int ml_csv_need(const ml_csv *c, const char *name, int *col, ml_err *e)
{
    *col = ml_csv_col(c, name);
    if (*col < 0) return ml_fail(e, "%s: line 1: missing column '%s'", ml_source_name(c->src), name);
    return 0;
}

size_t ml_csv_ncols(const ml_csv *c) { return c->nheader; }

const char *ml_csv_header(const ml_csv *c, int col)
{
    return col >= 0 && (size_t)col < c->nheader ? c->header[col] : "";
}

int ml_csv_next(ml_csv *c, ml_err *e)
{
    for (;;) {
        int r = read_record(c, e);
        if (r <= 0) return r;
        if (c->cell_start.len == 1 && c->cell_len.v[0] == 0) continue; /* blank line */
        if (c->cell_start.len != c->nheader)
            return ml_fail(e, "%s: line %llu: %zu cells, but the header has %zu columns",
                           ml_source_name(c->src), (unsigned long long)c->rec_line,
                           c->cell_start.len, c->nheader);
        return 1;
    }
}

const char *ml_csv_cell(const ml_csv *c, int col, size_t *len)
{
    if (col < 0 || (size_t)col >= c->cell_start.len) {
        if (len) *len = 0;
        return "";
    }
    if (len) *len = c->cell_len.v[col];
    return c->text.v + c->cell_start.v[col];
}

uint64_t ml_csv_line(const ml_csv *c) { return c->rec_line; }
const char *ml_csv_name(const ml_csv *c) { return ml_source_name(c->src); }

int ml_csv_scaled(const ml_csv *c, int col, int64_t mul, int64_t *out, bool *blank, ml_err *e)
{
    size_t n;
    const char *s = ml_csv_cell(c, col, &n);
    *out = 0;
    if (blank) *blank = n == 0;
    if (n == 0) {
        if (blank) return 0;
        return ml_fail(e, "%s: line %llu: column '%s' is empty", ml_source_name(c->src),
                       (unsigned long long)c->rec_line, ml_csv_header(c, col));
    }
    if (ml_parse_units(s, n, mul, out) == 0) return 0;
    /* Quote at most 40 bytes of the cell, control bytes shown as '?'. */
    char shown[44];
    size_t k = 0;
    for (; k < n && k < 40; k++) shown[k] = (s[k] >= 0 && s[k] < 0x20) || s[k] == 0x7f ? '?' : s[k];
    if (n > 40) shown[k++] = '.', shown[k++] = '.', shown[k++] = '.';
    shown[k] = 0;
    return ml_fail(e, "%s: line %llu: column '%s': '%s' is not a number (or out of range)",
                   ml_source_name(c->src), (unsigned long long)c->rec_line, ml_csv_header(c, col), shown);
}

