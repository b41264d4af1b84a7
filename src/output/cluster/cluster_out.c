/*
 * cluster_out.c — the cluster digest as text and JSON; see cluster_out.h.
 */
#include "cluster_out.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "format.h"

static const char *value_text(ml_cluster_metric m, int64_t v, char *buf, size_t cap)
{
    char b[48];
    switch (ml_cluster_metric_unit(m)) {
    case ML_UNIT_BYTES: return ml_fmt_bytes(v, buf, cap);
    case ML_UNIT_NS: return ml_fmt_duration(v, buf, cap);
    case ML_UNIT_BYTES_PER_STEP: snprintf(buf, cap, "%s/step", ml_fmt_bytes(v, b, sizeof b)); return buf;
    case ML_UNIT_COUNT: return ml_fmt_count(v, buf, cap);
    }
    return buf;
}

static const char *rank_text(const ml_cluster_rank *r, char *buf, size_t cap)
{
    if (r->rank >= 0) snprintf(buf, cap, "%d", r->rank);
    else snprintf(buf, cap, "? (%s)", r->path);
    return buf;
}

static void five(FILE *f, const ml_cluster *c, ml_cluster_metric m, const size_t *at, size_t n)
{
    char v[48], rk[64];
    for (size_t i = 0; i < n; i++) {
        const ml_cluster_rank *r = &c->ranks[at[i]];
        fprintf(f, "%s%s %s", i ? ", " : "", rank_text(r, rk, sizeof rk), value_text(m, r->value[m], v, sizeof v));
    }
    fputc('\n', f);
}

void ml_cluster_text(FILE *f, const ml_cluster *c, const char *what)
{
    char a[48], b[48], d[48], e[48], ra[64], rb[64];
    fprintf(f, "cluster: %zu ranks, world size %d, %d rank%s per node\n", c->n, c->world_size, c->ranks_per_node,
            c->ranks_per_node == 1 ? "" : "s");
    fprintf(f, "  (one rank's own %s: --rank N; every rank's: --all)\n", what);
    fprintf(f, "  %-15s %6s  %-22s %-12s %-12s %s\n", "", "ranks", "min (rank)", "p50", "p90", "max (rank)");
    for (int m = 0; m < ML_CM__COUNT; m++) {
        const ml_digest *g = &c->digest[m];
        if (!g->n) continue;
        char mn[96], mx[96];
        snprintf(mn, sizeof mn, "%s (%s)", value_text((ml_cluster_metric)m, g->min, a, sizeof a),
                 rank_text(&c->ranks[g->min_at], ra, sizeof ra));
        snprintf(mx, sizeof mx, "%s (%s)", value_text((ml_cluster_metric)m, g->max, b, sizeof b),
                 rank_text(&c->ranks[g->max_at], rb, sizeof rb));
        fprintf(f, "  %-15s %6zu  %-22s %-12s %-12s %s\n", ml_cluster_metric_label((ml_cluster_metric)m), g->n, mn,
                value_text((ml_cluster_metric)m, g->p50, d, sizeof d), value_text((ml_cluster_metric)m, g->p90, e, sizeof e),
                mx);
    }
    fprintf(f, "  highest five (rank value):\n");
    for (int m = 0; m < ML_CM__COUNT; m++) {
        const ml_digest *g = &c->digest[m];
        if (!g->n || m == ML_CM_OOM) continue;
        fprintf(f, "    %-15s ", ml_cluster_metric_label((ml_cluster_metric)m));
        five(f, c, (ml_cluster_metric)m, g->top, g->n_top);
    }
    fprintf(f, "  lowest five:\n");
    for (int m = 0; m < ML_CM__COUNT; m++) {
        const ml_digest *g = &c->digest[m];
        if (!g->n || m == ML_CM_OOM) continue;
        fprintf(f, "    %-15s ", ml_cluster_metric_label((ml_cluster_metric)m));
        five(f, c, (ml_cluster_metric)m, g->bottom, g->n_top);
    }
    if (!c->n_outliers) {
        fprintf(f, "  outliers: none (robust score 0.6745 (value - median) / MAD above %.1f, among %d ranks or more)\n",
                ML_CLUSTER_THRESHOLD, ML_CLUSTER_MIN_RANKS);
        return;
    }
    fprintf(f, "  outliers (robust score 0.6745 (value - median) / MAD above %.1f; every rank out of memory):\n",
            ML_CLUSTER_THRESHOLD);
    size_t shown = c->n_outliers < ML_CLUSTER_TEXT_OUTLIERS ? c->n_outliers : ML_CLUSTER_TEXT_OUTLIERS;
    for (size_t i = 0; i < shown; i++) {
        const ml_outlier *o = &c->outliers[i];
        const ml_cluster_rank *r = &c->ranks[o->at];
        const ml_digest *g = &c->digest[o->metric];
        fprintf(f, "    %-14s rank %-6s ", ml_cluster_metric_category(o->metric), rank_text(r, ra, sizeof ra));
        if (o->scored)
            fprintf(f, "%s %s (median %s, score %.2f)\n", ml_cluster_metric_label(o->metric),
                    value_text(o->metric, o->value, a, sizeof a),
                    value_text(o->metric, (int64_t)llround(g->median), b, sizeof b), o->score);
        else
            fprintf(f, "%s event%s\n", value_text(o->metric, o->value, a, sizeof a), o->value == 1 ? "" : "s");
    }
    if (shown < c->n_outliers)
        fprintf(f, "    and %zu more (--json lists them all)\n", c->n_outliers - shown);
}

/* ---- JSON ---------------------------------------------------------------- */

void ml_cluster_json_value(jw *w, ml_cluster_metric m, int64_t v)
{
    if (ml_cluster_metric_unit(m) == ML_UNIT_NS) jw_us(w, v);
    else jw_i64(w, v);
}

static void put_rank(jw *w, const ml_cluster_rank *r)
{
    if (r->rank >= 0) jw_i64(w, r->rank);
    else jw_null(w);
}

static void rank_list(jw *w, const ml_cluster *c, ml_cluster_metric m, const size_t *at, size_t n)
{
    jw_arr(w);
    for (size_t i = 0; i < n; i++) {
        const ml_cluster_rank *r = &c->ranks[at[i]];
        jw_obj(w);
        jw_key(w, "rank"); put_rank(w, r);
        jw_key(w, "value"); ml_cluster_json_value(w, m, r->value[m]);
        jw_end(w);
    }
    jw_end(w);
}

void ml_cluster_json(jw *w, const ml_cluster *c)
{
    jw_key(w, "cluster");
    jw_obj(w);
    ml_cluster_json_members(w, c);
    jw_end(w);
}

void ml_cluster_json_members(jw *w, const ml_cluster *c)
{
    jw_key(w, "ranks"); jw_i64(w, (int64_t)c->n);
    jw_key(w, "world_size"); jw_i64(w, c->world_size);
    jw_key(w, "ranks_per_node"); jw_i64(w, c->ranks_per_node);
    jw_key(w, "outlier_rule");
    char rule[200];
    snprintf(rule, sizeof rule, "score = 0.6745 (value - median) / MAD, an outlier above %.1f among %d ranks or more; "
                                "every rank with an out-of-memory event", ML_CLUSTER_THRESHOLD, ML_CLUSTER_MIN_RANKS);
    jw_str(w, rule);
    jw_key(w, "metrics");
    jw_obj(w);
    for (int m = 0; m < ML_CM__COUNT; m++) {
        const ml_digest *g = &c->digest[m];
        bool us = ml_cluster_metric_unit((ml_cluster_metric)m) == ML_UNIT_NS;
        jw_key(w, ml_cluster_metric_key((ml_cluster_metric)m));
        jw_obj(w);
        jw_key(w, "ranks"); jw_i64(w, (int64_t)g->n);
        if (g->n) {
            jw_key(w, "min"); ml_cluster_json_value(w, (ml_cluster_metric)m, g->min);
            jw_key(w, "min_rank"); put_rank(w, &c->ranks[g->min_at]);
            jw_key(w, "p50"); ml_cluster_json_value(w, (ml_cluster_metric)m, g->p50);
            jw_key(w, "p90"); ml_cluster_json_value(w, (ml_cluster_metric)m, g->p90);
            jw_key(w, "max"); ml_cluster_json_value(w, (ml_cluster_metric)m, g->max);
            jw_key(w, "max_rank"); put_rank(w, &c->ranks[g->max_at]);
            jw_key(w, "median"); jw_fixed(w, us ? g->median / 1000 : g->median, 3);
            jw_key(w, "mad"); jw_fixed(w, us ? g->mad / 1000 : g->mad, 3);
            jw_key(w, "highest"); rank_list(w, c, (ml_cluster_metric)m, g->top, g->n_top);
            jw_key(w, "lowest"); rank_list(w, c, (ml_cluster_metric)m, g->bottom, g->n_top);
        }
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "per_rank");
    jw_arr(w);
    for (size_t i = 0; i < c->n; i++) {
        const ml_cluster_rank *r = &c->ranks[i];
        jw_obj(w);
        jw_key(w, "rank"); put_rank(w, r);
        jw_key(w, "path"); jw_str(w, r->path);
        jw_key(w, "device"); jw_str(w, r->device);
        jw_key(w, "steps"); jw_i64(w, (int64_t)r->steps);
        for (int m = 0; m < ML_CM__COUNT; m++) {
            jw_key(w, ml_cluster_metric_key((ml_cluster_metric)m));
            if (r->has[m]) ml_cluster_json_value(w, (ml_cluster_metric)m, r->value[m]);
            else jw_null(w);
        }
        jw_end(w);
    }
    jw_end(w);
    jw_key(w, "outliers");
    jw_arr(w);
    for (size_t i = 0; i < c->n_outliers; i++) {
        const ml_outlier *o = &c->outliers[i];
        const ml_cluster_rank *r = &c->ranks[o->at];
        jw_obj(w);
        jw_key(w, "rank"); put_rank(w, r);
        jw_key(w, "metric"); jw_str(w, ml_cluster_metric_key(o->metric));
        jw_key(w, "value"); ml_cluster_json_value(w, o->metric, o->value);
        jw_key(w, "score");
        if (o->scored) jw_fixed(w, o->score, 2);
        else jw_null(w);
        jw_key(w, "category"); jw_str(w, ml_cluster_metric_category(o->metric));
        jw_key(w, "path"); jw_str(w, r->path);
        jw_end(w);
    }
    jw_end(w);
}
