/* test_report.c — the report's data: M4 pyramid, column encoding, and the
 * data of a tiny hand-written profile (peak, live set, budget, atomic write). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "m4.h"
#include "report.h"

TEST(m4_pyramid_keeps_extremes)
{
    int64_t v[10] = {5, 1, 9, 3, 3, 7, 0, 8, 2, 9};
    ml_m4 m;
    ml_m4_build(v, 10, &m);
    CHECK_EQ_I64(m.levels, 2);             /* 10 -> 3 -> 1 */
    CHECK_EQ_I64(m.total, 4);
    CHECK_EQ_I64(ml_m4_level_size(10, 1), 3);
    CHECK_EQ_I64(m.argmin[0], 1);          /* {5,1,9,3} */
    CHECK_EQ_I64(m.argmax[0], 2);
    CHECK_EQ_I64(m.argmin[1], 6);          /* {3,7,0,8} */
    CHECK_EQ_I64(m.argmax[2], 9);          /* {2,9} */
    CHECK_EQ_I64(m.argmin[3], 6);          /* top */
    CHECK_EQ_I64(m.argmax[3], 2);          /* ties: the earliest 9 */
    ml_m4_free(&m);
    ml_m4_build(v, 1, &m);
    CHECK_EQ_I64(m.total, 0);
    ml_m4_free(&m);
}

TEST(columns_pick_the_smallest_exact_form)
{
    ml_blobs bl = {0};
    ml_buf meta = {0};
    int64_t times[3] = {1000000000000LL, 1000000000005LL, 1000000000009LL};
    ml_col_i64(&bl, &meta, times, 3, 1);
    CHECK_CONTAINS(meta.p, "\"dt\":\"i32\",\"n\":3,\"d\":1,\"o\":1000000000000");
    meta.len = 0;
    int64_t big[2] = {1LL << 40, 0};
    ml_col_i64(&bl, &meta, big, 2, 1);
    CHECK_CONTAINS(meta.p, "\"dt\":\"f64\"");
    meta.len = 0;
    uint32_t small[2] = {1, 70000};
    ml_col_u32(&bl, &meta, small, 2);
    CHECK_CONTAINS(meta.p, "\"dt\":\"u32\"");
    CHECK_EQ_I64(bl.count, 3);
    CHECK_CONTAINS(bl.html.p, "<script type=\"application/x-memlens\" id=\"ml-b2\">AQAAAHARAQA=</script>");
    meta.len = 0;
    ml_json_str(&meta, "a\"b</script>\n");
    CHECK_EQ_STR(meta.p, "\"a\\\"b<\\/script>\\n\"");
    ml_buf_free(&meta);
    ml_blobs_free(&bl);
}

/* cuda:0: 1 GiB before the trace (recorded total), then two allocations. */
static ml_profile *tiny(void)
{
    ml_profile *p = ml_profile_new("tiny.json", "kineto");
    p->time_is_absolute = true;
    uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
    const int64_t T = 1700000000000000000LL, G = 1LL << 30;
    ml_str lin = ml_intern_cstr(p->strings, "aten::linear"), relu = ml_intern_cstr(p->strings, "aten::relu");
    ml_alloc_row r = { .t_alloc = T + 100, .t_free = T + 500, .t_free_req = T + 500, .size = 256 << 20,
                       .addr = 0x7f0000000000ULL, .ev_alloc = ML_NONE32, .ev_free = ML_NONE32,
                       .thread = ML_NONE32, .device = d, .op = lin, .op_top = lin };
    ml_alloc_push(p, &r);
    r.t_alloc = T + 200; r.t_free = T + 300; r.size = 64 << 20; r.addr += 1 << 28; r.op = r.op_top = relu;
    ml_alloc_push(p, &r);
    ml_series *s = ml_series_get(p, d, ML_SERIES_ALLOCATED, 0, 0);
    int64_t pts[][2] = {{T + 100, G + (256 << 20)}, {T + 200, G + (320 << 20)}, {T + 300, G + (256 << 20)}, {T + 500, G}};
    for (size_t i = 0; i < 4; i++) ml_series_push(s, pts[i][0], pts[i][1]);
    ml_profile_finish(p);
    return p;
}

TEST(tiny_profile_data)
{
    ml_profiles ps = {0};
    VEC_PUSH(&ps.items, tiny());
    ml_buf meta = {0};
    ml_blobs bl = {0};
    ml_err e = {{0}};
    CHECK_EQ_I64(ml_report_data(&ps, NULL, &meta, &bl, &e), 0);
    CHECK_CONTAINS(meta.p, "\"origin_ns\":\"1700000000000000100\"");
    CHECK_CONTAINS(meta.p, "\"id\":\"cuda:0\"");
    /* The peak: 1 GiB + 320 MiB at +200 ns (relative to the origin: 100). */
    CHECK_CONTAINS(meta.p, "\"peak\":{\"curve\":0,\"v\":1409286144,\"t\":100");
    CHECK_CONTAINS(meta.p, "\"by_op\":[[\"(allocated before trace)\",1073741824,0],[\"aten::linear\",268435456,1],[\"aten::relu\",67108864,1]]");
    CHECK_CONTAINS(meta.p, "\"allocs\":{\"n\":2,\"total\":2,\"summarised\":0");
    CHECK_CONTAINS(meta.p, "[\"aten::relu\",null,1,67108864,0,67108864]"); /* no CPU operators: calls unknown */

    /* A budget of one keeps the allocation live at the peak that is largest, and says so. */
    ml_buf m2 = {0};
    ml_blobs b2 = {0};
    ml_report_opts o = { .max_allocs = 1 };
    CHECK_EQ_I64(ml_report_data(&ps, &o, &m2, &b2, &e), 0);
    CHECK_CONTAINS(m2.p, "\"allocs\":{\"n\":1,\"total\":2,\"summarised\":1,\"summarised_bytes\":67108864");
    ml_buf_free(&m2);
    ml_blobs_free(&b2);

    /* The page is written whole or not at all. */
    char dir[] = "/tmp/ml_report_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char out[128];
    snprintf(out, sizeof out, "%s/r.html", dir);
    CHECK_EQ_I64(ml_report_write(&ps, NULL, out, &e), 0);
    FILE *f = fopen(out, "r");
    CHECK(f != NULL);
    if (f) {
        char head[64] = {0};
        CHECK(fread(head, 1, sizeof head - 1, f) > 0);
        CHECK_CONTAINS(head, "<!doctype html>");
        fclose(f);
    }
    char bad[160];
    snprintf(bad, sizeof bad, "%s/no/such/dir/r.html", dir);
    CHECK_EQ_I64(ml_report_write(&ps, NULL, bad, &e), -1);
    CHECK_CONTAINS(e.msg, "cannot create");
    unlink(out);
    rmdir(dir);

    ml_buf_free(&meta);
    ml_blobs_free(&bl);
    ml_profiles_free(&ps);
}

TEST(no_profiles_is_an_error)
{
    ml_profiles ps = {0};
    ml_buf meta = {0};
    ml_blobs bl = {0};
    ml_err e = {{0}};
    CHECK_EQ_I64(ml_report_data(&ps, NULL, &meta, &bl, &e), -1);
    CHECK_CONTAINS(e.msg, "no profile");
}

int main(void)
{
    RUN(m4_pyramid_keeps_extremes);
    RUN(columns_pick_the_smallest_exact_form);
    RUN(tiny_profile_data);
    RUN(no_profiles_is_an_error);
    return check_report();
}
