build-dev/src/analysis/diff.o: src/analysis/diff.c src/analysis/diff.h \
 src/analysis/breakdown.h src/analysis/curve.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/diffops.h src/analysis/diffseg.h src/analysis/difftree.h \
 src/analysis/optree.h src/analysis/stats.h src/analysis/categories.h \
 src/analysis/steps.h src/analysis/ranges.h src/common/par.h \
 src/analysis/perfdata.h src/analysis/gpumetrics.h src/analysis/gputime.h \
 src/analysis/gpu_idle.h src/analysis/gputimeline.h \
 src/analysis/kernel_types.h src/analysis/launch_queue.h \
 src/analysis/launches.h src/analysis/durhist.h src/analysis/membw.h \
 src/analysis/kernels.h src/analysis/modules.h src/analysis/operators.h \
 src/analysis/recommend.h
src/analysis/diff.h:
src/analysis/breakdown.h:
src/analysis/curve.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/diffops.h:
src/analysis/diffseg.h:
src/analysis/difftree.h:
src/analysis/optree.h:
src/analysis/stats.h:
src/analysis/categories.h:
src/analysis/steps.h:
src/analysis/ranges.h:
src/common/par.h:
src/analysis/perfdata.h:
src/analysis/gpumetrics.h:
src/analysis/gputime.h:
src/analysis/gpu_idle.h:
src/analysis/gputimeline.h:
src/analysis/kernel_types.h:
src/analysis/launch_queue.h:
src/analysis/launches.h:
src/analysis/durhist.h:
src/analysis/membw.h:
src/analysis/kernels.h:
src/analysis/modules.h:
src/analysis/operators.h:
src/analysis/recommend.h:
