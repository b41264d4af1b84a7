/*
 * jsonscan.h — a streaming JSON tokenizer (pull parser) that never builds a tree.
 *
 * The caller asks for one token at a time and skips whole values it does not
 * need with js_skip(), which counts brackets and jumps over strings with
 * memchr without decoding them.  A plain file is read in place
 * (ml_source_map: no copy by read(2)), its pages let go behind the array
 * elements js_peek_element() hands out; other input goes through a buffer of
 * a few hundred KiB whatever its size (it grows only to hold a single huge
 * token, up to 512 MiB; a mapped file's tokens are there whatever their size).
 *
 * Leniencies that real profiler files need: trailing commas before ] or },
 * a UTF-8 byte order mark before the value, and a file that ends early inside
 * the one array the caller marked with js_allow_cut() (a trace whose writer
 * died before the closing "]}"): js_truncated() then returns true.  An early
 * end anywhere else is an error.  Closing brackets must match their opening
 * ones, in skipped values too.
 *
 * Errors name the input and the byte offset.  For gzip input the offset counts
 * uncompressed bytes, and when the inflater finds the stream corrupt (garbage
 * often trips the scanner first) its error is reported instead.
 *
 * Text returned by js_text() points into the buffer and is valid until the
 * next call; it is the raw token (string contents without quotes, escapes not
 * decoded) — use js_unescape() when the value may contain backslashes.
 */
#ifndef ML_JSONSCAN_H
#define ML_JSONSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "source.h"

typedef enum {
    JS_ERROR = -1,
    JS_END = 0,          /* the top-level value is complete (or the file ended between array elements) */
    JS_OBJECT,           /* { */
    JS_OBJECT_END,       /* } */
    JS_ARRAY,            /* [ */
    JS_ARRAY_END,        /* ] */
    JS_KEY,              /* "name" : — the next token is its value */
    JS_STRING,
    JS_NUMBER,
    JS_TRUE,
    JS_FALSE,
    JS_NULL
} js_tok;

#define JS_MAX_DEPTH 512

typedef struct js_scanner js_scanner;

js_scanner *js_open(ml_source *src);
void js_close(js_scanner *s);

/* A scanner that starts inside containers, as if `stack` had been opened
 * ("oa": an object, and an array inside it) and an element is due next;
 * reported offsets count from `base`.  For parsing the second half of a file. */
js_scanner *js_open_inside(ml_source *src, uint64_t base, const char *stack);
/* After JS_END on input that ended early: whether it ended right where the
 * next element of containers `stack` was due (after a comma). */
bool js_ended_after_comma(const js_scanner *s, const char *stack);

/* Lets the input end early inside the array just opened (the innermost open
 * container): between its elements, or right after its closing ']' (a
 * missing final '}'), before any other token.  One array at a time. */
void js_allow_cut(js_scanner *s);

js_tok js_next(js_scanner *s);
/* Skips the next value entirely (call after JS_KEY, or where an array element
 * is due).  Returns 0, or -1 on error. */
int js_skip(js_scanner *s);
/* Skips the rest of the container the last token is inside of, including its
 * closing bracket. */
int js_skip_rest(js_scanner *s);

/* Fused reads for importers' inner loops (fast when the input is plain):
 *   js_key: the next key of the current object: 1 (key text, raw), 0 at its
 *     end ('}' consumed, or an early end js_allow_cut() allows), -1 on error.
 *   js_value_number: the value as a number times 10^scale (a JSON number, or a
 *     string holding one, blanks trimmed): 1 if read, JS_NUM_RANGE if it is a
 *     number that does not fit in int64, 0 if it had another type (skipped
 *     whole), -1 on error.
 *   js_value_string: the value as a decoded string: 1, 0 (other type, skipped), -1.
 *   js_value_scalar_text: a string's raw text or a number's text: 1, 0, -1.
 * Text stays valid until the next call. */
enum { JS_NUM_RANGE = 2 };
int js_key(js_scanner *s, const char **key, size_t *len);
int js_value_number(js_scanner *s, int scale, int64_t *out);
int js_value_string(js_scanner *s, const char **text, size_t *len);
int js_value_scalar_text(js_scanner *s, const char **text, size_t *len);

/* For a caller that recognises whole values itself (after JS_KEY): the
 * buffered input from the next value on (blanks before it skipped; *avail
 * bytes, at least a few hundred), or NULL when that is not at hand (then use
 * the calls above).  text[*avail] is a NUL, and 16 bytes past it may be
 * read.  Valid until the next call.  js_consume_value() then
 * consumes the n bytes of one complete, valid value found there. */
const char *js_peek_value(js_scanner *s, size_t *avail);
void js_consume_value(js_scanner *s, size_t n);

/* The same for whole elements of an array (a trace's events): where the
 * next element of the array the scanner is in is due (after its '[' or
 * after an element: a comma between is looked past), the buffered input
 * from the element's first byte on (*avail bytes; the buffer is topped up
 * to 64 KiB ahead first), or NULL when no element is due there (the end of
 * the array, a missing comma: leave them to js_next()).  Same guarantees
 * as js_peek_value().  js_consume_element() then consumes the comma and
 * the n bytes of one complete, valid element found there; js_offset() is
 * then the element's first byte, as after js_next() read its '{'. */
const char *js_peek_element(js_scanner *s, size_t *avail);
void js_consume_element(js_scanner *s, size_t n);

/* Raw text of the last JS_KEY, JS_STRING or JS_NUMBER. */
const char *js_text(const js_scanner *s, size_t *len);
/* The last number (or string holding one) times 10^scale, exactly; digits
 * beyond the scale are truncated.  0, -1 if it is not a number, or
 * ML_PARSE_RANGE (decimal.h) if it does not fit in int64.
 * Fast for the usual -?digits[.digits] shape (decoded while lexing). */
int js_number(const js_scanner *s, int scale, int64_t *out);
/* Whether the last string/key contained a backslash. */
bool js_has_escape(const js_scanner *s);
/* Decodes escapes (\n, \uXXXX incl. surrogate pairs) of the last string into
 * a scanner-owned buffer valid until the next call.  Invalid escapes are kept
 * as written. */
const char *js_unescape(js_scanner *s, size_t *len);

int js_depth(const js_scanner *s);
/* Whether all of the input has been read into the scanner. */
bool js_input_ended(const js_scanner *s);
bool js_truncated(const js_scanner *s);
/* Byte offset (in the decoded input) of the start of the last token. */
uint64_t js_offset(const js_scanner *s);

/* After JS_ERROR (or a -1 from the other calls): the message ("name: byte N: what"). */
const char *js_error(const js_scanner *s);
/* An error the caller found in the input (a value of the wrong type ...), at
 * the last token or at byte `off`: the scanner fails with that message, in
 * the same form, and it goes into e.  Returns -1. */
int js_fail(js_scanner *s, ml_err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int js_fail_at(js_scanner *s, ml_err *e, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
