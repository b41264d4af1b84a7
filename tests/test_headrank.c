/*
 * test_headrank.c — importers/headrank.h: the rank a Kineto trace names
 * itself in its head (`serve DIR` lists ranks by it before they load).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "headrank.h"

#include <zlib.h>

static bool scan(const char *s, int *r, int *w) { return ml_head_rank(s, strlen(s), r, w); }

TEST(gen_trace_head)
{
    /* as tools/gen_trace and PyTorch write it: pg_config's objects carry "ranks", not "rank" */
    const char *s = "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"A100\"}],\n"
                    "  \"distributedInfo\": {\"backend\": \"nccl\", \"pg_config\": [{\"pg_name\": \"0\", \"rank\": 99, "
                    "\"ranks\": [0, 1]}], \"rank\": 7, \"world_size\": 16, \"nccl_version\": \"2.21.5\"},\n"
                    "  \"traceEvents\": [";
    int r = -1, w = -1;
    CHECK(scan(s, &r, &w));
    CHECK_EQ_I64(r, 7);
    CHECK_EQ_I64(w, 16);
}

TEST(only_the_top_level_object)
{
    int r = -1, w = -1;
    /* a "distributedInfo" inside an event's args, or a string that says it, is not the trace's */
    CHECK(!scan("{\"traceEvents\": [{\"args\": {\"distributedInfo\": {\"rank\": 3}}}]}", &r, &w));
    CHECK(!scan("{\"name\": \"\\\"distributedInfo\\\": {\\\"rank\\\": 3}\"}", &r, &w));
    CHECK(scan("{\"a\": {\"b\": 1}, \"distributedInfo\": {\"rank\": 0}}", &r, &w));
    CHECK_EQ_I64(r, 0);
    CHECK_EQ_I64(w, -1);
}

TEST(refused)
{
    int r = 5, w = 5;
    CHECK(!scan("{\"distributedInfo\": {\"rank\": 1.5, \"world_size\": 2}}", &r, &w));
    CHECK(!scan("{\"distributedInfo\": {\"rank\": -1}}", &r, &w));
    CHECK(!scan("{\"distributedInfo\": {\"rank\": \"7\"}}", &r, &w));
    CHECK(!scan("{\"distributedInfo\": {\"rank\": 99999999999}}", &r, &w));
    CHECK(!scan("{\"distributedInfo\": {\"backend\": \"nccl\", \"ra", &r, &w)); /* cut before the rank */
    CHECK(!scan("{\"distributedInfo\": {\"rank\": 12", &r, &w));              /* cut inside it: 12 or 123? */
    CHECK(!scan("", &r, &w));
    CHECK(!ml_head_rank_file("/nonexistent/x.json", &r, &w));
    CHECK_EQ_I64(r, 5);                                                           /* untouched */
}

static void write_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(text, 1, n, f);
    fclose(f);
}

/* A short plain file read whole names no rank: 0 ("none"); a rank: 1; a
 * longer one, a cut gzip one or a rank the import must judge: -1 ("cannot tell"). */
TEST(none_or_cannot_tell)
{
    char path[] = "/tmp/memlens-test-headrank-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    int r = 5, w = 6;
    const char *none = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2}]}";
    write_file(path, none, strlen(none));
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), 0);
    CHECK_EQ_I64(r, 5);
    const char *ranked = "{\"distributedInfo\": {\"rank\": 3, \"world_size\": 4}, \"traceEvents\": []}";
    write_file(path, ranked, strlen(ranked));
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), 1);
    CHECK_EQ_I64(r, 3);
    CHECK_EQ_I64(w, 4);
    const char *odd = "{\"distributedInfo\": {\"rank\": 1.5}, \"traceEvents\": []}";
    write_file(path, odd, strlen(odd));
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), -1);
    write_file(path, "\x1f\x8b\x08\x00", 4);
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), -1);
    /* one byte past the head: not read whole, so no rank in it says nothing */
    size_t big = ML_HEAD_RANK_BYTES + 1;
    char *buf = malloc(big);
    memset(buf, ' ', big);
    buf[0] = '{';
    write_file(path, buf, big);
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), -1);
    write_file(path, buf, big - 1);
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), 0);
    free(buf);
    CHECK_EQ_I64(ml_head_rank_file_known("/nonexistent/x.json", &r, &w), -1);
    CHECK_EQ_I64(ml_head_rank_file_known("/tmp", &r, &w), -1);
    CHECK_EQ_I64(r, 3);
    unlink(path);
}

/* path gzipped: the texts given, each its own gzip member. */
static void write_gz(const char *path, const char *const *texts, size_t k)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    for (size_t i = 0; i < k; i++) {
        uLong n = (uLong)strlen(texts[i]);
        unsigned char *out = malloc(n + 1024);
        z_stream z = {0};
        deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
        z.next_in = (unsigned char *)texts[i], z.avail_in = (uInt)n;
        z.next_out = out, z.avail_out = (uInt)(n + 1024);
        CHECK_EQ_I64(deflate(&z, Z_FINISH), Z_STREAM_END);
        fwrite(out, 1, z.total_out, f);
        deflateEnd(&z);
        free(out);
    }
    fclose(f);
}

/* A gzip file is judged by what it decodes to: its rank, none when it
 * decodes whole within the head, cannot tell past it; several members
 * decode as one stream, as every reader of memlens decodes them.  Before, every .gz answered -1, so `serve` of .gz inputs that
 * are no job said "cluster" until every rank had loaded. */
TEST(gzip_head_decoded)
{
    char path[] = "/tmp/memlens-test-headrank-gz-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    int r = 5, w = 6;
    const char *ranked[] = {"{\"distributedInfo\": {\"rank\": 2, \"world_size\": 8}, \"traceEvents\": []}"};
    write_gz(path, ranked, 1);
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), 1);
    CHECK_EQ_I64(r, 2);
    CHECK_EQ_I64(w, 8);
    const char *none[] = {"{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2}]}", "{}"};
    write_gz(path, none, 1);
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), 0);
    write_gz(path, none, 2); /* a second member is read on, as gzip -d and the importers read it */
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), 0);
    /* the rank at the head of a long file, compressed far below the head's size */
    size_t big = 4 * ML_HEAD_RANK_BYTES;
    char *buf = malloc(big + 1);
    memset(buf, ' ', big);
    buf[big] = 0;
    memcpy(buf, ranked[0], strlen(ranked[0]) - 1);
    const char *long_ranked[] = {buf};
    write_gz(path, long_ranked, 1);
    r = w = -9;
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), 1);
    CHECK_EQ_I64(r, 2);
    memset(buf, ' ', big); /* no rank in its head, and longer than it: cannot tell */
    memcpy(buf, "{\"traceEvents\": [", 17);
    write_gz(path, long_ranked, 1);
    CHECK_EQ_I64(ml_head_rank_file_known(path, &r, &w), -1);
    free(buf);
    unlink(path);
}

int main(void)
{
    RUN(gen_trace_head);
    RUN(only_the_top_level_object);
    RUN(refused);
    RUN(gzip_head_decoded);
    RUN(none_or_cannot_tell);
    return check_report();
}
