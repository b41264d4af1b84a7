/*
 * test_utf8.c — names with any bytes in them, as a hostile trace writes them:
 * common/utf8.h tells valid UTF-8; the JSON writer (jsonw.h, into a FILE or
 * a buffer, jw_verbatim too) puts U+FFFD for a byte that begins no valid sequence;
 * the terminal (textwidth.h) gets control characters and such bytes escaped.
 * The expected bytes are worked out by hand from the UTF-8 rules (RFC 3629).
 */
#include "check.h"
#include "jsonw.h"
#include "report_enc.h"
#include "textwidth.h"
#include "utf8.h"

#define U(s) ((const unsigned char *)(s))

TEST(sequences_valid_and_not)
{
    CHECK_EQ_I64(ml_utf8_seq(U("a"), 1), 1);
    CHECK_EQ_I64(ml_utf8_seq(U("\xC3\xA9"), 2), 2);         /* é */
    CHECK_EQ_I64(ml_utf8_seq(U("\xE2\x80\xA6"), 3), 3);     /* … */
    CHECK_EQ_I64(ml_utf8_seq(U("\xF0\x9F\x98\x80"), 4), 4); /* U+1F600 */
    CHECK_EQ_I64(ml_utf8_seq(U("\xFF"), 1), 0);             /* never in UTF-8 */
    CHECK_EQ_I64(ml_utf8_seq(U("\x80"), 1), 0);             /* a stray continuation byte */
    CHECK_EQ_I64(ml_utf8_seq(U("\xC0\xAF"), 2), 0);         /* overlong '/' */
    CHECK_EQ_I64(ml_utf8_seq(U("\xE0\x80\xAF"), 3), 0);     /* overlong '/' in 3 bytes */
    CHECK_EQ_I64(ml_utf8_seq(U("\xED\xA0\x80"), 3), 0);     /* U+D800, a surrogate */
    CHECK_EQ_I64(ml_utf8_seq(U("\xF4\x90\x80\x80"), 4), 0); /* U+110000, past the last */
    CHECK_EQ_I64(ml_utf8_seq(U("\xC3"), 4), 0);             /* cut short by the NUL */
    CHECK_EQ_I64(ml_utf8_seq(U("\xE2\x80"), 2), 0);         /* cut short by the length */
    CHECK_EQ_I64(ml_utf8_decode(U("\xC2\x9B"), 2), 0x9B);
}

/* What jw_str writes for s. */
static char *jw_of(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    jw w;
    jw_init(&w, f, false);
    jw_str(&w, s);
    fclose(f);
    return buf;
}

TEST(json_writers_put_the_replacement_character)
{
    /* "a" 0xFF "é" 0xC0 0xAF "\n" ESC: bad bytes one U+FFFD each, controls escaped */
    const char *in = "a\xFF\xC3\xA9\xC0\xAF\n\x1b";
    const char *want = "\"a\xEF\xBF\xBD\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD\\n\\u001b\"";
    char *got = jw_of(in);
    CHECK_EQ_STR(got, want);
    free(got);
    ml_buf b = {0};
    jw w;
    jw_init_buf(&w, &b, false);
    jw_str(&w, in);
    CHECK_EQ_STR(b.p, want);
    ml_buf_free(&b);
    /* a cut sequence at the very end */
    got = jw_of("x\xE2\x80");
    CHECK_EQ_STR(got, "\"x\xEF\xBF\xBD\xEF\xBF\xBD\"");
    free(got);
    /* JSON text kept from the input: strings inside it made valid too */
    jw_init_buf(&w, &b, false);
    jw_verbatim(&w, "[[\"\xFF\"],[\"t\x01\"],[2,3]]");
    CHECK_EQ_STR(b.p, "[[\"\xEF\xBF\xBD\"],[\"t\\u0001\"],[2,3]]");
    ml_buf_free(&b);
}

TEST(terminal_text_is_escaped)
{
    char buf[256];
    const char *clean = "aten::mm \xC2\xB5s \xE2\x80\xA6";
    CHECK(!ml_text_unsafe(clean));
    CHECK(ml_text_safe(clean, buf, sizeof buf) == clean);
    /* ESC [31m, BEL, CR, LF, TAB, DEL, a C1 CSI (U+009B), a bad byte */
    CHECK_EQ_STR(ml_text_safe("x\x1b[31mred\a\r\nFAKE\t\x7f\xC2\x9B\xFFz", buf, sizeof buf),
                 "x\\e[31mred\\a\\r\\nFAKE\\t\\x7f\\u009b\\xffz");
    CHECK_EQ_I64(ml_text_cols("a\nb"), 4); /* as shown: a \ n b */
    /* cut to its buffer with an ellipsis */
    char small[9];
    CHECK_EQ_STR(ml_text_safe("\n\n\n\n\n", small, sizeof small), "\\n\\n\xE2\x80\xA6");
    /* fitted names are escaped first, then cut */
    CHECK_EQ_STR(ml_fit("ab\ncd", 0, 0, buf, sizeof buf), "ab\\ncd");
    CHECK_EQ_STR(ml_fit("ab\ncdefgh", 5, 0, buf, sizeof buf), "ab\\n\xE2\x80\xA6");
}

/* jw_i64 writes its digits by hand: the extremes, zero and signs, in an
 * array with separators, as printf's %lld would. */
TEST(json_integers_are_written_exactly)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    jw w;
    jw_init(&w, f, false);
    jw_arr(&w);
    const int64_t v[] = {0, 7, -7, 10, -10, 1234567890123LL, INT64_MAX, INT64_MIN, INT64_MIN + 1};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) jw_i64(&w, v[i]);
    jw_end(&w);
    fclose(f);
    CHECK_EQ_STR(buf, "[0,7,-7,10,-10,1234567890123,9223372036854775807,-9223372036854775808,"
                      "-9223372036854775807]");
    free(buf);
}

/* The same calls into a FILE and into an ml_buf write the same bytes; the
 * buffer's writer is script_safe ("</" as "<\/"), the FILE's is not. */
static void write_sample(jw *w)
{
    jw_obj(w);
    jw_key(w, "name");
    jw_str(w, "a\"b\\c</script>\t\x01\xFF\xC3\xA9");
    jw_key(w, "list");
    jw_arr(w);
    jw_i64(w, -42);
    jw_i64_js(w, ((int64_t)1 << 53) + 1);
    jw_i64_js(w, -((int64_t)1 << 53));
    jw_bool(w, true);
    jw_null(w);
    jw_us(w, 98598123);
    jw_fixed(w, 2.50, 2);
    jw_dbl(w, 0.1);
    jw_verbatim(w, "[\"t\x01\xFF\"]");
    jw_obj(w);
    jw_end(w);
    jw_end(w);
    jw_key(w, "s");
    jw_str(w, NULL);
    jw_end(w);
}

TEST(json_writer_into_a_buffer)
{
    const char *want = "{\"name\":\"a\\\"b\\\\c<%sscript>\\t\\u0001\xEF\xBF\xBD\xC3\xA9\","
                       "\"list\":[-42,\"9007199254740993\",-9007199254740992,true,null,98598.123,2.5,"
                       "0.10000000000000001,[\"t\\u0001\xEF\xBF\xBD\"],{}],\"s\":null}";
    char plain[256], safe[256];
    snprintf(plain, sizeof plain, want, "/");
    snprintf(safe, sizeof safe, want, "\\/");
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    jw w;
    jw_init(&w, f, false);
    write_sample(&w);
    fclose(f);
    CHECK_EQ_STR(mem, plain);
    free(mem);
    ml_buf b = {0};
    ml_buf_puts(&b, "x"); /* appends after what the buffer holds */
    jw_init_buf(&w, &b, false);
    write_sample(&w);
    CHECK_EQ_I64((int64_t)b.len, (int64_t)strlen(safe) + 1);
    CHECK_EQ_STR(b.p + 1, safe);
    /* pretty, and a piece pasted: as one writer would have written it */
    b.len = 0;
    jw_init_buf(&w, &b, true);
    jw_arr(&w);
    jw_i64(&w, 1);
    jw_paste(&w, "2", 1);
    jw_paste(&w, "", 0);
    jw_end(&w);
    CHECK_EQ_STR(b.p, "[\n  1,2\n]\n");
    ml_buf_free(&b);
}

/* Pieces of a buffer written by other code: a value placed by its comma
 * (jw_value_begin), elements after another writer's (jw_resume), an object
 * reopened (jw_reopen), a piece made safe for <script> (jw_put_in_script). */
TEST(json_writer_pieces_in_a_buffer)
{
    ml_buf b = {0};
    jw w;
    jw_init_buf(&w, &b, false);
    jw_obj(&w);
    jw_key(&w, "a");
    jw_value_begin(&w);
    ml_buf_puts(&b, "{\"b\":1}"); /* as an encoder writes its descriptor */
    jw_key(&w, "u"), jw_u64(&w, UINT64_MAX);
    jw_key(&w, "t"), jw_text(&w, NULL);
    jw_key(&w, "r"), jw_rawn(&w, "[1,2]xyz", 5);
    jw_end(&w);
    CHECK_EQ_STR(b.p, "{\"a\":{\"b\":1},\"u\":18446744073709551615,\"t\":\"\",\"r\":[1,2]}");
    CHECK(jw_reopen(&w, &b));
    jw_key(&w, "run"), jw_str(&w, "x");
    jw_end(&w);
    CHECK_EQ_STR(b.p, "{\"a\":{\"b\":1},\"u\":18446744073709551615,\"t\":\"\",\"r\":[1,2],\"run\":\"x\"}");
    b.len = 0;
    ml_buf_puts(&b, "{}");
    CHECK(jw_reopen(&w, &b)); /* an empty object: its first member has no comma */
    jw_key(&w, "k"), jw_i64(&w, 1);
    jw_end(&w);
    CHECK_EQ_STR(b.p, "{\"k\":1}");
    b.len = 0;
    ml_buf_puts(&b, "[1");
    CHECK(!jw_reopen(&w, &b));
    jw_init_buf(&w, &b, false);
    jw_resume(&w, 1); /* after the 1 another writer put there */
    jw_i64(&w, 2);
    CHECK_EQ_STR(b.p, "[1,2");
    b.len = 0;
    jw_init_buf(&w, &b, false); /* µs by hand, into a buffer */
    jw_arr(&w);
    const int64_t us[] = {0, 1, 1010, -1234560, INT64_MIN};
    for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) jw_us(&w, us[i]);
    jw_end(&w);
    CHECK_EQ_STR(b.p, "[0,0.001,1.01,-1234.56,-9223372036854775.808]");
    b.len = 0;
    jw_put_in_script(&b, "{\"s\":\"a</b<c\"}", 14);
    CHECK_EQ_STR(b.p, "{\"s\":\"a\\u003c/b\\u003cc\"}");
    /* the same in place, after text that stays as it is; text without '<' untouched */
    b.len = 0;
    ml_buf_puts(&b, "<x>");
    ml_buf_puts(&b, "{\"s\":\"<a</b<\"}");
    jw_script_safe_from(&b, 3);
    CHECK_EQ_STR(b.p, "<x>{\"s\":\"\\u003ca\\u003c/b\\u003c\"}");
    jw_script_safe_from(&b, 3);
    CHECK_EQ_STR(b.p, "<x>{\"s\":\"\\u003ca\\u003c/b\\u003c\"}");
    jw_script_safe_from(&b, b.len);
    CHECK_EQ_I64(b.len, 3 + 29);
    ml_buf_free(&b);
}

/* jw_us writes ns as microseconds by hand: at most three decimals, no
 * trailing zeros, signs and the extremes, as the snprintf it replaced did. */
TEST(json_microseconds_are_written_exactly)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    jw w;
    jw_init(&w, f, false);
    jw_arr(&w);
    const int64_t v[] = {0, 1, 10, 100, 999, 1000, 1001, 1010, 1100, 12345678, -5, -1000, -1234560,
                         INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) jw_us(&w, v[i]);
    jw_end(&w);
    fclose(f);
    CHECK_EQ_STR(buf, "[0,0.001,0.01,0.1,0.999,1,1.001,1.01,1.1,12345.678,-0.005,-1,-1234.56,"
                      "9223372036854775.807,-9223372036854775.808]");
    free(buf);
}

/* Into a buffer the numbers take a fixed-size copy while there is room and
 * the ordinary append where there is not: across the buffer's growth every
 * integer is printf's digits, every u64 too, and the string stays
 * terminated. */
TEST(json_numbers_in_a_growing_buffer_match_printf)
{
    ml_buf b = {0}, want = {0};
    jw w;
    jw_init_buf(&w, &b, false);
    jw_arr(&w);
    ml_buf_puts(&want, "[");
    uint64_t x = 88172645463325252ull; /* xorshift64: values of every length */
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t v = (int64_t)(x >> (x % 64)) * ((x & 1) ? -1 : 1);
        if (i == 10) v = INT64_MIN;
        if (i == 11) v = 0;
        if (i % 2) jw_i64(&w, v), ml_buf_printf(&want, "%s%" PRId64, i ? "," : "", v);
        else jw_u64(&w, x >> (x % 64)), ml_buf_printf(&want, "%s%" PRIu64, i ? "," : "", x >> (x % 64));
        CHECK_EQ_I64((int64_t)strlen(b.p), (int64_t)b.len);
    }
    jw_end(&w);
    ml_buf_puts(&want, "]");
    CHECK_EQ_STR(b.p, want.p);
    ml_buf_free(&b);
    ml_buf_free(&want);
}

int main(void)
{
    RUN(json_writer_pieces_in_a_buffer);
    RUN(json_writer_into_a_buffer);
    RUN(sequences_valid_and_not);
    RUN(json_writers_put_the_replacement_character);
    RUN(terminal_text_is_escaped);
    RUN(json_integers_are_written_exactly);
    RUN(json_microseconds_are_written_exactly);
    RUN(json_numbers_in_a_growing_buffer_match_printf);
    return check_report();
}
