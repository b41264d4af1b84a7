/*
 * chrome_json.c — see chrome_json.h.
 *
 * The cursor walks the tracks (M events), then the slices (X), then the
 * flows (s/f), writing BATCH events at a time into its buffer; read() hands
 * the buffer out and asks for the next batch when it is empty.
 */
#include "chrome_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "categories.h"
#include "curve.h"
#include "report_trace.h" /* track labels */

enum { BATCH = 2048 };
enum stage { TRACKS, SLICES, FLOWS, MEMORY, CLOSING, DONE };

struct ml_chrome_json {
    const ml_profile *p;
    unsigned flags;
    int input;
    int only;               /* the one device whose memory is written, -1: all */
    int part;               /* MEMORY: what of device `next` is being written (enum part), and */
    size_t at;              /* the point or event it is at */
    int64_t pid;            /* its process */
    ml_category_curves cc;  /* its curves */
    ml_curve ca, cr;
    bool have_cc, have_a, have_r;
    enum stage stage;
    size_t next;            /* index in the current stage */
    bool first;             /* no event written yet (no comma before it) */
    ml_buf out, label;
    size_t off;             /* of out, already read */
};

/* A pid/tid for JSON: the number when the text is one, else a stand-in. */
static void put_idnum(ml_buf *b, const char *s, uint32_t fallback)
{
    char *e;
    long long x = strtoll(s, &e, 10);
    if (*s && !*e) ml_buf_printf(b, "%lld", x);
    else ml_buf_printf(b, "%u", 1000000000u + fallback);
}

static void put_us(ml_buf *b, int64_t ns)
{
    int neg = ns < 0;
    uint64_t u = neg ? 0 - (uint64_t)ns : (uint64_t)ns;
    ml_buf_printf(b, "%s%" PRIu64 ".%03u", neg ? "-" : "", u / 1000, (unsigned)(u % 1000));
}

static void put_pid_tid(ml_buf *b, const ml_profile *p, uint32_t track)
{
    const ml_track *k = &p->trace->tracks.v[track];
    ml_buf_puts(b, "\"pid\":");
    put_idnum(b, ml_s(p, k->pid), track);
    ml_buf_puts(b, ",\"tid\":");
    put_idnum(b, ml_s(p, k->tid), track);
}

static void put_track(ml_chrome_json *c, uint32_t i)
{
    const ml_profile *p = c->p;
    const ml_track *k = &p->trace->tracks.v[i];
    ml_buf *out = &c->out;
    ml_buf_puts(out, c->first ? "" : ",\n");
    c->first = false;
    ml_buf_puts(out, "{\"ph\":\"M\",\"name\":\"thread_name\",");
    put_pid_tid(out, p, i);
    c->label.len = 0;
    ml_trace_track_label(p, i, &c->label);
    ml_buf_puts(out, ",\"args\":{\"name\":");
    ml_json_str(out, c->label.p ? c->label.p : "");
    ml_buf_puts(out, "}}");
    if (k->process_name) {
        ml_buf_puts(out, ",\n{\"ph\":\"M\",\"name\":\"process_name\",");
        put_pid_tid(out, p, i);
        ml_buf_puts(out, ",\"args\":{\"name\":");
        ml_json_str(out, ml_s(p, k->process_name));
        ml_buf_puts(out, "}}");
    }
    if (k->thread_sort != INT64_MAX) {
        ml_buf_puts(out, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",");
        put_pid_tid(out, p, i);
        ml_buf_printf(out, ",\"args\":{\"sort_index\":%" PRId64 "}}", k->thread_sort);
    }
}

static void put_slice(ml_chrome_json *c, size_t i)
{
    const ml_profile *p = c->p;
    const ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    ml_buf *out = &c->out;
    ml_buf_puts(out, c->first ? "" : ",\n");
    c->first = false;
    ml_buf_puts(out, "{\"ph\":\"X\",\"cat\":");
    uint8_t kd = s->kind.v[i] < ML_SL__COUNT ? s->kind.v[i] : ML_SL_OTHER;
    ml_json_str(out, kd == ML_SL_PROFILER_STEP ? "user_annotation" : ml_slice_kind_name(kd));
    ml_buf_puts(out, ",\"name\":");
    ml_json_str(out, ml_s(p, s->name.v[i]));
    ml_buf_puts(out, ",");
    put_pid_tid(out, p, s->track.v[i]);
    ml_buf_puts(out, ",\"ts\":");
    put_us(out, s->ts.v[i]);
    ml_buf_puts(out, ",\"dur\":");
    put_us(out, s->dur.v[i]);
    int args = 0;
#define ARG(...) do { ml_buf_puts(out, args++ ? "," : ",\"args\":{"); ml_buf_printf(out, __VA_ARGS__); } while (0)
    if (s->corr.v[i] >= 0) ARG("\"correlation\":%" PRId64, s->corr.v[i]);
    if (s->ext_id.v[i] >= 0) ARG("\"External id\":%" PRId64, s->ext_id.v[i]);
    uint32_t inf = s->info.v[i];
    if (inf != ML_NONE32 && (kd == ML_SL_KERNEL || kd == ML_SL_MEMCPY || kd == ML_SL_MEMSET) && inf < t->kernel_info.len) {
        const ml_kernel_info *k = &t->kernel_info.v[inf];
        if (k->device >= 0) ARG("\"device\":%d", k->device);
        if (k->stream >= 0) ARG("\"stream\":%" PRId64, k->stream);
        if (k->grid[0] >= 0) ARG("\"grid\":[%d,%d,%d]", k->grid[0], k->grid[1], k->grid[2]);
        if (k->block[0] >= 0) ARG("\"block\":[%d,%d,%d]", k->block[0], k->block[1], k->block[2]);
        if (k->registers >= 0) ARG("\"registers per thread\":%d", k->registers);
        if (k->shared_memory >= 0) ARG("\"shared memory\":%" PRId64, k->shared_memory);
        if (k->bytes >= 0) ARG("\"bytes\":%" PRId64, k->bytes);
    } else if (inf != ML_NONE32 && inf < t->op_info.len) {
        const ml_op_info *o = &t->op_info.v[inf];
        if (o->input_dims) { ARG("\"Input Dims\":"); ml_json_verbatim(out, ml_s(p, o->input_dims)); }
        if (o->input_types) { ARG("\"Input type\":"); ml_json_verbatim(out, ml_s(p, o->input_types)); }
        if (o->seq >= 0) ARG("\"Sequence number\":%" PRId64, o->seq);
        if (o->call_stack) {
            ARG("\"Call stack\":");
            ml_json_str(out, ml_s(p, o->call_stack));
        }
    }
#undef ARG
    ml_buf_puts(out, args ? "}}" : "}");
}

static void put_flow(ml_chrome_json *c, size_t i)
{
    const ml_profile *p = c->p;
    const ml_slices *s = &p->trace->slices;
    const ml_flow *f = &p->trace->flows.v[i];
    ml_buf *out = &c->out;
    if (f->from >= s->ts.len || f->to >= s->ts.len) return;
    for (int e = 0; e < 2; e++) {
        uint32_t sl = e ? f->to : f->from;
        ml_buf_printf(out, "%s{\"ph\":\"%s\",\"id\":%" PRId64 ",\"cat\":", c->first ? "" : ",\n", e ? "f" : "s", f->id);
        c->first = false;
        ml_json_str(out, ml_s(p, f->cat));
        ml_buf_puts(out, ",\"name\":");
        ml_json_str(out, ml_s(p, f->cat));
        ml_buf_puts(out, ",");
        put_pid_tid(out, p, s->track.v[sl]);
        ml_buf_puts(out, ",\"ts\":");
        put_us(out, s->ts.v[sl]);
        ml_buf_puts(out, e ? ",\"bp\":\"e\"}" : "}");
    }
}

/* ---- memory ------------------------------------------------------------- */


/* The curves of the device being written (MEMORY), a point at a time. */
enum part { P_OPEN, P_ALLOCATED, P_RESERVED, P_CATEGORIES, P_EVENTS, P_DONE };

static void memory_close(ml_chrome_json *c)
{
    if (c->have_cc) ml_category_curves_free(&c->cc);
    if (c->have_a) ml_curve_free(&c->ca);
    if (c->have_r) ml_curve_free(&c->cr);
    c->have_cc = c->have_a = c->have_r = false;
}

/* Starts device d: its curves, its process; false when it shows no memory. */
static bool memory_open(ml_chrome_json *c, size_t d)
{
    const ml_profile *p = c->p;
    c->have_cc = ml_category_curves_get(p, (int)d, &c->cc);
    c->have_a = ml_curve_get(p, (int)d, ML_SERIES_ALLOCATED, &c->ca);
    c->have_r = ml_curve_get(p, (int)d, ML_SERIES_RESERVED, &c->cr);
    if (!c->have_cc && !c->have_a) {
        memory_close(c);
        return false;
    }
    c->pid = INT64_C(2000000000) + (int64_t)(p->rank >= 0 ? p->rank : c->input > 0 ? c->input : 0) * 64 + (int64_t)d;
    char name[160];
    const char *id = p->devices.v[d].id;
    if (p->rank >= 0) snprintf(name, sizeof name, "rank %d %s memory", p->rank, id);
    else if (c->input >= 0) snprintf(name, sizeof name, "input %d %s memory", c->input, id);
    else snprintf(name, sizeof name, "%s memory", id);
    ml_buf_printf(&c->out, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRId64 ",\"tid\":0,\"args\":{\"name\":",
                  c->first ? "" : ",\n", c->pid);
    c->first = false;
    ml_json_str(&c->out, name);
    ml_buf_puts(&c->out, "}}");
    return true;
}

static void put_counter(ml_chrome_json *c, const char *name, int64_t ts)
{
    ml_buf_printf(&c->out, ",\n{\"ph\":\"C\",\"name\":\"%s\",\"pid\":%" PRId64 ",\"tid\":0,\"ts\":", name, c->pid);
    put_us(&c->out, ts);
}

/* Event i of device d as Kineto writes an allocator event, with the totals
 * the curves have after it (false: not an alloc or free of d). */
static bool put_memory_event(ml_chrome_json *c, size_t d, size_t i)
{
    const ml_profile *p = c->p;
    const ml_events *ev = &p->events;
    uint8_t kd = ev->kind.v[i];
    if (ev->device.v[i] != d || (kd != ML_EV_ALLOC && kd != ML_EV_FREE)) return false;
    int64_t bytes = ev->size.v[i] < 0 ? -ev->size.v[i] : ev->size.v[i];
    ml_instant at = {ev->ts.v[i], (uint32_t)i};
    ml_buf_printf(&c->out, ",\n{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\","
                           "\"pid\":%" PRId64 ",\"tid\":0,\"ts\":", c->pid);
    put_us(&c->out, ev->ts.v[i]);
    ml_buf_printf(&c->out, ",\"args\":{\"Device Type\":%d,\"Device Id\":%d,\"Addr\":%" PRIu64 ",\"Bytes\":%" PRId64
                           ",\"Total Allocated\":%" PRId64 ",\"Total Reserved\":%" PRId64 "}}",
                  p->devices.v[d].type, p->devices.v[d].index, ev->addr.len > i ? ev->addr.v[i] : 0,
                  kd == ML_EV_FREE ? -bytes : bytes, c->have_a ? ml_curve_value_at(&c->ca, at) : 0,
                  c->have_r ? ml_curve_value_at(&c->cr, at) : 0);
    return true;
}

/* The next piece of the memory of device c->next (a point, or an event);
 * false once the device is done. */
static bool memory_step(ml_chrome_json *c)
{
    size_t d = c->next;
    switch (c->part) {
    case P_OPEN:
        c->part = memory_open(c, d) ? P_ALLOCATED : P_DONE;
        c->at = 0;
        return true;
    case P_ALLOCATED:
    case P_RESERVED: {
        const ml_curve *cv = c->part == P_RESERVED ? &c->cr : &c->ca;
        bool have = c->part == P_RESERVED ? c->have_r : c->have_a;
        if (!have || c->at >= cv->n) {
            c->part++, c->at = 0;
            return true;
        }
        put_counter(c, c->part == P_RESERVED ? "reserved" : "allocated", cv->ts[c->at]);
        ml_buf_printf(&c->out, ",\"args\":{\"bytes\":%" PRId64 "}}", cv->value[c->at++]);
        return true;
    }
    case P_CATEGORIES: {
        if (!c->have_cc || c->at >= c->cc.n) {
            c->part = c->flags & ML_CJ_MEMORY_EVENTS ? P_EVENTS : P_DONE, c->at = 0;
            return true;
        }
        put_counter(c, "bytes by category", c->cc.ts[c->at]);
        ml_buf_puts(&c->out, ",\"args\":{");
        bool any = false;
        for (int j = 0; j < ML_CAT__COUNT; j++) {
            int k = ml_category_order[j];
            if (c->cc.peak[k] <= 0) continue;
            ml_buf_printf(&c->out, "%s\"%s\":%" PRId64, any ? "," : "", ml_category_name(k), c->cc.value[k][c->at]);
            any = true;
        }
        ml_buf_puts(&c->out, "}}");
        c->at++;
        return true;
    }
    case P_EVENTS:
        while (c->at < c->p->events.ts.len && !put_memory_event(c, d, c->at)) c->at++;
        if (c->at >= c->p->events.ts.len) c->part = P_DONE;
        else c->at++;
        return true;
    case P_DONE:
        memory_close(c);
        return false;
    }
    return false;
}

ml_chrome_json *ml_chrome_json_open_as(const ml_profile *p, unsigned flags, bool after, int input)
{
    ml_chrome_json *c = ml_calloc(1, sizeof *c);
    c->p = p;
    c->flags = flags;
    c->input = input;
    c->first = !after;
    c->only = -1;
    c->stage = p->trace && !(flags & ML_CJ_NO_SLICES) ? TRACKS : MEMORY;
    if (!(flags & ML_CJ_BARE))
        ml_buf_puts(&c->out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"memlens\"},\"traceEvents\":[\n");
    return c;
}

ml_chrome_json *ml_chrome_json_open(const ml_profile *p) { return ml_chrome_json_open_as(p, ML_CJ_MEMORY, false, -1); }

bool ml_chrome_json_wrote(const ml_chrome_json *c) { return !c->first; }

void ml_chrome_json_only_device(ml_chrome_json *c, int d) { c->only = d; }

/* Appends the next batch to c->out; false once everything is written. */
static bool next_batch(ml_chrome_json *c)
{
    const ml_trace *t = c->p->trace;
    for (size_t n = 0; n < BATCH;) {
        switch (c->stage) {
        case TRACKS:
            if (c->next < t->tracks.len) put_track(c, (uint32_t)c->next++), n++;
            else c->stage = SLICES, c->next = 0;
            break;
        case SLICES:
            if (c->next < t->slices.ts.len) put_slice(c, c->next++), n++;
            else c->stage = FLOWS, c->next = 0;
            break;
        case FLOWS:
            if (c->next < t->flows.len) put_flow(c, c->next++), n++;
            else c->stage = MEMORY, c->next = 0;
            break;
        case MEMORY: /* a device at a time, a point or event at a time */
            if (!(c->flags & (ML_CJ_MEMORY | ML_CJ_MEMORY_EVENTS)) || c->next >= c->p->devices.len) c->stage = CLOSING;
            else if ((c->only == -1 || (c->only >= 0 && (size_t)c->only == c->next)) && memory_step(c)) n++;
            else c->next++, c->part = P_OPEN;
            break;
        case CLOSING:
            if (!(c->flags & ML_CJ_BARE)) ml_buf_puts(&c->out, "\n]}\n");
            c->stage = DONE;
            return true;
        case DONE:
            return n > 0;
        }
    }
    return true;
}

size_t ml_chrome_json_read(ml_chrome_json *c, char *buf, size_t max)
{
    size_t got = 0;
    while (got < max) {
        if (c->off == c->out.len) {
            c->out.len = c->off = 0;
            if (c->stage == DONE || !next_batch(c)) break;
            continue;
        }
        size_t n = c->out.len - c->off < max - got ? c->out.len - c->off : max - got;
        memcpy(buf + got, c->out.p + c->off, n);
        c->off += n;
        got += n;
    }
    return got;
}

void ml_chrome_json_close(ml_chrome_json *c)
{
    if (!c) return;
    memory_close(c);
    ml_buf_free(&c->out);
    ml_buf_free(&c->label);
    free(c);
}

void ml_trace_chrome_json(const ml_profile *p, ml_buf *out)
{
    ml_chrome_json *c = ml_chrome_json_open(p);
    char chunk[64 * 1024];
    size_t n;
    while ((n = ml_chrome_json_read(c, chunk, sizeof chunk)) > 0) ml_buf_put(out, chunk, n);
    ml_chrome_json_close(c);
}
