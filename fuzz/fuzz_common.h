/* fuzz_common.h — what several libFuzzer targets do alike, written once:
 * the stream they write to (/dev/null), the bytes imported as a Kineto trace
 * with its time side, and the time analyses run over an imported profile.
 * Header-only: each target is one translation unit (Makefile, build-fuzz/%). */
#ifndef ML_FUZZ_COMMON_H
#define ML_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "gputime.h"
#include "importer.h"
#include "kernels.h"
#include "steps.h"

/* /dev/null, opened once for every input. */
static inline FILE *fuzz_null(void)
{
    static FILE *null;
    if (!null) null = fopen("/dev/null", "w");
    return null;
}

/* The bytes as the Kineto trace "fuzz.json" with its time side: the profile
 * (free it and close *src), or NULL where the import refused them (*src
 * closed, nothing to free). */
static inline ml_profile *fuzz_kineto(const uint8_t *data, size_t size, ml_source **src)
{
    *src = ml_source_from_memory("fuzz.json", data, size);
    ml_profile *p = ml_profile_new("fuzz.json", "kineto");
    p->trace = ml_trace_new();
    ml_err e;
    if (ml_kineto_import(*src, p, NULL, &e) == 0) return p;
    ml_profile_free(p);
    ml_source_close(*src);
    *src = NULL;
    return NULL;
}

/* The time analyses that read an importer's time side: kernels, steps and
 * HTA's exact GPU time, each computed and freed. */
static inline void fuzz_time_analyses(ml_profile *p)
{
    ml_kernel_table kt;
    ml_kernels_compute(p, NULL, NULL, &kt);
    ml_kernels_free(&kt);
    ml_steps st;
    ml_steps_compute(p, &st);
    ml_steps_free(&st);
    ml_gputime g;
    ml_gputime_compute(p, ML_TIME_EXACT, &g);
    ml_gputime_free(&g);
}

#endif
