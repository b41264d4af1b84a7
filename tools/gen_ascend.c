/*
 * gen_ascend.c — writes a small torch_npu profiler output in its text export
 * (what torch_npu.profiler with profile_memory=True and export_type "text"
 * leaves in RANK_ascend_pt/ directories), for `make sample` and the README:
 *
 *     gen_ascend [--ranks N] [--steps N] [--seed S] OUTDIR
 *
 * Per rank, OUTDIR/rankR_ascend_pt/ gets profiler_info_R.json (the rank and
 * the profiler's settings) and ASCEND_PROFILER_OUTPUT/ with
 *   memory_record.csv    the PTA, GE and PTA+GE allocators' totals at each
 *                        allocation and free, the process (APP) every 20 ms
 *   operator_memory.csv  one row per operator allocation: size, allocation
 *                        and release times, the totals at both
 *   npu_module_mem.csv   the driver modules' reserved memory every 20 ms
 *   trace_view.json      the CPU operators (cpu_op) and ProfilerStep#N spans
 * in the columns, units (MB, KB, us with three decimals and the trailing tab
 * torch_npu writes) and order of the real files.  A few steps of a small
 * transformer: weights before the trace, activations kept for backward,
 * gradients, an optimizer step; rank R's activations are R*3% larger, so the
 * ranks differ.  Deterministic for a given seed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0_NS 1736408883500000000LL /* 2025-01-09 07:48:03.5 UTC */
#define MAX_LIVE 4096

typedef struct rng { uint64_t s; } rng;
static uint64_t next(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

typedef struct block {
    const char *op;
    int64_t bytes, t_alloc_ns; /* bytes: a multiple of 512, as the NPU allocator rounds */
    double alloc_tot[3];       /* allocated, reserved, active (MB) at the allocation */
} block;

typedef struct row {
    int64_t t_alloc_ns;
    char *text; /* the operator_memory.csv line */
} row;

typedef struct gen {
    FILE *rec, *ops, *trace; /* ops: the row being written */
    row *rows;
    size_t nrows, caprows;
    int64_t now_ns, allocated, reserved, pta_alloc, ge_alloc;
    block live[MAX_LIVE];
    int nlive;
    int first_event;
    rng r;
} gen;

static double mb(int64_t b) { return (double)b / (1024.0 * 1024.0); }

/* Times as torch_npu writes them: microseconds, three decimals, a tab. */
static void put_us(FILE *f, int64_t ns) { fprintf(f, "%" PRId64 ".%03" PRId64 "\t", ns / 1000, ns % 1000); }

static void record(gen *g)
{
    /* PTA (PyTorch's allocator) holds the tensors; GE (graph engine) a
     * fixed workspace; PTA+GE their sum, the device totals */
    int64_t ge_res = 64LL << 20;
    const char *names[3] = {"PTA", "GE", "PTA+GE"};
    int64_t al[3] = {g->pta_alloc, g->ge_alloc, g->pta_alloc + g->ge_alloc};
    int64_t rs[3] = {g->reserved, ge_res, g->reserved + ge_res};
    for (int c = 0; c < 3; c++) {
        fprintf(g->rec, "%s,", names[c]);
        put_us(g->rec, g->now_ns);
        fprintf(g->rec, ",%.10g,%.10g,%.10g,897357296,NPU:0\n", mb(al[c]), mb(rs[c]), mb(al[c]));
    }
}

static void alloc(gen *g, const char *op, int64_t bytes)
{
    bytes = (bytes + 511) / 512 * 512;
    while (g->allocated + bytes > g->reserved) g->reserved += 20LL << 20; /* segments of 20 MiB */
    g->allocated += bytes;
    g->pta_alloc += bytes;
    g->now_ns += 20000 + (int64_t)(next(&g->r) % 80000); /* 20-100 us apart */
    if (g->nlive < MAX_LIVE) {
        block *b = &g->live[g->nlive++];
        b->op = op;
        b->bytes = bytes;
        b->t_alloc_ns = g->now_ns;
        b->alloc_tot[0] = mb(g->pta_alloc + g->ge_alloc);
        b->alloc_tot[1] = mb(g->reserved + (64LL << 20));
        b->alloc_tot[2] = b->alloc_tot[0];
    }
    record(g);
}

/* Frees the live block k (its operator_memory row is written now). */
static void release(gen *g, int k)
{
    block b = g->live[k];
    g->live[k] = g->live[--g->nlive];
    g->now_ns += 10000 + (int64_t)(next(&g->r) % 40000);
    g->allocated -= b.bytes;
    g->pta_alloc -= b.bytes;
    record(g);
    /* torch_npu lists the rows by allocation time: held until the end, sorted */
    if (g->nrows == g->caprows) {
        g->caprows = g->caprows ? 2 * g->caprows : 256;
        g->rows = realloc(g->rows, g->caprows * sizeof *g->rows);
        if (!g->rows) abort();
    }
    row *rw = &g->rows[g->nrows++];
    rw->t_alloc_ns = b.t_alloc_ns;
    rw->text = NULL;
    size_t len = 0;
    g->ops = open_memstream(&rw->text, &len);
    if (!g->ops) abort();
    fprintf(g->ops, "%s,%.1f,", b.op, (double)b.bytes / 1024.0);
    put_us(g->ops, b.t_alloc_ns);
    fputc(',', g->ops);
    put_us(g->ops, g->now_ns);
    fputc(',', g->ops);
    put_us(g->ops, g->now_ns);
    fputc(',', g->ops);
    int64_t d = g->now_ns - b.t_alloc_ns;
    fprintf(g->ops, "%" PRId64 ".%03" PRId64 "\t,%" PRId64 ".%03" PRId64 "\t,", d / 1000, d % 1000, d / 1000, d % 1000);
    fprintf(g->ops, "%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,897357296,NPU:0\n", b.alloc_tot[0], b.alloc_tot[1],
            b.alloc_tot[2], mb(g->pta_alloc + g->ge_alloc), mb(g->reserved + (64LL << 20)),
            mb(g->pta_alloc + g->ge_alloc));
    fclose(g->ops);
}

static int by_alloc_time(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return (x->t_alloc_ns > y->t_alloc_ns) - (x->t_alloc_ns < y->t_alloc_ns);
}

static void release_op(gen *g, const char *op)
{
    for (int k = g->nlive - 1; k >= 0; k--)
        if (!strcmp(g->live[k].op, op)) release(g, k);
}

static void cpu_op(gen *g, const char *name, int64_t t0, int64_t t1)
{
    fprintf(g->trace, "%s{\"ph\": \"X\", \"name\": \"%s\", \"pid\": 3096504, \"tid\": 3096504, "
                      "\"ts\": \"%" PRId64 ".%03" PRId64 "\", \"dur\": %.3f, \"cat\": \"cpu_op\", \"args\": {}}",
            g->first_event ? "" : ",\n", name, t0 / 1000, t0 % 1000, (double)(t1 - t0) / 1000.0);
    g->first_event = 0;
}

/* An operator that allocates n tensors of about `bytes` each. */
static void op(gen *g, const char *name, int n, int64_t bytes)
{
    int64_t t0 = g->now_ns + 5000;
    for (int i = 0; i < n; i++) alloc(g, name, bytes + (int64_t)(next(&g->r) % 8) * 4096);
    g->now_ns += 150000;
    cpu_op(g, name, t0, g->now_ns);
}

static int mkdirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static FILE *open_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "gen_ascend: %s: %s\n", path, strerror(errno));
    return f;
}

static int write_rank(const char *outdir, int rank, int steps, uint64_t seed)
{
    char dir[4096], odir[4200];
    snprintf(dir, sizeof dir, "%s/rank%d_ascend_pt", outdir, rank);
    snprintf(odir, sizeof odir, "%s/ASCEND_PROFILER_OUTPUT", dir);
    if (mkdirs(odir) < 0) {
        fprintf(stderr, "gen_ascend: %s: %s\n", odir, strerror(errno));
        return -1;
    }
    char name[64];
    snprintf(name, sizeof name, "profiler_info_%d.json", rank);
    FILE *info = open_in(dir, name);
    if (!info) return -1;
    fprintf(info, "{\n    \"config\": {\n        \"common_config\": {\n"
                  "            \"activities\": [\"ProfilerActivity.CPU\", \"ProfilerActivity.NPU\"],\n"
                  "            \"schedule\": {\"wait\": 1, \"active\": %d, \"warmup\": 1, \"repeat\": 1, \"skip_first\": 0},\n"
                  "            \"record_shapes\": true,\n            \"profile_memory\": true,\n"
                  "            \"with_stack\": false,\n            \"with_flops\": false,\n            \"with_modules\": false\n"
                  "        },\n        \"experimental_config\": {\n"
                  "            \"_profiler_level\": \"Level1\",\n            \"_aic_metrics\": \"ACL_AICORE_PIPE_UTILIZATION\",\n"
                  "            \"_l2_cache\": false,\n            \"_data_simplification\": true,\n"
                  "            \"_export_type\": \"text\"\n        }\n    },\n    \"rank_id\": %d\n}\n",
            steps, rank);
    fclose(info);

    gen *g = calloc(1, sizeof *g);
    if (!g) return -1;
    g->r.s = seed * 0x9E3779B97F4A7C15ull + (uint64_t)rank + 1;
    g->now_ns = T0_NS;
    g->first_event = 1;
    g->rec = open_in(odir, "memory_record.csv");
    FILE *opsf = open_in(odir, "operator_memory.csv");
    g->trace = open_in(odir, "trace_view.json");
    FILE *mod = open_in(odir, "npu_module_mem.csv");
    if (!g->rec || !opsf || !g->trace || !mod) return -1;
    fprintf(g->rec, "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,Device Type\n");
    fprintf(opsf, "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
                    "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),"
                    "Allocation Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),"
                    "Release Total Active(MB),Stream Ptr,Device Type\n");
    fprintf(mod, "Component,Timestamp(us),Total Reserved(MB),Device\n");
    fprintf(g->trace, "[{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 3096504, \"tid\": 0, \"args\": {\"name\": \"Python\"}},\n");
    fprintf(g->trace, "{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": 3096504, \"tid\": 0, \"args\": {\"labels\": \"CPU\"}}");
    g->first_event = 0;

    /* weights and optimizer state from before the trace: allocated, not in operator_memory */
    g->pta_alloc = g->allocated = 600LL << 20;
    g->reserved = 640LL << 20;
    record(g);
    int64_t act = (int64_t)(12LL << 20) * (100 + 3 * rank) / 100;
    static const char *fwd[] = {"aten::embedding", "aten::layer_norm", "aten::linear", "aten::gelu", "aten::linear",
                                "aten::softmax", "aten::dropout"};
    static const char *bwd[] = {"autograd::engine::evaluate_function: AddmmBackward0",
                                "autograd::engine::evaluate_function: GeluBackward0",
                                "autograd::engine::evaluate_function: NativeLayerNormBackward0"};
    FILE *trace = g->trace;
    for (int s = 0; s < steps; s++) {
        int64_t step0 = g->now_ns;
        /* the step's operators, held back: its ProfilerStep span goes first,
         * before the operators it encloses, as the profiler writes it */
        char *held = NULL;
        size_t held_len = 0;
        g->trace = open_memstream(&held, &held_len);
        if (!g->trace) return -1;
        for (int layer = 0; layer < 4; layer++)
            for (size_t k = 0; k < sizeof fwd / sizeof *fwd; k++) op(g, fwd[k], 2, act / 2);
        op(g, "aten::cross_entropy_loss", 1, 4LL << 20);
        for (int layer = 0; layer < 4; layer++)
            for (size_t k = 0; k < sizeof bwd / sizeof *bwd; k++) {
                op(g, bwd[k], 1, act);
                /* the activations this layer's backward used are freed */
                if (k == 2) {
                    for (size_t f = 0; f < sizeof fwd / sizeof *fwd; f++)
                        for (int n = g->nlive - 1, done = 0; n >= 0 && done < 2; n--)
                            if (!strcmp(g->live[n].op, fwd[f])) release(g, n), done++;
                }
            }
        release_op(g, "aten::cross_entropy_loss");
        op(g, "Optimizer.step#AdamW.step", 4, 8LL << 20);
        for (size_t k = 0; k < sizeof bwd / sizeof *bwd; k++) release_op(g, bwd[k]);
        release_op(g, "Optimizer.step#AdamW.step");
        for (size_t f = 0; f < sizeof fwd / sizeof *fwd; f++) release_op(g, fwd[f]);
        fclose(g->trace);
        g->trace = trace;
        char sname[32];
        snprintf(sname, sizeof sname, "ProfilerStep#%d", s + 1);
        cpu_op(g, sname, step0, g->now_ns);
        fwrite(held, 1, held_len, trace);
        free(held);
        g->now_ns += 5000000; /* 5 ms between steps */
    }
    /* the process and the driver modules, every 20 ms over the window */
    for (int64_t t = T0_NS; t <= g->now_ns; t += 20000000) {
        fprintf(g->rec, "APP,");
        put_us(g->rec, t);
        fprintf(g->rec, ",,%.10g,,,NPU:0\n", mb(g->reserved + (64LL << 20) + (300LL << 20)));
        static const char *mods[] = {"APP", "HCCL", "RUNTIME", "SLOG"};
        static const int64_t mod_mb[] = {1200, 400, 96, 0};
        for (int m = 0; m < 4; m++) {
            fprintf(mod, "%s,", mods[m]);
            put_us(mod, t);
            fprintf(mod, ",%.1f,NPU:0\n", (double)mod_mb[m]);
        }
    }
    fprintf(g->trace, "]\n");
    qsort(g->rows, g->nrows, sizeof *g->rows, by_alloc_time);
    for (size_t i = 0; i < g->nrows; i++) {
        fputs(g->rows[i].text, opsf);
        free(g->rows[i].text);
    }
    free(g->rows);
    int bad = ferror(g->rec) | ferror(opsf) | ferror(g->trace) | ferror(mod);
    bad |= fclose(g->rec) | fclose(opsf) | fclose(g->trace) | fclose(mod);
    free(g);
    if (bad) fprintf(stderr, "gen_ascend: %s: write failed\n", odir);
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    int ranks = 2, steps = 2;
    uint64_t seed = 1;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ranks") && i + 1 < argc) ranks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && !out) out = argv[i];
        else {
            fprintf(stderr, "usage: gen_ascend [--ranks N] [--steps N] [--seed S] OUTDIR\n");
            return 2;
        }
    }
    if (!out || ranks < 1 || ranks > 64 || steps < 1 || steps > 100) {
        fprintf(stderr, "usage: gen_ascend [--ranks N (1-64)] [--steps N (1-100)] [--seed S] OUTDIR\n");
        return 2;
    }
    for (int r = 0; r < ranks; r++)
        if (write_rank(out, r, steps, seed) < 0) return 1;
    return 0;
}
