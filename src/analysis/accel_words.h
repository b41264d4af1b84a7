/*
 * accel_words.h — the words an output uses for a profile's accelerator:
 * "GPU" or "NPU", the caching allocator's environment variable, whether the
 * device has Tensor Cores (so that an NPU run is never described in CUDA
 * words or given CUDA advice, DESIGN.md §12).
 *
 * The kind comes from the profile's devices (an npu:N device makes it an
 * NPU), not from its format string.  The fields have the names of
 * model/devkind.h's ml_devkind_words (another branch), which is meant to
 * replace this: ml_accel_words_of(p) becomes
 * ml_devkind_words_of(ml_devkind_of_profile(p)).
 */
#ifndef ML_ACCEL_WORDS_H
#define ML_ACCEL_WORDS_H

#include <stdbool.h>

#include "profile.h"

typedef struct ml_accel_words {
    const char *device;       /* what one device is called: "GPU", "NPU" */
    const char *runtime;      /* "CUDA", "CANN" */
    const char *alloc_env;    /* "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_NPU_ALLOC_CONF" */
    const char *matrix_units; /* "Tensor Cores"; NULL where the device has none the trace can show */
    const char *comm_lib;     /* "NCCL", "HCCL" */
} ml_accel_words;

const ml_accel_words *ml_accel_words_of(const ml_profile *p);
/* Whether p ran on an NPU (Ascend): its kernels are tasks on AI Core / AI
 * Vector Core / AI CPU, grouped by Accelerator Core. */
bool ml_profile_is_npu(const ml_profile *p);

#endif
