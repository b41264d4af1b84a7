/* ascend_dir.c — a torch_npu `*_ascend_pt` directory as one rank: the rank
 * from profiler_info_{rank}.json, the memory files of ASCEND_PROFILER_OUTPUT/
 * (CSV and trace_view.json, or the SQLite export), and the "NPU MEM" counters
 * of trace_view.json.  The mapping onto the model is in ascend.h. */
#include "ascend.h"
#include "ascend_tv.h"
#include "decimal.h"
#include "importer.h"
#include "jsonscan.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUTPUT_DIR "ASCEND_PROFILER_OUTPUT"

/* dir/name, allocated: paths have no fixed limit. */
static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *s = ml_malloc(n);
    snprintf(s, n, "%s/%s", dir, name);
    return s;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *base_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    const char *s = path + n;
    while (s > path && s[-1] != '/') s--;
    return s;
}

int ml_ascend_is_profile_dir(const char *dir)
{
    char *sub = join(dir, OUTPUT_DIR);
    bool yes = is_dir(sub);
    free(sub);
    if (yes) return 1;
    return strncmp(base_name(dir), OUTPUT_DIR, strlen(OUTPUT_DIR)) == 0 &&
           base_name(dir)[strlen(OUTPUT_DIR)] != '_';
}

/* ---- trace_view.json: "NPU MEM" counters ---- */

typedef struct counter {
    int64_t ts, kib;
    char pid[24];
    uint8_t what;   /* 1 = APP/Memory, 2 = Device/Memory */
} counter;

int ml_ascend_trace_view_add(ml_source *src, ml_profile *p, ml_err *e)
{
    char ph[8], name[32], pid[24], ts[40], kb[40], label[32];
    const ml_tv_field top[] = {{"ph", ph, sizeof ph}, {"name", name, sizeof name}, {"pid", pid, sizeof pid},
                               {"ts", ts, sizeof ts}};
    const ml_tv_field args[] = {{"KB", kb, sizeof kb}, {"name", label, sizeof label}};
    ml_tv_scan tv;
    VEC(counter) cs = {0};
    char mem_pid[24] = "";
    int rc = -1, got = ml_tv_open(&tv, src, top, 4, args, 2);
    if (got < 0 || (!got && tv.tok == JS_ERROR)) goto fail_js;
    if (!got) {
        ml_fail(e, "%s: byte %llu: expected an array of trace events", ml_source_name(src),
                (unsigned long long)js_offset(tv.js));
        goto out;
    }
    while ((got = ml_tv_next(&tv)) != 0) {
        if (got < 0) goto fail_js;
        if (!strcmp(ph, "M") && !strcmp(name, "process_name") && !strcmp(label, "NPU MEM"))
            snprintf(mem_pid, sizeof mem_pid, "%s", pid);
        uint8_t what = !strcmp(name, "APP/Memory") ? 1 : !strcmp(name, "Device/Memory") ? 2 : 0;
        if (strcmp(ph, "C") || !what) continue;
        counter c = {0, 0, "", what};
        snprintf(c.pid, sizeof c.pid, "%s", pid);
        if (ml_parse_scaled(ts, strlen(ts), 3, &c.ts) < 0 || ml_parse_units(kb, strlen(kb), 1024, &c.kib) < 0) {
            ml_fail(e, "%s: byte %llu: counter %s: ts '%.40s' or args.KB '%.40s' is not a number",
                    ml_source_name(src), (unsigned long long)js_offset(tv.js), name, ts, kb);
            goto out;
        }
        VEC_PUSH(&cs, c);
    }
    /* The device: the rank's only NPU (trace_view.json does not name it). */
    uint16_t dev = 0;
    int found = 0;
    for (size_t i = 0; i < p->devices.len; i++)
        if (p->devices.v[i].kind == ML_DEV_NPU) dev = (uint16_t)i, found++;
    if (found != 1) dev = ml_device_get(p, ML_DEV_NPU, 0);
    if (found > 1) ml_note(p, "trace_view.json: NPU MEM counters shown on npu:0 (the file does not name the device)");
    bool add_app = !ml_ascend_has_app(p);
    ml_str device = ml_intern_cstr(p->strings, "DEVICE");
    for (size_t i = 0; i < cs.len; i++) {
        if (!mem_pid[0] || strcmp(cs.v[i].pid, mem_pid)) continue;
        if (cs.v[i].what == 1 && add_app)
            ml_series_push(ml_series_get(p, dev, ML_SERIES_APP_RESERVED, 0, 0), cs.v[i].ts, cs.v[i].kib);
        else if (cs.v[i].what == 2)
            ml_series_push(ml_series_get(p, dev, ML_SERIES_OTHER, device, 0), cs.v[i].ts, cs.v[i].kib);
    }
    rc = 0;
    goto out;
fail_js:
    ml_fail(e, "%s", tv.tok == JS_ERROR ? js_error(tv.js) : "malformed trace event");
    if (tv.tok != JS_ERROR) ml_prefix(e, "%s: byte %llu", ml_source_name(src), (unsigned long long)js_offset(tv.js));
out:
    VEC_FREE(&cs);
    ml_tv_close(&tv);
    return rc;
}

/* ---- trace_view.json: the time side ---- */

static bool str_is(const ml_profile *p, ml_str id, const char *lit) { return id && !strcmp(ml_s(p, id), lit); }

static int64_t trailing_number(const char *s)
{
    size_t n = strlen(s), i = n;
    while (i && s[i - 1] >= '0' && s[i - 1] <= '9') i--;
    if (i == n || n - i > 15) return -1;
    return atoll(s + i);
}

/* The rank's NPU: its only one, else npu:0 (trace_view.json does not name it). */
static uint16_t rank_npu(ml_profile *p)
{
    uint16_t dev = 0;
    int found = 0;
    for (size_t i = 0; i < p->devices.len; i++)
        if (p->devices.v[i].kind == ML_DEV_NPU) dev = (uint16_t)i, found++;
    return found == 1 ? dev : ml_device_get(p, ML_DEV_NPU, 0);
}

enum { LANE_HOST, LANE_STREAM, LANE_CANN, LANE_OTHER };

int ml_ascend_trace_view_events(ml_source *src, ml_profile *p, ml_err *e)
{
    ml_trace *t = p->trace;
    if (!t) return 0;
    size_t first_slice = t->slices.ts.len, first_track = t->tracks.len;
    if (ml_kineto_trace_add(src, p, e) < 0) return -1;
    /* What each new track is, by its process name. */
    uint8_t *lane = ml_calloc(t->tracks.len + 1, 1);
    uint16_t npu = 0;
    bool have_npu = false;
    for (size_t k = first_track; k < t->tracks.len; k++) {
        ml_track *tr = &t->tracks.v[k];
        ml_str pname = ml_trace_process_name(t, tr->pid);
        if (str_is(p, pname, "Ascend Hardware")) {
            if (!have_npu) npu = rank_npu(p), have_npu = true;
            ml_track_set_stream(t, (uint32_t)k, npu, trailing_number(ml_s(p, tr->tid)));
            lane[k] = LANE_STREAM;
        } else if (str_is(p, pname, "CANN")) {
            lane[k] = LANE_CANN;
        } else if (pname && !str_is(p, pname, "Python")) {
            /* NPU-side lanes (HCCL planes, Overlap Analysis ...); host
             * processes other than Python keep thread tracks */
            bool host = false;
            for (size_t i = first_slice; i < t->slices.ts.len && !host; i++)
                host = t->slices.track.v[i] == k && t->slices.kind.v[i] != ML_SL_OTHER;
            lane[k] = host ? LANE_HOST : LANE_OTHER;
            if (!host) tr->kind = ML_TRACK_OTHER;
        }
    }
    ml_slices *s = &t->slices;
    for (size_t i = first_slice; i < s->ts.len; i++) {
        uint32_t k = s->track.v[i];
        if (k < first_track) continue;
        if (lane[k] == LANE_CANN) {
            s->kind.v[i] = ML_SL_RUNTIME;
            s->info.v[i] = ML_NONE32;
        } else if (lane[k] == LANE_STREAM) {
            const char *name = ml_s(p, s->name.v[i]);
            s->kind.v[i] = strncmp(name, "MEMCPY", 6) == 0 ? ML_SL_MEMCPY : ML_SL_KERNEL;
            ml_kernel_info ki = {.device = p->devices.v[npu].index, .stream = t->tracks.v[k].stream,
                                 .grid = {-1, -1, -1}, .block = {-1, -1, -1}, .registers = -1,
                                 .shared_memory = -1, .blocks_per_sm = -1.0f, .occupancy = -1.0f, .bytes = -1};
            s->info.v[i] = ml_kernel_info_push(t, &ki);
        }
    }
    free(lane);
    return 0;
}

/* ---- the directory ---- */

static int add_file(const char *path, ml_profile *p, int (*add)(ml_source *, ml_profile *, ml_err *), ml_err *e)
{
    ml_source *src;
    if (ml_source_open(path, &src, e)) return -1;
    int r = add(src, p, e);
    ml_source_close(src);
    return r;
}

/* Rank from the name profiler_info_{rank}.json in root, or -1. */
static int rank_of(const char *root)
{
    DIR *d = opendir(root);
    if (!d) return -1;
    int rank = -1;
    struct dirent *de;
    while ((de = readdir(d))) {
        int r, used = 0;
        if (sscanf(de->d_name, "profiler_info_%d.json%n", &r, &used) == 1 && used &&
            de->d_name[used] == 0 && r >= 0 && (rank < 0 || r < rank))
            rank = r;
    }
    closedir(d);
    return rank;
}

/* The first file (in name order) in dir whose name starts with prefix and
 * ends with suffix, as an allocated path, or NULL. */
static char *find_named(const char *dir, const char *prefix, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d) return NULL;
    struct dirent *de;
    char *best = NULL;
    size_t ps = strlen(prefix), ss = strlen(suffix);
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n >= ps + ss && !strncmp(de->d_name, prefix, ps) && !strcmp(de->d_name + n - ss, suffix) &&
            (!best || strcmp(de->d_name, best) < 0)) {
            free(best);
            best = ml_strdup(de->d_name);
        }
    }
    closedir(d);
    char *path = best ? join(dir, best) : NULL;
    free(best);
    return path;
}

/* The message for a path that exists but cannot be read; the walker turns it
 * into a warning (walk.c). */
static int unreadable(const char *path, int err, ml_err *e)
{
    ml_fail(e, "%s: " ML_SKIP_UNREADABLE " (%s)", path, strerror(err));
    return ML_ASCEND_UNREADABLE;
}

/* Whether the file exists; a file that exists but cannot be read is an error. */
static int present(const char *path, bool *yes, ml_err *e)
{
    *yes = is_file(path);
    if (*yes && access(path, R_OK) < 0) return unreadable(path, errno, e);
    return 0;
}

/* kernel_details.csv (the tasks, when there is no trace_view.json to give
 * them) and step_trace_time.csv (per-step figures) into the time side. */
static int load_kernel_files(ml_profile *p, const char *odir, bool tv_here, bool *kd_here, ml_err *e)
{
    int rc = 0;
    char *kd = join(odir, "kernel_details.csv"), *st = join(odir, "step_trace_time.csv");
    bool here;
    if ((rc = present(kd, &here, e)) == 0 && here && !tv_here) {
        if (!p->trace) p->trace = ml_trace_new();
        rc = add_file(kd, p, ml_ascend_kernel_details_add, e);
        *kd_here = rc == 0;
    } else if (rc == 0 && here && p->trace) { /* the trace_view's tasks: their cores */
        rc = add_file(kd, p, ml_ascend_kernel_details_cores, e);
    }
    if (rc == 0 && (rc = present(st, &here, e)) == 0 && here) rc = add_file(st, p, ml_ascend_step_trace_add, e);
    free(kd);
    free(st);
    return rc;
}

static int load_memory(ml_profile *p, const char *odir, bool time_side, ml_err *e)
{
    static const char *csvs[] = {"memory_record.csv", "operator_memory.csv", "npu_module_mem.csv"};
    bool any = false, here;
    int rc = 0;
    for (size_t i = 0; i < 3 && rc == 0; i++) {
        char *f = join(odir, csvs[i]);
        if ((rc = present(f, &here, e)) == 0 && here) {
            rc = add_file(f, p, ml_ascend_csv_add, e);
            any = true;
        }
        free(f);
    }
    if (rc) return rc;
    char *tv = join(odir, "trace_view.json");
    bool tv_here = false;
    if ((rc = present(tv, &tv_here, e)) == 0 && tv_here && time_side) {
        /* the time side: a second pass over the file (the counters below are the memory model's) */
        if (!p->trace) p->trace = ml_trace_new();
        rc = add_file(tv, p, ml_ascend_trace_view_events, e);
        if (rc == 0) rc = add_file(tv, p, ml_ascend_trace_view_tasks, e); /* ascend_time.c: cores, HCCL */
    }
    bool kd_here = false;
    if (rc == 0 && time_side) rc = load_kernel_files(p, odir, tv_here, &kd_here, e);
    if (rc == 0 && any && tv_here) rc = add_file(tv, p, ml_ascend_trace_view_add, e);
    if (rc == 0 && any && tv_here) rc = add_file(tv, p, ml_ascend_trace_view_ops, e); /* ascend_ops.c: operator stacks */
    free(tv);
    if (rc) return rc;
    if (any) return 1;
    char *db = find_named(odir, "ascend_pytorch_profiler", ".db");
    if (!db && (tv_here || kd_here) && p->trace) {
        ml_note(p, "no memory files (memory_record.csv, operator_memory.csv ...): only the time side of %s",
                tv_here ? "trace_view.json" : "kernel_details.csv");
        p->time_is_absolute = true;
        return 1;
    }
    if (!db) return 0;
    p->format = "ascend-db";
    bool memory = true;
    if ((rc = present(db, &here, e)) == 0 && time_side && !ml_ascend_db_has_memory(db)) {
        memory = false;
        ml_note(p, "%s: no memory tables (MEMORY_RECORD, OP_MEMORY, NPU_MEM): only its time side", base_name(db));
    }
    if (rc == 0 && memory) rc = ml_ascend_db_add(db, p, e);
    if (rc == 0 && memory) rc = ml_ascend_db_ops(db, p, e); /* ascend_ops.c */
    if (rc == 0 && time_side) {
        if (!p->trace) p->trace = ml_trace_new();
        rc = ml_ascend_db_time(db, p, e); /* ascend_db_time.c */
    }
    free(db);
    return rc ? rc : 1;
}

int ml_ascend_load_dir(const char *dir, ml_profile **out, size_t *n_out, ml_err *e)
{
    return ml_ascend_load_dir_want(dir, false, out, n_out, e);
}

int ml_ascend_load_dir_want(const char *dir, bool time_side, ml_profile **out, size_t *n_out, ml_err *e)
{
    *n_out = 0;
    char *odir = join(dir, OUTPUT_DIR), *root;
    if (is_dir(odir)) {
        root = ml_strdup(dir);
    } else { /* given ASCEND_PROFILER_OUTPUT itself: the rank file is in its parent */
        free(odir);
        odir = ml_strdup(dir);
        root = join(dir, "..");
    }
    int rank = rank_of(root);
    free(root);
    ml_profile *p = NULL;
    int rc;
    DIR *d = opendir(odir);
    if (!d) {
        rc = unreadable(odir, errno, e);
        goto fail;
    }
    closedir(d);

    p = ml_profile_new(dir, "ascend-text");
    ml_ascend_caps(p);
    p->rank = rank;
    if ((rc = load_memory(p, odir, time_side, e)) < 0) goto fail;
    if (rc) {
        ml_ascend_overall(p);
        ml_profile_finish(p);
        out[(*n_out)++] = p;
    } else {
        ml_profile_free(p);
    }
    p = NULL;

    char *f = join(odir, "static_op_mem.csv");
    bool here;
    if ((rc = present(f, &here, e)) == 0 && here) {
        p = ml_profile_new(dir, "ascend-static"); /* (ml_ascend_csv_add sets its caps) */
        p->rank = rank;
        if ((rc = add_file(f, p, ml_ascend_csv_add, e)) == 0) {
            ml_profile_finish(p);
            out[(*n_out)++] = p;
            p = NULL;
        }
    }
    free(f);
    if (rc) goto fail;
    free(odir);
    return 0;
fail:
    free(odir);
    ml_profile_free(p);
    for (size_t i = 0; i < *n_out; i++) ml_profile_free(out[i]);
    *n_out = 0;
    return rc;
}
