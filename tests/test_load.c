/* test_load.c — the loader prepares every profile as the command's needs
 * say (ml_prepare, importers/needs.h), whether it came from a file or from
 * a directory walk: a Kineto trace loaded as a file and found in a
 * directory, and an Ascend `*_ascend_pt` folder (which only a walk loads),
 * against their importer's profile prepared by hand.  Before ml_prepare,
 * the walk attributed an Ascend folder's memory to operators even for a
 * command that reads none (perf's needs). */
#include "check.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ascend.h"
#include "attribute.h"
#include "categories.h"
#include "importer.h"

/* What attribution and categories write, one line per allocation: its
 * operators (text), stack id and category; malloc'd. */
static char *allocs_digest(const ml_profile *p)
{
    const ml_allocs *a = &p->allocs;
    size_t n = a->t_alloc.len, cap = 64 + n * 160, used = 0;
    char *s = ml_malloc(cap);
    used += (size_t)snprintf(s, cap, "%zu allocs, %zu ops\n", n, p->ops.ts.len);
    for (size_t i = 0; i < n && used + 160 < cap; i++)
        used += (size_t)snprintf(s + used, cap - used, "%.60s|%.60s|%u|%u\n", a->op.len > i ? ml_s(p, a->op.v[i]) : "",
                                 a->op_top.len > i ? ml_s(p, a->op_top.v[i]) : "", a->stack.len > i ? a->stack.v[i] : 0,
                                 a->category.len > i ? a->category.v[i] : 0);
    return s;
}

static ml_profiles load_with(const char *path, ml_needs needs)
{
    ml_profiles ps = {.needs = needs};
    ml_err e = {{0}};
    if (ml_load(path, &ps, &e) < 0) CHECK_FAILED_("ml_load %s: %s", path, e.msg);
    ml_profiles_sort(&ps);
    return ps;
}

static const ml_needs perf_needs = {.time = true, .no_categories = true, .no_op_memory = true, .lean = true};
static const ml_needs report_needs = {.time = true};

/* One Ascend folder under the needs of perf and of a report: its memory
 * attributed and categorised exactly when the needs ask, as a file's is. */
static void check_ascend_dir(const char *rel)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/ascend/%s", check_data_dir(), rel);
    if (!ml_ascend_is_profile_dir(dir)) {
        printf("SKIP %s: no %s\n", __func__, dir);
        return;
    }
    for (int k = 0; k < 2; k++) {
        const ml_needs *needs = k ? &report_needs : &perf_needs;
        ml_profile *raw[2];
        size_t n = 0;
        ml_err e = {{0}};
        CHECK_EQ_I64(ml_ascend_load_dir_want(dir, needs->time, raw, &n, &e), 0);
        CHECK(n >= 1);
        for (size_t i = 0; i < n; i++) {
            char *bare = allocs_digest(raw[i]);
            ml_prepare(raw[i], needs);
            char *by_hand = allocs_digest(raw[i]);
            if (needs->no_op_memory) CHECK_EQ_STR(by_hand, bare);
            else if (i == 0) CHECK(strcmp(by_hand, bare) != 0); /* attribution has something to do here */
            free(bare);
            free(by_hand);
        }
        ml_profiles ps = load_with(dir, *needs);
        CHECK_EQ_I64(ps.items.len, n);
        for (size_t i = 0; i < n && i < ps.items.len; i++) {
            char *want = allocs_digest(raw[i]), *got = allocs_digest(ps.items.v[i]);
            if (strcmp(got, want)) CHECK_FAILED_("%s, %s needs: the walk's profile %zu differs from ml_prepare's", rel,
                                                 k ? "report" : "perf", i);
            free(want);
            free(got);
        }
        for (size_t i = 0; i < n; i++) ml_profile_free(raw[i]);
        ml_profiles_free(&ps);
    }
}

TEST(ascend_dir_prepared_as_needed)
{
    check_ascend_dir("text_level1/rank0_ascend_pt");
    check_ascend_dir("db_level1/rank0_ascend_pt");
}

/* A trace with an operator around its allocations. */
static const char trace[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 50},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty\", \"pid\": 1, \"tid\": 1, \"ts\": 110, \"dur\": 5},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 112, \"s\": \"t\",\n"
    " \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": 4096, \"Bytes\": 1024, \"Total Allocated\": 1024,"
    " \"Total Reserved\": 2097152}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::relu\", \"pid\": 1, \"tid\": 1, \"ts\": 200, \"dur\": 50},\n"
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 210, \"s\": \"t\",\n"
    " \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": 4096, \"Bytes\": -1024, \"Total Allocated\": 0,"
    " \"Total Reserved\": 2097152}}\n"
    "]}\n";

/* The same file loaded as a file and found in a directory: the same profile
 * under every command's needs. */
TEST(file_and_directory_alike)
{
    char dir[] = "/tmp/memlens-test-load-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK_FAILED_("mkdtemp");
        return;
    }
    char file[1100];
    snprintf(file, sizeof file, "%s/r.pt.trace.json", dir);
    FILE *f = fopen(file, "w");
    CHECK(f && fputs(trace, f) >= 0);
    if (f) fclose(f);
    const ml_needs all[] = {perf_needs, report_needs, {.lean = true, .no_categories = true}, {.lean = true}, {0}};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
        ml_profiles a = load_with(file, all[k]), b = load_with(dir, all[k]);
        CHECK_EQ_I64(a.items.len, 1);
        CHECK_EQ_I64(b.items.len, 1);
        if (a.items.len == 1 && b.items.len == 1) {
            char *x = allocs_digest(a.items.v[0]), *y = allocs_digest(b.items.v[0]);
            CHECK_EQ_STR(y, x);
            /* what each need asks: every op, or only the clock op; attributed or not */
            CHECK_EQ_I64(a.items.v[0]->ops.ts.len, all[k].no_op_memory ? 1 : 3);
            const ml_profile *p = a.items.v[0];
            CHECK_EQ_I64(p->allocs.t_alloc.len, 1);
            if (p->allocs.t_alloc.len == 1 && p->allocs.op_top.len == 1)
                CHECK_EQ_STR(ml_s(p, p->allocs.op_top.v[0]), all[k].no_op_memory ? "" : "aten::linear");
            CHECK_EQ_I64(!!p->trace, all[k].time);
            free(x);
            free(y);
        }
        ml_profiles_free(&a);
        ml_profiles_free(&b);
    }
    unlink(file);
    rmdir(dir);
}

/* A lean load (summary's needs) keeps of the events what lean storage
 * holds, in each format that has events (a Kineto trace: dropped once
 * matched; a snapshot: never stored): no addr, stack or stream (nor threads,
 * without categories); a full load keeps them all. */
static void check_lean_columns(const char *path)
{
    ml_profiles lean = load_with(path, (ml_needs){.lean = true, .no_categories = true}), full = load_with(path, (ml_needs){0});
    CHECK(lean.items.len >= 1 && full.items.len == lean.items.len);
    for (size_t i = 0; i < lean.items.len && i < full.items.len; i++) {
        const ml_events *l = &lean.items.v[i]->events, *f = &full.items.v[i]->events;
        CHECK(f->ts.len > 0); /* something to drop */
        CHECK_EQ_I64(l->ts.len, f->ts.len);
        CHECK_EQ_I64(f->addr.len, f->ts.len);
        if (l->addr.len || l->stack.len || l->stream.len || l->thread.len)
            CHECK_FAILED_("%s: a lean load kept addr %zu, stack %zu, stream %zu, thread %zu of %zu events", path,
                          l->addr.len, l->stack.len, l->stream.len, l->thread.len, l->ts.len);
    }
    ml_profiles_free(&lean);
    ml_profiles_free(&full);
}

TEST(lean_loads_keep_the_lean_columns)
{
    char dir[] = "/tmp/memlens-test-load-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK_FAILED_("mkdtemp");
        return;
    }
    char file[1100];
    snprintf(file, sizeof file, "%s/r.pt.trace.json", dir);
    FILE *f = fopen(file, "w");
    CHECK(f && fputs(trace, f) >= 0);
    if (f) fclose(f);
    check_lean_columns(file);
    unlink(file);
    rmdir(dir);
    const char *real[] = {"snapshot/cs336_memory_ctx128_forward.pickle", "snapshot/silmont_mem_snapshot.pickle"};
    for (size_t k = 0; k < sizeof real / sizeof *real; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", check_data_dir(), real[k]);
        if (access(path, R_OK) == 0) check_lean_columns(path);
        else printf("SKIP %s: no %s\n", __func__, path);
    }
}

int main(void)
{
    RUN(ascend_dir_prepared_as_needed);
    RUN(file_and_directory_alike);
    RUN(lean_loads_keep_the_lean_columns);
    return check_report();
}
