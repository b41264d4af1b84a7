/*
 * test_devkind.c — model/devkind.h: the kind of accelerator a profile ran
 * on, read from its devices and the trace's cats (Kineto writes kernels of
 * MTIA as mtia_ccp_events, its calls as mtia_runtime; ROCm names devices
 * cuda:N but calls hip*), and the words each kind gets.
 */
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ascend.h"
#include "devkind.h"
#include "importer.h"
#include "kineto_json.h"
#include "trace.h"

TEST(words_per_kind)
{
    CHECK_EQ_STR(ml_devkind_words_of(ML_DK_CUDA)->alloc_env, "PYTORCH_CUDA_ALLOC_CONF");
    CHECK_EQ_STR(ml_devkind_words_of(ML_DK_NPU)->alloc_env, "PYTORCH_NPU_ALLOC_CONF");
    CHECK_EQ_STR(ml_devkind_words_of(ML_DK_NPU)->device, "NPU");
    CHECK(ml_devkind_words_of(ML_DK_NPU)->matrix_units == NULL);
    CHECK(ml_devkind_has_tensor_cores(ML_DK_CUDA));
    CHECK(!ml_devkind_has_tensor_cores(ML_DK_HIP) && !ml_devkind_has_tensor_cores(ML_DK_MTIA));
    CHECK_EQ_STR(ml_devkind_words_of(ML_DK_HIP)->runtime, "HIP");
    CHECK_EQ_STR(ml_devkind_words_of((ml_devkind)99)->id, "cuda"); /* out of range: CUDA's */
    for (int k = 0; k < ML_DK__COUNT; k++) CHECK(ml_devkind_words_of((ml_devkind)k)->device != NULL);
}

TEST(launching_calls_of_every_kind)
{
    CHECK_EQ_I64(ml_devkind_launch_call("cudaLaunchKernel"), 2);
    CHECK_EQ_I64(ml_devkind_launch_call("hipExtModuleLaunchKernel"), 2);
    CHECK_EQ_I64(ml_devkind_launch_call("runFunction - job_prep_and_submit_for_execution"), 2); /* MTIA */
    CHECK_EQ_I64(ml_devkind_launch_call("urEnqueueKernelLaunch"), 2);                            /* XPU */
    CHECK_EQ_I64(ml_devkind_launch_call("cuLaunchKernel"), 1); /* HTA's queue counts it, its statistics do not */
    CHECK_EQ_I64(ml_devkind_launch_call("cudaMalloc"), 0);
    CHECK_EQ_I64(ml_devkind_launch_call(NULL), 0);
}

TEST(mtia_trace_is_mtia)
{
    ml_profile *p = import_trace(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"mtia_runtime\",\"name\":\"runFunction - job_prep_and_submit_for_execution\","
        "\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":3,\"args\":{\"correlation\":5}},"
        "{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\",\"name\":\"fused_gemm\",\"pid\":2,\"tid\":7,\"ts\":20,\"dur\":8,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":5}}]}");
    CHECK(p != NULL);
    if (!p) return;
    const ml_slices *s = &p->trace->slices;
    int kernels = 0, runtime = 0;
    for (size_t i = 0; i < s->ts.len; i++) kernels += s->kind.v[i] == ML_SL_KERNEL, runtime += s->kind.v[i] == ML_SL_RUNTIME;
    CHECK_EQ_I64(kernels, 1);
    CHECK_EQ_I64(runtime, 1);
    CHECK_EQ_I64(ml_devkind_of_profile(p), ML_DK_MTIA);
    int mtia = -1;
    for (size_t i = 0; i < p->devices.len; i++)
        if (!strcmp(p->devices.v[i].id, "mtia:0")) mtia = (int)i;
    CHECK(mtia >= 0);
    ml_profile_free(p);
}

TEST(rocm_trace_is_hip)
{
    ml_profile *p = import_trace(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":3,"
        "\"args\":{\"correlation\":5}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"Cijk_gemm\",\"pid\":2,\"tid\":7,\"ts\":20,\"dur\":8,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":5}}]}");
    CHECK(p != NULL);
    if (!p) return;
    CHECK_EQ_I64(ml_devkind_of_profile(p), ML_DK_HIP);
    ml_profile_free(p);
}

TEST(xpu_and_privateuse1_calls)
{
    ml_profile *p = import_trace(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"xpu_runtime\",\"name\":\"urEnqueueKernelLaunch\",\"pid\":1,\"tid\":1,\"ts\":10,"
        "\"dur\":3,\"args\":{\"correlation\":5}},"
        "{\"ph\":\"X\",\"cat\":\"privateuse1_driver\",\"name\":\"aclrtLaunch\",\"pid\":1,\"tid\":1,\"ts\":14,"
        "\"dur\":1}]}");
    CHECK(p != NULL);
    if (!p) return;
    const ml_slices *s = &p->trace->slices;
    CHECK_EQ_I64(s->ts.len, 2);
    CHECK_EQ_I64(s->kind.v[0], ML_SL_RUNTIME);
    CHECK_EQ_I64(s->kind.v[1], ML_SL_DRIVER);
    ml_profile_free(p);
}

TEST(plain_cuda_and_ascend)
{
    ml_profile *p = ml_profile_new("x", "kineto");
    CHECK_EQ_I64(ml_devkind_of_profile(p), ML_DK_CUDA); /* nothing says otherwise */
    ml_device_get(p, ML_DEV_CPU, -1);
    ml_device_get(p, ML_DEV_CUDA, 0);
    CHECK_EQ_I64(ml_devkind_of_profile(p), ML_DK_CUDA);
    ml_profile_free(p);
    p = ml_profile_new("x", "ascend-text");
    CHECK_EQ_I64(ml_devkind_of_profile(p), ML_DK_CUDA); /* the format's name is a label: the caps decide */
    ml_ascend_caps(p);                                   /* as every Ascend importer does */
    CHECK_EQ_I64(ml_devkind_of_profile(p), ML_DK_NPU);
    ml_device_get(p, ML_DEV_NPU, 0);
    CHECK_EQ_I64(ml_devkind_of_device(p, &p->devices.v[0]), ML_DK_NPU);
    ml_profile_free(p);
    p = ml_profile_new("x", "kineto");
    ml_device_get(p, ML_DEV_NPU, 0); /* Kineto's PrivateUse1 */
    CHECK_EQ_I64(ml_devkind_of_profile(p), ML_DK_PRIVATEUSE1);
    ml_profile_free(p);
}

/* What each importer says its input can show (profile.h ml_caps), on the shared data. */
static void caps_of(const char *rel, bool npu, bool insight, bool stat, bool alloc_state, bool record, bool first)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", check_data_dir(), rel);
    ml_profiles ps;
    memset(&ps, 0, sizeof ps);
    ml_err e = {{0}};
    CHECK_EQ_I64(ml_load(path, &ps, &e), 0);
    CHECK(ps.items.len >= 1);
    for (size_t i = 0; i < ps.items.len; i++) {
        const ml_profile *p = ps.items.v[i];
        CHECK_EQ_I64(p->caps.devkind, npu ? ML_DK_NPU : -1);
        CHECK_EQ_I64(ml_devkind_of_profile(p) == ML_DK_NPU, npu);
        CHECK_EQ_I64(p->caps.insight_names, insight);
        CHECK_EQ_I64(p->caps.static_graph, stat);
        CHECK_EQ_I64(p->caps.allocator_state, alloc_state);
        CHECK_EQ_I64(p->caps.memory_record, record);
        CHECK_EQ_I64(p->caps.memory_first, first);
    }
    ml_profiles_free(&ps);
}

TEST(caps_set_by_importers)
{
    if (access(check_data_dir(), F_OK) != 0) SKIP("shared data not present");
    /*      input                                                 npu    insight static alloc  record first */
    caps_of("kineto/hta_cpu_only.pt.trace.json.gz",                false, false, false, false, false, false);
    caps_of("snapshot/silmont_mem_snapshot.pickle",                false, false, false, true,  true,  true);
    caps_of("memory_timeline/hta_memory_timeline.raw.json.gz",     false, false, false, false, true,  true);
    caps_of("ascend/text_level1/rank0_ascend_pt",                  true,  true,  false, false, false, true);
    caps_of("ascend/db_level1/rank1_ascend_pt",                    true,  true,  false, false, false, true);
    caps_of("ascend/static",                                       true,  true,  true,  false, false, true);
    caps_of("ascend_older/trace_view_2024/trace_view.json",        true,  true,  false, false, false, true);
}

int main(void)
{
    RUN(words_per_kind);
    RUN(launching_calls_of_every_kind);
    RUN(mtia_trace_is_mtia);
    RUN(rocm_trace_is_hip);
    RUN(xpu_and_privateuse1_calls);
    RUN(plain_cuda_and_ascend);
    RUN(caps_set_by_importers);
    return check_report();
}
