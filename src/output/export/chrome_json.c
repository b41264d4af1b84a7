/*
 * chrome_json.c — see chrome_json.h.
 *
 * The cursor walks the tracks (M events), then the slices (X), then the
 * flows (s/f), writing BATCH events at a time into its buffer; read() hands
 * the buffer out and asks for the next batch when it is empty.
 */
#include "chrome_json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_trace.h" /* track labels */

enum { BATCH = 2048 };
enum stage { TRACKS, SLICES, FLOWS, CLOSING, DONE };

struct ml_chrome_json {
    const ml_profile *p;
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

ml_chrome_json *ml_chrome_json_open(const ml_profile *p)
{
    ml_chrome_json *c = ml_calloc(1, sizeof *c);
    c->p = p;
    c->first = true;
    c->stage = p->trace ? TRACKS : CLOSING;
    ml_buf_puts(&c->out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"memlens\"},\"traceEvents\":[\n");
    return c;
}

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
            else c->stage = CLOSING;
            break;
        case CLOSING:
            ml_buf_puts(&c->out, "\n]}\n");
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
