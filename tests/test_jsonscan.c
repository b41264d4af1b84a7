/* Unit tests of the streaming JSON scanner: every construct, leniencies, malformed input. */
#include "check.h"
#include "jsonscan.h"

#include <stdlib.h>
#include <zlib.h>

typedef struct scan {
    ml_source *src;
    js_scanner *js;
} scan;

static scan open_str(const char *s, size_t n)
{
    scan sc;
    sc.src = ml_source_from_memory("t.json", s, n);
    sc.js = js_open(sc.src);
    return sc;
}

static void close_scan(scan *sc)
{
    js_close(sc->js);
    ml_source_close(sc->src);
}

/* Tokens of a whole document as a compact string: {k:s,n,[t f n]} etc. */
static void tokens(const char *doc, char *out, size_t cap)
{
    scan sc = open_str(doc, strlen(doc));
    size_t w = 0;
    for (;;) {
        js_tok t = js_next(sc.js);
        size_t n;
        const char *txt;
        char one[64];
        switch (t) {
        case JS_ERROR: snprintf(one, sizeof one, "ERR"); break;
        case JS_END: snprintf(one, sizeof one, "END"); break;
        case JS_OBJECT: snprintf(one, sizeof one, "{"); break;
        case JS_OBJECT_END: snprintf(one, sizeof one, "}"); break;
        case JS_ARRAY: snprintf(one, sizeof one, "["); break;
        case JS_ARRAY_END: snprintf(one, sizeof one, "]"); break;
        case JS_KEY: txt = js_unescape(sc.js, &n); snprintf(one, sizeof one, "k:%.*s", (int)n, txt); break;
        case JS_STRING: txt = js_unescape(sc.js, &n); snprintf(one, sizeof one, "s:%.*s", (int)n, txt); break;
        case JS_NUMBER: txt = js_text(sc.js, &n); snprintf(one, sizeof one, "n:%.*s", (int)n, txt); break;
        case JS_TRUE: snprintf(one, sizeof one, "T"); break;
        case JS_FALSE: snprintf(one, sizeof one, "F"); break;
        case JS_NULL: snprintf(one, sizeof one, "N"); break;
        }
        w += (size_t)snprintf(out + w, cap - w, "%s%s", w ? " " : "", one);
        if (t == JS_ERROR || t == JS_END || w >= cap) break;
    }
    close_scan(&sc);
}

static char buf[4096];

TEST(objects_arrays_scalars)
{
    tokens("{\"a\": [1, -2.5e3, \"x\", true, false, null], \"b\": {}}", buf, sizeof buf);
    CHECK_EQ_STR(buf, "{ k:a [ n:1 n:-2.5e3 s:x T F N ] k:b { } } END");
}

TEST(bare_array_and_whitespace)
{
    tokens(" \r\n\t[ ]  \n", buf, sizeof buf);
    CHECK_EQ_STR(buf, "[ ] END");
}

TEST(trailing_commas_are_accepted)
{
    tokens("{\"a\": [1, 2,], \"b\": 3,}", buf, sizeof buf);
    CHECK_EQ_STR(buf, "{ k:a [ n:1 n:2 ] k:b n:3 } END");
}

TEST(missing_final_brackets_between_elements)
{
    scan sc = open_str("{\"traceEvents\": [{\"a\": 1}, {\"b\": 2},", 36);
    js_tok t;
    int objects = 0;
    while ((t = js_next(sc.js)) != JS_END && t != JS_ERROR)
        if (t == JS_OBJECT) objects++;
    CHECK_EQ_I64(t, JS_END);
    CHECK_EQ_I64(objects, 3);
    CHECK(js_truncated(sc.js));
    close_scan(&sc);
}

TEST(escapes_and_utf8)
{
    tokens("[\"a\\\"b\", \"tab\\tnl\\n\", \"\\u00e9\\u4e2d\", \"\\ud83d\\ude00\", \"caf\xc3\xa9\", \"\\\\\"]", buf, sizeof buf);
    CHECK_EQ_STR(buf, "[ s:a\"b s:tab\tnl\n s:\xc3\xa9\xe4\xb8\xad s:\xf0\x9f\x98\x80 s:caf\xc3\xa9 s:\\ ] END");
}

TEST(lone_surrogate_becomes_replacement_char)
{
    tokens("[\"\\ud800x\"]", buf, sizeof buf);
    CHECK_EQ_STR(buf, "[ s:\xef\xbf\xbdx ] END");
}

TEST(nan_and_infinity_as_numbers)
{
    tokens("[NaN, Infinity, -Infinity]", buf, sizeof buf);
    CHECK_EQ_STR(buf, "[ n:NaN n:Infinity n:-Infinity ] END");
}

TEST(skip_jumps_over_nested_values)
{
    const char *doc = "{\"skip\": {\"x\": [1, {\"y\": \"]}\\\"\"}], \"z\": {}}, \"keep\": 7}";
    scan sc = open_str(doc, strlen(doc));
    CHECK_EQ_I64(js_next(sc.js), JS_OBJECT);
    CHECK_EQ_I64(js_next(sc.js), JS_KEY);
    CHECK_EQ_I64(js_skip(sc.js), 0);
    CHECK_EQ_I64(js_next(sc.js), JS_KEY);
    size_t n;
    const char *k = js_unescape(sc.js, &n);
    CHECK(n == 4 && memcmp(k, "keep", 4) == 0);
    CHECK_EQ_I64(js_next(sc.js), JS_NUMBER);
    CHECK_EQ_I64(js_next(sc.js), JS_OBJECT_END);
    CHECK_EQ_I64(js_next(sc.js), JS_END);
    close_scan(&sc);
}

TEST(skip_rest_of_container)
{
    const char *doc = "[{\"a\": 1, \"b\": [2, 3], \"c\": \"}\"}, 5]";
    scan sc = open_str(doc, strlen(doc));
    CHECK_EQ_I64(js_next(sc.js), JS_ARRAY);
    CHECK_EQ_I64(js_next(sc.js), JS_OBJECT);
    CHECK_EQ_I64(js_next(sc.js), JS_KEY);
    CHECK_EQ_I64(js_skip_rest(sc.js), 0);
    CHECK_EQ_I64(js_next(sc.js), JS_NUMBER);
    CHECK_EQ_I64(js_next(sc.js), JS_ARRAY_END);
    close_scan(&sc);
}

static const char *error_of(const char *doc, size_t n)
{
    static char msg[ML_ERR_MAX];
    scan sc = open_str(doc, n);
    js_tok t;
    while ((t = js_next(sc.js)) != JS_END && t != JS_ERROR) {}
    snprintf(msg, sizeof msg, "%s", t == JS_ERROR ? js_error(sc.js) : "no error");
    close_scan(&sc);
    return msg;
}

TEST(malformed_input_names_file_and_byte)
{
    CHECK_EQ_STR(error_of("", 0), "t.json: byte 0: the input is empty");
    CHECK_EQ_STR(error_of("{\"a\" 1}", 7), "t.json: byte 5: expected ':' after a key, found '1'");
    CHECK_EQ_STR(error_of("[1 2]", 5), "t.json: byte 3: expected ',' or ']', found '2'");
    CHECK_CONTAINS(error_of("{\"a\": \"abc", 10), "the file ends inside a string");
    CHECK_CONTAINS(error_of("{\"a\": 1", 7), "t.json: byte 7: the file ends inside an object");
    CHECK_CONTAINS(error_of("[1] x", 5), "byte 4: unexpected data after the end");
    CHECK_CONTAINS(error_of("{1: 2}", 6), "byte 1: expected a key string");
    CHECK_CONTAINS(error_of("[tru]", 5), "unexpected character 't'");
    CHECK_EQ_STR(error_of("[-x]", 4), "t.json: byte 1: unexpected '-'");
    CHECK_CONTAINS(error_of("\x1f\x8b\x08", 3), "gzip");
}

TEST(deep_nesting_is_refused_not_crashed)
{
    size_t n = 100000;
    char *doc = malloc(n);
    memset(doc, '[', n);
    CHECK_CONTAINS(error_of(doc, n), "nesting deeper than 512 levels");
    /* js_skip over a deep value counts depth too */
    doc[0] = '{';
    memcpy(doc, "{\"a\":", 5);
    scan sc = open_str(doc, n);
    CHECK_EQ_I64(js_next(sc.js), JS_OBJECT);
    CHECK_EQ_I64(js_next(sc.js), JS_KEY);
    CHECK_EQ_I64(js_skip(sc.js), -1);
    CHECK_CONTAINS(js_error(sc.js), "nesting deeper");
    close_scan(&sc);
    free(doc);
}

TEST(ten_megabyte_string_spans_buffers)
{
    size_t n = 10u << 20;
    char *doc = malloc(n + 16);
    doc[0] = '[';
    doc[1] = '"';
    memset(doc + 2, 'x', n);
    memcpy(doc + 2 + n, "\", 42]", 6);
    scan sc = open_str(doc, n + 8);
    CHECK_EQ_I64(js_next(sc.js), JS_ARRAY);
    CHECK_EQ_I64(js_next(sc.js), JS_STRING);
    size_t len;
    js_text(sc.js, &len);
    CHECK_EQ_I64(len, n);
    CHECK_EQ_I64(js_next(sc.js), JS_NUMBER);
    CHECK_EQ_I64(js_offset(sc.js), n + 5); /* ["<n>", 42] */
    CHECK_EQ_I64(js_next(sc.js), JS_ARRAY_END);
    close_scan(&sc);
    free(doc);
}

TEST(gzip_stream_is_decoded)
{
    const char *doc = "{\"k\": [\"v\", 1]}";
    unsigned char gz[256];
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (unsigned char *)doc;
    z.avail_in = (uInt)strlen(doc);
    z.next_out = gz;
    z.avail_out = sizeof gz;
    deflate(&z, Z_FINISH);
    size_t gzlen = sizeof gz - z.avail_out;
    deflateEnd(&z);
    char b[256];
    scan sc = open_str((const char *)gz, gzlen);
    size_t w = 0;
    js_tok t;
    while ((t = js_next(sc.js)) > JS_END) w += (size_t)snprintf(b + w, sizeof b - w, "%d", t);
    CHECK_EQ_I64(t, JS_END);
    CHECK_EQ_STR(b, "1536742"); /* { key [ string number ] } */
    close_scan(&sc);
    /* the same stream cut short is an error naming gzip */
    CHECK_CONTAINS(error_of((const char *)gz, gzlen - 6), "gzip");
}

int main(void)
{
    RUN(objects_arrays_scalars);
    RUN(bare_array_and_whitespace);
    RUN(trailing_commas_are_accepted);
    RUN(missing_final_brackets_between_elements);
    RUN(escapes_and_utf8);
    RUN(lone_surrogate_becomes_replacement_char);
    RUN(nan_and_infinity_as_numbers);
    RUN(skip_jumps_over_nested_values);
    RUN(skip_rest_of_container);
    RUN(malformed_input_names_file_and_byte);
    RUN(deep_nesting_is_refused_not_crashed);
    RUN(ten_megabyte_string_spans_buffers);
    RUN(gzip_stream_is_decoded);
    return check_report();
}
