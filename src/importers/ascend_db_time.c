/* ascend_db_time.c — the time side of torch_npu's SQLite export
 * ascend_pytorch_profiler_{rank}.db, laid out as trace_view.json would draw
 * the same run (ascend.h), so that every time view reads it the same way:
 *
 *   PYTORCH_API   host lanes (process "Python", thread = globalTid's low 32
 *                 bits): type op -> cpu_op (ProfilerStep#N a step, Optimizer.*
 *                 an annotation), trace -> python_function, queue -> other
 *   CANN_API      process "CANN": runtime calls; connectionId is the
 *                 correlation with the tasks they launch
 *   TASK          process "Ascend Hardware", one stream track per (deviceId,
 *                 streamId): a task named by COMPUTE_TASK_INFO (its taskType
 *                 is the Accelerator Core) or else by its own taskType
 *                 (Notify Wait, SDMA, EVENT_WAIT ...); MEMCPY_ASYNC a memcpy;
 *                 a task in COMMUNICATION_TASK_INFO is HCCL communication, of
 *                 the collective named there
 *   COMMUNICATION_OP  process "HCCL", lane "Group G Communication": the
 *                 collectives (hcom_allReduce_...)
 *   STEP_TIME     ProfilerStep#id on the main host lane, where PYTORCH_API
 *                 has no ProfilerStep#
 *   CONNECTION_IDS  an async_npu flow from each operator to each task it
 *                 queued (its connectionId lists theirs), as trace_view.json
 *                 draws them: the operator views' device time
 * Names come from STRING_IDS.  Times are integer ns already (PYTORCH_API
 * writes them as text: read exactly).  A table that is missing or cannot be
 * read is left out with a note naming it. */
#include "ascend.h"
#include "decimal.h"
#include "importer.h"
#include "u64map.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ml_ascend_db_open(const char *path, sqlite3 **out)
{
    size_t n = strlen(path);
    char *uri = ml_malloc(n * 3 + 64), *w = uri;
    w += sprintf(w, "file:%s", path[0] == '/' ? "//" : "");
    for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("-._~/", *s))
            *w++ = (char)*s;
        else
            w += sprintf(w, "%%%02X", *s);
    }
    strcpy(w, "?mode=ro&immutable=1");
    int rc = sqlite3_open_v2(uri, out, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        sqlite3_close(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

bool ml_ascend_db_has_memory(const char *path)
{
    sqlite3 *db;
    if (ml_ascend_db_open(path, &db) < 0) return true; /* the memory reader says why it cannot open it */
    sqlite3_stmt *st = NULL;
    bool yes = true;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                               "('MEMORY_RECORD', 'OP_MEMORY', 'NPU_MEM')", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        yes = sqlite3_column_int64(st, 0) > 0;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return yes;
}

typedef struct dbt {
    sqlite3 *db;
    const char *path;
    ml_profile *p;
    ml_trace *t;
    ml_str host_pid, cann_pid, npu_pid, hccl_pid;
    uint32_t main_track;     /* the host lane of the first ProfilerStep / operator, ML_NONE32 */
    bool have_step;
    /* connectionId -> the operator that queued its tasks (PYTORCH_API through
     * CONNECTION_IDS): a row of queued */
    ml_u64map queued_by;
    VEC(struct queued { int64_t ts; uint32_t track; }) queued;
    ml_str flow_cat;
    int64_t flows;
} dbt;

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static sqlite3_stmt *prep(dbt *d, const char *table, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
        ml_note(d->p, "%s: table %s left out of the time side (%s)", base_name(d->path), table, sqlite3_errmsg(d->db));
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

static const char *col_text(sqlite3_stmt *st, int c)
{
    const unsigned char *s = sqlite3_column_text(st, c);
    return s ? (const char *)s : "";
}

/* An integer column, stored as an integer or as its text; false if NULL or not one. */
static bool col_i64(sqlite3_stmt *st, int c, int64_t *out)
{
    int type = sqlite3_column_type(st, c);
    if (type == SQLITE_INTEGER) {
        *out = sqlite3_column_int64(st, c);
        return true;
    }
    if (type != SQLITE_TEXT) return false;
    const char *s = col_text(st, c);
    return *s && ml_parse_i64(s, strlen(s), out) == 0;
}

/* A [start, end] pair of ns that a profile can hold. */
static bool span_ok(int64_t b, int64_t e) { return e >= b && ml_value_ok(b) && ml_value_ok(e); }

static uint32_t lane(dbt *d, ml_str pid, int64_t tid)
{
    char s[32];
    snprintf(s, sizeof s, "%lld", (long long)tid);
    const char *ps = ml_s(d->p, pid);
    return ml_track_get(d->t, d->p->strings, ps, strlen(ps), s, strlen(s));
}

static void push(dbt *d, int64_t b, int64_t e, const char *name, uint32_t track, uint8_t kind, int64_t corr,
                 uint32_t info)
{
    ml_slice_row row = {b, e - b, corr, -1, ml_intern_cstr(d->p->strings, name), track, info, kind};
    ml_slice_push(d->t, &row);
    ml_trace_span(d->t, b, e);
}

static void host_side(dbt *d)
{
    sqlite3_stmt *st = prep(d, "PYTORCH_API",
                            "SELECT a.startNs, a.endNs, a.globalTid, s.value, e.name, a.sequenceNumber, a.fwdThreadId "
                            "FROM PYTORCH_API a LEFT JOIN STRING_IDS s ON s.id = a.name "
                            "LEFT JOIN ENUM_API_TYPE e ON e.id = a.type");
    if (!st) return;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t b, e, gtid;
        if (!col_i64(st, 0, &b) || !col_i64(st, 1, &e) || !span_ok(b, e)) continue;
        if (!col_i64(st, 2, &gtid)) gtid = 0;
        const char *name = col_text(st, 3), *type = col_text(st, 4);
        uint32_t track = lane(d, d->host_pid, gtid & 0xffffffff);
        uint8_t kind = ML_SL_OTHER;
        uint32_t info = ML_NONE32;
        if (!strcmp(type, "op") || !strcmp(type, "mstx")) {
            kind = !strncmp(name, "ProfilerStep#", 13)  ? ML_SL_PROFILER_STEP
                   : !strncmp(name, "Optimizer.", 10) || !strcmp(type, "mstx") ? ML_SL_USER_ANNOTATION
                                                                                 : ML_SL_CPU_OP;
            ml_op_info_row oi = {0, 0, 0, 0, -1, -1, -1};
            if (!col_i64(st, 5, &oi.seq)) oi.seq = -1;
            if (!col_i64(st, 6, &oi.fwd_thread)) oi.fwd_thread = -1;
            info = ml_op_info_push(d->t, &oi);
            if (kind == ML_SL_PROFILER_STEP) d->have_step = true;
            if (d->main_track == ML_NONE32 || kind == ML_SL_PROFILER_STEP) d->main_track = track;
        } else if (!strcmp(type, "trace")) {
            kind = ML_SL_PYTHON;
            ml_op_info_row oi = {0, 0, 0, 0, -1, -1, -1};
            info = ml_op_info_push(d->t, &oi);
        }
        push(d, b, e, name, track, kind, -1, info);
    }
    sqlite3_finalize(st);

    /* Which operator queued which tasks: an operator's connectionId is a key of
     * CONNECTION_IDS, whose rows are the connectionIds of its tasks (how
     * trace_view.json draws its async_npu flows).  An older export without
     * the table links tasks to their CANN call only. */
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(d->db, "SELECT a.startNs, a.globalTid, c.connectionId FROM PYTORCH_API a "
                                  "JOIN CONNECTION_IDS c ON c.id = a.connectionId "
                                  "JOIN ENUM_API_TYPE e ON e.id = a.type WHERE e.name = 'op'",
                           -1, &q, NULL) == SQLITE_OK) {
        while (sqlite3_step(q) == SQLITE_ROW) {
            int64_t ts, gtid, conn;
            if (!col_i64(q, 0, &ts) || !ml_value_ok(ts) || !col_i64(q, 2, &conn) || conn < 0) continue;
            if (!col_i64(q, 1, &gtid)) gtid = 0;
            bool fresh;
            uint32_t *row = ml_u64map_put(&d->queued_by, (uint64_t)conn, &fresh);
            if (!fresh) continue; /* the first (outermost) operator that names it */
            *row = (uint32_t)d->queued.len;
            struct queued x = {ts, lane(d, d->host_pid, gtid & 0xffffffff)};
            VEC_PUSH(&d->queued, x);
        }
    }
    sqlite3_finalize(q);

    if ((st = prep(d, "CANN_API", "SELECT a.startNs, a.endNs, a.globalTid, a.connectionId, s.value "
                                  "FROM CANN_API a LEFT JOIN STRING_IDS s ON s.id = a.name"))) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t b, e, gtid, corr;
            if (!col_i64(st, 0, &b) || !col_i64(st, 1, &e) || !span_ok(b, e)) continue;
            if (!col_i64(st, 2, &gtid)) gtid = 0;
            if (!col_i64(st, 3, &corr) || corr < 0) corr = -1;
            push(d, b, e, col_text(st, 4), lane(d, d->cann_pid, gtid & 0xffffffff), ML_SL_RUNTIME, corr, ML_NONE32);
        }
        sqlite3_finalize(st);
    }
}

/* One TASK row, before it is pushed. */
typedef struct task_row {
    int64_t b, e, dev, corr, stream, task, context;
    ml_str ttype, name, core, op;
    bool parent_of_subtasks;
} task_row;

#define NO_CONTEXT INT64_C(4294967295) /* contextId of a task that is not a sub-task */

/* (stream, task id, connection) of a task, or 0 where they do not fit the key. */
static uint64_t task_key(const task_row *r)
{
    if (r->stream < 0 || r->stream > 0xffff || r->task < 0 || r->task > 0xffff || r->corr < 0 || r->corr > 0xffffffff)
        return 0;
    return (uint64_t)r->stream << 48 | (uint64_t)r->task << 32 | (uint64_t)r->corr;
}

/* TASK rows into the stream tracks.  A task with sub-tasks (an HCCL
 * collective's Notify Wait / SDMA / Write Value steps, a MIX kernel's parts:
 * rows of the same stream, task id and connection with a contextId) is drawn
 * as its sub-tasks, as trace_view.json draws it; a sub-task without a
 * COMPUTE_TASK_INFO row of its own takes its parent's name and core. */
static void tasks(dbt *d)
{
    sqlite3_stmt *st = prep(d, "TASK",
        "SELECT t.startNs, t.endNs, t.deviceId, t.connectionId, t.streamId, t.taskId, t.contextId, tt.value, cn.value, "
        "cc.value, (SELECT o.value FROM COMMUNICATION_TASK_INFO m JOIN STRING_IDS o ON o.id = m.name "
        " WHERE m.globalTaskId = t.globalTaskId LIMIT 1) "
        "FROM TASK t LEFT JOIN STRING_IDS tt ON tt.id = t.taskType "
        "LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId "
        "LEFT JOIN STRING_IDS cn ON cn.id = c.name LEFT JOIN STRING_IDS cc ON cc.id = c.taskType");
    if (!st) { /* an export without the tables of compute and communication tasks */
        st = prep(d, "TASK", "SELECT t.startNs, t.endNs, t.deviceId, t.connectionId, t.streamId, t.taskId, "
                             "t.contextId, tt.value, NULL, NULL, NULL FROM TASK t "
                             "LEFT JOIN STRING_IDS tt ON tt.id = t.taskType");
        if (!st) return;
    }
    VEC(task_row) rows = {0};
    while (sqlite3_step(st) == SQLITE_ROW) {
        task_row r = {0};
        if (!col_i64(st, 0, &r.b) || !col_i64(st, 1, &r.e) || !span_ok(r.b, r.e)) continue;
        if (!col_i64(st, 2, &r.dev) || r.dev < 0 || r.dev > 65535) r.dev = 0;
        if (!col_i64(st, 3, &r.corr) || r.corr < 0) r.corr = -1;
        if (!col_i64(st, 4, &r.stream) || r.stream < 0 || r.stream >= ML_ASCEND_HCCL_STREAM) r.stream = ML_ASCEND_HCCL_STREAM;
        if (!col_i64(st, 5, &r.task)) r.task = -1;
        if (!col_i64(st, 6, &r.context)) r.context = NO_CONTEXT;
        const char *ttype = col_text(st, 7);
        if (!strcmp(ttype, "PROFILING_ENABLE") || !strcmp(ttype, "PROFILING_DISABLE")) continue; /* markers */
        r.ttype = ml_intern_cstr(d->p->strings, ttype);
        r.name = *col_text(st, 8) ? ml_intern_cstr(d->p->strings, col_text(st, 8)) : 0;
        r.core = *col_text(st, 9) ? ml_intern_cstr(d->p->strings, col_text(st, 9)) : 0;
        r.op = *col_text(st, 10) ? ml_intern_cstr(d->p->strings, col_text(st, 10)) : 0;
        VEC_PUSH(&rows, r);
    }
    sqlite3_finalize(st);
    ml_u64map parents; /* key -> row of the task without a context */
    ml_u64map_init(&parents);
    for (size_t i = 0; i < rows.len; i++) {
        uint64_t k = task_key(&rows.v[i]);
        if (!k || rows.v[i].context != NO_CONTEXT) continue;
        bool fresh;
        *ml_u64map_put(&parents, k, &fresh) = (uint32_t)i;
    }
    for (size_t i = 0; i < rows.len; i++) {
        task_row *r = &rows.v[i];
        uint64_t k = task_key(r);
        const uint32_t *pi = k && r->context != NO_CONTEXT ? ml_u64map_get(&parents, k) : NULL;
        if (!pi) continue;
        task_row *parent = &rows.v[*pi];
        parent->parent_of_subtasks = true;
        if (!r->name && !r->op) r->name = parent->name, r->core = parent->core;
    }
    ml_u64map_free(&parents);
    for (size_t i = 0; i < rows.len; i++) {
        const task_row *r = &rows.v[i];
        if (r->parent_of_subtasks) continue;
        const char *ttype = ml_s(d->p, r->ttype);
        uint16_t npu = ml_device_get(d->p, ML_DEV_NPU, (int)r->dev);
        char tid[48];
        snprintf(tid, sizeof tid, "%lld", (long long)(r->dev << 32 | r->stream));
        const char *pid = ml_s(d->p, d->npu_pid);
        uint32_t track = ml_track_get(d->t, d->p->strings, pid, strlen(pid), tid, strlen(tid));
        if (d->t->tracks.v[track].kind != ML_TRACK_STREAM) {
            ml_track_set_stream(d->t, track, npu, r->stream);
            char label[48];
            snprintf(label, sizeof label, "Stream %lld", (long long)r->stream);
            ml_trace_meta(d->t, ML_META_THREAD_NAME, d->npu_pid, d->t->tracks.v[track].tid,
                          ml_intern_cstr(d->p->strings, label), 0);
        }
        ml_kernel_info ki = {.device = (int32_t)r->dev, .stream = r->stream, .grid = {-1, -1, -1}, .block = {-1, -1, -1},
                             .registers = -1, .shared_memory = -1, .blocks_per_sm = -1.0f, .occupancy = -1.0f,
                             .bytes = -1};
        const char *op = r->op ? ml_s(d->p, r->op) : NULL;
        ml_ascend_task_kind(d->p, d->t, &ki, op ? "HCCL" : r->core ? ml_s(d->p, r->core) : NULL, op);
        uint8_t kind = ml_ascend_task_type_is_sync(ttype) ? ML_SL_OTHER
                       : !strncmp(ttype, "MEMCPY", 6) && !op ? ML_SL_MEMCPY : ML_SL_KERNEL;
        push(d, r->b, r->e, r->name ? ml_s(d->p, r->name) : ttype, track, kind, r->corr,
             kind == ML_SL_OTHER ? ML_NONE32 : ml_kernel_info_push(d->t, &ki));
        const uint32_t *by = kind != ML_SL_OTHER && r->corr >= 0 ? ml_u64map_get(&d->queued_by, (uint64_t)r->corr) : NULL;
        if (by) { /* one flow per task, from the operator that queued it */
            int64_t id = ++d->flows;
            ml_flow_point(d->t, id, d->flow_cat, 's', true, d->queued.v[*by].track, d->queued.v[*by].ts);
            ml_flow_point(d->t, id, d->flow_cat, 'f', false, track, r->b);
        }
    }
    VEC_FREE(&rows);
}

static void npu_side(dbt *d)
{
    tasks(d);
    sqlite3_stmt *st;
    if ((st = prep(d, "COMMUNICATION_OP", "SELECT o.startNs, o.endNs, s.value, g.value, o.connectionId "
                                          "FROM COMMUNICATION_OP o LEFT JOIN STRING_IDS s ON s.id = o.opName "
                                          "LEFT JOIN STRING_IDS g ON g.id = o.groupName"))) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t b, e, corr;
            if (!col_i64(st, 0, &b) || !col_i64(st, 1, &e) || !span_ok(b, e)) continue;
            if (!col_i64(st, 4, &corr)) corr = -1;
            char tid[160];
            snprintf(tid, sizeof tid, "Group %.120s Communication", col_text(st, 3));
            const char *pid = ml_s(d->p, d->hccl_pid);
            uint32_t track = ml_track_get(d->t, d->p->strings, pid, strlen(pid), tid, strlen(tid));
            d->t->tracks.v[track].kind = ML_TRACK_OTHER;
            push(d, b, e, col_text(st, 2), track, ML_SL_OTHER, -1, ML_NONE32);
        }
        sqlite3_finalize(st);
    }
}

static void steps(dbt *d)
{
    if (d->have_step) return;
    sqlite3_stmt *st = prep(d, "STEP_TIME", "SELECT id, startNs, endNs FROM STEP_TIME");
    if (!st) return;
    uint32_t track = d->main_track != ML_NONE32 ? d->main_track : lane(d, d->host_pid, 0);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id, b, e;
        if (!col_i64(st, 0, &id) || !col_i64(st, 1, &b) || !col_i64(st, 2, &e) || !span_ok(b, e)) continue;
        char name[40];
        snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)id);
        ml_op_info_row oi = {0, 0, 0, 0, -1, -1, -1};
        push(d, b, e, name, track, ML_SL_PROFILER_STEP, -1, ml_op_info_push(d->t, &oi));
    }
    sqlite3_finalize(st);
}

int ml_ascend_db_time(const char *path, ml_profile *p, ml_err *e)
{
    (void)e; /* what cannot be read is left out with a note: the memory side has opened this db already */
    if (!p->trace) return 0;
    dbt d = {.path = path, .p = p, .t = p->trace, .main_track = ML_NONE32};
    ml_u64map_init(&d.queued_by);
    d.flow_cat = ml_intern_cstr(p->strings, "async_npu");
    if (ml_ascend_db_open(path, &d.db) < 0) {
        ml_note(p, "%s: cannot be opened for its time side", base_name(path));
        return 0;
    }
    d.host_pid = ml_intern_cstr(p->strings, "host");
    d.cann_pid = ml_intern_cstr(p->strings, "cann");
    d.npu_pid = ml_intern_cstr(p->strings, "npu");
    d.hccl_pid = ml_intern_cstr(p->strings, "hccl");
    static const char *const procs[][2] = {{"host", "Python"}, {"cann", "CANN"}, {"npu", "Ascend Hardware"}, {"hccl", "HCCL"}};
    for (size_t i = 0; i < 4; i++)
        ml_trace_meta(p->trace, ML_META_PROCESS_NAME, ml_intern_cstr(p->strings, procs[i][0]), 0,
                      ml_intern_cstr(p->strings, procs[i][1]), (int64_t)i);
    host_side(&d);
    npu_side(&d);
    steps(&d);
    ml_u64map_free(&d.queued_by);
    VEC_FREE(&d.queued);
    sqlite3_close(d.db);
    p->time_is_absolute = true;
    return 0;
}
