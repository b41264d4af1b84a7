build-dev/src/cli/report_cmd.o: src/cli/report_cmd.c \
 src/output/textwidth.h src/cli/cli.h src/importers/importer.h \
 src/common/err.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h src/readers/source.h \
 src/output/perf/perf.h src/analysis/distributed.h src/output/jsonw.h \
 src/analysis/perfdata.h src/analysis/gpumetrics.h src/analysis/steps.h \
 src/analysis/ranges.h src/analysis/gputime.h src/analysis/gpu_idle.h \
 src/analysis/gputimeline.h src/analysis/kernel_types.h \
 src/analysis/launch_queue.h src/analysis/launches.h \
 src/analysis/durhist.h src/analysis/membw.h src/analysis/kernels.h \
 src/analysis/optree.h src/analysis/modules.h src/analysis/operators.h \
 src/analysis/recommend.h src/output/report/report.h \
 src/output/report/report_enc.h src/output/report/report_segments.h
src/output/textwidth.h:
src/cli/cli.h:
src/importers/importer.h:
src/common/err.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/output/perf/perf.h:
src/analysis/distributed.h:
src/output/jsonw.h:
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
src/output/report/report.h:
src/output/report/report_enc.h:
src/output/report/report_segments.h:
