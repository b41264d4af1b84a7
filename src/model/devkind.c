/*
 * devkind.c — accelerator kinds and their words (devkind.h).
 */
#include "devkind.h"

#include <string.h>

#include "trace.h"

/* launching calls: HTA's lists (trace_symbol_table.py get_runtime_launch_events_query,
 * cuda_kernel_analysis.py), and Unified Runtime's enqueues for XPU */
static const char *const cuda_launches[] = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync",
                                            "cudaMemsetAsync", NULL};
static const char *const cuda_enqueues[] = {"cuLaunchKernel", "cuLaunchKernelEx", NULL};
static const char *const hip_launches[] = {"hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync",
                                           "hipMemsetAsync", "hipMemcpyWithStream", NULL};
static const char *const mtia_launches[] = {"runFunction - job_prep_and_submit_for_execution", NULL};
static const char *const xpu_launches[] = {"urEnqueueKernelLaunch", "urEnqueueUSMMemcpy", "urEnqueueUSMFill", NULL};
static const char *const none[] = {NULL};

static const ml_devkind_words words[ML_DK__COUNT] = {
    [ML_DK_CUDA] = {"cuda", "GPU", "CUDA", "PYTORCH_CUDA_ALLOC_CONF", "Tensor Cores", "NCCL", cuda_launches,
                    cuda_enqueues},
    /* PyTorch on ROCm reads PYTORCH_HIP_ALLOC_CONF (and the CUDA name as a fallback) */
    [ML_DK_HIP] = {"hip", "GPU", "HIP", "PYTORCH_HIP_ALLOC_CONF", NULL, "RCCL", hip_launches, none},
    [ML_DK_MTIA] = {"mtia", "MTIA", "MTIA", NULL, NULL, NULL, mtia_launches, none},
    [ML_DK_XPU] = {"xpu", "GPU", "SYCL", NULL, NULL, "oneCCL", xpu_launches, none},
    [ML_DK_HPU] = {"hpu", "HPU", "SynapseAI", NULL, NULL, "HCCL", none, none},
    [ML_DK_PRIVATEUSE1] = {"privateuse1", "device", "PrivateUse1", NULL, NULL, NULL, none, none},
    [ML_DK_NPU] = {"npu", "NPU", "CANN", "PYTORCH_NPU_ALLOC_CONF", NULL, "HCCL", none, none, true},
};

static bool listed(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (!strcmp(*list, name)) return true;
    return false;
}

int ml_devkind_launch_call(const char *name)
{
    if (!name) return 0;
    for (int k = 0; k < ML_DK__COUNT; k++)
        if (listed(words[k].launches, name)) return 2;
    for (int k = 0; k < ML_DK__COUNT; k++)
        if (listed(words[k].enqueues_too, name)) return 1;
    return 0;
}

const ml_devkind_words *ml_devkind_words_of(ml_devkind k)
{
    return &words[(unsigned)k < ML_DK__COUNT ? k : ML_DK_CUDA];
}

/* Whether the importer says the producer is Ascend's (profile.h ml_caps). */
static bool is_ascend(const ml_profile *p) { return p->caps.devkind == ML_DK_NPU; }

/* Whether the trace's first runtime call is ROCm's (hipLaunchKernel ...). */
static bool runtime_is_hip(const ml_profile *p)
{
    const ml_trace *t = p->trace;
    if (!t) return false;
    const ml_slices *s = &t->slices;
    for (size_t i = 0; i < s->ts.len; i++)
        if (s->kind.v[i] == ML_SL_RUNTIME) return !strncmp(ml_s(p, s->name.v[i]), "hip", 3);
    return false;
}

ml_devkind ml_devkind_of_device(const ml_profile *p, const ml_device *d)
{
    switch (d->kind) {
    case ML_DEV_HIP: return ML_DK_HIP;
    case ML_DEV_MTIA: return ML_DK_MTIA;
    case ML_DEV_XPU: return ML_DK_XPU;
    case ML_DEV_HPU: return ML_DK_HPU;
    case ML_DEV_NPU: return is_ascend(p) ? ML_DK_NPU : ML_DK_PRIVATEUSE1;
    case ML_DEV_CUDA: return runtime_is_hip(p) ? ML_DK_HIP : ML_DK_CUDA;
    default: return is_ascend(p) ? ML_DK_NPU : ML_DK_CUDA;
    }
}

ml_devkind ml_devkind_of_profile(const ml_profile *p)
{
    if (p->caps.devkind >= 0 && p->caps.devkind < ML_DK__COUNT) return (ml_devkind)p->caps.devkind;
    for (size_t i = 0; i < p->devices.len; i++) {
        const ml_device *d = &p->devices.v[i];
        if (d->kind == ML_DEV_CPU || d->kind == ML_DEV_OTHER || d->kind == ML_DEV_META) continue;
        return ml_devkind_of_device(p, d);
    }
    return runtime_is_hip(p) ? ML_DK_HIP : ML_DK_CUDA;
}
