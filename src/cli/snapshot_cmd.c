/*
 * snapshot_cmd.c — `memlens snapshot segments|trace X.pickle`: the allocator's
 * view of a CUDA allocator snapshot, as text.
 *
 *   segments  per segment: device, address, size, pool, stream, fill and the
 *             largest free hole, with per-device totals and fragmentation
 *             (what `python -m torch.cuda._memory_viz stats` tries to show);
 *   trace     the allocator actions in time order with sizes and the user
 *             frame of each stack (what `_memory_viz trace` prints), filtered
 *             by --device and a --from/--to window.
 */
#include "textwidth.h"
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown.h"
#include "format.h"
#include "importer.h"

static void usage_to(FILE *f)
{
    fprintf(f,
            "usage: memlens snapshot segments [--device N] SNAPSHOT\n"
            "       memlens snapshot trace [--device N] [--from T] [--to T] SNAPSHOT\n"
            "  SNAPSHOT is a torch.cuda.memory._dump_snapshot() pickle (or its JSON).\n"
            "  T is a time from the first trace entry: 1.5 (seconds), 250ms, 40us, 1200ns;\n"
            "  for snapshots without times (older PyTorch) it is an entry number, without a unit.\n");
}

static int usage(const ml_cli_io *io)
{
    usage_to(io->err);
    return 2;
}

/* Parses "1.5", "250ms", "40us", "1200ns" into ns; -1 if malformed or out
 * of range (negative, not a number, or past ~292 years). */
static int parse_offset(const char *s, int64_t *ns)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s) return -1;
    double mul = 1e9;
    if (!strcmp(end, "ms")) mul = 1e6;
    else if (!strcmp(end, "us")) mul = 1e3;
    else if (!strcmp(end, "ns")) mul = 1;
    else if (!strcmp(end, "s") || !*end) mul = 1e9;
    else return -1;
    double x = v * mul + 0.5;
    if (!(x >= 0 && x < 9.2e18)) return -1; /* (false for NaN too) */
    *ns = (int64_t)x;
    return 0;
}

/* Parses an entry number (snapshots without times): digits only. */
static int parse_entry(const char *s, int64_t *n)
{
    if (*s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno) return -1;
    *n = v;
    return 0;
}

/* Whether T reads as a time or an entry number (or is absent). */
static bool time_text_ok(const char *t)
{
    int64_t v;
    return !t || parse_offset(t, &v) == 0 || parse_entry(t, &v) == 0;
}

/* --from/--to for one snapshot: times from its first entry, or entry numbers
 * when it has no times.  Prints the error and returns -1 if T does not fit. */
static int window(const ml_cli_io *io, const ml_profile *p, const char *opt, const char *t, int64_t *out)
{
    if (!t) return 0;
    if (p->time_is_event_order) {
        if (parse_entry(t, out) == 0) return 0;
        fprintf(io->err, "memlens: snapshot: %s %s: %s has no times (an older PyTorch): %s takes an entry number, "
                        "without a unit\n", opt, t, p->path, opt);
        return -1;
    }
    if (parse_offset(t, out) == 0) return 0;
    fprintf(io->err, "memlens: snapshot: %s %s: expected a time from the first entry, e.g. 1.5, 250ms, 40us, 1200ns\n",
            opt, t);
    return -1;
}

static int device_wanted(const ml_profile *p, uint16_t dev, int want)
{
    return want < 0 || (p->devices.v[dev].kind == ML_DEV_CUDA && p->devices.v[dev].index == want);
}

static void print_segments(FILE *out, const ml_profile *p, int want)
{
    char a[32], b[32], c[32], d[32];
    for (uint16_t dev = 0; dev < p->devices.len; dev++) {
        if (!device_wanted(p, dev, want)) continue;
        int64_t total = 0, allocated = 0, free_bytes = 0, largest = 0, holes = 0;
        size_t nseg = 0;
        for (size_t i = 0; i < p->segments.len; i++) {
            const ml_segment *s = &p->segments.v[i];
            if (s->device != dev) continue;
            nseg++;
            total += s->total_size;
            allocated += s->allocated_size;
            for (uint32_t k = 0; k < s->n_blocks; k++) {
                const ml_block *blk = &p->blocks.v[s->first_block + k];
                if (blk->state != ML_BLOCK_INACTIVE) continue;
                free_bytes += blk->size;
                holes++;
                if (blk->size > largest) largest = blk->size;
            }
        }
        if (!nseg) continue;
        fprintf(out, "%s: %zu segments, reserved %s, allocated %s (%.1f%%), free %s in %" PRId64 " holes, largest hole %s\n",
               p->devices.v[dev].id, nseg, ml_fmt_bytes(total, a, sizeof a), ml_fmt_bytes(allocated, b, sizeof b),
               total ? 100.0 * (double)allocated / (double)total : 0.0, ml_fmt_bytes(free_bytes, c, sizeof c), holes,
               ml_fmt_bytes(largest, d, sizeof d));
        /* Fragmentation: how much of the free memory a single large request could not use. */
        fprintf(out, "  fragmentation %.1f%% (1 - largest hole / free)\n\n",
               free_bytes ? 100.0 * (1.0 - (double)largest / (double)free_bytes) : 0.0);
        fprintf(out, "  %-18s %11s %-8s %-7s %-6s %-6s  %-12s %6s %13s %6s\n", "address", "size", "pool", "stream", "type",
               "expand", "fill", "", "largest hole", "blocks");
        for (size_t i = 0; i < p->segments.len; i++) {
            const ml_segment *s = &p->segments.v[i];
            if (s->device != dev) continue;
            int64_t hole = 0;
            for (uint32_t k = 0; k < s->n_blocks; k++) {
                const ml_block *blk = &p->blocks.v[s->first_block + k];
                if (blk->state == ML_BLOCK_INACTIVE && blk->size > hole) hole = blk->size;
            }
            double fill = s->total_size ? (double)s->allocated_size / (double)s->total_size : 0;
            char bar[13];
            int filled = (int)(fill * 10 + 0.5);
            bar[0] = '[';
            for (int k = 0; k < 10; k++) bar[1 + k] = k < filled ? '#' : '.';
            bar[11] = ']';
            bar[12] = 0;
            fprintf(out, "  0x%016" PRIx64 " %11s %-8s %-7s %-6s %-6s  %s %5.1f%% %13s %6u\n", s->address,
                   ml_fmt_bytes(s->total_size, a, sizeof a), ML_TEXT_SAFE(ml_s(p, s->pool_id)),
                   ML_TEXT_SAFE(ml_s(p, s->stream)), ML_TEXT_SAFE(ml_s(p, s->segment_type)),
                   s->is_expandable ? "yes" : "no", bar, 100 * fill,
                   ml_fmt_bytes(hole, b, sizeof b), s->n_blocks);
        }
        fprintf(out, "\n");
    }
}

static const char *action_name(uint8_t kind)
{
    static const char *names[ML_EV__COUNT] = {
        [ML_EV_ALLOC] = "alloc", [ML_EV_FREE] = "free_completed", [ML_EV_FREE_REQUESTED] = "free_requested",
        [ML_EV_SEGMENT_ALLOC] = "segment_alloc", [ML_EV_SEGMENT_FREE] = "segment_free",
        [ML_EV_SEGMENT_MAP] = "segment_map", [ML_EV_SEGMENT_UNMAP] = "segment_unmap", [ML_EV_OOM] = "oom",
        [ML_EV_SNAPSHOT] = "snapshot", [ML_EV_ANNOTATE] = "annotate",
    };
    return kind < ML_EV__COUNT && names[kind] ? names[kind] : "?";
}

/* Prints one trace line without trailing blanks (escaped: it holds names
 * from the input). */
static void put_line(const ml_cli_io *io, char *line, size_t len)
{
    while (len && line[len - 1] == ' ') len--;
    line[len] = 0;
    ml_put_text(io->out, line);
    fputc('\n', io->out);
}

static void print_trace(const ml_cli_io *io, const ml_profile *p, int want, int64_t from, int64_t to)
{
    const ml_events *ev = &p->events;
    size_t n = ev->ts.len, shown = 0;
    if (!n) { fprintf(io->out, "(the snapshot has no trace entries)\n"); return; }
    int64_t t0 = ev->ts.v[0];
    char a[48], b[32], c[32], frame[512], line[1024];
    if (p->time_is_event_order) fprintf(io->out, "no times in this snapshot: the first column is the entry number\n");
    else fprintf(io->out, "times from the first entry, %s\n", ml_fmt_time(t0, p->time_is_absolute, a, sizeof a));
    for (size_t i = 0; i < n; i++) {
        int64_t off = ev->ts.v[i] - t0;
        if (!device_wanted(p, ev->device.v[i], want) || off < from || (to >= 0 && off > to)) continue;
        uint8_t k = ev->kind.v[i];
        if (p->time_is_event_order) snprintf(a, sizeof a, "#%" PRId64, ev->ts.v[i]);
        else snprintf(a, sizeof a, "+%.6f s", (double)off / 1e9);
        size_t w = 0;
#define PUT(...) (w += (size_t)snprintf(line + w, w < sizeof line ? sizeof line - w : 0, __VA_ARGS__), \
                  w = w < sizeof line ? w : sizeof line - 1)
        PUT("%-16s %-7s %-15s", a, p->devices.v[ev->device.v[i]].id, action_name(k));
        if (k == ML_EV_ANNOTATE) {
            PUT(" %s", ml_s(p, (ml_str)ev->aux.v[i]));
        } else {
            if (k == ML_EV_OOM) {
                PUT(" requested %s, device free %s", ml_fmt_bytes(ev->size.v[i], b, sizeof b),
                    ev->aux.v[i] >= 0 ? ml_fmt_bytes(ev->aux.v[i], c, sizeof c) : "unknown");
            } else if (k != ML_EV_SNAPSHOT) {
                PUT(" 0x%012" PRIx64 " %11s", ev->addr.v[i], ml_fmt_bytes(ev->size.v[i], b, sizeof b));
            }
            if (ev->stream.v[i] && strcmp(ml_s(p, ev->stream.v[i]), "0") != 0) PUT(" stream %s", ml_s(p, ev->stream.v[i]));
            if (ev->stack.v[i]) {
                ml_stack_label(p, ev->stack.v[i], ML_BY_FRAME, frame, sizeof frame);
                PUT("  %s", frame);
            }
        }
#undef PUT
        put_line(io, line, w);
        shown++;
    }
    fprintf(io->out, "%zu of %zu entries shown\n", shown, n);
}

int ml_cmd_snapshot(int argc, char **argv, const ml_cli_io *io)
{
    if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
        usage_to(io->out);
        return 0;
    }
    if (argc < 1 || (strcmp(argv[0], "segments") && strcmp(argv[0], "trace"))) return usage(io);
    int trace = !strcmp(argv[0], "trace");
    int device = -1;
    const char *from_text = NULL, *to_text = NULL, *input = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--device") && i + 1 < argc) {
            char *end;
            long d = strtol(argv[++i], &end, 10);
            if (*end || d < 0 || d > 65535) { fprintf(io->err, "memlens: snapshot: bad --device %s\n", argv[i]); return 2; }
            device = (int)d;
        } else if (trace && !strcmp(a, "--from") && i + 1 < argc) {
            from_text = argv[++i];
        } else if (trace && !strcmp(a, "--to") && i + 1 < argc) {
            to_text = argv[++i];
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_to(io->out);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(io->err, "memlens: snapshot: unknown option %s\n", a);
            return usage(io);
        } else if (!input) input = a;
        else return usage(io);
    }
    if (!input) return usage(io);
    /* A malformed time is an error before anything is read (a valid one is
     * checked against each snapshot: entry numbers for those without times). */
    const char *bad = !time_text_ok(from_text) ? from_text : !time_text_ok(to_text) ? to_text : NULL;
    if (bad) {
        fprintf(io->err, "memlens: snapshot: bad time %s (examples: 1.5, 250ms, 40us, 1200ns)\n", bad);
        return 2;
    }
    ml_profiles ps = {0};
    ml_err e = {{0}};
    if (ml_load(input, &ps, &e) < 0) {
        fprintf(io->err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
        ml_profiles_free(&ps);
        return 2;
    }
    int rc = 0;
    for (size_t i = 0; i < ps.items.len; i++) {
        const ml_profile *p = ps.items.v[i];
        if (!p->caps.allocator_state) {
            fprintf(io->err, "memlens: %s: not a CUDA allocator snapshot (format %s)\n", p->path,
                    p->format ? p->format : "unknown");
            rc = 2;
            continue;
        }
        if (!trace) {
            print_segments(io->out, p, device);
            continue;
        }
        int64_t from = 0, to = -1;
        if (window(io, p, "--from", from_text, &from) < 0 || window(io, p, "--to", to_text, &to) < 0) {
            rc = 2;
            continue;
        }
        print_trace(io, p, device, from, to);
    }
    ml_profiles_free(&ps);
    if (fflush(io->out) != 0) return 1;
    return rc;
}
