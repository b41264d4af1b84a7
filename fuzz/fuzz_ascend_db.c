/* fuzz_ascend_db.c — libFuzzer target for the time side of torch_npu's
 * SQLite export (importers/ascend_db_time.c): a small valid db whose TASK,
 * COMPUTE_TASK_INFO, COMMUNICATION_TASK_INFO, PYTORCH_API, CANN_API,
 * COMMUNICATION_OP and STEP_TIME rows are drawn from the bytes (any value
 * SQLite can hold, text in integer columns too), then the analyses over the
 * store.  Never a crash, whatever the rows say. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ascend.h"
#include "fuzz_common.h"

static const char *const schema =
    "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);"
    "INSERT INTO STRING_IDS VALUES (0,'KERNEL_AICORE'),(1,'AI_CORE'),(2,'Notify Wait'),(3,'hcom_x'),(4,'EVENT_WAIT'),"
    " (5,'aten::mm'),(6,'ProfilerStep#1'),(7,'MEMCPY_ASYNC');"
    "CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY, name TEXT);"
    "INSERT INTO ENUM_API_TYPE VALUES (1,'op'),(2,'trace'),(3,'queue');"
    "CREATE TABLE TASK (startNs,endNs,deviceId,connectionId,globalTaskId,globalPid,taskType,contextId,streamId,taskId,modelId,depth);"
    "CREATE TABLE COMPUTE_TASK_INFO (name,globalTaskId,blockDim,mixBlockDim,taskType,opType,waitNs);"
    "CREATE TABLE COMMUNICATION_TASK_INFO (name,globalTaskId,taskType,opId);"
    "CREATE TABLE COMMUNICATION_OP (opName,startNs,endNs,connectionId,groupName,opId);"
    "CREATE TABLE PYTORCH_API (startNs,endNs,globalTid,connectionId,name,sequenceNumber,fwdThreadId,inputDtypes,"
    " inputShapes,callchainId,type,depth);"
    "CREATE TABLE CANN_API (startNs,endNs,type,globalTid,connectionId,name,depth);"
    "CREATE TABLE STEP_TIME (id,startNs,endNs);";

/* A value from the bytes: a small or huge integer, a negative, text, NULL. */
static void bind_value(sqlite3_stmt *st, int col, const uint8_t **d, size_t *n)
{
    uint8_t sel = *n ? **d : 0;
    uint64_t u = 0;
    for (int i = 1; i <= 8 && (size_t)i < *n; i++) u = u << 8 | (*d)[i];
    int64_t v = (int64_t)u;
    size_t used = *n < 9 ? *n : 9;
    *d += used, *n -= used;
    switch (sel % 6) {
    case 0: sqlite3_bind_int64(st, col, v % 16); break;
    case 1: sqlite3_bind_int64(st, col, v); break;
    case 2: sqlite3_bind_int64(st, col, INT64_C(1736410576000000000) + (int64_t)(u % 100000000)); break;
    case 3: sqlite3_bind_null(st, col); break;
    case 4: sqlite3_bind_text(st, col, "4294967295", -1, SQLITE_STATIC); break;
    default: sqlite3_bind_double(st, col, (double)v / 3.0); break;
    }
}

static void fill(sqlite3 *db, const char *table, int cols, const uint8_t **d, size_t *n)
{
    char q[256];
    int w = snprintf(q, sizeof q, "INSERT INTO %s VALUES (?", table);
    for (int i = 1; i < cols; i++) w += snprintf(q + w, sizeof q - (size_t)w, ",?");
    snprintf(q + w, sizeof q - (size_t)w, ")");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) return;
    for (int row = 0; row < 6 && *n; row++) {
        for (int c = 1; c <= cols; c++) bind_value(st, c, d, n);
        sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    /* in memory where there is /dev/shm: a db file a run, without fsync */
    snprintf(path, sizeof path, "%s/fuzz_ascend_db_%d.db", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
    unlink(path);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) return 0;
    sqlite3_exec(db, "PRAGMA synchronous = OFF; PRAGMA journal_mode = OFF; BEGIN", NULL, NULL, NULL);
    sqlite3_exec(db, schema, NULL, NULL, NULL);
    static const struct { const char *t; int cols; } tables[] = {
        {"TASK", 12}, {"COMPUTE_TASK_INFO", 7}, {"COMMUNICATION_TASK_INFO", 4}, {"COMMUNICATION_OP", 6},
        {"PYTORCH_API", 12}, {"CANN_API", 7}, {"STEP_TIME", 3}};
    for (size_t i = 0; i < 7; i++) fill(db, tables[i].t, tables[i].cols, &data, &size);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    ml_profile *p = ml_profile_new(path, "ascend-db");
    ml_ascend_caps(p); /* as the db importer does: an NPU, its launches by connectionId */
    p->trace = ml_trace_new();
    ml_err e;
    if (ml_ascend_db_time(path, p, &e) == 0) {
        ml_profile_finish(p);
        fuzz_time_analyses(p);
    }
    ml_profile_free(p);
    unlink(path);
    return 0;
}
