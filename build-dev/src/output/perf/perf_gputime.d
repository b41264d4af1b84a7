build-dev/src/output/perf/perf_gputime.o: src/output/perf/perf_gputime.c \
 src/output/perf/perf_gputime.h src/analysis/gputime.h \
 src/analysis/gpu_idle.h src/analysis/gputimeline.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/kernel_types.h src/analysis/launch_queue.h \
 src/analysis/launches.h src/analysis/durhist.h src/analysis/membw.h \
 src/output/jsonw.h src/output/format.h src/output/textwidth.h
src/output/perf/perf_gputime.h:
src/analysis/gputime.h:
src/analysis/gpu_idle.h:
src/analysis/gputimeline.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/kernel_types.h:
src/analysis/launch_queue.h:
src/analysis/launches.h:
src/analysis/durhist.h:
src/analysis/membw.h:
src/output/jsonw.h:
src/output/format.h:
src/output/textwidth.h:
