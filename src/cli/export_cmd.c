/*
 * export_cmd.c — the `memlens export` command line: picks the format by the
 * output's extension, checks the device and rank chosen, and writes the file
 * through output/export.c.
 */
#include "textwidth.h"
#include "cli.h"
#include "export.h"
#include "loadpar.h"
#include "outfile.h"
#include "perf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether device d of p is to be written: all, or the one named. */
static bool wanted(const ml_profile *p, size_t d, const char *device)
{
    return !device || ml_device_find(p, device) == (int)d;
}

/* ---- the command ------------------------------------------------------- */

static int usage_to(FILE *f)
{
    fprintf(f, "usage: memlens export INPUT -o FILE [--format F] [--device ID] [--rank N]\n"
                "FILE's extension, or --format F (timeline, raw, trace, csv, html, with .gz for gzip;\n"
                "needed with -o -, which writes to standard output, and for a plain .json), picks the format:\n"
                "  .timeline.json[.gz]      PyTorch memory timeline [times_us, sizes by category]\n"
                "  .raw.json.gz, .raw.json  PyTorch raw memory timeline [t_ns, action, bytes, category]\n"
                "  .trace.json[.gz]         Chrome/Perfetto trace: the slices, and memory counters (allocated,\n"
                "                           reserved, by category) per device on their clock; memlens reads it back\n"
                "  .json, .json.gz          both of PyTorch's exports write it: --format timeline or trace\n"
                "  .csv                     one row per allocation (device, op, stack top, category, reason, times, size)\n"
                "  .html                    the stacked category plot of one device, as export_memory_timeline writes it\n"
                "The PyTorch formats hold one device (--device, default: the first accelerator with\n"
                "memory) of one rank (--rank); with --device the others hold only that device.\n"
                "\n"
                "       memlens export INPUT --table operators|kernels [--group-by name|shape|op] -o FILE.csv [--rank N]\n"
                "The operator table (--group-by name or shape: name and input shape) or the kernel table\n"
                "(name, or op: name and launching operator) of `memlens perf`, as CSV (times in ns).\n");
    return 2;
}

static int usage(const ml_cli_io *io) { return usage_to(io->err); }

/* Whether device d shows memory: allocations, or allocator events (a trace
 * without addresses has events but no allocations). */
static bool has_memory(const ml_profile *p, int d)
{
    for (size_t i = 0; i < p->allocs.device.len; i++)
        if (p->allocs.device.v[i] == d) return true;
    for (size_t i = 0; i < p->events.ts.len; i++)
        if (p->events.device.v[i] == d && (p->events.kind.v[i] == ML_EV_ALLOC || p->events.kind.v[i] == ML_EV_FREE))
            return true;
    return false;
}

/* Whether an earlier profile or device (before rank r, device d) has this id. */
static bool listed_before(const ml_profiles *ps, size_t r, size_t d, const char *id)
{
    for (size_t q = 0; q <= r; q++)
        for (size_t i = 0; i < (q < r ? ps->items.v[q]->devices.len : d); i++)
            if (!strcmp(ps->items.v[q]->devices.v[i].id, id)) return true;
    return false;
}

/* "cpu, cuda:0" for an error message: the devices of all profiles, once each. */
static void device_list(const ml_profiles *ps, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t r = 0; r < ps->items.len; r++)
        for (size_t d = 0; d < ps->items.v[r]->devices.len && n < cap; d++) {
            const char *id = ps->items.v[r]->devices.v[d].id;
            if (!listed_before(ps, r, d, id)) n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", id);
        }
    if (!buf[0]) snprintf(buf, cap, "none");
}

/* The device to write in a PyTorch format: --device, or the first accelerator
 * that shows memory (else the first device that does). */
static int pick_device(const ml_profiles *ps, const char *want, ml_err *e)
{
    const ml_profile *p = ps->items.v[0];
    if (want) {
        int d = ml_device_find(p, want);
        if (d < 0) {
            char ids[512];
            device_list(ps, ids, sizeof ids);
            return ml_fail(e, "%s: no device %s (it has: %s)", p->path, want, ids);
        }
        return d;
    }
    int any = -1;
    for (size_t d = 0; d < p->devices.len; d++) {
        if (!has_memory(p, (int)d)) continue;
        if (p->devices.v[d].kind != ML_DEV_CPU) return (int)d;
        if (any < 0) any = (int)d;
    }
    if (any >= 0) return any;
    if (p->devices.len) return 0;
    return ml_fail(e, "%s: no memory data to export", p->path);
}

/* For TRACE and CSV: --device must name a device of some profile, and a CSV
 * needs allocations to list. */
static int check_selection(const ml_profiles *ps, const char *input, const char *device, ml_export_kind kind, ml_err *e)
{
    bool found = !device, allocs = false, memory = false;
    for (size_t r = 0; r < ps->items.len; r++) {
        const ml_profile *p = ps->items.v[r];
        for (size_t d = 0; d < p->devices.len; d++) {
            if (!wanted(p, d, device)) continue;
            found = true;
            memory |= has_memory(p, (int)d);
        }
        for (size_t i = 0; i < p->allocs.device.len && !allocs; i++) allocs = wanted(p, p->allocs.device.v[i], device);
    }
    if (!found) {
        char ids[512];
        device_list(ps, ids, sizeof ids);
        return ml_fail(e, "%s: no device %s (it has: %s)", input, device, ids);
    }
    if (kind == ML_EXPORT_CSV && memory && !allocs)
        return ml_fail(e, "%s: no allocations to list: its memory events carry no addresses, so frees cannot be "
                          "matched to allocations; export the curve instead (.json, .raw.json.gz or .trace.json, "
                          "as Unknown)", input);
    return 0;
}

/* A device with memory events but no allocations (no addresses) is exported
 * as one Unknown curve, the running sum of Bytes: say so. */
static void note_unmatched(const ml_cli_io *io, const ml_profiles *ps, int dev, const char *device)
{
    for (size_t r = 0; r < ps->items.len; r++) {
        const ml_profile *p = ps->items.v[r];
        for (size_t d = 0; d < p->devices.len; d++) {
            if (dev >= 0 ? (int)d != dev : !wanted(p, d, device)) continue;
            bool allocs = false;
            for (size_t i = 0; i < p->allocs.device.len && !allocs; i++) allocs = p->allocs.device.v[i] == d;
            if (!allocs && has_memory(p, (int)d))
                fprintf(io->err, "memlens: note: %s %s: memory events without addresses: exported as Unknown, "
                                "the running sum of their Bytes\n", p->path, p->devices.v[d].id);
        }
    }
}

/* `export --table`: one table of `perf` for one rank, as CSV. */
static int export_table(const ml_cli_io *io, const char *input, const char *out, const char *format, int rank, const char *table,
                        const char *group)
{
    ml_perf_table tb;
    ml_perf_group gb = ML_PERF_BY_NAME;
    if (!strcmp(table, "operators")) tb = ML_PERF_TABLE_OPERATORS;
    else if (!strcmp(table, "kernels")) tb = ML_PERF_TABLE_KERNELS;
    else {
        fprintf(io->err, "memlens: --table %s: expected operators or kernels\n", table);
        return 2;
    }
    if (group && !strcmp(group, "shape") && tb == ML_PERF_TABLE_OPERATORS) gb = ML_PERF_BY_SHAPE;
    else if (group && !strcmp(group, "op") && tb == ML_PERF_TABLE_KERNELS) gb = ML_PERF_BY_OP;
    else if (group && strcmp(group, "name") != 0) {
        fprintf(io->err, "memlens: --group-by %s: expected %s\n", group,
                tb == ML_PERF_TABLE_OPERATORS ? "name or shape" : "name or op");
        return 2;
    }
    size_t ol = strlen(out);
    bool csv = format ? !strcmp(format, "csv") : ol >= 4 && !strcmp(out + ol - 4, ".csv");
    if (!csv) {
        fprintf(io->err, "memlens: %s: --table writes CSV: name the output FILE.csv (or --format csv)\n",
                format ? format : out);
        return 2;
    }
    ml_profiles ps = {0};
    ps.needs.time = true;
    ml_err e = {{0}};
    ml_perf perf;
    bool computed = false;
    if (ml_units_load(input, &ps, &e) < 0) goto fail; /* RUN@SPAN too */
    ml_profiles_sort(&ps);
    if (rank >= 0 && ml_profiles_keep_rank(&ps, rank, &e) < 0) goto fail;
    if (ps.items.len != 1) {
        ml_fail(&e, "%s: %zu profiles (ranks); a table holds one: choose one with --rank N", input, ps.items.len);
        goto fail;
    }
    const ml_profile *p = ps.items.v[0];
    if (!ml_perf_compute(p, &perf)) {
        ml_fail(&e, "%s: no %s table: %s", input, table, ml_perf_unavailable(p));
        goto fail;
    }
    computed = true;
    ml_outfile o;
    if (ml_outfile_open_as(&o, out, false, io->out, &e) < 0) goto fail;
    int w = ml_perf_csv(o.f, p, &perf, tb, gb);
    if (ml_outfile_close(&o, w == 0, &e) < 0) goto fail;
    ml_perf_free(&perf);
    ml_profiles_free(&ps);
    return 0;
fail:
    fprintf(io->err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
    if (computed) ml_perf_free(&perf);
    ml_profiles_free(&ps);
    return 2;
}

int ml_cmd_export(int argc, char **argv, const ml_cli_io *io)
{
    const char *input = NULL, *out = NULL, *device = NULL, *format = NULL, *table = NULL, *group = NULL;
    int rank = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) out = argv[++i];
        else if (!strcmp(a, "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(a, "--format") && i + 1 < argc) format = argv[++i];
        else if (!strcmp(a, "--table") && i + 1 < argc) table = argv[++i];
        else if (!strcmp(a, "--group-by") && i + 1 < argc) group = argv[++i];
        else if (!strcmp(a, "--rank") && i + 1 < argc) {
            if (ml_cli_rank(io->err, argv[++i], &rank) < 0) return 2;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_to(io->out);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(io->err, "memlens: export: unknown option %s\n", a);
            return usage(io);
        } else if (!input) input = a;
        else {
            fprintf(io->err, "memlens: export: one INPUT at a time (got %s and %s)\n", input, a);
            return 2;
        }
    }
    if (!input || !out) {
        fprintf(io->err, "memlens: export: %s\n", !input ? "no INPUT given" : "no output file: give -o FILE (or -o - with --format)");
        return usage(io);
    }
    if (table) return export_table(io, input, out, format, rank, table, group);
    if (group) {
        fprintf(io->err, "memlens: export: --group-by goes with --table\n");
        return 2;
    }
    /* The format: --format's, else the output's extension; .json alone is
     * ambiguous (both torch.profiler exports write it): --format says which. */
    if (!format && !strcmp(out, "-")) {
        fprintf(io->err, "memlens: export: -o - (standard output) needs --format (timeline, raw, trace, csv; "
                        ".gz added for gzip: trace.gz)\n");
        return 2;
    }
    int kind = format ? ml_export_kind_named(format) : ml_export_kind_for(out);
    if (kind == ML_EXPORT_AMBIGUOUS) {
        fprintf(io->err, "memlens: %s: .json is both PyTorch's memory timeline (export_memory_timeline) and a Chrome "
                        "trace (export_chrome_trace): say which with --format timeline or --format trace (or name it "
                        "*.timeline.json or *.trace.json)\n", format ? format : out);
        return 2;
    }
    if (kind < 0) {
        fprintf(io->err, "memlens: %s: unknown export format; use .timeline.json, .raw.json.gz, .trace.json, .csv or .html "
                        "(or --format timeline, raw, trace, csv, html)\n", format ? format : out);
        return 2;
    }
    size_t fl = strlen(format ? format : out);
    bool gz = fl >= 3 && !strcmp((format ? format : out) + fl - 3, ".gz");
    if (format && strcmp(out, "-") != 0 && strlen(out) >= 3 && !strcmp(out + strlen(out) - 3, ".gz")) gz = true;
    ml_profiles ps = {.needs = {.time = kind == ML_EXPORT_TRACE}}; /* a trace: its slices too */
    ml_err e = {{0}};
    if (ml_units_load(input, &ps, &e) < 0) goto fail; /* RUN@SPAN too */
    ml_profiles_sort(&ps);
    if (rank >= 0 && ml_profiles_keep_rank(&ps, rank, &e) < 0) goto fail;
    int dev = -1;
    if (kind == ML_EXPORT_RAW || kind == ML_EXPORT_TIMELINE || kind == ML_EXPORT_HTML) {
        if (ps.items.len > 1) {
            ml_fail(&e, "%s: %zu profiles (ranks); PyTorch's memory timeline holds one device: choose one with --rank N",
                    input, ps.items.len);
            goto fail;
        }
        if ((dev = pick_device(&ps, device, &e)) < 0) goto fail;
    } else if (check_selection(&ps, input, device, (ml_export_kind)kind, &e) < 0) {
        goto fail;
    }
    note_unmatched(io, &ps, dev, device);
    ml_outfile o;
    if (ml_outfile_open_as(&o, out, gz, io->out, &e) < 0) goto fail;
    int w = dev >= 0 ? ml_export_torch(o.f, ps.items.v[0], dev, (ml_export_kind)kind)
                     : ml_export_all(o.f, &ps, (ml_export_kind)kind, device);
    if (ml_outfile_close(&o, w == 0, &e) < 0) goto fail;
    ml_profiles_free(&ps);
    return 0;
fail: /* bad input, options or output: one line, status 2 */
    fprintf(io->err, "memlens: %s\n", ML_TEXT_SAFE(e.msg));
    ml_profiles_free(&ps);
    return 2;
}
