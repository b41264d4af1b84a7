/*
 * cluster_view.c — the Cluster view's matrices and /api/cluster; see
 * cluster_view.h.
 */
#include "cluster_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_out.h"
#include "jsonw.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

void ml_cluster_matrix_of(ml_rankrec *const *v, size_t n, int64_t origin, ml_cluster_matrix *out)
{
    memset(out, 0, sizeof *out);
    VEC(int64_t) nums = {0};
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < v[i]->steps.len; k++) {
            int64_t s = ml_step_number(v[i]->steps.v[k].name);
            if (s >= 0) VEC_PUSH(&nums, s);
        }
    if (nums.len > 1) qsort(nums.v, nums.len, sizeof *nums.v, cmp_i64);
    size_t ns = 0;
    for (size_t i = 0; i < nums.len; i++)
        if (!ns || nums.v[ns - 1] != nums.v[i]) nums.v[ns++] = nums.v[i];
    bool whole = ns == 0;
    size_t cols = whole ? 1 : ns, cells = n * cols;
    out->n_ranks = n;
    out->n_steps = cols;
    out->labels = ml_calloc(cols, sizeof *out->labels);
    for (size_t k = 0; k < cols; k++) {
        char label[32];
        if (whole) snprintf(label, sizeof label, "(whole trace)");
        else snprintf(label, sizeof label, "%" PRId64, nums.v[k]);
        out->labels[k] = ml_strdup(label);
    }
    int64_t **m[4] = {&out->begin, &out->time, &out->peak, &out->comm};
    for (int j = 0; j < 4; j++) {
        *m[j] = ml_malloc((cells ? cells : 1) * sizeof **m[j]);
        for (size_t i = 0; i < cells; i++) (*m[j])[i] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        const ml_rankrec *r = v[i];
        for (size_t k = 0; k < r->steps.len; k++) {
            const ml_rr_step *s = &r->steps.v[k];
            int64_t num = ml_step_number(s->name);
            size_t col = 0;
            if (whole) {
                if (strcmp(s->name, "(whole trace)")) continue;
            } else {
                if (num < 0) continue;
                size_t lo = 0, hi = ns;
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (nums.v[mid] < num) lo = mid + 1;
                    else hi = mid;
                }
                col = lo;
            }
            size_t at = i * cols + col;
            out->begin[at] = s->begin_ns - origin;
            out->time[at] = s->end_ns - s->begin_ns;
            out->peak[at] = s->peak_bytes;
            out->comm[at] = s->comm_ns;
            out->any_comm |= s->comm_ns >= 0;
        }
    }
    VEC_FREE(&nums);
}

void ml_cluster_matrix_free(ml_cluster_matrix *m)
{
    for (size_t k = 0; k < m->n_steps; k++) free(m->labels[k]);
    free(m->labels);
    free(m->begin);
    free(m->time);
    free(m->peak);
    free(m->comm);
    memset(m, 0, sizeof *m);
}

void ml_cluster_view_json(ml_buf *out, ml_rankrec *const *v, size_t n, int64_t origin, const long *slot_of_unit,
                          size_t n_units)
{
    ml_cluster *c = ml_cluster_compute(v, n);
    ml_cluster_matrix m;
    ml_cluster_matrix_of(v, n, origin, &m);
    jw w;
    jw_init_buf(&w, out, false);
    jw_obj(&w);
    char num[24];
    snprintf(num, sizeof num, "%" PRId64, origin);
    jw_key(&w, "origin_ns"), jw_str(&w, num);
    jw_key(&w, "steps"), jw_arr(&w);
    for (size_t k = 0; k < m.n_steps; k++) jw_text(&w, m.labels[k]);
    jw_end(&w);
    jw_key(&w, "n_ranks"), jw_i64(&w, (int64_t)n);
    jw_key(&w, "n_steps"), jw_i64(&w, (int64_t)m.n_steps);
    jw_key(&w, "rank_no"), jw_arr(&w);
    for (size_t i = 0; i < n; i++) jw_i64(&w, v[i]->rank);
    jw_end(&w);
    jw_key(&w, "slots"), jw_arr(&w);
    for (size_t i = 0; i < n; i++) jw_i64(&w, v[i]->unit < n_units ? slot_of_unit[v[i]->unit] : -1L);
    jw_end(&w);
    size_t cells = n * m.n_steps;
    const char *keys[] = {"step_begin", "step_time", "step_peak", "step_comm"};
    const int64_t *cols[] = {m.begin, m.time, m.peak, m.any_comm ? m.comm : NULL};
    for (int k = 0; k < 4; k++) {
        jw_key(&w, keys[k]);
        if (!cols[k]) {
            jw_null(&w);
            continue;
        }
        jw_arr(&w);
        for (size_t i = 0; i < cells; i++) jw_i64(&w, cols[k][i]);
        jw_end(&w);
    }
    ml_cluster_json_members(&w, c);
    jw_end(&w);
    ml_cluster_matrix_free(&m);
    ml_cluster_free(c);
}
