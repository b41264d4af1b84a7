/* distributed.c — computation / communication per step and the collectives
 * table; see distributed.h.  Interval unions (ranges.h) are built once per
 * rank and each step is a binary search into them. */
#include "distributed.h"
#include "ranges.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef VEC(ml_dist_step) step_vec;
typedef VEC(ml_collective) coll_vec;

int ml_dtype_size(const char *d)
{
    static const struct {
        const char *name;
        int size;
    } sizes[] = {
        {"Byte", 1}, {"Char", 1}, {"Bool", 1}, {"QInt8", 1}, {"QUInt8", 1}, {"unsigned char", 1},
        {"Short", 2}, {"Half", 2}, {"BFloat16", 2}, {"c10::Half", 2}, {"c10::BFloat16", 2},
        {"Int", 4}, {"Float", 4}, {"ComplexHalf", 4}, {"QInt32", 4}, {"float", 4}, {"int", 4},
        {"Long", 8}, {"Double", 8}, {"ComplexFloat", 8}, {"long int", 8}, {"double", 8},
        {"signed char", 1}, {"bool", 1}, {"short", 2}, {"short int", 2}, {"long", 8}, {"c10::complex<float>", 8},
        {"c10::complex<double>", 16},
        {"ComplexDouble", 16},
    };
    if (!d) return 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        if (!strcmp(d, sizes[i].name)) return sizes[i].size;
    if (!strncmp(d, "Float8", 6)) return 1;
    return 0;
}

/* Whether s contains "nccl" in any case (strcasestr() costs ~2000 instructions a kernel name). */
static bool contains_nccl(const char *s)
{
    for (; (s = strpbrk(s, "nN")) != NULL; s++)
        if ((s[1] | 0x20) == 'c' && (s[2] | 0x20) == 'c' && (s[3] | 0x20) == 'l') return true;
    return false;
}

static bool is_collective_op(const char *name)
{
    return ml_op_is_collective(name) || !strcmp(name, "record_param_comms");
}

typedef struct coll_acc {  /* one (rank, name, group size) row being built */
    const char *name;
    int group_size;
    uint64_t calls;
    int64_t bytes;
    uint32_t last_op;      /* the op of the last call counted */
    ml_ranges kernels;
} coll_acc;

typedef VEC(coll_acc) coll_vec_acc;

static int64_t call_bytes(const ml_profile *p, const ml_comm_args *c)
{
    if (!c) return -1;
    int64_t n = c->in_nelems >= 0 ? c->in_nelems : c->out_nelems;
    int size = ml_dtype_size(c->dtype ? ml_s(p, c->dtype) : NULL);
    if (n < 0 || !size || n > INT64_MAX / 16) return -1;
    return n * size;
}

/* Bytes of a collective from its op's "Input Dims" and "Input type" (the
 * plugin's way): each input's element count times its type's size; inputs
 * of other types (TensorList, Scalar, "") count 0.  -1 if it has neither. */
static int64_t dims_bytes(const char *dims, const char *types)
{
    if (!dims || !types || dims[0] != '[' || types[0] != '[') return -1;
    const char *d = dims + 1, *t = types + 1;
    int64_t total = 0;
    bool any = false;
    for (;;) {
        while (*d == ' ' || *d == ',') d++;
        if (*d != '[') break;
        d++;
        int64_t count = 1;
        while (*d && *d != ']') { /* numbers of one shape */
            if (*d >= '0' && *d <= '9') {
                int64_t v = 0;
                while (*d >= '0' && *d <= '9') v = v < INT64_MAX / 10 ? v * 10 + (*d++ - '0') : (d++, v);
                count = v && count > INT64_MAX / v ? INT64_MAX : count * v;
            } else d++;
        }
        if (*d == ']') d++;
        /* the matching type: the next string of the types list */
        while (*t && *t != '"' && *t != ']') t++;
        char type[64] = "";
        if (*t == '"') {
            const char *e = strchr(t + 1, '"');
            if (!e) break;
            size_t n = (size_t)(e - t - 1) < sizeof type - 1 ? (size_t)(e - t - 1) : sizeof type - 1;
            memcpy(type, t + 1, n);
            type[n] = 0;
            t = e + 1;
        }
        int size = ml_dtype_size(type);
        if (size && count <= INT64_MAX / 16) total += count * size, any = true;
    }
    return any ? total : -1;
}

static int by_total_desc(const void *a, const void *b)
{
    const ml_collective *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->group_size > y->group_size) - (x->group_size < y->group_size);
}

static int by_begin(const void *a, const void *b)
{
    const ml_dist_step *x = a, *y = b;
    return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

/* Counts one kernel (or host span) sp of collective cname: a new call when
 * its op differs from the row's last (one call launches several kernels). */
static void coll_count(const ml_profile *p, coll_vec_acc *acc, const char *cname, int gsize, uint32_t op,
                       const ml_comm_args *cargs, ml_range sp)
{
    const ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    coll_acc *a = NULL;
    for (size_t k = 0; k < acc->len && !a; k++)
        if (!strcmp(acc->v[k].name, cname) && acc->v[k].group_size == gsize) a = &acc->v[k];
    if (!a) {
        coll_acc z = {cname, gsize, 0, -1, ML_NONE32, {0}};
        VEC_PUSH(acc, z);
        a = &acc->v[acc->len - 1];
    }
    if (op == ML_NONE32 || op != a->last_op) { /* a new call */
        a->calls++;
        a->last_op = op;
        int64_t b = call_bytes(p, cargs);
        uint32_t oi = op != ML_NONE32 ? s->info.v[op] : ML_NONE32;
        if (b < 0 && oi != ML_NONE32 && oi < t->op_info.len)
            b = dims_bytes(t->op_info.v[oi].input_dims ? ml_s(p, t->op_info.v[oi].input_dims) : NULL,
                           t->op_info.v[oi].input_types ? ml_s(p, t->op_info.v[oi].input_types) : NULL);
        if (b >= 0) a->bytes = (a->bytes < 0 ? 0 : a->bytes) + b;
    }
    VEC_PUSH(&a->kernels, sp);
}

/* One rank: its steps and collectives, appended to d.  Returns whether it has
 * any communication. */
static bool one_rank(const ml_profile *p, int rank, step_vec *steps, coll_vec *colls, double *comp_per_step)
{
    const ml_trace *t = p->trace;
    const ml_slices *s = &t->slices;
    size_t n = s->ts.len;
    ml_ranges comp = {0}, comm = {0}, both = {0};
    coll_vec_acc acc = {0};
    bool any_kernel = false;
    for (size_t i = n; i-- > 0 && !any_kernel;) any_kernel = s->kind.v[i] == ML_SL_KERNEL; /* (streams' slices last) */
    /* A job with one process group (distributedInfo pg_count 1): every
     * collective is the world's, of world_size ranks, where its own args
     * do not say (gloo's spans never do; PyTorch 2.x CPU traces have no
     * record_param_comms). */
    int one_group = t->pg_count == 1 && p->world_size > 0 ? p->world_size : -1;
    /* Whether each kernel name is NCCL's, found once a name: 0 not yet known, 1 no, 2 yes
     * (a trace runs a few thousand kernels a few hundred thousand times). */
    size_t nstr = ml_strpool_count(p->strings);
    uint8_t *nccl_name = any_kernel ? ml_calloc(nstr ? nstr : 1, 1) : NULL;
    if (any_kernel) VEC_RESERVE(&comp, t->kernel_info.len); /* (a kernel_info row per kernel: room at once) */
    /* (with kernels, only the rows of the tracks with device work) */
    ml_row_range all = {0, (uint32_t)n};
    size_t nr = 1;
    const ml_row_range *rows = any_kernel ? ml_trace_device_rows(t, &nr) : &all;
    ML_FOR_ROWS_IN (rows, nr, i) {
        uint8_t kind = s->kind.v[i];
        if (any_kernel && kind != ML_SL_KERNEL) continue;
        ml_range sp = {s->ts.v[i], ml_add_sat(s->ts.v[i], ml_slice_dur(s, i))};
        const char *name = ml_s(p, s->name.v[i]);
        if (!any_kernel) {
            if (kind != ML_SL_CPU_OP && kind != ML_SL_USER_ANNOTATION) continue;
            if (is_collective_op(name)) VEC_PUSH(&comm, sp);
            else if (kind == ML_SL_CPU_OP) VEC_PUSH(&comp, sp);
            /* No device: the backend's own span (gloo:all_reduce, on its worker
             * thread, with the tensors' Input Dims / Input type) is the call. */
            if (ml_op_is_backend_call(name))
                coll_count(p, &acc, name, one_group, (uint32_t)i, NULL, sp);
            continue;
        }
        ml_str nm = s->name.v[i];
        uint8_t *known = nm < nstr ? &nccl_name[nm] : NULL;
        if (known && !*known) *known = contains_nccl(name) ? 2 : 1;
        if (known ? *known == 1 : !contains_nccl(name)) {
            VEC_PUSH(&comp, sp);
            continue;
        }
        VEC_PUSH(&comm, sp);
        /* the collective op its launch sits in */
        const ml_comm_args *cargs = NULL;
        uint32_t info = s->info.v[i];
        if (info != ML_NONE32 && info < t->kernel_info.len) {
            const ml_comm_args *c = ml_kernel_comm(t, &t->kernel_info.v[info]);
            if (c->collective || c->in_nelems >= 0 || c->out_nelems >= 0) cargs = c;
        }
        uint32_t op = ML_NONE32, c10d = ML_NONE32;
        for (uint32_t q = s->launcher.v[i]; q != ML_NONE32; q = s->parent.v[q]) {
            const char *qn = ml_s(p, s->name.v[q]);
            if (op == ML_NONE32 && ml_op_is_backend_call(qn)) op = q;
            if (c10d == ML_NONE32 && ml_op_is_c10d(qn)) c10d = q;
            uint32_t qi = s->info.v[q];
            if (!cargs && !strcmp(qn, "record_param_comms") && qi != ML_NONE32 && qi < t->op_info.len)
                cargs = ml_op_comm(t, &t->op_info.v[qi]);
        }
        if (op == ML_NONE32) op = c10d;
        const char *cname = op != ML_NONE32 ? ml_s(p, s->name.v[op])
                          : cargs && cargs->collective ? ml_s(p, cargs->collective) : name;
        int gsize = cargs && cargs->group_size > 0 ? cargs->group_size : one_group;
        coll_count(p, &acc, cname, gsize, op, cargs, sp);
    }
    free(nccl_name);
    bool any_comm = comm.len > 0; /* before the merge drops empty intervals */
    ml_ranges_merge(&comp);
    ml_ranges_merge(&comm);
    ml_ranges_intersect(&comp, &comm, &both);

    /* steps */
    size_t first_step = steps->len;
    for (size_t i = 0; i < n; i++) {
        if (s->kind.v[i] != ML_SL_PROFILER_STEP) continue;
        ml_dist_step st = {rank, ml_s(p, s->name.v[i]), s->ts.v[i], ml_add_sat(s->ts.v[i], ml_slice_dur(s, i)), 0, 0, 0, 0};
        VEC_PUSH(steps, st);
    }
    if (steps->len == first_step) {
        ml_dist_step st = {rank, "(whole trace)", t->span_begin, t->span_end, 0, 0, 0, 0};
        VEC_PUSH(steps, st);
    }
    if (steps->len > first_step) qsort(steps->v + first_step, steps->len - first_step, sizeof *steps->v, by_begin);
    int64_t comp_sum = 0;
    for (size_t k = first_step; k < steps->len; k++) {
        ml_dist_step *st = &steps->v[k];
        st->computation_ns = ml_ranges_sum_within(&comp, st->begin_ns, st->end_ns);
        st->communication_ns = ml_ranges_sum_within(&comm, st->begin_ns, st->end_ns);
        st->overlap_ns = ml_ranges_sum_within(&both, st->begin_ns, st->end_ns);
        st->other_ns = (st->end_ns - st->begin_ns) + st->overlap_ns - st->computation_ns - st->communication_ns;
        comp_sum += st->computation_ns;
    }
    *comp_per_step = steps->len > first_step ? (double)comp_sum / (double)(steps->len - first_step) : 0;

    /* collectives */
    size_t first_coll = colls->len;
    for (size_t k = 0; k < acc.len; k++) {
        coll_acc *a = &acc.v[k];
        ml_ranges_merge(&a->kernels);
        int64_t total = ml_ranges_sum(&a->kernels);
        ml_collective c = {rank, a->name, a->group_size, a->calls, a->bytes, total, a->calls ? total / (int64_t)a->calls : 0};
        VEC_PUSH(colls, c);
        VEC_FREE(&a->kernels);
    }
    if (colls->len > first_coll)
        qsort(colls->v + first_coll, colls->len - first_coll, sizeof *colls->v, by_total_desc);
    VEC_FREE(&acc);
    VEC_FREE(&comp);
    VEC_FREE(&comm);
    VEC_FREE(&both);
    return any_comm;
}

bool ml_distributed_part(const ml_profile *p, int rank, bool stragglers, ml_dist_part *out)
{
    memset(out, 0, sizeof *out);
    out->rank = rank;
    out->world_size = p->world_size;
    if (!p->trace) return false;
    out->backend = p->trace->backend ? ml_s(p, p->trace->backend) : NULL;
    step_vec steps = {0};
    coll_vec colls = {0};
    out->any_comm = one_rank(p, rank, &steps, &colls, &out->comp_per_step);
    out->steps = steps.v;
    out->n_steps = steps.len;
    out->collectives = colls.v;
    out->n_collectives = colls.len;
    if (stragglers) ml_straggler_record_of(p, rank, &out->stragglers);
    return true;
}

void ml_dist_part_free(ml_dist_part *part)
{
    free(part->steps);
    free(part->collectives);
    ml_straggler_record_free(&part->stragglers);
    memset(part, 0, sizeof *part);
}

ml_distributed *ml_distributed_join(const ml_dist_part *parts, size_t n, size_t n_given)
{
    ml_distributed *d = ml_calloc(1, sizeof *d);
    bool distributed = false;
    double most = -1;
    size_t n_steps = 0, n_colls = 0;
    d->slowest_rank = -1;
    for (size_t r = 0; r < n; r++) {
        const ml_dist_part *x = &parts[r];
        if (x->world_size > d->world_size) d->world_size = x->world_size;
        if (!d->backend && x->backend) d->backend = x->backend;
        if (x->any_comm) distributed = true;
        if (x->comp_per_step > most) most = x->comp_per_step, d->slowest_rank = x->rank;
        n_steps += x->n_steps;
        n_colls += x->n_collectives;
    }
    distributed |= d->world_size > 1;
    if (!n || !distributed) {
        free(d);
        return NULL;
    }
    if (d->world_size <= 0) d->world_size = (int)n_given;
    d->steps = ml_malloc((n_steps ? n_steps : 1) * sizeof *d->steps);
    d->collectives = ml_malloc((n_colls ? n_colls : 1) * sizeof *d->collectives);
    for (size_t r = 0; r < n; r++) {
        /* (a rank with none may have NULL there: memcpy may not be given it, even for 0 bytes) */
        if (parts[r].n_steps) memcpy(d->steps + d->n_steps, parts[r].steps, parts[r].n_steps * sizeof *d->steps);
        d->n_steps += parts[r].n_steps;
        if (parts[r].n_collectives)
            memcpy(d->collectives + d->n_collectives, parts[r].collectives, parts[r].n_collectives * sizeof *d->collectives);
        d->n_collectives += parts[r].n_collectives;
    }
    /* the stragglers, from each rank's record of its communication kernels */
    ml_straggler_record *recs = ml_malloc(n * sizeof *recs);
    for (size_t r = 0; r < n; r++) recs[r] = parts[r].stragglers;
    d->stragglers = ml_stragglers_find(recs, n, ML_STRAGGLER_CANDIDATES, &d->stragglers_why);
    free(recs);
    return d;
}

ml_distributed *ml_distributed_compute(ml_profile *const *ranks, size_t n)
{
    ml_dist_part *parts = ml_calloc(n ? n : 1, sizeof *parts);
    size_t k = 0;
    for (size_t r = 0; r < n; r++) {
        const ml_profile *p = ranks[r];
        if (ml_distributed_part(p, p->rank >= 0 ? p->rank : (int)r, n > 1, &parts[k])) k++;
    }
    ml_distributed *d = ml_distributed_join(parts, k, n);
    for (size_t i = 0; i < k; i++) ml_dist_part_free(&parts[i]);
    free(parts);
    return d;
}

void ml_distributed_free(ml_distributed *d)
{
    if (!d) return;
    free(d->steps);
    free(d->collectives);
    ml_stragglers_free(d->stragglers);
    free(d);
}
