/*
 * steps.c — steps and their time breakdown (see steps.h for the rules).
 */
#include "steps.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scratch.h"
#include "sortperm.h"

static const char *const role_labels[ML_ROLE__COUNT] = {"Kernel",  "Memcpy",     "Memset",   "Communication",
                                                        "Runtime", "DataLoader", "CPU Exec", "Other"};

const char *ml_role_label(ml_role r) { return r < ML_ROLE__COUNT ? role_labels[r] : "?"; }

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

bool ml_name_is_dataloader(const char *name)
{
    if (starts_with(name, "enumerate(DataPipe)#")) return true;
    size_t n = strlen(name);
    return starts_with(name, "enumerate(DataLoader)#") && n >= 9 && !strcmp(name + n - 9, ".__next__");
}

bool ml_name_is_comm_op(const char *name) { return starts_with(name, "nccl:") || starts_with(name, "gloo:"); }

bool ml_name_is_comm_kernel(const char *name) { return strncasecmp(name, "nccl", 4) == 0; }

/* N of "ProfilerStep#N" (-1 if it has no number). */
static int64_t step_number(const ml_profile *p, ml_str name)
{
    const char *s = strchr(ml_s(p, name), '#');
    int64_t v = -1;
    if (s && s[1] >= '0' && s[1] <= '9')
        for (v = 0, s++; *s >= '0' && *s <= '9' && v < INT64_MAX / 10 - 9; s++) v = v * 10 + (*s - '0');
    return v;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static uint8_t name_class_new(const ml_profile *p, uint8_t *cls, size_t nstr, ml_str id);

/* (the known names inline: this runs twice for every cpu_op) */
static inline uint8_t name_class(const ml_profile *p, uint8_t *cls, size_t nstr, ml_str id)
{
    return id < nstr && cls[id] ? cls[id] : name_class_new(p, cls, nstr, id);
}

static uint8_t name_class_new(const ml_profile *p, uint8_t *cls, size_t nstr, ml_str id)
{
    const char *name = ml_s(p, id);
    uint8_t c = 1 | (ml_name_is_dataloader(name) ? 2 : 0) | (ml_name_is_comm_op(name) ? 4 : 0) |
                (ml_name_is_comm_kernel(name) ? 8 : 0);
    if (id < nstr) cls[id] = c;
    return c;
}

/* The plugin's two-way merge walks the runtime calls in time order beside
 * the steps, and passes a step once a call starts at or after its end: a
 * call starting at rb meets the first step whose end, or an earlier step's,
 * is after rb (ends_upto: the running max of the steps' ends), whatever the
 * calls before it were.  So each call's step is found on its own, with no
 * list of the calls sorted by time.  Returns the step that runtime call l
 * lies wholly inside, as the merge sees it, or ns. */
static size_t step_inside(const ml_slices *s, const ml_step *steps, const int64_t *ends_upto, size_t ns, uint32_t l)
{
    int64_t rb = s->ts.v[l], re = rb + ml_slice_dur(s, l);
    size_t lo = 0, hi = ns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ends_upto[mid] <= rb) lo = mid + 1;
        else hi = mid;
    }
    return lo < ns && rb >= steps[lo].begin && re <= steps[lo].end ? lo : ns;
}

/* The runtime call that launched GPU work i, or ML_NONE32 (none, or not a runtime call). */
static inline uint32_t launching_call(const ml_slices *s, size_t i)
{
    uint32_t l = s->launcher.v[i];
    return l == ML_NONE32 || l >= s->ts.len || !ml_slice_is_runtime(s->kind.v[l]) ? ML_NONE32 : l;
}

void ml_steps_compute(const ml_profile *p, ml_steps *out)
{
    memset(out, 0, sizeof *out);
    const ml_trace *t = p->trace;
    if (!t || !t->slices.ts.len) return;
    const ml_slices *s = &t->slices;
    size_t n = s->ts.len;

    /* per name id: 1 known, 2 DataLoader, 4 collective, 8 communication kernel */
    size_t nstr = ml_strpool_count(p->strings);
    uint8_t *cls = ml_calloc(nstr ? nstr : 1, 1);

    /* Ext ids of collective ops: their kernels are communication (the
     * kernels wait in `kernels` till every collective is seen: one pass
     * over the slices, not two; the busy ranges are merged, so their
     * order does not matter). */
    VEC(int64_t) comm_ext = {0};
    VEC(uint32_t) kernels = {0};
    VEC(int64_t) step_ts = {0};
    VEC(uint32_t) step_slice = {0};
    /* (a kernel_info row per GPU event, most launched by a runtime call: room for them at once) */
    ML_SCRATCH_RESERVE(&kernels, t->kernel_info.len);
    ML_SCRATCH_RESERVE(&out->busy[ML_ROLE_RUNTIME], t->kernel_info.len);
    /* (the host's busy ranges, one per outermost op at most: room for a range
     * per slice, of which the pages never written cost nothing, rather than
     * a copy per doubling) */
    ML_SCRATCH_RESERVE(&out->busy[ML_ROLE_CPU_EXEC], n);
    int64_t cpu_min = INT64_MAX, cpu_max = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        uint8_t k = s->kind.v[i];
        int64_t b = s->ts.v[i], e = b + ml_slice_dur(s, i);
        ml_role role = ML_ROLE__COUNT;
        switch (k) {
        case ML_SL_KERNEL: VEC_PUSH(&kernels, (uint32_t)i); break;
        case ML_SL_MEMCPY: role = ML_ROLE_MEMCPY; break;
        case ML_SL_MEMSET: role = ML_ROLE_MEMSET; break;
        case ML_SL_RUNTIME:
        case ML_SL_DRIVER:
            role = ML_ROLE_RUNTIME;
            break;
        case ML_SL_CPU_OP:
        case ML_SL_USER_ANNOTATION: {
            uint8_t c = name_class(p, cls, nstr, s->name.v[i]);
            if ((c & 4) && ml_slice_ext_id(s, i) > 0) VEC_PUSH(&comm_ext, ml_slice_ext_id(s, i));
            role = (c & 2) ? ML_ROLE_DATALOADER : (c & 4) ? ML_ROLE_COMMUNICATION : ML_ROLE_CPU_EXEC;
            break;
        }
        case ML_SL_PROFILER_STEP:
            VEC_PUSH(&step_ts, b);
            VEC_PUSH(&step_slice, (uint32_t)i);
            break;
        default: break;
        }
        if (role < ML_ROLE__COUNT) ml_ranges_add(&out->busy[role], b, e);
        if (k == ML_SL_CPU_OP || k == ML_SL_PROFILER_STEP) {
            if (b < cpu_min) cpu_min = b;
            if (e > cpu_max) cpu_max = e;
        }
    }
    if (comm_ext.len) qsort(comm_ext.v, comm_ext.len, sizeof *comm_ext.v, cmp_i64);
    ML_SCRATCH_RESERVE(&out->busy[ML_ROLE_KERNEL], kernels.len); /* (at most one range each) */
    for (size_t j = 0; j < kernels.len; j++) {
        uint32_t i = kernels.v[j];
        int64_t x = ml_slice_ext_id(s, i);
        bool comm = (comm_ext.len && x > 0 && bsearch(&x, comm_ext.v, comm_ext.len, sizeof x, cmp_i64)) ||
                    (name_class(p, cls, nstr, s->name.v[i]) & 8) ||
                    (s->info.v[i] < t->kernel_info.len && ml_kernel_info_is_comm(t, &t->kernel_info.v[s->info.v[i]]));
        ml_ranges_add(&out->busy[comm ? ML_ROLE_COMMUNICATION : ML_ROLE_KERNEL], s->ts.v[i], s->ts.v[i] + ml_slice_dur(s, i));
    }
    ML_SCRATCH_GIVE_VEC(&kernels);
    VEC_FREE(&comm_ext);
    free(cls);

    /* Host-side steps, in time order. */
    uint32_t *perm = ml_sort_perm_i64(step_ts.v, step_ts.len);
    for (size_t j = 0; j < step_slice.len; j++) {
        uint32_t i = step_slice.v[perm ? perm[j] : j];
        ml_step st = {.name = s->name.v[i], .begin = s->ts.v[i], .end = s->ts.v[i] + ml_slice_dur(s, i)};
        VEC_PUSH(&out->steps, st);
    }
    free(perm);
    VEC_FREE(&step_ts);
    VEC_FREE(&step_slice);
    for (size_t k = 1; k < out->steps.len; k++) {
        const ml_step *a = &out->steps.v[k - 1], *b = &out->steps.v[k];
        if (b->begin < a->end) out->overlapping++;
        if (step_number(p, b->name) < step_number(p, a->name)) out->backward++;
    }
    if (!out->steps.len) {
        out->whole_trace = true;
        ml_step st = {0};
        if (cpu_min <= cpu_max) st.begin = cpu_min, st.end = cpu_max;
        else st.begin = t->span_begin, st.end = t->span_end;
        VEC_PUSH(&out->steps, st);
    }
    size_t ns = out->steps.len;
    ml_step *steps = out->steps.v;

    /* The plugin's two-way merge: runtime calls wholly inside a step lend
     * the step the span of their GPU work (step_inside: the call's step). */
    int64_t *ends_upto = ml_malloc(ns * sizeof *ends_upto);
    for (size_t k = 0; k < ns; k++)
        ends_upto[k] = k && ends_upto[k - 1] > steps[k].end ? ends_upto[k - 1] : steps[k].end;
    int64_t(*sdev)[2] = ml_malloc(ns * sizeof *sdev);
    for (size_t k = 0; k < ns; k++) sdev[k][0] = INT64_MAX, sdev[k][1] = INT64_MIN;
    uint32_t *matched = ml_calloc(ns, sizeof *matched);
    size_t any_matched = 0;
    ML_FOR_DEVICE_ROWS (t, i) {
        uint32_t l;
        if (!ml_slice_is_gpu(s->kind.v[i]) || (l = launching_call(s, i)) == ML_NONE32) continue;
        size_t k = step_inside(s, steps, ends_upto, ns, l);
        if (k == ns) continue;
        int64_t b = s->ts.v[i], e = b + ml_slice_dur(s, i);
        if (b < sdev[k][0]) sdev[k][0] = b;
        if (e > sdev[k][1]) sdev[k][1] = e;
        matched[k]++;
        any_matched++;
    }

    if (any_matched) {
        int64_t prev_end = steps[0].begin;
        if (sdev[0][0] != INT64_MAX) {
            /* GPU work launched outside every step that ends before step 0's
             * first kernel still delays step 0's start. */
            ML_FOR_DEVICE_ROWS (t, i) {
                if (!ml_slice_is_gpu(s->kind.v[i])) continue;
                uint32_t l = launching_call(s, i);
                if (l != ML_NONE32 && step_inside(s, steps, ends_upto, ns, l) < ns) continue;
                int64_t e = s->ts.v[i] + ml_slice_dur(s, i);
                if (e < sdev[0][0] && e > prev_end) prev_end = e;
            }
        }
        for (size_t k = 0; k < ns; k++) {
            int64_t b = prev_end > steps[k].begin ? prev_end : steps[k].begin;
            int64_t e = steps[k].end;
            if (sdev[k][0] == INT64_MAX) {
                if (e < b) e = b;
            } else {
                if (sdev[k][1] > e) e = sdev[k][1];
                if (e < b) e = b;
            }
            steps[k].begin = b, steps[k].end = e;
            prev_end = e;
        }
        if (ns > 1) { /* drop trailing steps the profiler cut short */
            size_t keep = ns;
            ptrdiff_t k = (ptrdiff_t)ns - 1;
            while (k >= 0 && !matched[k]) k--;
            if (k >= 0) {
                keep = (size_t)k + 1;
                if (k > 0 && matched[k - 1] * 0.8 > matched[k]) keep = (size_t)k;
            }
            out->dropped = ns - keep;
            out->dropped_idle = k >= 0 ? ns - (size_t)(k + 1) : 0;
            out->steps.len = ns = keep;
        }
    }
    free(ends_upto);
    free(sdev);
    free(matched);

    /* Charge each instant of the steps to the first busy role: what is left
     * of the steps (slots) loses each role's busy time in turn, and a step's
     * cost of a role is what its part of the slots lost (left[k] before,
     * minus after): no list of the time charged is made. */
    for (int r = 0; r < ML_ROLE_OTHER; r++) ml_ranges_merge(&out->busy[r]);
    ml_ranges slots = {0}, rest = {0};
    for (size_t k = 0; k < ns; k++) ml_ranges_push(&slots, steps[k].begin, steps[k].end);
    ml_ranges_merge(&slots);
    int64_t *left = ml_malloc((ns ? ns : 1) * sizeof *left);
    for (size_t k = 0; k < ns; k++) left[k] = ml_ranges_sum_within(&slots, steps[k].begin, steps[k].end);
    for (int r = 0; r < ML_ROLE_OTHER; r++) {
        if (!out->busy[r].len) continue; /* (costs nothing: its cost stays 0) */
        ml_ranges_subtract(&slots, &out->busy[r], &rest);
        /* (the role's ranges are done with: their room makes the next output's) */
        if (r != ML_ROLE_COMMUNICATION) ML_SCRATCH_GIVE_VEC(&out->busy[r]);
        ml_ranges tmp = slots;
        slots = rest;
        rest = tmp;
        for (size_t k = 0; k < ns; k++) {
            int64_t after = ml_ranges_sum_within(&slots, steps[k].begin, steps[k].end);
            steps[k].cost[r] = left[k] - after;
            left[k] = after;
        }
    }
    for (size_t k = 0; k < ns; k++) steps[k].cost[ML_ROLE_OTHER] = left[k];
    free(left);
    ML_SCRATCH_GIVE_VEC(&slots);
    ML_SCRATCH_GIVE_VEC(&rest);
    /* (the busy ranges but communication's to the next analyses: a range
     * per kernel and per runtime call, nothing reads them after this) */
    for (int r = 0; r < ML_ROLE__COUNT; r++)
        if (r != ML_ROLE_COMMUNICATION) ML_SCRATCH_GIVE_VEC(&out->busy[r]);

    if (ns) {
        out->begin = steps[0].begin, out->end = steps[ns - 1].end;
        for (size_t k = 0; k < ns; k++) {
            for (int r = 0; r < ML_ROLE__COUNT; r++) out->avg[r] += (double)steps[k].cost[r];
            out->avg_total += (double)(steps[k].end - steps[k].begin);
        }
        for (int r = 0; r < ML_ROLE__COUNT; r++) out->avg[r] /= (double)ns;
        out->avg_total /= (double)ns;
    }
}

void ml_steps_free(ml_steps *s)
{
    VEC_FREE(&s->steps);
    for (int r = 0; r < ML_ROLE__COUNT; r++) VEC_FREE(&s->busy[r]);
}
