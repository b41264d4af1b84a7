/*
 * recommend.c — performance recommendations (see recommend.h).
 */
#include "devkind.h"
#include "recommend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytesize.h"
#include "curve.h"

static ml_rec *add(ml_recs *out, const char *id, double value, double threshold)
{
    ml_rec r = {.id = id, .value = value, .threshold = threshold};
    VEC_PUSH(out, r);
    return &out->v[out->len - 1];
}

double ml_tc_eligible_kernel_share(const ml_profile *p, const ml_optree *tree)
{
    const ml_trace *t = p->trace;
    if (!t || !tree->n) return 0;
    const ml_slices *s = &t->slices;
    int64_t *self_k = ml_calloc(tree->n, sizeof *self_k);
    for (size_t i = 0; i < s->ts.len; i++)
        if (s->kind.v[i] == ML_SL_KERNEL && tree->owner[i] != ML_NONE32) self_k[tree->owner[i]] += ml_slice_dur(s, i);
    /* The lowest eligible nodes: eligible, with no eligible node below. */
    uint8_t *below = ml_calloc(tree->n, 1);
    for (size_t i = tree->n; i-- > 0;) {
        if (tree->flags[i] & ML_NODE_MERGED || tree->parent[i] == ML_NONE32) continue;
        if (below[i] || (tree->flags[i] & ML_NODE_TC_ELIGIBLE)) below[tree->parent[i]] = 1;
    }
    int64_t eligible = 0, all = 0;
    for (size_t i = 0; i < tree->n; i++) {
        uint8_t f = tree->flags[i];
        if (f & ML_NODE_MERGED) continue;
        if ((f & ML_NODE_TC_ELIGIBLE) && !below[i]) eligible += self_k[i];
        if (f & ML_NODE_OPERATOR) all += self_k[i];
    }
    free(self_k);
    free(below);
    return all > 0 ? (double)eligible / (double)all : 0;
}

static void fragmentation(const ml_profile *p, ml_recs *out)
{
    uint16_t *order = ml_malloc((p->devices.len ? p->devices.len : 1) * sizeof *order);
    ml_device_order(p, order);
    for (size_t k = 0; k < p->devices.len; k++) {
        int d = order[k];
        if (p->devices.v[d].kind == ML_DEV_CPU) continue;
        ml_peak pk;
        int64_t span[2];
        bool replayed;
        if (!ml_curve_find_peak(p, d, ML_SERIES_RESERVED, &pk, span, &replayed) || !pk.found || pk.value <= 0) continue;
        ml_curve c;
        if (!ml_curve_get(p, d, ML_SERIES_ALLOCATED, &c)) continue;
        int64_t alloc = ml_curve_value_at(&c, pk.at);
        ml_curve_free(&c);
        double share = (double)(pk.value - alloc) / (double)pk.value;
        if (share <= ML_REC_FRAGMENTATION) continue;
        ml_rec *r = add(out, "fragmentation", share, ML_REC_FRAGMENTATION);
        char reserved[32], idle[32]; /* binary units, as every other size memlens prints */
        const char *env = ml_devkind_words_of(ml_devkind_of_profile(p))->alloc_env; /* NULL: none known */
        char setting[160] = "Allocating fewer distinct sizes may help.";
        if (env) snprintf(setting, sizeof setting, "Setting %s=expandable_segments:True, or allocating fewer distinct sizes, may help.", env);
        snprintf(r->text, sizeof r->text,
                 "At the reserved peak of %s, %.1f%% of the %s reserved (%s) held no tensor: the caching "
                 "allocator's cached blocks did not fit the requests. %s",
                 p->devices.v[d].id, share * 100, ml_fmt_bytes(pk.value, reserved, sizeof reserved),
                 ml_fmt_bytes(pk.value - alloc, idle, sizeof idle), setting);
    }
    free(order);
}

void ml_recommend(const ml_profile *p, const ml_steps *st, const ml_gpu_metrics_list *gpus, const ml_optree *tree,
                  const ml_kernel_table *kt, ml_recs *out)
{
    out->len = 0;
    if (st->steps.len && st->avg_total > 0) {
        double dl = st->avg[ML_ROLE_DATALOADER] / st->avg_total;
        if (dl > ML_REC_DATALOADER)
            snprintf(add(out, "dataloader", dl, ML_REC_DATALOADER)->text, sizeof out->v[0].text,
                     "This run has high time cost on input data loading. %.1f%% of the step time is in DataLoader. "
                     "You could try to set num_workers on DataLoader's construction and enable multi-processes on "
                     "data loading.",
                     dl * 100);
    }
    double low = 2;
    char list[200] = "";
    int nlow = 0;
    for (size_t i = 0; i < gpus->len; i++) {
        const ml_gpu_metrics *g = &gpus->v[i];
        if (g->utilization < 0 || g->utilization >= ML_REC_GPU_UTILIZATION) continue;
        if (g->utilization < low) low = g->utilization;
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", nlow ? ", " : "",
                 g->device >= 0 ? p->devices.v[g->device].id : "?");
        nlow++;
    }
    if (nlow)
        snprintf(add(out, "gpu_utilization", low, ML_REC_GPU_UTILIZATION)->text, sizeof out->v[0].text,
                 "%s %s %s low utilization (%.1f%%). You could try to increase batch size to improve. Note: "
                 "Increasing batch size may affect the speed and stability of model convergence.",
                 ml_devkind_words_of(ml_devkind_of_profile(p))->device, list, nlow > 1 ? "have" : "has", low * 100);
    if (st->steps.len && st->avg_total > 0) {
        double c = st->avg[ML_ROLE_COMMUNICATION] / st->avg_total;
        if (c > ML_REC_COMMUNICATION)
            snprintf(add(out, "communication", c, ML_REC_COMMUNICATION)->text, sizeof out->v[0].text,
                     "This run has high time cost on communication. %.1f%% of the step time is in communication. "
                     "You could try Gradient Compression or Gradient Accumulation or increase the batch size.",
                     c * 100);
    }
    /* Tensor Cores: the plugin reads the first device's compute capability. */
    int major = -1;
    for (size_t d = 0; d < p->devices.len && major < 0; d++)
        if (p->devices.v[d].cc_major >= 0) major = p->devices.v[d].cc_major;
    int64_t k_tc = 0;
    for (size_t i = 0; i < kt->by_name.len; i++) {
        if (kt->by_name.v[i].tensor_cores) k_tc += kt->by_name.v[i].total_ns;
    }
    if (major >= 7 && kt->kernels > 0 && k_tc == 0 && ml_devkind_words_of(ml_devkind_of_profile(p))->matrix_units) {
        double share = ml_tc_eligible_kernel_share(p, tree);
        if (share > 0)
            snprintf(add(out, "tensor_cores", share, 0)->text, sizeof out->v[0].text,
                     "Kernels with %.0f%% time are launched by Tensor Cores eligible operators. You could enable "
                     "Automatic Mixed Precision to speedup by using FP16.",
                     share * 100);
    }
    fragmentation(p, out);
}
