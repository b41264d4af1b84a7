/* The nn.Module tree (modules.h): a hand-written trace with its figures
 * worked out by hand, and a generated trace (tools/gen_trace) checked against
 * tests/modules_expected.py, which builds the tree the plugin's way (Python
 * parent ids) instead of by time nesting. */
#include "check.h"
#include "importer.h"
#include "kineto_json.h"
#include "modules.h"

#include <unistd.h>

#define X(cat, name, ts, dur, args) \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{" args "}},"
#define K(name, ts, dur, corr) \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{\"correlation\":" #corr "}},"

/* Net_0 (twice) holds Linear_0 directly and Linear_1 under a plain python
 * frame; aten::relu and aten::add run in Net_0 itself.  Kernels k1, k2, k3
 * (10, 5, 2 µs) are launched from Linear_0, Linear_1 and Net_0. */
static const char *net =
    "{\"traceEvents\":["
    X("user_annotation", "ProfilerStep#1", 0, 100, "")
    X("python_function", "nn.Module: Net_0", 1, 89, "\"Python id\":1,\"Python parent id\":0,\"Python module id\":10")
    X("python_function", "nn.Module: Linear_0", 2, 28, "\"Python id\":2,\"Python parent id\":1,\"Python module id\":11")
    X("cpu_op", "aten::linear", 3, 25, "")
    X("cpu_op", "aten::addmm", 4, 23, "")
    X("cuda_runtime", "cudaLaunchKernel", 5, 3, "\"correlation\":1")
    X("python_function", "x.py(3): f", 31, 29, "\"Python id\":3,\"Python parent id\":1")
    X("python_function", "nn.Module: Linear_1", 32, 27, "\"Python id\":4,\"Python parent id\":3,\"Python module id\":12")
    X("cpu_op", "aten::linear", 33, 25, "")
    X("cuda_runtime", "cudaLaunchKernel", 34, 2, "\"correlation\":2")
    X("cpu_op", "aten::relu", 61, 9, "")
    X("cuda_runtime", "cudaLaunchKernel", 62, 2, "\"correlation\":3")
    X("python_function", "nn.Module: Net_0", 91, 8, "\"Python id\":5,\"Python parent id\":0,\"Python module id\":10")
    X("cpu_op", "aten::add", 92, 3, "")
    K("k1", 10, 10, 1) K("k2", 40, 5, 2) K("k3", 70, 2, 3)
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"m\",\"pid\":0,\"tid\":7,\"ts\":80,\"dur\":1,\"args\":{\"correlation\":99}}"
    "]}";

TEST(module_tree_by_hand)
{
    ml_profile *p = import_trace(net);
    CHECK(p != NULL);
    if (!p) return;
    ml_modules *m = ml_modules_compute(p);
    CHECK(m->hint == NULL);
    CHECK_EQ_I64(m->n, 3);
    if (m->n == 3) {
        const ml_module_row *r = m->rows;
        CHECK_EQ_STR(r[0].name, "Net_0");
        CHECK_EQ_I64(r[0].module_id, 10);
        CHECK_EQ_I64(r[0].parent, -1);
        CHECK_EQ_I64(r[0].depth, 0);
        CHECK_EQ_I64(r[0].occurrences, 2);
        CHECK_EQ_I64(r[0].operators, 2);          /* aten::relu, aten::add */
        CHECK_EQ_I64(r[0].host_ns, 97000);        /* 89 + 8 µs */
        CHECK_EQ_I64(r[0].device_ns, 17000);      /* k1 + k2 + k3 */
        CHECK_EQ_STR(r[1].name, "Linear_0");
        CHECK_EQ_I64(r[1].module_id, 11);
        CHECK_EQ_I64(r[1].parent, 0);
        CHECK_EQ_I64(r[1].depth, 1);
        CHECK_EQ_I64(r[1].occurrences, 1);
        CHECK_EQ_I64(r[1].operators, 1);          /* aten::linear; aten::addmm is inside it */
        CHECK_EQ_I64(r[1].host_ns, 28000);
        CHECK_EQ_I64(r[1].device_ns, 10000);
        CHECK_EQ_STR(r[2].name, "Linear_1");
        CHECK_EQ_I64(r[2].parent, 0);             /* through the plain python frame */
        CHECK_EQ_I64(r[2].depth, 1);
        CHECK_EQ_I64(r[2].operators, 1);
        CHECK_EQ_I64(r[2].host_ns, 27000);
        CHECK_EQ_I64(r[2].device_ns, 5000);
    }
    ml_modules_free(m);
    ml_profile_free(p);
}

TEST(no_modules_gives_a_hint)
{
    ml_profile *p = import_trace("[" X("cpu_op", "aten::add", 1, 2, "") "{}]");
    CHECK(p != NULL);
    if (!p) return;
    ml_modules *m = ml_modules_compute(p);
    CHECK_EQ_I64(m->n, 0);
    CHECK(m->hint && strstr(m->hint, "with_modules=True"));
    ml_modules_free(m);
    ml_trace_free(p->trace);
    p->trace = NULL;
    m = ml_modules_compute(p);
    CHECK_EQ_I64(m->n, 0);
    CHECK(m->hint != NULL);
    ml_modules_free(m);
    ml_profile_free(p);
}

/* The rows as modules_expected.py prints them (path|occ|ops|host|device), sorted. */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *rows_text(const ml_modules *m)
{
    char **lines = ml_calloc(m->n + 1, sizeof *lines);
    for (size_t i = 0; i < m->n; i++) {
        char path[2048] = "";
        /* root first: collect the chain, then print it reversed */
        int32_t chain[64], depth = 0;
        for (int32_t r = (int32_t)i; r >= 0 && depth < 64; r = m->rows[r].parent) chain[depth++] = r;
        size_t w = 0;
        for (int32_t k = depth - 1; k >= 0; k--) {
            const ml_module_row *r = &m->rows[chain[k]];
            w += (size_t)snprintf(path + w, sizeof path - w, "%s%s", k == depth - 1 ? "" : "/", r->name);
            if (r->module_id >= 0 && w < sizeof path) w += (size_t)snprintf(path + w, sizeof path - w, "#%lld", (long long)r->module_id);
            if (w >= sizeof path) w = sizeof path - 1;
        }
        const ml_module_row *r = &m->rows[i];
        size_t n = strlen(path) + 100;
        lines[i] = ml_malloc(n);
        snprintf(lines[i], n, "%s|%llu|%llu|%lld|%lld\n", path, (unsigned long long)r->occurrences,
                 (unsigned long long)r->operators, (long long)r->host_ns, (long long)r->device_ns);
    }
    qsort(lines, m->n, sizeof *lines, cmp_str);
    size_t total = 1;
    for (size_t i = 0; i < m->n; i++) total += strlen(lines[i]);
    char *out = ml_malloc(total);
    out[0] = 0;
    for (size_t i = 0; i < m->n; i++) {
        strcat(out, lines[i]);
        free(lines[i]);
    }
    free(lines);
    return out;
}

TEST(generated_trace_matches_modules_expected_py)
{
    const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
    char gen[512], cmd[2048];
    snprintf(gen, sizeof gen, "%s/tools/gen_trace", build);
    if (access(gen, X_OK) != 0) SKIP("gen_trace not built");
    if (system("command -v python3 >/dev/null 2>&1") != 0) SKIP("python3 not installed");
    if (check_skipped_now) return;
    char dir[] = "/tmp/memlens_modules_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK_FAILED_("mkdtemp");
        return;
    }
    snprintf(cmd, sizeof cmd, "%s --steps 1 --layers 2 --seed 3 --out %s/t.json >/dev/null 2>&1 && "
             "python3 tests/modules_expected.py %s/t.json > %s/expected.txt", gen, dir, dir, dir);
    CHECK_EQ_I64(system(cmd), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/t.json", dir);
    ml_profiles ps;
    memset(&ps, 0, sizeof ps);
    ps.needs.time = true;
    if (ml_load(path, &ps, &err) < 0) {
        CHECK_FAILED_("load: %s", err.msg);
    } else {
        ml_modules *m = ml_modules_compute(ps.items.v[0]);
        CHECK(m->n > 10); /* a GPT with two blocks */
        char *got = rows_text(m);
        snprintf(path, sizeof path, "%s/expected.txt", dir);
        FILE *f = fopen(path, "r");
        char *want = ml_calloc(1, 1 << 20);
        size_t n = f ? fread(want, 1, (1 << 20) - 1, f) : 0;
        if (f) fclose(f);
        want[n] = 0;
        CHECK(n > 0);
        if (strcmp(got, want)) CHECK_FAILED_("rows differ:\n--- memlens\n%s--- modules_expected.py\n%s", got, want);
        free(got);
        free(want);
        ml_modules_free(m);
    }
    ml_profiles_free(&ps);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) CHECK_FAILED_("rm %s", dir);
}

int main(void)
{
    RUN(module_tree_by_hand);
    RUN(no_modules_gives_a_hint);
    RUN(generated_trace_matches_modules_expected_py);
    return check_report();
}
