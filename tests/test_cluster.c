/* The cluster analysis (cluster.h) on hand-made records, every figure worked
 * out by hand in the comments; the rank order; records as bytes and back. */
#include "check.h"
#include "cluster.h"
#include "rankrec.h"

#define MiB (1024LL * 1024)
#define GiB (1024LL * MiB)
#define MS 1000000LL

/* A record with steps of the given durations (ms) and end-of-step bytes. */
static ml_rankrec *rec(int rank, int64_t peak, int64_t ooms, const int64_t *dur_ms, const int64_t *end_bytes, int n)
{
    ml_rankrec *r = ml_calloc(1, sizeof *r);
    r->rank = rank;
    r->world_size = 8;
    char path[32];
    snprintf(path, sizeof path, "rank%d.json", rank);
    r->path = ml_strdup(path);
    r->format = ml_strdup("kineto");
    snprintf(r->main_device, sizeof r->main_device, "cuda:%d", rank % 4);
    r->main_index = rank % 4;
    r->peak_allocated = peak;
    r->peak_reserved = -1;
    r->total_memory = -1;
    r->oom_events = ooms;
    int64_t t = 1000;
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", 7 + i);
        ml_rr_step s = {ml_strdup(name), t, t + dur_ms[i] * MS, -1, end_bytes ? end_bytes[i] : -1, -1, -1, -1, -1};
        VEC_PUSH(&r->steps, s);
        t += dur_ms[i] * MS;
    }
    return r;
}

TEST(digest_by_hand)
{
    /* peaks 100 102 98 101 99 300 (ranks 0..5), no steps */
    const int64_t peaks[6] = {100, 102, 98, 101, 99, 300};
    ml_rankrec *v[6];
    for (int i = 0; i < 6; i++) v[i] = rec(i, peaks[i], 0, NULL, NULL, 0);
    ml_cluster *c = ml_cluster_compute(v, 6);
    const ml_digest *d = &c->digest[ML_CM_PEAK_ALLOCATED];
    CHECK_EQ_I64(d->n, 6);
    /* sorted 98 99 100 101 102 300: min 98 (rank 2), max 300 (rank 5) */
    CHECK_EQ_I64(d->min, 98);
    CHECK_EQ_I64(c->ranks[d->min_at].rank, 2);
    CHECK_EQ_I64(d->max, 300);
    CHECK_EQ_I64(c->ranks[d->max_at].rank, 5);
    /* nearest rank: p50 the ceil(3)rd = 100, p90 the ceil(5.4) = 6th = 300 */
    CHECK_EQ_I64(d->p50, 100);
    CHECK_EQ_I64(d->p90, 300);
    /* median (100 + 101) / 2; |x - 100.5| = .5 1.5 2.5 .5 1.5 199.5 -> MAD (1.5 + 1.5) / 2 */
    CHECK_EQ_DBL(d->median, 100.5, 1e-9);
    CHECK_EQ_DBL(d->mad, 1.5, 1e-9);
    /* highest five 300 102 101 100 99 (ranks 5 1 3 0 4), lowest 98 99 100 101 102 (2 4 0 3 1) */
    const int top[5] = {5, 1, 3, 0, 4}, bottom[5] = {2, 4, 0, 3, 1};
    CHECK_EQ_I64(d->n_top, 5);
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_I64(c->ranks[d->top[i]].rank, top[i]);
        CHECK_EQ_I64(c->ranks[d->bottom[i]].rank, bottom[i]);
    }
    /* score of 300: 0.6745 x 199.5 / 1.5 (MAD above the floor, 1% of 100.5) = 89.70850; of 102: 0.6745 */
    CHECK_EQ_DBL(ml_cluster_score(d, 1.005, 300), 89.7085, 1e-9);
    CHECK_EQ_DBL(ml_cluster_score(d, 1.005, 102), 0.6745, 1e-9);
    /* the one outlier: rank 5's peak; no steps, no other metric */
    CHECK_EQ_I64(c->n_outliers, 1);
    CHECK_EQ_I64(c->ranks[c->outliers[0].at].rank, 5);
    CHECK_EQ_I64(c->outliers[0].metric, ML_CM_PEAK_ALLOCATED);
    CHECK_EQ_DBL(c->outliers[0].score, 89.7085, 1e-9);
    CHECK_EQ_I64(c->digest[ML_CM_STEP_TIME].n, 0);
    /* cuda:0..3 -> 4 ranks per node; world size from the records */
    CHECK_EQ_I64(c->ranks_per_node, 4);
    CHECK_EQ_I64(c->world_size, 8);
    ml_cluster_free(c);
    for (int i = 0; i < 6; i++) ml_rankrec_free(v[i]);
}

TEST(steps_growth_and_oom_by_hand)
{
    /* five ranks, three steps each, 1 GiB peaks */
    const int64_t flat[3] = {10 * MiB, 10 * MiB, 10 * MiB}, leak[3] = {10 * MiB, 74 * MiB, 138 * MiB},
                  bump[3] = {10 * MiB, 11 * MiB, 10 * MiB};
    const int64_t even[3] = {100, 100, 100}, slow[3] = {100, 100, 130};
    ml_rankrec *v[5] = {rec(0, GiB, 0, even, flat, 3), rec(1, GiB, 0, even, flat, 3), rec(2, GiB, 2, even, flat, 3),
                        rec(3, GiB, 0, even, leak, 3), rec(4, GiB, 0, slow, bump, 3)};
    ml_cluster *c = ml_cluster_compute(v, 5);
    /* growth: least squares over x = 0 1 2: leak (138 - 10) / 2 = 64 MiB/step; bump 0 */
    CHECK_EQ_I64(c->ranks[3].value[ML_CM_GROWTH], 64 * MiB);
    CHECK_EQ_I64(c->ranks[4].value[ML_CM_GROWTH], 0);
    CHECK_EQ_I64(c->ranks[0].value[ML_CM_GROWTH], 0);
    /* step time: 100 ms, rank 4 (100 + 100 + 130) / 3 = 110 ms */
    CHECK_EQ_I64(c->ranks[4].value[ML_CM_STEP_TIME], 110 * MS);
    CHECK_EQ_I64(c->ranks[0].value[ML_CM_STEP_TIME], 100 * MS);
    CHECK_EQ_I64(c->ranks[0].steps, 3);
    CHECK(!c->ranks[0].has[ML_CM_COMPUTE]); /* no time side */
    /* outliers, by metric: step time (rank 4: MAD 0, floor 1 ms: 0.6745 x 10 = 6.745),
     * growth (rank 3: MAD 0, floor max(0.05% of 1 GiB, 1 MiB) = 1 MiB: 0.6745 x 64 = 43.168),
     * out of memory (rank 2, 2 events, no score) */
    CHECK_EQ_I64(c->n_outliers, 3);
    CHECK_EQ_I64(c->outliers[0].metric, ML_CM_STEP_TIME);
    CHECK_EQ_I64(c->ranks[c->outliers[0].at].rank, 4);
    CHECK_EQ_DBL(c->outliers[0].score, 6.745, 1e-9);
    CHECK_EQ_I64(c->outliers[1].metric, ML_CM_GROWTH);
    CHECK_EQ_I64(c->ranks[c->outliers[1].at].rank, 3);
    CHECK_EQ_DBL(c->outliers[1].score, 43.168, 1e-9);
    CHECK_EQ_I64(c->outliers[2].metric, ML_CM_OOM);
    CHECK_EQ_I64(c->ranks[c->outliers[2].at].rank, 2);
    CHECK_EQ_I64(c->outliers[2].value, 2);
    CHECK(!c->outliers[2].scored);
    /* p90 of five: the ceil(4.5) = 5th */
    CHECK_EQ_I64(c->digest[ML_CM_STEP_TIME].p90, 110 * MS);
    CHECK_EQ_I64(c->digest[ML_CM_STEP_TIME].p50, 100 * MS);
    ml_cluster_free(c);
    /* three ranks are too few to score: only the out-of-memory rank */
    c = ml_cluster_compute(v + 2, 3);
    CHECK_EQ_I64(c->n_outliers, 1);
    CHECK_EQ_I64(c->outliers[0].metric, ML_CM_OOM);
    ml_cluster_free(c);
    for (int i = 0; i < 5; i++) ml_rankrec_free(v[i]);
}

TEST(rank_order)
{
    ml_rankrec *v[4] = {rec(3, 1, 0, NULL, NULL, 0), rec(-1, 1, 0, NULL, NULL, 0), rec(1, 1, 0, NULL, NULL, 0),
                        rec(-1, 1, 0, NULL, NULL, 0)};
    free(v[3]->path);
    v[3]->path = ml_strdup("a.json"); /* unknown ranks last, by path */
    ml_rankrecs_sort(v, 4);
    CHECK_EQ_I64(v[0]->rank, 1);
    CHECK_EQ_I64(v[1]->rank, 3);
    CHECK(!strcmp(v[2]->path, "a.json"));
    CHECK(!strcmp(v[3]->path, "rank-1.json"));
    for (int i = 0; i < 4; i++) ml_rankrec_free(v[i]);
}

TEST(pack_and_unpack)
{
    const int64_t dur[2] = {5, 6}, end[2] = {7, 8};
    ml_rankrec *r = rec(9, 12345, 1, dur, end, 2);
    r->host = ml_strdup("node-3");
    r->has_time = true;
    r->steps.v[1].comm_ns = 77;
    ml_rr_coll c = {ml_strdup("nccl:all_reduce"), 4, 1024, 900, 225, 8};
    VEC_PUSH(&r->colls, c);
    ml_rr_device dv = {"cuda:1", 12345, 99, -1, true};
    VEC_PUSH(&r->devices, dv);
    r->mark[1] = 42;
    /* the stragglers' part: steps and communication kernels, names owned by the record */
    r->strag.rank = 9;
    r->strag.first = 100;
    r->strag.last = 900;
    r->strag.n_steps = 2;
    r->strag.steps = ml_malloc(2 * sizeof *r->strag.steps);
    r->strag.steps[0] = 7, r->strag.steps[1] = 8;
    r->strag.n_kernels = 1;
    r->strag.kernels = ml_malloc(sizeof *r->strag.kernels);
    r->strag.kernels[0] = (ml_straggler_kernel){8, 20, 500, 40, ml_strdup("ncclDevKernel_AllReduce")};
    ml_spool *s = ml_spool_new(), *s2 = ml_spool_new();
    CHECK(s && s2);
    r->piece[2] = ml_spool_put(s, "{\"piece\": 2}", 12);
    ml_bytes b = {0};
    ml_rankrec_pack(r, s, &b);
    ml_rankrec *back;
    CHECK_EQ_I64(ml_rankrec_unpack(b.p, b.len, s2, &back), b.len);
    CHECK(back != NULL);
    if (back) {
        CHECK_EQ_I64(back->rank, 9);
        CHECK(!strcmp(back->host, "node-3"));
        CHECK(back->backend == NULL);
        CHECK_EQ_I64(back->steps.len, 2);
        CHECK(!strcmp(back->steps.v[1].name, "ProfilerStep#8"));
        CHECK_EQ_I64(back->steps.v[1].comm_ns, 77);
        CHECK_EQ_I64(back->steps.v[1].end_bytes, 8);
        CHECK_EQ_I64(back->colls.len, 1);
        CHECK(!strcmp(back->colls.v[0].name, "nccl:all_reduce"));
        CHECK_EQ_I64(back->colls.v[0].bytes, 1024);
        CHECK_EQ_I64(back->colls.v[0].group_size, 8);
        CHECK_EQ_I64(back->devices.len, 1);
        CHECK(!strcmp(back->devices.v[0].id, "cuda:1"));
        CHECK_EQ_I64(back->mark[1], 42);
        CHECK_EQ_I64(back->strag.rank, 9);
        CHECK_EQ_I64(back->strag.first, 100);
        CHECK_EQ_I64(back->strag.last, 900);
        CHECK_EQ_I64(back->strag.n_steps, 2);
        if (back->strag.n_steps == 2) CHECK_EQ_I64(back->strag.steps[1], 8);
        CHECK_EQ_I64(back->strag.n_kernels, 1);
        if (back->strag.n_kernels == 1) {
            CHECK(!strcmp(back->strag.kernels[0].name, "ncclDevKernel_AllReduce"));
            CHECK_EQ_I64(back->strag.kernels[0].step, 8);
            CHECK_EQ_I64(back->strag.kernels[0].stream, 20);
            CHECK_EQ_I64(back->strag.kernels[0].ts, 500);
            CHECK_EQ_I64(back->strag.kernels[0].dur, 40);
        }
        CHECK_EQ_I64(back->piece[0].len, 0);
        char *p = ml_spool_get(s2, back->piece[2]);
        CHECK(!strcmp(p, "{\"piece\": 2}"));
        free(p);
        ml_rankrec_free(back);
    }
    /* cut anywhere: not a record */
    CHECK_EQ_I64(ml_rankrec_unpack(b.p, b.len - 3, s2, &back), 0);
    CHECK_EQ_I64(ml_rankrec_unpack(b.p + 1, b.len - 1, s2, &back), 0);
    ml_bytes_free(&b);
    ml_spool_free(s);
    ml_spool_free(s2);
    ml_rankrec_free(r);
}

int main(void)
{
    RUN(digest_by_hand);
    RUN(steps_growth_and_oom_by_hand);
    RUN(rank_order);
    RUN(pack_and_unpack);
    return check_report();
}
