/* test_ascend.c — Ascend text and SQLite imports, directories, and the curve
 * analyses, against ../shared/data/ascend.  Expected values come from
 * tests/ascend_expected.py (Python csv/sqlite3/decimal, independent of memlens). */
#include "check.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ascend.h"
#include "components.h"
#include "importer.h"

static char path_buf[1024];

static int64_t value_at(const ml_profile *p, ml_series_kind kind, const char *comp, size_t i);

static const char *data_path(const char *rel)
{
    snprintf(path_buf, sizeof path_buf, "%s/ascend/%s", check_data_dir(), rel);
    return access(path_buf, R_OK) == 0 ? path_buf : NULL;
}

#define TEXT0 "text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/"
#define DB0 "db_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db"

static int add_csv(ml_profile *p, const char *path, ml_err *e)
{
    ml_source *src;
    if (ml_source_open(path, &src, e)) return -1;
    int r = ml_ascend_csv_add(src, p, e);
    ml_source_close(src);
    return r;
}

static ml_profile *load_text0(ml_err *e)
{
    const char *files[] = {TEXT0 "memory_record.csv", TEXT0 "operator_memory.csv", TEXT0 "npu_module_mem.csv"};
    ml_profile *p = ml_profile_new("text0", "ascend-text");
    for (size_t i = 0; i < 3; i++) {
        const char *f = data_path(files[i]);
        if (!f || add_csv(p, f, e)) {
            ml_profile_free(p);
            return NULL;
        }
    }
    ml_ascend_overall(p);
    ml_profile_finish(p);
    return p;
}

static void check_peak(const ml_profile *p, uint16_t dev, ml_series_kind kind, const char *comp,
                       int64_t want, int64_t want_t, size_t npoints)
{
    const ml_series *s = ml_series_find(p, dev, kind, comp, 0);
    int64_t v = -1, t = -1;
    CHECK(ml_series_peak(s, &v, &t));
    CHECK_EQ_I64(v, want);
    CHECK_EQ_I64(t, want_t);
    if (npoints) CHECK_EQ_I64(s ? s->ts.len : 0, npoints);
}

static void check_live(const ml_profile *p, uint16_t dev, int64_t t, size_t ngroups, int64_t total,
                       const char *top, int64_t top_bytes, int64_t top_count)
{
    ml_live_group *g;
    int64_t sum;
    size_t n = ml_live_at(p, dev, t, false, &g, &sum);
    CHECK_EQ_I64(n, ngroups);
    CHECK_EQ_I64(sum, total);
    if (n) {
        CHECK_EQ_STR(ml_s(p, g[0].name), top);
        CHECK_EQ_I64(g[0].bytes, top_bytes);
        CHECK_EQ_I64(g[0].count, top_count);
    }
    free(g);
}

TEST(text_rank0)
{
    if (!data_path(TEXT0 "memory_record.csv")) SKIP("no ../shared/data/ascend");
    ml_err e = {{0}};
    ml_profile *p = load_text0(&e);
    CHECK(p != NULL);
    if (!p) { printf("%s\n", e.msg); return; }
    CHECK_EQ_I64(p->devices.len, 1);
    int dev = ml_device_find(p, "npu:0");
    CHECK_EQ_I64(dev, 0);
    CHECK(p->time_is_absolute);
    CHECK_EQ_STR(ml_s(p, ml_headline_component(p, 0)), "PTA+GE");
    check_peak(p, 0, ML_SERIES_RESERVED, NULL, 1600913408LL, 1736408883704614040LL, 495); /* overall = PTA+GE */
    /* 1261.04296875 MB, 1526.75 MB, 2113.73046875 MB (MiB) */
    check_peak(p, 0, ML_SERIES_ALLOCATED, "PTA+GE", 1322299392LL, 1736408883743396450LL, 495);
    check_peak(p, 0, ML_SERIES_RESERVED, "PTA+GE", 1600913408LL, 1736408883704614040LL, 495);
    check_peak(p, 0, ML_SERIES_ACTIVE, "PTA+GE", 1245688832LL, 1736408883743242970LL, 0);
    check_peak(p, 0, ML_SERIES_APP_RESERVED, NULL, 2216407040LL, 1736408883733932920LL, 14);
    check_peak(p, 0, ML_SERIES_ALLOCATED, "PTA", 1245688832LL, 1736408883743242970LL, 381);
    check_peak(p, 0, ML_SERIES_RESERVED, "GE", 78381056LL, 1736408883704614040LL, 114);
    CHECK(ml_series_find(p, 0, ML_SERIES_ACTIVE, "GE", 0) == NULL); /* blank in the file */
    check_peak(p, 0, ML_SERIES_OTHER, "HCCL", 423690240LL, 1736408883657086220LL, 14);
    check_peak(p, 0, ML_SERIES_OTHER, "APP", 1522532352LL, 1736408883657086220LL, 14);
    /* Per-stream series: PTA rows name streams 897357296 (852 rows) and 904703504 (24). */
    ml_str s1 = ml_intern_cstr(p->strings, "897357296");
    const ml_series *ss = ml_series_find(p, 0, ML_SERIES_ALLOCATED, "PTA", s1);
    CHECK(ss != NULL);
    const ml_series *ss2 = ml_series_find(p, 0, ML_SERIES_ALLOCATED, "PTA+GE", s1);
    CHECK(ss2 != NULL);
    if (ss && ss2) CHECK_EQ_I64(ss->ts.len + ss2->ts.len, 852);
    /* operator_memory: 184 rows, 24 never released (264920064 bytes) */
    CHECK_EQ_I64(ml_allocs_count(p), 184);
    int64_t cnt, bytes;
    ml_unreleased(p, 0, &cnt, &bytes);
    CHECK_EQ_I64(cnt, 24);
    CHECK_EQ_I64(bytes, 264920064LL);
    CHECK_EQ_I64(p->allocs.size.v[0], 19268096LL); /* 18816.5 KB */
    CHECK_EQ_I64(p->allocs.t_alloc.v[0], 1736408883694624810LL);
    CHECK_EQ_I64(p->allocs.t_free.v[2], 1736408883736793940LL);
    CHECK_EQ_I64(p->allocs.t_free_req.v[2], 1736408883736793430LL);
    CHECK_EQ_I64(p->allocs.flags.v[0], ML_ALLOC_NEVER_FREED);
    check_live(p, 0, 1736408883743396450LL, 12, 586741248LL, "aten::_foreach_add", 245275136LL, 16);
    ml_profile_free(p);
}

TEST(db_rank0)
{
    const char *db = data_path(DB0);
    if (!db) SKIP("no ../shared/data/ascend");
    ml_err e = {{0}};
    ml_profile *p = ml_profile_new(db, "ascend-db");
    CHECK_EQ_I64(ml_ascend_db_add(db, p, &e), 0);
    ml_ascend_overall(p);
    ml_profile_finish(p);
    CHECK_EQ_I64(p->rank, 0);
    check_peak(p, 0, ML_SERIES_ALLOCATED, NULL, 1263251456LL, 1736410576444401680LL, 495); /* overall = PTA+GE */
    CHECK_EQ_I64(ml_device_find(p, "npu:0"), 0);
    check_peak(p, 0, ML_SERIES_ALLOCATED, "PTA+GE", 1263251456LL, 1736410576444401680LL, 495);
    check_peak(p, 0, ML_SERIES_RESERVED, "PTA+GE", 1600913408LL, 1736410576404432130LL, 495);
    check_peak(p, 0, ML_SERIES_ACTIVE, "PTA+GE", 1245688832LL, 1736410576442657420LL, 0);
    check_peak(p, 0, ML_SERIES_APP_RESERVED, NULL, 2216402944LL, 1736410576446211200LL, 14);
    check_peak(p, 0, ML_SERIES_OTHER, "HCCL", 423690240LL, 1736410576357979490LL, 14);
    check_peak(p, 0, ML_SERIES_OTHER, "DEVICE", 2468032512LL, 1736410576346430200LL, 14);
    CHECK_EQ_I64(ml_allocs_count(p), 184);
    int64_t cnt, bytes;
    ml_unreleased(p, 0, &cnt, &bytes);
    CHECK_EQ_I64(cnt, 24);
    CHECK_EQ_I64(bytes, 264920064LL);
    check_live(p, 0, 1736410576444401680LL, 12, 527693312LL, "aten::_foreach_add", 245275136LL, 16);
    ml_profile_free(p);
}

/* Points at which two series hold the same value, index by index. */
static size_t equal_points(const ml_series *a, const ml_series *b)
{
    size_t n = 0;
    for (size_t i = 0; a && b && i < a->value.len && i < b->value.len; i++) n += a->value.v[i] == b->value.v[i];
    return n;
}

/* The text and db exports of rank 0 are two runs of the same script (28
 * minutes apart, other stream pointers), read into the same model: same
 * devices, units (bytes), component, operator and module names.  Where the two
 * runs recorded the same figures they must come out equal, point by point;
 * tests/ascend_expected.py (text vs db) counts them independently:
 *   GE allocated/reserved 114/114, PTA reserved 381/381, PTA allocated
 *   378/381, PTA active 376/381, PTA+GE allocated 265/495, reserved 494/495,
 *   active 275/495 (the combined records interleave PTA and GE differently);
 *   GE active absent in both; operators 184/184 by name ("cann::" GE names),
 *   size and released-or-not; module series equal for 76 of 77, module 74 is
 *   AML in the text and AMP in the db's ENUM_MODULE.  Times differ throughout. */
TEST(text_and_db_agree)
{
    char db[1024];
    if (!data_path(DB0) || !data_path(TEXT0 "memory_record.csv")) SKIP("no ../shared/data/ascend");
    snprintf(db, sizeof db, "%s", data_path(DB0));
    ml_err e = {{0}};
    ml_profile *t = load_text0(&e);
    ml_profile *d = ml_profile_new(db, "ascend-db");
    CHECK(t != NULL);
    CHECK_EQ_I64(ml_ascend_db_add(db, d, &e), 0);
    CHECK_EQ_STR(e.msg, "");
    ml_ascend_overall(d);
    ml_profile_finish(d);
    if (!t || !d->devices.len) { ml_profile_free(t); ml_profile_free(d); return; }
    CHECK_EQ_STR(t->devices.v[0].id, d->devices.v[0].id);
    static const struct { const char *comp; ml_series_kind kind; size_t points, equal; } same[] = {
        {"PTA", ML_SERIES_ALLOCATED, 381, 378}, {"PTA", ML_SERIES_RESERVED, 381, 381},
        {"PTA", ML_SERIES_ACTIVE, 381, 376},    {"GE", ML_SERIES_ALLOCATED, 114, 114},
        {"GE", ML_SERIES_RESERVED, 114, 114},   {"PTA+GE", ML_SERIES_ALLOCATED, 495, 265},
        {"PTA+GE", ML_SERIES_RESERVED, 495, 494}, {"PTA+GE", ML_SERIES_ACTIVE, 495, 275},
    };
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        const ml_series *a = ml_series_find(t, 0, same[i].kind, same[i].comp, 0);
        const ml_series *b = ml_series_find(d, 0, same[i].kind, same[i].comp, 0);
        if (!a || !b) {
            CHECK_FAILED_("%s kind %d missing", same[i].comp, same[i].kind);
            continue;
        }
        CHECK_EQ_I64(a->value.len, same[i].points);
        CHECK_EQ_I64(b->value.len, same[i].points);
        if (equal_points(a, b) != same[i].equal)
            CHECK_FAILED_("%s kind %d: %zu equal points, expected %zu", same[i].comp, same[i].kind,
                          equal_points(a, b), same[i].equal);
    }
    /* units: the first PTA+GE record is 935.9951171875 MB in the text and 981462016 bytes in the db */
    CHECK_EQ_I64(value_at(t, ML_SERIES_ALLOCATED, "PTA+GE", 0), 981462016LL);
    CHECK_EQ_I64(value_at(d, ML_SERIES_ALLOCATED, "PTA+GE", 0), 981462016LL);
    CHECK(ml_series_find(t, 0, ML_SERIES_ACTIVE, "GE", 0) == NULL); /* blank in the text */
    CHECK(ml_series_find(d, 0, ML_SERIES_ACTIVE, "GE", 0) == NULL); /* all 0 in the db */
    /* operators, in file order */
    CHECK_EQ_I64(ml_allocs_count(t), 184);
    CHECK_EQ_I64(ml_allocs_count(d), 184);
    size_t same_ops = 0;
    for (size_t i = 0; i < ml_allocs_count(t) && i < ml_allocs_count(d); i++)
        same_ops += !strcmp(ml_s(t, t->allocs.op.v[i]), ml_s(d, d->allocs.op.v[i])) &&
                    t->allocs.size.v[i] == d->allocs.size.v[i] &&
                    (t->allocs.flags.v[i] & ML_ALLOC_NEVER_FREED) == (d->allocs.flags.v[i] & ML_ALLOC_NEVER_FREED);
    CHECK_EQ_I64(same_ops, 184);
    size_t cann = 0;
    for (size_t i = 0; i < ml_allocs_count(d); i++) cann += !strncmp(ml_s(d, d->allocs.op.v[i]), "cann::", 6);
    CHECK_EQ_I64(cann, 57); /* the GE rows: 57 of operator_memory.csv's names start with cann:: */
    /* modules */
    size_t nmod = 0, same_mod = 0;
    for (size_t i = 0; i < t->series.len; i++) {
        const ml_series *s = &t->series.v[i];
        if (s->kind != ML_SERIES_OTHER) continue;
        nmod++;
        const ml_series *b = ml_series_find(d, 0, ML_SERIES_OTHER, ml_s(t, s->component), 0);
        if (!b && strcmp(ml_s(t, s->component), "AML") != 0)
            CHECK_FAILED_("module %s missing in db", ml_s(t, s->component));
        same_mod += b && b->value.len == s->value.len && equal_points(s, b) == s->value.len;
    }
    CHECK_EQ_I64(nmod, 77);
    CHECK_EQ_I64(same_mod, 76);
    CHECK(ml_series_find(d, 0, ML_SERIES_OTHER, "AMP", 0) != NULL);
    /* streams are decimal text in both; the pointers themselves differ between the runs */
    size_t nstream_t = 0, nstream_d = 0;
    for (size_t i = 0; i < t->series.len; i++) nstream_t += t->series.v[i].stream != 0;
    for (size_t i = 0; i < d->series.len; i++) nstream_d += d->series.v[i].stream != 0;
    CHECK_EQ_I64(nstream_t, nstream_d);
    CHECK(ml_series_find(d, 0, ML_SERIES_ALLOCATED, "PTA", ml_intern_cstr(d->strings, "733279888")) != NULL);
    ml_profile_free(t);
    ml_profile_free(d);
}

TEST(static_graph)
{
    const char *f = data_path("static/test_rank_1/ASCEND_PROFILER_OUTPUT/static_op_mem.csv");
    if (!f) SKIP("no ../shared/data/ascend");
    ml_err e = {{0}};
    ml_profile *p = ml_profile_new(f, "ascend-text");
    CHECK_EQ_I64(add_csv(p, f, &e), 0);
    ml_profile_finish(p);
    CHECK_EQ_STR(p->format, "ascend-static");
    CHECK(p->time_is_event_order);
    CHECK_EQ_I64(ml_allocs_count(p), 54);
    int dev = ml_device_find(p, "cpu"); /* Device_id "host" */
    CHECK_EQ_I64(dev, 0);
    ml_str g0 = ml_intern_cstr(p->strings, "model 0 graph 0"), g1 = ml_intern_cstr(p->strings, "model 0 graph 1");
    int64_t peak = -1, at = -1;
    CHECK(ml_allocs_peak(p, 0, g0, &peak, &at));
    CHECK_EQ_I64(peak, 6300409);
    CHECK_EQ_I64(at, 27);
    CHECK(ml_allocs_peak(p, 0, g1, &peak, &at));
    CHECK_EQ_I64(peak, 8700377);
    CHECK_EQ_I64(at, 32);
    check_peak(p, 0, ML_SERIES_RESERVED, "model 0 graph 0", 17623552, 1, 1); /* TOTAL 17210.5 KB */
    check_peak(p, 0, ML_SERIES_RESERVED, "model 0 graph 1", 20388352, 1, 1);
    int64_t cnt, bytes;
    ml_unreleased(p, 0, &cnt, &bytes);
    CHECK_EQ_I64(cnt, 10);
    ml_profile_free(p);
}

/* The whole *_ascend_pt folder: rank from profiler_info_0.json, CSVs and the
 * NPU MEM counters of trace_view.json (Device/Memory -> OTHER "DEVICE"; its
 * APP counters duplicate memory_record's APP rows and are not added twice). */
TEST(directory_rank0)
{
    if (!data_path("text_level1/rank0_ascend_pt/profiler_info_0.json")) SKIP("no ../shared/data/ascend");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/ascend/text_level1/rank0_ascend_pt", check_data_dir());
    CHECK(ml_ascend_is_profile_dir(dir));
    ml_profile *ps[2];
    size_t n = 9;
    ml_err e = {{0}};
    CHECK_EQ_I64(ml_ascend_load_dir(dir, ps, &n, &e), 0);
    CHECK_EQ_I64(n, 1);
    if (n != 1) return;
    ml_profile *p = ps[0];
    CHECK_EQ_STR(p->format, "ascend-text");
    CHECK_EQ_I64(p->rank, 0);
    check_peak(p, 0, ML_SERIES_OTHER, "DEVICE", 2467627008LL, 1736408883634148920LL, 14);
    check_peak(p, 0, ML_SERIES_APP_RESERVED, NULL, 2216407040LL, 1736408883733932920LL, 14);
    check_peak(p, 0, ML_SERIES_ALLOCATED, NULL, 1322299392LL, 1736408883743396450LL, 495);
    CHECK_EQ_I64(ml_allocs_count(p), 184);
    ml_profile_free(p);

    ml_profiles all;
    memset(&all, 0, sizeof all);
    snprintf(dir, sizeof dir, "%s/ascend/db_level1", check_data_dir());
    CHECK_EQ_I64(ml_load(dir, &all, &e), 0);
    ml_profiles_sort(&all);
    CHECK_EQ_I64(all.items.len, 2);
    if (all.items.len == 2) {
        CHECK_EQ_I64(all.items.v[0]->rank, 0);
        CHECK_EQ_I64(all.items.v[1]->rank, 1);
        CHECK_EQ_STR(all.items.v[1]->format, "ascend-db");
        CHECK_EQ_STR(all.items.v[1]->devices.v[0].id, "npu:1");
    }
    ml_profiles_free(&all);
}

/* ---- bad input ---- */

static int import_named(const char *name, const char *text, ml_profile **out, ml_err *e)
{
    ml_source *src = ml_source_from_memory(name, text, strlen(text));
    ml_profile *p = ml_profile_new(name, "ascend-text");
    int r = ml_ascend_text_import(src, p, NULL, e);
    ml_source_close(src);
    if (out) *out = p;
    else ml_profile_free(p);
    return r;
}

static int import_text(const char *text, ml_profile **out, ml_err *e) { return import_named("bad.csv", text, out, e); }

static bool has_note(const ml_profile *p, const char *text)
{
    for (size_t i = 0; i < p->notes.len; i++)
        if (strstr(ml_s(p, p->notes.v[i]), text)) return true;
    return false;
}

/* The one-point-per-row series value at index i, or -1. */
static int64_t value_at(const ml_profile *p, ml_series_kind kind, const char *comp, size_t i)
{
    const ml_series *s = ml_series_find(p, 0, kind, comp, 0);
    return s && i < s->value.len ? s->value.v[i] : -1;
}

#define MR_HEAD "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\r\n"
#define OM_HEAD "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Stream Ptr,Device Type\n"

TEST(bad_csv)
{
    ml_err e = {{0}};
    ml_profile *p;
    /* missing column */
    CHECK_EQ_I64(import_text("Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Stream Ptr\n"
                             "PTA,1.0,1,2,3\n", NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "bad.csv: line 1: missing column 'Device Type'");
    /* extra cell in a row */
    CHECK_EQ_I64(import_text(MR_HEAD "PTA,1.000\t,1,2,1,77,NPU:0\r\nPTA,2.000\t,1,2,1,77,NPU:0,extra\r\n", NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "bad.csv: line 3: 8 cells, but the header has 7 columns");
    /* garbage numbers */
    CHECK_EQ_I64(import_text(MR_HEAD "PTA,1.000\t,1,2,1,77,NPU:0\r\nGE,2.000\t,1x,2,,,NPU:0\r\n", NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "bad.csv: line 3: column 'Total Allocated(MB)': '1x' is not a number");
    CHECK_EQ_I64(import_text(MR_HEAD "PTA,,1,2,1,77,NPU:0\r\n", NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "line 2: column 'Timestamp(us)' is empty");
    CHECK_EQ_I64(import_text(MR_HEAD "PTA,1,1,2,1,77,GPU:0\r\n", NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "line 2: column 'Device Type': 'GPU:0' is not a device like NPU:0");
    CHECK_EQ_I64(import_text(OM_HEAD "aten::add,abc,1.0,,,1,NPU:0\n", NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "bad.csv: line 2: column 'Size(KB)': 'abc' is not a number");
    CHECK_EQ_I64(import_text("Device_id,Op Name,Model Name,Graph ID,Node Index Start,Node Index End,Size(KB)\n"
                             "host,a,0,0,1.5,3,1\n", NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "line 2: column 'Node Index Start': '1.5' is not a node index");
    /* not an Ascend file at all */
    CHECK_EQ_I64(import_text("a,b\n1,2\n", NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "bad.csv: line 1: not an Ascend memory CSV");
    /* a good small file: blank release = never freed, KB and µs exact */
    CHECK_EQ_I64(import_text(OM_HEAD "aten::add,2.5,1.001\t,,,7,NPU:1\n"
                             "aten::mul,1,2.000\t,3.500\t,3.250\t,7,NPU:1\n", &p, &e), 0);
    CHECK_EQ_I64(ml_allocs_count(p), 2);
    CHECK_EQ_STR(p->devices.v[0].id, "npu:1");
    CHECK_EQ_I64(p->allocs.size.v[0], 2560);
    CHECK_EQ_I64(p->allocs.t_alloc.v[0], 1001);
    CHECK_EQ_I64(p->allocs.t_free.v[0], ML_TIME_END);
    CHECK_EQ_I64(p->allocs.t_free.v[1], 3500);
    CHECK_EQ_I64(p->allocs.t_free_req.v[1], 3250);
    ml_profile_free(p);
}

/* Which reader a file gets: by its name when Ascend writes that name, so that
 * a missing column is an error naming it (a memory_record.csv without Total
 * Allocated used to be read as npu_module_mem); by the distinguishing columns
 * otherwise (Device Type / Stream Ptr vs Device). */
TEST(csv_kind_by_name_and_columns)
{
    ml_err e = {{0}};
    ml_profile *p;
    const char *no_alloc = "Component,Timestamp(us),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n"
                           "PTA,1.000\t,2,1,7,NPU:0\n";
    CHECK_EQ_I64(import_named("out/memory_record.csv", no_alloc, NULL, &e), -1);
    CHECK_EQ_STR(e.msg, "out/memory_record.csv: line 1: missing column 'Total Allocated(MB)'");
    CHECK_EQ_I64(import_text(no_alloc, NULL, &e), -1);
    CHECK_EQ_STR(e.msg, "bad.csv: line 1: missing column 'Total Allocated(MB)'");
    /* a memory_record.csv with npu_module_mem's header is still a memory_record.csv */
    CHECK_EQ_I64(import_named("memory_record.csv", "Component,Timestamp(us),Total Reserved(MB),Device\n"
                              "APP,1,2,NPU:0\n", NULL, &e), -1);
    CHECK_EQ_STR(e.msg, "memory_record.csv: line 1: missing column 'Total Allocated(MB)'");
    CHECK(ml_ascend_text_sniff("r/ASCEND_PROFILER_OUTPUT/memory_record.csv", (const unsigned char *)no_alloc,
                               strlen(no_alloc)) > 0);
    CHECK_EQ_I64(ml_ascend_text_sniff("notes.csv", (const unsigned char *)"a,b\n", 4), 0);
    CHECK_EQ_I64(ml_ascend_text_sniff("memory_record.csv", (const unsigned char *)"a,b\n", 4), 0); /* another tool's */
    /* by content: "Device" alone is npu_module_mem */
    CHECK_EQ_I64(import_text("Component,Timestamp(us),Total Reserved(MB),Device\nHCCL,1.000\t,2.5,NPU:0\n", &p, &e), 0);
    CHECK_EQ_I64(value_at(p, ML_SERIES_OTHER, "HCCL", 0), 2621440);
    CHECK(ml_series_find(p, 0, ML_SERIES_RESERVED, "HCCL", 0) == NULL);
    ml_profile_free(p);
    /* msprof's memory_record_<stamp>.csv: KB, and "Device" (with Total Allocated) */
    CHECK_EQ_I64(import_named("memory_record_20250109074803.csv",
                              "Device_id,Component,Timestamp(us),Total Allocated(KB),Total Reserved(KB),Device\n"
                              "0,GE,1.5,1024,2048.5,NPU:0\n", &p, &e), 0);
    CHECK_EQ_I64(value_at(p, ML_SERIES_ALLOCATED, "GE", 0), 1048576);
    CHECK_EQ_I64(value_at(p, ML_SERIES_RESERVED, "GE", 0), 2097664);
    ml_profile_free(p);
    CHECK_EQ_I64(ml_ascend_file_kind_by_name("a/npu_module_mem_1.csv.gz"), ML_ASCEND_MODULE_MEM);
    CHECK_EQ_I64(ml_ascend_file_kind_by_name("a/npu_module_memory.csv"), ML_ASCEND_UNKNOWN);
    CHECK_EQ_I64(ml_ascend_file_kind_by_name("static_op_mem.csv"), ML_ASCEND_STATIC_OP_MEM);
}

/* npu_module_mem in KB (msprof) and MB (torch_npu), with the -1 marker in
 * either unit; torch_npu converts KB to MB, so its -1 arrives as
 * -0.0009765625 MB.  Other values, negative ones too, are kept. */
TEST(module_mem_units)
{
    ml_err e = {{0}};
    ml_profile *p;
    CHECK_EQ_I64(import_named("npu_module_mem.csv",
                              "Device_id,Component,Timestamp(us),Total Reserved(KB),Device\n"
                              "0,HCCL,1.000\t,2048,NPU:0\n"
                              "0,HCCL,2.000\t,-1,NPU:0\n"
                              "0,RUNTIME,2.500\t,1.5,NPU:0\n", &p, &e), 0);
    CHECK_EQ_STR(e.msg, "");
    CHECK_EQ_I64(value_at(p, ML_SERIES_OTHER, "HCCL", 0), 2097152);
    CHECK_EQ_I64(value_at(p, ML_SERIES_OTHER, "HCCL", 1), -1); /* one point */
    CHECK_EQ_I64(value_at(p, ML_SERIES_OTHER, "RUNTIME", 0), 1536);
    CHECK(has_note(p, "npu_module_mem: 1 sample of -1 (only frees seen) left out"));
    ml_profile_free(p);
    CHECK_EQ_I64(import_named("npu_module_mem.csv",
                              "Component,Timestamp(us),Total Reserved(MB),Device\n"
                              "SLOG,1.000\t,-1,NPU:0\n"
                              "SLOG,2.000\t,-0.0009765625,NPU:0\n"
                              "SLOG,3.000\t,9.5367431640625e-07,NPU:0\n"
                              "SLOG,4.000\t,-2,NPU:0\n", &p, &e), 0);
    CHECK(has_note(p, "npu_module_mem: 2 samples of -1 (only frees seen) left out"));
    CHECK_EQ_I64(value_at(p, ML_SERIES_OTHER, "SLOG", 0), 1);
    CHECK_EQ_I64(value_at(p, ML_SERIES_OTHER, "SLOG", 1), -2097152);
    ml_profile_free(p);
}

/* A header and no rows: still a valid input, but the note names the file. */
TEST(header_only_files)
{
    ml_err e = {{0}};
    ml_profile *p;
    CHECK_EQ_I64(import_named("a/ASCEND_PROFILER_OUTPUT/memory_record.csv", MR_HEAD, &p, &e), 0);
    CHECK_EQ_I64(p->series.len, 0);
    CHECK(has_note(p, "memory_record.csv: header only, no rows"));
    ml_profile_free(p);
    CHECK_EQ_I64(import_named("operator_memory.csv", OM_HEAD, &p, &e), 0);
    CHECK_EQ_I64(ml_allocs_count(p), 0);
    CHECK(has_note(p, "operator_memory.csv: header only, no rows"));
    ml_profile_free(p);
}

/* Old Mac line ends (CR only) end records like LF and CRLF; lines still count. */
TEST(cr_only_lines)
{
    ml_err e = {{0}};
    ml_profile *p;
    CHECK_EQ_I64(import_text("Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),"
                             "Stream Ptr,Device Type\r"
                             "PTA,1.000\t,1.5,2,1,77,NPU:0\r"
                             "PTA,2.000\t,2.25,2,1,77,NPU:0\r", &p, &e), 0);
    CHECK_EQ_I64(value_at(p, ML_SERIES_ALLOCATED, "PTA", 0), 1572864);
    CHECK_EQ_I64(value_at(p, ML_SERIES_ALLOCATED, "PTA", 1), 2359296);
    const ml_series *s = ml_series_find(p, 0, ML_SERIES_ALLOCATED, "PTA", 0);
    CHECK_EQ_I64(s && s->ts.len == 2 ? s->ts.v[1] : -1, 2000);
    ml_profile_free(p);
    CHECK_EQ_I64(import_text(MR_HEAD "PTA,1.000\t,1,2,1,77,NPU:0\rPTA,2.000\t,x,2,1,77,NPU:0\r", NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "bad.csv: line 3: column 'Total Allocated(MB)': 'x' is not a number");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static bool exists(const char *dir, const char *name)
{
    char f[600];
    snprintf(f, sizeof f, "%s/%s", dir, name);
    return access(f, F_OK) == 0;
}

/* A small export in WAL mode, in a directory whose name needs URI escaping:
 * read right, and nothing (-wal, -shm) left beside it.  GE operators (rows
 * without a stream) get the text export's "cann::" prefix; GE's all-zero
 * Total Active is left out as the text leaves it blank; only the -1 marker of
 * NPU_MODULE_MEM is dropped, with a count. */
TEST(db_wal_readonly_names)
{
    char dir[] = "/tmp/memlens-test-ascend-XXXXXX";
    if (!mkdtemp(dir)) SKIP("no temporary directory");
    char sub[300], path[400];
    snprintf(sub, sizeof sub, "%s/a%%20b?c#d \xc3\xa9", dir); /* a%20b?c#d é */
    CHECK_EQ_I64(mkdir(sub, 0755), 0);
    snprintf(path, sizeof path, "%s/ascend_pytorch_profiler_3.db", sub);
    sqlite3 *db;
    CHECK_EQ_I64(sqlite3_open(path, &db), SQLITE_OK);
    CHECK_EQ_I64(sqlite3_exec(db,
                 "PRAGMA journal_mode=WAL;"
                 "CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);"
                 "INSERT INTO STRING_IDS VALUES(1,'PTA'),(2,'GE'),(3,'Conv2D1'),(4,'aten::mm'),(5,'cann::Add2');"
                 "CREATE TABLE MEMORY_RECORD(component INTEGER, timestamp INTEGER, totalAllocated INTEGER,"
                 " totalReserved INTEGER, totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);"
                 "INSERT INTO MEMORY_RECORD VALUES(1, 1000, 5, 6, 5, 9, 3), (2, 1500, 7, 8, 0, NULL, 3),"
                 " (2, 1600, 9, 10, 0, NULL, 3);"
                 "CREATE TABLE OP_MEMORY(name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER,"
                 " activeReleaseTime INTEGER, streamPtr INTEGER, deviceId INTEGER);"
                 "INSERT INTO OP_MEMORY VALUES(3, 512, 1500, 1600, NULL, NULL, 3), (4, 1024, 1000, NULL, NULL, 9, 3),"
                 " (5, 64, 1550, 1560, NULL, NULL, 3);"
                 "CREATE TABLE ENUM_MODULE(id INTEGER PRIMARY KEY, name TEXT);"
                 "INSERT INTO ENUM_MODULE VALUES(7,'HCCL');"
                 "CREATE TABLE NPU_MODULE_MEM(moduleId INTEGER, timestampNs INTEGER, totalReserved NUMERIC,"
                 " deviceId INTEGER);"
                 "INSERT INTO NPU_MODULE_MEM VALUES(7, 1000, 4096, 3), (7, 1100, -1, 3), (7, 1200, -1024, 3),"
                 " (7, 1300, -2048, 3);"
                 "CREATE TABLE RANK_DEVICE_MAP(rankId INTEGER, deviceId INTEGER);"
                 "INSERT INTO RANK_DEVICE_MAP VALUES(3, 3);",
                 NULL, NULL, NULL), SQLITE_OK);
    CHECK_EQ_I64(sqlite3_close(db), SQLITE_OK); /* the last connection checkpoints and removes -wal/-shm */
    CHECK(!exists(sub, "ascend_pytorch_profiler_3.db-wal") && !exists(sub, "ascend_pytorch_profiler_3.db-shm"));

    ml_err e = {{0}};
    ml_profile *p = ml_profile_new(path, "ascend-db");
    CHECK_EQ_I64(ml_ascend_db_add(path, p, &e), 0);
    CHECK_EQ_STR(e.msg, "");
    CHECK(!exists(sub, "ascend_pytorch_profiler_3.db-wal"));
    CHECK(!exists(sub, "ascend_pytorch_profiler_3.db-shm"));
    ml_profile_finish(p);
    CHECK_EQ_I64(p->rank, 3);
    CHECK_EQ_STR(p->devices.v[0].id, "npu:3");
    CHECK_EQ_I64(ml_allocs_count(p), 3);
    if (ml_allocs_count(p) == 3) {
        CHECK_EQ_STR(ml_s(p, p->allocs.op.v[0]), "cann::Conv2D1");
        CHECK_EQ_STR(ml_s(p, p->allocs.op.v[1]), "aten::mm");
        CHECK_EQ_STR(ml_s(p, p->allocs.op.v[2]), "cann::Add2"); /* not prefixed twice */
    }
    CHECK(ml_series_find(p, 0, ML_SERIES_ACTIVE, "GE", 0) == NULL);
    CHECK_EQ_I64(value_at(p, ML_SERIES_ACTIVE, "PTA", 0), 5);
    CHECK_EQ_I64(value_at(p, ML_SERIES_RESERVED, "GE", 1), 10);
    CHECK(has_note(p, "npu_module_mem: 2 samples of -1 (only frees seen) left out"));
    CHECK_EQ_I64(value_at(p, ML_SERIES_OTHER, "HCCL", 0), 4096);
    CHECK_EQ_I64(value_at(p, ML_SERIES_OTHER, "HCCL", 1), -2048); /* not a marker: kept, as in the text */
    ml_profile_free(p);

    /* a writer still at work (frames in the -wal): what it committed is read */
    CHECK_EQ_I64(sqlite3_open(path, &db), SQLITE_OK);
    CHECK_EQ_I64(sqlite3_exec(db, "PRAGMA wal_autocheckpoint=0; INSERT INTO MEMORY_RECORD VALUES(1, 2000, 50, 60, 50, 9, 3);",
                              NULL, NULL, NULL), SQLITE_OK);
    CHECK(exists(sub, "ascend_pytorch_profiler_3.db-wal"));
    p = ml_profile_new(path, "ascend-db");
    CHECK_EQ_I64(ml_ascend_db_add(path, p, &e), 0);
    CHECK_EQ_I64(value_at(p, ML_SERIES_ALLOCATED, "PTA", 1), 50);
    ml_profile_free(p);
    sqlite3_close(db);

    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_I64(system(cmd), 0);
}

TEST(bad_db)
{
    char dir[] = "/tmp/memlens-test-ascend-XXXXXX";
    if (!mkdtemp(dir)) SKIP("no temporary directory");
    char path[256];
    ml_err e = {{0}};
    ml_profile *p = ml_profile_new("x", "ascend-db");

    snprintf(path, sizeof path, "%s/notsqlite.db", dir);
    write_file(path, "this is not a database, just text that is long enough to have a header\n");
    CHECK_EQ_I64(ml_ascend_db_add(path, p, &e), -1);
    CHECK_CONTAINS(e.msg, "notsqlite.db: not a readable SQLite database: file is not a database");

    snprintf(path, sizeof path, "%s/missing.db", dir);
    CHECK_EQ_I64(ml_ascend_db_add(path, p, &e), -1);
    CHECK_CONTAINS(e.msg, "missing.db: cannot open as SQLite: No such file or directory");

    /* SQLite would take a 0-byte file for an empty database */
    snprintf(path, sizeof path, "%s/empty.db", dir);
    write_file(path, "");
    CHECK_EQ_I64(ml_ascend_db_add(path, p, &e), -1);
    char want[300];
    snprintf(want, sizeof want, "%s: empty file, not an SQLite database", path);
    CHECK_EQ_STR(e.msg, want);

    /* a SQLite file without the memory tables */
    snprintf(path, sizeof path, "%s/other.db", dir);
    sqlite3 *db;
    CHECK_EQ_I64(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE T(a); INSERT INTO T VALUES(1);", NULL, NULL, NULL);
    CHECK_EQ_I64(ml_ascend_db_add(path, p, &e), -1);
    CHECK_CONTAINS(e.msg, "other.db: no Ascend memory tables");

    /* wrong types in a memory table name the table, row and column */
    sqlite3_exec(db,
                 "CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);"
                 "INSERT INTO STRING_IDS VALUES(1,'PTA');"
                 "CREATE TABLE MEMORY_RECORD(component INTEGER, timestamp INTEGER, totalAllocated INTEGER,"
                 " totalReserved INTEGER, totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER);"
                 "INSERT INTO MEMORY_RECORD VALUES(1, 1000, 5, 6, 5, 9, 0);"
                 "INSERT INTO MEMORY_RECORD VALUES(1, 'soon', 5, 6, 5, 9, 0);",
                 NULL, NULL, NULL);
    CHECK_EQ_I64(ml_ascend_db_add(path, p, &e), -1);
    CHECK_CONTAINS(e.msg, "other.db: table MEMORY_RECORD: row 2: column timestamp: 'soon' is not an integer");

    /* locked by a writer: a clear error, not a hang */
    sqlite3_exec(db, "DELETE FROM MEMORY_RECORD WHERE rowid = 2;", NULL, NULL, NULL);
    CHECK_EQ_I64(sqlite3_exec(db, "BEGIN EXCLUSIVE; INSERT INTO T VALUES(2);", NULL, NULL, NULL), SQLITE_OK);
    CHECK_EQ_I64(ml_ascend_db_add(path, p, &e), -1);
    CHECK_CONTAINS(e.msg, "other.db: not a readable SQLite database: database is locked by another process");
    sqlite3_exec(db, "COMMIT;", NULL, NULL, NULL);
    ml_profile_free(p);
    p = ml_profile_new("x", "ascend-db");
    CHECK_EQ_I64(ml_ascend_db_add(path, p, &e), 0);
    CHECK_EQ_I64(p->series.len, 6); /* PTA allocated/reserved/active, all streams and stream "9" */
    sqlite3_close(db);
    ml_profile_free(p);

    /* stdin is refused (SQLite needs a file) */
    ml_source *src = ml_source_from_memory("<stdin>", "SQLite format 3", 16);
    p = ml_profile_new("-", "ascend-db");
    CHECK_EQ_I64(ml_ascend_db_import(src, p, NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "must be read from a file");
    ml_source_close(src);
    ml_profile_free(p);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_I64(system(cmd), 0);
}


/* The file line of the innermost frame of alloc i's stack ("f.py(L): fn"), or -1. */
static int32_t alloc_line(const ml_profile *p, size_t i)
{
    uint32_t st = p->allocs.stack.v[i];
    if (!st || !ml_stack_depth(p, st)) return -1;
    return p->frames.v[ml_stack_frames(p, st)[0]].line;
}

/* Operator memory linked to the CPU trace: a row takes its operator's call
 * stack, else the innermost enclosing operator's on that thread, else (under
 * a backward node) its forward operator's by sequence number; never one of
 * an ambiguous sequence number (forward ops of it on two threads), and none
 * for a row whose name no operator has. */
TEST(trace_view_stacks_inherited)
{
    ml_err e = {{0}};
    ml_profile *p;
    CHECK_EQ_I64(import_named("operator_memory.csv", OM_HEAD
                              "aten::empty,1,3.500\t,,,1,NPU:0\n"
                              "aten::mm,2,10.500\t,,,1,NPU:0\n"
                              "aten::sum,3,20.000\t,,,1,NPU:0\n"
                              "cann::X,4,5.000\t,,,,NPU:0\n"
                              "aten::addmm,5,2.000\t,,,1,NPU:0\n", &p, &e), 0);
#define EV(name, tid, ts, dur, args) \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":" tid ",\"ts\":\"" ts "\",\"dur\":" dur ",\"args\":{" args "}},"
    static const char tv[] = "{\"traceEvents\":["
        EV("aten::addmm", "1", "1.000", "5", "\"Sequence number\":7,\"Fwd thread id\":0,\"Call stack\":\"main.py(5): train;\\r\\nmain.py(1): <module>\"")
        EV("aten::empty", "1", "3.000", "1", "\"Sequence number\":-1,\"Fwd thread id\":0")
        EV("aten::add", "1", "7.000", "1", "\"Sequence number\":9,\"Fwd thread id\":0,\"Call stack\":\"main.py(6): train\"")
        EV("aten::add", "3", "7.000", "1", "\"Sequence number\":9,\"Fwd thread id\":0,\"Call stack\":\"other.py(2): f\"")
        EV("AddmmBackward0", "2", "10.000", "3", "\"Sequence number\":7,\"Fwd thread id\":1")
        EV("aten::mm", "2", "10.200", "1", "\"Sequence number\":-1,\"Fwd thread id\":0")
        EV("AddBackward0", "2", "19.000", "3", "\"Sequence number\":9,\"Fwd thread id\":1")
        EV("aten::sum", "2", "19.500", "1", "\"Sequence number\":-1,\"Fwd thread id\":0")
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"x\"}}]}";
#undef EV
    ml_source *src = ml_source_from_memory("trace_view.json", tv, strlen(tv));
    CHECK_EQ_I64(ml_ascend_trace_view_ops(src, p, &e), 0);
    ml_source_close(src);
    CHECK_EQ_I64(ml_allocs_count(p), 5);
    if (ml_allocs_count(p) == 5) {
        CHECK_EQ_I64(alloc_line(p, 0), 5);  /* aten::empty: inside aten::addmm on its thread */
        CHECK_EQ_I64(alloc_line(p, 1), 5);  /* aten::mm: under AddmmBackward0, seq 7 -> aten::addmm */
        CHECK_EQ_I64(alloc_line(p, 2), -1); /* aten::sum: seq 9 has forward ops on two threads */
        CHECK_EQ_I64(alloc_line(p, 3), -1); /* cann::X: no operator of that name */
        CHECK_EQ_I64(alloc_line(p, 4), 5);  /* aten::addmm: its own */
    }
    CHECK(has_note(p, "4 of 5 rows linked to their operator in the CPU trace (3 with its call stack; of 8 operators, "
                      "3 have a stack of their own, 1 that of an enclosing operator, 2 (backward) that of their "
                      "forward operator)"));
    ml_profile_free(p);
}

int main(void)
{
    RUN(text_rank0);
    RUN(db_rank0);
    RUN(text_and_db_agree);
    RUN(static_graph);
    RUN(directory_rank0);
    RUN(bad_csv);
    RUN(csv_kind_by_name_and_columns);
    RUN(module_mem_units);
    RUN(header_only_files);
    RUN(cr_only_lines);
    RUN(bad_db);
    RUN(db_wal_readonly_names);
    RUN(trace_view_stacks_inherited);
    return check_report();
}
