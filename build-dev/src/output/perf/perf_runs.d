build-dev/src/output/perf/perf_runs.o: src/output/perf/perf_runs.c \
 src/output/perf/perf_runs.h src/analysis/distributed.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/output/jsonw.h \
 src/output/perf/perf.h src/analysis/perfdata.h src/analysis/gpumetrics.h \
 src/analysis/steps.h src/analysis/ranges.h src/analysis/gputime.h \
 src/analysis/gpu_idle.h src/analysis/gputimeline.h \
 src/analysis/kernel_types.h src/analysis/launch_queue.h \
 src/analysis/launches.h src/analysis/durhist.h src/analysis/membw.h \
 src/analysis/kernels.h src/analysis/optree.h src/analysis/modules.h \
 src/analysis/operators.h src/analysis/recommend.h \
 src/output/perf/perf_gputime.h src/analysis/gputime.h
src/output/perf/perf_runs.h:
src/analysis/distributed.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/output/jsonw.h:
src/output/perf/perf.h:
src/analysis/perfdata.h:
src/analysis/gpumetrics.h:
src/analysis/steps.h:
src/analysis/ranges.h:
src/analysis/gputime.h:
src/analysis/gpu_idle.h:
src/analysis/gputimeline.h:
src/analysis/kernel_types.h:
src/analysis/launch_queue.h:
src/analysis/launches.h:
src/analysis/durhist.h:
src/analysis/membw.h:
src/analysis/kernels.h:
src/analysis/optree.h:
src/analysis/modules.h:
src/analysis/operators.h:
src/analysis/recommend.h:
src/output/perf/perf_gputime.h:
src/analysis/gputime.h:
