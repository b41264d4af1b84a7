/* ascend_kernels.c — torch_npu's kernel_details.csv and step_trace_time.csv
 * into the time side (p->trace).
 *
 * kernel_details.csv is what MindStudio Insight's operator views read: one
 * row per NPU task with Step Id, Name, Type, Accelerator Core, Start Time(us),
 * Duration(us), Wait Time(us), Stream ID and counters.  Its columns vary
 * across CANN versions (Device_id first or not, "Task Type" where older ones
 * have no Accelerator Core, more or fewer counters), so every column is found
 * by its header name and only Name, Start Time(us) and Duration(us) are
 * required.  Each row becomes a task on the stream track "Stream N" of the
 * process "Ascend Hardware" (as trace_view.json draws it): ML_SL_KERNEL with
 * kernel_info.core = the Accelerator Core; HCCL rows are communication
 * (kernel_info.comm.collective = their Type, hcom_allReduce_ ...) and, having
 * no Stream ID ("N/A"), go on a lane of their own, "HCCL", numbered
 * ML_ASCEND_HCCL_STREAM.  Each Step Id becomes ProfilerStep#N on a host lane,
 * from its first task's start to its last task's end (the file has no host
 * side).  Times are µs text read exactly into ns (ml_csv_scaled).
 *
 * Beside a trace_view.json (which has the tasks already, but names some
 * vintages' cores coarsely: "AI_CORE" for vector tasks, "Other"), the file
 * only gives each task of the same start time and name its Accelerator Core
 * (ml_ascend_kernel_details_cores).
 *
 * step_trace_time.csv holds per step, in µs, Computing, Communication(Not
 * Overlapped), Overlapped, Communication, Free, ... (no start times): each
 * step becomes a note with those figures, as the file gives them.
 */
#include "ascend.h"
#include "csv.h"
#include "importer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rank's NPU: the only one the profile has, else npu:<dev>. */
static uint16_t npu_of(ml_profile *p, int64_t dev)
{
    if (dev >= 0 && dev <= 65535) return ml_device_get(p, ML_DEV_NPU, (int)dev);
    uint16_t d = 0;
    int found = 0;
    for (size_t i = 0; i < p->devices.len; i++)
        if (p->devices.v[i].kind == ML_DEV_NPU) d = (uint16_t)i, found++;
    return found == 1 ? d : ml_device_get(p, ML_DEV_NPU, 0);
}

/* The first of the names that is a column, or -1. */
static int col_any(const ml_csv *c, const char *const *names)
{
    for (; *names; names++) {
        int k = ml_csv_col(c, *names);
        if (k >= 0) return k;
    }
    return -1;
}

/* A cell that may be "N/A" or blank: 0 if it is an integer, 1 if absent. */
static int opt_int(const ml_csv *c, int col, int64_t *out)
{
    size_t n;
    const char *s = ml_csv_cell(c, col, &n);
    if (col < 0 || !n || !strcmp(s, "N/A")) return 1;
    return ml_parse_integral(s, n, out) == 0 ? 0 : 1;
}

typedef struct step_span {
    int64_t id, begin, end;
} step_span;

int ml_ascend_kernel_details_add(ml_source *src, ml_profile *p, ml_err *e)
{
    ml_trace *t = p->trace;
    if (!t) return 0; /* a command without a time side */
    ml_csv *c;
    if (ml_csv_open(src, &c, e)) return -1;
    int cname, cstart, cdur;
    if (ml_csv_need(c, "Name", &cname, e) || ml_csv_need(c, "Start Time(us)", &cstart, e) ||
        ml_csv_need(c, "Duration(us)", &cdur, e)) {
        ml_csv_close(c);
        return -1;
    }
    static const char *const core_cols[] = {"Accelerator Core", "Task Type", NULL};
    static const char *const stream_cols[] = {"Stream ID", "Stream Id", NULL};
    static const char *const step_cols[] = {"Step Id", "Step ID", NULL};
    static const char *const dev_cols[] = {"Device_id", "Device ID", NULL};
    int ccore = col_any(c, core_cols), cstream = col_any(c, stream_cols), cstep = col_any(c, step_cols),
        cdev = col_any(c, dev_cols), ctype = ml_csv_col(c, "Type");
    ml_str hw = ml_intern_cstr(p->strings, "Ascend Hardware"), host = ml_intern_cstr(p->strings, "Python");
    ml_str hw_pid = ml_intern_cstr(p->strings, "npu"), host_pid = ml_intern_cstr(p->strings, "host");
    ml_trace_meta(t, ML_META_PROCESS_NAME, hw_pid, 0, hw, 0);
    ml_trace_meta(t, ML_META_PROCESS_NAME, host_pid, 0, host, 0);
    VEC(step_span) steps = {0};
    int rc = 0, r;
    int64_t rows = 0;
    while ((r = ml_csv_next(c, e)) > 0) {
        int64_t ts, dur, stream = -1, step = -1, dev = -1;
        if (ml_csv_scaled(c, cstart, ML_US_TO_NS, &ts, NULL, e) || ml_csv_scaled(c, cdur, ML_US_TO_NS, &dur, NULL, e)) {
            rc = -1;
            break;
        }
        if (dur < 0 || !ml_value_ok(ts) || !ml_value_ok(dur) || !ml_value_ok(ts + dur)) {
            rc = ml_fail(e, "%s: line %llu: a task from %s us lasting %s us is outside any profile's times",
                         ml_csv_name(c), (unsigned long long)ml_csv_line(c), ml_csv_cell(c, cstart, NULL),
                         ml_csv_cell(c, cdur, NULL));
            break;
        }
        bool has_stream = opt_int(c, cstream, &stream) == 0 && stream >= 0 && stream < ML_ASCEND_HCCL_STREAM;
        if (opt_int(c, cstep, &step)) step = -1;
        if (opt_int(c, cdev, &dev)) dev = -1;
        const char *core = ml_csv_cell(c, ccore, NULL), *type = ml_csv_cell(c, ctype, NULL);
        bool hccl = !strcmp(core, "HCCL") || !strncmp(type, "hcom_", 5);
        if (!has_stream) stream = ML_ASCEND_HCCL_STREAM;
        uint16_t npu = npu_of(p, dev);
        char tid[32];
        if (stream == ML_ASCEND_HCCL_STREAM) snprintf(tid, sizeof tid, "HCCL");
        else snprintf(tid, sizeof tid, "%lld", (long long)stream);
        uint32_t track = ml_track_get(t, p->strings, "npu", 3, tid, strlen(tid));
        if (t->tracks.v[track].kind != ML_TRACK_STREAM) {
            ml_track_set_stream(t, track, npu, stream);
            char label[40];
            snprintf(label, sizeof label, stream == ML_ASCEND_HCCL_STREAM ? "HCCL" : "Stream %lld", (long long)stream);
            ml_trace_meta(t, ML_META_THREAD_NAME, hw_pid, t->tracks.v[track].tid, ml_intern_cstr(p->strings, label), 0);
        }
        const char *name = ml_csv_cell(c, cname, NULL);
        ml_kernel_info ki = {.device = p->devices.v[npu].index, .stream = stream, .grid = {-1, -1, -1},
                             .block = {-1, -1, -1}, .registers = -1, .shared_memory = -1, .blocks_per_sm = -1.0f,
                             .occupancy = -1.0f, .bytes = -1};
        if (hccl) ml_ascend_task_kind(p, t, &ki, "HCCL", *type ? type : name);
        else ml_ascend_task_kind(p, t, &ki, core, NULL);
        ml_slice_row row = {ts, dur, -1, -1, ml_intern_cstr(p->strings, name), track, ml_kernel_info_push(t, &ki),
                            strncmp(name, "MEMCPY", 6) == 0 ? ML_SL_MEMCPY : ML_SL_KERNEL};
        ml_slice_push(t, &row);
        ml_trace_span(t, ts, ts + dur);
        rows++;
        if (step >= 0) {
            size_t k = 0;
            while (k < steps.len && steps.v[k].id != step) k++;
            if (k == steps.len) VEC_PUSH(&steps, ((step_span){step, ts, ts + dur}));
            if (ts < steps.v[k].begin) steps.v[k].begin = ts;
            if (ts + dur > steps.v[k].end) steps.v[k].end = ts + dur;
        }
    }
    if (r < 0) rc = -1;
    if (rc == 0) {
        uint32_t ht = ml_track_get(t, p->strings, "host", 4, "steps", 5);
        for (size_t k = 0; k < steps.len; k++) {
            char nm[40];
            snprintf(nm, sizeof nm, "ProfilerStep#%lld", (long long)steps.v[k].id);
            ml_slice_row row = {steps.v[k].begin, steps.v[k].end - steps.v[k].begin, -1, -1,
                                ml_intern_cstr(p->strings, nm), ht, ML_NONE32, ML_SL_PROFILER_STEP};
            ml_slice_push(t, &row);
        }
        if (steps.len)
            ml_note(p, "%s: steps drawn from their first task's start to their last task's end "
                       "(the file has no host side)", ml_csv_name(c));
        if (!rows) ml_note(p, "%s: no tasks", ml_csv_name(c));
    }
    VEC_FREE(&steps);
    ml_csv_close(c);
    return rc;
}

typedef struct task_core {
    int64_t ts;
    ml_str name, core;
    bool hccl;
} task_core;

static int by_ts_name(const void *x, const void *y)
{
    const task_core *a = x, *b = y;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return (a->name > b->name) - (a->name < b->name);
}

int ml_ascend_kernel_details_cores(ml_source *src, ml_profile *p, ml_err *e)
{
    ml_trace *t = p->trace;
    if (!t) return 0;
    ml_csv *c;
    if (ml_csv_open(src, &c, e)) return -1;
    int cname, cstart;
    static const char *const core_cols[] = {"Accelerator Core", "Task Type", NULL};
    int ccore = col_any(c, core_cols), ctype = ml_csv_col(c, "Type");
    if (ml_csv_need(c, "Name", &cname, e) || ml_csv_need(c, "Start Time(us)", &cstart, e)) {
        ml_csv_close(c);
        return -1;
    }
    VEC(task_core) rows = {0};
    int r, rc = 0;
    while ((r = ml_csv_next(c, e)) > 0) {
        task_core x;
        if (ml_csv_scaled(c, cstart, ML_US_TO_NS, &x.ts, NULL, e)) {
            rc = -1;
            break;
        }
        const char *core = ml_csv_cell(c, ccore, NULL), *type = ml_csv_cell(c, ctype, NULL);
        x.name = ml_intern_cstr(p->strings, ml_csv_cell(c, cname, NULL));
        x.hccl = !strcmp(core, "HCCL") || !strncmp(type, "hcom_", 5);
        x.core = *core ? ml_intern_cstr(p->strings, x.hccl ? (*type ? type : core) : core) : 0;
        VEC_PUSH(&rows, x);
    }
    if (r < 0) rc = -1;
    if (rc == 0 && rows.len) {
        qsort(rows.v, rows.len, sizeof *rows.v, by_ts_name);
        int64_t matched = 0;
        ml_slices *s = &t->slices;
        for (size_t i = 0; i < s->ts.len; i++) {
            uint32_t info = s->info.v[i];
            if (s->kind.v[i] != ML_SL_KERNEL || info >= t->kernel_info.len) continue;
            task_core key = {s->ts.v[i], s->name.v[i], 0, false};
            const task_core *hit = bsearch(&key, rows.v, rows.len, sizeof *rows.v, by_ts_name);
            if (!hit || !hit->core) continue;
            ml_kernel_info *ki = &t->kernel_info.v[info];
            if (hit->hccl) ml_ascend_task_kind(p, t, ki, "HCCL", ml_s(p, hit->core));
            else ki->core = hit->core;
            matched++;
        }
        ml_note(p, "kernel_details.csv: the Accelerator Core of %lld of trace_view.json's tasks (%zu rows)",
                (long long)matched, rows.len);
    }
    VEC_FREE(&rows);
    ml_csv_close(c);
    return rc;
}

int ml_ascend_step_trace_add(ml_source *src, ml_profile *p, ml_err *e)
{
    ml_csv *c;
    if (ml_csv_open(src, &c, e)) return -1;
    int cstep;
    if (ml_csv_need(c, "Step", &cstep, e)) {
        ml_csv_close(c);
        return -1;
    }
    static const char *const figures[] = {"Computing", "Communication(Not Overlapped)", "Overlapped", "Communication",
                                          "Free", "Bubble", "Preparing"};
    int cols[7];
    for (int k = 0; k < 7; k++) cols[k] = ml_csv_col(c, figures[k]);
    int r, rc = 0;
    while ((r = ml_csv_next(c, e)) > 0) {
        char line[512];
        size_t w = (size_t)snprintf(line, sizeof line, "%s: step %s:", ml_csv_name(c), ml_csv_cell(c, cstep, NULL));
        for (int k = 0; k < 7 && w < sizeof line; k++) {
            int64_t ns;
            bool blank;
            if (cols[k] < 0) continue;
            if (ml_csv_scaled(c, cols[k], ML_US_TO_NS, &ns, &blank, e)) {
                rc = -1;
                break;
            }
            if (blank) continue;
            w += (size_t)snprintf(line + w, sizeof line - w, "%s %s %lld.%03lld us", w > 0 && line[w - 1] == ':' ? "" : ",",
                                  figures[k], (long long)(ns / 1000), (long long)(ns % 1000 < 0 ? -(ns % 1000) : ns % 1000));
        }
        if (rc) break;
        ml_note(p, "%s", line);
    }
    if (r < 0) rc = -1;
    ml_csv_close(c);
    return rc;
}
