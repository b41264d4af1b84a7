/* Computation / communication per step and the collectives (distributed.h):
 * two hand-written ranks worked out by hand, a CPU-only (gloo) rank, and the
 * real NCCL traces against tests/distributed_expected.py. */
#include "check.h"
#include "distributed.h"
#include "importer.h"
#include "kineto_json.h"

#include <unistd.h>

#define H(cat, name, ts, dur, args) \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{" args "}},"
#define K(name, stream, ts, dur, args) \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #stream ",\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{" args "}},"

/* rank 0: a gemm [20, 60) µs and an all-reduce kernel [50, 80) launched
 * inside nccl:all_reduce, sized by the kernel's args (1000 floats) */
static const char *rank0 =
    "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0,\"world_size\":2},\"traceEvents\":["
    H("user_annotation", "ProfilerStep#1", 0, 100, "")
    H("cpu_op", "c10d::allreduce_", 10, 20, "")
    H("user_annotation", "nccl:all_reduce", 12, 16, "\"Input Dims\":[[1000]],\"Input type\":[\"float\"]")
    H("cuda_runtime", "cudaLaunchKernel", 14, 2, "\"correlation\":1")
    H("cpu_op", "aten::mm", 40, 10, "")
    H("cuda_runtime", "cudaLaunchKernel", 41, 2, "\"correlation\":2")
    K("gemm", 7, 20, 40, "\"correlation\":2")
    K("ncclKernel_AllReduce_RING_LL_Sum_float", 8, 50, 30,
      "\"correlation\":1,\"Collective name\":\"allreduce\",\"In msg nelems\":1000,\"dtype\":\"Float\"")
    "{}]}";

/* rank 1: a gemm [0, 70) and an all-reduce [70, 90) nothing launched: named
 * by its args, size unknown */
static const char *rank1 =
    "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":1,\"world_size\":2},\"traceEvents\":["
    H("user_annotation", "ProfilerStep#1", 0, 100, "")
    K("gemm", 7, 0, 70, "")
    K("ncclDevKernel_AllReduce_Sum_f32", 8, 70, 20, "\"correlation\":5,\"Collective name\":\"allreduce\"")
    "{}]}";

TEST(two_ranks_by_hand)
{
    ml_profile *ps[2] = {import_trace(rank1), import_trace(rank0)}; /* any order */
    CHECK(ps[0] && ps[1]);
    if (!ps[0] || !ps[1]) goto out;
    ml_distributed *d = ml_distributed_compute(ps, 2);
    CHECK(d != NULL);
    if (!d) goto out;
    CHECK_EQ_STR(d->backend, "nccl");
    CHECK_EQ_I64(d->world_size, 2);
    CHECK_EQ_I64(d->slowest_rank, 1); /* 70 µs of computation against 40 */
    CHECK_EQ_I64(d->n_steps, 2);
    if (d->n_steps == 2) {
        const ml_dist_step *a = &d->steps[0], *b = &d->steps[1];
        CHECK_EQ_I64(a->rank, 1);
        CHECK_EQ_STR(a->step, "ProfilerStep#1");
        CHECK_EQ_I64(a->computation_ns, 70000);
        CHECK_EQ_I64(a->communication_ns, 20000);
        CHECK_EQ_I64(a->overlap_ns, 0);
        CHECK_EQ_I64(a->other_ns, 10000);
        CHECK_EQ_I64(b->rank, 0);
        CHECK_EQ_I64(b->begin_ns, 0);
        CHECK_EQ_I64(b->end_ns, 100000);
        CHECK_EQ_I64(b->computation_ns, 40000);
        CHECK_EQ_I64(b->communication_ns, 30000);
        CHECK_EQ_I64(b->overlap_ns, 10000);
        CHECK_EQ_I64(b->other_ns, 40000); /* 100 + 10 - 40 - 30 */
    }
    CHECK_EQ_I64(d->n_collectives, 2);
    if (d->n_collectives == 2) {
        const ml_collective *a = &d->collectives[0], *b = &d->collectives[1];
        CHECK_EQ_I64(a->rank, 1);
        CHECK_EQ_STR(a->name, "allreduce");
        CHECK_EQ_I64(a->group_size, -1); /* not recorded */
        CHECK_EQ_I64(a->calls, 1);
        CHECK_EQ_I64(a->bytes, -1);
        CHECK_EQ_I64(a->total_ns, 20000);
        CHECK_EQ_I64(b->rank, 0);
        CHECK_EQ_STR(b->name, "nccl:all_reduce");
        CHECK_EQ_I64(b->calls, 1);
        CHECK_EQ_I64(b->bytes, 4000);
        CHECK_EQ_I64(b->total_ns, 30000);
        CHECK_EQ_I64(b->mean_ns, 30000);
    }
    ml_distributed_free(d);
out:
    ml_profile_free(ps[0]);
    ml_profile_free(ps[1]);
}

/* one rank, all-reduces in two process groups (8 ranks and 2): two rows, told apart by their size */
static const char *groups =
    "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0,\"world_size\":8},\"traceEvents\":["
    H("user_annotation", "ProfilerStep#1", 0, 100, "")
    H("user_annotation", "nccl:all_reduce", 10, 4, "")
    H("cuda_runtime", "cudaLaunchKernel", 11, 1, "\"correlation\":1")
    H("user_annotation", "nccl:all_reduce", 20, 4, "")
    H("cuda_runtime", "cudaLaunchKernel", 21, 1, "\"correlation\":2")
    H("user_annotation", "nccl:all_reduce", 30, 4, "")
    H("cuda_runtime", "cudaLaunchKernel", 31, 1, "\"correlation\":3")
    K("ncclDevKernel_AllReduce_Sum_f32", 8, 40, 10, "\"correlation\":1,\"Group size\":8,\"In msg nelems\":100,\"dtype\":\"Float\"")
    K("ncclDevKernel_AllReduce_Sum_f32", 8, 50, 10, "\"correlation\":2,\"Group size\":8,\"In msg nelems\":100,\"dtype\":\"Float\"")
    K("ncclDevKernel_AllReduce_Sum_f32", 9, 60, 5, "\"correlation\":3,\"Group size\":2,\"In msg nelems\":10,\"dtype\":\"Float\"")
    "{}]}";

TEST(collectives_apart_by_process_group_size)
{
    ml_profile *p = import_trace(groups);
    CHECK(p != NULL);
    if (!p) return;
    ml_distributed *d = ml_distributed_compute(&p, 1);
    CHECK(d != NULL);
    if (d) {
        CHECK_EQ_I64(d->n_collectives, 2);
        if (d->n_collectives == 2) {
            const ml_collective *a = &d->collectives[0], *b = &d->collectives[1]; /* by total time */
            CHECK_EQ_STR(a->name, "nccl:all_reduce");
            CHECK_EQ_I64(a->group_size, 8);
            CHECK_EQ_I64(a->calls, 2);
            CHECK_EQ_I64(a->bytes, 800);
            CHECK_EQ_I64(a->total_ns, 20000);
            CHECK_EQ_STR(b->name, "nccl:all_reduce");
            CHECK_EQ_I64(b->group_size, 2);
            CHECK_EQ_I64(b->calls, 1);
            CHECK_EQ_I64(b->bytes, 40);
            CHECK_EQ_I64(b->total_ns, 5000);
        }
        ml_distributed_free(d);
    }
    ml_profile_free(p);
}

TEST(cpu_only_rank_and_whole_trace_step)
{
    /* gloo: no kernels, so cpu ops are the computation and the collective ops the
     * communication; the backend's own span (as torch 2.13 writes it, with the
     * bucket's Input Dims / Input type) is one call of the collectives table */
    ml_profile *p = import_trace(
        "{\"distributedInfo\":{\"backend\":\"gloo\",\"rank\":3,\"world_size\":4},\"traceEvents\":["
        H("cpu_op", "aten::add", 0, 50, "")
        H("user_annotation", "gloo:all_reduce", 10, 10,
          "\"Input type\":[\"float\"],\"Input Strides\":[[1]],\"Input Dims\":[[5642]]")
        "{}]}");
    CHECK(p != NULL);
    if (!p) return;
    ml_distributed *d = ml_distributed_compute(&p, 1);
    CHECK(d != NULL);
    if (d) {
        CHECK_EQ_I64(d->world_size, 4);
        CHECK_EQ_STR(d->backend, "gloo");
        CHECK_EQ_I64(d->n_steps, 1);
        const ml_dist_step *s = &d->steps[0];
        CHECK_EQ_I64(s->rank, 3);
        CHECK_EQ_STR(s->step, "(whole trace)");
        CHECK_EQ_I64(s->end_ns - s->begin_ns, 50000);
        CHECK_EQ_I64(s->computation_ns, 50000);
        CHECK_EQ_I64(s->communication_ns, 10000);
        CHECK_EQ_I64(s->overlap_ns, 10000);
        CHECK_EQ_I64(s->other_ns, 0);
        CHECK_EQ_I64(d->n_collectives, 1);
        if (d->n_collectives == 1) {
            const ml_collective *c = &d->collectives[0];
            CHECK_EQ_STR(c->name, "gloo:all_reduce");
            CHECK_EQ_I64(c->rank, 3);
            CHECK_EQ_I64(c->calls, 1);
            CHECK_EQ_I64(c->bytes, 5642 * 4);
            CHECK_EQ_I64(c->total_ns, 10000);
            CHECK_EQ_I64(c->group_size, -1);
        }
        ml_distributed_free(d);
    }
    ml_profile_free(p);
}

/* The group size of the one gloo collective of a 4-rank trace whose
 * distributedInfo has the extra keys given; -2 when there is no such row. */
static int gloo_group_size(const char *extra)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"distributedInfo\":{\"backend\":\"gloo\",\"rank\":3,\"world_size\":4%s},\"traceEvents\":["
             H("cpu_op", "aten::add", 0, 50, "") H("user_annotation", "gloo:all_reduce", 10, 10, "") "{}]}",
             extra);
    ml_profile *p = import_trace(json);
    if (!p) return -3;
    ml_distributed *d = ml_distributed_compute(&p, 1);
    int g = d && d->n_collectives == 1 ? d->collectives[0].group_size : -2;
    ml_distributed_free(d);
    ml_profile_free(p);
    return g;
}

TEST(group_size_from_one_process_group)
{
    /* torch 2.13 CPU traces: no record_param_comms, no "Group size"; with one
     * process group (pg_count 1), every collective is the world's */
    CHECK_EQ_I64(gloo_group_size(""), -1);
    CHECK_EQ_I64(gloo_group_size(",\"pg_count\":1,\"pg_config\":[{\"pg_name\":\"0\",\"pg_size\":4,\"ranks\":[0,1,2,3]}]"), 4);
    CHECK_EQ_I64(gloo_group_size(",\"pg_count\":2"), -1); /* which group: not said */
    CHECK_EQ_I64(gloo_group_size(",\"pg_count\":1.5"), -1);
    CHECK_EQ_I64(gloo_group_size(",\"pg_count\":\"x\""), -1);
    CHECK_EQ_I64(gloo_group_size(",\"pg_count\":1e30"), -1);
}

TEST(single_rank_without_communication_is_not_distributed)
{
    ml_profile *p = import_trace("{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0,\"world_size\":1},"
                                 "\"traceEvents\":[" K("gemm", 7, 0, 70, "") "{}]}");
    CHECK(p != NULL);
    if (!p) return;
    CHECK(ml_distributed_compute(&p, 1) == NULL);
    ml_trace_free(p->trace);
    p->trace = NULL;
    CHECK(ml_distributed_compute(&p, 1) == NULL);
    ml_profile_free(p);
}

TEST(dtype_sizes)
{
    CHECK_EQ_I64(ml_dtype_size("Float"), 4);
    CHECK_EQ_I64(ml_dtype_size("BFloat16"), 2);
    CHECK_EQ_I64(ml_dtype_size("Long"), 8);
    CHECK_EQ_I64(ml_dtype_size("Byte"), 1);
    CHECK_EQ_I64(ml_dtype_size("Float8_e4m3fn"), 1);
    CHECK_EQ_I64(ml_dtype_size("c10::Half"), 2);
    CHECK_EQ_I64(ml_dtype_size("TensorList"), 0);
    CHECK_EQ_I64(ml_dtype_size(NULL), 0);
}

/* ---- real traces: python3 tests/distributed_expected.py ---- */

static const char *const expected_nccl =
    "step|0|ProfilerStep#4|222442191|38506406|11989021|1825259|173772023\n"
    "step|0|ProfilerStep#5|219726905|38429422|12300029|1760420|170757874\n"
    "step|0|ProfilerStep#6|224936243|38720019|22587443|3731346|167360127\n"
    "coll|0|nccl:all_reduce|15|306684384|46762159|3117477\n"
    "coll|0|nccl:broadcast|6|638712|114334|19055\n"
    "slowest|0\n";

static const char *const expected_sampled =
    "step|0|ProfilerStep#551|607312000|106252000|195327000|23068000|328801000\n"
    "step|0|ProfilerStep#552|622928000|104068000|200872000|36148000|354136000\n"
    "coll|0|nccl:_all_gather_base|2|33554432|106140000|53070000\n"
    "coll|0|nccl:all_reduce|4|314195708|107656000|26914000\n"
    "coll|0|nccl:all_to_all|4|850250752|182403000|45600750\n"
    "step|1|ProfilerStep#551|607904000|135548000|168027000|33691000|338020000\n"
    "step|1|ProfilerStep#552|630639000|136425000|211026000|41839000|325027000\n"
    "coll|1|nccl:_all_gather_base|2|33554432|104907000|52453500\n"
    "coll|1|nccl:all_reduce|4|284846792|44446000|11111500\n"
    "coll|1|nccl:all_to_all|4|745202432|229700000|57425000\n"
    "slowest|1\n";

static int by_name(const void *a, const void *b)
{
    return strcmp(((const ml_collective *)a)->name, ((const ml_collective *)b)->name);
}

/* The figures in the script's format: per rank its steps then its collectives by name. */
static void format(ml_distributed *d, char *out, size_t cap)
{
    size_t w = 0;
    int ranks[8], nr = 0;
    for (size_t i = 0; i < d->n_steps; i++)
        if (!nr || ranks[nr - 1] != d->steps[i].rank) ranks[nr++] = d->steps[i].rank;
    for (int r = 0; r < nr; r++) {
        for (size_t i = 0; i < d->n_steps; i++) {
            const ml_dist_step *s = &d->steps[i];
            if (s->rank != ranks[r]) continue;
            w += (size_t)snprintf(out + w, cap - w, "step|%d|%s|%lld|%lld|%lld|%lld|%lld\n", s->rank, s->step,
                                  (long long)(s->end_ns - s->begin_ns), (long long)s->computation_ns,
                                  (long long)s->communication_ns, (long long)s->overlap_ns, (long long)s->other_ns);
        }
        size_t first = 0, n = 0;
        for (size_t i = 0; i < d->n_collectives; i++)
            if (d->collectives[i].rank == ranks[r]) first = n ? first : i, n++;
        if (n) qsort(d->collectives + first, n, sizeof *d->collectives, by_name);
        for (size_t i = first; i < first + n; i++) {
            const ml_collective *c = &d->collectives[i];
            w += (size_t)snprintf(out + w, cap - w, "coll|%d|%s|%llu|%lld|%lld|%lld\n", c->rank, c->name,
                                  (unsigned long long)c->calls, (long long)c->bytes, (long long)c->total_ns,
                                  (long long)c->mean_ns);
        }
    }
    snprintf(out + w, cap - w, "slowest|%d\n", d->slowest_rank);
}

static void check_real(const char *const *files, size_t n, const char *expected, int *ran)
{
    ml_profiles ps;
    memset(&ps, 0, sizeof ps);
    ps.needs.time = true;
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/kineto/%s", check_data_dir(), files[i]);
        if (access(path, R_OK) != 0) goto out;
        if (ml_load(path, &ps, &err) < 0) {
            CHECK_FAILED_("load %s: %s", path, err.msg);
            goto out;
        }
    }
    ++*ran;
    ml_profiles_sort(&ps);
    ml_distributed *d = ml_distributed_compute(ps.items.v, ps.items.len);
    CHECK(d != NULL);
    if (d) {
        static char got[8192];
        format(d, got, sizeof got);
        if (strcmp(got, expected)) CHECK_FAILED_("%s:\n--- memlens\n%s--- expected\n%s", files[0], got, expected);
        CHECK_EQ_STR(d->backend, "nccl");
        ml_distributed_free(d);
    }
out:
    ml_profiles_free(&ps);
}

TEST(real_nccl_traces_match_distributed_expected_py)
{
    static const char *const nccl[] = {"hta_nccl_data.json.gz"};
    static const char *const sampled[] = {"hta_sampled_rank-0.json.gz", "hta_sampled_rank-1.json.gz"};
    int ran = 0;
    check_real(nccl, 1, expected_nccl, &ran);
    check_real(sampled, 2, expected_sampled, &ran);
    if (!ran) SKIP("../shared/data/kineto not available");
}

int main(void)
{
    RUN(two_ranks_by_hand);
    RUN(collectives_apart_by_process_group_size);
    RUN(cpu_only_rank_and_whole_trace_step);
    RUN(group_size_from_one_process_group);
    RUN(single_rank_without_communication_is_not_distributed);
    RUN(dtype_sizes);
    RUN(real_nccl_traces_match_distributed_expected_py);
    return check_report();
}
