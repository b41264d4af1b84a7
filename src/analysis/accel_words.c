/* accel_words.c — a profile's accelerator words (accel_words.h). */
#include "accel_words.h"

bool ml_profile_is_npu(const ml_profile *p)
{
    for (size_t i = 0; p && i < p->devices.len; i++)
        if (p->devices.v[i].kind == ML_DEV_NPU) return true;
    return false;
}

const ml_accel_words *ml_accel_words_of(const ml_profile *p)
{
    static const ml_accel_words cuda = {"GPU", "CUDA", "PYTORCH_CUDA_ALLOC_CONF", "Tensor Cores", "NCCL"};
    static const ml_accel_words npu = {"NPU", "CANN", "PYTORCH_NPU_ALLOC_CONF", NULL, "HCCL"};
    return ml_profile_is_npu(p) ? &npu : &cuda;
}
