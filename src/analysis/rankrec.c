/*
 * rankrec.c — a rank's record from its profile, the rank order, and records
 * as bytes; see rankrec.h.
 */
#include "rankrec.h"

#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "devkind.h"
#include "perfdata.h"

/* ---- from a profile ------------------------------------------------------ */

static char *dup_or_null(const char *s) { return s ? ml_strdup(s) : NULL; }

int64_t ml_step_number(const char *name)
{
    static const char prefix[] = "ProfilerStep#";
    if (!name || strncmp(name, prefix, sizeof prefix - 1)) return -1;
    const char *d = name + sizeof prefix - 1;
    if (!*d) return -1;
    int64_t v = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9' || v > INT64_MAX / 10 - 9) return -1;
        v = v * 10 + (*d - '0');
    }
    return v;
}

/* The peaks of each accelerator device (the cross-rank table's rows), and
 * the main device: the one with the highest allocated peak. */
static void devices(const ml_profile *p, ml_peak_memo *memo, ml_rankrec *r)
{
    int main = -1;
    bool main_accel = false;
    int64_t best = -1;
    for (size_t d = 0; d < p->devices.len; d++) {
        const ml_device *dev = &p->devices.v[d];
        ml_peak pk;
        int64_t span[2];
        bool replayed;
        if (!ml_curve_find_peak_memo(memo, p, (int)d, ML_SERIES_ALLOCATED, &pk, span, &replayed) || !pk.found) continue;
        ml_rr_device row = {.peak_allocated = pk.value, .peak_time = pk.at.ts, .peak_reserved = -1,
                            .time_is_absolute = p->time_is_absolute};
        snprintf(row.id, sizeof row.id, "%s", dev->id);
        ml_peak rk;
        if (ml_curve_find_peak_memo(memo, p, (int)d, ML_SERIES_RESERVED, &rk, span, &replayed) && rk.found)
            row.peak_reserved = rk.value;
        bool accel = dev->kind != ML_DEV_CPU;
        if (accel) VEC_PUSH(&r->devices, row);
        /* an accelerator before cpu, then the highest peak (the first of equals) */
        if (main < 0 || (accel && !main_accel) || (accel == main_accel && pk.value > best)) {
            main = (int)d;
            main_accel = accel;
            best = pk.value;
            r->peak_allocated = row.peak_allocated;
            r->peak_reserved = row.peak_reserved;
        }
    }
    if (main >= 0) {
        const ml_device *dev = &p->devices.v[main];
        snprintf(r->main_device, sizeof r->main_device, "%s", dev->id);
        r->main_index = dev->index;
        r->total_memory = dev->total_memory > 0 ? dev->total_memory : -1;
    }
    for (size_t i = 0; i < p->events.kind.len; i++) r->oom_events += p->events.kind.v[i] == ML_EV_OOM;
}

/* Index of the last curve point at or before t (SIZE_MAX if none). */
static size_t point_at(const ml_curve *c, int64_t t)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (c->ts[m] <= t) lo = m + 1;
        else hi = m;
    }
    return lo ? lo - 1 : SIZE_MAX;
}

/* Each step's peak of the main device's allocated curve, and its level at
 * the step's end. */
static void step_memory(const ml_profile *p, ml_rankrec *r)
{
    int d = r->main_device[0] ? ml_device_find(p, r->main_device) : -1;
    ml_curve c;
    if (d < 0 || !r->steps.len || !ml_curve_get(p, d, ML_SERIES_ALLOCATED, &c)) return;
    for (size_t k = 0; k < r->steps.len && c.n; k++) {
        ml_rr_step *s = &r->steps.v[k];
        size_t at = point_at(&c, s->begin_ns);
        int64_t peak = at == SIZE_MAX ? -1 : c.value[at];
        for (size_t i = at == SIZE_MAX ? 0 : at + 1; i < c.n && c.ts[i] < s->end_ns; i++)
            if (c.value[i] > peak) peak = c.value[i];
        size_t last = point_at(&c, s->end_ns);
        s->peak_bytes = peak;
        s->end_bytes = last == SIZE_MAX ? -1 : c.value[last];
    }
    ml_curve_free(&c);
}

static int by_begin(const void *a, const void *b)
{
    const ml_rr_step *x = a, *y = b;
    return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

/* Steps without the time side: the ProfilerStep#N annotations. */
static void annotated_steps(const ml_profile *p, ml_rankrec *r)
{
    for (size_t i = 0; i < p->ops.ts.len; i++) {
        if (p->ops.kind.v[i] != ML_OP_ANNOTATION) continue;
        const char *name = ml_s(p, p->ops.name.v[i]);
        if (ml_step_number(name) < 0) continue;
        ml_rr_step s = {ml_strdup(name), p->ops.ts.v[i], ml_add_sat(p->ops.ts.v[i], p->ops.dur.v[i]), -1, -1, -1, -1, -1, -1};
        VEC_PUSH(&r->steps, s);
    }
    if (r->steps.len > 1) qsort(r->steps.v, r->steps.len, sizeof *r->steps.v, by_begin);
}

/* A copy of a straggler record; own: its kernel names copied too (else
 * shared with from). */
static void strag_copy(ml_straggler_record *to, const ml_straggler_record *from, bool own)
{
    *to = *from;
    to->steps = ml_malloc((from->n_steps ? from->n_steps : 1) * sizeof *to->steps);
    if (from->n_steps) memcpy(to->steps, from->steps, from->n_steps * sizeof *to->steps);
    to->kernels = ml_malloc((from->n_kernels ? from->n_kernels : 1) * sizeof *to->kernels);
    for (size_t i = 0; i < from->n_kernels; i++) {
        to->kernels[i] = from->kernels[i];
        if (own) to->kernels[i].name = ml_strdup(from->kernels[i].name ? from->kernels[i].name : "");
    }
}

static void strag_free_owned(ml_straggler_record *r)
{
    for (size_t i = 0; i < r->n_kernels; i++) free((char *)r->kernels[i].name);
    ml_straggler_record_free(r);
}

ml_rankrec *ml_rankrec_of(const ml_profile *p, ml_peak_memo *memo, const ml_rankrec_wants *w, size_t unit, size_t k,
                          int64_t bytes)
{
    ml_rankrec *r = ml_calloc(1, sizeof *r);
    r->unit = unit;
    r->unit_k = k;
    r->rank = p->rank;
    r->world_size = p->world_size;
    r->path = ml_strdup(p->path);
    r->format = ml_strdup(p->format);
    r->caps = p->caps;
    r->caps.devkind = (int8_t)ml_devkind_of_profile(p);
    r->host = p->host ? ml_strdup(ml_s(p, p->host)) : NULL;
    r->input_bytes = bytes;
    r->first_time_ns = ml_profile_first_time(p);
    r->time_is_absolute = p->time_is_absolute;
    r->main_index = -1;
    r->peak_allocated = r->peak_reserved = r->total_memory = -1;
    for (int i = 0; i < ML_RR_MARKS; i++) r->mark[i] = -1;
    devices(p, memo, r);
    const char *why = ml_perf_unavailable(p);
    r->perf_why = dup_or_null(why);
    ml_dist_part part;
    if (ml_distributed_part(p, p->rank, !w || !w->no_stragglers, &part)) {
        r->has_time = true;
        r->any_comm = part.any_comm;
        r->comp_per_step = part.comp_per_step;
        r->backend = dup_or_null(part.backend);
        for (size_t i = 0; i < part.n_steps; i++) {
            const ml_dist_step *d = &part.steps[i];
            ml_rr_step s = {ml_strdup(d->step ? d->step : ""), d->begin_ns, d->end_ns, -1, -1,
                            d->computation_ns, d->communication_ns, d->overlap_ns, d->other_ns};
            VEC_PUSH(&r->steps, s);
        }
        for (size_t i = 0; i < part.n_collectives; i++) {
            const ml_collective *c = &part.collectives[i];
            ml_rr_coll x = {ml_strdup(c->name ? c->name : ""), c->calls, c->bytes, c->total_ns, c->mean_ns, c->group_size};
            VEC_PUSH(&r->colls, x);
        }
        strag_copy(&r->strag, &part.stragglers, true);
        ml_dist_part_free(&part);
    } else {
        annotated_steps(p, r);
    }
    step_memory(p, r);
    return r;
}

void ml_rankrec_free(ml_rankrec *r)
{
    if (!r) return;
    free(r->path);
    free(r->format);
    free(r->host);
    free(r->backend);
    free(r->perf_why);
    for (size_t i = 0; i < r->steps.len; i++) free(r->steps.v[i].name);
    for (size_t i = 0; i < r->colls.len; i++) free(r->colls.v[i].name);
    VEC_FREE(&r->steps);
    VEC_FREE(&r->colls);
    VEC_FREE(&r->devices);
    strag_free_owned(&r->strag);
    free(r);
}

/* ---- order --------------------------------------------------------------- */

int ml_rankrec_cmp(const ml_rankrec *x, const ml_rankrec *y)
{
    if ((x->rank < 0) != (y->rank < 0)) return x->rank < 0 ? 1 : -1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    int c = strcmp(x->path, y->path);
    if (c) return c;
    if (x->unit != y->unit) return x->unit < y->unit ? -1 : 1;
    return x->unit_k < y->unit_k ? -1 : x->unit_k > y->unit_k;
}

static int cmp_ptr(const void *a, const void *b)
{
    return ml_rankrec_cmp(*(ml_rankrec *const *)a, *(ml_rankrec *const *)b);
}

void ml_rankrecs_sort(ml_rankrec **v, size_t n)
{
    if (n > 1) qsort(v, n, sizeof *v, cmp_ptr);
}

/* ---- the distributed view ------------------------------------------------ */

void ml_rankrec_dist_part(const ml_rankrec *r, int rank, ml_dist_part *out)
{
    memset(out, 0, sizeof *out);
    out->rank = rank;
    out->world_size = r->world_size;
    out->backend = r->backend;
    out->any_comm = r->any_comm;
    out->comp_per_step = r->comp_per_step;
    out->n_steps = r->steps.len;
    out->steps = ml_malloc((r->steps.len ? r->steps.len : 1) * sizeof *out->steps);
    for (size_t i = 0; i < r->steps.len; i++) {
        const ml_rr_step *s = &r->steps.v[i];
        out->steps[i] = (ml_dist_step){rank, s->name, s->begin_ns, s->end_ns, s->comp_ns, s->comm_ns,
                                       s->overlap_ns, s->other_ns};
    }
    out->n_collectives = r->colls.len;
    out->collectives = ml_malloc((r->colls.len ? r->colls.len : 1) * sizeof *out->collectives);
    for (size_t i = 0; i < r->colls.len; i++) {
        const ml_rr_coll *c = &r->colls.v[i];
        out->collectives[i] = (ml_collective){rank, c->name, c->group_size, c->calls, c->bytes, c->total_ns, c->mean_ns};
    }
    strag_copy(&out->stragglers, &r->strag, false); /* its names stay the record's */
    out->stragglers.rank = rank;
}

ml_distributed *ml_rankrec_distributed(ml_rankrec *const *v, size_t n)
{
    ml_dist_part *parts = ml_calloc(n ? n : 1, sizeof *parts);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i]->has_time) ml_rankrec_dist_part(v[i], v[i]->rank >= 0 ? v[i]->rank : (int)i, &parts[k++]);
    ml_distributed *d = ml_distributed_join(parts, k, n);
    for (size_t i = 0; i < k; i++) ml_dist_part_free(&parts[i]);
    free(parts);
    return d;
}

void ml_rankrec_dist_free(ml_distributed *d) { ml_distributed_free(d); }

/* ---- as bytes ------------------------------------------------------------ */


#define RR_MAGIC 0x31524b4e414b524dLL /* "MRKANKR1" */

void ml_rankrec_pack(const ml_rankrec *r, ml_spool *s, ml_bytes *out)
{
    ml_bytes_put_i64(out, RR_MAGIC);
    ml_bytes_put_i64(out, (int64_t)r->unit);
    ml_bytes_put_i64(out, (int64_t)r->unit_k);
    ml_bytes_put_i64(out, r->rank);
    ml_bytes_put_i64(out, r->world_size);
    ml_bytes_put_str(out, r->path);
    ml_bytes_put_str(out, r->format);
    ml_bytes_put(out, &r->caps, sizeof r->caps);
    ml_bytes_put_str(out, r->host);
    ml_bytes_put_str(out, r->backend);
    ml_bytes_put_str(out, r->perf_why);
    ml_bytes_put_i64(out, r->input_bytes);
    ml_bytes_put_i64(out, r->first_time_ns);
    ml_bytes_put_i64(out, r->time_is_absolute);
    ml_bytes_put_i64(out, (int64_t)r->devices.len);
    ml_bytes_put(out, r->devices.v, r->devices.len * sizeof *r->devices.v);
    ml_bytes_put(out, r->main_device, sizeof r->main_device);
    ml_bytes_put_i64(out, r->main_index);
    ml_bytes_put_i64(out, r->peak_allocated);
    ml_bytes_put_i64(out, r->peak_reserved);
    ml_bytes_put_i64(out, r->total_memory);
    ml_bytes_put_i64(out, r->oom_events);
    ml_bytes_put_i64(out, r->has_time);
    ml_bytes_put_i64(out, r->any_comm);
    ml_bytes_put(out, &r->comp_per_step, sizeof r->comp_per_step);
    ml_bytes_put_i64(out, (int64_t)r->steps.len);
    for (size_t i = 0; i < r->steps.len; i++) {
        const ml_rr_step *st = &r->steps.v[i];
        ml_bytes_put_str(out, st->name);
        int64_t v[8] = {st->begin_ns, st->end_ns, st->peak_bytes, st->end_bytes,
                        st->comp_ns, st->comm_ns, st->overlap_ns, st->other_ns};
        ml_bytes_put(out, v, sizeof v);
    }
    ml_bytes_put_i64(out, (int64_t)r->colls.len);
    for (size_t i = 0; i < r->colls.len; i++) {
        const ml_rr_coll *c = &r->colls.v[i];
        ml_bytes_put_str(out, c->name);
        int64_t v[5] = {(int64_t)c->calls, c->bytes, c->total_ns, c->mean_ns, c->group_size};
        ml_bytes_put(out, v, sizeof v);
    }
    const ml_straggler_record *sg = &r->strag;
    int64_t sv[4] = {sg->rank, (int64_t)sg->n_steps, sg->first, sg->last};
    ml_bytes_put(out, sv, sizeof sv);
    ml_bytes_put(out, sg->steps, sg->n_steps * sizeof *sg->steps);
    ml_bytes_put_i64(out, (int64_t)sg->n_kernels);
    for (size_t i = 0; i < sg->n_kernels; i++) {
        const ml_straggler_kernel *x = &sg->kernels[i];
        int64_t v[4] = {x->step, x->stream, x->ts, x->dur};
        ml_bytes_put(out, v, sizeof v);
        ml_bytes_put_str(out, x->name);
    }
    ml_bytes_put(out, r->mark, sizeof r->mark);
    ml_bytes_put_i64(out, r->flags);
    for (int k = 0; k < ML_RR_PIECES; k++) {
        ml_bytes_put_i64(out, (int64_t)r->piece[k].len);
        if (!r->piece[k].len) continue;
        char *bytes = ml_spool_get(s, r->piece[k]);
        ml_bytes_put(out, bytes, (size_t)r->piece[k].len);
        free(bytes);
    }
}

size_t ml_rankrec_unpack(const char *p, size_t n, ml_spool *s, ml_rankrec **out)
{
    ml_bytes_reader d = {p, n, 0, false};
    *out = NULL;
    if (ml_bytes_get_i64(&d) != RR_MAGIC) return 0;
    ml_rankrec *r = ml_calloc(1, sizeof *r);
    r->unit = (size_t)ml_bytes_get_i64(&d);
    r->unit_k = (size_t)ml_bytes_get_i64(&d);
    r->rank = (int)ml_bytes_get_i64(&d);
    r->world_size = (int)ml_bytes_get_i64(&d);
    r->path = ml_bytes_get_str(&d);
    r->format = ml_bytes_get_str(&d);
    const void *caps = ml_bytes_take(&d, sizeof r->caps);
    if (caps) memcpy(&r->caps, caps, sizeof r->caps);
    r->host = ml_bytes_get_str(&d);
    r->backend = ml_bytes_get_str(&d);
    r->perf_why = ml_bytes_get_str(&d);
    r->input_bytes = ml_bytes_get_i64(&d);
    r->first_time_ns = ml_bytes_get_i64(&d);
    r->time_is_absolute = ml_bytes_get_i64(&d) != 0;
    int64_t nd = ml_bytes_get_i64(&d);
    const void *dv = nd >= 0 && (uint64_t)nd < n ? ml_bytes_take(&d, (size_t)nd * sizeof(ml_rr_device)) : NULL;
    if (dv && nd) {
        VEC_RESERVE(&r->devices, (size_t)nd);
        memcpy(r->devices.v, dv, (size_t)nd * sizeof(ml_rr_device));
        r->devices.len = (size_t)nd;
    }
    const void *md = ml_bytes_take(&d, sizeof r->main_device);
    if (md) memcpy(r->main_device, md, sizeof r->main_device);
    r->main_device[sizeof r->main_device - 1] = 0;
    r->main_index = (int)ml_bytes_get_i64(&d);
    r->peak_allocated = ml_bytes_get_i64(&d);
    r->peak_reserved = ml_bytes_get_i64(&d);
    r->total_memory = ml_bytes_get_i64(&d);
    r->oom_events = ml_bytes_get_i64(&d);
    r->has_time = ml_bytes_get_i64(&d) != 0;
    r->any_comm = ml_bytes_get_i64(&d) != 0;
    const void *cp = ml_bytes_take(&d, sizeof r->comp_per_step);
    if (cp) memcpy(&r->comp_per_step, cp, sizeof r->comp_per_step);
    int64_t ns = ml_bytes_get_i64(&d);
    for (int64_t i = 0; i < ns && !d.bad; i++) {
        ml_rr_step st = {0};
        st.name = ml_bytes_get_str(&d);
        const int64_t *v = ml_bytes_take(&d, 8 * sizeof(int64_t));
        if (!v || !st.name) {
            free(st.name);
            d.bad = true;
            break;
        }
        int64_t w[8];
        memcpy(w, v, sizeof w);
        st.begin_ns = w[0], st.end_ns = w[1], st.peak_bytes = w[2], st.end_bytes = w[3];
        st.comp_ns = w[4], st.comm_ns = w[5], st.overlap_ns = w[6], st.other_ns = w[7];
        VEC_PUSH(&r->steps, st);
    }
    int64_t nc = ml_bytes_get_i64(&d);
    for (int64_t i = 0; i < nc && !d.bad; i++) {
        ml_rr_coll c = {0};
        c.name = ml_bytes_get_str(&d);
        const int64_t *v = ml_bytes_take(&d, 5 * sizeof(int64_t));
        if (!v || !c.name) {
            free(c.name);
            d.bad = true;
            break;
        }
        int64_t w[5];
        memcpy(w, v, sizeof w);
        c.calls = (uint64_t)w[0], c.bytes = w[1], c.total_ns = w[2], c.mean_ns = w[3];
        c.group_size = w[4] > 0 && w[4] <= INT32_MAX ? (int)w[4] : -1;
        VEC_PUSH(&r->colls, c);
    }
    ml_straggler_record *sg = &r->strag;
    const int64_t *sv = ml_bytes_take(&d, 4 * sizeof(int64_t));
    if (sv) {
        int64_t w[4];
        memcpy(w, sv, sizeof w);
        sg->rank = (int)w[0];
        sg->first = w[2];
        sg->last = w[3];
        const void *st = w[1] >= 0 && (uint64_t)w[1] < n ? ml_bytes_take(&d, (size_t)w[1] * sizeof *sg->steps) : NULL;
        if (st && w[1]) {
            sg->steps = ml_malloc((size_t)w[1] * sizeof *sg->steps);
            memcpy(sg->steps, st, (size_t)w[1] * sizeof *sg->steps);
            sg->n_steps = (size_t)w[1];
        } else if (w[1]) d.bad = true;
    }
    int64_t nk = ml_bytes_get_i64(&d);
    if (nk < 0 || (uint64_t)nk > n) d.bad = true;
    VEC(ml_straggler_kernel) ks = {0};
    for (int64_t i = 0; i < nk && !d.bad; i++) {
        const int64_t *v = ml_bytes_take(&d, 4 * sizeof(int64_t));
        char *name = v ? ml_bytes_get_str(&d) : NULL;
        if (!v || !name) {
            free(name);
            d.bad = true;
            break;
        }
        int64_t w[4];
        memcpy(w, v, sizeof w);
        ml_straggler_kernel x = {w[0], w[1], w[2], w[3], name};
        VEC_PUSH(&ks, x);
    }
    sg->kernels = ks.v;
    sg->n_kernels = ks.len;
    const void *mk = ml_bytes_take(&d, sizeof r->mark);
    if (mk) memcpy(r->mark, mk, sizeof r->mark);
    r->flags = (uint32_t)ml_bytes_get_i64(&d);
    for (int k = 0; k < ML_RR_PIECES && !d.bad; k++) {
        int64_t len = ml_bytes_get_i64(&d);
        if (len < 0) d.bad = true;
        const void *bytes = len > 0 ? ml_bytes_take(&d, (size_t)len) : NULL;
        if (len > 0 && bytes) r->piece[k] = ml_spool_put(s, bytes, (size_t)len);
    }
    if (d.bad || !r->path || !r->format) {
        ml_rankrec_free(r);
        return 0;
    }
    *out = r;
    return d.at;
}
