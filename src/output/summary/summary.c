/* summary.c — `memlens summary` in text and JSON; see summary.h. */
#include "summary.h"
#include "textwidth.h"
#include "format.h"
#include "jsonw.h"
#include "stats.h"
#include "summary_ascend.h"
#include "cluster_out.h"

#include <stdlib.h>
#include <string.h>

static const char *device_label(const ml_profile *p, int d, char *buf, size_t cap)
{
    const ml_device *dev = &p->devices.v[d];
    char mem[32];
    if (dev->name && dev->total_memory > 0)
        snprintf(buf, cap, "%s  (%s, %s)", dev->id, ml_s(p, dev->name), ml_fmt_bytes(dev->total_memory, mem, sizeof mem));
    else if (dev->name) snprintf(buf, cap, "%s  (%s)", dev->id, ml_s(p, dev->name));
    else snprintf(buf, cap, "%s", dev->id);
    return buf;
}

/* Which --by a profile gets: the one asked for, else its input's default. */
static ml_group_by group_by(const ml_profile *p, const ml_summary_opts *o)
{
    return o->by_given ? o->by : ml_group_by_default(p);
}

/* "at <time>" of an instant on a device, "" when it has no times (a
 * snapshot without a trace). */
static const char *at_text(const ml_profile *p, const ml_device_stats *st, int64_t ts, char *buf, size_t cap)
{
    char t[64];
    if (st->timeless) buf[0] = 0;
    else if (p->time_is_event_order) snprintf(buf, cap, "at entry #%lld", (long long)ts);
    else snprintf(buf, cap, "at %s", ml_fmt_time(ts, p->time_is_absolute, t, sizeof t));
    return buf;
}

/* "  LABEL  BYTES  AT  NOTE": the bytes padded to a column when more follows. */
static void value_line(FILE *f, const char *label, int64_t bytes, const char *at, const char *note)
{
    char b[32];
    ml_fmt_bytes(bytes, b, sizeof b);
    if (*at) fprintf(f, "  %-16s %-12s %s%s\n", label, b, at, note);
    else fprintf(f, "  %-16s %s%s\n", label, b, note);
}

/* The out-of-memory events listed in the text; the rest are counted. */
#define OOM_SHOWN 3

/* One row of what was live at the peak. */
typedef struct peak_row {
    const char *label;
    int64_t bytes, count;
    bool before_trace;
} peak_row;

/* The rows shown, in byte order: the `top` largest groups, and the
 * before-trace group (when non-zero) in its place among them (after groups
 * of equal bytes).  Returns them (free()) and their number in *n. */
static peak_row *peak_rows(const ml_breakdown *bd, int top, size_t *n)
{
    size_t shown = bd->n < (size_t)top ? bd->n : (size_t)top, k = 0;
    peak_row *rows = ml_malloc((shown + 1) * sizeof *rows);
    bool before = bd->before_bytes != 0 && !bd->before_grouped; /* else among the groups */
    const peak_row before_row = {ML_BEFORE_TRACE_GROUP, bd->before_bytes, bd->before_count, true};
    for (size_t i = 0; i < shown; i++) {
        if (before && bd->groups[i].bytes < bd->before_bytes) rows[k++] = before_row, before = false;
        rows[k++] = (peak_row){bd->groups[i].label, bd->groups[i].bytes, bd->groups[i].count, false};
    }
    if (before) rows[k++] = before_row;
    *n = k;
    return rows;
}

static void text_device(FILE *f, const ml_profile *p, ml_peak_memo *memo, int d, const ml_summary_opts *o)
{
    ml_group_by by = group_by(p, o);
    ml_device_stats st;
    ml_device_stats_compute_memo(p, memo, d, by, &st);
    char a[64], b[80], c[64], label[256];
    fprintf(f, "\n%s\n", ML_TEXT_SAFE(device_label(p, d, label, sizeof label)));
    if (st.peak_allocated.found) {
        value_line(f, "peak allocated", st.peak_allocated.value, at_text(p, &st, st.peak_allocated.at.ts, b, sizeof b),
                   st.allocated_replayed ? "  (replayed from events)" : "");
        if (st.first_ts != ML_TIME_NONE && p->time_is_absolute)
            fprintf(f, "                   %s into the trace\n",
                    ml_fmt_duration(st.peak_allocated.at.ts - st.first_ts, c, sizeof c));
    } else {
        fprintf(f, "  peak allocated   (no allocation data for this device)\n");
    }
    if (st.peak_reserved.found)
        value_line(f, "peak reserved", st.peak_reserved.value, at_text(p, &st, st.peak_reserved.at.ts, b, sizeof b), "");
    if (st.reserved_end >= 0) value_line(f, "reserved at end", st.reserved_end, "", "");
    fprintf(f, "  events           %s allocs, %s frees", ml_fmt_count(st.alloc_events, a, sizeof a),
            ml_fmt_count(st.free_events, b, sizeof b));
    if (st.matched) fprintf(f, ", %s frees without an alloc in the trace\n", ml_fmt_count(st.unmatched_frees, c, sizeof c));
    else if (!st.alloc_events && !st.free_events) fprintf(f, " (the input has no allocation records for this device)\n");
    else fprintf(f, " (not matched: the trace has no addresses)\n");
    if (st.matched)
        fprintf(f, "  never freed      %s allocations, %s\n", ml_fmt_count(st.never_freed, a, sizeof a),
                ml_fmt_bytes(st.never_freed_bytes, b, sizeof b));
    if (st.oom_events) {
        fprintf(f, "  out of memory    %s events\n", ml_fmt_count(st.oom_events, a, sizeof a));
        for (int64_t i = 0; i < st.oom_events && i < OOM_SHOWN; i++) {
            const ml_oom *m = &st.ooms[i];
            const char *at = at_text(p, &st, m->ts, label, sizeof label);
            fprintf(f, "                   %s%srequested %s, ", at, *at ? ": " : "", ml_fmt_bytes(m->requested, a, sizeof a));
            if (m->device_free >= 0) fprintf(f, "device free %s\n", ml_fmt_bytes(m->device_free, b, sizeof b));
            else fprintf(f, "device free not recorded\n");
        }
        if (st.oom_events > OOM_SHOWN)
            fprintf(f, "                   (%s more)\n", ml_fmt_count(st.oom_events - OOM_SHOWN, a, sizeof a));
    }

    const ml_breakdown *bd = &st.at_peak;
    if (st.peak_allocated.found && (bd->n || bd->before_bytes)) {
        fprintf(f, "  live at the peak, by %s%s:\n", ml_group_by_name(by),
                bd->before_grouped ? " (incl. memory from before the trace)" : "");
        size_t n;
        peak_row *rows = peak_rows(bd, o->top, &n);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "    %12s  %8s  %s\n", ml_fmt_bytes(rows[i].bytes, a, sizeof a),
                    !rows[i].count ? "" : ml_fmt_count(rows[i].count, b, sizeof b),
                    ML_TEXT_SAFE(rows[i].label));
        free(rows);
        int64_t rest_bytes = 0, rest_count = 0;
        for (size_t i = (size_t)o->top; i < bd->n; i++) {
            rest_bytes = ml_add_sat(rest_bytes, bd->groups[i].bytes);
            rest_count += bd->groups[i].count;
        }
        if (rest_count)
            fprintf(f, "    %12s  %8s  (%zu more group%s)\n", ml_fmt_bytes(rest_bytes, a, sizeof a),
                    ml_fmt_count(rest_count, b, sizeof b), bd->n - (size_t)o->top, bd->n - (size_t)o->top == 1 ? "" : "s");
    }
    ml_summary_ascend_text(f, p, d, o);
    ml_device_stats_free(&st);
}

void ml_summary_rank_text(FILE *f, const ml_profile *p, ml_peak_memo *memo, const ml_summary_opts *o)
{
    fprintf(f, "%s  [%s", ML_TEXT_SAFE(p->path), p->format);
    if (p->rank >= 0) fprintf(f, ", rank %d", p->rank);
    if (p->world_size > 0) fprintf(f, " of %d", p->world_size);
    if (p->host) fprintf(f, ", host %s", ML_TEXT_SAFE(ml_s(p, p->host)));
    fprintf(f, "]\n");
    for (size_t i = 0; i < p->notes.len; i++) fprintf(f, "  note: %s\n", ML_TEXT_SAFE(ml_s(p, p->notes.v[i])));
    if (!p->devices.len) fprintf(f, "  no memory data\n");
    uint16_t *order = ml_malloc((p->devices.len + 1) * sizeof *order);
    ml_device_order(p, order);
    for (size_t d = 0; d < p->devices.len; d++) text_device(f, p, memo, order[d], o);
    free(order);
}

/* Whether every rank gets its own section (else the cluster digest stands for them). */
static bool detailed(const ml_rankset *rs, const ml_summary_opts *o)
{
    return rs->n <= ML_SUMMARY_DETAIL_RANKS || o->all;
}

void ml_summary_text(FILE *f, const ml_rankset *rs, const ml_summary_opts *o)
{
    if (detailed(rs, o)) {
        for (size_t r = 0; r < rs->n; r++) {
            if (r) fputc('\n', f);
            fflush(f);
            ml_spool_copy(rs->spool, rs->recs[r]->piece[ML_SUMMARY_PIECE_TEXT], f);
        }
        ml_summary_ranks_text(f, rs, o);
    }
    if (rs->n > ML_SUMMARY_DETAIL_RANKS && ml_cluster_is_job(rs->recs, rs->n, NULL, 0)) {
        if (detailed(rs, o)) fputc('\n', f);
        ml_cluster *c = ml_cluster_compute(rs->recs, rs->n);
        ml_cluster_text(f, c, "summary");
        ml_cluster_free(c);
    }
}

static void json_peak_group(jw *w, const char *label, int64_t bytes, int64_t count)
{
    jw_obj(w);
    jw_key(w, "group"); jw_str(w, label);
    jw_key(w, "bytes"); jw_i64(w, bytes);
    jw_key(w, "count"); jw_i64(w, count);
    jw_end(w);
}

static void json_device(jw *w, const ml_profile *p, ml_peak_memo *memo, int d, const ml_summary_opts *o)
{
    const ml_device *dev = &p->devices.v[d];
    ml_group_by by = group_by(p, o);
    ml_device_stats st;
    ml_device_stats_compute_memo(p, memo, d, by, &st);
    jw_obj(w);
    jw_key(w, "rank");
    if (p->rank >= 0) jw_i64(w, p->rank); else jw_null(w);
    jw_key(w, "id"); jw_str(w, dev->id);
    jw_key(w, "name");
    if (dev->name) jw_str(w, ml_s(p, dev->name)); else jw_null(w);
    jw_key(w, "total_memory_bytes");
    if (dev->total_memory > 0) jw_i64(w, dev->total_memory); else jw_null(w);
    jw_key(w, "peak_allocated_bytes");
    if (st.peak_allocated.found) jw_i64(w, st.peak_allocated.value); else jw_null(w);
    jw_key(w, "peak_allocated_time_ns");
    if (st.peak_allocated.found && !st.timeless) jw_i64(w, st.peak_allocated.at.ts); else jw_null(w);
    jw_key(w, "peak_reserved_bytes");
    if (st.peak_reserved.found) jw_i64(w, st.peak_reserved.value); else jw_null(w);
    jw_key(w, "reserved_end_bytes");
    if (st.reserved_end >= 0) jw_i64(w, st.reserved_end); else jw_null(w);
    jw_key(w, "alloc_events"); jw_i64(w, st.alloc_events);
    jw_key(w, "free_events"); jw_i64(w, st.free_events);
    jw_key(w, "unmatched_frees");
    if (st.matched) jw_i64(w, st.unmatched_frees); else jw_null(w);
    jw_key(w, "never_freed");
    if (st.matched) jw_i64(w, st.never_freed); else jw_null(w);
    jw_key(w, "never_freed_bytes");
    if (st.matched) jw_i64(w, st.never_freed_bytes); else jw_null(w);
    jw_key(w, "before_trace_bytes_at_peak"); jw_i64(w, st.at_peak.before_bytes);
    jw_key(w, "oom_events"); jw_i64(w, st.oom_events);
    jw_key(w, "oom");
    jw_arr(w);
    for (int64_t i = 0; i < st.oom_events; i++) {
        jw_obj(w);
        jw_key(w, "time_ns"); jw_i64(w, st.ooms[i].ts);
        jw_key(w, "requested_bytes"); jw_i64(w, st.ooms[i].requested);
        jw_key(w, "device_free_bytes");
        if (st.ooms[i].device_free >= 0) jw_i64(w, st.ooms[i].device_free); else jw_null(w);
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "peak_allocated_replayed"); jw_bool(w, st.allocated_replayed);
    jw_key(w, "group_by"); jw_str(w, ml_curves_by_name(o->curves_by)); /* --group-by */
    jw_key(w, "by"); jw_str(w, ml_group_by_name(by));                /* --by: how top_at_peak is grouped */
    jw_key(w, "top_at_peak");
    jw_arr(w);
    size_t n;
    peak_row *rows = peak_rows(&st.at_peak, o->top, &n);
    for (size_t i = 0; i < n; i++) json_peak_group(w, rows[i].label, rows[i].bytes, rows[i].count);
    free(rows);
    jw_end(w);
    /* Bytes per memory category at the peak (categories.h), PyTorch's names. */
    jw_key(w, "categories_at_peak");
    if (st.peak_allocated.found) {
        jw_obj(w);
        for (int j = 0; j < ML_CAT__COUNT; j++) {
            jw_key(w, ml_category_name(ml_category_order[j]));
            jw_i64(w, st.categories_at_peak[ml_category_order[j]]);
        }
        jw_end(w);
    } else jw_null(w);
    ml_summary_ascend_json(w, p, d, o);
    jw_end(w);
    ml_device_stats_free(&st);
}

void ml_summary_rank_json_input(jw *w, const ml_profile *p)
{
    jw_obj(w);
    jw_key(w, "path"); jw_str(w, p->path);
    jw_key(w, "format"); jw_str(w, p->format);
    jw_key(w, "rank");
    if (p->rank >= 0) jw_i64(w, p->rank); else jw_null(w);
    jw_key(w, "host");
    if (p->host) jw_str(w, ml_s(p, p->host)); else jw_null(w);
    jw_key(w, "time_is_absolute"); jw_bool(w, p->time_is_absolute);
    jw_key(w, "time_is_event_order"); jw_bool(w, p->time_is_event_order);
    jw_key(w, "notes");
    jw_arr(w);
    for (size_t i = 0; i < p->notes.len; i++) jw_str(w, ml_s(p, p->notes.v[i]));
    jw_end(w);
    jw_end(w);
}

void ml_summary_rank_json_devices(jw *w, const ml_profile *p, ml_peak_memo *memo, const ml_summary_opts *o)
{
    uint16_t *order = ml_malloc((p->devices.len + 1) * sizeof *order);
    ml_device_order(p, order);
    for (size_t d = 0; d < p->devices.len; d++) json_device(w, p, memo, order[d], o);
    free(order);
}

/* Pastes piece k of every rank into w's open array. */
static void paste_all(jw *w, const ml_rankset *rs, int k)
{
    for (size_t r = 0; r < rs->n; r++) {
        ml_piece pc = rs->recs[r]->piece[k];
        if (!pc.len) continue;
        jw_paste_begin(w);
        fflush(w->f);
        ml_spool_copy(rs->spool, pc, w->f);
    }
}

void ml_summary_json(FILE *f, const ml_rankset *rs, const ml_summary_opts *o)
{
    jw w;
    jw_init(&w, f, true);
    jw_obj(&w);
    jw_key(&w, "memlens"); jw_str(&w, MEMLENS_VERSION);
    jw_key(&w, "inputs");
    jw_arr(&w);
    paste_all(&w, rs, ML_SUMMARY_PIECE_INPUT);
    jw_end(&w);
    jw_key(&w, "skipped");
    jw_arr(&w);
    for (size_t i = 0; i < rs->n_skipped; i++) {
        const char *entry = rs->skipped[i];
        size_t n = ml_skipped_path_len(entry);
        char *path = ml_strndup(entry, n);
        jw_obj(&w);
        jw_key(&w, "path"); jw_str(&w, path);
        jw_key(&w, "why"); jw_str(&w, entry[n] ? entry + n + 2 : "");
        jw_key(&w, "unreadable"); jw_bool(&w, ml_skipped_unreadable(entry));
        jw_end(&w);
        free(path);
    }
    jw_end(&w);
    jw_key(&w, "devices");
    jw_arr(&w);
    paste_all(&w, rs, ML_SUMMARY_PIECE_DEVICES);
    jw_end(&w);
    ml_summary_ranks_json(&w, rs, o);
    if (ml_cluster_is_job(rs->recs, rs->n, NULL, 0)) { /* unrelated inputs are no job */
        ml_cluster *c = ml_cluster_compute(rs->recs, rs->n);
        ml_cluster_json(&w, c);
        ml_cluster_free(c);
    }
    jw_end(&w);
}

void ml_summary_rank_pieces(const ml_profile *p, ml_peak_memo *memo, ml_rankrec *r, ml_spool *s,
                            const ml_summary_opts *o)
{
    ml_spool_writer m;
    if (!o->json) {
        ml_summary_rank_text(ml_spool_begin(&m), p, memo, o);
        r->piece[ML_SUMMARY_PIECE_TEXT] = ml_spool_end(&m, s);
        return;
    }
    jw w;
    jw_init_in(&w, ml_spool_begin(&m), true, 2, false);
    ml_summary_rank_json_input(&w, p);
    r->piece[ML_SUMMARY_PIECE_INPUT] = ml_spool_end(&m, s);
    jw_init_in(&w, ml_spool_begin(&m), true, 2, false);
    ml_summary_rank_json_devices(&w, p, memo, o);
    r->piece[ML_SUMMARY_PIECE_DEVICES] = ml_spool_end(&m, s);
}
