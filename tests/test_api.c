/*
 * test_api.c — the API of `memlens serve` without sockets: ml_api_route on
 * ranks loaded from a tiny trace (and real data when present): shapes,
 * values, validation, and the M4 answer keeping every extreme.
 */
#include "check.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "api_call.h"
#include "colbuf.h"
#include "m4.h"
#include "ranks.h"
#include "snapshot_tiny.h"

static char *write_tmp(const char *text)
{
    char *path = strdup("/tmp/memlens-test-api-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) abort();
    close(fd);
    return path;
}

static const char *tiny =
    "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":50},\n"
    "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":99,"
    "\"Bytes\":1048576,\"Total Allocated\":3145728,\"Total Reserved\":4194304}},\n"
    "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":40,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":99,"
    "\"Bytes\":-1048576,\"Total Allocated\":2097152,\"Total Reserved\":4194304}}]}";

static ml_ranks *open_one(const char *path)
{
    ml_err e = {{0}};
    const char *in[] = { path };
    ml_ranks *rs = ml_ranks_open(in, 1, 1, &e);
    if (!rs) { printf("open: %s\n", e.msg); return NULL; }
    ml_ranks_request(rs, 0);
    ml_ranks_wait(rs, 0, 30000);
    return rs;
}

TEST(routes_on_a_tiny_trace)
{
    char *path = write_tmp(tiny);
    ml_ranks *rs = open_one(path);
    CHECK(rs != NULL);
    if (!rs) { unlink(path); free(path); return; }
    ml_buf b = {0};
    CHECK_EQ_I64(call(rs, "/api/rank", (args){{"rank=0"}}, &b), 200);
    CHECK(strstr(b.p, "\"loaded\":true") && strstr(b.p, "\"id\":\"cuda:0\""));
    CHECK_EQ_I64(call(rs, "/api/meta", (args){{0}}, &b), 200);
    CHECK(strstr(b.p, "\"state\":\"ready\""));
    CHECK_EQ_I64(call(rs, "/api/curve", (args){{"rank=0", "dev=0", "curve=0", "px=50"}}, &b), 200);
    CHECK(strstr(b.p, "\"max\":3145728"));
    CHECK_EQ_I64(call(rs, "/api/allocs", (args){{"rank=0", "dev=0", "px=100"}}, &b), 200);
    CHECK(strstr(b.p, "\"n\":1,") && strstr(b.p, "\"size\":[1048576]"));
    /* 20 us on 1 px of 1 s: counted, not listed. */
    CHECK_EQ_I64(call(rs, "/api/allocs", (args){{"rank=0", "dev=0", "px=1", "t0=0", "t1=1000000000"}}, &b), 200);
    CHECK(strstr(b.p, "\"n\":0,") && strstr(b.p, "\"summarised\":1,") && strstr(b.p, "\"summarised_bytes\":1048576"));
    CHECK_EQ_I64(call(rs, "/api/detail", (args){{"rank=0", "dev=0", "id=0"}}, &b), 200);
    CHECK(strstr(b.p, "\"group\":\"aten::linear\"") && strstr(b.p, "\"addr\":\"0x63\""));
    CHECK_EQ_I64(call(rs, "/api/table", (args){{"rank=0", "dev=0", "text=Linear"}}, &b), 200);
    CHECK(strstr(b.p, "\"total\":1,"));
    CHECK_EQ_I64(call(rs, "/api/live", (args){{"rank=0", "dev=0", "t=20000"}}, &b), 200);
    CHECK(strstr(b.p, "\"tracked\":1048576") && strstr(b.p, "\"before\":2097152"));
    CHECK_EQ_I64(call(rs, "/api/peak", (args){{"rank=0", "dev=0"}}, &b), 200);
    CHECK(strstr(b.p, "\"v\":3145728"));

    /* The category chart: the top of the stack is the allocated curve (its
     * peak, with the memory from before the trace as PARAMETER_OR_STATE). */
    CHECK_EQ_I64(call(rs, "/api/catcurve", (args){{"rank=0", "dev=0", "px=50"}}, &b), 200);
    CHECK(strstr(b.p, "\"max\":3145728") && strstr(b.p, "\"cats\":["));
    /* The stacked timeline's base: 2 MiB from before the trace under the 1 MiB allocation. */
    CHECK_EQ_I64(call(rs, "/api/stackbase", (args){{"rank=0", "dev=0", "px=4", "t0=20000", "t1=30000"}}, &b), 200);
    CHECK(strstr(b.p, "\"before_known\":true") && strstr(b.p, "\"v\":[3145728,3145728,3145728,3145728]") &&
          strstr(b.p, "\"base\":[2097152,2097152,2097152,2097152]"));
    /* Several curves in one answer. */
    CHECK_EQ_I64(call(rs, "/api/curves", (args){{"rank=0", "dev=0", "list=0,1", "px=50"}}, &b), 200);
    CHECK(strstr(b.p, "\"n\":2,\"max\":[3145728,4194304]") && strstr(b.p, "\"t1\":[") && strstr(b.p, "\"v1\":["));
    /* The table filtered by category. */
    CHECK_EQ_I64(call(rs, "/api/table", (args){{"rank=0", "dev=0", "cat=4", "sort=cat"}}, &b), 200);
    CHECK(strstr(b.p, "\"total\":1,")); /* the allocation is TEMPORARY (freed inside aten::linear) */
    CHECK_EQ_I64(call(rs, "/api/table", (args){{"rank=0", "dev=0", "cat=5"}}, &b), 200);
    CHECK(strstr(b.p, "\"total\":0,"));
    /* The profiler views: the rank says it has a time side, /api/perf answers the perf
     * object (one operator, aten::linear, 50 us on the host), a rank out of range is refused. */
    CHECK_EQ_I64(call(rs, "/api/rank", (args){{"rank=0"}}, &b), 200);
    CHECK(strstr(b.p, "\"perf\":true,\"perfWhy\":null"));
    CHECK_EQ_I64(call(rs, "/api/perf", (args){{"rank=0"}}, &b), 200);
    CHECK(b.len && b.p[0] == '{' && strstr(b.p, "\"operators\":{\"by_name\":[") && strstr(b.p, "\"name\":\"aten::linear\"") &&
          strstr(b.p, "\"host_total_ns\":50000"));
    {   /* made once, then the same answer from the rank's copy */
        char *first = strndup(b.p ? b.p : "", b.len);
        CHECK_EQ_I64(call(rs, "/api/perf", (args){{"rank=0"}}, &b), 200);
        CHECK(b.len == strlen(first) && !memcmp(b.p, first, b.len));
        free(first);
    }
    CHECK_EQ_I64(call(rs, "/api/perf", (args){{"rank=1"}}, &b), 400);

    /* fmt=bin: the same answer as a frame of typed columns. */
    {
        ml_buf j = {0};
        CHECK_EQ_I64(call(rs, "/api/allocs", (args){{"rank=0", "dev=0", "px=100"}}, &j), 200);
        CHECK_EQ_I64(call(rs, "/api/allocs", (args){{"rank=0", "dev=0", "px=100", "fmt=bin"}}, &b), 200);
        CHECK(ml_cb_is_binary(b.p, b.len) && !ml_cb_is_binary(j.p, j.len));
        uint32_t h = (uint32_t)(uint8_t)b.p[4] | (uint32_t)(uint8_t)b.p[5] << 8 | (uint32_t)(uint8_t)b.p[6] << 16;
        CHECK(h + 8 <= b.len && b.p[8] == '{' && b.p[8 + h - 1] == '}');
        char *head = strndup(b.p + 8, h);
        CHECK(strstr(head, "\"n\":1,") && strstr(head, "\"summarised\":0"));
        /* the size column: f64 at its offset from the data section */
        char *sz = strstr(head, "{\"k\":\"size\",\"dt\":\"f64\",\"n\":1,\"o\":");
        CHECK(sz != NULL);
        if (sz) {
            size_t off = strtoul(sz + strlen("{\"k\":\"size\",\"dt\":\"f64\",\"n\":1,\"o\":"), NULL, 10);
            size_t base = (8 + h + 7) / 8 * 8;
            double v = 0;
            CHECK(off % 8 == 0 && base + off + 8 <= b.len);
            if (base + off + 8 <= b.len) memcpy(&v, b.p + base + off, 8);
            CHECK(v == 1048576.0);
        }
        free(head);
        ml_buf_free(&j);
        CHECK_EQ_I64(call(rs, "/api/curve", (args){{"rank=0", "dev=0", "curve=0", "px=9", "fmt=bin"}}, &b), 200);
        CHECK(ml_cb_is_binary(b.p, b.len) && strstr(b.p + 8, "\"max\":3145728"));
    }

    /* A flat stretch: the step in force at t0 starts at t0, a point at t1 closes it. */
    CHECK_EQ_I64(call(rs, "/api/curve", (args){{"rank=0", "dev=0", "curve=1", "px=10", "t0=31000", "t1=39000"}}, &b), 200);
    CHECK(strstr(b.p, "\"t\":[31000,39000],\"v\":[4194304,4194304]"));
    CHECK_EQ_I64(call(rs, "/api/curves", (args){{"rank=0", "dev=0", "list=1,0", "px=10", "t0=15000.5", "t1=25000"}}, &b), 200);
    CHECK(strstr(b.p, "\"t0\":[15001,25000],\"v0\":[4194304,4194304]")); /* reserved: one point, at the origin */
    CHECK(strstr(b.p, "\"t1\":[15001,30000],\"v1\":[3145728,2097152]")); /* allocated: its next point ends the line */
    /* The narrow allocations, counted per pixel column and group (the page shades them). */
    CHECK_EQ_I64(call(rs, "/api/allocs", (args){{"rank=0", "dev=0", "px=4", "t0=0", "t1=1000000000"}}, &b), 200);
    CHECK(strstr(b.p, "\"small_x\":[0],\"small_group\":[2],\"small_n\":[1]"));

    /* The table's export: every row the filter keeps, as CSV or TSV. */
    {
        ml_export *x = NULL;
        ml_buf err = {0};
        args ea = {{"rank=0", "dev=0", "fmt=csv"}};
        CHECK_EQ_I64(ml_api_export_open(rs, arg_of, &ea, &x, &err), 200);
        char text[4096];
        size_t n = 0, k;
        while (x && n < sizeof text - 1 && (k = ml_api_export_read(x, text + n, 7)) > 0) n += k; /* small reads: rows split across them */
        text[n] = 0;
        CHECK_EQ_STR(text, "operator,allocating op,size_bytes,allocated,released,duration_ns,category,stream,address,reason\n"
                           "aten::linear,aten::linear,1048576,10000,30000,20000,TEMPORARY,,0x63,"
                           "freed inside the top-level op that allocated it\n");
        ml_api_export_free(x);
        args ta = {{"rank=0", "dev=0", "fmt=tsv", "min=2000000"}};
        CHECK_EQ_I64(ml_api_export_open(rs, arg_of, &ta, &x, &err), 200);
        n = x ? ml_api_export_read(x, text, sizeof text - 1) : 0;
        text[n] = 0;
        CHECK(x && ml_api_export_tsv(x));
        CHECK_EQ_STR(text, "operator\tallocating op\tsize_bytes\tallocated\treleased\tduration_ns\tcategory\tstream\taddress\treason\n");
        ml_api_export_free(x);
        args ba = {{"rank=0", "dev=0", "fmt=xls"}};
        CHECK_EQ_I64(ml_api_export_open(rs, arg_of, &ba, &x, &err), 400);
        CHECK(!x && strstr(err.p, "must be one of: csv, tsv"));
        ml_buf_free(&err);
    }

    /* Validation. */
    CHECK_EQ_I64(call(rs, "/api/curve", (args){{"rank=0", "dev=0", "curve=0"}}, &b), 400);
    CHECK(strstr(b.p, "{\"error\":\"missing parameter 'px'\""));
    CHECK_EQ_I64(call(rs, "/api/curve", (args){{"rank=1", "dev=0", "curve=0", "px=5"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/curve", (args){{"rank=0", "dev=0", "curve=0", "px=5", "t0=9", "t1=3"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/curve", (args){{"rank=0", "dev=0", "curve=0", "px=5", "t0=inf"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/table", (args){{"rank=0", "dev=0", "sort=nope"}}, &b), 400);
    CHECK(strstr(b.p, "must be one of: group, op, size"));
    CHECK_EQ_I64(call(rs, "/api/live", (args){{"rank=0", "dev=0", "t=1", "by=x"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/detail", (args){{"rank=0", "dev=0", "id=1"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/curve", (args){{"rank=0", "dev=0", "curve=0", "px=5", "fmt=xml"}}, &b), 400);
    CHECK(strstr(b.p, "must be one of: json, bin"));
    CHECK_EQ_I64(call(rs, "/api/curves", (args){{"rank=0", "dev=0", "list=0,9", "px=5"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/curves", (args){{"rank=0", "dev=0", "list=0,", "px=5"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/curves", (args){{"rank=0", "dev=0", "px=5"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/catcurve", (args){{"rank=0", "dev=0"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/stackbase", (args){{"rank=0", "dev=0", "px=0"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/table", (args){{"rank=0", "dev=0", "cat=9"}}, &b), 400);
    CHECK_EQ_I64(call(rs, "/api/nothing", (args){{0}}, &b), 404);
    ml_buf_free(&b);
    ml_ranks_free(rs);
    unlink(path);
    free(path);
}

/* The M4 answer for any window and width keeps the window's maximum (the
 * peak is never lost) and stays within 4 points per column plus the
 * column-boundary splits. */
TEST(m4_keeps_every_extreme)
{
    enum { N = 5000 };
    static int64_t t[N], v[N];
    uint32_t seed = 7;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        t[i] = (int64_t)i * 1000 + (seed >> 20) % 500;
        v[i] = (seed >> 8) % 100000;
    }
    v[3777] = 5000000;
    ml_m4 py;
    ml_m4_build(v, N, &py);
    ml_sv_curve c = { .n = N, .fan = ML_M4_FAN, .t = t, .v = v, .mn = py.argmin, .mx = py.argmax };
    size_t off = 0;
    for (size_t m = N; m > 1;) {
        m = (m + ML_M4_FAN - 1) / ML_M4_FAN;
        c.lvl_off[c.levels] = off;
        c.lvl_size[c.levels++] = m;
        off += m;
    }
    ml_buf b = {0};
    const int pxs[] = { 1, 3, 17, 200, 2000, 20000 };
    for (size_t k = 0; k < sizeof pxs / sizeof *pxs; k++) {
        b.len = 0;
        ml_api_curve(&c, 0, (double)N * 1000, pxs[k], 0, &b);
        CHECK(strstr(b.p, ",5000000,") || strstr(b.p, "[5000000,") || strstr(b.p, ",5000000]"));
        CHECK(strstr(b.p, "{\"max\":5000000,"));
    }
    /* A window without the spike: its own maximum, exactly. */
    int64_t want = 0;
    for (int i = 0; i < N; i++) if (t[i] >= 1000000 && t[i] < 2000000 && v[i] > want) want = v[i];
    CHECK(ml_api_curve_max(&c, 1000000, 2000000) >= want);
    ml_buf_free(&b);
    ml_m4_free(&py);
}

TEST(real_peak_is_the_summarys)
{
    const char *dir = getenv("MEMLENS_DATA") ? getenv("MEMLENS_DATA") : "../shared/data";
    char path[4096];
    snprintf(path, sizeof path, "%s/kineto/hta_df_index_resolver.json.gz", dir);
    if (access(path, R_OK) != 0) { SKIP("real data absent"); return; }
    ml_ranks *rs = open_one(path);
    CHECK(rs != NULL);
    if (!rs) return;
    ml_slot_state st;
    ml_sv_rank *r = ml_ranks_get(rs, 0, &st);
    CHECK(r != NULL);
    if (r) {
        int found = 0;
        for (size_t k = 0; k < r->ndev; k++) {
            if (strcmp(r->dev[k].id, "cuda:1")) continue;
            found = 1;
            const ml_sv_device *d = &r->dev[k];
            CHECK_EQ_I64(ml_api_curve_max(&d->curves[d->peak_curve], (double)d->t0, (double)d->t1 + 1), 6629508096LL);
            ml_buf b = {0};
            ml_api_curve(&d->curves[d->peak_curve], (double)d->t0, (double)d->t1 + 1, 2000, 0, &b);
            CHECK(strstr(b.p, "6629508096"));
            /* the category stack's top reaches the same peak, at any width */
            CHECK(d->ncat > 0);
            if (d->ncat) CHECK_EQ_I64(ml_api_curve_max(&d->cat_top[d->ncat - 1], (double)d->t0, (double)d->t1 + 1), 6629508096LL);
            b.len = 0;
            ml_api_catcurve(d, (double)d->t0, (double)d->t1 + 1, 3, 0, &b);
            CHECK(strstr(b.p, "\"max\":6629508096"));
            ml_buf_free(&b);
        }
        CHECK(found);
    }
    ml_ranks_free(rs);
}

/* Two ranks of a distributed run: /api/perf's "distributed" covers the ranks
 * loaded when it is asked (ranks load lazily), and is made again, for every
 * rank, once more have loaded: then both ranks, the slowest named. */
static const char *dist_rank =
    "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%d,\"world_size\":2},\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":%d,\"args\":{\"stream\":7,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":0,\"tid\":7,\"ts\":700,\"dur\":100,\"args\":{\"stream\":7,\"device\":0}}]}";

TEST(distributed_over_the_ranks_loaded)
{
    char text[2][1024];
    char *path[2];
    for (int r = 0; r < 2; r++) {
        snprintf(text[r], sizeof text[r], dist_rank, r, r ? 600 : 300); /* rank 1 computes longer: the slowest */
        path[r] = write_tmp(text[r]);
    }
    ml_err e = {{0}};
    const char *in[] = { path[0], path[1] };
    ml_ranks *rs = ml_ranks_open(in, 2, 1, &e);
    CHECK(rs != NULL);
    if (!rs) return;
    ml_buf b = {0};
    ml_ranks_request(rs, 0);
    CHECK_EQ_I64(ml_ranks_wait(rs, 0, 30000), ML_SLOT_READY);
    CHECK_EQ_I64(call(rs, "/api/perf", (args){{"rank=0"}}, &b), 200);
    const char *d = b.p ? strstr(b.p, "\"distributed\":{") : NULL;
    CHECK(d && strstr(d, "\"rank\":0") && !strstr(d, "\"rank\":1") && strstr(d, "\"slowest_rank\":0"));
    ml_ranks_request(rs, 1);
    CHECK_EQ_I64(ml_ranks_wait(rs, 1, 30000), ML_SLOT_READY);
    /* once both are loaded: the job's slowest rank, each rank's own rows (every
     * rank's in each made the answers grow with the ranks squared) */
    for (int r = 0; r < 2; r++) {
        CHECK_EQ_I64(call(rs, "/api/perf", (args){{r ? "rank=1" : "rank=0"}}, &b), 200);
        d = b.p ? strstr(b.p, "\"distributed\":{") : NULL;
        CHECK(d && strstr(d, r ? "\"rank\":1" : "\"rank\":0") && !strstr(d, r ? "\"rank\":0" : "\"rank\":1") &&
              strstr(d, "\"slowest_rank\":1"));
    }
    ml_buf_free(&b);
    ml_ranks_free(rs);
    for (int r = 0; r < 2; r++) {
        unlink(path[r]);
        free(path[r]);
    }
}

/* Ascend: MindStudio Insight's columns in /api/table's rows, on a small operator_memory and
 * memory_record (the values Insight writes beside them: active release 1020 us, totals at
 * allocation 3/4/3 MB, at release 1/4/1 MB; the never-released row has no release totals). */
TEST(insight_columns_in_table_rows)
{
    char dir[] = "/tmp/memlens-test-api-asc-XXXXXX", sub[128], f[192];
    if (!mkdtemp(dir)) abort();
    snprintf(sub, sizeof sub, "%s/r0_ascend_pt", dir);
    mkdir(sub, 0700);
    snprintf(sub, sizeof sub, "%s/r0_ascend_pt/ASCEND_PROFILER_OUTPUT", dir);
    mkdir(sub, 0700);
    snprintf(f, sizeof f, "%s/memory_record.csv", sub);
    FILE *o = fopen(f, "w");
    fputs("Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n"
          "PTA,1000.000,1.0,4.0,1.0,7,NPU:0\nPTA,1010.000,3.0,4.0,3.0,7,NPU:0\n"
          "PTA,1020.000,2.0,4.0,2.5,7,NPU:0\nPTA,1030.000,1.0,4.0,1.0,7,NPU:0\n", o);
    fclose(o);
    snprintf(f, sizeof f, "%s/operator_memory.csv", sub);
    o = fopen(f, "w");
    fputs("Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),Active Duration(us),"
          "Allocation Total Allocated(MB),Allocation Total Reserved(MB),Allocation Total Active(MB),Release Total Allocated(MB),"
          "Release Total Reserved(MB),Release Total Active(MB),Stream Ptr,Device Type\n"
          "aten::add,1024,1000.000,,,,,1.0,4.0,1.0,,,,7,NPU:0\n"
          "aten::mm,2048,1010.000,1030.000,1020.000,20,10,3.0,4.0,3.0,1.0,4.0,1.0,7,NPU:0\n", o);
    fclose(o);
    snprintf(sub, sizeof sub, "%s/r0_ascend_pt", dir);
    ml_ranks *rs = open_one(sub);
    CHECK(rs != NULL);
    if (rs) {
        ml_buf b = {0};
        CHECK_EQ_I64(call(rs, "/api/table", (args){{"rank=0", "dev=0", "sort=ta", "dir=asc"}}, &b), 200);
        /* ids in allocation order: aten::add (never released), aten::mm */
        CHECK(strstr(b.p, "\"tr\":[") && strstr(b.p, ",20000]"));
        CHECK(strstr(b.p, "\"aA\":[1048576,3145728]"));
        CHECK(strstr(b.p, "\"aR\":[4194304,4194304]"));
        CHECK(strstr(b.p, "\"aC\":[1048576,3145728]"));
        CHECK(strstr(b.p, "\"rA\":[-1,1048576]"));
        CHECK(strstr(b.p, "\"rR\":[-1,4194304]"));
        CHECK(strstr(b.p, "\"rC\":[-1,1048576]"));
        if (!strstr(b.p, "\"aA\":[1048576,3145728]")) printf("%s\n", b.p);
        /* sortable as the page sorts them (an unknown total as 0) */
        CHECK_EQ_I64(call(rs, "/api/table", (args){{"rank=0", "dev=0", "sort=rA", "dir=desc"}}, &b), 200);
        CHECK(strstr(b.p, "\"rA\":[1048576,-1]"));
        CHECK_EQ_I64(call(rs, "/api/table", (args){{"rank=0", "dev=0", "sort=adur", "dir=asc"}}, &b), 200);
        CHECK_EQ_I64(call(rs, "/api/table", (args){{"rank=0", "dev=0", "sort=tr", "dir=desc"}}, &b), 200);
        ml_buf_free(&b);
        ml_ranks_free(rs);
    }
    snprintf(f, sizeof f, "rm -rf '%s'", dir);
    CHECK_EQ_I64(system(f), 0);
}

/* /api/stack: a bare stack of the rank's table, as the snapshot views' blocks name them. */
TEST(stack_route_on_a_tiny_snapshot)
{
    char path[] = "/tmp/memlens-test-api-snap-XXXXXX.pickle";
    int fd = mkstemps(path, 7);
    if (fd < 0 || write(fd, tiny_pickle, sizeof tiny_pickle) != (ssize_t)sizeof tiny_pickle) abort();
    close(fd);
    ml_ranks *rs = open_one(path);
    CHECK(rs != NULL);
    if (rs) {
        ml_buf b = {0};
        CHECK_EQ_I64(call(rs, "/api/rank", (args){{"rank=0"}}, &b), 200);
        /* the segment's allocated block [addr, size, state, stack] */
        const char *blk = strstr(b.p, "[[4096,512,0,");
        CHECK(blk != NULL);
        char id[32] = "id=0";
        if (blk) snprintf(id, sizeof id, "id=%d", atoi(blk + 13));
        CHECK(strcmp(id, "id=0") != 0);
        CHECK_EQ_I64(call(rs, "/api/stack", (args){{"rank=0", id}}, &b), 200);
        CHECK(strstr(b.p, "{\"name\":\"f\",\"file\":\"a.py\",\"line\":3}") != NULL);
        if (!strstr(b.p, "a.py")) printf("%s\n", b.p);
        CHECK_EQ_I64(call(rs, "/api/stack", (args){{"rank=0", "id=0"}}, &b), 200);
        CHECK(strstr(b.p, "\"stack\":[]") != NULL);
        CHECK_EQ_I64(call(rs, "/api/stack", (args){{"rank=0", "id=999999"}}, &b), 400);
        CHECK_EQ_I64(call(rs, "/api/stack", (args){{"rank=0"}}, &b), 400);
        ml_buf_free(&b);
        ml_ranks_free(rs);
    }
    unlink(path);
}

int main(void)
{
    RUN(routes_on_a_tiny_trace);
    RUN(m4_keeps_every_extreme);
    RUN(real_peak_is_the_summarys);
    RUN(distributed_over_the_ranks_loaded);
    RUN(insight_columns_in_table_rows);
    RUN(stack_route_on_a_tiny_snapshot);
    return check_report();
}
