/*
 * test_embed.c — the library as an embedder (the Python extension) sees it:
 * a command runs on the caller's streams and its error comes back there,
 * nothing on the process's own; a fatal error (out of memory) reaches the
 * handler the embedder set, with its message, and the library exits nowhere.
 */
#include <setjmp.h>
#include <stdint.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "cli.h"
#include "err.h"
#include "summary.h"
#include "snapshot_tiny.h"

typedef struct captured {
    char *out, *err;
    size_t n_out, n_err;
    int rc;
} captured;

static captured run(int argc, char **argv)
{
    captured c = {0};
    FILE *fo = open_memstream(&c.out, &c.n_out), *fe = open_memstream(&c.err, &c.n_err);
    ml_cli_io io = {fo, fe};
    c.rc = ml_cli_run(argc, argv, &io);
    fclose(fo);
    fclose(fe);
    return c;
}

static void captured_free(captured *c)
{
    free(c->out);
    free(c->err);
}

TEST(a_command_writes_to_the_callers_streams)
{
    char *argv[] = {"memlens", "--version", NULL};
    captured c = run(2, argv);
    CHECK_EQ_I64(c.rc, 0);
    CHECK_EQ_STR(c.out, "memlens " MEMLENS_VERSION "\n");
    CHECK_EQ_STR(c.err, "");
    captured_free(&c);
}

TEST(an_error_comes_back_on_the_callers_err_stream)
{
    char path[] = "/tmp/memlens-test-embed-XXXXXX";
    int fd = mkstemp(path);
    static const char bad[] = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": }]}";
    CHECK(fd >= 0 && write(fd, bad, sizeof bad - 1) == (ssize_t)(sizeof bad - 1));
    close(fd);
    char *argv[] = {"memlens", "summary", "--json", path, NULL};
    captured c = run(4, argv);
    CHECK_EQ_I64(c.rc, 2);
    CHECK_EQ_STR(c.out, "");
    char want[256];
    snprintf(want, sizeof want, "memlens: %s: byte 58: unexpected character '}'\n", path);
    CHECK_EQ_STR(c.err, want);
    captured_free(&c);
    /* and again: nothing of the first call is left to change the second */
    c = run(4, argv);
    CHECK_EQ_I64(c.rc, 2);
    CHECK_EQ_STR(c.err, want);
    captured_free(&c);
    char *unknown[] = {"memlens", "summary", "--bogus", path, NULL};
    c = run(4, unknown);
    CHECK_EQ_I64(c.rc, 2);
    CHECK_EQ_STR(c.out, "");
    CHECK_CONTAINS(c.err, "memlens: summary: unknown option --bogus\nusage: memlens summary");
    captured_free(&c);
    unlink(path);
}

/* `snapshot segments` and `snapshot trace` print on the caller's out (they
 * once used printf: the text reached the process's stdout, and the caller's
 * stream got only the escaped names). tiny_pickle: snapshot_tiny.h. */
TEST(snapshot_writes_to_the_callers_streams)
{
    char path[] = "/tmp/memlens-test-embed-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, tiny_pickle, sizeof tiny_pickle) == (ssize_t)sizeof tiny_pickle);
    close(fd);
    fflush(stdout);
    off_t before = lseek(1, 0, SEEK_CUR);
    char *seg[] = {"memlens", "snapshot", "segments", path, NULL};
    captured c = run(4, seg);
    CHECK_EQ_I64(c.rc, 0);
    CHECK_EQ_STR(c.err, "");
    CHECK_EQ_STR(c.out,
                 "cuda:1: 1 segments, reserved 2.00 KiB, allocated 512 B (25.0%), free 1.50 KiB in 1 holes, largest hole 1.50 KiB\n"
                 "  fragmentation 0.0% (1 - largest hole / free)\n"
                 "\n"
                 "  address                   size pool     stream  type   expand  fill                 largest hole blocks\n"
                 "  0x0000000000001000    2.00 KiB (0, 0)   0       small  no      [###.......]  25.0%      1.50 KiB      2\n"
                 "\n");
    captured_free(&c);
    char *trace[] = {"memlens", "snapshot", "trace", path, NULL};
    c = run(4, trace);
    CHECK_EQ_I64(c.rc, 0);
    CHECK_EQ_STR(c.err, "");
    CHECK_EQ_STR(c.out,
                 "no times in this snapshot: the first column is the entry number\n"
                 "#0               cuda:1  segment_alloc   0x000000001000    2.00 KiB  f (a.py:3)\n"
                 "#1               cuda:1  alloc           0x000000002000       256 B  f (a.py:3)\n"
                 "#2               cuda:1  free_requested  0x000000002328       128 B  f (a.py:3)\n"
                 "#3               cuda:1  free_completed  0x000000002328       128 B  f (a.py:3)\n"
                 "#4               cuda:1  oom             requested 1.00 TiB, device free 777 B\n"
                 "5 of 5 entries shown\n");
    captured_free(&c);
    /* nothing reached the process's stdout (where it is a file, it did not grow) */
    fflush(stdout);
    if (before >= 0) CHECK_EQ_I64(lseek(1, 0, SEEK_CUR), before);
    unlink(path);
}

/* gzip data[0..n) inflated into out (cap bytes, NUL-ended); its length, or -1. */
static long gunzip(const char *data, size_t n, char *out, size_t cap)
{
    z_stream zs = {0};
    if (inflateInit2(&zs, 15 + 16) != Z_OK) return -1;
    zs.next_in = (unsigned char *)data;
    zs.avail_in = (uInt)n;
    zs.next_out = (unsigned char *)out;
    zs.avail_out = (uInt)(cap - 1);
    int r = inflate(&zs, Z_FINISH);
    long len = r == Z_STREAM_END ? (long)zs.total_out : -1;
    inflateEnd(&zs);
    if (len >= 0) out[len] = 0;
    return len;
}

/* `report -o -` and `export -o -` write the page or file to the caller's out
 * (they once wrote to descriptor 1: from Python the page reached the
 * process's stdout and the caller got nothing), gzip included. */
TEST(output_to_dash_goes_to_the_callers_stream)
{
    char path[] = "/tmp/memlens-test-embed-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, tiny_pickle, sizeof tiny_pickle) == (ssize_t)sizeof tiny_pickle);
    close(fd);
    fflush(stdout);
    off_t before = lseek(1, 0, SEEK_CUR);
    char *report[] = {"memlens", "report", path, "-o", "-", NULL};
    captured c = run(5, report);
    CHECK_EQ_I64(c.rc, 0);
    CHECK_EQ_STR(c.err, "");
    CHECK(c.n_out > 1000);
    CHECK(!strncmp(c.out, "<!doctype html>\n", 16));
    CHECK(c.n_out >= 8 && !strcmp(c.out + c.n_out - 8, "</html>\n"));
    captured_free(&c);
    char *csv[] = {"memlens", "export", path, "-o", "-", "--format", "csv", NULL};
    c = run(7, csv);
    CHECK_EQ_I64(c.rc, 0);
    CHECK_EQ_STR(c.err, "");
    CHECK(!strncmp(c.out, "rank,device,addr,", 17));
    CHECK_CONTAINS(c.out, "\n,cuda:1,8192,");
    captured_free(&c);
    char *gz[] = {"memlens", "export", path, "-o", "-", "--format", "trace.gz", NULL};
    c = run(7, gz);
    CHECK_EQ_I64(c.rc, 0);
    CHECK_EQ_STR(c.err, "");
    CHECK(c.n_out > 2 && (unsigned char)c.out[0] == 0x1f && (unsigned char)c.out[1] == 0x8b);
    static char plain[1 << 20];
    long n = gunzip(c.out, c.n_out, plain, sizeof plain);
    CHECK(n > 10);
    if (n > 0) CHECK_CONTAINS(plain, "\"traceEvents\"");
    captured_free(&c);
    /* nothing reached the process's stdout (where it is a file, it did not grow) */
    fflush(stdout);
    if (before >= 0) CHECK_EQ_I64(lseek(1, 0, SEEK_CUR), before);
    unlink(path);
}

static jmp_buf fatal_jump;
static char fatal_msg[ML_ERR_MAX];

static void fatal_handler(const char *msg)
{
    snprintf(fatal_msg, sizeof fatal_msg, "%s", msg);
    longjmp(fatal_jump, 1);
}

TEST(a_fatal_error_reaches_the_embedders_handler)
{
    ml_set_fatal_handler(fatal_handler);
    fatal_msg[0] = 0;
    if (!setjmp(fatal_jump)) ml_fatal("internal error: %s %d", "test", 7);
    CHECK_EQ_STR(fatal_msg, "internal error: test 7");
#if defined(__SANITIZE_ADDRESS__)
    /* ASan reports a too-large allocation itself (allocator_may_return_null=0) */
#else
    fatal_msg[0] = 0;
    volatile size_t huge = SIZE_MAX / 2;
    if (!setjmp(fatal_jump)) free(ml_malloc(huge));
    char want[96];
    snprintf(want, sizeof want, "out of memory (asked for %zu bytes)", (size_t)huge);
    CHECK_EQ_STR(fatal_msg, want);
#endif
    ml_set_fatal_handler(NULL);
}

int main(void)
{
    RUN(a_command_writes_to_the_callers_streams);
    RUN(an_error_comes_back_on_the_callers_err_stream);
    RUN(snapshot_writes_to_the_callers_streams);
    RUN(output_to_dash_goes_to_the_callers_stream);
    RUN(a_fatal_error_reaches_the_embedders_handler);
    return check_report();
}
