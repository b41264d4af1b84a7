/*
 * compare_text.c — `memlens diff` for people (compare.h): per rank pair,
 * memory per device, the allocator state of two snapshots, the step time and
 * its breakdown, the operators and kernels that changed most, and the top of
 * the operator-tree diff.  Every table is cut to --top rows (default 10);
 * --json has them all.
 */
#include "compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "textwidth.h"

#define TOP_DEFAULT 10

/* The change as people read it: "+5.4%", "0%", "new" (from 0), "" (0 to 0). */
static const char *pct_change(int64_t base, int64_t nw, char *buf, size_t cap)
{
    if (base == nw) snprintf(buf, cap, "%s", base ? "0%" : "");
    else if (base == 0) snprintf(buf, cap, "new");
    else snprintf(buf, cap, "%+.1f%%", 100.0 * ((double)nw - (double)base) / (double)base);
    return buf;
}

/* A change with its sign, "+1.50 MiB", "-3", "0 ns": fmt (ml_fmt_bytes,
 * ml_fmt_count, ml_fmt_duration) writes its size. */
static const char *signed_fig(int64_t v, char *(*fmt)(int64_t, char *, size_t), char *buf, size_t cap)
{
    char t[32];
    fmt(v < 0 ? -v : v, t, sizeof t);
    snprintf(buf, cap, "%s%s", v > 0 ? "+" : v < 0 ? "-" : "", t);
    return buf;
}

typedef enum { U_BYTES, U_COUNT } unit;

/* "  label   base   new   delta  (pct)"; "-" where a side lacks it. */
static void figure_line(FILE *f, const char *label, unit u, int64_t a, bool ka, int64_t b, bool kb)
{
    char x[32], y[32], z[32], p[32];
    const char *xs = "-", *ys = "-", *zs = "", *ps = "";
    if (ka) xs = u == U_BYTES ? ml_fmt_bytes(a, x, sizeof x) : ml_fmt_count(a, x, sizeof x);
    if (kb) ys = u == U_BYTES ? ml_fmt_bytes(b, y, sizeof y) : ml_fmt_count(b, y, sizeof y);
    if (ka && kb) {
        zs = signed_fig(b - a, u == U_BYTES ? ml_fmt_bytes : ml_fmt_count, z, sizeof z);
        pct_change(a, b, p, sizeof p);
        if (*p && a) {
            char q[36];
            snprintf(q, sizeof q, "(%s)", p);
            snprintf(p, sizeof p, "%s", q);
        }
        ps = p;
    }
    if (*ps) fprintf(f, "  %-24s %14s %14s %14s  %s\n", label, xs, ys, zs, ps);
    else fprintf(f, "  %-24s %14s %14s %14s\n", label, xs, ys, zs);
}

static size_t shown(size_t n, int top) { return (size_t)top < n ? (size_t)top : n; }

static void device_text(FILE *f, const ml_diff *d, const ml_diff_device *dd, const ml_compare_opts *o, int top)
{
    const ml_device_stats *st = dd->st;
    bool k[2] = {dd->dev[0] >= 0, dd->dev[1] >= 0};
    char head[128];
    if (k[0] && k[1] && strcmp(dd->id[0], dd->id[1]) != 0) snprintf(head, sizeof head, "%s vs %s", dd->id[0], dd->id[1]);
    else snprintf(head, sizeof head, "%s%s", dd->id[k[0] ? 0 : 1], k[0] && k[1] ? "" : k[0] ? " (only in base)" : " (only in new)");
    fprintf(f, "\nMemory: %-24s %14s %14s %14s\n", head, "base", "new", "delta");
    figure_line(f, "peak allocated", U_BYTES, st[0].peak_allocated.value, k[0] && st[0].peak_allocated.found,
                st[1].peak_allocated.value, k[1] && st[1].peak_allocated.found);
    /* reserved memory: where a run records some (a CPU device's reserved curve is all 0) */
    if ((k[0] && st[0].peak_reserved.found && st[0].peak_reserved.value) || (k[1] && st[1].peak_reserved.found && st[1].peak_reserved.value)) {
        figure_line(f, "peak reserved", U_BYTES, st[0].peak_reserved.value, k[0] && st[0].peak_reserved.found,
                    st[1].peak_reserved.value, k[1] && st[1].peak_reserved.found);
        figure_line(f, "unused at reserved peak", U_BYTES, dd->unused_at_reserved_peak[0], k[0] && dd->unused_at_reserved_peak[0] >= 0,
                    dd->unused_at_reserved_peak[1], k[1] && dd->unused_at_reserved_peak[1] >= 0);
    }
    if ((k[0] && st[0].reserved_end > 0) || (k[1] && st[1].reserved_end > 0))
        figure_line(f, "reserved at end", U_BYTES, st[0].reserved_end, k[0] && st[0].reserved_end >= 0, st[1].reserved_end,
                    k[1] && st[1].reserved_end >= 0);
    figure_line(f, "allocations", U_COUNT, st[0].alloc_events, k[0], st[1].alloc_events, k[1]);
    figure_line(f, "out of memory events", U_COUNT, st[0].oom_events, k[0], st[1].oom_events, k[1]);
    if ((k[0] && st[0].matched) || (k[1] && st[1].matched))
        figure_line(f, "never freed", U_BYTES, st[0].never_freed_bytes, k[0] && st[0].matched, st[1].never_freed_bytes,
                    k[1] && st[1].matched);
    if (!dd->n_groups) return;
    fprintf(f, "  live at the peak, by %s, largest changes first:\n", ml_group_by_name(d->by));
    int namecols = o->width > 0 ? o->width - 50 : 0;
    for (size_t i = 0; i < shown(dd->n_groups, top); i++) {
        const ml_diff_group *g = &dd->groups[i];
        char a[32], b[32], c[32], cutbuf[512];
        const char *as = g->only == ML_ONLY_NEW ? "-" : ml_fmt_bytes(g->bytes[0], a, sizeof a);
        const char *bs = g->only == ML_ONLY_BASE ? "-" : ml_fmt_bytes(g->bytes[1], b, sizeof b);
        const char *tag = g->only == ML_ONLY_NEW ? "  (new only)" : g->only == ML_ONLY_BASE ? "  (base only)" : "";
        fprintf(f, "    %12s %12s %14s  %s%s\n", as, bs, signed_fig(g->bytes[1] - g->bytes[0], ml_fmt_bytes, c, sizeof c),
                ml_fit(g->label, namecols > 10 ? namecols : 0, 0, cutbuf, sizeof cutbuf), tag);
    }
    if (dd->n_groups > shown(dd->n_groups, top))
        fprintf(f, "    (%zu more group%s: --top N, or --json)\n", dd->n_groups - shown(dd->n_groups, top),
                dd->n_groups - shown(dd->n_groups, top) == 1 ? "" : "s");
}

static int by_size_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

typedef struct { int64_t size; size_t count; } size_run;

static int by_bytes_desc(const void *a, const void *b)
{
    const size_run *x = a, *y = b;
    double bx = (double)x->size * (double)x->count, by = (double)y->size * (double)y->count;
    return bx < by ? 1 : bx > by ? -1 : by_size_desc(&x->size, &y->size);
}

/* The segments only side s has, by size: "506 × 20.00 MiB, 10 × 2.00 MiB",
 * the 5 sizes holding the most bytes (two processes' segments seldom share
 * an address: their sizes are what compares). */
static void segment_sizes_line(FILE *f, const ml_diff *d, int s)
{
    const ml_segdiff *sd = &d->segs;
    const ml_profile *p = d->side[s].p;
    size_t n = 0, nr = 0;
    int64_t *sz = malloc((sd->n_only ? sd->n_only : 1) * sizeof *sz);
    size_run *run = malloc((sd->n_only ? sd->n_only : 1) * sizeof *run);
    if (!sz || !run) goto done;
    for (size_t i = 0; i < sd->n_only; i++)
        if (sd->only[i].side == s) sz[n++] = p->segments.v[sd->only[i].segment].total_size;
    if (!n) goto done;
    qsort(sz, n, sizeof *sz, by_size_desc);
    for (size_t i = 0; i < n; i++) {
        if (nr && run[nr - 1].size == sz[i]) run[nr - 1].count++;
        else run[nr++] = (size_run){sz[i], 1};
    }
    qsort(run, nr, sizeof *run, by_bytes_desc);
    fprintf(f, "    only in %-4s by size:", s ? "new" : "base");
    size_t listed = 0;
    for (size_t k = 0; k < nr && k < 5; k++) {
        char b[32];
        fprintf(f, "%s %zu × %s", k ? "," : "", run[k].count, ml_fmt_bytes(run[k].size, b, sizeof b));
        listed += run[k].count;
    }
    if (listed < n) fprintf(f, ", %zu more", n - listed);
    fputc('\n', f);
done:
    free(sz);
    free(run);
}

static void segments_text(FILE *f, const ml_diff *d, int top)
{
    const ml_segdiff *sd = &d->segs;
    fprintf(f, "\nAllocator state at the end %24s %14s %14s\n", "base", "new", "delta");
    figure_line(f, "segments", U_COUNT, (int64_t)sd->segments[0], true, (int64_t)sd->segments[1], true);
    figure_line(f, "reserved in segments", U_BYTES, sd->bytes[0], true, sd->bytes[1], true);
    char a[32], b[32];
    size_t only[2] = {0, 0};
    for (size_t i = 0; i < sd->n_only; i++) only[sd->only[i].side]++;
    fprintf(f, "  segments in both (same address and size): %zu; only in base: %zu (%s); only in new: %zu (%s)\n",
            sd->common, only[0], ml_fmt_bytes(sd->only_bytes[0], a, sizeof a), only[1],
            ml_fmt_bytes(sd->only_bytes[1], b, sizeof b));
    for (int s = 0; s < 2; s++) segment_sizes_line(f, d, s);
    for (int s = 0; s < 2; s++) {
        size_t k = 0;
        for (size_t i = 0; i < sd->n_only; i++) {
            if (sd->only[i].side != s) continue;
            if (k++ >= (size_t)top) break;
            const ml_profile *p = d->side[s].p;
            const ml_segment *g = &p->segments.v[sd->only[i].segment];
            fprintf(f, "    only in %-4s %-8s 0x%016" PRIx64 " %12s  pool %s, stream %s%s\n", s ? "new" : "base",
                    p->devices.v[g->device].id, g->address, ml_fmt_bytes(g->total_size, a, sizeof a),
                    g->pool_id ? ML_TEXT_SAFE(ml_s(p, g->pool_id)) : "?", g->stream ? ML_TEXT_SAFE(ml_s(p, g->stream)) : "?",
                    g->is_expandable ? ", expandable" : "");
        }
        if (k > (size_t)top) fprintf(f, "    (%zu more only in %s: --json lists them)\n", only[s] - (size_t)top, s ? "new" : "base");
    }
    if (!sd->settings_known[0] || !sd->settings_known[1]) return;
    if (!sd->n_settings) {
        fprintf(f, "  allocator settings: the same\n");
        return;
    }
    fprintf(f, "  allocator settings that differ:\n");
    for (size_t i = 0; i < sd->n_settings; i++) {
        const ml_setting_diff *x = &sd->settings[i];
        char a0[240], a1[240];
        fprintf(f, "    %s: %s -> %s\n", ML_TEXT_SAFE(x->key), ml_fit(x->value[0] ? x->value[0] : "(not set)", 200, 0, a0, sizeof a0),
                ml_fit(x->value[1] ? x->value[1] : "(not set)", 200, 0, a1, sizeof a1));
    }
}

static void time_line(FILE *f, const char *label, double a, double b)
{
    char x[32], y[32], z[32], p[40] = "";
    ml_fmt_duration((int64_t)llround(a), x, sizeof x);
    ml_fmt_duration((int64_t)llround(b), y, sizeof y);
    if (a > 0) snprintf(p, sizeof p, "(%+.1f%%)", 100.0 * (b - a) / a);
    fprintf(f, "  %-24s %14s %14s %14s%s%s\n", label, x, y, signed_fig((int64_t)llround(b - a), ml_fmt_duration, z, sizeof z), *p ? "  " : "", p);
}

static void time_text(FILE *f, const ml_diff *d, const ml_compare_opts *o, int top)
{
    const ml_diff_steps *st = &d->steps;
    fprintf(f, "\nTime %43s %14s %14s\n", "base", "new", "delta");
    char a[32], b[32], c[32];
    fprintf(f, "  %-24s %14s %14s %14s\n", "steps", st->whole_trace[0] ? "(whole trace)" : ml_fmt_count((int64_t)st->count[0], a, sizeof a),
            st->whole_trace[1] ? "(whole trace)" : ml_fmt_count((int64_t)st->count[1], b, sizeof b),
            st->whole_trace[0] || st->whole_trace[1] ? "" : signed_fig((int64_t)st->count[1] - (int64_t)st->count[0], ml_fmt_count, c, sizeof c));
    time_line(f, "step time (average)", st->avg_total[0], st->avg_total[1]);
    for (int r = 0; r < ML_ROLE__COUNT; r++) {
        if (st->avg[0][r] == 0 && st->avg[1][r] == 0) continue;
        char label[40];
        snprintf(label, sizeof label, "  %s", ml_role_label((ml_role)r));
        time_line(f, label, st->avg[0][r], st->avg[1][r]);
    }
    if (!d->n_ops) return;
    size_t counts[5] = {0};
    for (size_t i = 0; i < d->n_ops; i++) counts[d->ops[i].change]++;
    fprintf(f, "\n  Operators, runtime calls, kernels, memcpys and memsets over all steps, largest changes first:\n");
    fprintf(f, "    %-8s %10s %10s %12s %12s %12s  %-9s  %s\n", "kind", "calls base", "calls new", "time base", "time new",
            "delta", "change", "name");
    int namecols = o->width > 0 ? o->width - 100 : 0;
    for (size_t i = 0; i < shown(d->n_ops, top); i++) {
        const ml_diff_op *r = &d->ops[i];
        char x[32], y[32], z[32], cutbuf[512];
        fprintf(f, "    %-8s %10" PRId64 " %10" PRId64 " %12s %12s %12s  %-9s  %s\n", ml_opkind_name(r->kind), r->calls[0],
                r->calls[1], ml_fmt_duration(r->ns[0], x, sizeof x), ml_fmt_duration(r->ns[1], y, sizeof y),
                signed_fig(r->ns[1] - r->ns[0], ml_fmt_duration, z, sizeof z), ml_change_name(r->change),
                r->kind == ML_OPK_KERNEL ? ml_fit_symbol(r->name, namecols > 10 ? namecols : 0, cutbuf, sizeof cutbuf)
                                         : ml_fit(r->name, namecols > 10 ? namecols : 0, 0, cutbuf, sizeof cutbuf));
    }
    if (d->n_ops > shown(d->n_ops, top)) fprintf(f, "    (%zu more: --top N, or --json)\n", d->n_ops - shown(d->n_ops, top));
    fprintf(f, "  by calls: %zu added, %zu deleted, %zu increased, %zu decreased, %zu unchanged\n", counts[ML_CHANGE_ADDED],
            counts[ML_CHANGE_DELETED], counts[ML_CHANGE_INCREASED], counts[ML_CHANGE_DECREASED], counts[ML_CHANGE_UNCHANGED]);
}

/* A side of a diff node in a few words. */
static const char *side_label(const ml_dt_stats *s, char *buf, size_t cap)
{
    if (!s->nodes) snprintf(buf, cap, "(none)");
    else if (s->nodes == 1) snprintf(buf, cap, "%s", s->name);
    else snprintf(buf, cap, "%u nodes: %s … %s", s->nodes, s->first_name, s->last_name);
    return buf;
}

static void tree_lines(FILE *f, const ml_difftree *t, uint32_t id, int depth, int *budget, int width)
{
    const ml_dtnode *nd = &t->nodes.v[id];
    for (uint32_t c = 0; c < nd->child_count && *budget > 0; c++) {
        uint32_t k = nd->child_first + c;
        ml_dt_stats s[2];
        ml_dt_stats_of(t, k, 0, &s[0]);
        ml_dt_stats_of(t, k, 1, &s[1]);
        char a[32], b[32], z[32], l0[300], l1[300], line[700], cutbuf[700];
        side_label(&s[0], l0, sizeof l0);
        side_label(&s[1], l1, sizeof l1);
        if (t->nodes.v[k].matched || !strcmp(l0, l1)) snprintf(line, sizeof line, "%s", l0);
        else snprintf(line, sizeof line, "%s  ->  %s", l0, l1);
        int cols = width > 0 ? width - 50 - 2 * depth : 0;
        fprintf(f, "    %12s %12s %12s  %*s%s\n", s[0].nodes ? ml_fmt_duration(s[0].total_ns, a, sizeof a) : "-",
                s[1].nodes ? ml_fmt_duration(s[1].total_ns, b, sizeof b) : "-",
                signed_fig(s[1].total_ns - s[0].total_ns, ml_fmt_duration, z, sizeof z), 2 * depth, "",
                ml_fit(line, cols > 10 ? cols : 0, 0, cutbuf, sizeof cutbuf));
        (*budget)--;
        if (depth < 2) tree_lines(f, t, k, depth + 1, budget, width);
    }
}

static void tree_text(FILE *f, const ml_difftree *t, int top, int width)
{
    const ml_dtnode *root = &t->nodes.v[0];
    size_t matched = 0;
    for (uint32_t c = 0; c < root->child_count; c++) matched += t->nodes.v[root->child_first + c].matched;
    fprintf(f, "\n  Operator tree of the main thread, aligned (%u top-level pairs, %zu matched by type and name):\n",
            root->child_count, matched);
    if (!root->child_count) {
        fprintf(f, "    no step, module, backward, DataLoader or optimizer node in common at the top level\n");
        return;
    }
    fprintf(f, "    %12s %12s %12s  %s\n", "total base", "total new", "delta", "nodes (base -> new)");
    int budget = top * 3;
    tree_lines(f, t, 0, 0, &budget, width);
    if (budget <= 0) fprintf(f, "    (more: --json has the whole tree)\n");
}

static void run_line(FILE *f, const char *what, const ml_profile *p)
{
    fprintf(f, "%-5s %s  [%s", what, ML_TEXT_SAFE(p->path), p->format);
    if (p->rank >= 0) fprintf(f, ", rank %d", p->rank);
    if (p->world_size > 0) fprintf(f, " of %d", p->world_size);
    fprintf(f, "]\n");
}

/* Whether a note of the pair begins with what ("memory", "time"). */
static bool has_note(const ml_diff *d, const char *what)
{
    for (size_t k = 0; k < d->notes.len; k++)
        if (!strncmp(d->notes.v[k], what, strlen(what))) return true;
    return false;
}

void ml_compare_pair_text(FILE *f, const ml_diff *d, const ml_compare_opts *o)
{
    int top = o->top > 0 ? o->top : TOP_DEFAULT;
    run_line(f, "base", d->side[0].p);
    run_line(f, "new", d->side[1].p);
    for (size_t k = 0; k < d->n_devices; k++) device_text(f, d, &d->devices[k], o, top);
    if (!d->n_devices && !has_note(d, "memory"))
        fprintf(f, "\nMemory: not compared: neither run has memory data (record with profile_memory=True, or take a memory snapshot)\n");
    if (d->snapshots) segments_text(f, d, top);
    if (d->time) {
        time_text(f, d, o, top);
        if (d->tree) tree_text(f, d->tree, top, o->width);
    }
    if (d->notes.len) fprintf(f, "\n");
    for (size_t k = 0; k < d->notes.len; k++) fprintf(f, "note: %s\n", ML_TEXT_SAFE(d->notes.v[k]));
}

void ml_compare_text(FILE *f, const ml_compare_doc *c)
{
    for (size_t i = 0; i < c->n; i++) {
        if (i) fprintf(f, "\n");
        if (c->n > 1) fprintf(f, "== rank %d\n", c->pieces[i].rank);
        fwrite(c->pieces[i].text, 1, c->pieces[i].len, f);
    }
    for (size_t i = 0; i < c->n_unmatched; i++) fprintf(f, "%snote: %s (not compared)\n", i ? "" : "\n", ML_TEXT_SAFE(c->unmatched[i]));
}
