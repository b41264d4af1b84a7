/*
 * kineto_cat.c — what a Kineto event's "cat" says (kineto_int.h's
 * kt_set_cat): the op category of the memory side (cpu_op, user_annotation,
 * python_function), and for the time side the slice kind, the device kind
 * and the cat interned.  Both readers of an event (kineto_event.c's fast
 * path and token path) come here; an event of a shape seen before has its
 * cat's fields in the shape, so this runs once per shape learned and per
 * event read by tokens.
 */
#include "kineto_int.h"

#include <string.h>

static uint8_t classify_cat(const char *s, size_t n)
{
    if (KEY_IS(s, n, "cpu_op") || KEY_IS(s, n, "Operator")) return CAT_CPU_OP;
    if (KEY_IS(s, n, "user_annotation")) return CAT_ANNOTATION;
    if (KEY_IS(s, n, "python_function")) return CAT_PYTHON;
    if (KEY_IS(s, n, "cpu_instant_event")) return CAT_INSTANT;
    return CAT_OTHER;
}

/* The slice kind of a cat: Kineto's names (libkineto ActivityType.cpp, every
 * accelerator: CUDA/HIP's, MTIA's mtia_ccp_events kernels and mtia_runtime
 * calls, xpu_/privateuse1_ runtime and driver calls, hpu_op, HPU's host-side
 * runtime events), and PyTorch 1.8/1.9's (Operator, Runtime, Kernel, Memcpy,
 * Memset). */
static uint8_t slice_kind_of_cat(const char *s, size_t n)
{
    switch (n) {
    case 4: if (KEY_IS(s, n, "Trace")) return ML_SL_OTHER; break;
    case 6:
        if (KEY_IS(s, n, "cpu_op")) return ML_SL_CPU_OP;
        if (KEY_IS(s, n, "kernel") || KEY_IS(s, n, "Kernel")) return ML_SL_KERNEL;
        if (KEY_IS(s, n, "Memcpy")) return ML_SL_MEMCPY;
        if (KEY_IS(s, n, "Memset")) return ML_SL_MEMSET;
        if (KEY_IS(s, n, "hpu_op")) return ML_SL_RUNTIME;
        break;
    case 7: if (KEY_IS(s, n, "Runtime")) return ML_SL_RUNTIME; break;
    case 8: if (KEY_IS(s, n, "Operator")) return ML_SL_CPU_OP; break;
    case 9: if (KEY_IS(s, n, "cuda_sync")) return ML_SL_CUDA_SYNC; break;
    case 10:
        if (KEY_IS(s, n, "gpu_memcpy")) return ML_SL_MEMCPY;
        if (KEY_IS(s, n, "gpu_memset")) return ML_SL_MEMSET;
        if (KEY_IS(s, n, "xpu_driver")) return ML_SL_DRIVER;
        break;
    case 11:
        if (KEY_IS(s, n, "cuda_driver")) return ML_SL_DRIVER;
        if (KEY_IS(s, n, "xpu_runtime")) return ML_SL_RUNTIME;
        break;
    case 12:
        if (KEY_IS(s, n, "cuda_runtime")) return ML_SL_RUNTIME;
        if (KEY_IS(s, n, "mtia_runtime")) return ML_SL_RUNTIME;
        break;
    case 15:
        if (KEY_IS(s, n, "user_annotation")) return ML_SL_USER_ANNOTATION;
        if (KEY_IS(s, n, "python_function")) return ML_SL_PYTHON;
        if (KEY_IS(s, n, "mtia_ccp_events")) return ML_SL_KERNEL;
        break;
    case 18: if (KEY_IS(s, n, "privateuse1_driver")) return ML_SL_DRIVER; break;
    case 19:
        if (KEY_IS(s, n, "gpu_user_annotation")) return ML_SL_GPU_ANNOTATION;
        if (KEY_IS(s, n, "cuda_profiler_range")) return ML_SL_PROFILER_RANGE;
        if (KEY_IS(s, n, "privateuse1_runtime")) return ML_SL_RUNTIME;
        break;
    }
    return ML_SL_OTHER;
}

/* The device kind a cat names (PrivateUse1 is ML_DEV_NPU's number, 20);
 * CUDA for the rest (ROCm's traces name their devices cuda:N too). */
static uint8_t dev_kind_of_cat(const char *s, size_t n)
{
    if (n > 5 && !memcmp(s, "mtia_", 5)) return ML_DEV_MTIA;
    if (n > 4 && !memcmp(s, "xpu_", 4)) return ML_DEV_XPU;
    if (KEY_IS(s, n, "hpu_op")) return ML_DEV_HPU;
    if (n > 12 && !memcmp(s, "privateuse1_", 12)) return ML_DEV_NPU;
    return ML_DEV_CUDA;
}

/* The cat interned: a trace has a handful, remembered here. */
static ml_str cat_of(kineto *k, const char *s, size_t n)
{
    if (n > CAT_CACHE_LEN) return ml_intern(k->p->strings, s, n);
    for (unsigned i = 0; i < CAT_CACHE; i++)
        if (k->cats[i].len == n && k->cats[i].id && !memcmp(k->cats[i].text, s, n)) return k->cats[i].id;
    ml_str id = ml_intern(k->p->strings, s, n);
    unsigned i = k->cats_next++ % CAT_CACHE;
    k->cats[i].len = (uint8_t)n;
    memcpy(k->cats[i].text, s, n);
    k->cats[i].id = id;
    return id;
}

/* The cat's fields of f (kineto_int.h). */
void kt_set_cat(kineto *k, event_fields *f, const char *v, size_t m)
{
    f->cat = classify_cat(v, m);
    if (k->t) {
        f->skind = slice_kind_of_cat(v, m);
        f->dev_kind = dev_kind_of_cat(v, m);
        f->cat_id = cat_of(k, v, m);
    }
}
