/*
 * test_ascend_time.c — the Ascend time side from every export: an older
 * trace_view.json given alone (a list, string ts, "Stream Id"), a
 * kernel_details.csv-only directory, a db-only directory (TASK, PYTORCH_API,
 * CANN_API, COMPUTE_TASK_INFO, COMMUNICATION_TASK_INFO, COMMUNICATION_OP,
 * STEP_TIME), step_trace_time.csv, HCCL work as communication, the kernels by
 * Accelerator Core, NPU words; PyTorch's .html memory timeline answered in
 * one line.  Hand-made inputs, then the real ones of ../shared/data (skipped
 * when absent; expected values computed from the files with sqlite3 / Python's
 * csv and Decimal, not by memlens).
 */
#include "check.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devkind.h"
#include "ascend.h"
#include "gputime.h"
#include "importer.h"
#include "kernels.h"
#include "critpath.h"
#include "launches.h"
#include "operators.h"
#include "optree.h"
#include "recommend.h"
#include "steps.h"

static ml_err err;

static char *tmpdir(void)
{
    char *d = strdup("/tmp/memlens-ascend-time-XXXXXX");
    if (!mkdtemp(d)) abort();
    return d;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0) abort();
    fclose(f);
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) abort();
}

/* The first slice named name, or SIZE_MAX. */
static size_t slice_named(const ml_profile *p, const char *name)
{
    const ml_slices *s = &p->trace->slices;
    for (size_t i = 0; i < s->ts.len; i++)
        if (!strcmp(ml_s(p, s->name.v[i]), name)) return i;
    return SIZE_MAX;
}

static const ml_kernel_info *kinfo(const ml_profile *p, size_t i)
{
    uint32_t k = p->trace->slices.info.v[i];
    return k < p->trace->kernel_info.len ? &p->trace->kernel_info.v[k] : NULL;
}

static const ml_kernel_row *core_row(const ml_profile *p, const ml_kernel_table *kt, const char *core)
{
    for (size_t i = 0; i < kt->by_core.len; i++)
        if (!strcmp(ml_s(p, kt->by_core.v[i].name), core)) return &kt->by_core.v[i];
    return NULL;
}

static const ml_profile *load1(const char *path, ml_profiles *ps)
{
    memset(ps, 0, sizeof *ps);
    ps->needs.time = true;
    err.msg[0] = 0;
    if (ml_load(path, ps, &err) < 0) {
        CHECK_FAILED_("load %s: %s", path, err.msg);
        return NULL;
    }
    CHECK_EQ_I64(ps->items.len, 1);
    const ml_profile *p = ps->items.len ? ps->items.v[0] : NULL;
    CHECK(p && p->trace);
    return p && p->trace ? p : NULL;
}

/* ---- an older trace_view.json alone ---- */

static const char *old_trace_view =
    "[{\"ph\": \"X\", \"name\": \"aten::add\", \"pid\": 7, \"tid\": 7, \"ts\": \"1704161511420306.491\", \"dur\": 200.5,"
    " \"cat\": \"cpu_op\", \"args\": {\"Sequence number\": -1, \"Fwd thread id\": 0}},\n"
    "{\"name\": \"AscendCL@aclnnAdd\", \"pid\": 70, \"tid\": 7, \"ts\": \"1704161511420307.000\", \"dur\": 5.5,"
    " \"args\": {\"Mode\": \"ACL_NN\", \"connection_id\": 9}, \"ph\": \"X\"},\n"
    "{\"name\": \"aclnnAdd_AddAiCore_Add\", \"pid\": 800, \"tid\": 3, \"ts\": \"1704161511420400.123\", \"dur\": 1.35,"
    " \"args\": {\"Model Id\": 4294967295, \"Task Type\": \"AI_VECTOR_CORE\", \"Stream Id\": 3, \"Task Id\": 1,"
    " \"connection_id\": 9}, \"ph\": \"X\"},\n"
    "{\"name\": \"Notify Wait\", \"pid\": 800, \"tid\": 3, \"ts\": \"1704161511420500.000\", \"dur\": 100.0,"
    " \"args\": {\"Task Type\": \"Notify Wait\", \"Stream Id\": 3, \"Task Id\": 2}, \"ph\": \"X\"},\n"
    "{\"name\": \"EVENT_WAIT\", \"pid\": 800, \"tid\": 3, \"ts\": \"1704161511420650.000\", \"dur\": 40,"
    " \"args\": {\"Task Type\": \"EVENT_WAIT_SQE\", \"Stream Id\": 3, \"Task Id\": 3}, \"ph\": \"X\"},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 800, \"tid\": 0, \"args\": {\"name\": \"Ascend Hardware\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 70, \"tid\": 0, \"args\": {\"name\": \"CANN\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, \"tid\": 0, \"args\": {\"name\": \"Python\"}}]\n";

TEST(old_trace_view_alone)
{
    char *d = tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/trace_view.json", d);
    write_file(path, old_trace_view);
    ml_profiles ps;
    const ml_profile *p = load1(path, &ps);
    if (p) {
        CHECK_EQ_STR(p->format, "ascend-text"); /* was read as a Kineto trace with no device work */
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_KERNEL), 2);
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_RUNTIME), 1);
        size_t k = slice_named(p, "aclnnAdd_AddAiCore_Add");
        CHECK(k != SIZE_MAX);
        if (k != SIZE_MAX) {
            CHECK_EQ_I64(p->trace->slices.ts.v[k], INT64_C(1704161511420400123)); /* the string, exactly */
            CHECK_EQ_I64(ml_slice_dur(&p->trace->slices, k), 1350);
            CHECK_EQ_STR(ml_s(p, kinfo(p, k)->core), "AI_VECTOR_CORE");
            CHECK(!ml_kernel_info_is_comm(p->trace, kinfo(p, k)));
            CHECK(p->trace->slices.launcher.v[k] != ML_NONE32); /* its CANN call, by connection_id */
            CHECK_EQ_I64(p->trace->tracks.v[p->trace->slices.track.v[k]].stream, 3);
        }
        size_t w = slice_named(p, "Notify Wait");
        CHECK(w != SIZE_MAX && ml_kernel_info_is_comm(p->trace, kinfo(p, w)));
        size_t ev = slice_named(p, "EVENT_WAIT");
        CHECK(ev != SIZE_MAX && p->trace->slices.kind.v[ev] == ML_SL_OTHER); /* a sync, not work */
        /* the step breakdown's communication is the Notify Wait, not 0 */
        ml_steps st;
        ml_steps_compute(p, &st);
        CHECK_EQ_I64(ml_ranges_sum(&st.busy[ML_ROLE_COMMUNICATION]), 100000);
        ml_steps_free(&st);
        CHECK(ml_devkind_of_profile(p) == ML_DK_NPU);
        CHECK_EQ_STR(ml_devkind_words_of(ml_devkind_of_profile(p))->alloc_env, "PYTORCH_NPU_ALLOC_CONF");
        CHECK(ml_devkind_words_of(ml_devkind_of_profile(p))->matrix_units == NULL);
        /* the CANN call linked to the task launched it (devkind.h linked_calls_launch), whatever its name:
         * call 307.000 + 5.5 us, task 400.123 + 1.35 us */
        ml_gpu_timeline tl;
        ml_gpu_timeline_build(p, ML_TIME_EXACT, &tl);
        ml_launch_stats ls;
        ml_launch_stats_compute(&tl, &ls);
        CHECK_EQ_I64(ls.count, 1);
        CHECK_EQ_I64(ls.cpu, 5500);
        CHECK_EQ_I64(ls.gpu, 1350);
        CHECK_EQ_I64(ls.delay, 400123 - 312500);
        ml_gpu_timeline_free(&tl);
    }
    ml_profiles_free(&ps);
    rm_rf(d);
    free(d);
}

/* ---- launches by HostToDevice flow, the NPU critical path ---- */

/* The older vintage: a CANN call's connection_id is one above its task's, so
 * only the HostToDevice flow (s inside the call, f at the task) links them.
 * By hand (µs after 420000): aten::add 100-150 makes aclnnAdd 110-120, which
 * launches the task 130-270 (flow s at 115); aten::item 200-300 waits in
 * aclrtSynchronizeStream 210-290.  Critical path: add.start -10 (cpu)->
 * aclnnAdd.start -20 (launch: the stream idle)-> task.start -140 (compute)->
 * task.end -0 (sync: the wait)-> sync.end -10 (cpu)-> item.end = 180 us;
 * the host alone would be 10 + 10 + 30 + 10 + 10 (the wait weighs 0). */
static const char *flow_trace_view =
    "[{\"ph\": \"X\", \"name\": \"aten::add\", \"pid\": 7, \"tid\": 7, \"ts\": \"1704161511420100.000\", \"dur\": 50, \"cat\": \"cpu_op\", \"args\": {}},\n"
    "{\"ph\": \"X\", \"name\": \"aten::item\", \"pid\": 7, \"tid\": 7, \"ts\": \"1704161511420200.000\", \"dur\": 100, \"cat\": \"cpu_op\", \"args\": {}},\n"
    "{\"ph\": \"X\", \"name\": \"AscendCL@aclnnAdd\", \"pid\": 70, \"tid\": 7, \"ts\": \"1704161511420110.000\", \"dur\": 10,"
    " \"args\": {\"Mode\": \"ACL_NN\", \"connection_id\": 9}},\n"
    "{\"ph\": \"X\", \"name\": \"AscendCL@aclrtSynchronizeStream\", \"pid\": 70, \"tid\": 7, \"ts\": \"1704161511420210.000\", \"dur\": 80,"
    " \"args\": {\"Mode\": \"ACL_RTS\", \"connection_id\": 20}},\n"
    "{\"ph\": \"X\", \"name\": \"aclnnAdd_AddAiCore_Add\", \"pid\": 800, \"tid\": 3, \"ts\": \"1704161511420130.000\", \"dur\": 140,"
    " \"args\": {\"Task Type\": \"AI_CORE\", \"Stream Id\": 3, \"Task Id\": 1, \"connection_id\": 8}},\n"
    "{\"ph\": \"s\", \"cat\": \"HostToDevice\", \"name\": \"HostToDevice77\", \"id\": \"77\", \"pid\": 70, \"tid\": 7, \"ts\": \"1704161511420115.000\"},\n"
    "{\"ph\": \"f\", \"cat\": \"HostToDevice\", \"name\": \"HostToDevice77\", \"id\": \"77\", \"pid\": 800, \"tid\": 3, \"ts\": \"1704161511420130.000\", \"bp\": \"e\"},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 800, \"tid\": 0, \"args\": {\"name\": \"Ascend Hardware\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 70, \"tid\": 0, \"args\": {\"name\": \"CANN\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, \"tid\": 0, \"args\": {\"name\": \"Python\"}}]\n";

TEST(launch_by_flow_and_npu_critical_path)
{
    char *d = tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/trace_view.json", d);
    write_file(path, flow_trace_view);
    ml_profiles ps;
    const ml_profile *p = load1(path, &ps);
    if (p) {
        size_t k = slice_named(p, "aclnnAdd_AddAiCore_Add"), call = slice_named(p, "AscendCL@aclnnAdd");
        CHECK(k != SIZE_MAX && call != SIZE_MAX);
        if (k != SIZE_MAX && call != SIZE_MAX) CHECK_EQ_I64(p->trace->slices.launcher.v[k], (int64_t)call);
        ml_critpath cp;
        ml_critpath_compute(p, &cp);
        CHECK_EQ_I64(cp.n_steps, 1);
        if (cp.n_steps == 1) {
            const ml_cp_step *st = &cp.steps[0];
            CHECK(st->ok);
            CHECK_EQ_I64(st->path_ns, 180000);
            CHECK_EQ_I64(st->by_kind[ML_CP_CPU], 20000);
            CHECK_EQ_I64(st->by_kind[ML_CP_LAUNCH], 20000);
            CHECK_EQ_I64(st->by_kind[ML_CP_GPU_COMPUTE], 140000);
            CHECK_EQ_I64(st->by_kind[ML_CP_KERNEL_KERNEL], 0);
            CHECK_EQ_I64(st->path_begin, INT64_C(1704161511420100000));
            CHECK_EQ_I64(st->path_end, INT64_C(1704161511420300000));
        }
        CHECK(cp.has_sync); /* the CANN wait is a sync */
        ml_critpath_free(&cp);
    }
    ml_profiles_free(&ps);
    rm_rf(d);
    free(d);
}

/* A task that starts before its call (the NPU clock ahead): its flow ends
 * before it starts, bound as two halves, and the call launches it all the same. */
static const char *skewed_flow_trace_view =
    "[{\"ph\": \"X\", \"name\": \"AscendCL@aclnnMul\", \"pid\": 70, \"tid\": 7, \"ts\": \"1704161511420110.000\", \"dur\": 10,"
    " \"args\": {\"connection_id\": 5}},\n"
    "{\"ph\": \"X\", \"name\": \"aclnnMul_MulAiCore_Mul\", \"pid\": 800, \"tid\": 3, \"ts\": \"1704161511420112.000\", \"dur\": 1,"
    " \"args\": {\"Task Type\": \"AI_CORE\", \"Stream Id\": 3, \"Task Id\": 1, \"connection_id\": 4}},\n"
    "{\"ph\": \"f\", \"cat\": \"HostToDevice\", \"name\": \"HostToDevice9\", \"id\": \"9\", \"pid\": 800, \"tid\": 3, \"ts\": \"1704161511420112.000\", \"bp\": \"e\"},\n"
    "{\"ph\": \"s\", \"cat\": \"HostToDevice\", \"name\": \"HostToDevice9\", \"id\": \"9\", \"pid\": 70, \"tid\": 7, \"ts\": \"1704161511420115.000\"},\n"
    "{\"ph\": \"X\", \"name\": \"aclnnMul_MulAiCore_Mul\", \"pid\": 800, \"tid\": 3, \"ts\": \"1704161511420130.000\", \"dur\": 1,"
    " \"args\": {\"Task Type\": \"AI_CORE\", \"Stream Id\": 3, \"Task Id\": 2, \"connection_id\": 6}},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 800, \"tid\": 0, \"args\": {\"name\": \"Ascend Hardware\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 70, \"tid\": 0, \"args\": {\"name\": \"CANN\"}}]\n";

TEST(launch_by_flow_that_ends_before_it_starts)
{
    char *d = tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/trace_view.json", d);
    write_file(path, skewed_flow_trace_view);
    ml_profiles ps;
    const ml_profile *p = load1(path, &ps);
    if (p) {
        const ml_slices *s = &p->trace->slices;
        size_t call = slice_named(p, "AscendCL@aclnnMul"), n = 0;
        CHECK(call != SIZE_MAX);
        for (size_t i = 0; i < s->ts.len; i++) {
            if (s->kind.v[i] != ML_SL_KERNEL) continue;
            n++;
            /* the first task (its flow's) is the call's; the second has neither a flow nor a call of its id */
            if (s->ts.v[i] == INT64_C(1704161511420112000)) CHECK_EQ_I64(s->launcher.v[i], (int64_t)call);
            else CHECK_EQ_I64(s->launcher.v[i], ML_NONE32);
        }
        CHECK_EQ_I64(n, 2);
    }
    ml_profiles_free(&ps);
    rm_rf(d);
    free(d);
}

TEST(kernel_details_beside_trace_view)
{
    char *d = tmpdir(), path[700];
    snprintf(path, sizeof path, "%s/b_ascend_pt", d);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/b_ascend_pt/ASCEND_PROFILER_OUTPUT", d);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/b_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", d);
    write_file(path, old_trace_view);
    snprintf(path, sizeof path, "%s/b_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", d);
    write_file(path, "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Stream ID\n"
                     "1,aclnnAdd_AddAiCore_Add,Add,MIX_AIV,1704161511420400.123,1.35,3\n"
                     "1,Other9,Add,AI_CPU,1704161511429999.000,1,3\n");
    snprintf(path, sizeof path, "%s/b_ascend_pt", d);
    ml_profiles ps;
    const ml_profile *p = load1(path, &ps);
    if (p) { /* the tasks stay trace_view.json's; the core is kernel_details.csv's */
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_KERNEL), 2);
        size_t k = slice_named(p, "aclnnAdd_AddAiCore_Add");
        CHECK(k != SIZE_MAX);
        if (k != SIZE_MAX) CHECK_EQ_STR(ml_s(p, kinfo(p, k)->core), "MIX_AIV");
        CHECK(slice_named(p, "Other9") == SIZE_MAX);
    }
    ml_profiles_free(&ps);
    rm_rf(d);
    free(d);
}

/* ---- kernel_details.csv alone in its folder ---- */

TEST(kernel_details_only_dir)
{
    char *d = tmpdir(), path[700];
    snprintf(path, sizeof path, "%s/w_ascend_pt", d);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/w_ascend_pt/ASCEND_PROFILER_OUTPUT", d);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/w_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", d);
    /* a newer vintage's column order (Device_id first), counters, "N/A" cells, the tab suffix */
    write_file(path,
               "Device_id,Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Stream ID,aiv_time(us)\r\n"
               "0,3,Add1,Add,AI_VECTOR_CORE,\"1736408883694624.810\t\",2.5,0,5,1.2\r\n"
               "0,3,hcom_allReduce__1_0,hcom_allReduce_,HCCL,1736408883694630.000,10,0,N/A,N/A\r\n"
               "0,4,MatMul2,MatMul,AI_CORE,1736408883694700.001,3.0004,0,5,N/A\r\n"
               "0,4,Cast3,Cast,AI_CPU,1736408883694710.000,1,0,5,N/A\r\n");
    snprintf(path, sizeof path, "%s/w_ascend_pt", d);
    ml_profiles ps;
    const ml_profile *p = load1(path, &ps); /* before: "no profile" (no memory files) */
    if (p) {
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_KERNEL), 4);
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_PROFILER_STEP), 2);
        size_t a = slice_named(p, "Add1"), m = slice_named(p, "MatMul2"), h = slice_named(p, "hcom_allReduce__1_0");
        CHECK(a != SIZE_MAX && m != SIZE_MAX && h != SIZE_MAX);
        if (a != SIZE_MAX && m != SIZE_MAX && h != SIZE_MAX) {
            CHECK_EQ_I64(p->trace->slices.ts.v[a], INT64_C(1736408883694624810));
            CHECK_EQ_I64(ml_slice_dur(&p->trace->slices, a), 2500);
            CHECK_EQ_I64(p->trace->slices.ts.v[m], INT64_C(1736408883694700001));
            CHECK_EQ_I64(ml_slice_dur(&p->trace->slices, m), 3000); /* 3000.4 ns, to the ns */
            CHECK(ml_kernel_info_is_comm(p->trace, kinfo(p, h)));
            CHECK_EQ_STR(ml_s(p, ml_kernel_comm(p->trace, kinfo(p, h))->collective), "hcom_allReduce_");
            CHECK_EQ_I64(p->trace->tracks.v[p->trace->slices.track.v[h]].stream, ML_ASCEND_HCCL_STREAM);
            CHECK_EQ_I64(p->trace->tracks.v[p->trace->slices.track.v[a]].stream, 5);
        }
        size_t s3 = slice_named(p, "ProfilerStep#3");
        CHECK(s3 != SIZE_MAX);
        if (s3 != SIZE_MAX) { /* from Add1's start to the HCCL task's end */
            CHECK_EQ_I64(p->trace->slices.ts.v[s3], INT64_C(1736408883694624810));
            CHECK_EQ_I64(ml_slice_dur(&p->trace->slices, s3), INT64_C(1736408883694640000) - INT64_C(1736408883694624810));
        }
        ml_kernel_table kt;
        ml_kernels_compute(p, NULL, NULL, &kt);
        CHECK_EQ_I64(kt.by_core.len, 4);
        const ml_kernel_row *hc = core_row(p, &kt, "HCCL"), *cpu = core_row(p, &kt, "AI_CPU");
        CHECK(hc && hc->calls == 1 && hc->total_ns == 10000);
        CHECK(cpu && cpu->calls == 1 && cpu->total_ns == 1000);
        CHECK(kt.by_core.len && !strcmp(ml_s(p, kt.by_core.v[0].name), "HCCL")); /* the longest first */
        ml_kernels_free(&kt);
        ml_steps st;
        ml_steps_compute(p, &st);
        CHECK_EQ_I64(st.steps.len, 2);
        CHECK_EQ_I64(ml_ranges_sum(&st.busy[ML_ROLE_COMMUNICATION]), 10000);
        ml_steps_free(&st);
    }
    ml_profiles_free(&ps);
    rm_rf(d);
    free(d);
}

TEST(step_trace_time_alone)
{
    char *d = tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/step_trace_time.csv", d);
    write_file(path, "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
                     "Communication(Not Overlapped and Exclude Receive),Preparing\r\n"
                     "50,9590.123,101903.4,3935,105878.001,65771,0,0,0,1200.5\r\n");
    ml_profiles ps;
    const ml_profile *p = load1(path, &ps);
    if (p) {
        bool found = false;
        for (size_t i = 0; i < p->notes.len; i++)
            if (strstr(ml_s(p, p->notes.v[i]), "step 50: Computing 9590.123 us, Communication(Not Overlapped) 101903.400 us") &&
                strstr(ml_s(p, p->notes.v[i]), "Preparing 1200.500 us"))
                found = true;
        CHECK(found);
    }
    ml_profiles_free(&ps);
    rm_rf(d);
    free(d);
}

/* ---- a db with the time tables only ---- */

static void sql(sqlite3 *db, const char *q)
{
    char *msg = NULL;
    if (sqlite3_exec(db, q, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "sql: %s: %s\n", q, msg ? msg : "?");
        abort();
    }
}

TEST(db_only_dir)
{
    char *d = tmpdir(), path[700];
    snprintf(path, sizeof path, "%s/r_ascend_pt", d);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/r_ascend_pt/ASCEND_PROFILER_OUTPUT", d);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/r_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", d);
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    sql(db,
        "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO STRING_IDS VALUES (1,'KERNEL_AICORE'),(2,'aclnnMm_MatMulV2'),(3,'AI_CORE'),(4,'Notify Wait'),"
        " (5,'hcom_allReduce__7_0_1'),(6,'EVENT_WAIT'),(7,'aten::mm'),(8,'launch'),(9,'group0'),(10,'Notify_Wait'),"
        " (11,'ProfilerStep#7');"
        "CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY, name TEXT);"
        "INSERT INTO ENUM_API_TYPE VALUES (50001,'op'),(50003,'trace');"
        "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,globalTaskId INTEGER,"
        " globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER,taskId INTEGER,modelId INTEGER,depth INTEGER);"
        /* a compute task; an HCCL collective (task 20, AI_CORE) drawn as its two Notify Wait sub-tasks; a sync */
        "INSERT INTO TASK VALUES (1000000000000000100,1000000000000000350,0,5,1,9,1,4294967295,2,10,0,0),"
        " (1000000000000001000,1000000000000009000,0,6,2,9,3,4294967295,4,20,0,0),"
        " (1000000000000001000,1000000000000004000,0,6,3,9,4,0,4,20,0,1),"
        " (1000000000000005000,1000000000000009000,0,6,4,9,4,1,4,20,0,1),"
        " (1000000000000009500,1000000000000009900,0,7,5,9,6,4294967295,2,11,0,0);"
        "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,blockDim INTEGER,mixBlockDim INTEGER,"
        " taskType INTEGER,opType INTEGER,waitNs INTEGER);"
        "INSERT INTO COMPUTE_TASK_INFO VALUES (2,1,8,0,3,0,0);"
        "CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER,globalTaskId INTEGER,taskType INTEGER,opId INTEGER);"
        "INSERT INTO COMMUNICATION_TASK_INFO VALUES (5,3,10,1),(5,4,10,1);"
        "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId INTEGER,groupName INTEGER,"
        " opId INTEGER PRIMARY KEY);"
        "INSERT INTO COMMUNICATION_OP VALUES (5,1000000000000001000,1000000000000009000,6,9,1);"
        "CREATE TABLE PYTORCH_API (startNs TEXT,endNs TEXT,globalTid INTEGER,connectionId INTEGER,name INTEGER,"
        " sequenceNumber INTEGER,fwdThreadId INTEGER,inputDtypes INTEGER,inputShapes INTEGER,callchainId INTEGER,"
        " type INTEGER,depth INTEGER);"
        "INSERT INTO PYTORCH_API VALUES ('999999999999999900','1000000000000000090',38654705671,0,7,3,0,NULL,NULL,NULL,50001,0);"
        "CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid INTEGER,connectionId INTEGER PRIMARY KEY,"
        " name INTEGER,depth INTEGER);"
        "INSERT INTO CANN_API VALUES (999999999999999950,1000000000000000010,20000,38654705671,5,8,0);"
        "CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);" /* aten::mm queued the task of connection 5 */
        "INSERT INTO CONNECTION_IDS VALUES (0,5);"
        "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
        "INSERT INTO STEP_TIME VALUES (7,999999999999999000,1000000000000010000);");
    sqlite3_close(db);
    snprintf(path, sizeof path, "%s/r_ascend_pt", d);
    ml_profiles ps;
    const ml_profile *p = load1(path, &ps); /* before: "no profiler views: this Ascend run has no trace_view.json" */
    if (p) {
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_KERNEL), 3); /* the compute task + two sub-tasks */
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_CPU_OP), 1);
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_RUNTIME), 1);
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_PROFILER_STEP), 1);
        CHECK(slice_named(p, "AI_CORE") == SIZE_MAX); /* the collective's container is not drawn */
        size_t mm = slice_named(p, "aclnnMm_MatMulV2");
        CHECK(mm != SIZE_MAX);
        if (mm != SIZE_MAX) {
            CHECK_EQ_I64(ml_slice_dur(&p->trace->slices, mm), 250);
            CHECK_EQ_STR(ml_s(p, kinfo(p, mm)->core), "AI_CORE");
            CHECK(p->trace->slices.launcher.v[mm] != ML_NONE32); /* CANN_API by connectionId */
        }
        size_t nw = slice_named(p, "Notify Wait");
        CHECK(nw != SIZE_MAX && ml_kernel_info_is_comm(p->trace, kinfo(p, nw)));
        if (nw != SIZE_MAX) CHECK_EQ_STR(ml_s(p, ml_kernel_comm(p->trace, kinfo(p, nw))->collective), "hcom_allReduce__7_0_1");
        size_t ev = slice_named(p, "EVENT_WAIT");
        CHECK(ev != SIZE_MAX && p->trace->slices.kind.v[ev] == ML_SL_OTHER);
        CHECK(slice_named(p, "hcom_allReduce__7_0_1") != SIZE_MAX); /* COMMUNICATION_OP, on the HCCL lane */
        size_t op = slice_named(p, "aten::mm");
        CHECK(op != SIZE_MAX);
        if (op != SIZE_MAX) /* globalTid 9 << 32 | 7: thread 7 */
            CHECK_EQ_STR(ml_s(p, p->trace->tracks.v[p->trace->slices.track.v[op]].tid), "7");
        ml_steps st;
        ml_steps_compute(p, &st);
        CHECK_EQ_I64(st.steps.len, 1);
        CHECK_EQ_I64(ml_ranges_sum(&st.busy[ML_ROLE_COMMUNICATION]), 3000 + 4000);
        ml_steps_free(&st);
        /* the operator's device time: the task it queued (CONNECTION_IDS), 250 ns */
        ml_optree tree;
        ml_optree_build(p, &tree);
        ml_kernel_table kt;
        ml_kernels_compute(p, &tree, NULL, &kt);
        ml_op_table ot;
        ml_operators_compute(p, &tree, &kt, NULL, &ot);
        bool seen = false;
        for (size_t i = 0; i < ot.by_name.len; i++)
            if (!strcmp(ml_s(p, ot.by_name.v[i].name), "aten::mm")) {
                seen = true;
                CHECK_EQ_I64(ot.by_name.v[i].device_self_ns, 250);
            }
        CHECK(seen);
        ml_operators_free(&ot);
        ml_kernels_free(&kt);
        ml_optree_free(&tree);
        ml_gputime g;
        ml_gputime_compute(p, ML_TIME_EXACT, &g);
        CHECK(g.types.comm_ns > 0); /* HTA's kernel types see the communication */
        ml_gputime_free(&g);
    }
    ml_profiles_free(&ps);
    rm_rf(d);
    free(d);
}

/* ---- PyTorch's .html timeline ---- */

TEST(html_memory_timeline_says_what_it_is)
{
    char *d = tmpdir(), path[600];
    snprintf(path, sizeof path, "%s/memory.html", d);
    write_file(path, "<html>\n<head><meta charset=\"utf-8\" /><title>GPU Memory Timeline HTML</title></head>\n<body>\n"
                     "  <img src='data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=='>\n"
                     "</body>\n</html>");
    ml_profiles ps = {0};
    CHECK(ml_load(path, &ps, &err) < 0);
    CHECK_CONTAINS(err.msg, "memory.html: byte 0: a PyTorch memory timeline exported as HTML");
    CHECK_CONTAINS(err.msg, ".json.gz or .raw.json.gz instead");
    CHECK(!strchr(err.msg, '\n'));
    ml_profiles_free(&ps);
    rm_rf(d);
    free(d);
}

/* ---- the real exports ---- */

TEST(real_db_time_side)
{
    char path[600];
    snprintf(path, sizeof path, "%s/ascend/db_level1/rank0_ascend_pt", check_data_dir());
    if (access(path, R_OK)) SKIP("no ../shared/data/ascend/db_level1");
    ml_profiles ps;
    const ml_profile *p = load1(path, &ps);
    if (p) {
        /* sqlite3: TASK rows less PROFILING_*, EVENT_*, STARS_COMMON, MEMCPY*, and the 17 tasks drawn as sub-tasks */
        ml_kernel_table kt;
        ml_kernels_compute(p, NULL, NULL, &kt);
        CHECK_EQ_I64(kt.kernels, 481);
        int64_t total = 0;
        for (size_t i = 0; i < kt.by_name.len; i++) total += kt.by_name.v[i].total_ns;
        CHECK_EQ_I64(total, 184980802);
        const ml_kernel_row *hc = core_row(p, &kt, "HCCL"); /* rows of COMMUNICATION_TASK_INFO */
        CHECK(hc && hc->calls == 296 && hc->total_ns == 176082831);
        const ml_kernel_row *aiv = core_row(p, &kt, "AI_VECTOR_CORE");
        CHECK(aiv && aiv->calls == 149);
        ml_kernels_free(&kt);
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_PROFILER_STEP), 1);
        {
            ml_steps st;
            ml_steps_compute(p, &st);
            CHECK(ml_ranges_sum(&st.busy[ML_ROLE_COMMUNICATION]) > 90 * INT64_C(1000000)); /* was 0 */
            ml_steps_free(&st);
        }
    }
    ml_profiles_free(&ps);
}

TEST(real_kernel_details_and_old_trace_view)
{
    char path[600];
    snprintf(path, sizeof path, "%s/ascend_older/trace_view_2024/kernel_details.csv", check_data_dir());
    if (access(path, R_OK)) SKIP("no ../shared/data/ascend_older");
    ml_profiles ps;
    const ml_profile *p = load1(path, &ps);
    if (p) {
        /* Python's csv + Decimal on the file: rows and µs per Accelerator Core */
        ml_kernel_table kt;
        ml_kernels_compute(p, NULL, NULL, &kt);
        CHECK_EQ_I64(kt.kernels, 591);
        static const struct { const char *core; int64_t calls, ns; } want[] = {
            {"AI_VECTOR_CORE", 520, 33091800}, {"HCCL", 19, 346398740}, {"AI_CPU", 7, 785180},
            {"DSA_SQE", 7, 2176580},           {"AI_CORE", 13, 14252720}, {"MIX_AIV", 25, 102020}};
        CHECK_EQ_I64(kt.by_core.len, 6);
        for (size_t i = 0; i < 6; i++) {
            const ml_kernel_row *r = core_row(p, &kt, want[i].core);
            CHECK(r != NULL);
            if (r) CHECK_EQ_I64(r->calls, want[i].calls);
            if (r) CHECK_EQ_I64(r->total_ns, want[i].ns);
        }
        ml_kernels_free(&kt);
        CHECK_EQ_I64(p->trace->span_begin, INT64_C(1699529622790614800));
    }
    ml_profiles_free(&ps);
    snprintf(path, sizeof path, "%s/ascend_older/trace_view_2024/trace_view.json", check_data_dir());
    p = load1(path, &ps);
    if (p) { /* Python: 276 Ascend Hardware tasks, 2 of them MEMCPY*; Task Type "Other" or AI_CPU */
        CHECK_EQ_STR(p->format, "ascend-text");
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_KERNEL), 274);
        CHECK_EQ_I64(ml_trace_count_kind(p->trace, ML_SL_MEMCPY), 2);
    }
    ml_profiles_free(&ps);
}

int main(void)
{
    RUN(old_trace_view_alone);
    RUN(launch_by_flow_and_npu_critical_path);
    RUN(launch_by_flow_that_ends_before_it_starts);
    RUN(kernel_details_only_dir);
    RUN(kernel_details_beside_trace_view);
    RUN(step_trace_time_alone);
    RUN(db_only_dir);
    RUN(html_memory_timeline_says_what_it_is);
    RUN(real_db_time_side);
    RUN(real_kernel_details_and_old_trace_view);
    return check_report();
}
