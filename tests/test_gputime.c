/* HTA's GPU-time analyses (gputime.h) on timelines built by hand, whose
 * answers are worked out in the comments (µs; the timelines hold ns, hence
 * US), exact ns times and HTA's µs grid (gputimeline.h). tests/cli_hta.sh
 * checks whole traces. */
#include <math.h>

#include "check.h"
#include "gputime.h"
#include "jsonw.h"
#include "kineto_json.h"
#include "perf_gputime.h"
#include "trace.h"

#define US 1000 /* timeline times are ns */

static ml_gpu_event ev(int64_t start, int64_t end, int64_t stream, ml_kernel_type type)
{
    return (ml_gpu_event){.start = start * US, .end = end * US, .stream = stream, .type = (uint8_t)type, .work = 1,
                          .launcher = ML_NONE32, .slice = 0};
}

static ml_gpu_event launched(ml_gpu_event e, int64_t launch, int64_t launch_end)
{
    e.launch = launch * US, e.launch_end = launch_end * US, e.launcher = 0, e.launch_kind = ML_LAUNCH_STATS;
    return e;
}

/* Kernel types by name, as HTA's regular expressions type them. */
TEST(kernel_type_names)
{
    CHECK_EQ_I64(ml_kernel_type_of("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"), ML_KT_COMMUNICATION);
    CHECK_EQ_I64(ml_kernel_type_of("void ncclKernel_AllGather<2>"), ML_KT_COMMUNICATION); /* .*ncclKernel.* */
    CHECK_EQ_I64(ml_kernel_type_of("hipMemcpyAsync"), ML_KT_COMMUNICATION);                 /* ^hip: comm first */
    CHECK_EQ_I64(ml_kernel_type_of("Memcpy DtoD (Device -> Device)"), ML_KT_MEMORY);
    CHECK_EQ_I64(ml_kernel_type_of("Memset (Device)"), ML_KT_MEMORY);
    CHECK_EQ_I64(ml_kernel_type_of("dma_copy"), ML_KT_MEMORY);
    CHECK_EQ_I64(ml_kernel_type_of("volta_sgemm_128x64_nn"), ML_KT_COMPUTATION);
    CHECK_EQ_I64(ml_kernel_type_of("Stream Sync"), ML_KT_OTHER);         /* ^.*Sync */
    CHECK_EQ_I64(ml_kernel_type_of("Stream Wait Event"), ML_KT_OTHER);
    CHECK_EQ_I64(ml_kernel_type_of("void my_dmax_kernel"), ML_KT_OTHER); /* .*dma: HTA's rule, taken as it is */
    CHECK_EQ_I64(ml_kernel_type_of("cudaLaunchKernel"), ML_KT_OTHER);    /* cuda.*LaunchKernel */
    CHECK_EQ_I64(ml_kernel_type_of("mycudaLaunchKernel"), ML_KT_COMPUTATION); /* anchored: not ^cuda */
    CHECK(!strcmp(ml_kernel_mask_name(7), "COMPUTATION overlapping COMMUNICATION overlapping MEMORY"));
}

/* HTA's grid: start rounded up, end (in float64, start + dur) down; exact
 * times as they are.  Times on the file's clock (ns after the trace's base,
 * which is what the importer added). */
TEST(grid_rounding)
{
    ml_profile *p = ml_profile_new("t.json", "kineto");
    p->trace = ml_trace_new();
    p->trace->base_ns = 1000000000; /* baseTimeNanoseconds: the file's ts 60.5 µs is 1000060500 ns here */
    int64_t b, e;
    ml_gpu_grid_of(p, ML_TIME_HTA, 1000060500, 5200, &b, &e); /* [60.5, 65.7): [61, 65] */
    CHECK_EQ_I64(b, 61 * US);
    CHECK_EQ_I64(e, 65 * US);
    ml_gpu_grid_of(p, ML_TIME_EXACT, 1000060500, 5200, &b, &e);
    CHECK_EQ_I64(b, 60500);
    CHECK_EQ_I64(e, 65700);
    ml_gpu_grid_of(p, ML_TIME_HTA, 1000354200, 500, &b, &e); /* [354.2, 354.7): 355, 354: ends before it starts */
    CHECK_EQ_I64(b, 355 * US);
    CHECK_EQ_I64(e, 354 * US);
    ml_gpu_grid_of(p, ML_TIME_EXACT, 1000354200, 500, &b, &e); /* exact: 500 ns long */
    CHECK_EQ_I64(e - b, 500);
    ml_gpu_grid_of(p, ML_TIME_HTA, 1000010000, 20000, &b, &e); /* whole µs stay as they are */
    CHECK_EQ_I64(b, 10 * US);
    CHECK_EQ_I64(e, 30 * US);
    /* An epoch-µs ts: 1695835572943623.1 µs is not a double; the nearest is
     * ...623.0 (doubles there are 0.25 apart), whose ceiling is 623, as in
     * Python, not 624; its end 623.0 + 2.0 = 625.  Exact: the 100 ns stay. */
    p->trace->base_ns = 0;
    ml_gpu_grid_of(p, ML_TIME_HTA, INT64_C(1695835572943623100), 2000, &b, &e);
    CHECK_EQ_I64(b, INT64_C(1695835572943623) * US);
    CHECK_EQ_I64(e, INT64_C(1695835572943625) * US);
    ml_gpu_grid_of(p, ML_TIME_EXACT, INT64_C(1695835572943623100), 2000, &b, &e);
    CHECK_EQ_I64(b, INT64_C(1695835572943623100));
    CHECK_EQ_I64(e, INT64_C(1695835572943625100));
    ml_profile_free(p);
}

/* The importer keeps every digit of ts and dur down to the ns, on both
 * Kineto clocks: baseTimeNanoseconds + relative µs (0.4 -> base + 400 ns),
 * and absolute epoch µs with three decimals (19 digits: more than a double
 * holds, 1695835572943623.123 -> ...623123 ns, not ...623125); dur 3.444 is
 * 3444 ns, a string dur "2.5" 2500.  Exact timeline times are these. */
TEST(ts_text_kept_exact_in_ns)
{
    ml_profile *p = import_trace("{\"baseTimeNanoseconds\": 1700000000000000000, \"traceEvents\":["
                                 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":0.4,"
                                 "\"dur\":3.444,\"args\":{\"stream\":7}}]}");
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_I64(p->trace->slices.ts.v[0], INT64_C(1700000000000000400));
        CHECK_EQ_I64(ml_slice_dur(&p->trace->slices, 0), 3444);
        int64_t b, e;
        ml_gpu_grid_of(p, ML_TIME_EXACT, p->trace->slices.ts.v[0], ml_slice_dur(&p->trace->slices, 0), &b, &e);
        CHECK_EQ_I64(b, 400);
        CHECK_EQ_I64(e, 3844);
        ml_profile_free(p);
    }
    p = import_trace("{\"traceEvents\":["
                     "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
                     "\"ts\":1695835572943623.123,\"dur\":\"2.5\",\"args\":{\"stream\":7}}]}");
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_I64(p->trace->slices.ts.v[0], INT64_C(1695835572943623123));
        CHECK_EQ_I64(ml_slice_dur(&p->trace->slices, 0), 2500);
        ml_profile_free(p);
    }
}

/* Merging as HTA's merge_kernel_intervals: touching intervals merge; an
 * interval under a µs ([12, 11]) is a group of length -1.
 *   all:  [0,10) [10,15) -> [0,15); [12,11] inside it; [20,30) compute;
 *         [40,40) memory; [41,40] alone -> -1
 *   span 40 - 0 = 40; busy 15 + 10 + 0 - 1 = 24; idle 16;
 *   compute: [0,10) [10,15) [20,30) = 25; non-compute 40 - 25 - 16 = -1
 *   (HTA's figure: the -1 group counts as it counts it). */
TEST(temporal_merges_as_hta)
{
    ml_gpu_event e[] = {ev(0, 10, 7, ML_KT_COMPUTATION), ev(10, 15, 7, ML_KT_COMPUTATION), ev(12, 11, 8, ML_KT_OTHER),
                        ev(20, 30, 7, ML_KT_COMPUTATION), ev(40, 40, 7, ML_KT_MEMORY), ev(41, 40, 7, ML_KT_MEMORY)};
    ml_gpu_timeline tl = {.ev = e, .n = sizeof e / sizeof *e};
    ml_temporal t;
    ml_temporal_compute(&tl, &t);
    CHECK(t.known);
    CHECK_EQ_I64(t.span, 40 * US);
    CHECK_EQ_I64(t.idle, 16 * US);
    CHECK_EQ_I64(t.compute, 25 * US);
    CHECK_EQ_I64(t.non_compute, -1 * US);
}

/* Idle gaps on stream 7: [0,10) -> [40,50): gap 30, launched at 5 (before
 * 10), not < 30: other; -> [60,70) launched at 55 > 50: host wait 10;
 * -> [75,80) launched at 60: kernel wait 5.  The sync (work 0) is no gap's end. */
TEST(idle_causes)
{
    ml_gpu_event sync = ev(20, 22, 7, ML_KT_OTHER);
    sync.work = 0;
    ml_gpu_event e[] = {launched(ev(0, 10, 7, ML_KT_COMPUTATION), 0, 2), sync,
                        launched(ev(40, 50, 7, ML_KT_COMPUTATION), 5, 6), launched(ev(60, 70, 7, ML_KT_COMPUTATION), 55, 57),
                        launched(ev(75, 80, 7, ML_KT_COMPUTATION), 60, 61)};
    ml_gpu_timeline tl = {.ev = e, .n = sizeof e / sizeof *e};
    ml_idle_streams s = {0};
    ml_idle_by_stream_compute(&tl, &s);
    CHECK_EQ_I64(s.len, 1);
    CHECK_EQ_I64(s.v[0].ns[ML_IDLE_HOST_WAIT], 10 * US);
    CHECK_EQ_I64(s.v[0].ns[ML_IDLE_KERNEL_WAIT], 5 * US);
    CHECK_EQ_I64(s.v[0].ns[ML_IDLE_OTHER], 30 * US);
    CHECK_EQ_I64(s.v[0].gaps[ML_IDLE_OTHER], 1);
    VEC_FREE(&s);
}

/* Kernels that overlap on one stream (an Ascend stream does this; HTA's
 * rule, gap = start - the previous event's end, makes it negative):
 * [0,100) [10,20) [30,40) [150,160) on stream 4.  The first three are one
 * busy stretch to 100, so the only gap is 100 -> 150: other 50 µs, and no
 * time is negative (HTA: 10-100 = -90, 30-20 = 10, 150-40 = 110). */
TEST(idle_overlapping_kernels_never_negative)
{
    ml_gpu_event e[] = {ev(0, 100, 4, ML_KT_COMPUTATION), ev(10, 20, 4, ML_KT_COMPUTATION),
                        ev(30, 40, 4, ML_KT_COMPUTATION), ev(150, 160, 4, ML_KT_COMPUTATION)};
    ml_gpu_timeline tl = {.ev = e, .n = sizeof e / sizeof *e};
    ml_idle_streams s = {0};
    ml_idle_by_stream_compute(&tl, &s);
    CHECK_EQ_I64(s.len, 1);
    CHECK_EQ_I64(s.v[0].ns[ML_IDLE_KERNEL_WAIT], 0);
    CHECK_EQ_I64(s.v[0].gaps[ML_IDLE_KERNEL_WAIT], 0);
    CHECK_EQ_I64(s.v[0].ns[ML_IDLE_OTHER], 50 * US);
    CHECK_EQ_I64(s.v[0].gaps[ML_IDLE_OTHER], 1);
    CHECK_EQ_I64(s.v[0].ns[ML_IDLE_HOST_WAIT], 0);
    VEC_FREE(&s);
}

/* Types: compute [0,10) [20,30); comm [5,25); memory [8,22), [30,30) (nothing):
 *   0-5 C, 5-8 C+Comm, 8-10 C+Comm+M, 10-20 Comm+M, 20-22 C+Comm+M, 22-25 C+Comm, 25-30 C
 *   C 10, C+Comm 6, C+Comm+M 4, Comm+M 10; overlap (6 + 4) / 20 = 0.5. */
TEST(kernel_types_sweep)
{
    ml_gpu_event e[] = {ev(0, 10, 1, ML_KT_COMPUTATION), ev(5, 25, 2, ML_KT_COMMUNICATION), ev(8, 22, 3, ML_KT_MEMORY),
                        ev(20, 30, 1, ML_KT_COMPUTATION), ev(30, 30, 3, ML_KT_MEMORY)};
    ml_gpu_timeline tl = {.ev = e, .n = sizeof e / sizeof *e};
    ml_kernel_types k;
    ml_kernel_types_compute(&tl, &k);
    CHECK_EQ_I64(k.ns[1], 10 * US);
    CHECK_EQ_I64(k.ns[2], 0);
    CHECK_EQ_I64(k.ns[3], 6 * US);
    CHECK_EQ_I64(k.ns[4], 0);
    CHECK_EQ_I64(k.ns[6], 10 * US);
    CHECK_EQ_I64(k.ns[7], 4 * US);
    CHECK_EQ_I64(k.comm_ns, 20 * US);
    CHECK(fabs(k.comm_comp_overlap - 0.5) < 1e-12);
    ml_gpu_event none[] = {ev(0, 10, 1, ML_KT_COMPUTATION)};
    tl = (ml_gpu_timeline){.ev = none, .n = 1};
    ml_kernel_types_compute(&tl, &k);
    CHECK(isnan(k.comm_comp_overlap));
}

/* A stream of 1,100 kernels launched at t = 0..1099 that start at 2000 + k:
 * the queue climbs to 1,100 at t = 1099, stands at 1,024 or more from the
 * 1,024th launch (t = 1023) until 2000 + 76 (then 1100 - 77 = 1023 remain):
 * blocked 2076 - 1023 = 1053 µs.  Mean over the 2,200 points: the climb
 * 1..1100 and the fall 1099..0 sum to 1100·1101/2 + 1099·1100/2 = 1,210,000;
 * / 2200 = 550. Launches out of order (one thread late) are sorted first. */
TEST(queue_length_and_full_queue)
{
    enum { N = 1100 };
    ml_gpu_event *e = calloc(N, sizeof *e);
    for (int k = 0; k < N; k++) {
        e[k] = launched(ev(2000 + k, 2000 + k + 1, 7, ML_KT_COMPUTATION), k, k + 1);
        e[k].launch_kind = k % 2 ? ML_LAUNCH_QUEUE : ML_LAUNCH_STATS;
    }
    e[10].launch = 11 * US, e[11].launch = 10 * US; /* a launch earlier than the one before it */
    ml_gpu_timeline tl = {.ev = e, .n = N};
    ml_queues q = {0};
    ml_queues_compute(&tl, &q);
    CHECK_EQ_I64(q.len, 1);
    CHECK_EQ_I64(q.v[0].max, N);
    CHECK_EQ_I64(q.v[0].blocked, 1053 * US);
    CHECK(fabs(q.v[0].mean - 550.0) < 1e-9);
    CHECK_EQ_I64(q.v[0].n, 2 * N);
    CHECK_EQ_I64(q.v[0].t[10], 10 * US);
    CHECK_EQ_I64(q.v[0].q[N], N - 1);
    ml_launch_stats l;
    ml_launch_stats_compute(&tl, &l);
    CHECK_EQ_I64(l.count, N / 2); /* the even ones: cudaLaunchKernel; cuLaunchKernel is not in HTA's list */
    ml_queues_free(&q);
    free(e);
}

/* A series of 300,000 points is cut to at most 4 points per column of
 * 40,000, keeping its highest point (a spike of 5,000 among 0s and 1s). */
TEST(long_series_summarised)
{
    ml_profile *p = ml_profile_new("t.json", "kineto");
    p->trace = ml_trace_new();
    ml_gputime g = {.any = true};
    ml_stream_queue row = {.stream = 7, .max = 5000, .mean = 1, .n = 300000};
    row.t = malloc(row.n * sizeof *row.t);
    row.q = malloc(row.n * sizeof *row.q);
    for (size_t i = 0; i < row.n; i++) row.t[i] = (int64_t)i, row.q[i] = (int32_t)(i & 1);
    row.q[123457] = 5000;
    VEC_PUSH(&g.queues, row);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    jw w;
    jw_init(&w, f, false);
    jw_obj(&w);
    ml_gputime_perf_json(&w, p, &g);
    jw_end(&w);
    fclose(f);
    CHECK(strstr(buf, "\"summarised\":300000") != NULL);
    CHECK(strstr(buf, ",5000,") != NULL);
    const char *v = strstr(buf, "\"v\":[");
    size_t points = 1;
    for (const char *c = v; c && *c != ']'; c++) points += *c == ',';
    CHECK(v && points <= 4 * 40000 && points >= 2 * 40000);
    free(buf);
    ml_gputime_free(&g);
    ml_profile_free(p);
}

int main(void)
{
    RUN(kernel_type_names);
    RUN(grid_rounding);
    RUN(ts_text_kept_exact_in_ns);
    RUN(temporal_merges_as_hta);
    RUN(idle_causes);
    RUN(idle_overlapping_kernels_never_negative);
    RUN(kernel_types_sweep);
    RUN(queue_length_and_full_queue);
    RUN(long_series_summarised);
    return check_report();
}
