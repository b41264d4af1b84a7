/* test_loader.c — the loader every loader of ranks shares (loadpar.h): a
 * request (ML_LOAD_NOW, the rank a page asks for) is begun before the
 * background loads queued before it, background loads keep to their share
 * of the threads so that a request finds one free, loads queued when the
 * loader stops are told skipped, and a batch (the CLI's job, MPI's share,
 * the server's Cluster pass) gives each unit's profiles and the error of
 * the first failing unit in list order, on its own loader or a shared one. */
#include "check.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "loadpar.h"

static char tmpdir[256];

/* A tiny Kineto trace with one allocation of `bytes` on cuda:0; its path. */
static char *trace_file(const char *name, long bytes)
{
    char *path = ml_malloc(512);
    snprintf(path, 512, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) CHECK_FAILED_("cannot write %s", path);
    else {
        fprintf(f, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,"
                   "\"ts\":10,\"dur\":50},{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":"
                   "{\"Device Type\":1,\"Device Id\":0,\"Addr\":99,\"Bytes\":%ld,\"Total Allocated\":%ld,"
                   "\"Total Reserved\":%ld}}]}",
                bytes, bytes, bytes);
        fclose(f);
    }
    return path;
}

/* What the loads below record: the order they began and ended in, and a
 * gate the first background load waits at, so that the queue fills behind it. */
typedef struct log {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool gate_open;
    size_t gated;            /* the tag that waits at the gate */
    char began[16], ended[16];
    size_t nbegan, nended;
    int64_t bytes[16];       /* per tag: the allocation's bytes it loaded; -1 skipped, -2 failed */
} log;

static bool on_begin(void *arg, size_t tag)
{
    log *g = arg;
    pthread_mutex_lock(&g->mu);
    g->began[g->nbegan++] = (char)('0' + tag);
    pthread_cond_broadcast(&g->cv);
    while (tag == g->gated && !g->gate_open) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    return true;
}

static void on_done(void *arg, size_t tag, ml_profiles *ps, int rc, const ml_err *e)
{
    log *g = arg;
    int64_t b = !ps ? -1 : rc != 0 ? -2 : ps->items.len ? ps->items.v[0]->allocs.size.v[0] : 0;
    pthread_mutex_lock(&g->mu);
    g->ended[g->nended++] = (char)('0' + tag);
    g->bytes[tag] = b;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static void log_init(log *g, size_t gated)
{
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->gated = gated;
}

/* Waits (up to 10 s) until cond holds of g, under its lock. */
#define WAIT_FOR(g, cond)                                                                       \
    do {                                                                                        \
        struct timespec until_;                                                                 \
        clock_gettime(CLOCK_REALTIME, &until_);                                                 \
        until_.tv_sec += 10;                                                                    \
        pthread_mutex_lock(&(g)->mu);                                                           \
        while (!(cond) && pthread_cond_timedwait(&(g)->cv, &(g)->mu, &until_) == 0) {}          \
        pthread_mutex_unlock(&(g)->mu);                                                         \
    } while (0)

static void open_gate(log *g)
{
    pthread_mutex_lock(&g->mu);
    g->gate_open = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static ml_load_req req(const char *path, ml_load_prio prio, size_t tag, log *g)
{
    return (ml_load_req){.path = path, .bytes = 1, .needs = {.time = true}, .prio = prio, .begin = on_begin,
                         .done = on_done, .arg = g, .tag = tag};
}

TEST(request_overtakes_queued_background_loads)
{
    char *a = trace_file("a.json", 1024), *b = trace_file("b.json", 2048);
    ml_err e = {{0}};
    ml_loader *ld = ml_loader_start(1, 0, &e);
    CHECK(ld != NULL);
    if (!ld) return;
    log g;
    log_init(&g, 0);
    ml_load_req r = req(a, ML_LOAD_BACKGROUND, 0, &g);
    ml_loader_submit(ld, &r);
    WAIT_FOR(&g, g.nbegan == 1); /* 0 holds the one thread: 1, 2 and 3 queue behind it */
    r = req(a, ML_LOAD_BACKGROUND, 1, &g), ml_loader_submit(ld, &r);
    r = req(a, ML_LOAD_BACKGROUND, 2, &g), ml_loader_submit(ld, &r);
    r = req(b, ML_LOAD_NOW, 3, &g), ml_loader_submit(ld, &r);
    open_gate(&g);
    WAIT_FOR(&g, g.nended == 4);
    ml_loader_stop(ld);
    CHECK_EQ_STR(g.began, "0312");
    CHECK_EQ_STR(g.ended, "0312");
    CHECK_EQ_I64(g.bytes[3], 2048); /* the request's own file, loaded */
    CHECK_EQ_I64(g.bytes[1], 1024);
    free(a);
    free(b);
}

TEST(background_loads_leave_a_thread_for_requests)
{
    char *a = trace_file("a.json", 1024);
    ml_err e = {{0}};
    ml_loader *ld = ml_loader_start(2, 1, &e); /* two threads, background loads on one */
    CHECK(ld != NULL);
    if (!ld) return;
    CHECK_EQ_I64(ml_loader_threads(ld), 2);
    log g;
    log_init(&g, 0);
    ml_load_req r = req(a, ML_LOAD_BACKGROUND, 0, &g);
    ml_loader_submit(ld, &r);
    WAIT_FOR(&g, g.nbegan == 1);
    r = req(a, ML_LOAD_BACKGROUND, 1, &g), ml_loader_submit(ld, &r);
    r = req(a, ML_LOAD_NOW, 2, &g), ml_loader_submit(ld, &r);
    WAIT_FOR(&g, g.nended == 1); /* 0 still held at the gate: 2 is loaded beside it, 1 waits for 0's place */
    pthread_mutex_lock(&g.mu);
    CHECK_EQ_STR(g.ended, "2");
    CHECK_EQ_STR(g.began, "02");
    pthread_mutex_unlock(&g.mu);
    open_gate(&g);
    WAIT_FOR(&g, g.nended == 3);
    ml_loader_stop(ld);
    CHECK_EQ_STR(g.began, "021");
    free(a);
}

TEST(stop_tells_queued_loads_skipped)
{
    char *a = trace_file("a.json", 1024);
    ml_err e = {{0}};
    ml_loader *ld = ml_loader_start(1, 0, &e);
    CHECK(ld != NULL);
    if (!ld) return;
    log g;
    log_init(&g, 0);
    ml_load_req r = req(a, ML_LOAD_BACKGROUND, 0, &g);
    ml_loader_submit(ld, &r);
    WAIT_FOR(&g, g.nbegan == 1);
    r = req(a, ML_LOAD_NOW, 1, &g), ml_loader_submit(ld, &r);
    r = req("/nonexistent/x.json", ML_LOAD_BACKGROUND, 2, &g), ml_loader_submit(ld, &r);
    open_gate(&g); /* 0 may finish before or after stop is asked: begun, it is finished either way */
    ml_loader_stop(ld);
    CHECK_EQ_I64(g.nended, 3);
    CHECK_EQ_I64(g.bytes[0], 1024);
    /* 1 and 2: loaded (1, and 2 failing) or skipped, never lost */
    CHECK(g.bytes[1] == 1024 || g.bytes[1] == -1);
    CHECK(g.bytes[2] == -2 || g.bytes[2] == -1);
    free(a);
}

typedef struct got {
    pthread_mutex_t mu;
    int64_t bytes[8];
} got;

static void take(void *arg, size_t unit, size_t k, ml_profile *p)
{
    got *t = arg;
    pthread_mutex_lock(&t->mu);
    t->bytes[unit] = p->allocs.size.v[0];
    pthread_mutex_unlock(&t->mu);
}

static void add(ml_unit_list *l, char *path)
{
    ml_unit u = {path, 100, false, l->units.len, {0}};
    VEC_PUSH(&l->units, u);
}

TEST(batch_gives_profiles_and_first_failure_on_any_loader)
{
    char *bad1 = ml_strdup("/nonexistent/one.json"), *bad2 = ml_strdup("/nonexistent/two.json");
    ml_unit_list l = {0};
    add(&l, trace_file("u0.json", 100));
    add(&l, bad2);
    add(&l, trace_file("u2.json", 300));
    add(&l, bad1);
    for (int shared = 0; shared < 2; shared++)
        for (int jobs = 1; jobs <= 3; jobs += 2) {
            got t = {.mu = PTHREAD_MUTEX_INITIALIZER};
            ml_each_opts o = {.needs = {.time = true}, .jobs = jobs};
            ml_each_result res;
            ml_err e = {{0}};
            int rc;
            if (shared) {
                ml_loader *ld = ml_loader_start(jobs, 0, &e);
                rc = ml_batch_wait(ml_batch_start(ld, &l, &o, ML_LOAD_BACKGROUND, take, &t), &res, &e);
                ml_loader_stop(ld);
            } else rc = ml_load_each(&l, &o, take, &t, &res, &e);
            CHECK_EQ_I64(rc, -1);
            CHECK_EQ_I64(res.failed_unit, 1); /* the first failing unit in list order, whatever ran first */
            CHECK_CONTAINS(e.msg, "/nonexistent/two.json");
            CHECK_EQ_I64(t.bytes[0], 100);
            CHECK_EQ_I64(res.profiles[0], 1);
            CHECK_EQ_I64(res.profiles[1], 0);
            ml_each_result_free(&res);
            /* only the good ones: every profile, no error */
            size_t only[] = {2, 0};
            o.only = only, o.n_only = 2;
            memset(&t.bytes, 0, sizeof t.bytes);
            rc = ml_load_each(&l, &o, take, &t, &res, &e);
            CHECK_EQ_I64(rc, 0);
            CHECK_EQ_I64(t.bytes[0], 100);
            CHECK_EQ_I64(t.bytes[2], 300);
            CHECK_EQ_I64(res.profiles[2], 1);
            ml_each_result_free(&res);
        }
    for (size_t i = 0; i < l.units.len; i++) free(l.units.v[i].path);
    VEC_FREE(&l.units);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/memlens-test-loader-XXXXXX");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 1; }
    RUN(request_overtakes_queued_background_loads);
    RUN(background_loads_leave_a_thread_for_requests);
    RUN(stop_tells_queued_loads_skipped);
    RUN(batch_gives_profiles_and_first_failure_on_any_loader);
    const char *names[] = {"a.json", "b.json", "u0.json", "u2.json"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", tmpdir, names[i]);
        unlink(p);
    }
    rmdir(tmpdir);
    return check_report();
}
