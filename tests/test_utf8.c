/*
 * test_utf8.c — names with any bytes in them, as a hostile trace writes them:
 * common/utf8.h tells valid UTF-8; every JSON writer (jsonw.h, ml_json_str,
 * ml_json_verbatim) puts U+FFFD for a byte that begins no valid sequence;
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
    ml_json_str(&b, in);
    ml_buf_put(&b, "", 1);
    CHECK_EQ_STR(b.p, want);
    ml_buf_free(&b);
    /* a cut sequence at the very end */
    got = jw_of("x\xE2\x80");
    CHECK_EQ_STR(got, "\"x\xEF\xBF\xBD\xEF\xBF\xBD\"");
    free(got);
    /* JSON text kept from the input: strings inside it made valid too */
    ml_json_verbatim(&b, "[[\"\xFF\"],[\"t\x01\"],[2,3]]");
    ml_buf_put(&b, "", 1);
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

int main(void)
{
    RUN(sequences_valid_and_not);
    RUN(json_writers_put_the_replacement_character);
    RUN(terminal_text_is_escaped);
    RUN(json_integers_are_written_exactly);
    RUN(json_microseconds_are_written_exactly);
    return check_report();
}
