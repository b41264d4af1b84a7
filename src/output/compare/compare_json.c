/*
 * compare_json.c — `memlens diff --json` and the page's compare object
 * (compare.h).  Times are µs as JSON numbers, exact to the ns ("98598.123"),
 * sizes bytes, percentages 0-100; a figure a side lacks is null.
 */
#include "compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_enc.h"
#include "summary.h" /* MEMLENS_VERSION */

static const char *const role_keys[ML_ROLE__COUNT] = {"kernel", "memcpy", "memset", "communication",
                                                      "runtime", "dataloader", "cpu_exec", "other"};

static void us(jw *w, const char *key, int64_t ns)
{
    jw_key(w, key);
    jw_us(w, ns);
}

/* A double of ns as µs with three decimals at most. */
static void us_dbl(jw *w, const char *key, double ns)
{
    jw_key(w, key);
    if (!isfinite(ns)) {
        jw_null(w);
        return;
    }
    jw_us(w, (int64_t)llround(ns));
}

/* 100 * (b - a) / a to 4 decimals; null when a is 0 or either is unknown. */
static void pct(jw *w, const char *key, double a, double b, bool known)
{
    jw_key(w, key);
    if (!known || a == 0) {
        jw_null(w);
        return;
    }
    jw_fixed(w, 100.0 * (b - a) / a, 4);
}

static void i64_or_null(jw *w, int64_t v, bool known)
{
    if (known) jw_i64(w, v);
    else jw_null(w);
}

/* {"base": a, "new": b, "delta": b - a, "delta_pct": ...}, each null where unknown. */
static void figure(jw *w, const char *key, int64_t a, bool ka, int64_t b, bool kb)
{
    jw_key(w, key);
    jw_obj(w);
    jw_key(w, "base"); i64_or_null(w, a, ka);
    jw_key(w, "new"); i64_or_null(w, b, kb);
    jw_key(w, "delta"); i64_or_null(w, b - a, ka && kb);
    pct(w, "delta_pct", (double)a, (double)b, ka && kb);
    jw_end(w);
}

static const char *only_name(unsigned only) { return only == ML_ONLY_BASE ? "base" : only == ML_ONLY_NEW ? "new" : NULL; }

static void run_info(jw *w, const char *key, const ml_profile *p)
{
    jw_key(w, key);
    jw_obj(w);
    jw_key(w, "path"); jw_str(w, p->path);
    jw_key(w, "format"); jw_str(w, p->format);
    jw_key(w, "rank");
    i64_or_null(w, p->rank, p->rank >= 0);
    jw_end(w);
}

static size_t cut(size_t n, int top) { return top > 0 && (size_t)top < n ? (size_t)top : n; }

static void device_json(jw *w, const ml_diff *d, const ml_diff_device *dd, const ml_compare_opts *o)
{
    const ml_device_stats *st = dd->st;
    bool k[2] = {dd->dev[0] >= 0, dd->dev[1] >= 0};
    jw_obj(w);
    jw_key(w, "id"); jw_str(w, dd->id[k[0] ? 0 : 1]);
    jw_key(w, "base_id"); if (k[0]) jw_str(w, dd->id[0]); else jw_null(w);
    jw_key(w, "new_id"); if (k[1]) jw_str(w, dd->id[1]); else jw_null(w);
    jw_key(w, "only");
    if (!k[0] || !k[1]) jw_str(w, k[0] ? "base" : "new");
    else jw_null(w);
    figure(w, "peak_allocated_bytes", st[0].peak_allocated.value, k[0] && st[0].peak_allocated.found,
           st[1].peak_allocated.value, k[1] && st[1].peak_allocated.found);
    figure(w, "peak_reserved_bytes", st[0].peak_reserved.value, k[0] && st[0].peak_reserved.found,
           st[1].peak_reserved.value, k[1] && st[1].peak_reserved.found);
    figure(w, "reserved_end_bytes", st[0].reserved_end, k[0] && st[0].reserved_end >= 0, st[1].reserved_end,
           k[1] && st[1].reserved_end >= 0);
    figure(w, "unused_reserved_at_peak_bytes", dd->unused_at_reserved_peak[0], k[0] && dd->unused_at_reserved_peak[0] >= 0,
           dd->unused_at_reserved_peak[1], k[1] && dd->unused_at_reserved_peak[1] >= 0);
    figure(w, "alloc_events", st[0].alloc_events, k[0], st[1].alloc_events, k[1]);
    figure(w, "free_events", st[0].free_events, k[0], st[1].free_events, k[1]);
    figure(w, "oom_events", st[0].oom_events, k[0], st[1].oom_events, k[1]);
    figure(w, "never_freed_bytes", st[0].never_freed_bytes, k[0] && st[0].matched, st[1].never_freed_bytes,
           k[1] && st[1].matched);
    jw_key(w, "by"); jw_str(w, ml_group_by_name(d->by));
    jw_key(w, "groups");
    jw_arr(w);
    for (size_t i = 0; i < cut(dd->n_groups, o->top); i++) {
        const ml_diff_group *g = &dd->groups[i];
        jw_obj(w);
        jw_key(w, "group"); jw_str(w, g->label);
        jw_key(w, "base_bytes"); jw_i64(w, g->bytes[0]);
        jw_key(w, "new_bytes"); jw_i64(w, g->bytes[1]);
        jw_key(w, "delta_bytes"); jw_i64(w, g->bytes[1] - g->bytes[0]);
        jw_key(w, "base_count"); jw_i64(w, g->count[0]);
        jw_key(w, "new_count"); jw_i64(w, g->count[1]);
        jw_key(w, "only");
        if (only_name(g->only)) jw_str(w, only_name(g->only));
        else jw_null(w);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

static void segment_json(jw *w, const ml_profile *p, const ml_segment *g)
{
    char addr[32];
    snprintf(addr, sizeof addr, "0x%" PRIx64, g->address);
    jw_obj(w);
    jw_key(w, "device"); jw_str(w, p->devices.v[g->device].id);
    jw_key(w, "address"); jw_str(w, addr);
    jw_key(w, "total_size"); jw_i64(w, g->total_size);
    jw_key(w, "allocated_size"); jw_i64(w, g->allocated_size);
    jw_key(w, "active_size"); jw_i64(w, g->active_size);
    jw_key(w, "stream"); jw_str(w, g->stream ? ml_s(p, g->stream) : "");
    jw_key(w, "pool"); jw_str(w, g->pool_id ? ml_s(p, g->pool_id) : "");
    jw_key(w, "segment_type"); jw_str(w, g->segment_type ? ml_s(p, g->segment_type) : "");
    jw_key(w, "blocks"); jw_i64(w, g->n_blocks);
    jw_key(w, "is_expandable"); jw_bool(w, g->is_expandable);
    jw_end(w);
}

static void segments_json(jw *w, const ml_diff *d, const ml_compare_opts *o)
{
    jw_key(w, "segments");
    if (!d->snapshots) {
        jw_null(w);
        return;
    }
    const ml_segdiff *sd = &d->segs;
    jw_obj(w);
    figure(w, "count", (int64_t)sd->segments[0], true, (int64_t)sd->segments[1], true);
    figure(w, "bytes", sd->bytes[0], true, sd->bytes[1], true);
    jw_key(w, "common"); jw_i64(w, (int64_t)sd->common);
    for (int s = 0; s < 2; s++) {
        jw_key(w, s ? "only_new" : "only_base");
        jw_arr(w);
        size_t shown = 0;
        for (size_t i = 0; i < sd->n_only; i++) {
            if (sd->only[i].side != s) continue;
            if (o->top > 0 && shown++ >= (size_t)o->top) break;
            const ml_profile *p = d->side[s].p;
            segment_json(w, p, &p->segments.v[sd->only[i].segment]);
        }
        jw_end(w);
        jw_key(w, s ? "only_new_bytes" : "only_base_bytes"); jw_i64(w, sd->only_bytes[s]);
    }
    jw_end(w);
    jw_key(w, "allocator_settings");
    if (!sd->settings_known[0] || !sd->settings_known[1]) jw_null(w);
    else {
        jw_arr(w);
        for (size_t i = 0; i < sd->n_settings; i++) {
            jw_obj(w);
            jw_key(w, "key"); jw_str(w, sd->settings[i].key);
            jw_key(w, "base"); if (sd->settings[i].value[0]) jw_str(w, sd->settings[i].value[0]); else jw_null(w);
            jw_key(w, "new"); if (sd->settings[i].value[1]) jw_str(w, sd->settings[i].value[1]); else jw_null(w);
            jw_end(w);
        }
        jw_end(w);
    }
}

static void steps_json(jw *w, const ml_diff *d)
{
    jw_key(w, "steps");
    if (!d->time) {
        jw_null(w);
        return;
    }
    const ml_diff_steps *st = &d->steps;
    jw_obj(w);
    figure(w, "count", (int64_t)st->count[0], true, (int64_t)st->count[1], true);
    jw_key(w, "whole_trace");
    jw_obj(w);
    jw_key(w, "base"); jw_bool(w, st->whole_trace[0]);
    jw_key(w, "new"); jw_bool(w, st->whole_trace[1]);
    jw_end(w);
    /* When each step began (absolute ns as text, exact beyond 2^53): the
     * Compare view aligns the two runs' curves at a step. */
    jw_key(w, "begin_ns");
    jw_obj(w);
    for (int k = 0; k < 2; k++) {
        jw_key(w, k ? "new" : "base");
        jw_arr(w);
        const ml_steps *ss = &d->side[k].time->steps;
        for (size_t i = 0; i < ss->steps.len; i++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%" PRId64, ss->steps.v[i].begin);
            jw_str(w, buf);
        }
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "avg_step");
    jw_obj(w);
    us_dbl(w, "base_us", st->avg_total[0]);
    us_dbl(w, "new_us", st->avg_total[1]);
    us_dbl(w, "delta_us", st->avg_total[1] - st->avg_total[0]);
    pct(w, "delta_pct", st->avg_total[0], st->avg_total[1], true);
    jw_end(w);
    jw_key(w, "breakdown");
    jw_arr(w);
    for (int r = 0; r < ML_ROLE__COUNT; r++) {
        jw_obj(w);
        jw_key(w, "role"); jw_str(w, role_keys[r]);
        jw_key(w, "label"); jw_str(w, ml_role_label((ml_role)r));
        us_dbl(w, "base_us", st->avg[0][r]);
        us_dbl(w, "new_us", st->avg[1][r]);
        us_dbl(w, "delta_us", st->avg[1][r] - st->avg[0][r]);
        pct(w, "delta_pct", st->avg[0][r], st->avg[1][r], true);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

static void ops_json(jw *w, const ml_diff *d, const ml_compare_opts *o)
{
    jw_key(w, "operators");
    jw_arr(w);
    for (size_t i = 0; d->time && i < cut(d->n_ops, o->top); i++) {
        const ml_diff_op *r = &d->ops[i];
        jw_obj(w);
        jw_key(w, "kind"); jw_str(w, ml_opkind_name(r->kind));
        jw_key(w, "name"); jw_str(w, r->name);
        jw_key(w, "base_calls"); jw_i64(w, r->calls[0]);
        jw_key(w, "new_calls"); jw_i64(w, r->calls[1]);
        us(w, "base_us", r->ns[0]);
        us(w, "new_us", r->ns[1]);
        jw_key(w, "change"); jw_str(w, ml_change_name(r->change));
        jw_end(w);
    }
    jw_end(w);
}

/* ---- the operator tree ---------------------------------------------------- */

static void tree_side(jw *w, const char *key, const ml_dt_stats *s)
{
    jw_key(w, key);
    if (!s->nodes) {
        jw_null(w);
        return;
    }
    jw_obj(w);
    jw_key(w, "name");
    if (s->name) jw_str(w, s->name);
    else jw_null(w);
    jw_key(w, "nodes"); jw_i64(w, s->nodes);
    if (s->nodes > 1) {
        jw_key(w, "first"); jw_str(w, s->first_name);
        jw_key(w, "last"); jw_str(w, s->last_name);
    }
    us(w, "host_us", s->host_ns);
    us(w, "device_us", s->device_ns);
    us(w, "total_us", s->total_ns);
    jw_end(w);
}

typedef struct tree_op {
    const char *name;
    const ml_dt_op *side[2];
} tree_op;

static int by_name(const void *x, const void *y) { return strcmp(((const tree_op *)x)->name, ((const tree_op *)y)->name); }

static int64_t op_total(const tree_op *t, int s) { return t->side[s] ? t->side[s]->device_ns ? t->side[s]->device_ns : t->side[s]->host_ns : 0; }

static int by_op_delta(const void *x, const void *y)
{
    const tree_op *a = x, *b = y;
    int64_t da = llabs(op_total(a, 1) - op_total(a, 0)), db = llabs(op_total(b, 1) - op_total(b, 0));
    if (da != db) return da > db ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* The operators under both sides of a node, aligned by name: largest change first. */
static void tree_ops(jw *w, const ml_difftree *t, uint32_t node, int top)
{
    ml_dt_op *ops[2];
    size_t n[2];
    for (int s = 0; s < 2; s++) n[s] = ml_dt_ops_of(t, node, s, &ops[s]);
    tree_op *all = ml_malloc((n[0] + n[1] + 1) * sizeof *all);
    size_t m = 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < n[s]; i++) all[m++] = (tree_op){ops[s][i].name, {s ? NULL : &ops[s][i], s ? &ops[s][i] : NULL}};
    qsort(all, m, sizeof *all, by_name);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && !strcmp(all[k - 1].name, all[i].name)) {
            for (int s = 0; s < 2; s++)
                if (all[i].side[s]) all[k - 1].side[s] = all[i].side[s];
        } else all[k++] = all[i];
    }
    qsort(all, k, sizeof *all, by_op_delta);
    jw_key(w, "ops");
    jw_arr(w);
    for (size_t i = 0; i < cut(k, top); i++) {
        const ml_dt_op *b = all[i].side[0], *x = all[i].side[1];
        jw_obj(w);
        jw_key(w, "name"); jw_str(w, all[i].name);
        jw_key(w, "base_calls"); jw_i64(w, b ? b->calls : 0);
        jw_key(w, "new_calls"); jw_i64(w, x ? x->calls : 0);
        us(w, "base_host_us", b ? b->host_ns : 0);
        us(w, "new_host_us", x ? x->host_ns : 0);
        us(w, "base_self_host_us", b ? b->self_host_ns : 0);
        us(w, "new_self_host_us", x ? x->self_host_ns : 0);
        us(w, "base_device_us", b ? b->device_ns : 0);
        us(w, "new_device_us", x ? x->device_ns : 0);
        us(w, "base_self_device_us", b ? b->self_device_ns : 0);
        us(w, "new_self_device_us", x ? x->self_device_ns : 0);
        jw_end(w);
    }
    jw_end(w);
    if (k > cut(k, top)) {
        jw_key(w, "ops_left_out"); jw_i64(w, (int64_t)(k - cut(k, top)));
    }
    free(all);
    free(ops[0]);
    free(ops[1]);
}

static const char *match_kind(const ml_dtnode *nd, uint32_t id)
{
    if (id == 0) return "root";
    if (nd->matched) return "matched";
    if (!nd->count[0]) return "new only";
    if (!nd->count[1]) return "base only";
    return "unmatched";
}

/* Levels of the tree written: each takes two of the writer's JW_MAX_DEPTH. */
#define TREE_DEPTH 20

static void tree_node(jw *w, const ml_difftree *t, uint32_t id, int top, int depth)
{
    const ml_dtnode *nd = &t->nodes.v[id];
    ml_dt_stats s[2];
    ml_dt_stats_of(t, id, 0, &s[0]);
    ml_dt_stats_of(t, id, 1, &s[1]);
    jw_obj(w);
    jw_key(w, "match"); jw_str(w, match_kind(nd, id));
    jw_key(w, "type");
    jw_str(w, nd->matched ? ml_dt_type_name(s[0].type) : s[0].nodes == 1 && s[1].nodes <= 1 ? ml_dt_type_name(s[0].type)
                          : s[1].nodes == 1 && !s[0].nodes ? ml_dt_type_name(s[1].type) : "composite");
    tree_side(w, "base", &s[0]);
    tree_side(w, "new", &s[1]);
    tree_ops(w, t, id, top);
    jw_key(w, "children");
    jw_arr(w);
    for (uint32_t c = 0; c < nd->child_count && depth < TREE_DEPTH; c++) tree_node(w, t, nd->child_first + c, top, depth + 1);
    jw_end(w);
    if (nd->child_count && depth >= TREE_DEPTH) {
        jw_key(w, "children_left_out"); jw_i64(w, nd->child_count);
    }
    jw_end(w);
}

void ml_compare_pair_json(jw *w, const ml_diff *d, const ml_compare_opts *o)
{
    jw_obj(w);
    run_info(w, "base", d->side[0].p);
    run_info(w, "new", d->side[1].p);
    jw_key(w, "by"); jw_str(w, ml_group_by_name(d->by));
    jw_key(w, "devices");
    jw_arr(w);
    for (size_t i = 0; i < d->n_devices; i++) device_json(w, d, &d->devices[i], o);
    jw_end(w);
    segments_json(w, d, o);
    steps_json(w, d);
    ops_json(w, d, o);
    jw_key(w, "tree");
    if (d->tree) tree_node(w, d->tree, 0, o->top, 0);
    else jw_null(w);
    jw_key(w, "notes");
    jw_arr(w);
    for (size_t i = 0; i < d->notes.len; i++) jw_str(w, d->notes.v[i]);
    jw_end(w);
    jw_end(w);
}

void ml_compare_json(FILE *f, const ml_compare_doc *c)
{
    jw w;
    jw_init(&w, f, true);
    jw_obj(&w);
    jw_key(&w, "memlens"); jw_str(&w, MEMLENS_VERSION);
    jw_key(&w, "base"); jw_str(&w, c->input[0]);
    jw_key(&w, "new"); jw_str(&w, c->input[1]);
    jw_key(&w, "pairs");
    jw_arr(&w);
    for (size_t i = 0; i < c->n; i++) jw_paste(&w, c->pieces[i].text, c->pieces[i].len);
    jw_end(&w);
    jw_key(&w, "unmatched");
    jw_arr(&w);
    for (size_t i = 0; i < c->n_unmatched; i++) jw_str(&w, c->unmatched[i]);
    jw_end(&w);
    jw_end(&w);
    fputc('\n', f);
}

static void page_pair(jw *w, const ml_diff *d, size_t kb, size_t kn)
{
    ml_compare_opts o = {.top = 0};
    jw_obj(w);
    jw_key(w, "base_rank"); jw_i64(w, (int64_t)kb);
    jw_key(w, "new_rank"); jw_i64(w, (int64_t)kn);
    jw_key(w, "diff");
    ml_compare_pair_json(w, d, &o);
    jw_end(w);
}

/* What fn writes, appended to out with every '<' as \u003c (safe in <script>). */
static void to_buf(ml_buf *out, void (*fn)(jw *, const void *), const void *arg)
{
    ml_buf mem = {0};
    jw w;
    jw_init_buf(&w, &mem, false);
    w.script_safe = false; /* every '<' escaped below instead */
    fn(&w, arg);
    jw_put_in_script(out, mem.p, mem.len);
    ml_buf_free(&mem);
}

typedef struct page_arg {
    const ml_compare *c;
    const size_t *rank_of;
    const ml_diff *d;
    size_t kb, kn;
} page_arg;

static void page_all(jw *w, const void *arg)
{
    const page_arg *a = arg;
    const ml_compare *c = a->c;
    jw_obj(w);
    jw_key(w, "inputs");
    jw_arr(w);
    jw_str(w, c->input[0]);
    jw_str(w, c->input[1]);
    jw_end(w);
    jw_key(w, "pairs");
    jw_arr(w);
    for (size_t i = 0; i < c->n; i++) page_pair(w, c->pairs[i], a->rank_of[2 * i], a->rank_of[2 * i + 1]);
    jw_end(w);
    jw_key(w, "unmatched");
    jw_arr(w);
    for (size_t i = 0; i < c->n_unmatched; i++) jw_str(w, c->unmatched[i]);
    jw_end(w);
    jw_end(w);
}

static void page_one(jw *w, const void *arg)
{
    const page_arg *a = arg;
    page_pair(w, a->d, a->kb, a->kn);
}

void ml_compare_page_json(const ml_compare *c, const size_t *rank_of, ml_buf *out)
{
    page_arg a = {.c = c, .rank_of = rank_of};
    to_buf(out, page_all, &a);
}

void ml_compare_page_pair(const ml_diff *d, size_t base_rank, size_t new_rank, ml_buf *out)
{
    page_arg a = {.d = d, .kb = base_rank, .kn = new_rank};
    to_buf(out, page_one, &a);
}
