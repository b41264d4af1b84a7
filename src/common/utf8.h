/*
 * utf8.h — telling valid UTF-8 from bytes that only look like text.
 *
 * Names come from the input as bytes; a trace may hold any.  Outputs that
 * promise text (JSON, which must be UTF-8, and the terminal) check each
 * sequence with ml_utf8_seq and write what is not valid UTF-8 otherwise:
 * JSON as U+FFFD, the terminal as \xHH (textwidth.h).
 */
#ifndef ML_UTF8_H
#define ML_UTF8_H

#include <stddef.h>

/* The UTF-8 encoding of U+FFFD, the replacement character. */
#define ML_UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* The length (1..4) of the valid UTF-8 sequence at s, of which n bytes may
 * be read (a NUL ends the sequence too, so C strings may pass 4); 0 when s
 * does not begin one: a stray continuation byte, an overlong form, a
 * surrogate, a code point past U+10FFFF, or a sequence cut short. */
size_t ml_utf8_seq(const unsigned char *s, size_t n);

/* The code point of the valid sequence at s of length len (ml_utf8_seq). */
unsigned ml_utf8_decode(const unsigned char *s, size_t len);

#endif
