/* ascend_time.c — the time side of a torch_npu export given as one file
 * (format "ascend-text"): trace_view.json of any vintage (a list or
 * {"traceEvents": [...]}, string or number `ts`, `Physic Stream Id` or the
 * older `Stream Id`), kernel_details.csv or step_trace_time.csv alone; and
 * the "Task Type" of trace_view.json's NPU tasks (Accelerator Core, HCCL
 * communication), which the Chrome reader leaves out.
 *
 * trace_view.json is read in several passes (time side, "NPU MEM" counters,
 * operator stacks), so a file given alone is read into memory once and each
 * pass runs over that copy: stdin and .gz work the same as a plain file. */
#include "ascend.h"
#include "ascend_tv.h"
#include "decimal.h"
#include "importer.h"
#include "jsonscan.h"

#include <stdlib.h>
#include <string.h>

/* ---- what a task is, from its Task Type ---------------------------------- */

bool ml_ascend_task_type_is_comm(const char *type)
{
    /* HCCL's tasks on the compute streams (torch_npu's trace_view "Task Type",
     * the db's TASK.taskType of rows in COMMUNICATION_TASK_INFO) */
    static const char *const hccl[] = {"Notify Wait", "Notify Record", "Write Value", "SDMA", "Reduce Inline",
                                       "RDMA Send", "Notify_Wait", "Notify_Record", "Reduce_Inline", "HCCL"};
    if (!type) return false;
    for (size_t i = 0; i < sizeof hccl / sizeof *hccl; i++)
        if (!strcmp(type, hccl[i])) return true;
    return false;
}

bool ml_ascend_task_type_is_sync(const char *type)
{
    /* stream synchronisation, not work: what CUDA's "Stream Wait Event" is */
    static const char *const sync[] = {"EVENT_WAIT", "EVENT_RECORD", "EVENT_WAIT_SQE", "EVENT_RECORD_SQE",
                                       "PLACE_HOLDER_SQE", "STARS_COMMON"};
    if (!type) return false;
    for (size_t i = 0; i < sizeof sync / sizeof *sync; i++)
        if (!strcmp(type, sync[i])) return true;
    return false;
}

bool ml_ascend_task_type_is_core(const char *type)
{
    /* compute units: the Accelerator Core column of kernel_details.csv */
    return type && (!strncmp(type, "AI_", 3) || !strncmp(type, "MIX_", 4) || !strcmp(type, "DSA_SQE"));
}

void ml_ascend_task_kind(ml_profile *p, ml_trace *t, ml_kernel_info *ki, const char *type, const char *op)
{
    if (!type || !*type) return;
    if (ml_ascend_task_type_is_core(type)) ki->core = ml_intern_cstr(p->strings, type);
    else if (ml_ascend_task_type_is_comm(type) || (op && *op)) {
        ki->core = ml_intern_cstr(p->strings, "HCCL");
        ml_comm_args c = *ml_kernel_comm(t, ki);
        c.collective = ml_intern_cstr(p->strings, op && *op ? op : type);
        if (ki->comm) t->comm_args.v[ki->comm - 1] = c;
        else ki->comm = ml_comm_args_push(t, &c);
    }
}

/* ---- trace_view.json: Task Type of the NPU tasks ------------------------ */

typedef struct task_type {
    int64_t ts;
    ml_str pid, tid, type;
} task_type;

static int by_key(const void *x, const void *y)
{
    const task_type *a = x, *b = y;
    if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

int ml_ascend_trace_view_tasks(ml_source *src, ml_profile *p, ml_err *e)
{
    ml_trace *t = p->trace;
    if (!t) return 0;
    char pid[32], tid[32], ts[48], type[48];
    const ml_tv_field top[] = {{"pid", pid, sizeof pid}, {"tid", tid, sizeof tid}, {"ts", ts, sizeof ts}};
    const ml_tv_field args[] = {{"Task Type", type, sizeof type}};
    ml_tv_scan tv;
    VEC(task_type) tt = {0};
    int rc = -1, got = ml_tv_open(&tv, src, top, 3, args, 1);
    if (got < 0) goto fail;
    if (!got) goto done; /* the events pass has said what is wrong */
    while ((got = ml_tv_next(&tv)) != 0) {
        if (got < 0) goto fail;
        task_type x;
        if (!type[0] || ml_parse_scaled(ts, strlen(ts), 3, &x.ts) < 0) continue;
        x.pid = ml_intern_cstr(p->strings, pid);
        x.tid = ml_intern_cstr(p->strings, tid);
        x.type = ml_intern_cstr(p->strings, type);
        VEC_PUSH(&tt, x);
    }
done:
    if (tt.len) {
        qsort(tt.v, tt.len, sizeof *tt.v, by_key);
        ml_slices *s = &t->slices;
        for (size_t i = 0; i < s->ts.len; i++) {
            uint8_t kind = s->kind.v[i];
            uint32_t info = s->info.v[i];
            if ((kind != ML_SL_KERNEL && kind != ML_SL_MEMCPY) || info >= t->kernel_info.len) continue;
            const ml_track *tr = &t->tracks.v[s->track.v[i]];
            task_type key = {s->ts.v[i], tr->pid, tr->tid, 0};
            const task_type *hit = bsearch(&key, tt.v, tt.len, sizeof *tt.v, by_key);
            if (!hit) continue;
            if (ml_ascend_task_type_is_sync(ml_s(p, hit->type))) { /* a wait on the stream, not work */
                s->kind.v[i] = ML_SL_OTHER;
                s->info.v[i] = ML_NONE32;
            } else ml_ascend_task_kind(p, t, &t->kernel_info.v[info], ml_s(p, hit->type), NULL);
        }
    }
    rc = 0;
    goto out;
fail:
    ml_fail(e, "%s: byte %llu: %s", ml_source_name(src), (unsigned long long)js_offset(tv.js),
            tv.tok == JS_ERROR ? js_error(tv.js) : "malformed trace event");
out:
    VEC_FREE(&tt);
    ml_tv_close(&tv);
    return rc;
}

/* ---- one file alone ------------------------------------------------------- */

static size_t skip_blanks(const unsigned char *h, size_t i, size_t n)
{
    if (n >= 3 && i == 0 && h[0] == 0xEF && h[1] == 0xBB && h[2] == 0xBF) i = 3;
    while (i < n && (h[i] == ' ' || h[i] == '\n' || h[i] == '\r' || h[i] == '\t')) i++;
    return i;
}

/* torch_npu's trace_view.json: Chrome events whose "ts" is a string (Kineto
 * writes numbers), or whose first 4 KiB name an Ascend lane or CANN call. */
static bool looks_trace_view(const unsigned char *head, size_t n)
{
    size_t i = skip_blanks(head, 0, n);
    if (i == n || (head[i] != '[' && head[i] != '{')) return false;
    const char *h = (const char *)head;
    if (!memmem(h, n, "\"ph\"", 4)) return false;
    return memmem(h, n, "\"ts\": \"", 7) || memmem(h, n, "\"ts\":\"", 6) || memmem(h, n, "\"Ascend Hardware\"", 17) ||
           memmem(h, n, "AscendCL@", 9);
}

static const char *csv_kind(const unsigned char *head, size_t n)
{
    size_t i = skip_blanks(head, 0, n), e = i;
    while (e < n && head[e] != '\n' && head[e] != '\r') e++;
    const char *h = (const char *)head + i;
    size_t len = e - i;
    if (memmem(h, len, "Accelerator Core", 16) && memmem(h, len, "Start Time(us)", 14)) return "kernel_details";
    if (len >= 5 && !memcmp(h, "Step,", 5) && memmem(h, len, "Computing", 9) && memmem(h, len, "Free", 4))
        return "step_trace_time";
    if (len >= 10 && !memcmp(h, "Device_id,", 10) && memmem(h, len, "Computing", 9)) return "step_trace_time";
    return NULL;
}

int ml_ascend_time_sniff(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    if (csv_kind(head, n)) return 95;
    return looks_trace_view(head, n) ? 92 : 0; /* above Kineto's 90 */
}

/* The whole input in memory (it is read more than once). */
static char *slurp(ml_source *src, size_t *len, ml_err *e)
{
    size_t cap = 1 << 20, n = 0;
    char *buf = ml_malloc(cap);
    for (;;) {
        if (n == cap) buf = ml_realloc(buf, cap *= 2);
        ssize_t r = ml_source_read(src, buf + n, cap - n, e);
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    *len = n;
    return buf;
}

static int pass(const char *name, const char *buf, size_t len, ml_profile *p,
                int (*fn)(ml_source *, ml_profile *, ml_err *), ml_err *e)
{
    ml_source *m = ml_source_from_memory(name, buf, len);
    int r = fn(m, p, e);
    ml_source_close(m);
    return r;
}

int ml_ascend_time_import(ml_source *src, ml_profile *p, const ml_keep *keep, ml_err *e)
{
    ml_ascend_caps(p);
    const unsigned char *head;
    size_t n = ml_source_peek(src, &head, 4096, e);
    const char *kind = csv_kind(head, n);
    p->time_is_absolute = true;
    int rc;
    if (kind && !p->trace && !strcmp(kind, "kernel_details")) {
        /* a command without the time side (summary): the file has nothing else */
        ml_note(p, "kernel_details.csv holds NPU tasks, no memory: `memlens perf` shows them");
        rc = 0;
    } else if (kind) {
        rc = !strcmp(kind, "kernel_details") ? ml_ascend_kernel_details_add(src, p, e)
                                             : ml_ascend_step_trace_add(src, p, e);
    } else {
        size_t len;
        char *buf = slurp(src, &len, e);
        if (!buf) return -1;
        const char *name = ml_source_name(src);
        rc = 0;
        if (p->trace) {
            rc = pass(name, buf, len, p, ml_ascend_trace_view_events, e);
            if (rc == 0) rc = pass(name, buf, len, p, ml_ascend_trace_view_tasks, e);
        }
        if (rc == 0) rc = pass(name, buf, len, p, ml_ascend_trace_view_add, e);
        if (rc == 0) rc = pass(name, buf, len, p, ml_ascend_trace_view_ops, e);
        free(buf);
        if (rc == 0 && !p->trace && !p->series.len)
            ml_note(p, "trace_view.json alone: no memory records (its NPU MEM counters are empty); "
                       "`memlens perf` shows its time side");
    }
    if (rc < 0) return -1;
    ml_profile_finish_keep(p, keep);
    return 0;
}
