build-dev/src/output/report/report_data.o: \
 src/output/report/report_data.c src/analysis/breakdown.h \
 src/analysis/curve.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/components.h src/output/format.h src/analysis/curve.h \
 src/analysis/m4.h src/output/report/report.h src/analysis/distributed.h \
 src/common/err.h src/importers/importer.h src/readers/source.h \
 src/output/report/report_enc.h src/analysis/stats.h \
 src/analysis/breakdown.h src/analysis/categories.h \
 src/output/perf/perf.h src/output/jsonw.h src/analysis/perfdata.h \
 src/analysis/gpumetrics.h src/analysis/steps.h src/analysis/ranges.h \
 src/analysis/gputime.h src/analysis/gpu_idle.h \
 src/analysis/gputimeline.h src/analysis/kernel_types.h \
 src/analysis/launch_queue.h src/analysis/launches.h \
 src/analysis/durhist.h src/analysis/membw.h src/analysis/kernels.h \
 src/analysis/optree.h src/analysis/modules.h src/analysis/operators.h \
 src/analysis/recommend.h src/analysis/categories.h \
 src/output/report/report_trace.h src/model/trace.h \
 src/output/report/report_static.h src/output/report/report_segments.h \
 src/analysis/unmatched.h src/analysis/beforetrace.h src/common/par.h \
 src/common/phase.h src/common/sortperm.h
src/analysis/breakdown.h:
src/analysis/curve.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/components.h:
src/output/format.h:
src/analysis/curve.h:
src/analysis/m4.h:
src/output/report/report.h:
src/analysis/distributed.h:
src/common/err.h:
src/importers/importer.h:
src/readers/source.h:
src/output/report/report_enc.h:
src/analysis/stats.h:
src/analysis/breakdown.h:
src/analysis/categories.h:
src/output/perf/perf.h:
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
src/analysis/categories.h:
src/output/report/report_trace.h:
src/model/trace.h:
src/output/report/report_static.h:
src/output/report/report_segments.h:
src/analysis/unmatched.h:
src/analysis/beforetrace.h:
src/common/par.h:
src/common/phase.h:
src/common/sortperm.h:
