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
#include "jsonw.h"
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
    jw w;                   /* the event being written, into out */
    size_t off;             /* of out, already read */
};

/* The writer of the next event: the events are a document's array, one a
 * line; each is an object of its own writer. */
static jw *event(ml_chrome_json *c)
{
    if (!c->first) ml_buf_puts(&c->out, ",\n");
    c->first = false;
    jw_init_buf(&c->w, &c->out, false);
    jw_obj(&c->w);
    return &c->w;
}

/* A pid/tid for JSON: the number when the text is one, else a stand-in. */
static void put_idnum(jw *w, const char *s, uint32_t fallback)
{
    char *e;
    long long x = strtoll(s, &e, 10);
    if (*s && !*e) jw_i64(w, x);
    else jw_i64(w, 1000000000LL + fallback);
}

/* ns as µs with three decimals, always (Kineto's "ts"). */
static void put_us(jw *w, int64_t ns)
{
    int neg = ns < 0;
    uint64_t u = neg ? 0 - (uint64_t)ns : (uint64_t)ns;
    char buf[40];
    snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03u", neg ? "-" : "", u / 1000, (unsigned)(u % 1000));
    jw_raw(w, buf);
}

static void put_pid_tid(jw *w, const ml_profile *p, uint32_t track)
{
    const ml_track *k = &p->trace->tracks.v[track];
    jw_key(w, "pid"), put_idnum(w, ml_s(p, k->pid), track);
    jw_key(w, "tid"), put_idnum(w, ml_s(p, k->tid), track);
}

/* A metadata event of track i: {"ph":"M","name":NAME,pid,tid,"args":{ (left open) */
static jw *meta_event(ml_chrome_json *c, uint32_t i, const char *name)
{
    jw *w = event(c);
    jw_key(w, "ph"), jw_str(w, "M");
    jw_key(w, "name"), jw_str(w, name);
    put_pid_tid(w, c->p, i);
    jw_key(w, "args"), jw_obj(w);
    return w;
}

static void put_track(ml_chrome_json *c, uint32_t i)
{
    const ml_profile *p = c->p;
    const ml_track *k = &p->trace->tracks.v[i];
    c->label.len = 0;
    ml_trace_track_label(p, i, &c->label);
    jw *w = meta_event(c, i, "thread_name");
    jw_key(w, "name"), jw_text(w, c->label.p);
    jw_end(w), jw_end(w);
    if (k->process_name) {
        w = meta_event(c, i, "process_name");
        jw_key(w, "name"), jw_text(w, ml_s(p, k->process_name));
        jw_end(w), jw_end(w);
    }
    if (k->thread_sort != INT64_MAX) {
        w = meta_event(c, i, "thread_sort_index");
        jw_key(w, "sort_index"), jw_i64(w, k->thread_sort);
        jw_end(w), jw_end(w);
    }
}

/* The key of the next arg, with "args":{ before the first. */
static void arg(jw *w, int *args, const char *key)
{
    if (!(*args)++) jw_key(w, "args"), jw_obj(w);
    jw_key(w, key);
}

static void put_triple(jw *w, const int *v)
{
    jw_arr(w);
    for (int j = 0; j < 3; j++) jw_i64(w, v[j]);
    jw_end(w);
}

static void put_slice(ml_chrome_json *c, size_t i)
{
    const ml_profile *p = c->p;
    const ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    jw *w = event(c);
    jw_key(w, "ph"), jw_str(w, "X");
    uint8_t kd = s->kind.v[i] < ML_SL__COUNT ? s->kind.v[i] : ML_SL_OTHER;
    jw_key(w, "cat"), jw_text(w, kd == ML_SL_PROFILER_STEP ? "user_annotation" : ml_slice_kind_name(kd));
    jw_key(w, "name"), jw_text(w, ml_s(p, s->name.v[i]));
    put_pid_tid(w, p, s->track.v[i]);
    jw_key(w, "ts"), put_us(w, s->ts.v[i]);
    jw_key(w, "dur"), put_us(w, ml_slice_dur(s, i));
    int args = 0;
    if (ml_slice_corr(s, i) >= 0) arg(w, &args, "correlation"), jw_i64(w, ml_slice_corr(s, i));
    if (ml_slice_ext_id(s, i) >= 0) arg(w, &args, "External id"), jw_i64(w, ml_slice_ext_id(s, i));
    uint32_t inf = s->info.v[i];
    if (inf != ML_NONE32 && (kd == ML_SL_KERNEL || kd == ML_SL_MEMCPY || kd == ML_SL_MEMSET) && inf < t->kernel_info.len) {
        const ml_kernel_info *k = &t->kernel_info.v[inf];
        if (k->device >= 0) arg(w, &args, "device"), jw_i64(w, k->device);
        if (k->stream >= 0) arg(w, &args, "stream"), jw_i64(w, k->stream);
        if (k->grid[0] >= 0) arg(w, &args, "grid"), put_triple(w, k->grid);
        if (k->block[0] >= 0) arg(w, &args, "block"), put_triple(w, k->block);
        if (k->registers >= 0) arg(w, &args, "registers per thread"), jw_i64(w, k->registers);
        if (k->shared_memory >= 0) arg(w, &args, "shared memory"), jw_i64(w, k->shared_memory);
        if (k->bytes >= 0) arg(w, &args, "bytes"), jw_i64(w, k->bytes);
    } else if (inf != ML_NONE32 && inf < t->op_info.len) {
        const ml_op_info *o = &t->op_info.v[inf];
        if (o->input_dims) arg(w, &args, "Input Dims"), jw_verbatim(w, ml_s(p, o->input_dims));
        if (o->input_types) arg(w, &args, "Input type"), jw_verbatim(w, ml_s(p, o->input_types));
        if (ml_op_seq(t, o) >= 0) arg(w, &args, "Sequence number"), jw_i64(w, ml_op_seq(t, o));
        if (o->call_stack) arg(w, &args, "Call stack"), jw_text(w, ml_s(p, o->call_stack));
    }
    if (args) jw_end(w);
    jw_end(w);
}

static void put_flow(ml_chrome_json *c, size_t i)
{
    const ml_profile *p = c->p;
    const ml_slices *s = &p->trace->slices;
    const ml_flow *f = &p->trace->flows.v[i];
    if (f->from >= s->ts.len || f->to >= s->ts.len) return;
    for (int e = 0; e < 2; e++) {
        uint32_t sl = e ? f->to : f->from;
        jw *w = event(c);
        jw_key(w, "ph"), jw_str(w, e ? "f" : "s");
        jw_key(w, "id"), jw_i64(w, f->id);
        jw_key(w, "cat"), jw_text(w, ml_s(p, f->cat));
        jw_key(w, "name"), jw_text(w, ml_s(p, f->cat));
        put_pid_tid(w, p, s->track.v[sl]);
        jw_key(w, "ts"), put_us(w, s->ts.v[sl]);
        if (e) jw_key(w, "bp"), jw_str(w, "e");
        jw_end(w);
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
    jw *w = event(c);
    jw_key(w, "ph"), jw_str(w, "M");
    jw_key(w, "name"), jw_str(w, "process_name");
    jw_key(w, "pid"), jw_i64(w, c->pid);
    jw_key(w, "tid"), jw_i64(w, 0);
    jw_key(w, "args"), jw_obj(w);
    jw_key(w, "name"), jw_str(w, name);
    jw_end(w), jw_end(w);
    return true;
}

/* A counter event of the device's process at ts, left open for its "args". */
static jw *put_counter(ml_chrome_json *c, const char *name, int64_t ts)
{
    jw *w = event(c);
    jw_key(w, "ph"), jw_str(w, "C");
    jw_key(w, "name"), jw_str(w, name);
    jw_key(w, "pid"), jw_i64(w, c->pid);
    jw_key(w, "tid"), jw_i64(w, 0);
    jw_key(w, "ts"), put_us(w, ts);
    return w;
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
    jw *w = event(c);
    jw_key(w, "ph"), jw_str(w, "i");
    jw_key(w, "cat"), jw_str(w, "cpu_instant_event");
    jw_key(w, "s"), jw_str(w, "t");
    jw_key(w, "name"), jw_str(w, "[memory]");
    jw_key(w, "pid"), jw_i64(w, c->pid);
    jw_key(w, "tid"), jw_i64(w, 0);
    jw_key(w, "ts"), put_us(w, ev->ts.v[i]);
    jw_key(w, "args"), jw_obj(w);
    jw_key(w, "Device Type"), jw_i64(w, p->devices.v[d].type);
    jw_key(w, "Device Id"), jw_i64(w, p->devices.v[d].index);
    jw_key(w, "Addr"), jw_u64(w, ev->addr.len > i ? ev->addr.v[i] : 0);
    jw_key(w, "Bytes"), jw_i64(w, kd == ML_EV_FREE ? -bytes : bytes);
    jw_key(w, "Total Allocated"), jw_i64(w, c->have_a ? ml_curve_value_at(&c->ca, at) : 0);
    jw_key(w, "Total Reserved"), jw_i64(w, c->have_r ? ml_curve_value_at(&c->cr, at) : 0);
    jw_end(w), jw_end(w);
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
        jw *w = put_counter(c, c->part == P_RESERVED ? "reserved" : "allocated", cv->ts[c->at]);
        jw_key(w, "args"), jw_obj(w);
        jw_key(w, "bytes"), jw_i64(w, cv->value[c->at++]);
        jw_end(w), jw_end(w);
        return true;
    }
    case P_CATEGORIES: {
        if (!c->have_cc || c->at >= c->cc.n) {
            c->part = c->flags & ML_CJ_MEMORY_EVENTS ? P_EVENTS : P_DONE, c->at = 0;
            return true;
        }
        jw *w = put_counter(c, "bytes by category", c->cc.ts[c->at]);
        jw_key(w, "args"), jw_obj(w);
        for (int j = 0; j < ML_CAT__COUNT; j++) {
            int k = ml_category_order[j];
            if (c->cc.peak[k] > 0) jw_key(w, ml_category_name(k)), jw_i64(w, c->cc.value[k][c->at]);
        }
        jw_end(w), jw_end(w);
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
