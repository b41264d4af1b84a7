/*
 * test_trace_view.c — the Trace view's data: the report's "trace" object
 * (report_trace.c: tracks, columns, the cap) and `memlens serve`'s
 * /api/trace (the merge of sub-pixel runs per lane), /api/slice (launcher,
 * operator, flows, args) and /api/trace.json, on a small Kineto trace.
 */
#include "check.h"

#include <stdlib.h>
#include <unistd.h>

#include "api.h"
#include "api_call.h"
#include "importer.h"
#include "report.h"
#include "chrome_json.h"
#include "report_trace.h"
#include "ranks.h"

/* A thread with an operator that launches a kernel (correlation 7, an ac2g
 * flow), and another thread with 100 slices of 1 us, 1 us apart. */
static char *write_trace(void)
{
    ml_buf b = {0};
    ml_buf_puts(&b, "{\"traceEvents\":[\n"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":5555,\"args\":{\"name\":\"thread 5555 (python)\"}},\n"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":5555,\"args\":{\"name\":\"python\"}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":5555,\"ts\":10,\"dur\":100,"
        "\"args\":{\"Input Dims\":[[2,3],[3,4]],\"External id\":1}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":5555,\"ts\":20,\"dur\":10,"
        "\"args\":{\"correlation\":7,\"External id\":1}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":50,\"dur\":30,"
        "\"args\":{\"correlation\":7,\"External id\":1,\"stream\":7,\"device\":0,\"grid\":[1,2,3],\"block\":[4,5,6]}},\n"
        "{\"ph\":\"s\",\"id\":7,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":1,\"tid\":5555,\"ts\":20},\n"
        "{\"ph\":\"f\",\"id\":7,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":50,\"bp\":\"e\"}");
    for (int i = 0; i < 100; i++)
        ml_buf_printf(&b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"tiny%d\",\"pid\":1,\"tid\":6666,\"ts\":%d,\"dur\":1}",
                      i % 2, 1000 + 2 * i);
    ml_buf_puts(&b, "\n]}\n");
    char *path = strdup("/tmp/memlens-test-trace-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, b.p, b.len) != (ssize_t)b.len) abort();
    close(fd);
    ml_buf_free(&b);
    return path;
}

/* The rank's "trace" member (report_trace.h), in an object of its own. */
static void trace_into(const ml_profile *p, size_t max_slices, ml_buf *m, ml_blobs *bl)
{
    jw w;
    jw_init_buf(&w, m, false);
    jw_obj(&w);
    ml_report_trace(p, ml_profile_first_time(p), max_slices, &w, bl);
    jw_end(&w);
}

TEST(report_embeds_the_slices)
{
    char *path = write_trace();
    ml_profiles ps = {.needs = {.time = true}};
    ml_err e = {{0}};
    CHECK(ml_load(path, &ps, &e) == 0);
    if (!ps.items.len) { free(path); return; }
    const ml_profile *p = ps.items.v[0];
    CHECK(p->trace && p->trace->slices.ts.len == 103);
    ml_buf m = {0};
    ml_blobs bl = {0};
    trace_into(p, 0, &m, &bl);
    CHECK(!strncmp(m.p, "{\"trace\":{\"kinds\":[", 19));
    CHECK(strstr(m.p, "\"total\":103"));
    CHECK(strstr(m.p, "\"n\":103,\"cut_ns\":-1"));
    CHECK(strstr(m.p, "\"label\":\"thread 5555 (python)\""));
    CHECK(strstr(m.p, "\"process\":\"python (1)\""));
    CHECK(strstr(m.p, "\"kind\":\"stream\""));
    CHECK(strstr(m.p, "\"flows\":{\"n\":1,\"cats\":[\"ac2g\"]"));
    CHECK(strstr(m.p, "\"[[2, 3], [3, 4]]\"") || strstr(m.p, "\"[[2,3],[3,4]]\""));
    CHECK(bl.count > 10);
    /* the cap keeps the longest */
    ml_buf m2 = {0};
    ml_blobs bl2 = {0};
    trace_into(p, 3, &m2, &bl2);
    CHECK(strstr(m2.p, "\"n\":3,\"cut_ns\":10000"));
    if (getenv("TRACE_VIEW_DEBUG")) printf("%.300s\n", strstr(m2.p, "\"n\":"));
    /* served: the tracks only */
    ml_buf m3 = {0};
    ml_blobs bl3 = { .capture = 1 };
    trace_into(p, 0, &m3, &bl3);
    CHECK(strstr(m3.p, "\"served\":true") && bl3.count == 0);
    /* Chrome JSON back */
    ml_buf j = {0};
    ml_trace_chrome_json(p, &j);
    CHECK(strstr(j.p, "\"name\":\"gemm\",\"pid\":0,"));
    CHECK(strstr(j.p, "\"ts\":10.000,\"dur\":100.000"));
    CHECK(strstr(j.p, "\"grid\":[1,2,3]"));
    ml_buf_free(&j);
    ml_buf_free(&m);
    ml_buf_free(&m2);
    ml_buf_free(&m3);
    ml_blobs_free(&bl);
    ml_blobs_free(&bl2);
    ml_blobs_free(&bl3);
    ml_profiles_free(&ps);
    unlink(path);
    free(path);
}

TEST(served_window_merges_and_details)
{
    char *path = write_trace();
    ml_err e = {{0}};
    const char *in[] = { path };
    ml_ranks *rs = ml_ranks_open(in, 1, 1, &e);
    CHECK(rs);
    if (!rs) { free(path); return; }
    ml_ranks_request(rs, 0);
    ml_ranks_wait(rs, 0, 30000);
    ml_buf b = {0};
    /* wide: every slice by itself (100 px over 1.3 ms: 13 us a pixel... no: 1.3 us a pixel) */
    CHECK_EQ_I64(call(rs, "/api/trace", (args){{"rank=0", "t0=0", "t1=1300000", "px=1300"}}, &b), 200);
    CHECK(strstr(b.p, "\"n\":103"));
    CHECK(strstr(b.p, "\"m_n\":[]"));
    /* narrow: the 100 tiny slices become one box of 100 (10 px over 1.3 ms) */
    CHECK_EQ_I64(call(rs, "/api/trace", (args){{"rank=0", "t0=0", "t1=1300000", "px=10", "q=TINY1"}}, &b), 200);
    CHECK(strstr(b.p, "\"m_n\":[100]"));
    CHECK(strstr(b.p, "\"m_hits\":[50]"));
    CHECK(strstr(b.p, "\"hits\":50"));
    /* the kernel's detail: launcher, operator, flow, args */
    int kernel = -1;
    for (int id = 0; id < 103 && kernel < 0; id++) {
        char a[32];
        snprintf(a, sizeof a, "id=%d", id);
        CHECK_EQ_I64(call(rs, "/api/slice", (args){{"rank=0", a}}, &b), 200);
        if (strstr(b.p, "\"name\":\"gemm\",\"kind\":\"kernel\",\"args\"")) kernel = id;
    }
    CHECK(kernel >= 0);
    if (getenv("TRACE_VIEW_DEBUG")) printf("%s\n", b.p);
    CHECK(strstr(b.p, "\"grid\":[1,2,3]"));
    CHECK(strstr(b.p, "\"launcher\":") && !strstr(b.p, "\"launcher\":null"));
    CHECK(strstr(b.p, "\"op\":") && !strstr(b.p, "\"op\":null"));
    CHECK(strstr(b.p, "\"cat\":\"ac2g\""));
    CHECK(strstr(b.p, "\"name\":\"cudaLaunchKernel\",\"kind\":\"cuda_runtime\""));
    CHECK(strstr(b.p, "\"name\":\"aten::mm\",\"kind\":\"cpu_op\""));
    /* the search's next match, wrapping */
    CHECK_EQ_I64(call(rs, "/api/findslice", (args){{"rank=0", "q=tiny", "after=1000000"}}, &b), 200);
    CHECK(strstr(b.p, "\"ts\":1002000,"));
    CHECK_EQ_I64(call(rs, "/api/findslice", (args){{"rank=0", "q=tiny", "after=1000000", "dir=-1"}}, &b), 200);
    CHECK(strstr(b.p, "\"ts\":998000,"));
    CHECK_EQ_I64(call(rs, "/api/findslice", (args){{"rank=0", "q=tiny", "after=5000000"}}, &b), 200);
    CHECK(strstr(b.p, "\"ts\":990000,"));
    CHECK_EQ_I64(call(rs, "/api/findslice", (args){{"rank=0", "q=nothing"}}, &b), 200);
    CHECK(!strcmp(b.p, "{\"found\":false}"));
    CHECK_EQ_I64(call(rs, "/api/findslice", (args){{"rank=0", "q=x", "dir=0"}}, &b), 400);
    /* validation */
    CHECK_EQ_I64(call(rs, "/api/trace", (args){{"rank=0", "px=0"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/trace", (args){{"rank=0", "px=10", "t0=5", "t1=5"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/slice", (args){{"rank=0", "id=103"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/slice", (args){{"rank=1", "id=0"}}, &b), 400);
    /* /api/trace.json: read in small pieces, the same text as the whole */
    ml_chrome_json *cj = NULL;
    args a0 = {{"rank=0"}}, a9 = {{"rank=9"}};
    b.len = 0;
    CHECK_EQ_I64(ml_api_trace_json_open(rs, arg_of, &a0, &cj, &b), 200);
    CHECK(cj != NULL);
    ml_buf pieces = {0}, whole = {0};
    char small[7];
    size_t got;
    while (cj && (got = ml_chrome_json_read(cj, small, sizeof small)) > 0) ml_buf_put(&pieces, small, got);
    ml_chrome_json_close(cj);
    ml_slot_state st;
    const ml_sv_rank *r0 = ml_ranks_get(rs, 0, &st);
    if (r0) ml_trace_chrome_json(r0->p, &whole);
    CHECK(pieces.len > 1000 && pieces.len == whole.len && !memcmp(pieces.p, whole.p, whole.len));
    CHECK(!strncmp(pieces.p, "{\"displayTimeUnit\":\"ns\"", 22));
    CHECK(pieces.len > 4 && !memcmp(pieces.p + pieces.len - 4, "\n]}\n", 4));
    b.len = 0;
    cj = NULL;
    CHECK_EQ_I64(ml_api_trace_json_open(rs, arg_of, &a9, &cj, &b), 400);
    CHECK(cj == NULL && b.len > 0);
    ml_buf_free(&pieces);
    ml_buf_free(&whole);
    ml_buf_free(&b);
    ml_ranks_free(rs);
    unlink(path);
    free(path);
}

int main(void)
{
    RUN(report_embeds_the_slices);
    RUN(served_window_merges_and_details);
    return check_report();
}
