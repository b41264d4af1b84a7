/* Memory categories (one hand-written step per rule), the memory timeline
 * importer, exports and their round trip, and the real raw timeline against
 * figures computed independently by tests/memtimeline_expected.py. */
#include "check.h"
#include "attribute.h"
#include "categories.h"
#include "export.h"
#include "importer.h"
#include "stats.h"

#include <stdarg.h>
#include <unistd.h>

static ml_err err;

/* ---- a small Kineto trace built event by event -------------------------- */

static char tr[1 << 16];
static size_t tr_len;
static int64_t tr_total;

static void add(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (tr_len) tr[tr_len++] = ',';
    tr_len += (size_t)vsnprintf(tr + tr_len, sizeof tr - tr_len, fmt, ap);
    va_end(ap);
}

static void op(int ts, int dur, int tid, const char *cat, const char *name)
{
    add("{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d}", cat, name, tid, ts, dur);
}

/* Memory events must be added in time order: Total Allocated is their running sum. */
static void mem(int ts, int tid, int addr, int bytes)
{
    tr_total += bytes;
    add("{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":%d,\"ts\":%d,"
        "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":%d,\"Bytes\":%d,\"Total Allocated\":%lld,\"Total Reserved\":0}}",
        tid, ts, addr, bytes, (long long)tr_total);
}

static ml_profile *import_trace(void)
{
    static char doc[sizeof tr + 128];
    snprintf(doc, sizeof doc, "{\"traceEvents\":[%.*s], \"baseTimeNanoseconds\": 1700000000000000000}", (int)tr_len, tr);
    ml_source *src = ml_source_from_memory("t.json", doc, strlen(doc));
    ml_profile *p = ml_profile_new("t.json", "kineto");
    err.msg[0] = 0;
    int rc = ml_kineto_import(src, p, &err);
    ml_source_close(src);
    if (rc < 0) {
        printf("import failed: %s\n", err.msg);
        ml_profile_free(p);
        return NULL;
    }
    ml_attribute(p);
    ml_categorize(p);
    return p;
}

#define GAP 1000000 /* memory from before the trace that the trace never frees */

/*
 * One training step (µs).  Main thread 7, autograd thread 8.
 *   500          alloc before the first step, never freed            -> PARAMETER_OR_STATE
 *   1000-2000    ProfilerStep#1
 *   1010-1050    DataLoader: alloc, freed at 1060                    -> INPUT (data)
 *   1060         aten::to: alloc kept                                -> INPUT (copy kept)
 *   1100 linear  alloc freed in backward at 1400                     -> ACTIVATION
 *   1130 mul     alloc freed inside the op                           -> TEMPORARY (same op)
 *   1160 add     alloc freed at 1200, before backward                -> TEMPORARY (forward)
 *   1205         free of memory from before the trace, in forward    -> Unknown
 *   1210 nll     alloc kept                                          -> ACTIVATION (kept)
 *   1300-1415    backward on thread 8: scratch freed in the next node -> AUTOGRAD_DETAIL,
 *                gradient freed at 1800                              -> GRADIENT,
 *                free of memory from before the trace at 1410        -> ACTIVATION
 *   1450 norm    alloc freed at 1470 (after backward)                -> TEMPORARY (post-backward)
 *   1500-1600    Optimizer.step: state kept                          -> OPTIMIZER_STATE,
 *                scratch freed at 1560                               -> TEMPORARY (optimizer)
 *   2500         alloc between steps                                 -> Unknown
 */
static ml_profile *step_trace(void)
{
    tr_len = 0;
    tr_total = GAP + 8192 + 16;
    add("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":7,\"ts\":1000,\"dur\":1000}");
    op(1010, 40, 7, "user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    op(1020, 5, 7, "cpu_op", "aten::empty");
    op(1060, 10, 7, "cpu_op", "aten::to");
    op(1100, 20, 7, "cpu_op", "aten::linear");
    op(1130, 20, 7, "cpu_op", "aten::mul");
    op(1160, 20, 7, "cpu_op", "aten::add");
    op(1210, 10, 7, "cpu_op", "aten::nll_loss");
    op(1300, 50, 8, "cpu_op", "autograd::engine::evaluate_function: AddmmBackward0");
    op(1355, 60, 8, "cpu_op", "autograd::engine::evaluate_function: MulBackward0");
    op(1450, 10, 7, "cpu_op", "aten::_foreach_norm");
    op(1500, 100, 7, "user_annotation", "Optimizer.step#SGD.step");
    op(1510, 10, 7, "cpu_op", "aten::zeros_like");
    op(1530, 10, 7, "cpu_op", "aten::_foreach_sqrt");
    mem(500, 7, 100, 64);
    mem(1022, 7, 101, 128);
    mem(1062, 7, 102, 256);
    mem(1065, 7, 101, -128);
    mem(1105, 7, 103, 512);
    mem(1132, 7, 104, 1024);
    mem(1140, 7, 104, -1024);
    mem(1165, 7, 105, 2048);
    mem(1200, 7, 105, -2048);
    mem(1205, 7, 9001, -16);
    mem(1212, 7, 106, 4);
    mem(1305, 8, 107, 4096);
    mem(1310, 8, 108, 8192);
    mem(1360, 8, 107, -4096);
    mem(1400, 8, 103, -512);
    mem(1410, 8, 9000, -8192);
    mem(1452, 7, 109, 16);
    mem(1470, 7, 109, -16);
    mem(1512, 7, 110, 32768);
    mem(1532, 7, 111, 32);
    mem(1560, 7, 111, -32);
    mem(1800, 7, 108, -8192);
    mem(2500, 7, 112, 100000);
    return import_trace();
}

static int find(const ml_profile *p, uint64_t addr)
{
    for (size_t i = 0; i < p->allocs.addr.len; i++)
        if (p->allocs.addr.v[i] == addr) return (int)i;
    return -1;
}

#define CHECK_CAT(p, addr, cat, reason)                                                    \
    do {                                                                                   \
        int i_ = find(p, addr);                                                            \
        CHECK(i_ >= 0);                                                                    \
        if (i_ >= 0) {                                                                     \
            CHECK_EQ_STR(ml_category_name((p)->allocs.category.v[i_]), ml_category_name(cat)); \
            CHECK_EQ_STR(ml_category_reason_id((p)->allocs.category_reason.v[i_]), ml_category_reason_id(reason)); \
        }                                                                                  \
    } while (0)

TEST(each_rule_on_one_step)
{
    ml_profile *p = step_trace();
    CHECK(p != NULL);
    if (!p) return;
    CHECK_CAT(p, 100, ML_CAT_PARAMETER_OR_STATE, ML_REASON_BEFORE_STEPS_KEPT);
    CHECK_CAT(p, 101, ML_CAT_INPUT, ML_REASON_DATA);
    CHECK_CAT(p, 102, ML_CAT_INPUT, ML_REASON_COPY_KEPT);
    CHECK_CAT(p, 103, ML_CAT_ACTIVATION, ML_REASON_FWD_FREED_IN_BWD);
    CHECK_CAT(p, 104, ML_CAT_TEMPORARY, ML_REASON_SAME_OP);
    CHECK_CAT(p, 105, ML_CAT_TEMPORARY, ML_REASON_FWD_FREED_IN_FWD);
    CHECK_CAT(p, 9001, ML_CAT_UNKNOWN, ML_REASON_BEFORE_TRACE_FREED);
    CHECK_CAT(p, 106, ML_CAT_ACTIVATION, ML_REASON_FWD_KEPT);
    CHECK_CAT(p, 107, ML_CAT_AUTOGRAD_DETAIL, ML_REASON_BWD_FREED_IN_BWD);
    CHECK_CAT(p, 108, ML_CAT_GRADIENT, ML_REASON_BWD_KEPT);
    CHECK_CAT(p, 9000, ML_CAT_ACTIVATION, ML_REASON_BEFORE_TRACE_FREED_BWD);
    CHECK_CAT(p, 109, ML_CAT_TEMPORARY, ML_REASON_POSTBW_FREED);
    CHECK_CAT(p, 110, ML_CAT_OPTIMIZER_STATE, ML_REASON_OPT_KEPT);
    CHECK_CAT(p, 111, ML_CAT_TEMPORARY, ML_REASON_OPT_FREED);
    CHECK_CAT(p, 112, ML_CAT_UNKNOWN, ML_REASON_OUTSIDE_STEPS);
    ml_profile_free(p);
}

TEST(categories_at_peak_add_up_with_memory_from_before_the_trace)
{
    ml_profile *p = step_trace();
    if (!p) return;
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_CATEGORY, &st);
    CHECK(st.peak_allocated.found);
    /* The peak is the last alloc (2500): everything never freed, plus the gap. */
    int64_t sum = 0;
    for (int k = 0; k < ML_CAT__COUNT; k++) sum += st.categories_at_peak[k];
    CHECK_EQ_I64(sum, st.peak_allocated.value);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_PARAMETER_OR_STATE], GAP + 64);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_INPUT], 256);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_ACTIVATION], 4);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_OPTIMIZER_STATE], 32768);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_UNKNOWN], 100000);
    /* --by category groups the allocations of the trace by their category */
    bool found = false;
    for (size_t i = 0; i < st.at_peak.n; i++)
        if (!strcmp(st.at_peak.groups[i].label, "OPTIMIZER_STATE")) found = st.at_peak.groups[i].bytes == 32768;
    CHECK(found);
    ml_device_stats_free(&st);

    ml_cat_changes ch;
    ml_category_changes(p, 0, &ch);
    CHECK_EQ_I64(ch.gap, GAP);
    ml_cat_changes_free(&ch);
    ml_category_curves cc;
    CHECK(ml_category_curves_get(p, 0, &cc));
    CHECK_EQ_I64(cc.peak[ML_CAT_ACTIVATION], 512 + 4 + 8192); /* 1212: linear + nll + the pre-trace one */
    CHECK_EQ_I64(cc.value[ML_CAT_GRADIENT][cc.n - 1], 0);
    ml_category_curves_free(&cc);
    ml_profile_free(p);
}

TEST(optimizer_frames_without_annotation_and_no_ops_at_all)
{
    tr_len = 0;
    tr_total = 0;
    /* python frames of torch/optim stand in for the Optimizer.step annotation */
    add("{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"torch/optim/adam.py(120): step\",\"pid\":1,\"tid\":7,"
        "\"ts\":100,\"dur\":100,\"args\":{\"Python id\":5,\"Python parent id\":1}}");
    op(110, 10, 7, "cpu_op", "aten::zeros_like");
    op(130, 10, 7, "cpu_op", "aten::sqrt");
    mem(112, 7, 1, 64);
    mem(132, 7, 2, 32);
    mem(150, 7, 2, -32);
    ml_profile *p = import_trace();
    if (!p) return;
    CHECK_CAT(p, 1, ML_CAT_OPTIMIZER_STATE, ML_REASON_OPT_KEPT);
    CHECK_CAT(p, 2, ML_CAT_TEMPORARY, ML_REASON_OPT_FREED);
    ml_profile_free(p);

    tr_len = 0;
    tr_total = 0;
    mem(10, 7, 1, 64); /* no operators: nothing tells */
    p = import_trace();
    if (!p) return;
    CHECK_CAT(p, 1, ML_CAT_UNKNOWN, ML_REASON_NO_CONTEXT);
    ml_profile_free(p);
}

TEST(names_and_pytorch_indices)
{
    CHECK_EQ_I64(ml_category_to_torch(ML_CAT_PARAMETER), 0);
    CHECK_EQ_I64(ml_category_to_torch(ML_CAT_AUTOGRAD_DETAIL), 6);
    CHECK_EQ_I64(ml_category_to_torch(ML_CAT_UNKNOWN), 7);
    CHECK_EQ_I64(ml_category_to_torch(ML_CAT_PARAMETER_OR_STATE), 7);
    CHECK_EQ_I64(ml_category_from_torch(7), ML_CAT_UNKNOWN);
    CHECK_EQ_I64(ml_category_from_torch(8), -1);
    for (int k = 0; k < ML_CAT__COUNT; k++) CHECK_EQ_I64(ml_category_parse(ml_category_name(k)), k);
    for (int r = 0; r < ML_REASON__COUNT; r++) CHECK(strlen(ml_category_reason_text(r)) > 5);
}

/* ---- memory timelines ----------------------------------------------------- */

static ml_profile *import_timeline(const char *text)
{
    ml_source *src = ml_source_from_memory("tl.json", text, strlen(text));
    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, 4096, &err);
    if (ml_memtimeline_sniff("tl.json", head, n) < 60) printf("sniff did not recognise: %.60s\n", text);
    ml_profile *p = ml_profile_new("tl.json", "torch-memory-timeline");
    err.msg[0] = 0;
    int rc = ml_memtimeline_import(src, p, &err);
    ml_source_close(src);
    if (rc < 0) {
        ml_profile_free(p);
        return NULL;
    }
    ml_categorize(p);
    return p;
}

TEST(raw_timeline_rows_become_allocations)
{
    /* a parameter from before, an activation created and destroyed, a version bump
     * moving an Unknown tensor to GRADIENT */
    ml_profile *p = import_timeline("[[-1, 1, 1000, 0], [5000, 2, 64, 4], [6000, 2, 32, 7],"
                                    " [7000, 3, -32, 7], [7000, 3, 32, 5], [8000, 4, -64, 4]]");
    CHECK(p != NULL);
    if (!p) return;
    CHECK(ml_memtimeline_sniff("x", (const unsigned char *)"[[-1, 1, 5, 7], [", 17) >= 60);
    CHECK_EQ_I64(ml_allocs_count(p), 4);
    ml_category_curves cc;
    CHECK(ml_category_curves_get(p, 0, &cc));
    CHECK_EQ_I64(cc.initial[ML_CAT_PARAMETER], 1000);
    CHECK_EQ_I64(cc.n, 4);
    CHECK_EQ_I64(cc.ts[2], 7000);
    CHECK_EQ_I64(cc.value[ML_CAT_GRADIENT][2], 32);
    CHECK_EQ_I64(cc.value[ML_CAT_UNKNOWN][2], 0);
    CHECK_EQ_I64(cc.value[ML_CAT_ACTIVATION][3], 0);
    CHECK_EQ_I64(cc.peak[ML_CAT_ACTIVATION], 64);
    ml_category_curves_free(&cc);
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_CATEGORY, &st);
    CHECK_EQ_I64(st.peak_allocated.value, 1096);
    CHECK_EQ_I64(st.categories_at_peak[ML_CAT_UNKNOWN], 32);
    ml_device_stats_free(&st);
    int i = 0;
    CHECK_EQ_I64(p->allocs.category_reason.v[i], ML_REASON_IMPORTED);
    ml_profile_free(p);
}

TEST(coalesced_timeline_totals_are_kept_exactly)
{
    /* times in µs; a PREEXISTING entry repeating the next time; ACTIVATION rises twice then falls by part */
    ml_profile *p = import_timeline("[[10, 10, 20, 30], [[0, 100, 0, 0, 0, 0, 0, 0, 0], [0, 100, 0, 0, 0, 50, 0, 0, 0],"
                                    " [0, 100, 0, 0, 0, 80, 0, 0, 0], [0, 100, 0, 0, 0, 20, 0, 0, 5]]]");
    CHECK(p != NULL);
    if (!p) return;
    ml_category_curves cc;
    CHECK(ml_category_curves_get(p, 0, &cc));
    CHECK_EQ_I64(cc.initial[ML_CAT_PARAMETER], 100);
    CHECK_EQ_I64(cc.n, 3);
    CHECK_EQ_I64(cc.ts[0], 10000);
    CHECK_EQ_I64(cc.value[ML_CAT_ACTIVATION][0], 50);
    CHECK_EQ_I64(cc.value[ML_CAT_ACTIVATION][1], 80);
    CHECK_EQ_I64(cc.value[ML_CAT_ACTIVATION][2], 20);
    CHECK_EQ_I64(cc.value[ML_CAT_UNKNOWN][2], 5);
    ml_category_curves_free(&cc);
    ml_profile_free(p);
}

TEST(bad_timelines_fail_with_file_and_byte)
{
    const char *bad[] = {
        "[[1, 2, 3]]", "[[-1, 9, 5, 0]]", "[[-1, 1, 5, 8]]", "[[1, 2], [[0, 1]]]", "[[1, 2], [[0,0,0,0,0,0,0,0,0]]]",
        "[[-1, 4, -5, 0]]", "[[1, 2, 3, 4], [1, 2, 3]]", "[[1, 2, 3, 4], [1, 2, \"x\", 4]]", "[[5, 1], [[0,0,0,0,0,0,0,0,0], [0,0,0,0,0,0,0,0,0]]]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ml_profile *p = import_timeline(bad[i]);
        CHECK(p == NULL);
        if (p) {
            printf("accepted: %s\n", bad[i]);
            ml_profile_free(p);
        }
        CHECK_CONTAINS(err.msg, "tl.json");
        CHECK_CONTAINS(err.msg, "byte");
    }
}

/* ---- round trips ------------------------------------------------------------ */

/* Per-category levels with PARAMETER_OR_STATE folded into Unknown, as PyTorch's formats hold them. */
static int64_t level_of(const ml_category_curves *c, int cat, size_t i)
{
    int64_t v = c->value[cat][i];
    if (cat == ML_CAT_UNKNOWN) v += c->value[ML_CAT_PARAMETER_OR_STATE][i];
    return cat == ML_CAT_PARAMETER_OR_STATE ? 0 : v;
}

static int64_t level_of_initial(const ml_category_curves *c, int cat)
{
    int64_t v = c->initial[cat];
    if (cat == ML_CAT_UNKNOWN) v += c->initial[ML_CAT_PARAMETER_OR_STATE];
    return cat == ML_CAT_PARAMETER_OR_STATE ? 0 : v;
}

static ml_profile *export_import(const ml_profile *p, ml_export_kind kind)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    CHECK(ml_export_torch(f, p, 0, kind) == 0);
    fclose(f);
    ml_profile *q = import_timeline(buf);
    if (!q) printf("re-import failed: %s\n", err.msg);
    free(buf);
    return q;
}

/* Raw: the same curves, point for point.  Coalesced: one point per µs of
 * the original's times (as PyTorch's int(t / 1000) makes them: ml_torch_us,
 * checked against Python in torch_us_matches_python), each with the state at
 * the end of that µs, and the same levels before the first. */
static void check_round_trip(const ml_profile *p)
{
    ml_category_curves a, b;
    CHECK(ml_category_curves_get(p, 0, &a));
    CHECK(a.n > 0);
    ml_profile *q = export_import(p, ML_EXPORT_RAW);
    CHECK(q != NULL);
    if (q) {
        CHECK(ml_category_curves_get(q, 0, &b));
        CHECK_EQ_I64(b.n, a.n);
        size_t bad = 0;
        for (int k = 0; k < ML_CAT__COUNT; k++) bad += level_of_initial(&a, k) != level_of_initial(&b, k);
        for (size_t i = 0; i < a.n && i < b.n; i++) {
            bad += a.ts[i] != b.ts[i];
            for (int k = 0; k < ML_CAT__COUNT; k++) bad += level_of(&a, k, i) != level_of(&b, k, i);
        }
        CHECK_EQ_I64(bad, 0);
        ml_category_curves_free(&b);
        ml_profile_free(q);
    }
    q = export_import(p, ML_EXPORT_TIMELINE);
    CHECK(q != NULL);
    if (q) {
        CHECK(ml_category_curves_get(q, 0, &b));
        size_t bad = 0, j = 0, nus = 0;
        for (int k = 0; k < ML_CAT__COUNT; k++) bad += level_of_initial(&a, k) != level_of_initial(&b, k);
        for (size_t i = 0; i < a.n; i++) {
            int64_t us = ml_torch_us(a.ts[i]);
            if (i + 1 < a.n && ml_torch_us(a.ts[i + 1]) == us) continue; /* the end of this µs */
            nus++;
            if (j >= b.n) continue;
            bad += b.ts[j] != us * 1000;
            for (int k = 0; k < ML_CAT__COUNT; k++) bad += level_of(&a, k, i) != level_of(&b, k, j);
            j++;
        }
        CHECK_EQ_I64(b.n, nus);
        CHECK_EQ_I64(bad, 0);
        ml_category_curves_free(&b);
        ml_profile_free(q);
    }
    ml_category_curves_free(&a);
}

TEST(round_trip_of_a_categorised_trace)
{
    ml_profile *p = step_trace();
    if (!p) return;
    check_round_trip(p);
    ml_profile_free(p);
}

/* ---- the real raw timeline (figures from tests/memtimeline_expected.py) ---- */

TEST(real_raw_timeline)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/memory_timeline/hta_memory_timeline.raw.json.gz", check_data_dir());
    if (access(path, R_OK) != 0) SKIP("shared data not present");
    ml_profiles ps = {0};
    CHECK(ml_load(path, &ps, &err) == 0);
    if (!ps.items.len) return;
    const ml_profile *p = ps.items.v[0];
    CHECK_EQ_STR(p->format, "torch-memory-timeline");
    CHECK(p->time_is_absolute);
    static const int64_t peaks[8] = {102440608, 102228128, 19395584, 129024, 2746497024, 107868160, 256901120, 168297384};
    static const int64_t finals[8] = {102440608, 102228128, 19395584, 0, 128000, 107868160, 0, 424};
    static const int64_t at_peak[8] = {102440608, 102228128, 19395584, 0, 2592465920, 67858432, 64225280, 134218152};
    ml_category_curves cc;
    CHECK(ml_category_curves_get(p, 0, &cc));
    for (int t = 0; t < 8; t++) {
        int k = ml_category_from_torch(t);
        CHECK_EQ_I64(cc.peak[k], peaks[t]);
        CHECK_EQ_I64(cc.value[k][cc.n - 1], finals[t]);
    }
    ml_category_curves_free(&cc);
    ml_device_stats st;
    ml_device_stats_compute(p, 0, ML_BY_CATEGORY, &st);
    CHECK_EQ_I64(st.peak_allocated.value, 3082832104LL);
    CHECK_EQ_I64(st.peak_allocated.at.ts, 1696966047194486198LL);
    for (int t = 0; t < 8; t++) CHECK_EQ_I64(st.categories_at_peak[ml_category_from_torch(t)], at_peak[t]);
    ml_device_stats_free(&st);
    check_round_trip(p);
    ml_profiles_free(&ps);
}

int main(void)
{
    RUN(each_rule_on_one_step);
    RUN(categories_at_peak_add_up_with_memory_from_before_the_trace);
    RUN(optimizer_frames_without_annotation_and_no_ops_at_all);
    RUN(names_and_pytorch_indices);
    RUN(raw_timeline_rows_become_allocations);
    RUN(coalesced_timeline_totals_are_kept_exactly);
    RUN(bad_timelines_fail_with_file_and_byte);
    RUN(round_trip_of_a_categorised_trace);
    RUN(real_raw_timeline);
    return check_report();
}
