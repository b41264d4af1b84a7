build-dev/src/output/compare/compare_report.o: \
 src/output/compare/compare_report.c src/output/compare/compare.h \
 src/analysis/diff.h src/analysis/breakdown.h src/analysis/curve.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/analysis/diffops.h \
 src/analysis/diffseg.h src/analysis/difftree.h src/analysis/optree.h \
 src/analysis/stats.h src/analysis/categories.h src/analysis/steps.h \
 src/analysis/ranges.h src/common/err.h src/output/jsonw.h \
 src/output/report/report_enc.h src/output/report/report.h \
 src/analysis/distributed.h src/importers/importer.h src/readers/source.h \
 src/output/report/report_enc.h
src/output/compare/compare.h:
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
src/common/err.h:
src/output/jsonw.h:
src/output/report/report_enc.h:
src/output/report/report.h:
src/analysis/distributed.h:
src/importers/importer.h:
src/readers/source.h:
src/output/report/report_enc.h:
