/*
 * cluster.c — digests and robust outliers over rank records; see cluster.h.
 */
#include "cluster.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

bool ml_cluster_is_job(ml_rankrec *const *v, size_t n, char *why, size_t cap)
{
    char dummy[8];
    if (!why) why = dummy, cap = sizeof dummy;
    if (n < 2) return snprintf(why, cap, "one input"), false;
    int world = v[0]->world_size;
    for (size_t i = 0; i < n; i++) {
        if (v[i]->rank < 0)
            return snprintf(why, cap, "%s has no rank number (no distributedInfo): the inputs are not one job", v[i]->path), false;
        if ((v[i]->world_size > 0) != (world > 0) || (world > 0 && v[i]->world_size != world))
            return snprintf(why, cap, "%s has world size %d, %s %d: the inputs are not one job", v[i]->path, v[i]->world_size,
                            v[0]->path, world), false;
    }
    int *r = ml_malloc(n * sizeof *r);
    for (size_t i = 0; i < n; i++) r[i] = v[i]->rank;
    qsort(r, n, sizeof *r, by_int);
    int twice = -1;
    for (size_t i = 1; i < n && twice < 0; i++)
        if (r[i] == r[i - 1]) twice = r[i];
    free(r);
    if (twice >= 0) return snprintf(why, cap, "rank %d is given twice: the inputs are not one job", twice), false;
    return true;
}

static const struct {
    const char *key, *label, *category;
    ml_cluster_unit unit;
} metrics[ML_CM__COUNT] = {
    [ML_CM_PEAK_ALLOCATED] = {"peak_allocated_bytes", "peak allocated", "memory skew", ML_UNIT_BYTES},
    [ML_CM_PEAK_RESERVED] = {"peak_reserved_bytes", "peak reserved", "memory skew", ML_UNIT_BYTES},
    [ML_CM_STEP_TIME] = {"step_time_us", "step time", "straggler", ML_UNIT_NS},
    [ML_CM_COMPUTE] = {"compute_time_us", "compute", "straggler", ML_UNIT_NS},
    [ML_CM_COMMUNICATION] = {"communication_time_us", "communication", "waiting", ML_UNIT_NS},
    [ML_CM_IDLE] = {"idle_time_us", "idle", "waiting", ML_UNIT_NS},
    [ML_CM_GROWTH] = {"memory_growth_bytes_per_step", "memory growth", "leak", ML_UNIT_BYTES_PER_STEP},
    [ML_CM_OOM] = {"oom_events", "out of memory", "out of memory", ML_UNIT_COUNT},
};

const char *ml_cluster_metric_key(ml_cluster_metric m) { return metrics[m].key; }
const char *ml_cluster_metric_label(ml_cluster_metric m) { return metrics[m].label; }
const char *ml_cluster_metric_category(ml_cluster_metric m) { return metrics[m].category; }
ml_cluster_unit ml_cluster_metric_unit(ml_cluster_metric m) { return metrics[m].unit; }

/* ---- one rank ------------------------------------------------------------ */

static void set(ml_cluster_rank *cr, ml_cluster_metric m, int64_t v)
{
    cr->has[m] = true;
    cr->value[m] = v;
}

static int64_t mean_of(int64_t sum, size_t n) { return (int64_t)llround((double)sum / (double)n); }

static void rank_values(const ml_rankrec *r, ml_cluster_rank *cr)
{
    cr->rank = r->rank;
    cr->path = r->path;
    cr->device = r->main_device;
    if (r->peak_allocated >= 0) set(cr, ML_CM_PEAK_ALLOCATED, r->peak_allocated);
    if (r->peak_reserved >= 0) set(cr, ML_CM_PEAK_RESERVED, r->peak_reserved);
    set(cr, ML_CM_OOM, r->oom_events);
    int64_t dur = 0, comp = 0, comm = 0, idle = 0;
    size_t n = 0, n_time = 0, n_mem = 0;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < r->steps.len; i++) {
        const ml_rr_step *s = &r->steps.v[i];
        if (ml_step_number(s->name) < 0) continue; /* "(whole trace)" is no step */
        dur = ml_add_sat(dur, s->end_ns - s->begin_ns);
        if (s->comp_ns >= 0) {
            comp = ml_add_sat(comp, s->comp_ns);
            comm = ml_add_sat(comm, s->comm_ns);
            idle = ml_add_sat(idle, s->other_ns);
            n_time++;
        }
        if (s->end_bytes >= 0) {
            double x = (double)n, y = (double)s->end_bytes;
            sx += x, sy += y, sxx += x * x, sxy += x * y;
            n_mem++;
        }
        n++;
    }
    cr->steps = n;
    if (n) set(cr, ML_CM_STEP_TIME, mean_of(dur, n));
    if (n_time) {
        set(cr, ML_CM_COMPUTE, mean_of(comp, n_time));
        set(cr, ML_CM_COMMUNICATION, mean_of(comm, n_time));
        set(cr, ML_CM_IDLE, mean_of(idle, n_time));
    }
    if (n_mem >= 2 && n_mem == n) { /* x: the step's place, 0 .. n-1 */
        double k = (double)n_mem, den = k * sxx - sx * sx;
        if (den > 0) set(cr, ML_CM_GROWTH, (int64_t)llround((k * sxy - sx * sy) / den));
    }
}

/* ---- digests ------------------------------------------------------------- */

typedef struct keyed {
    int64_t v;
    size_t at;
} keyed;

static int asc(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static int desc(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->v != y->v) return x->v > y->v ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void ml_digest_of(const ml_cluster_rank *ranks, size_t n, ml_cluster_metric m, ml_digest *out)
{
    memset(out, 0, sizeof *out);
    keyed *k = ml_malloc((n ? n : 1) * sizeof *k);
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (ranks[i].has[m]) k[c++] = (keyed){ranks[i].value[m], i};
    out->n = c;
    if (!c) {
        free(k);
        return;
    }
    out->min_at = out->max_at = k[0].at;
    out->min = out->max = k[0].v;
    for (size_t i = 1; i < c; i++) { /* the first rank of each extreme */
        if (k[i].v < out->min) out->min = k[i].v, out->min_at = k[i].at;
        if (k[i].v > out->max) out->max = k[i].v, out->max_at = k[i].at;
    }
    qsort(k, c, sizeof *k, asc);
    size_t p50 = (c + 1) / 2, p90 = (size_t)ceil(0.9 * (double)c); /* nearest rank: the ceil(q n)-th */
    out->p50 = k[(p50 ? p50 : 1) - 1].v;
    out->p90 = k[(p90 ? p90 : 1) - 1].v;
    out->n_top = c < ML_CLUSTER_TOP ? c : ML_CLUSTER_TOP;
    for (size_t i = 0; i < out->n_top; i++) out->bottom[i] = k[i].at;
    qsort(k, c, sizeof *k, desc);
    for (size_t i = 0; i < out->n_top; i++) out->top[i] = k[i].at;

    double *d = ml_malloc(c * sizeof *d);
    for (size_t i = 0; i < c; i++) d[i] = (double)ranks[k[i].at].value[m];
    qsort(d, c, sizeof *d, cmp_dbl);
    out->median = median_sorted(d, c);
    for (size_t i = 0; i < c; i++) d[i] = fabs(d[i] - out->median);
    qsort(d, c, sizeof *d, cmp_dbl);
    out->mad = median_sorted(d, c);
    free(d);
    free(k);
}

double ml_cluster_score(const ml_digest *d, double floor, int64_t v)
{
    double mad = d->mad > floor ? d->mad : floor;
    if (!(mad > 0)) mad = 1;
    return 0.6745 * ((double)v - d->median) / mad;
}

/* ---- the cluster --------------------------------------------------------- */

static int outlier_order(const void *a, const void *b)
{
    const ml_outlier *x = a, *y = b;
    if (x->metric != y->metric) return x->metric < y->metric ? -1 : 1;
    if (x->scored && y->scored && x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

ml_cluster *ml_cluster_compute(ml_rankrec *const *v, size_t n)
{
    ml_cluster *c = ml_calloc(1, sizeof *c);
    c->n = n;
    c->ranks = ml_calloc(n ? n : 1, sizeof *c->ranks);
    int max_index = -1;
    for (size_t i = 0; i < n; i++) {
        rank_values(v[i], &c->ranks[i]);
        if (v[i]->world_size > c->world_size) c->world_size = v[i]->world_size;
        if (strncmp(v[i]->main_device, "cpu", 3) && v[i]->main_index > max_index) max_index = v[i]->main_index;
        c->has_time |= v[i]->has_time;
    }
    if (c->world_size <= 0) c->world_size = (int)n;
    c->ranks_per_node = max_index >= 0 ? max_index + 1 : 1;
    for (int m = 0; m < ML_CM__COUNT; m++) ml_digest_of(c->ranks, n, (ml_cluster_metric)m, &c->digest[m]);

    VEC(ml_outlier) out = {0};
    const ml_digest *peak = &c->digest[ML_CM_PEAK_ALLOCATED];
    for (int m = 0; m < ML_CM__COUNT; m++) {
        const ml_digest *d = &c->digest[m];
        if (m == ML_CM_OOM) {
            for (size_t i = 0; i < n; i++)
                if (c->ranks[i].value[m] > 0) VEC_PUSH(&out, ((ml_outlier){i, (ml_cluster_metric)m, c->ranks[i].value[m], false, 0}));
            continue;
        }
        if (d->n < ML_CLUSTER_MIN_RANKS) continue;
        /* a part of a step (compute, communication, idle) also against the step: a
         * rank 15 us more idle in a 480 ms step is no outlier, however alike the others */
        const ml_digest *step = &c->digest[ML_CM_STEP_TIME];
        bool part = m == ML_CM_COMPUTE || m == ML_CM_COMMUNICATION || m == ML_CM_IDLE;
        double floor = m == ML_CM_GROWTH ? fmax(0.0005 * (peak->n ? peak->median : 0), 1048576.0)
                                         : 0.01 * fabs(d->median);
        if (part && step->n) floor = fmax(floor, 0.005 * fabs(step->median));
        for (size_t i = 0; i < n; i++) {
            const ml_cluster_rank *r = &c->ranks[i];
            if (!r->has[m] || (m == ML_CM_GROWTH && r->value[m] <= 0)) continue;
            double s = ml_cluster_score(d, floor, r->value[m]);
            if (s > ML_CLUSTER_THRESHOLD) VEC_PUSH(&out, ((ml_outlier){i, (ml_cluster_metric)m, r->value[m], true, s}));
        }
    }
    if (out.len > 1) qsort(out.v, out.len, sizeof *out.v, outlier_order);
    c->outliers = out.v;
    c->n_outliers = out.len;
    return c;
}

void ml_cluster_free(ml_cluster *c)
{
    if (!c) return;
    free(c->ranks);
    free(c->outliers);
    free(c);
}
