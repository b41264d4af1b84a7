/* test_memviews.c — the analyses behind the memory views: a trace without
 * addresses grouped by top-level operator (unmatched.c), whose nets add up to
 * the replayed curve; the one "(allocated before trace)" rule (beforetrace.h);
 * the static-graph data of a device (report_static.c). */
#include <stdio.h>
#include <string.h>

#include "ascend.h"
#include "beforetrace.h"
#include "check.h"
#include "report_static.h"
#include "unmatched.h"

static void ev(ml_profile *p, uint16_t dev, uint32_t th, int64_t ts, int kind, int64_t size)
{
    ml_event e = {.ts = ts, .size = size, .addr = 0, .thread = th, .device = dev, .kind = (uint8_t)kind};
    ml_event_push(p, &e);
}

/*
 * thread 0: aten::conv2d [0, 100) holds aten::empty [10, 20); aten::relu [200, 300)
 *   alloc 64 at 15 (conv2d), alloc 32 at 250 (relu), free 64 at 260 (relu)
 *   free 32 at 400 (no operator)
 * The nets until 260: conv2d +64, relu +32 - 64 = -32: 32 = the curve at 260.
 */
TEST(unmatched_by_top_level_operator)
{
    ml_profile *p = ml_profile_new("t.json", "kineto");
    uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
    uint32_t th = ml_thread_get(p, "1", 1, "1", 1);
    ml_op_push(p, 0, 100, ml_intern_cstr(p->strings, "aten::conv2d"), th, ML_OP_CPU);
    ml_op_push(p, 10, 10, ml_intern_cstr(p->strings, "aten::empty"), th, ML_OP_CPU);
    ml_op_push(p, 200, 100, ml_intern_cstr(p->strings, "aten::relu"), th, ML_OP_CPU);
    ev(p, d, th, 15, ML_EV_ALLOC, 64);
    ev(p, d, th, 250, ML_EV_ALLOC, 32);
    ev(p, d, th, 260, ML_EV_FREE, 64);
    ev(p, d, th, 400, ML_EV_FREE, 32);
    ml_profile_finish(p);
    CHECK(ml_unmatched_applies(p, d));
    ml_unmatched u;
    ml_unmatched_by_op(p, d, 260, &u);
    CHECK_EQ_I64((int64_t)u.n, 3);
    CHECK_EQ_I64(u.allocs, 2);
    CHECK_EQ_I64(u.frees, 2);
    int64_t sum = 0;
    for (size_t k = 0; k < u.n; k++) sum += u.rows[k].net_at;
    CHECK_EQ_I64(sum, 32);
    CHECK(!strcmp(ml_s(p, u.rows[0].op), "aten::conv2d")); /* largest net first */
    CHECK_EQ_I64(u.rows[0].net_at, 64);
    CHECK_EQ_I64(u.rows[0].alloc_bytes, 64);
    CHECK(!strcmp(ml_s(p, u.rows[1].op), "")); /* (no operator): net 0 until 260 */
    CHECK_EQ_I64(u.rows[1].frees, 1);
    CHECK(!strcmp(ml_s(p, u.rows[2].op), "aten::relu"));
    CHECK_EQ_I64(u.rows[2].net_at, -32);
    ml_unmatched_free(&u);
    ml_profile_free(p);
}

TEST(one_before_trace)
{
    CHECK(ml_shown_before_trace(ML_ALLOC_BEFORE_TRACE | ML_ALLOC_NEVER_FREED, ML_CAT_PARAMETER_OR_STATE));
    CHECK(!ml_shown_before_trace(ML_ALLOC_BEFORE_TRACE, ML_CAT_PARAMETER_OR_STATE));      /* freed: it has a role */
    CHECK(!ml_shown_before_trace(ML_ALLOC_NEVER_FREED, ML_CAT_PARAMETER_OR_STATE));       /* before the first step */
    CHECK(!ml_shown_before_trace(ML_ALLOC_BEFORE_TRACE | ML_ALLOC_NEVER_FREED, ML_CAT_ACTIVATION));
}

TEST(static_graph_data)
{
    ml_profile *p = ml_profile_new("static", "ascend-static");
    ml_ascend_caps(p); /* as the importer of static_op_mem.csv sets them */
    p->caps.static_graph = true;
    p->time_is_event_order = true;
    uint16_t d = ml_device_get(p, ML_DEV_CPU, -1);
    ml_str g = ml_intern_cstr(p->strings, "model m one graph 7");
    ml_alloc_row row;
    memset(&row, 0, sizeof row);
    row.t_alloc = 3; row.t_free = row.t_free_req = 6; row.size = 1024; row.device = d;
    row.op = ml_intern_cstr(p->strings, "add_01"); row.op_top = g;
    row.ev_alloc = row.ev_free = row.thread = ML_NONE32;
    ml_alloc_push(p, &row);
    row.t_alloc = 1; row.t_free = row.t_free_req = ML_TIME_END; row.flags = ML_ALLOC_NEVER_FREED; row.size = 8;
    row.op = ml_intern_cstr(p->strings, "w\"q");
    ml_alloc_push(p, &row);
    ml_series_push(ml_series_get(p, d, ML_SERIES_RESERVED, g, 0), 1, 4096);
    ml_profile_finish(p);
    CHECK(ml_report_is_static(p));
    ml_buf m = {0};
    jw w; /* the device's object, open */
    jw_init_buf(&w, &m, false);
    jw_obj(&w);
    ml_report_static(p, d, &w);
    jw_end(&w);
    CHECK_CONTAINS(m.p, "{\"static\":{\"graphs\":[{\"label\":\"model m one graph 7\",\"model\":\"m one\",\"graph\":\"7\"");
    CHECK_CONTAINS(m.p, "\"total\":[[1,4096]]");
    CHECK_CONTAINS(m.p, "[\"add_01\",3,5,1024]");      /* end node = t_free - 1 */
    CHECK_CONTAINS(m.p, "[\"w\\\"q\",1,-1,8]");          /* to the end: -1 */
    ml_buf_free(&m);
    ml_profile_free(p);
}

int main(void)
{
    RUN(unmatched_by_top_level_operator);
    RUN(one_before_trace);
    RUN(static_graph_data);
    return check_report();
}
