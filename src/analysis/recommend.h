/*
 * recommend.h — the Overview's performance recommendations, each with the
 * number that triggered it and the threshold it crossed.  The first four are
 * the TensorBoard profiler plugin's rules (data.py) with its thresholds:
 *
 *   dataloader       DataLoader share of the average step > 5%
 *   gpu_utilization  a GPU busy < 50% of the steps' span (value: the lowest)
 *   communication    Communication share of the average step > 10%
 *   tensor_cores     compute capability >= 7, no kernel uses Tensor Cores, and
 *                    Tensor Core eligible operators launched some of the
 *                    operators' kernel time (value: that share; threshold 0)
 *
 * and one from the memory side:
 *
 *   fragmentation    at a device's reserved peak, the share of reserved memory
 *                    not allocated to tensors > 20% (cached but unusable blocks)
 */
#ifndef ML_RECOMMEND_H
#define ML_RECOMMEND_H

#include "gpumetrics.h"
#include "kernels.h"
#include "optree.h"
#include "profile.h"
#include "steps.h"

#define ML_REC_DATALOADER 0.05
#define ML_REC_GPU_UTILIZATION 0.5
#define ML_REC_COMMUNICATION 0.1
#define ML_REC_FRAGMENTATION 0.2

typedef struct ml_rec {
    const char *id;         /* "dataloader", "gpu_utilization", ... (static) */
    char text[480];
    double value, threshold;
} ml_rec;

typedef VEC(ml_rec) ml_recs;

/* Share of the operators' own kernel time launched by the lowest Tensor Core
 * eligible operators (the plugin's tc_eligible_ops_kernel_ratio). */
double ml_tc_eligible_kernel_share(const ml_profile *p, const ml_optree *tree);

void ml_recommend(const ml_profile *p, const ml_steps *st, const ml_gpu_metrics_list *gpus, const ml_optree *tree,
                  const ml_kernel_table *kt, ml_recs *out);

#endif
