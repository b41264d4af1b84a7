/* Unit tests of the streaming JSON scanner: every construct, leniencies, malformed input. */
#include "check.h"
#include "decimal.h"
#include "jsonscan.h"

#include <stdlib.h>
#include <unistd.h>
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
static const char *error_of(const char *doc, size_t n);

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

/* Scans doc to its end, calling js_allow_cut() right after the first '['
 * (as the Kineto importer does for its event list).  The message of the
 * error, or "truncated" / "complete". */
static const char *cut_result(const char *doc)
{
    static char msg[ML_ERR_MAX];
    scan sc = open_str(doc, strlen(doc));
    js_tok t;
    bool marked = false;
    while ((t = js_next(sc.js)) != JS_END && t != JS_ERROR)
        if (t == JS_ARRAY && !marked) js_allow_cut(sc.js), marked = true;
    snprintf(msg, sizeof msg, "%s", t == JS_ERROR ? js_error(sc.js) : js_truncated(sc.js) ? "truncated" : "complete");
    close_scan(&sc);
    return msg;
}

TEST(missing_final_brackets_between_elements)
{
    scan sc = open_str("{\"traceEvents\": [{\"a\": 1}, {\"b\": 2},", 36);
    js_tok t;
    int objects = 0;
    while ((t = js_next(sc.js)) != JS_END && t != JS_ERROR) {
        if (t == JS_OBJECT) objects++;
        if (t == JS_ARRAY) js_allow_cut(sc.js);
    }
    CHECK_EQ_I64(t, JS_END);
    CHECK_EQ_I64(objects, 3);
    CHECK(js_truncated(sc.js));
    CHECK(js_ended_after_comma(sc.js, "oa"));
    close_scan(&sc);
}

TEST(an_early_end_is_accepted_only_in_or_right_after_the_marked_list)
{
    CHECK_EQ_STR(cut_result("{\"traceEvents\": [{\"a\": 1}]}"), "complete");
    CHECK_EQ_STR(cut_result("{\"traceEvents\": [{\"a\": 1}, {\"b\": 2}"), "truncated"); /* no ',' */
    CHECK_EQ_STR(cut_result("{\"traceEvents\": [{\"a\": 1}]"), "truncated");              /* no final '}' */
    CHECK_EQ_STR(cut_result("{\"traceEvents\": [{\"a\": 1}],\n"), "truncated");
    CHECK_EQ_STR(cut_result("[{\"a\": 1},"), "truncated");                                   /* a bare list */
    /* anywhere else: an error at the byte where the input ends */
    CHECK_EQ_STR(cut_result("{\"traceEvents\": [{\"a\": 1}], \"x\": 1"),
                 "t.json: byte 34: the file ends inside an object (truncated?)");
    CHECK_EQ_STR(cut_result("{\"traceEvents\": [{\"a\": 1}], \"x\": [1,"),
                 "t.json: byte 36: the file ends where a value is due (truncated?)");
    CHECK_EQ_STR(cut_result("{\"traceEvents\": [{\"args\": [1, 2,"),
                 "t.json: byte 32: the file ends where a value is due (truncated?)");
    CHECK_EQ_STR(cut_result("{\"traceEvents\": [{\"a\": 1"),
                 "t.json: byte 24: the file ends inside an object (truncated?)");
    /* without js_allow_cut() no array may end early */
    CHECK_EQ_STR(error_of("{\"deviceProperties\": [{\"id\": 0, \"name\": \"G\"},", 45),
                 "t.json: byte 45: the file ends where a value is due (truncated?)");
}

TEST(byte_order_mark_is_skipped_at_the_start_only)
{
    tokens("\xef\xbb\xbf [1]", buf, sizeof buf);
    CHECK_EQ_STR(buf, "[ n:1 ] END");
    CHECK_CONTAINS(error_of("[\xef\xbb\xbf" "1]", 6), "byte 1: unexpected character");
    CHECK_CONTAINS(error_of("\xef\xbb", 2), "byte 0: unexpected character");
}

TEST(skip_checks_that_brackets_match)
{
    const char *docs[] = {"{\"x\": [1}, \"y\": 2}", "{\"x\": {\"a\": [1, 2]]}, \"y\": 2}"};
    const char *want[] = {"t.json: byte 8: expected ']', found '}'", "t.json: byte 18: expected '}', found ']'"};
    for (int i = 0; i < 2; i++) {
        scan sc = open_str(docs[i], strlen(docs[i]));
        CHECK_EQ_I64(js_next(sc.js), JS_OBJECT);
        CHECK_EQ_I64(js_next(sc.js), JS_KEY);
        CHECK_EQ_I64(js_skip(sc.js), -1);
        CHECK_EQ_STR(js_error(sc.js), want[i]);
        close_scan(&sc);
    }
    /* js_skip_rest too */
    scan sc = open_str("[{\"a\": [1, 2}]", 14);
    CHECK_EQ_I64(js_next(sc.js), JS_ARRAY);
    CHECK_EQ_I64(js_next(sc.js), JS_OBJECT);
    CHECK_EQ_I64(js_skip_rest(sc.js), -1);
    CHECK_EQ_STR(js_error(sc.js), "t.json: byte 12: expected ']', found '}'");
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

/* ---- number values ---- */

typedef struct num_case {
    const char *text;   /* as written in the JSON */
    int scale;
    int result;         /* js_value_number()'s return */
    int64_t value;
} num_case;

static const num_case num_cases[] = {
    {"123.456", 3, 1, 123456},                                  /* µs with 3 decimals: exact ns */
    {"1736408883694624.810", 3, 1, 1736408883694624810LL},      /* 19 digits: beyond the fast decoding */
    {"\"1736408883694624.810\t\"", 3, 1, 1736408883694624810LL}, /* a string holding one, a tab after */
    {"\" 42.5 \"", 1, 1, 425},
    {"0.0019", 3, 1, 1},                                        /* digits beyond the scale: truncated */
    {"-0.0005", 3, 1, 0},
    {"-12.5", 3, 1, -12500},
    {"-2.5e3", 0, 1, -2500},
    {"1.5E-2", 3, 1, 15},
    {"7e18", 0, 1, 7000000000000000000LL},
    {"123456789012345678", 0, 1, 123456789012345678LL},       /* 18 digits: the fast path's limit */
    {"1234567890123456789", 0, 1, 1234567890123456789LL},     /* 19 */
    {"9223372036854775807", 0, 1, INT64_MAX},
    {"-9223372036854775808", 0, 1, INT64_MIN},
    {"9223372036854775808", 0, JS_NUM_RANGE, 0},
    {"123456789012345678", 3, JS_NUM_RANGE, 0},
    {"12345678901234567890123", 0, JS_NUM_RANGE, 0},
    {"1e400", 0, JS_NUM_RANGE, 0},
    {"1e-400", 3, 1, 0},
    {"0", 3, 1, 0},
    {"\"abc\"", 3, 0, 0},
    {"true", 3, 0, 0},
    {"null", 3, 0, 0},
    {"NaN", 3, 0, 0},
    {"{\"a\": [1]}", 3, 0, 0},                                   /* skipped whole */
    {"[1, 2]", 3, 0, 0},
};
#define NUM_CASES (sizeof num_cases / sizeof *num_cases)

/* Reads [case, case, ..., 99] with js_value_number(); pad adds that many
 * blanks at the end, so that more than 256 bytes stay buffered and the fused
 * fast paths run (without it, the short input takes the slow path). */
static void check_number_values(size_t pad)
{
    char doc[8192];
    size_t w = (size_t)snprintf(doc, sizeof doc, "[");
    for (size_t i = 0; i < NUM_CASES; i++) w += (size_t)snprintf(doc + w, sizeof doc - w, "%s, ", num_cases[i].text);
    w += (size_t)snprintf(doc + w, sizeof doc - w, "99]%*s", (int)pad, "");
    scan sc = open_str(doc, w);
    CHECK_EQ_I64(js_next(sc.js), JS_ARRAY);
    for (size_t i = 0; i < NUM_CASES; i++) {
        int64_t v = 0;
        int r = js_value_number(sc.js, num_cases[i].scale, &v);
        if (r != num_cases[i].result || (r == 1 && v != num_cases[i].value))
            CHECK_FAILED_("pad %zu: %s (scale %d): %d, %lld; expected %d, %lld", pad, num_cases[i].text,
                          num_cases[i].scale, r, (long long)v, num_cases[i].result, (long long)num_cases[i].value);
    }
    int64_t v;
    CHECK_EQ_I64(js_value_number(sc.js, 0, &v), 1);
    CHECK_EQ_I64(v, 99);
    CHECK_EQ_I64(js_next(sc.js), JS_ARRAY_END);
    CHECK_EQ_I64(js_next(sc.js), JS_END);
    close_scan(&sc);
}

TEST(number_values_slow_path) { check_number_values(0); }
TEST(number_values_fast_path) { check_number_values(300); }

TEST(js_number_after_js_next)
{
    scan sc = open_str("[0.001, -7, 2.5e-1, 100000000000000000000]", 42);
    int64_t v;
    CHECK_EQ_I64(js_next(sc.js), JS_ARRAY);
    CHECK_EQ_I64(js_next(sc.js), JS_NUMBER);
    CHECK_EQ_I64(js_number(sc.js, 3, &v), 0);
    CHECK_EQ_I64(v, 1);
    CHECK_EQ_I64(js_number(sc.js, 9, &v), 0);
    CHECK_EQ_I64(v, 1000000);
    CHECK_EQ_I64(js_next(sc.js), JS_NUMBER);
    CHECK_EQ_I64(js_number(sc.js, 0, &v), 0);
    CHECK_EQ_I64(v, -7);
    CHECK_EQ_I64(js_next(sc.js), JS_NUMBER);
    CHECK_EQ_I64(js_number(sc.js, 2, &v), 0);
    CHECK_EQ_I64(v, 25);
    CHECK_EQ_I64(js_next(sc.js), JS_NUMBER);
    CHECK_EQ_I64(js_number(sc.js, 0, &v), ML_PARSE_RANGE);
    close_scan(&sc);
}

/* ---- the same results whatever the reads deliver ---- */

/* A document of `n` objects exercising every construct, with whitespace of
 * every kind, long enough for the fast paths when read whole. */
static char *make_doc(int n, size_t *len)
{
    static const char *nums[] = {"1", "-2.5", "1736408883694624.810", "3.25e2", "123456789012345678901", "0.001",
                                 "-9223372036854775808", "42"};
    static const char *strs[] = {"plain", "with \\\"escapes\\\" and \\\\", "caf\\u00e9 \\ud83d\\ude00", "]}{[",
                                 "", "tab\\there"};
    size_t cap = 1 << 20, w = 0;
    char *d = malloc(cap);
    w += (size_t)snprintf(d + w, cap - w, "{\"traceEvents\": [\n");
    for (int i = 0; i < n; i++) {
        const char *sep = i % 3 == 0 ? " " : i % 3 == 1 ? "\n    " : "\t\r\n";
        w += (size_t)snprintf(d + w, cap - w,
                              "%s{\"n\":%s%s,%s\"s\": \"%s\", \"k\": {\"x\": [1, {\"y\": \"]}\\\"\"}, []], \"z\": {}},"
                              "%s\"a\" : [%s, \"%s\", true, false, null,],\"t\": \"%s\" , \"e\\u0041\": %d}%s\n",
                              i ? "," : "", sep, nums[i % 8], sep, strs[i % 6], sep, nums[(i + 3) % 8], strs[(i + 1) % 6],
                              nums[(i + 5) % 8], i, i == n - 1 ? "," : "");
    }
    w += (size_t)snprintf(d + w, cap - w, "],\n\"tail\": [NaN, -Infinity, 1e5]}\n");
    *len = w;
    return d;
}

/* Walks a value with the fused reads where an importer would (keys, and
 * values by key name) and js_next elsewhere; appends what it saw to out.
 * Returns the first token (JS_ARRAY_END: the enclosing array ended). */
static js_tok walk(js_scanner *js, char *out, size_t cap, size_t *w)
{
#define PUT(...) (*w += (size_t)snprintf(out + *w, *w < cap ? cap - *w : 0, __VA_ARGS__))
    js_tok t = js_next(js);
    size_t m;
    const char *s;
    switch (t) {
    case JS_OBJECT: {
        const char *key;
        size_t n;
        int more, r = 0;
        PUT("{");
        while ((more = js_key(js, &key, &n)) > 0) {
            PUT("%.*s:", (int)n, key);
            char k = n ? key[0] : 0;
            int64_t v = 0;
            if (n == 1 && (k == 'n' || k == 't')) r = js_value_number(js, 3, &v), PUT("%d/%lld ", r, (long long)v);
            else if (n == 1 && k == 's') r = js_value_string(js, &s, &m), PUT("%d/%.*s ", r, r > 0 ? (int)m : 0, r > 0 ? s : "");
            else if (n == 1 && k == 'k') r = js_skip(js), PUT("%d ", r);
            else if (n > 1 && k == 'e') r = js_value_scalar_text(js, &s, &m), PUT("%d/%.*s ", r, r > 0 ? (int)m : 0, r > 0 ? s : "");
            else if (walk(js, out, cap, w) == JS_ERROR) return JS_ERROR;
            if (r < 0) break;
        }
        if (more < 0 || r < 0) {
            PUT("ERR:%s", js_error(js));
            return JS_ERROR;
        }
        PUT("}");
        break;
    }
    case JS_ARRAY: {
        js_tok u;
        PUT("[");
        while ((u = walk(js, out, cap, w)) != JS_ARRAY_END)
            if (u == JS_ERROR || u == JS_END) return u;
        PUT("]");
        break;
    }
    case JS_STRING: s = js_unescape(js, &m); PUT("s:%.*s ", (int)m, s); break;
    case JS_NUMBER: s = js_text(js, &m); PUT("n:%.*s ", (int)m, s); break;
    case JS_TRUE: PUT("T "); break;
    case JS_FALSE: PUT("F "); break;
    case JS_NULL: PUT("N "); break;
    case JS_END: PUT("END"); break;
    case JS_ERROR: PUT("ERR:%s", js_error(js)); break;
    default: break;
    }
    return t;
#undef PUT
}

static char *digest_named(const char *name, const char *doc, size_t len, size_t max_read)
{
    size_t cap = 1 << 20, w = 0;
    char *out = malloc(cap);
    ml_source *src = ml_source_from_memory(name, doc, len);
    if (max_read) ml_source_limit_reads(src, max_read);
    js_scanner *js = js_open(src);
    walk(js, out, cap, &w);
    walk(js, out, cap, &w); /* then the end */
    js_close(js);
    ml_source_close(src);
    return out;
}

static char *digest(const char *doc, size_t len, size_t max_read)
{
    return digest_named("t.json", doc, len, max_read);
}

TEST(tokens_split_across_refills_read_the_same)
{
    size_t len;
    char *doc = make_doc(60, &len);
    char *whole = digest(doc, len, 0);
    /* what the whole read saw, in a few places (the expected values by hand) */
    CHECK_CONTAINS(whole, "{traceEvents:[{n:1/1000 s:1/plain k:0 a:[n:3.25e2 s:with \"escapes\" and \\ T F N ]t:1/1 "
                          "e\\u0041:1/0 }");
    CHECK_CONTAINS(whole, "{n:1/1736408883694624810 s:1/caf\xc3\xa9 \xf0\x9f\x98\x80 k:0 a:[n:0.001 s:]}{[ T F N ]");
    CHECK_CONTAINS(whole, "{n:1/325000 s:1/]}{[ k:0 ");
    CHECK_CONTAINS(whole, "{n:2/0 s:1/ k:0 a:[n:42 s:tab\there T F N ]t:1/-2500 e\\u0041:1/4 }"); /* 21 digits: no fit */
    CHECK_CONTAINS(whole, "{n:2/0 s:1/plain k:0 a:[n:-2.5 ");  /* -2^63 at scale 3 does not fit either */
    CHECK_CONTAINS(whole, "tail:[n:NaN n:-Infinity n:1e5 ]}END");
    CHECK(!strstr(whole, "ERR"));
    for (size_t max = 1; max <= 7; max += 6) {
        char *split = digest(doc, len, max);
        if (strcmp(split, whole) != 0) {
            size_t i = 0;
            while (split[i] == whole[i]) i++;
            CHECK_FAILED_("reads of at most %zu bytes differ at %zu: ...%.60s", max, i, split + (i > 20 ? i - 20 : 0));
        }
        free(split);
    }
    free(whole);
    free(doc);
}


/* ---- plain files, read in place (ml_source_map) ---- */

static char *file_of(const char *doc, size_t n)
{
    char *path = strdup("/tmp/memlens-test-jsonscan-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, doc, n) != (ssize_t)n) CHECK_FAILED_("cannot write %s", path);
    if (fd >= 0) close(fd);
    return path;
}

static char *digest_file(const char *path)
{
    size_t cap = 1 << 20, w = 0;
    char *out = malloc(cap);
    ml_source *src;
    ml_err e;
    if (ml_source_open(path, &src, &e) < 0) {
        CHECK_FAILED_("%s", e.msg);
        out[0] = 0;
        return out;
    }
    js_scanner *js = js_open(src);
    walk(js, out, cap, &w);
    walk(js, out, cap, &w);
    js_close(js);
    ml_source_close(src);
    return out;
}

TEST(a_file_read_in_place_reads_as_through_a_buffer)
{
    /* sizes that end exactly at a page (what follows is not the file's), and not */
    size_t len;
    char *doc = make_doc(60, &len);
    size_t page = 4096, padded = (len + page - 1) / page * page;
    char *big = malloc(padded + 1);
    memcpy(big, doc, len);
    memset(big + len, ' ', padded - len);
    size_t sizes[] = {padded, len};
    for (int k = 0; k < 2; k++) {
        char *path = file_of(big, sizes[k]);
        char *want = digest_named(path, big, sizes[k], 0), *got = digest_file(path);
        CHECK(strcmp(got, want) == 0);
        CHECK(!strstr(got, "ERR"));
        free(want);
        free(got);
        unlink(path);
        free(path);
    }
    /* cut right at a page's end, inside a value: the error names the same byte */
    char *cut = malloc(page);
    memset(cut, ' ', page);
    memcpy(cut, "{\"traceEvents\": [1, 2, \"abc", 27);
    memset(cut + 27, 'x', page - 27);
    char *path = file_of(cut, page);
    char *want = digest_named(path, cut, page, 0), *got = digest_file(path);
    CHECK(strcmp(got, want) == 0);
    CHECK_CONTAINS(got, "byte 23: the file ends inside a string"); /* (where it began) */
    unlink(path);
    free(path);
    free(want);
    free(got);
    free(cut);
    free(big);
    free(doc);
}

/* ---- gzip ---- */

static unsigned char *gzip_of(const char *doc, size_t n, size_t *gzlen)
{
    size_t cap = n + 1024;
    unsigned char *gz = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (unsigned char *)doc;
    z.avail_in = (uInt)n;
    z.next_out = gz;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    *gzlen = cap - z.avail_out;
    deflateEnd(&z);
    return gz;
}

TEST(corrupt_gzip_reports_the_inflater_or_an_uncompressed_byte)
{
    size_t len, gzlen;
    char *doc = make_doc(200, &len);
    unsigned char *gz = gzip_of(doc, len, &gzlen);
    int gzip_errors = 0, json_errors = 0;
    for (size_t at = 20; at + 8 < gzlen; at += gzlen / 23) {
        gz[at] ^= 0x10;
        const char *msg = error_of((const char *)gz, gzlen);
        if (!strncmp(msg, "t.json: gzip: ", 14)) gzip_errors++;
        else if (!strncmp(msg, "t.json: uncompressed byte ", 26)) json_errors++;
        else CHECK_FAILED_("flip at %zu: %s", at, msg);
        gz[at] ^= 0x10;
    }
    CHECK(gzip_errors > 0);
    CHECK_EQ_STR(error_of((const char *)gz, gzlen), "no error");
    free(gz);
    free(doc);
    (void)json_errors;
}

int main(void)
{
    RUN(objects_arrays_scalars);
    RUN(bare_array_and_whitespace);
    RUN(trailing_commas_are_accepted);
    RUN(missing_final_brackets_between_elements);
    RUN(an_early_end_is_accepted_only_in_or_right_after_the_marked_list);
    RUN(byte_order_mark_is_skipped_at_the_start_only);
    RUN(skip_checks_that_brackets_match);
    RUN(number_values_slow_path);
    RUN(number_values_fast_path);
    RUN(js_number_after_js_next);
    RUN(tokens_split_across_refills_read_the_same);
    RUN(a_file_read_in_place_reads_as_through_a_buffer);
    RUN(corrupt_gzip_reports_the_inflater_or_an_uncompressed_byte);
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
