/* test_mapview.c — a file read in place through a view (mapview.h): the
 * bytes are the file's from the offset asked for, whatever the pager does
 * beside the reader, and the file is not left resident behind the reader. */
#include "check.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "mapview.h"
#include "source.h"

static unsigned char byte_at(size_t i) { return (unsigned char)(i * 7 + (i >> 13) + (i >> 21)); }

/* A temporary file of n bytes of byte_at(); its fd, open for reading. */
static int temp_file(size_t n, char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/memlens-mapview-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    static unsigned char chunk[1 << 16];
    for (size_t at = 0; at < n; at += sizeof chunk) {
        size_t k = n - at < sizeof chunk ? n - at : sizeof chunk;
        for (size_t i = 0; i < k; i++) chunk[i] = byte_at(at + i);
        if (write(fd, chunk, k) != (ssize_t)k) { close(fd); return -1; }
    }
    return fd;
}

/* The process's resident file pages, in MiB (RssFile in /proc/self/status); -1 if unknown. */
static long rss_file_mib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "RssFile: %ld kB", &kb) == 1) break;
    if (f) fclose(f);
    return kb < 0 ? -1 : kb / 1024;
}

TEST(bytes_from_the_offset_with_the_pager_beside)
{
    char path[64];
    size_t n = (48u << 20) + 12345, off = 5000;
    int fd = temp_file(n, path, sizeof path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    long before = rss_file_mib();
    ml_mapview *v = ml_mapview_open_fd(fd, off, n);
    CHECK(v != NULL);
    if (!v) { close(fd); unlink(path); return; }
    CHECK_EQ_I64(ml_mapview_len(v), n - off);
    const unsigned char *b = ml_mapview_bytes(v);
    size_t bad = 0;
    for (size_t i = 0; i < n - off; i++) {
        if (b[i] != byte_at(off + i)) bad++;
        if (i % (1u << 20) == 0) ml_mapview_advance(v, i);
    }
    CHECK_EQ_I64(bad, 0);
    ml_mapview_advance(v, n - off);
    /* Behind the reader the file is unmapped as it goes: of the 48 MB read,
     * at most 2 MB stay mapped once the reader has said where it is, whether
     * or not the pager has run meanwhile (the reader unmaps past that). */
    long after = rss_file_mib();
    if (before >= 0) CHECK(after - before <= 3);
    ml_mapview_close(v);
    close(fd);
    unlink(path);
}

TEST(a_view_closed_before_the_end_and_an_empty_rest)
{
    char path[64];
    size_t n = 3u << 20;
    int fd = temp_file(n, path, sizeof path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    ml_mapview *v = ml_mapview_open_fd(fd, 0, n);
    CHECK(v != NULL);
    if (v) {
        CHECK_EQ_I64(ml_mapview_bytes(v)[n / 2], byte_at(n / 2));
        ml_mapview_close(v); /* the pager is stopped mid-way */
    }
    CHECK(ml_mapview_open_fd(fd, n, n) == NULL); /* nothing left to map: read instead */
    close(fd);
    unlink(path);
}

TEST(sources_that_give_a_view)
{
    char path[64];
    size_t n = 100000;
    int fd = temp_file(n, path, sizeof path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    ml_source *s;
    ml_err e;
    CHECK_EQ_I64(ml_source_open(path, &s, &e), 0);
    /* a peek reads ahead, but the view starts where the reader is: at 0 */
    const unsigned char *head;
    CHECK_EQ_I64(ml_source_peek(s, &head, 16, &e), 16);
    ml_mapview *v = ml_source_mapview(s);
    CHECK(v != NULL);
    if (v) {
        CHECK_EQ_I64(ml_mapview_len(v), n);
        CHECK_EQ_I64(ml_mapview_bytes(v)[0], byte_at(0));
        CHECK_EQ_I64(ml_mapview_bytes(v)[n - 1], byte_at(n - 1));
        ml_mapview_close(v);
    }
    ml_source_close(s);
    unlink(path);

    /* memory: the bytes themselves; reads limited for a test: none (they want the reads) */
    static const char text[] = "0123456789";
    s = ml_source_from_memory("m", text, 10);
    v = ml_source_mapview(s);
    CHECK(v != NULL && ml_mapview_bytes(v) == (const unsigned char *)text && ml_mapview_len(v) == 10);
    ml_mapview_close(v);
    ml_source_limit_reads(s, 3);
    CHECK(ml_source_mapview(s) == NULL);
    ml_source_close(s);
}

TEST(a_reader_ahead_of_the_pager)
{
    /* The reader jumps ahead faster than the pager pages in: the pager must
     * neither fault in nor touch what it already unmapped behind the reader. */
    char path[64];
    size_t n = 64u << 20;
    int fd = temp_file(n, path, sizeof path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    for (int round = 0; round < 3; round++) {
        ml_mapview *v = ml_mapview_open_fd(fd, 0, n);
        CHECK(v != NULL);
        if (!v) break;
        const unsigned char *b = ml_mapview_bytes(v);
        size_t bad = 0;
        for (size_t at = 0; at < n; at += 1u << 20) {
            ml_mapview_advance(v, at);
            if (b[at + 4095] != byte_at(at + 4095)) bad++;
            if (round == 1) nanosleep(&(struct timespec){0, 200 * 1000}, NULL); /* the pager catches up, at times */
        }
        CHECK_EQ_I64(bad, 0);
        CHECK_EQ_I64(b[n - 1], byte_at(n - 1));
        ml_mapview_close(v);
    }
    /* A jump from the start to the end, with time for the pager to act on it */
    ml_mapview *v = ml_mapview_open_fd(fd, 0, n);
    CHECK(v != NULL);
    if (v) {
        ml_mapview_advance(v, 0);
        nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
        ml_mapview_advance(v, n - 1);
        CHECK_EQ_I64(ml_mapview_bytes(v)[n - 1], byte_at(n - 1));
        nanosleep(&(struct timespec){0, 30 * 1000 * 1000}, NULL);
        ml_mapview_close(v);
    }
    close(fd);
    unlink(path);
}

int main(void)
{
    RUN(bytes_from_the_offset_with_the_pager_beside);
    RUN(a_view_closed_before_the_end_and_an_empty_rest);
    RUN(sources_that_give_a_view);
    RUN(a_reader_ahead_of_the_pager);
    return check_report();
}
