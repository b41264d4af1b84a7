build-dev/src/server/api.o: src/server/api.c src/server/api.h \
 src/server/ranks.h src/common/err.h src/output/report/report_enc.h \
 src/common/vec.h src/common/err.h src/readers/source.h src/server/view.h \
 src/analysis/distributed.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/readers/pyvalue.h src/model/strpool.h \
 src/output/perf/perf.h src/output/jsonw.h src/analysis/perfdata.h \
 src/analysis/gpumetrics.h src/analysis/steps.h src/analysis/ranges.h \
 src/analysis/gputime.h src/analysis/gpu_idle.h \
 src/analysis/gputimeline.h src/analysis/kernel_types.h \
 src/analysis/launch_queue.h src/analysis/launches.h \
 src/analysis/durhist.h src/analysis/membw.h src/analysis/kernels.h \
 src/analysis/optree.h src/analysis/modules.h src/analysis/operators.h \
 src/analysis/recommend.h src/analysis/breakdown.h src/analysis/curve.h \
 src/analysis/beforetrace.h src/analysis/categories.h \
 src/analysis/categories.h src/server/colbuf.h src/output/format.h \
 src/server/api_trace.h src/output/export/chrome_json.h \
 src/output/report/report_trace.h src/output/report/report_enc.h \
 src/model/trace.h src/server/api_compare.h src/output/report/report.h \
 src/importers/importer.h
src/server/api.h:
src/server/ranks.h:
src/common/err.h:
src/output/report/report_enc.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/server/view.h:
src/analysis/distributed.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/readers/pyvalue.h:
src/model/strpool.h:
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
src/analysis/breakdown.h:
src/analysis/curve.h:
src/analysis/beforetrace.h:
src/analysis/categories.h:
src/analysis/categories.h:
src/server/colbuf.h:
src/output/format.h:
src/server/api_trace.h:
src/output/export/chrome_json.h:
src/output/report/report_trace.h:
src/output/report/report_enc.h:
src/model/trace.h:
src/server/api_compare.h:
src/output/report/report.h:
src/importers/importer.h:
