/* export.c — allocations and categories in PyTorch, Perfetto and CSV formats; see export.h. */
#include "export.h"
#include "breakdown.h"
#include "categories.h"
#include "chrome_json.h"
#include "csvout.h"
#include "outfile.h"
#include "utf8.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int ml_export_kind_for(const char *path)
{
    if (ends_with(path, ".trace.json") || ends_with(path, ".trace.json.gz")) return ML_EXPORT_TRACE;
    if (ends_with(path, ".raw.json.gz") || ends_with(path, ".raw.json")) return ML_EXPORT_RAW;
    if (ends_with(path, ".timeline.json.gz") || ends_with(path, ".timeline.json")) return ML_EXPORT_TIMELINE;
    if (ends_with(path, ".json.gz") || ends_with(path, ".json")) return ML_EXPORT_AMBIGUOUS;
    if (ends_with(path, ".csv")) return ML_EXPORT_CSV;
    if (ends_with(path, ".html") || ends_with(path, ".htm")) return ML_EXPORT_HTML;
    return -1;
}

int ml_export_kind_named(const char *format)
{
    static const struct { const char *name; int kind; } words[] = {
        {"timeline", ML_EXPORT_TIMELINE}, {"raw", ML_EXPORT_RAW}, {"trace", ML_EXPORT_TRACE},
        {"csv", ML_EXPORT_CSV}, {"html", ML_EXPORT_HTML},
    };
    char word[48];
    size_t n = strlen(format);
    if (n >= sizeof word - 1) return -1;
    snprintf(word, sizeof word, "%s", format);
    if (ends_with(word, ".gz")) word[n - 3] = 0; /* trace.gz, timeline.gz: gzip'd */
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcmp(word, words[i].name)) return words[i].kind;
    char ext[52];
    snprintf(ext, sizeof ext, ".%s", format);
    return ml_export_kind_for(ext);
}

/* ---- PyTorch memory timeline rows ---------------------------------------- */

enum { ACT_PREEXISTING = 1, ACT_CREATE = 2, ACT_DESTROY = 4 };

typedef struct raw_row {
    int64_t t;                  /* ns, -1 for PREEXISTING */
    int64_t bytes;              /* negative for DESTROY */
    uint8_t action, cat;        /* cat: PyTorch's index */
} raw_row;

/* The device's rows in PyTorch's raw form and order: memory from before the
 * trace as PREEXISTING (one row per allocation, plus the unexplained gap),
 * then each alloc, free and move of the gap, sorted by time and then action
 * as PyTorch sorts its timeline (CREATE before DESTROY at equal times). */
static size_t torch_rows(const ml_profile *p, int device, raw_row **out)
{
    const ml_allocs *a = &p->allocs;
    ml_cat_changes ch;
    ml_category_changes(p, device, &ch);
    size_t cap = ch.n + 1, n = 0;
    for (size_t i = 0; i < a->t_alloc.len; i++)
        if (a->device.v[i] == device && a->t_alloc.v[i] == ML_TIME_NONE) cap++;
    raw_row *r = ml_malloc(cap * sizeof *r);
    for (size_t i = 0; i < a->t_alloc.len; i++)
        if (a->device.v[i] == device && a->t_alloc.v[i] == ML_TIME_NONE)
            r[n++] = (raw_row){-1, a->size.v[i], ACT_PREEXISTING, (uint8_t)ml_category_to_torch(a->category.v[i])};
    if (ch.gap > 0) r[n++] = (raw_row){-1, ch.gap, ACT_PREEXISTING, (uint8_t)ml_category_to_torch(ML_CAT_PARAMETER_OR_STATE)};
    for (size_t i = 0; i < ch.n; i++) {
        raw_row x = {ch.v[i].ts, ml_cat_change_delta(&ch, &ch.v[i]), ml_cat_change_is_free(&ch.v[i]) ? ACT_DESTROY : ACT_CREATE,
                     (uint8_t)ml_category_to_torch(ml_cat_change_cat(&ch, &ch.v[i]))};
        size_t j = n++; /* changes are in time order: only equal times move */
        while (j > 0 && r[j - 1].t == x.t && r[j - 1].action > x.action) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = x;
    }
    ml_cat_changes_free(&ch);
    *out = r;
    return n;
}

static void write_raw(FILE *f, const raw_row *r, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s[%" PRId64 ", %d, %" PRId64 ", %d]", i ? ", " : "", r[i].t, r[i].action, r[i].bytes, r[i].cat);
    fputs("]\n", f);
}

int64_t ml_torch_us(int64_t t_ns)
{
    /*
     * PyTorch writes int(t / 1000): Python's true division gives the double
     * nearest to the exact quotient (ties to even), truncated.  That is not
     * t / 1000 in integers: epoch times (~1.7e18 ns, quotients ~1.7e15 µs)
     * have doubles 0.25 apart, so q.875 and above rounds up to q + 1 (about
     * 13% of epoch times land one µs later).  With q = t / 1000 and
     * r = t % 1000, while q < 2^53 (q exact as a double) q + r/1000.0 in
     * doubles truncates the same way: truncation only cares whether the sum
     * reaches q + 1, which needs doubles at least 2^-9 apart (q >= 2^43), and
     * the only r/1000 that falls exactly on a rounding tie there is 0.875
     * (ties for q + 1 are at 1 - 2^-k, k <= 3), which is exact in binary, so
     * the one rounding of the sum matches Python's.  Checked against Python
     * on 2M random times, ties included (tests/torch_timeline.py --check-us).
     */
    if (t_ns < 0) return t_ns == INT64_MIN ? INT64_MIN / 1000 : -ml_torch_us(-t_ns);
    int64_t q = t_ns / 1000, r = t_ns % 1000;
    if (q < (INT64_C(1) << 53)) return (int64_t)((double)q + (double)r / 1000.0);
    /* q in [2^53, 2^54): the doubles there are the even integers */
    if (q % 2 == 0) return q;
    if (r > 0) return q + 1;
    return (q + 1) % 4 == 0 ? q + 1 : q - 1; /* a tie: to the even significand */
}

/* torch.profiler's _coalesce_timeline: one entry per distinct time (µs, as
 * ml_torch_us), the PREEXISTING time -1 replaced by the smallest time seen
 * (the first positive one, as PyTorch's t_min test reads). */
static size_t coalesce(const raw_row *r, size_t n, int64_t **times_out, int64_t **sizes_out);

static void write_timeline(FILE *f, const raw_row *r, size_t n)
{
    int64_t *tv, *sv;
    size_t nt = coalesce(r, n, &tv, &sv);
    fputs("[[", f);
    for (size_t i = 0; i < nt; i++) fprintf(f, "%s%" PRId64, i ? ", " : "", tv[i]);
    fputs("], [", f);
    for (size_t i = 0; i < nt; i++) {
        fputs(i ? ", [" : "[", f);
        for (int k = 0; k < 9; k++) fprintf(f, "%s%" PRId64, k ? ", " : "", sv[i * 9 + k]);
        fputc(']', f);
    }
    fputs("]]\n", f);
    free(tv);
    free(sv);
}

size_t ml_export_timeline(const ml_profile *p, int device, int64_t **times_us, int64_t **sizes)
{
    raw_row *r;
    size_t n = torch_rows(p, device, &r);
    size_t nt = coalesce(r, n, times_us, sizes);
    free(r);
    return nt;
}

/* The coalesced timeline: times (µs, the PREEXISTING -1 as t_min) and 9 totals per time. */
static size_t coalesce(const raw_row *r, size_t n, int64_t **times_out, int64_t **sizes_out)
{
    VEC(int64_t) times = {0};
    VEC(int64_t) sizes = {0};  /* 9 per time */
    int64_t t_min = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t t = r[i].t == -1 ? -1 : ml_torch_us(r[i].t);
        if (t_min == -1 || (t < t_min && t > 0)) t_min = t;
        if (!times.len || t != times.v[times.len - 1]) {
            VEC_PUSH(&times, t);
            for (int k = 0; k < 9; k++) {
                int64_t prev = times.len > 1 ? sizes.v[sizes.len - 9] : 0; /* the last entry's totals */
                VEC_PUSH(&sizes, prev);
            }
        }
        sizes.v[sizes.len - 9 + r[i].cat + 1] += r[i].bytes;
    }
    for (size_t i = 0; i < times.len; i++)
        if (times.v[i] < 0) times.v[i] = t_min;
    size_t nt = times.len;
    if (!nt) { VEC_PUSH(&times, 0); VEC_PUSH(&sizes, 0); }
    *times_out = times.v;
    *sizes_out = sizes.v;
    return nt;
}

int ml_export_torch(FILE *f, const ml_profile *p, int device, ml_export_kind kind)
{
    if (kind == ML_EXPORT_HTML) return ml_export_html(f, p, device);
    raw_row *r;
    size_t n = torch_rows(p, device, &r);
    if (kind == ML_EXPORT_RAW) write_raw(f, r, n);
    else write_timeline(f, r, n);
    free(r);
    return ferror(f) ? -1 : 0;
}

/* ---- Chrome / Perfetto trace ---------------------------------------------- */

/* Whether device d of p is to be written: all, or the one named. */
static bool wanted(const ml_profile *p, size_t d, const char *device)
{
    return !device || ml_device_find(p, device) == (int)d;
}

/* Every profile's slices and memory (chrome_json.h), in one traceEvents
 * array: the memory counters on the slices' clock, and the allocator events
 * that memlens reads back.  With device: that device's memory only. */
static void write_trace(FILE *f, const ml_profiles *ps, const char *device)
{
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"memlens\"},\"traceEvents\":[\n", f);
    bool after = false;
    char chunk[64 * 1024];
    for (size_t r = 0; r < ps->items.len; r++) {
        const ml_profile *p = ps->items.v[r];
        unsigned flags = ML_CJ_MEMORY | ML_CJ_MEMORY_EVENTS | ML_CJ_BARE | (device ? ML_CJ_NO_SLICES : 0);
        ml_chrome_json *c = ml_chrome_json_open_as(p, flags, after, p->rank < 0 && ps->items.len > 1 ? (int)r : -1);
        if (device) ml_chrome_json_only_device(c, ml_device_find(p, device) >= 0 ? ml_device_find(p, device) : -2);
        size_t n;
        while ((n = ml_chrome_json_read(c, chunk, sizeof chunk)) > 0) fwrite(chunk, 1, n, f);
        after |= ml_chrome_json_wrote(c);
        ml_chrome_json_close(c);
    }
    fputs("\n]}\n", f);
}

/* ---- CSV ---------------------------------------------------------------- */

static void put_time(FILE *f, int64_t t)
{
    if (t != ML_TIME_NONE && t != ML_TIME_END) fprintf(f, "%" PRId64, t);
}

/* The stack's user frame, as `summary --by frame` names it (library, allocator
 * and unwinder frames skipped); empty without a stack. */
static void stack_top(const ml_profile *p, uint32_t stack, char *buf, size_t cap)
{
    buf[0] = 0;
    if (ml_stack_depth(p, stack)) ml_stack_label(p, stack, ML_BY_FRAME, buf, cap);
}

static void write_csv(FILE *f, const ml_profiles *ps, const char *device)
{
    fputs("rank,device,addr,category,reason,op,top_level_op,stack_top,alloc_time_ns,free_time_ns,size_bytes\n", f);
    char buf[1024];
    for (size_t r = 0; r < ps->items.len; r++) {
        const ml_profile *p = ps->items.v[r];
        const ml_allocs *a = &p->allocs;
        for (size_t d = 0; d < p->devices.len; d++) {
            if (!wanted(p, d, device)) continue;
            ml_cat_changes ch;
            ml_category_changes(p, (int)d, &ch);
            if (ch.gap > 0) {
                if (p->rank >= 0) fprintf(f, "%d", p->rank);
                fprintf(f, ",%s,,%s,%s,,,,,,%" PRId64 "\n", p->devices.v[d].id, ml_category_name(ML_CAT_PARAMETER_OR_STATE),
                        ml_category_reason_id(ML_REASON_UNEXPLAINED_GAP), ch.gap);
            }
            ml_cat_changes_free(&ch);
        }
        for (size_t i = 0; i < a->t_alloc.len; i++) {
            if (!wanted(p, a->device.v[i], device)) continue;
            if (p->rank >= 0) fprintf(f, "%d", p->rank);
            fprintf(f, ",%s,", p->devices.v[a->device.v[i]].id);
            if (a->addr.v[i]) fprintf(f, "%" PRIu64, a->addr.v[i]);
            fprintf(f, ",%s,%s,", ml_category_name(a->category.v[i]), ml_category_reason_id(a->category_reason.v[i]));
            ml_csv_field(f, a->op.v[i] ? ml_s(p, a->op.v[i]) : "");
            fputc(',', f);
            ml_csv_field(f, a->op_top.v[i] ? ml_s(p, a->op_top.v[i]) : "");
            fputc(',', f);
            stack_top(p, a->stack.v[i], buf, sizeof buf);
            ml_csv_field(f, buf);
            fputc(',', f);
            put_time(f, a->t_alloc.v[i]);
            fputc(',', f);
            put_time(f, a->t_free.v[i]);
            fprintf(f, ",%" PRId64 "\n", a->size.v[i]);
        }
    }
}

int ml_export_all(FILE *f, const ml_profiles *ps, ml_export_kind kind, const char *device)
{
    if (kind == ML_EXPORT_TRACE) write_trace(f, ps, device);
    else write_csv(f, ps, device);
    return ferror(f) ? -1 : 0;
}
