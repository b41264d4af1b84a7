/*
 * devkind.h — which kind of accelerator a profile ran on, and the words and
 * facts every output uses for it: "GPU" or "NPU", the runtime's name, the
 * allocator's environment variable, whether it has Tensor Cores, its
 * collective library.  One table, so that an NPU run is never described in
 * CUDA words or given CUDA advice (DESIGN.md §12).
 *
 * The kind of a profile (ml_devkind_of_profile): the one its importer names
 * (p->caps.devkind: an Ascend export is an NPU); otherwise the first
 * accelerator among its devices (mtia:N, xpu:N, hpu:N; Kineto's PrivateUse1
 * devices are named "npu:N" by profile.h and count as PrivateUse1 in a
 * Kineto trace); a cuda:N device is ROCm's HIP when the
 * trace's runtime calls are hip* (PyTorch on ROCm names its devices cuda:N).
 * CUDA when nothing says otherwise.
 */
#ifndef ML_DEVKIND_H
#define ML_DEVKIND_H

#include <stdbool.h>

#include "profile.h"

typedef enum {
    ML_DK_CUDA,
    ML_DK_HIP,              /* AMD ROCm */
    ML_DK_MTIA,             /* Meta's MTIA */
    ML_DK_XPU,              /* Intel GPUs */
    ML_DK_HPU,              /* Intel Gaudi (Habana) */
    ML_DK_PRIVATEUSE1,      /* an out-of-tree backend through Kineto's PrivateUse1 */
    ML_DK_NPU,              /* Huawei Ascend (torch_npu) */
    ML_DK__COUNT
} ml_devkind;

typedef struct ml_devkind_words {
    const char *id;         /* "cuda", "hip", "mtia", "xpu", "hpu", "privateuse1", "npu" */
    const char *device;     /* what one device is called in text: "GPU", "NPU", "MTIA", "HPU", "device" */
    const char *runtime;    /* the runtime's name: "CUDA", "HIP", "CANN" ... */
    const char *alloc_env;  /* the caching allocator's settings variable, NULL when it has none known */
    const char *matrix_units; /* "Tensor Cores" (CUDA); NULL where the device has none the trace can show */
    const char *comm_lib;   /* the collective library: "NCCL", "RCCL", "HCCL" ...; NULL if unknown */
    /* The runtime calls that put work on a stream (NULL-terminated): launches
     * are those HTA's launch statistics count (and ROCm's, XPU's, which it
     * leaves out); enqueues_too the others its queue length counts. */
    const char *const *launches;
    const char *const *enqueues_too;
    /* Every runtime call the trace links to device work launched it, whatever
     * its name: CANN's connection id ties each call to the tasks it put on a
     * stream (trace_view.json's "connection_id", the db's connectionId), and
     * the calls that do are named by the export ("Node@launch", "launch",
     * "AscendCL@aclnnAdd", "aclrtMemcpyAsync" ...), not by a fixed list. */
    bool linked_calls_launch;
} ml_devkind_words;

/* 2 when a runtime call of that name is a launch (words.launches) of some
 * kind, 1 when it only enqueues (words.enqueues_too), else 0. */
int ml_devkind_launch_call(const char *name);

/* The words of a kind (an out-of-range kind gets CUDA's). */
const ml_devkind_words *ml_devkind_words_of(ml_devkind k);
static inline bool ml_devkind_has_tensor_cores(ml_devkind k) { return k == ML_DK_CUDA; }

/* The kind of one device of p (a cpu or unnamed device: CUDA's words). */
ml_devkind ml_devkind_of_device(const ml_profile *p, const ml_device *d);
/* The kind of the profile's accelerator (see above). */
ml_devkind ml_devkind_of_profile(const ml_profile *p);

#endif
