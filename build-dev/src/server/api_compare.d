build-dev/src/server/api_compare.o: src/server/api_compare.c \
 src/server/api_compare.h src/output/report/report_enc.h src/common/vec.h \
 src/common/err.h src/server/view.h src/analysis/distributed.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/err.h src/readers/pyvalue.h src/model/strpool.h \
 src/output/compare/compare.h src/analysis/diff.h \
 src/analysis/breakdown.h src/analysis/curve.h src/analysis/diffops.h \
 src/analysis/diffseg.h src/analysis/difftree.h src/analysis/optree.h \
 src/analysis/stats.h src/analysis/categories.h src/analysis/steps.h \
 src/analysis/ranges.h src/output/jsonw.h
src/server/api_compare.h:
src/output/report/report_enc.h:
src/common/vec.h:
src/common/err.h:
src/server/view.h:
src/analysis/distributed.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/err.h:
src/readers/pyvalue.h:
src/model/strpool.h:
src/output/compare/compare.h:
src/analysis/diff.h:
src/analysis/breakdown.h:
src/analysis/curve.h:
src/analysis/diffops.h:
src/analysis/diffseg.h:
src/analysis/difftree.h:
src/analysis/optree.h:
src/analysis/stats.h:
src/analysis/categories.h:
src/analysis/steps.h:
src/analysis/ranges.h:
src/output/jsonw.h:
