/*
 * test_logdir.c — importers/logdir.h: file names read as the TensorBoard
 * plugin's WORKER_PATTERN reads them, the distributedInfo rank of a head,
 * and a listing classified into runs, workers and spans (a job stays a job).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "logdir.h"

static bool name_is(const char *base, const char *worker, const char *stamp)
{
    char *w, *s;
    if (!ml_logdir_parse_name(base, &w, &s)) return worker == NULL;
    bool same = worker && !strcmp(w, worker) && !strcmp(s, stamp);
    free(w);
    free(s);
    return same;
}

TEST(names_as_the_plugin_reads_them)
{
    CHECK(name_is("host_1234.1796195292425060536.pt.trace.json", "host_1234", "1796195292425060536"));
    CHECK(name_is("host_1234.17.pt.trace.json.gz", "host_1234", "17"));
    CHECK(name_is("worker0.pt.trace.json", "worker0", ""));          /* no span */
    CHECK(name_is("a.b.c.pt.trace.json", "a.b.c", ""));              /* dots, no digits */
    CHECK(name_is("rank7.pt.trace.json", "rank7", ""));              /* digits without a dot: the name's */
    CHECK(name_is("trace.json", NULL, NULL));
    CHECK(name_is("x.pt.trace.json.bz2", NULL, NULL));
    CHECK(name_is(".pt.trace.json", NULL, NULL));                     /* nothing before the suffix */
}

TEST(rank_of_a_head)
{
    const char *h = "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 12, \"world_size\": 16}, \"rank\": 3}";
    CHECK(ml_logdir_rank_in((const unsigned char *)h, strlen(h)) == 12);
    const char *none = "{\"rank\": 3, \"traceEvents\": []}";
    CHECK(ml_logdir_rank_in((const unsigned char *)none, strlen(none)) == -1);
    const char *cut = "{\"distributedInfo\": {\"rank\": "; /* the head ends there */
    CHECK(ml_logdir_rank_in((const unsigned char *)cut, strlen(cut)) == -1);
}

TEST(runs_workers_spans)
{
    char *paths[] = {"lg/run_a/w.200.pt.trace.json", "lg/run_a/w.100.pt.trace.json", "lg/run_a/v.150.pt.trace.json",
                     "lg/run_b/w.300.pt.trace.json.gz"};
    ml_logdir_place pl[4];
    size_t runs;
    int most;
    CHECK(ml_logdir_classify("lg", paths, 4, pl, &runs, &most));
    CHECK(runs == 2 && most == 2);
    CHECK_EQ_STR(pl[0].run, "run_a");
    CHECK(pl[0].span == 2 && pl[1].span == 1 && pl[0].spans == 2); /* in timestamp order, not name order */
    CHECK(pl[2].span == 1 && pl[2].spans == 1);
    CHECK_EQ_STR(pl[3].run, "run_b");
    CHECK(ml_logdir_span_is(&pl[0], "2") && ml_logdir_span_is(&pl[0], "200") && !ml_logdir_span_is(&pl[0], "1"));
    for (int i = 0; i < 4; i++) ml_logdir_place_free(&pl[i]);
    /* timestamps of different lengths: numeric order (the shorter is earlier) */
    char *uneven[] = {"r/w.99.pt.trace.json", "r/w.100.pt.trace.json"};
    CHECK(ml_logdir_classify("r", uneven, 2, pl, &runs, &most));
    CHECK(pl[0].span == 1 && pl[1].span == 2);
    CHECK_EQ_STR(pl[0].run, "r"); /* files in the logdir itself: the run named by its base name */
    for (int i = 0; i < 2; i++) ml_logdir_place_free(&pl[i]);
}

TEST(a_job_stays_a_job)
{
    /* one window per worker: ranks of one job */
    char *job[] = {"j/host_1.100.pt.trace.json", "j/host_2.100.pt.trace.json"};
    ml_logdir_place pl[3];
    size_t runs;
    int most;
    CHECK(!ml_logdir_classify("j", job, 2, pl, &runs, &most));
    CHECK(runs == 1 && most == 1);
    for (int i = 0; i < 2; i++) ml_logdir_place_free(&pl[i]);
    /* another kind of file among them: a set of files */
    char *mixed[] = {"m/a/w.1.pt.trace.json", "m/b/w.2.pt.trace.json", "m/snapshot.pickle"};
    CHECK(!ml_logdir_classify("m", mixed, 3, pl, &runs, &most));
    CHECK(runs == 0 && pl[0].run == NULL);
}

int main(void)
{
    RUN(names_as_the_plugin_reads_them);
    RUN(rank_of_a_head);
    RUN(runs_workers_spans);
    RUN(a_job_stays_a_job);
    return check_report();
}
