/* The profiler views (steps, GPU metrics, operator tree, operator and kernel
 * tables, recommendations) on hand-built trace stores whose answers are
 * worked out by hand in the comments, in µs (the store holds ns). */
#include "check.h"
#include "durhist.h"
#include "perf.h"
#include "perf_fields.h"
#include "perfdata.h"
#include "ranges.h"

#define US 1000

typedef struct fix {
    ml_profile *p;
    ml_trace *t;
    uint32_t thread, stream;
} fix;

static fix fix_new(void)
{
    fix f;
    f.p = ml_profile_new("t.json", "kineto");
    f.t = f.p->trace = ml_trace_new();
    f.thread = ml_track_get(f.t, f.p->strings, "100", 3, "100", 3);
    f.stream = ml_track_get(f.t, f.p->strings, "0", 1, "stream 7", 8);
    uint16_t d = ml_device_get(f.p, ML_DEV_CUDA, 0);
    ml_device *dev = &f.p->devices.v[d];
    dev->name = ml_intern_cstr(f.p->strings, "Toy GPU");
    dev->total_memory = 16000000000;
    dev->cc_major = 8, dev->cc_minor = 0, dev->num_sms = 10;
    ml_track_set_stream(f.t, f.stream, d, 7);
    return f;
}

static void host(fix *f, uint8_t kind, const char *name, double ts, double dur, int64_t ext, const char *dims)
{
    ml_op_info_row oi = {.seq = -1, .fwd_thread = -1, .python_module = -1};
    if (dims) oi.input_dims = ml_intern_cstr(f->p->strings, dims);
    ml_slice_row r = {.ts = (int64_t)(ts * US), .dur = (int64_t)(dur * US), .corr = -1, .ext_id = ext,
                      .name = ml_intern_cstr(f->p->strings, name), .track = f->thread, .kind = kind,
                      .info = ml_op_info_push(f->t, &oi)};
    ml_slice_push(f->t, &r);
}

static void runtime(fix *f, double ts, double dur, int64_t corr, int64_t ext)
{
    ml_slice_row r = {.ts = (int64_t)(ts * US), .dur = (int64_t)(dur * US), .corr = corr, .ext_id = ext,
                      .name = ml_intern_cstr(f->p->strings, "cudaLaunchKernel"), .track = f->thread,
                      .kind = ML_SL_RUNTIME, .info = ML_NONE32};
    ml_slice_push(f->t, &r);
}

static void gpu(fix *f, uint8_t kind, const char *name, double ts, double dur, int64_t corr, float bps, float occ)
{
    ml_kernel_info ki = {.device = 0, .stream = 7, .grid = {1, 1, 1}, .block = {1, 1, 1}, .registers = -1,
                         .shared_memory = -1, .blocks_per_sm = bps, .occupancy = occ, .bytes = -1};
    ml_slice_row r = {.ts = (int64_t)(ts * US), .dur = (int64_t)(dur * US), .corr = corr, .ext_id = -1,
                      .name = ml_intern_cstr(f->p->strings, name), .track = f->stream, .kind = kind,
                      .info = ml_kernel_info_push(f->t, &ki)};
    ml_slice_push(f->t, &r);
}

/* Three steps:
 *   ProfilerStep#1 [0,100): DataLoader next [0,20); conv2d [20,60) > convolution [22,58) >
 *     launch [30,35) of the Tensor Core kernel [40,90); add [60,70) > launch [62,64) of add [90,110);
 *     mul [75,80)
 *   ProfilerStep#2 [100,200): add [120,130) > launch [121,123) of add [125,135);
 *     add [140,150) > launch [141,143) of a memcpy [145,147)
 *   ProfilerStep#3 [200,250): mul [210,220), no GPU work: dropped as cut short. */
static fix scenario(const char *tc_kernel)
{
    fix f = fix_new();
    host(&f, ML_SL_PROFILER_STEP, "ProfilerStep#1", 0, 100, 50, NULL);
    host(&f, ML_SL_CPU_OP, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 20, 1, NULL);
    host(&f, ML_SL_CPU_OP, "aten::conv2d", 20, 40, 2, "[[1, 3]]");
    host(&f, ML_SL_CPU_OP, "aten::convolution", 22, 36, 3, "[[1, 3]]");
    runtime(&f, 30, 5, 100, 3);
    host(&f, ML_SL_CPU_OP, "aten::add", 60, 10, 4, "[[2]]");
    runtime(&f, 62, 2, 101, 4);
    host(&f, ML_SL_CPU_OP, "aten::mul", 75, 5, 5, NULL);
    host(&f, ML_SL_PROFILER_STEP, "ProfilerStep#2", 100, 100, 51, NULL);
    host(&f, ML_SL_CPU_OP, "aten::add", 120, 10, 6, "[[2]]");
    runtime(&f, 121, 2, 102, 6);
    host(&f, ML_SL_CPU_OP, "aten::add", 140, 10, 7, "[[3]]");
    runtime(&f, 141, 2, 103, 7);
    host(&f, ML_SL_PROFILER_STEP, "ProfilerStep#3", 200, 50, 52, NULL);
    host(&f, ML_SL_CPU_OP, "aten::mul", 210, 10, 10, NULL);
    gpu(&f, ML_SL_KERNEL, tc_kernel, 40, 50, 100, 0.5f, 50);
    gpu(&f, ML_SL_KERNEL, "add_kernel", 90, 20, 101, 2.0f, 100);
    gpu(&f, ML_SL_KERNEL, "add_kernel", 125, 10, 102, 1.0f, 40);
    gpu(&f, ML_SL_MEMCPY, "Memcpy HtoD", 145, 2, 103, -1, -1);
    ml_profile_finish(f.p);
    return f;
}

TEST(ranges_arithmetic)
{
    ml_ranges a = {0}, b = {0}, o = {0};
    ml_ranges_push(&a, 10, 20);
    ml_ranges_push(&a, 0, 5);
    ml_ranges_push(&a, 4, 8);
    ml_ranges_push(&a, 30, 30); /* empty: dropped */
    ml_ranges_merge(&a);        /* [0,8) [10,20) */
    CHECK_EQ_I64(a.len, 2);
    CHECK_EQ_I64(ml_ranges_sum(&a), 18);
    ml_ranges_push(&b, 6, 12);
    ml_ranges_merge(&b);
    ml_ranges_intersect(&a, &b, &o); /* [6,8) [10,12) */
    CHECK_EQ_I64(o.len, 2);
    CHECK_EQ_I64(ml_ranges_sum(&o), 4);
    ml_ranges_subtract(&a, &b, &o); /* [0,6) [12,20) */
    CHECK_EQ_I64(o.len, 2);
    CHECK_EQ_I64(o.v[0].e, 6);
    CHECK_EQ_I64(o.v[1].b, 12);
    CHECK_EQ_I64(ml_ranges_sum_within(&a, 5, 15), 8); /* [5,8) + [10,15) */
    VEC_FREE(&a);
    VEC_FREE(&b);
    VEC_FREE(&o);
}

/* Intersections and differences against a bitmap of [0, 400), on merged
 * lists of very different lengths (where both skip stretches of the other
 * side), and of intervals that touch. */
static void random_ranges(ml_ranges *r, unsigned *seed, int n, int maxlen)
{
    r->len = 0;
    for (int k = 0; k < n; k++) {
        int b = (int)(rand_r(seed) % 390), len = 1 + (int)(rand_r(seed) % (unsigned)maxlen);
        ml_ranges_push(r, b, b + len > 400 ? 400 : b + len);
    }
    ml_ranges_merge(r);
}

static void ranges_bits(const ml_ranges *r, unsigned char *bits)
{
    memset(bits, 0, 400);
    for (size_t i = 0; i < r->len; i++)
        for (int64_t t = r->v[i].b; t < r->v[i].e; t++) bits[t] = 1;
}

TEST(ranges_against_a_bitmap)
{
    unsigned seed = 37;
    ml_ranges a = {0}, b = {0}, o = {0};
    unsigned char ba[400], bb[400], bo[400];
    int bad = 0;
    for (int round = 0; round < 400 && !bad; round++) {
        random_ranges(&a, &seed, 1 + round % 60, round % 3 ? 4 : 40);
        random_ranges(&b, &seed, 1 + (round * 7) % 5, round % 2 ? 3 : 60);
        if (round % 4 == 1) { ml_ranges t = a; a = b; b = t; }
        ranges_bits(&a, ba);
        ranges_bits(&b, bb);
        ml_ranges_intersect(&a, &b, &o);
        ranges_bits(&o, bo);
        for (int t = 0; t < 400; t++) bad += bo[t] != (ba[t] && bb[t]);
        for (size_t i = 1; i < o.len; i++) bad += o.v[i].b < o.v[i - 1].e; /* sorted, disjoint */
        ml_ranges_subtract(&a, &b, &o);
        ranges_bits(&o, bo);
        for (int t = 0; t < 400; t++) bad += bo[t] != (ba[t] && !bb[t]);
        for (size_t i = 0; i < o.len; i++) bad += o.v[i].e <= o.v[i].b || (i && o.v[i].b < o.v[i - 1].e);
    }
    CHECK_EQ_I64(bad, 0);
    VEC_FREE(&a);
    VEC_FREE(&b);
    VEC_FREE(&o);
}

TEST(steps_extend_to_gpu_work_and_split_by_role)
{
    fix f = scenario("volta_h884gemm_64x64");
    ml_perf pf;
    CHECK(ml_perf_compute(f.p, &pf));
    const ml_steps *st = &pf.steps;
    CHECK_EQ_I64(st->steps.len, 2); /* step 3 launched nothing: dropped */
    if (st->steps.len != 2) return;
    const ml_step *s1 = &st->steps.v[0], *s2 = &st->steps.v[1];
    CHECK_EQ_STR(ml_s(f.p, s1->name), "ProfilerStep#1");
    /* step 1 ends with its last kernel (110); step 2 starts there */
    CHECK_EQ_I64(s1->begin, 0);
    CHECK_EQ_I64(s1->end, 110 * US);
    CHECK_EQ_I64(s2->begin, 110 * US);
    CHECK_EQ_I64(s2->end, 200 * US);
    /* step 1: DataLoader [0,20) CPU [20,30) Runtime [30,35) CPU [35,40) Kernel [40,110) */
    CHECK_EQ_I64(s1->cost[ML_ROLE_KERNEL], 70 * US);
    CHECK_EQ_I64(s1->cost[ML_ROLE_RUNTIME], 5 * US);
    CHECK_EQ_I64(s1->cost[ML_ROLE_DATALOADER], 20 * US);
    CHECK_EQ_I64(s1->cost[ML_ROLE_CPU_EXEC], 15 * US);
    CHECK_EQ_I64(s1->cost[ML_ROLE_OTHER], 0);
    /* step 2: kernel 10, memcpy 2, runtime 2+2, CPU 3+6, other the rest of 90 */
    CHECK_EQ_I64(s2->cost[ML_ROLE_KERNEL], 10 * US);
    CHECK_EQ_I64(s2->cost[ML_ROLE_MEMCPY], 2 * US);
    CHECK_EQ_I64(s2->cost[ML_ROLE_RUNTIME], 4 * US);
    CHECK_EQ_I64(s2->cost[ML_ROLE_CPU_EXEC], 9 * US);
    CHECK_EQ_I64(s2->cost[ML_ROLE_OTHER], 65 * US);
    CHECK_EQ_DBL(st->avg_total, 100 * US, 1e-6);
    CHECK_EQ_DBL(st->avg[ML_ROLE_KERNEL], 40 * US, 1e-6);
    CHECK_EQ_DBL(st->avg[ML_ROLE_OTHER], 32.5 * US, 1e-6);

    /* GPU over [0,200): kernels busy 80; SM eff. (50*0.5 + 20*1 + 10*1)/200;
     * occupancy (50*50 + 20*100 + 10*40)/80; Tensor Cores 50 of 80 */
    CHECK_EQ_I64(pf.gpus.len, 1);
    const ml_gpu_metrics *g = &pf.gpus.v[0];
    CHECK_EQ_DBL(g->utilization, 0.4, 1e-12);
    CHECK_EQ_DBL(g->sm_efficiency, 0.275, 1e-9);
    CHECK_EQ_DBL(g->occupancy, 61.25, 1e-9);
    CHECK_EQ_DBL(g->tc_share, 0.625, 1e-12);
    CHECK_EQ_I64(g->kernel_ns, 80 * US);

    /* DataLoader 10/100 > 5%, GPU utilization 40% < 50%; Tensor Cores are in use: no AMP advice */
    CHECK_EQ_I64(pf.recs.len, 2);
    if (pf.recs.len == 2) {
        CHECK_EQ_STR(pf.recs.v[0].id, "dataloader");
        CHECK_EQ_DBL(pf.recs.v[0].value, 0.1, 1e-12);
        CHECK_EQ_STR(pf.recs.v[1].id, "gpu_utilization");
        CHECK_EQ_DBL(pf.recs.v[1].value, 0.4, 1e-12);
        CHECK_CONTAINS(pf.recs.v[0].text, "10.0% of the step time is in DataLoader");
    }
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

static const ml_op_row *find_op(const ml_profile *p, const ml_op_rows *rows, const char *name, const char *shape)
{
    for (size_t i = 0; i < rows->len; i++)
        if (!strcmp(ml_s(p, rows->v[i].name), name) && (!shape || !strcmp(ml_s(p, rows->v[i].shape), shape)))
            return &rows->v[i];
    return NULL;
}

TEST(operator_and_kernel_tables)
{
    fix f = scenario("volta_h884gemm_64x64");
    ml_perf pf;
    CHECK(ml_perf_compute(f.p, &pf));
    const ml_op_rows *on = &pf.ops.by_name;
    /* conv2d, convolution, add, mul (the DataLoader range is no operator) */
    CHECK_EQ_I64(on->len, 4);
    if (on->len != 4) return;
    /* by device self time, then host self time: convolution 50, add 32, mul (host 15), conv2d (host 4) */
    CHECK_EQ_STR(ml_s(f.p, on->v[0].name), "aten::convolution");
    CHECK_EQ_STR(ml_s(f.p, on->v[1].name), "aten::add");
    CHECK_EQ_STR(ml_s(f.p, on->v[2].name), "aten::mul");
    CHECK_EQ_STR(ml_s(f.p, on->v[3].name), "aten::conv2d");
    const ml_op_row *add = &on->v[1], *conv = &on->v[0], *c2d = &on->v[3];
    CHECK_EQ_I64(add->calls, 3);
    CHECK_EQ_I64(add->host_total_ns, 30 * US);
    CHECK_EQ_I64(add->host_self_ns, 24 * US); /* each minus its 2 µs launch */
    CHECK_EQ_I64(add->device_self_ns, 32 * US); /* kernels 20 + 10, memcpy 2 */
    CHECK(!add->tc_eligible);
    CHECK_EQ_I64(conv->host_self_ns, 31 * US);
    CHECK_EQ_I64(conv->device_self_ns, 50 * US);
    CHECK_EQ_I64(conv->tc_self_ns, 50 * US);
    CHECK(conv->tc_eligible);
    CHECK_EQ_I64(c2d->host_self_ns, 4 * US);
    CHECK_EQ_I64(c2d->device_self_ns, 0);
    CHECK_EQ_I64(c2d->device_total_ns, 50 * US);
    CHECK_EQ_I64(c2d->tc_total_ns, 50 * US);
    CHECK_EQ_I64(on->v[2].calls, 2); /* mul in step 3 counts too */
    CHECK_EQ_I64(on->v[2].device_total_ns, 0); /* (launches nothing: no device row) */
    /* kernels launched: conv2d's through its child */
    CHECK_EQ_I64(c2d->n_kernels, 1);
    CHECK_EQ_I64(add->n_kernels, 1);

    const ml_op_row *a2 = find_op(f.p, &pf.ops.by_shape, "aten::add", "[[2]]");
    const ml_op_row *a3 = find_op(f.p, &pf.ops.by_shape, "aten::add", "[[3]]");
    CHECK(a2 && a3);
    if (a2 && a3) {
        CHECK_EQ_I64(a2->calls, 2);
        CHECK_EQ_I64(a2->device_self_ns, 30 * US);
        CHECK_EQ_I64(a3->device_self_ns, 2 * US);
    }

    const ml_kernel_table *kt = &pf.kernels;
    CHECK_EQ_I64(kt->kernels, 3);
    CHECK_EQ_I64(kt->by_name.len, 2);
    if (kt->by_name.len == 2) {
        const ml_kernel_row *k0 = &kt->by_name.v[0], *k1 = &kt->by_name.v[1];
        CHECK_EQ_STR(ml_s(f.p, k0->name), "volta_h884gemm_64x64");
        CHECK(k0->tensor_cores);
        CHECK_EQ_I64(k1->calls, 2);
        CHECK_EQ_I64(k1->total_ns, 30 * US);
        CHECK_EQ_I64(k1->min_ns, 10 * US);
        CHECK_EQ_I64(k1->max_ns, 20 * US);
        CHECK_EQ_DBL(k1->blocks_per_sm, 50.0 / 30.0, 1e-9); /* (20*2 + 10*1) / 30 */
        CHECK_EQ_DBL(k1->occupancy, 80.0, 1e-9);           /* (20*100 + 10*40) / 30 */
        CHECK(!k1->tensor_cores);
        CHECK_EQ_I64(add->kernels[0], 1);
        CHECK_EQ_I64(c2d->kernels[0], 0);
    }
    CHECK_EQ_I64(kt->by_op.len, 2);
    if (kt->by_op.len == 2) CHECK_EQ_STR(ml_s(f.p, kt->by_op.v[1].op), "aten::add");
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

/* What a text view asks for (perf_cmd's wants): the same rows as the full
 * tables, and nothing the view does not print. */
TEST(wants_compute_only_what_is_shown)
{
    fix f = scenario("volta_h884gemm_64x64");
    ml_perf full, text, shape;
    CHECK(ml_perf_compute(f.p, &full));
    ml_perf_wants w = {.ops = {.no_by_shape = true, .no_kernels = true, .no_hists = true},
                       .kernels = {.no_by_op = true, .no_hists = true}, .no_modules = true, .no_kseqs = true};
    CHECK(ml_perf_compute_rules(f.p, ML_TIME_EXACT, &w, &text));
    const ml_op_rows *a = &full.ops.by_name, *b = &text.ops.by_name;
    CHECK_EQ_I64(b->len, 4);
    for (size_t i = 0; i < a->len && i < b->len; i++) { /* same order, same figures */
        CHECK_EQ_STR(ml_s(f.p, b->v[i].name), ml_s(f.p, a->v[i].name));
        CHECK_EQ_I64(b->v[i].calls, a->v[i].calls);
        CHECK_EQ_I64(b->v[i].host_self_ns, a->v[i].host_self_ns);
        CHECK_EQ_I64(b->v[i].device_total_ns, a->v[i].device_total_ns);
        CHECK_EQ_I64(b->v[i].tc_total_ns, a->v[i].tc_total_ns);
        CHECK(b->v[i].tc_eligible == a->v[i].tc_eligible);
        CHECK(!b->v[i].hist);
        CHECK_EQ_I64(b->v[i].n_kernels, 0);
    }
    CHECK_EQ_STR(ml_s(f.p, b->v[0].name), "aten::convolution"); /* by device self time (GPU work found) */
    CHECK_EQ_I64(text.ops.by_shape.len, 0);
    CHECK_EQ_I64(full.ops.by_shape.len, 5);
    CHECK_EQ_I64(text.kernels.by_name.len, 2);
    CHECK_EQ_I64(text.kernels.by_name.v[1].total_ns, 30 * US);
    CHECK_EQ_I64(text.kernels.by_name.v[1].hist.counts[12], 0); /* no histogram */
    CHECK_EQ_I64(text.kernels.by_op.len, 0);
    CHECK(text.modules == NULL);
    CHECK_EQ_I64(text.recs.len, full.recs.len);
    CHECK_EQ_I64(text.gpus.len, 1);
    ml_perf_free(&text);

    ml_perf_wants ws = {.ops = {.no_by_name = true, .no_kernels = true, .no_hists = true}, .no_gpus = true};
    CHECK(ml_perf_compute_rules(f.p, ML_TIME_EXACT, &ws, &shape));
    CHECK_EQ_I64(shape.ops.by_name.len, 0);
    CHECK_EQ_I64(shape.ops.by_shape.len, full.ops.by_shape.len);
    const ml_op_row *a2 = find_op(f.p, &shape.ops.by_shape, "aten::add", "[[2]]");
    CHECK(a2 && a2->calls == 2 && a2->device_self_ns == 30 * US);
    CHECK_EQ_I64(shape.gpus.len, 0);
    CHECK_EQ_I64(shape.recs.len, 0); /* the recommendations come with the overview */
    CHECK_EQ_I64(shape.kernels.by_op.len, 2); /* asked for */
    ml_perf_free(&shape);
    ml_perf_free(&full);
    ml_profile_free(f.p);
}

TEST(tensor_core_advice_when_eligible_ops_use_none)
{
    /* The same run with a kernel off the allowlist: the lowest eligible
     * operator (convolution) launched 50 of the operators' 80 µs of kernels. */
    fix f = scenario("implicit_convolve_sgemm");
    ml_perf pf;
    CHECK(ml_perf_compute(f.p, &pf));
    CHECK_EQ_DBL(ml_tc_eligible_kernel_share(f.p, &pf.tree), 0.625, 1e-12);
    const ml_rec *tc = NULL;
    for (size_t i = 0; i < pf.recs.len; i++)
        if (!strcmp(pf.recs.v[i].id, "tensor_cores")) tc = &pf.recs.v[i];
    CHECK(tc != NULL);
    if (tc) CHECK_CONTAINS(tc->text, "Kernels with 62% time are launched by Tensor Cores eligible operators");
    CHECK_EQ_DBL(pf.gpus.v[0].tc_share, 0, 0);
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

TEST(same_named_child_is_merged)
{
    /* aten::to [0,10) > aten::to [1,9) > aten::copy_ [2,8); launches with the
     * outer's id (dropped, as the plugin replaces its list) and the inner's. */
    fix f = fix_new();
    host(&f, ML_SL_CPU_OP, "aten::to", 0, 10, 1, NULL);
    host(&f, ML_SL_CPU_OP, "aten::to", 1, 8, 2, NULL);
    host(&f, ML_SL_CPU_OP, "aten::copy_", 2, 6, 3, NULL);
    runtime(&f, 0.5, 0.2, 200, 1);
    runtime(&f, 8.2, 0.4, 201, 2);
    ml_profile_finish(f.p);
    ml_perf pf;
    CHECK(ml_perf_compute(f.p, &pf));
    const ml_op_row *to = find_op(f.p, &pf.ops.by_name, "aten::to", NULL);
    CHECK(to != NULL);
    if (to) {
        CHECK_EQ_I64(to->calls, 1);
        CHECK_EQ_I64(to->host_total_ns, 10 * US);
        CHECK_EQ_I64(to->host_self_ns, 3600); /* 10 - copy_ 6 - the inner's launch 0.4 */
    }
    /* no steps: one step over the CPU operators [0,10) */
    CHECK(pf.steps.whole_trace);
    CHECK_EQ_I64(pf.steps.steps.len, 1);
    CHECK_EQ_I64(pf.steps.steps.v[0].end - pf.steps.steps.v[0].begin, 10 * US);
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

TEST(same_named_chain_is_merged_into_the_outermost)
{
    /* aten::to [0,10) > aten::to [1,9) > aten::to [2,8) > copy_ [3,7) and
     * copy_ [7.5,7.8): one call, whose children are both copies; aten::x
     * [20,30) has two aten::x children, so nothing of it merges. */
    fix f = fix_new();
    host(&f, ML_SL_CPU_OP, "aten::to", 0, 10, 1, NULL);
    host(&f, ML_SL_CPU_OP, "aten::to", 1, 8, 2, NULL);
    host(&f, ML_SL_CPU_OP, "aten::to", 2, 6, 3, NULL);
    host(&f, ML_SL_CPU_OP, "aten::copy_", 3, 4, 4, NULL);
    host(&f, ML_SL_CPU_OP, "aten::copy_", 7.5, 0.3, 5, NULL);
    host(&f, ML_SL_CPU_OP, "aten::x", 20, 10, 6, NULL);
    host(&f, ML_SL_CPU_OP, "aten::x", 21, 2, 7, NULL);
    host(&f, ML_SL_CPU_OP, "aten::x", 24, 2, 8, NULL);
    ml_profile_finish(f.p);
    ml_perf pf;
    CHECK(ml_perf_compute(f.p, &pf));
    const ml_op_row *to = find_op(f.p, &pf.ops.by_name, "aten::to", NULL);
    const ml_op_row *copy = find_op(f.p, &pf.ops.by_name, "aten::copy_", NULL);
    const ml_op_row *x = find_op(f.p, &pf.ops.by_name, "aten::x", NULL);
    CHECK(to && copy && x);
    if (to && copy && x) {
        CHECK_EQ_I64(to->calls, 1);
        CHECK_EQ_I64(to->host_total_ns, 10 * US);
        CHECK_EQ_I64(to->host_self_ns, 5700); /* 10 - 4 - 0.3 */
        CHECK_EQ_I64(copy->calls, 2);
        CHECK_EQ_I64(x->calls, 3);
        CHECK_EQ_I64(x->host_total_ns, 14 * US);
        CHECK_EQ_I64(x->host_self_ns, 10 * US); /* 6 + 2 + 2 */
    }
    /* the merged nodes' children hang under the outermost aten::to */
    const ml_optree *tr = &pf.tree;
    uint32_t outer = ML_NONE32;
    for (uint32_t i = 0; i < tr->n; i++)
        if (tr->slice[i] != ML_NONE32 && !(tr->flags[i] & ML_NODE_MERGED) && outer == ML_NONE32 &&
            !strcmp(ml_s(f.p, f.p->trace->slices.name.v[tr->slice[i]]), "aten::to"))
            outer = i;
    int copies_under_outer = 0;
    for (uint32_t i = 0; i < tr->n; i++)
        if (tr->slice[i] != ML_NONE32 && !strcmp(ml_s(f.p, f.p->trace->slices.name.v[tr->slice[i]]), "aten::copy_"))
            copies_under_outer += tr->parent[i] == outer;
    CHECK_EQ_I64(copies_under_outer, 2);
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

/* The node of the slice called name on track tr (the first one). */
/* Finishes f's profile and computes its analyses into *pf; its operator tree. */
static const ml_optree *finish_tree(fix *f, ml_perf *pf)
{
    ml_profile_finish(f->p);
    CHECK(ml_perf_compute(f->p, pf));
    return &pf->tree;
}

static uint32_t node_named(const fix *f, const ml_optree *tr, uint32_t track, const char *name)
{
    for (uint32_t i = 0; i < tr->n; i++)
        if (tr->slice[i] != ML_NONE32 && f->p->trace->slices.track.v[tr->slice[i]] == track &&
            !strcmp(ml_s(f->p, f->p->trace->slices.name.v[tr->slice[i]]), name))
            return i;
    return ML_NONE32;
}

TEST(optree_nests_crossing_and_zero_length_slices_by_containment)
{
    /* Three threads, each nested on its own:
     *   100: a [0,10) and b [2,12), which crosses a's end: cut to [2,10) under
     *        a; a call [11,11.5) with no External id is b's (the innermost);
     *   200: c [0,10) > z [5,5) and y [5,5): zero-length, so y is z's sibling,
     *        not its child (nothing starts inside z);
     *   300: d [0,10) > e [2,5) > a call [3,4) with no External id: e's. */
    fix f = fix_new();
    uint32_t t2 = ml_track_get(f.t, f.p->strings, "100", 3, "200", 3),
             t3 = ml_track_get(f.t, f.p->strings, "100", 3, "300", 3);
    host(&f, ML_SL_CPU_OP, "a", 0, 10, 1, NULL);
    host(&f, ML_SL_CPU_OP, "b", 2, 10, 2, NULL);
    runtime(&f, 11, 0.5, 100, -1);
    f.thread = t2;
    host(&f, ML_SL_CPU_OP, "c", 0, 10, 3, NULL);
    host(&f, ML_SL_CPU_OP, "z", 5, 0, 4, NULL);
    host(&f, ML_SL_CPU_OP, "y", 5, 0, 5, NULL);
    f.thread = t3;
    host(&f, ML_SL_CPU_OP, "d", 0, 10, 6, NULL);
    host(&f, ML_SL_CPU_OP, "e", 2, 3, 7, NULL);
    runtime(&f, 3, 1, 101, -1);
    ml_perf pf;
    const ml_optree *tr = finish_tree(&f, &pf);
    uint32_t t1 = f.p->trace->slices.track.v[0];
    uint32_t a = node_named(&f, tr, t1, "a"), b = node_named(&f, tr, t1, "b");
    uint32_t c = node_named(&f, tr, t2, "c"), z = node_named(&f, tr, t2, "z"), y = node_named(&f, tr, t2, "y");
    uint32_t d = node_named(&f, tr, t3, "d"), e = node_named(&f, tr, t3, "e");
    CHECK(a != ML_NONE32 && b != ML_NONE32 && c != ML_NONE32 && z != ML_NONE32 && y != ML_NONE32 &&
          d != ML_NONE32 && e != ML_NONE32);
    if (a != ML_NONE32 && b != ML_NONE32 && c != ML_NONE32 && z != ML_NONE32 && y != ML_NONE32 &&
        d != ML_NONE32 && e != ML_NONE32) {
        CHECK_EQ_I64(tr->n, 10); /* 7 slices, 3 roots */
        CHECK_EQ_I64(tr->clipped, 1);
        CHECK_EQ_I64(tr->parent[b], a);
        CHECK_EQ_I64(ml_optree_host_total(tr, &f.p->trace->slices, b), 8 * US); /* cut at a's end */
        CHECK(tr->flags[b] & ML_NODE_CLIPPED);
        CHECK_EQ_I64(ml_optree_host_total(tr, &f.p->trace->slices, a), 10 * US);
        CHECK_EQ_I64(ml_optree_host_total(tr, &f.p->trace->slices, tr->parent[a]), 0); /* a root */
        CHECK_EQ_I64(tr->n_device, 1); /* no GPU work: only row 0, all zeros, everyone's */
        CHECK_EQ_I64(tr->device_row[a], 0);
        CHECK_EQ_I64(ml_optree_device(tr, a).total, 0);
        CHECK_EQ_I64(ml_optree_host_self(tr, b), 7500); /* 8 - the call's 0.5 */
        CHECK_EQ_I64(ml_optree_host_self(tr, a), 2 * US);
        CHECK_EQ_I64(tr->parent[z], c);
        CHECK_EQ_I64(tr->parent[y], c);
        CHECK_EQ_I64(tr->parent[e], d);
        CHECK_EQ_I64(ml_optree_host_self(tr, e), 2 * US); /* 3 - the call's 1 */
        CHECK_EQ_I64(ml_optree_host_self(tr, d), 7 * US);
        CHECK(tr->flags[tr->parent[a]] & ML_NODE_ROOT);
        CHECK(tr->flags[tr->parent[d]] & ML_NODE_ROOT);
    }
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

TEST(optree_times_of_seconds_and_below_zero)
{
    /* Host self and device times past 32 bits of ns (2.1 s and more) and a
     * root's host self below -1 are kept in the tree's side rows (ml_id32):
     * the same values.
     *   a [0 s, 10 s) > b [1 s, 8 s) > a call [2 s, 2.5 s) (b's: no External
     *   id) of a Tensor Core kernel [3 s, 6 s); a call [11 s, 14 s) with
     *   External id 0: the root's. */
    fix f = fix_new();
    host(&f, ML_SL_CPU_OP, "a", 0, 10e6, 1, NULL);
    host(&f, ML_SL_CPU_OP, "b", 1e6, 7e6, 2, NULL);
    runtime(&f, 2e6, 0.5e6, 100, -1);
    runtime(&f, 11e6, 3e6, 101, 0);
    gpu(&f, ML_SL_KERNEL, "volta_h884gemm", 3e6, 3e6, 100, -1, -1);
    ml_perf pf;
    const ml_optree *tr = finish_tree(&f, &pf);
    uint32_t t1 = f.p->trace->slices.track.v[0];
    uint32_t a = node_named(&f, tr, t1, "a"), b = node_named(&f, tr, t1, "b");
    CHECK(a != ML_NONE32 && b != ML_NONE32);
    if (a != ML_NONE32 && b != ML_NONE32) {
        CHECK_EQ_I64(ml_optree_host_self(tr, a), 3000000LL * US); /* 10 s - b's 7 s */
        CHECK_EQ_I64(ml_optree_host_self(tr, b), 6500000LL * US); /* 7 s - the call's 0.5 s */
        CHECK_EQ_I64(ml_optree_host_self(tr, tr->parent[a]), -13000000LL * US); /* 0 - a's 10 s - the call's 3 s */
        CHECK(tr->host_self_wide.len >= 3); /* (each of them a side row) */
        ml_node_device da = ml_optree_device(tr, a), db = ml_optree_device(tr, b);
        CHECK_EQ_I64(db.self, 3000000LL * US);
        CHECK_EQ_I64(db.total, 3000000LL * US);
        CHECK_EQ_I64(db.tc_self, 3000000LL * US);
        CHECK_EQ_I64(db.tc_total, 3000000LL * US);
        CHECK_EQ_I64(da.self, 0);
        CHECK_EQ_I64(da.total, 3000000LL * US);
        CHECK_EQ_I64(da.tc_total, 3000000LL * US);
        CHECK_EQ_I64(ml_optree_device(tr, tr->parent[a]).total, 3000000LL * US);
        CHECK(tr->device_wide.len >= 4);
    }
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

TEST(whole_trace_step_extends_to_its_kernels)
{
    /* ops [10,20) and [30,50) > launch [35,36) of a kernel [40,80): the one
     * step is [10,80): kernel 40, runtime 1, CPU 10+5+4, other [20,30) */
    fix f = fix_new();
    host(&f, ML_SL_CPU_OP, "aten::a", 10, 10, 1, NULL);
    host(&f, ML_SL_CPU_OP, "aten::b", 30, 20, 2, NULL);
    runtime(&f, 35, 1, 300, 2);
    gpu(&f, ML_SL_KERNEL, "k", 40, 40, 300, -1, -1);
    ml_profile_finish(f.p);
    ml_perf pf;
    CHECK(ml_perf_compute(f.p, &pf));
    const ml_step *s = &pf.steps.steps.v[0];
    CHECK_EQ_I64(s->name, 0);
    CHECK_EQ_I64(s->begin, 10 * US);
    CHECK_EQ_I64(s->end, 80 * US);
    CHECK_EQ_I64(s->cost[ML_ROLE_KERNEL], 40 * US);
    CHECK_EQ_I64(s->cost[ML_ROLE_RUNTIME], 1 * US);
    CHECK_EQ_I64(s->cost[ML_ROLE_CPU_EXEC], 19 * US);
    CHECK_EQ_I64(s->cost[ML_ROLE_OTHER], 10 * US);
    /* no blocks per SM or occupancy recorded: unknown */
    CHECK(pf.gpus.v[0].sm_efficiency < 0);
    CHECK(pf.gpus.v[0].occupancy < 0);
    CHECK(pf.kernels.by_name.v[0].blocks_per_sm < 0);
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

TEST(flow_links_queued_work_to_its_operator)
{
    /* Ascend: no runtime call links the task; an async_npu flow runs from
     * inside Conv2D [0,10) to the task [20,30) */
    fix f = fix_new();
    host(&f, ML_SL_CPU_OP, "Conv2D", 0, 10, -1, NULL);
    gpu(&f, ML_SL_KERNEL, "trans_TransData_0", 20, 10, -1, -1, -1);
    ml_str cat = ml_intern_cstr(f.p->strings, "async_npu");
    ml_flow_point(f.t, 7, cat, 's', true, f.thread, 5 * US);
    ml_flow_point(f.t, 7, cat, 'f', true, f.stream, 20 * US);
    ml_profile_finish(f.p);
    ml_perf pf;
    CHECK(ml_perf_compute(f.p, &pf));
    const ml_op_row *conv = find_op(f.p, &pf.ops.by_name, "Conv2D", NULL);
    CHECK(conv != NULL);
    if (conv) {
        CHECK_EQ_I64(conv->device_self_ns, 10 * US);
        CHECK_EQ_I64(conv->n_kernels, 1);
    }
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

TEST(fragmentation_from_the_memory_curves)
{
    /* reserved peaks at 1000 while 600 is allocated: 40% held no tensor */
    fix f = fix_new();
    host(&f, ML_SL_CPU_OP, "aten::a", 0, 10, 1, NULL);
    ml_series *r = ml_series_get(f.p, 0, ML_SERIES_RESERVED, 0, 0);
    ml_series_push(r, 0, 100);
    ml_series_push(r, 5 * US, 1000);
    ml_series *a = ml_series_get(f.p, 0, ML_SERIES_ALLOCATED, 0, 0);
    ml_series_push(a, 0, 50);
    ml_series_push(a, 5 * US, 600);
    ml_profile_finish(f.p);
    ml_perf pf;
    CHECK(ml_perf_compute(f.p, &pf));
    CHECK_EQ_I64(pf.recs.len, 1);
    if (pf.recs.len == 1) {
        CHECK_EQ_STR(pf.recs.v[0].id, "fragmentation");
        CHECK_EQ_DBL(pf.recs.v[0].value, 0.4, 1e-12);
        CHECK_EQ_DBL(pf.recs.v[0].threshold, 0.2, 0);
        CHECK_CONTAINS(pf.recs.v[0].text, "cuda:0");
        /* binary units, as the summary prints the same peak */
        CHECK_CONTAINS(pf.recs.v[0].text, "40.0% of the 1000 B reserved (400 B) held no tensor");
    }
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

TEST(json_has_the_data_contract_keys)
{
    fix f = scenario("volta_h884gemm_64x64");
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    jw w;
    jw_init(&w, m, false);
    ml_perf_json_rank(&w, f.p, 0);
    fclose(m);
    static const char *const keys[] = {
        "\"span\":{\"begin_ns\":0,\"end_ns\":250000}", "\"counts\":{\"events\":", "\"steps\":2,",
        "\"operators_unique\":4", "\"kernels\":3", "\"kernel_names\":2", "\"id\":\"cuda:0\"", "\"name\":\"Toy GPU\"",
        "\"compute_capability\":\"8.0\"", "\"sm_count\":10", "\"utilization\":0.4", "\"tensor_core_share\":0.625",
        "\"name\":\"ProfilerStep#1\",\"begin_ns\":0,\"end_ns\":110000,\"total_ns\":110000,\"kernel_ns\":70000",
        "\"step_average\":{\"total_ns\":100000,\"kernel_ns\":40000", "\"other_ns\":32500}", "\"id\":\"dataloader\"",
        "\"input_shape\":\"[[2]]\"", "\"tc_eligible\":true", "\"stack\":null", "\"kernels\":[0]",
        "\"by_op\":[", "\"op\":\"aten::convolution\"", "\"modules\":[]", "\"distributed\":null"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) CHECK_CONTAINS(buf, keys[i]);
    free(buf);
    /* a profile without a time side writes null */
    ml_profile *p = ml_profile_new("s.pickle", "torch-snapshot");
    m = open_memstream(&buf, &len);
    jw_init(&w, m, false);
    ml_perf_json_rank(&w, p, 0);
    fclose(m);
    CHECK_EQ_STR(buf, "null");
    CHECK(ml_perf_unavailable(p) != NULL);
    free(buf);
    ml_profile_free(p);
    ml_profile_free(f.p);
}

/* Bins 1-2-5 per decade of ns: [0,2) [2,5) [5,10) [10,20) … */
TEST(duration_histogram_bins_and_slowest)
{
    CHECK_EQ_I64(ml_durhist_bin(-5), 0);
    CHECK_EQ_I64(ml_durhist_bin(0), 0);
    CHECK_EQ_I64(ml_durhist_bin(1), 0);
    CHECK_EQ_I64(ml_durhist_bin(2), 1);
    CHECK_EQ_I64(ml_durhist_bin(4), 1);
    CHECK_EQ_I64(ml_durhist_bin(5), 2);
    CHECK_EQ_I64(ml_durhist_bin(9), 2);
    CHECK_EQ_I64(ml_durhist_bin(10), 3);
    CHECK_EQ_I64(ml_durhist_bin(19999), 12);
    CHECK_EQ_I64(ml_durhist_bin(20000), 13);
    CHECK_EQ_I64(ml_durhist_bin(INT64_MAX), ML_DURHIST_BINS - 1);
    CHECK_EQ_I64(ml_durhist_lower(0), 0);
    CHECK_EQ_I64(ml_durhist_lower(13), 20000);
    CHECK_EQ_I64(ml_durhist_lower(ML_DURHIST_BINS - 1), 5000000000000000000LL);
    for (int b = 1; b < ML_DURHIST_BINS; b++) { /* each bin starts at its lower bound */
        CHECK_EQ_I64(ml_durhist_bin(ml_durhist_lower(b)), b);
        CHECK_EQ_I64(ml_durhist_bin(ml_durhist_lower(b) - 1), b - 1);
    }
    /* calls (start, duration): the 3 longest kept longest first, ties earliest first */
    ml_durhist h = {0};
    static const int64_t calls[][2] = {{100, 7}, {200, 30}, {300, 7}, {50, 30}, {400, 3}, {500, 12}, {600, 30}};
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) ml_durhist_add(&h, calls[i][0], calls[i][1]);
    CHECK_EQ_I64(h.counts[1], 1);   /* 3 */
    CHECK_EQ_I64(h.counts[2], 2);   /* 7, 7 */
    CHECK_EQ_I64(h.counts[3], 1);   /* 12 */
    CHECK_EQ_I64(h.counts[4], 3);   /* 30 ×3 */
    CHECK_EQ_I64(h.n_slow, 3);
    CHECK_EQ_I64(h.slow_ts[0], 50);
    CHECK_EQ_I64(h.slow_ts[1], 200);
    CHECK_EQ_I64(h.slow_ts[2], 600);
    CHECK_EQ_I64(h.slow_dur[2], 30);
}

/* The scenario's rows: add runs 3 × 10 µs (bin 12: [10, 20) µs); add_kernel
 * 20 µs at 90 and 10 µs at 125; mul 5 µs at 75 and 10 µs at 210. */
TEST(rows_keep_per_call_histograms)
{
    fix f = scenario("volta_h884gemm_64x64");
    ml_perf pf;
    CHECK(ml_perf_compute(f.p, &pf));
    const ml_op_row *add = find_op(f.p, &pf.ops.by_name, "aten::add", NULL);
    const ml_op_row *mul = find_op(f.p, &pf.ops.by_name, "aten::mul", NULL);
    const ml_op_row *a2 = find_op(f.p, &pf.ops.by_shape, "aten::add", "[[2]]");
    CHECK(add && mul && a2);
    if (add && mul && a2) {
        CHECK_EQ_I64(add->hist->counts[12], 3);
        CHECK_EQ_I64(add->hist->n_slow, 3);
        CHECK_EQ_I64(add->hist->slow_ts[0], 60 * US); /* equal durations: in start order */
        CHECK_EQ_I64(add->hist->slow_ts[2], 140 * US);
        CHECK_EQ_I64(a2->hist->counts[12], 2);
        CHECK_EQ_I64(mul->hist->counts[11], 1);
        CHECK_EQ_I64(mul->hist->counts[12], 1);
        CHECK_EQ_I64(mul->hist->slow_ts[0], 210 * US);
        CHECK_EQ_I64(mul->hist->slow_dur[1], 5 * US);
    }
    const ml_kernel_row *k = pf.kernels.by_name.len == 2 ? &pf.kernels.by_name.v[1] : NULL;
    CHECK(k != NULL);
    if (k) {
        int64_t sum = 0;
        for (int b = 0; b < ML_DURHIST_BINS; b++) sum += k->hist.counts[b];
        CHECK_EQ_I64(sum, k->calls);
        CHECK_EQ_I64(k->hist.counts[12], 1);
        CHECK_EQ_I64(k->hist.counts[13], 1);
        CHECK_EQ_I64(k->hist.slow_ts[0], 90 * US);
        CHECK_EQ_I64(k->hist.slow_dur[0], 20 * US);
    }
    for (size_t i = 0; i < pf.kernels.by_op.len; i++) { /* by (name, op) too */
        int64_t sum = 0;
        for (int b = 0; b < ML_DURHIST_BINS; b++) sum += pf.kernels.by_op.v[i].hist.counts[b];
        CHECK_EQ_I64(sum, pf.kernels.by_op.v[i].calls);
    }
    /* JSON: bins from the first with a count; starts after span.begin_ns (0 here) */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    jw w;
    jw_init(&w, m, false);
    ml_perf_json_write(&w, f.p, &pf, 0, NULL);
    fclose(m);
    CHECK_CONTAINS(buf, "\"tensor_cores\":false,\"hist\":{\"bin0\":12,\"counts\":[1,1]},\"slowest\":[[90000,20000],[125000,10000]]");
    CHECK_CONTAINS(buf, "\"hist\":{\"bin0\":12,\"counts\":[3]},\"slowest\":[[60000,10000],[120000,10000],[140000,10000]]");
    free(buf);
    ml_perf_free(&pf);
    ml_profile_free(f.p);
}

/* The time fields both perf documents share: one stem each, the unit the
 * document's (the web's perf object ns, the runs exact µs); the step roles
 * are the fields of their index. */
TEST(perf_time_fields_declared_once)
{
    ml_buf b = {0};
    jw w;
    for (int u = 0; u < 2; u++) {
        b.len = 0;
        jw_init_buf(&w, &b, false);
        jw_obj(&w);
        ml_perf_json_time(&w, (ml_perf_units)u, (ml_perf_time_field)ML_ROLE_CPU_EXEC, 1500);
        ml_perf_json_time(&w, (ml_perf_units)u, ML_PT_TOTAL, -98598123);
        ml_perf_json_op_times(&w, (ml_perf_units)u, 1, 2000, 3, 4);
        jw_end(&w);
        CHECK_EQ_STR(b.p, u == ML_PERF_NS
                              ? "{\"cpu_exec_ns\":1500,\"total_ns\":-98598123,\"host_self_ns\":1,\"host_total_ns\":2000,"
                                "\"device_self_ns\":3,\"device_total_ns\":4}"
                              : "{\"cpu_exec_us\":1.5,\"total_us\":-98598.123,\"host_self_us\":0.001,\"host_total_us\":2,"
                                "\"device_self_us\":0.003,\"device_total_us\":0.004}");
    }
    ml_buf_free(&b);
}

int main(void)
{
    RUN(perf_time_fields_declared_once);
    RUN(ranges_arithmetic);
    RUN(ranges_against_a_bitmap);
    RUN(steps_extend_to_gpu_work_and_split_by_role);
    RUN(operator_and_kernel_tables);
    RUN(wants_compute_only_what_is_shown);
    RUN(tensor_core_advice_when_eligible_ops_use_none);
    RUN(same_named_child_is_merged);
    RUN(same_named_chain_is_merged_into_the_outermost);
    RUN(optree_nests_crossing_and_zero_length_slices_by_containment);
    RUN(optree_times_of_seconds_and_below_zero);
    RUN(whole_trace_step_extends_to_its_kernels);
    RUN(flow_links_queued_work_to_its_operator);
    RUN(fragmentation_from_the_memory_curves);
    RUN(json_has_the_data_contract_keys);
    RUN(duration_histogram_bins_and_slowest);
    RUN(rows_keep_per_call_histograms);
    return check_report();
}
