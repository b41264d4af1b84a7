/* test_memview.c — the memory view of a device (src/view/memview.h): its
 * column table against web/DATA.md (the contract the page reads), what it
 * computes for a tiny hand-written profile, its queries (live set, window,
 * table, orders, Ascend's totals, the curves' windows), and the shared M4 window selection
 * (analysis/m4.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "m4.h"
#include "memview.h"

/* web/DATA.md's list of allocs columns: the words after "group_count:
 * [count]," up to the closing "} }" of the allocs object, "name?" for an
 * optional one.  Returns the count, or -1 if the list is not found. */
static int data_md_columns(char names[][32], bool *optional, int max)
{
    FILE *f = fopen("web/DATA.md", "r");
    if (!f) return -1;
    char line[1024], text[4096] = "";
    bool in = false;
    while (fgets(line, sizeof line, f)) {
        if (!in && strstr(line, "allocs: { n, total,")) in = true;
        if (!in) continue;
        if (strlen(text) + strlen(line) + 1 < sizeof text) strcat(text, line);
        if (strstr(line, "} }")) break;
    }
    fclose(f);
    const char *from = strstr(text, "group_count: [count],");
    char *to = strstr(text, "} }");
    if (!from || !to || to < from) return -1;
    *to = 0;
    from += strlen("group_count: [count],");
    int n = 0;
    for (const char *p = from; *p && n < max;) {
        while (*p == ' ' || *p == '\n' || *p == ',') p++;
        if (!*p) break;
        size_t k = strcspn(p, ", \n");
        if (k >= 32) return -1;
        memcpy(names[n], p, k);
        names[n][k] = 0;
        optional[n] = k && names[n][k - 1] == '?';
        if (optional[n]) names[n][k - 1] = 0;
        n++;
        p += k;
    }
    return n;
}

TEST(the_column_table_is_data_md_s_list)
{
    char names[32][32];
    bool optional[32];
    int n = data_md_columns(names, optional, 32);
    CHECK_EQ_I64(n, (int64_t)ml_mv_ncolumns);
    for (int i = 0; i < n && (size_t)i < ml_mv_ncolumns; i++) {
        CHECK_EQ_STR(names[i], ml_mv_columns[i].name);
        CHECK_EQ_I64(optional[i], ml_mv_columns[i].optional);
    }
    /* the first and the optional one, by name, so that a wrong parse cannot pass */
    CHECK_EQ_STR(ml_mv_columns[0].name, "ta");
    CHECK_EQ_STR(ml_mv_columns[3].name, "tr");
    CHECK(ml_mv_columns[3].optional);
}

/* cuda:0: 1 GiB before the trace (recorded total), then two allocations
 * (as test_report.c's tiny profile). */
static const int64_t T = 1700000000000000000LL, G = 1LL << 30;
static ml_profile *tiny(void)
{
    ml_profile *p = ml_profile_new("tiny.json", "kineto");
    p->time_is_absolute = true;
    uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
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

/* a[0..n) as "1,2,3" */
static const char *i64_list(const int64_t *a, size_t n)
{
    static char buf[256];
    size_t w = 0;
    buf[0] = 0;
    for (size_t k = 0; k < n && w < sizeof buf - 24; k++) w += (size_t)snprintf(buf + w, sizeof buf - w, "%s%lld", k ? "," : "", (long long)a[k]);
    return buf;
}

TEST(a_tiny_profile_s_view)
{
    ml_profile *p = tiny();
    ml_mv_strings st;
    ml_mv_strings_init(&st, p);
    ml_mv_opts o = { .max_allocs = 100 };
    const int64_t origin = T + 100;
    CHECK(ml_memview_device_shown(p, 0));
    ml_memview *v = ml_memview_build(p, 0, origin, &o, &st);
    /* the recorded allocated curve, then the trace's own allocations */
    CHECK_EQ_I64(v->curves.len, 2);
    CHECK_EQ_I64(v->alloc_curve, 0);
    CHECK_EQ_STR(v->curves.v[0].label, "allocated");
    CHECK_EQ_STR(v->curves.v[1].group, "tracked");
    CHECK_EQ_I64(v->curves.v[0].n, 4);
    CHECK_EQ_I64(v->curves.v[0].t[1], 100);              /* relative to the origin */
    CHECK_EQ_I64(v->curves.v[0].max, G + (320 << 20));
    CHECK_EQ_I64(v->curves.v[0].py.total, 1);            /* 4 points: one node */
    /* the peak and its breakdowns, largest first */
    CHECK(v->peak_found);
    CHECK_EQ_I64(v->peak_v, G + (320 << 20));
    CHECK_EQ_I64(v->peak_t - origin, 100);
    CHECK_EQ_I64(v->untracked, G);
    CHECK_EQ_STR(v->peak_by_op[0].label, "(allocated before trace)");
    CHECK_EQ_STR(v->peak_by_op[1].label, "aten::linear");
    CHECK_EQ_I64(v->peak_by_op[1].bytes, 256 << 20);
    CHECK_EQ_I64(v->calls[2], -1);                       /* no CPU operators: unknown */
    /* groups: before, none, then the two top-level ops */
    CHECK_EQ_I64(v->group_label.len, 4);
    CHECK_EQ_I64(v->gs[3].bytes, 64 << 20);
    /* the columns: relative times, local strings (0 is "") */
    CHECK_EQ_I64(v->n, 2);
    CHECK_EQ_I64(v->ta[0], 0);
    CHECK_EQ_I64(v->tf[0], 400);
    CHECK_EQ_I64(v->ta[1], 100);
    CHECK_EQ_I64(v->size[1], 64 << 20);
    CHECK_EQ_I64(v->addr_hi[0], 0x7f00);
    CHECK_EQ_I64(v->op[0], 1);
    CHECK_EQ_I64(v->op[1], 2);
    CHECK_EQ_I64(st.ids.len, 3);
    CHECK(v->tr != NULL);                                /* the second's release was asked for later */
    if (v->tr) CHECK_EQ_I64(v->tr[1], 400);
    CHECK_EQ_I64(v->flags[0] & (ML_MV_BEFORE_TRACE | ML_MV_NEVER_FREED), 0);
    /* the category bands share the allocated curve's times */
    CHECK(v->cat_job != NULL);                           /* still being made */
    ml_memview_categories(v);
    CHECK(v->cat_any && v->cat_t_shared && !v->cat_t_own);
    CHECK(v->cat_t == v->curves.v[0].t);
    CHECK_EQ_I64(v->ncat_t, 4);
    /* the band tops: bottom first, the top one the whole allocated curve (1 GiB from before the trace under the rest) */
    ml_mv_band_top tops[16];
    size_t ntops = ml_memview_band_tops(v, tops, 16);
    CHECK_EQ_I64(ntops, v->bands.len);
    CHECK(ntops >= 2);
    if (ntops >= 2) {
        CHECK_EQ_I64(tops[0].cat, -1);
        CHECK_EQ_STR(i64_list(tops[0].v, 4), "1073741824,1073741824,1073741824,1073741824");
        CHECK_EQ_STR(i64_list(tops[ntops - 1].v, 4), "1342177280,1409286144,1342177280,1073741824");
        CHECK_EQ_I64(tops[ntops - 1].py.n, 4);
    }
    for (size_t k = 0; k < ntops; k++) { free(tops[k].v); ml_m4_free(&tops[k].py); }
    /* each band's peak and the first point at it: the 1 GiB before the trace
     * is the same at every point (so its first), and every band agrees with
     * its values */
    CHECK_EQ_I64(v->bands.v[0].max, G);
    CHECK_EQ_I64(v->bands.v[0].tmax, 0);            /* the first of its 4 equal points */
    for (size_t k = 0; k < v->bands.len; k++) {
        int64_t val[4];
        ml_memview_band_values(v, k, val);
        size_t at = 0;
        for (size_t x = 1; x < 4; x++) if (val[x] > val[at]) at = x;
        CHECK_EQ_I64(v->bands.v[k].max, val[at]);
        CHECK_EQ_I64(v->bands.v[k].tmax, v->cat_t[at]);
    }

    /* Live at +150 ns: both; with the recorded total, 1 GiB from before the trace. */
    ml_mv_live lv;
    ml_memview_live_at(v, 150, G + (320 << 20), &lv);
    CHECK_EQ_I64(lv.tracked, 320 << 20);
    CHECK_EQ_I64(lv.count, 2);
    CHECK_EQ_I64(lv.before, G);
    CHECK_EQ_I64(lv.shown_before, G);
    /* at +250 the second is gone; without a total nothing is known before */
    ml_memview_live_at(v, 250, -1, &lv);
    CHECK_EQ_I64(lv.tracked, 256 << 20);
    CHECK_EQ_I64(lv.count, 1);
    CHECK_EQ_I64(lv.before, 0);
    ml_memview_free(v);
    ml_mv_strings_free(&st);
    ml_profile_free(p);
}

/* Three allocations at one time whose events come in the other order than
 * their rows (sizes 1, 2, 4 with events 5, 3, 1): the live curve takes them
 * in event order (4, then 6, then 7), then the frees one by one. */
TEST(the_live_curve_takes_allocations_at_one_time_in_event_order)
{
    ml_profile *p = ml_profile_new("ties.json", "kineto");
    p->time_is_absolute = true;
    uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
    ml_str op = ml_intern_cstr(p->strings, "aten::empty");
    for (uint32_t k = 0; k < 3; k++) {
        ml_alloc_row r = { .t_alloc = T + 100, .t_free = T + 200 + 100 * k, .t_free_req = T + 200 + 100 * k,
                           .size = 1 << k, .addr = 0x1000 * (k + 1), .ev_alloc = 5 - 2 * k, .ev_free = ML_NONE32,
                           .thread = ML_NONE32, .device = d, .op = op, .op_top = op };
        ml_alloc_push(p, &r);
    }
    ml_series *s = ml_series_get(p, d, ML_SERIES_ALLOCATED, 0, 0);
    int64_t pts[][2] = {{T + 100, 7}, {T + 200, 6}, {T + 300, 4}, {T + 400, 0}};
    for (size_t i = 0; i < 4; i++) ml_series_push(s, pts[i][0], pts[i][1]);
    ml_profile_finish(p);
    ml_mv_strings st;
    ml_mv_strings_init(&st, p);
    ml_mv_opts o = { .max_allocs = 100 };
    ml_memview *v = ml_memview_build(p, 0, T, &o, &st);
    CHECK_EQ_I64(v->curves.len, 2);
    if (v->curves.len == 2) {
        CHECK_EQ_STR(v->curves.v[1].group, "tracked");
        CHECK_EQ_STR(i64_list(v->curves.v[1].v, v->curves.v[1].n), "0,4,6,7,6,4,0");
        CHECK_EQ_STR(i64_list(v->curves.v[1].t, v->curves.v[1].n), "100,100,100,100,200,300,400");
    }
    CHECK_EQ_I64(v->op_curves.len, 1); /* the one op's: the same */
    if (v->op_curves.len == 1) CHECK_EQ_STR(i64_list(v->op_curves.v[0].v, v->op_curves.v[0].n), "0,4,6,7,6,4,0");
    ml_memview_categories(v);
    ml_memview_free(v);
    ml_mv_strings_free(&st);
    ml_profile_free(p);
}

/* cuda:0, five allocations (times relative to T, the origin):
 *   0: [0, 1000)    100 B  aten::linear      3: [500, 600)  50 B  aten::linear
 *   1: [10, 20)      10 B  aten::relu        4: [700, 2000) 400 B aten::conv
 *   2: [30, 35)      20 B  aten::relu */
static ml_profile *five(void)
{
    ml_profile *p = ml_profile_new("five.json", "kineto");
    p->time_is_absolute = true;
    uint16_t d = ml_device_get(p, ML_DEV_CUDA, 0);
    const struct { int64_t ta, tf, size; const char *op; } a[] = {
        {0, 1000, 100, "aten::linear"}, {10, 20, 10, "aten::relu"}, {30, 35, 20, "aten::relu"},
        {500, 600, 50, "aten::linear"}, {700, 2000, 400, "aten::conv"}};
    for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
        ml_str op = ml_intern_cstr(p->strings, a[i].op);
        ml_alloc_row r = { .t_alloc = T + a[i].ta, .t_free = T + a[i].tf, .t_free_req = T + a[i].tf, .size = a[i].size,
                           .addr = 0x1000 * (i + 1), .ev_alloc = ML_NONE32, .ev_free = ML_NONE32,
                           .thread = ML_NONE32, .device = d, .op = op, .op_top = op };
        ml_alloc_push(p, &r);
    }
    ml_profile_finish(p);
    return p;
}

/* The view of five() with its names and index, for the query tests. */
typedef struct five_view {
    ml_profile *p;
    ml_mv_strings st;
    const char **text;
    ml_mv_names names;
    ml_memview *v;
    ml_mv_index ix;
} five_view;

static void five_open(five_view *f)
{
    f->p = five();
    ml_mv_strings_init(&f->st, f->p);
    ml_mv_opts o = { .max_allocs = 100 };
    f->v = ml_memview_build(f->p, 0, T, &o, &f->st);
    ml_memview_categories(f->v);
    f->text = calloc(f->st.ids.len + 1, sizeof *f->text);
    for (size_t i = 0; i < f->st.ids.len; i++) f->text[i] = ml_s(f->p, f->st.ids.v[i]);
    f->names = (ml_mv_names){ f->text, f->st.ids.len };
    ml_memview_index(f->v, &f->ix);
}

static void five_close(five_view *f)
{
    ml_mv_index_free(&f->ix);
    ml_memview_free(f->v);
    free(f->text);
    ml_mv_strings_free(&f->st);
    ml_profile_free(f->p);
}

/* ids[0..n) as "0,1,3" */
static const char *id_list(const uint32_t *ids, size_t n)
{
    static char buf[256];
    size_t w = 0;
    buf[0] = 0;
    for (size_t k = 0; k < n && w < sizeof buf - 16; k++) w += (size_t)snprintf(buf + w, sizeof buf - w, "%s%u", k ? "," : "", ids[k]);
    return buf;
}

TEST(the_window_query_draws_bars_a_pixel_wide_and_counts_the_rest)
{
    five_view f;
    five_open(&f);
    ml_memview *v = f.v;
    CHECK_EQ_I64(v->n, 5);
    CHECK_EQ_I64(v->ta[4], 700);
    /* [0, 1000] at 100 px: 10 ns a pixel; 1's 10 ns is one pixel, 2's 5 ns is not */
    ml_mv_window w;
    ml_memview_window(v, &f.ix, 0, 1000, 100, 1000, -1, &w);
    CHECK_EQ_I64(w.in_window, 5);
    CHECK_EQ_I64(w.in_bytes, 580);
    CHECK_EQ_I64(w.wide, 4);
    CHECK(!w.limited);
    CHECK_EQ_STR(id_list(w.ids.v, w.ids.len), "0,1,3,4");
    CHECK_EQ_I64(w.small_x.len, 1);
    if (w.small_x.len == 1) {
        CHECK_EQ_I64(w.small_x.v[0], 3);                 /* 30 ns: column 3 */
        CHECK_EQ_STR(v->group_label.v[w.small_group.v[0]], "aten::relu");
        CHECK_EQ_I64(w.small_n.v[0], 1);
    }
    CHECK_EQ_I64(w.summarised, 1);
    CHECK_EQ_I64(w.summarised_bytes, 20);
    ml_mv_window_free(&w);
    /* at most two bars: the largest two, by id; the kept one (2) added */
    ml_memview_window(v, &f.ix, 0, 1000, 100, 2, 2, &w);
    CHECK(w.limited);
    CHECK_EQ_I64(w.wide, 4);
    CHECK_EQ_STR(id_list(w.ids.v, w.ids.len), "0,2,4");
    CHECK_EQ_I64(w.summarised, 3);
    CHECK_EQ_I64(w.summarised_bytes, 80);
    ml_mv_window_free(&w);
    /* [100, 550]: 0 reaches into it from before (read through the block index), 3 starts in it */
    ml_memview_window(v, &f.ix, 100, 550, 45, 1000, -1, &w);
    CHECK_EQ_I64(w.in_window, 2);
    CHECK_EQ_I64(w.in_bytes, 150);
    CHECK_EQ_STR(id_list(w.ids.v, w.ids.len), "0,3");
    CHECK_EQ_I64(w.small_x.len, 0);
    ml_mv_window_free(&w);
    /* after everything: nothing */
    ml_memview_window(v, &f.ix, 2001, 3000, 10, 1000, -1, &w);
    CHECK_EQ_I64(w.in_window, 0);
    CHECK_EQ_I64(w.in_bytes, 0);
    CHECK_EQ_I64(w.ids.len, 0);
    ml_mv_window_free(&w);
    five_close(&f);
}

TEST(the_table_query_filters_sorts_and_pages)
{
    five_view f;
    five_open(&f);
    ml_memview *v = f.v;
    /* the orders: by name (bytes), by duration, by size descending read backwards */
    uint32_t *o = ml_memview_order(v, &f.names, NULL, ML_MV_SORT_OP);
    CHECK_EQ_STR(id_list(o, v->n), "4,0,3,1,2");          /* conv < linear < relu, ties by id */
    free(o);
    o = ml_memview_order(v, &f.names, NULL, ML_MV_SORT_DUR);
    CHECK_EQ_STR(id_list(o, v->n), "2,1,3,0,4");
    free(o);
    uint32_t *by_size = ml_memview_order(v, &f.names, NULL, ML_MV_SORT_SIZE);
    CHECK_EQ_STR(id_list(by_size, v->n), "1,2,3,0,4");
    /* text (case ignored) in the group or op name, largest first */
    ml_mv_table_query q = { .text = "RELU", .min_size = -1, .max_size = -1, .cat = -1, .sort = ML_MV_SORT_SIZE,
                            .dir = -1, .page_size = 10 };
    ml_mv_filter fl;
    ml_mv_filter_init(&fl, v, &f.names, &q);
    ml_mv_page pg;
    ml_memview_table(v, &fl, by_size, &pg);
    CHECK_EQ_I64(pg.total, 2);
    CHECK_EQ_I64(pg.pages, 1);
    CHECK_EQ_STR(id_list(pg.rows.v, pg.rows.len), "2,1");
    VEC_FREE(&pg.rows);
    ml_mv_filter_free(&fl);
    /* sizes 50..400 by allocation time, two a page: page 1 is the third */
    uint32_t *by_ta = ml_memview_order(v, &f.names, NULL, ML_MV_SORT_TA);
    q = (ml_mv_table_query){ .min_size = 50, .max_size = 400, .cat = -1, .sort = ML_MV_SORT_TA, .dir = 1,
                             .page = 1, .page_size = 2 };
    ml_mv_filter_init(&fl, v, &f.names, &q);
    ml_memview_table(v, &fl, by_ta, &pg);
    CHECK_EQ_I64(pg.total, 3);
    CHECK_EQ_I64(pg.pages, 2);
    CHECK_EQ_I64(pg.page, 1);
    CHECK_EQ_STR(id_list(pg.rows.v, pg.rows.len), "4");
    VEC_FREE(&pg.rows);
    /* a page past the end is the last one */
    q.page = 7;
    ml_memview_table(v, &fl, by_ta, &pg);
    CHECK_EQ_I64(pg.page, 1);
    CHECK_EQ_STR(id_list(pg.rows.v, pg.rows.len), "4");
    VEC_FREE(&pg.rows);
    ml_mv_filter_free(&fl);
    /* what intersects [100, 550]; and a category nothing has */
    q = (ml_mv_table_query){ .min_size = -1, .max_size = -1, .cat = -1, .in_window = 1, .t0 = 100, .t1 = 550,
                             .dir = 1, .page_size = 10 };
    ml_mv_filter_init(&fl, v, &f.names, &q);
    ml_memview_table(v, &fl, by_ta, &pg);
    CHECK_EQ_STR(id_list(pg.rows.v, pg.rows.len), "0,3");
    VEC_FREE(&pg.rows);
    q.in_window = 0;
    q.cat = v->cat[0] ? 0 : 1;
    ml_memview_table(v, &fl, by_ta, &pg);
    CHECK_EQ_I64(pg.total, 0);
    CHECK_EQ_I64(pg.pages, 1);
    VEC_FREE(&pg.rows);
    ml_mv_filter_free(&fl);
    free(by_ta);
    free(by_size);
    five_close(&f);
}

TEST(totals_at_an_allocation_and_its_release)
{
    /* tiny(): the recorded allocated curve is the overall one; no reserved or active curve */
    ml_profile *p = tiny();
    ml_mv_strings st;
    ml_mv_strings_init(&st, p);
    ml_mv_opts o = { .max_allocs = 100 };
    ml_memview *v = ml_memview_build(p, 0, T + 100, &o, &st);
    ml_memview_categories(v);
    const char *text[8] = {0};
    for (size_t i = 0; i < st.ids.len && i < 8; i++) text[i] = ml_s(p, st.ids.v[i]);
    ml_mv_names names = { text, st.ids.len < 8 ? st.ids.len : 8 };
    ml_mv_totals tc;
    ml_memview_totals(v, &tc);
    CHECK_EQ_I64(tc.overall[0], 0);
    CHECK_EQ_I64(tc.overall[1], -1);
    CHECK_EQ_I64(tc.comp[0][0], -1);
    /* the second (relu, [+100, +200)): after its allocation, after its release */
    CHECK_EQ_I64(ml_memview_total_at(v, &tc, &names, 0, 0, 1), G + (320 << 20));
    CHECK_EQ_I64(ml_memview_total_at(v, &tc, &names, 0, 1, 1), G + (256 << 20));
    CHECK_EQ_I64(ml_memview_total_at(v, &tc, &names, 1, 0, 1), -1);
    /* sorted by the total at allocation: 320 MiB after the second, 256 after the first */
    uint32_t *ord = ml_memview_order(v, &names, &tc, ML_MV_SORT_AA);
    CHECK_EQ_STR(id_list(ord, v->n), "0,1");
    free(ord);
    ord = ml_memview_order(v, &names, &tc, ML_MV_SORT_RA);  /* at release: G+256M then G */
    CHECK_EQ_STR(id_list(ord, v->n), "0,1");
    CHECK_EQ_I64(ml_memview_total_at(v, &tc, &names, 0, 1, 0), G);
    free(ord);
    ml_memview_free(v);
    ml_mv_strings_free(&st);
    ml_profile_free(p);
}

/* A step curve of n points with its pyramid (the view's curves are such). */
typedef struct test_curve {
    ml_m4 py;
    ml_m4_curve c;
} test_curve;

static void test_curve_make(test_curve *tc, const int64_t *t, const int64_t *v, size_t n)
{
    ml_m4_build(v, n, &tc->py);
    tc->c = (ml_m4_curve){ .n = n, .fan = ML_M4_FAN, .t = t, .v = v, .mn = tc->py.argmin, .mx = tc->py.argmax };
    ml_m4_curve_levels(&tc->c);
}


TEST(the_curves_windows_draw_extremes_edges_and_column_peaks)
{
    /* 5 at 0, 7 at 100, 3 at 200 */
    static const int64_t t[] = {0, 100, 200}, v[] = {5, 7, 3};
    test_curve a;
    test_curve_make(&a, t, v, 3);
    /* the window's max: the step in force at t0 counts */
    CHECK_EQ_I64(ml_mv_curve_max(&a.c, 0, 300), 7);
    CHECK_EQ_I64(ml_mv_curve_max(&a.c, 150, 300), 7);
    CHECK_EQ_I64(ml_mv_curve_max(&a.c, 210, 300), 3);
    /* the points: every one, closed at t1 with the value in force */
    ml_mv_points pts;
    ml_mv_curve_window(&a.c, 0, 300, 300, &pts);
    CHECK_EQ_STR(i64_list(pts.t, pts.n), "0,100,200,300");
    CHECK_EQ_STR(i64_list(pts.v, pts.n), "5,7,3,3");
    ml_mv_points_free(&pts);
    /* inside: the step in force at t0 starts at t0 */
    ml_mv_curve_window(&a.c, 50, 150, 100, &pts);
    CHECK(pts.n >= 2);
    if (pts.n >= 2) {
        CHECK_EQ_I64(pts.t[0], 50);
        CHECK_EQ_I64(pts.v[0], 5);
        CHECK_EQ_I64(pts.t[1], 100);
        CHECK_EQ_I64(pts.v[1], 7);
    }
    ml_mv_points_free(&pts);
    /* per column of 100 ns: the highest value and when; the part the tracked curve (1, then 2 from 150) leaves */
    static const int64_t tt[] = {0, 150}, tv[] = {1, 2};
    test_curve tr;
    test_curve_make(&tr, tt, tv, 2);
    ml_mv_peak_columns cp;
    ml_mv_column_peaks(&a.c, &tr.c, 0, 300, 3, &cp);
    CHECK_EQ_I64(cp.n, 3);
    CHECK_EQ_STR(i64_list(cp.t, cp.n), "0,100,200");
    CHECK_EQ_STR(i64_list(cp.v, cp.n), "5,7,3");
    CHECK_EQ_STR(i64_list(cp.base, cp.n), "4,6,1");
    ml_mv_peak_columns_free(&cp);
    /* shifted by 50: a column whose value in force beats what changes in it says so at its first ns */
    ml_mv_column_peaks(&a.c, NULL, 50, 350, 3, &cp);
    CHECK_EQ_STR(i64_list(cp.t, cp.n), "100,150,250");
    CHECK_EQ_STR(i64_list(cp.v, cp.n), "7,7,3");
    CHECK_EQ_STR(i64_list(cp.base, cp.n), "0,0,0");    /* no tracked curve: nothing known */
    ml_mv_peak_columns_free(&cp);
    ml_mv_column_peaks(NULL, NULL, 0, 300, 3, &cp);      /* no curve: no column */
    CHECK_EQ_I64(cp.n, 0);
    ml_mv_peak_columns_free(&cp);
    /* two band tops on shared times: read at the union of their points, closed at t1 */
    static const int64_t b0[] = {1, 2, 1}, b1[] = {3, 5, 2};
    test_curve tops[2];
    test_curve_make(&tops[0], t, b0, 3);
    test_curve_make(&tops[1], t, b1, 3);
    ml_m4_curve tc[2] = { tops[0].c, tops[1].c };
    ml_mv_band_points bp;
    ml_mv_bands_window(tc, 2, 0, 300, 300, &bp);
    CHECK_EQ_I64(bp.nbands, 2);
    CHECK_EQ_STR(i64_list(bp.t, bp.n), "0,100,200,300");
    CHECK_EQ_STR(i64_list(bp.v[0], bp.n), "1,2,1,1");
    CHECK_EQ_STR(i64_list(bp.v[1], bp.n), "3,5,2,2");
    ml_mv_band_points_free(&bp);
    ml_mv_bands_window(tc, 0, 0, 300, 300, &bp);         /* no band: nothing */
    CHECK_EQ_I64(bp.n, 0);
    ml_mv_band_points_free(&bp);
    ml_m4_free(&a.py);
    ml_m4_free(&tr.py);
    ml_m4_free(&tops[0].py);
    ml_m4_free(&tops[1].py);
}

TEST(m4_select_keeps_every_column_s_extremes)
{
    /* 16 points, value i except a spike at 9 and a dip at 4 */
    int64_t t[16], v[16];
    for (int i = 0; i < 16; i++) { t[i] = i * 10; v[i] = i; }
    v[9] = 100;
    v[4] = -5;
    ml_m4 py;
    ml_m4_build(v, 16, &py);
    ml_m4_curve c = { .n = 16, .fan = ML_M4_FAN, .t = t, .v = v, .mn = py.argmin, .mx = py.argmax };
    CHECK_EQ_I64(ml_m4_curve_levels(&c), py.total);
    CHECK_EQ_I64(c.levels, 2);
    /* one column over everything: first, min, max, last */
    ml_m4_pick q;
    ml_m4_select(&c, 0, 160, 1, &q);
    CHECK_EQ_I64(q.out.len, 4);
    if (q.out.len == 4) {
        CHECK_EQ_I64(q.out.v[0], 0);
        CHECK_EQ_I64(q.out.v[1], 4);
        CHECK_EQ_I64(q.out.v[2], 9);
        CHECK_EQ_I64(q.out.v[3], 15);
    }
    VEC_FREE(&q.out);
    /* a window inside: the step in force at its start comes first */
    ml_m4_select(&c, 55, 95, 2, &q);
    CHECK(q.out.len >= 2);
    if (q.out.len) CHECK_EQ_I64(q.out.v[0], 5);
    const int64_t *vs[1] = { v };
    size_t n = ml_m4_compact(t, vs, 1, q.out.v, q.out.len, q.t0, q.dt);
    bool spike = false;
    for (size_t k = 0; k < n; k++) spike |= q.out.v[k] == 9;
    CHECK(spike);
    VEC_FREE(&q.out);
    ml_m4_free(&py);
}

int main(void)
{
    RUN(the_column_table_is_data_md_s_list);
    RUN(a_tiny_profile_s_view);
    RUN(the_live_curve_takes_allocations_at_one_time_in_event_order);
    RUN(the_window_query_draws_bars_a_pixel_wide_and_counts_the_rest);
    RUN(the_table_query_filters_sorts_and_pages);
    RUN(totals_at_an_allocation_and_its_release);
    RUN(the_curves_windows_draw_extremes_edges_and_column_peaks);
    RUN(m4_select_keeps_every_column_s_extremes);
    return check_report();
}
