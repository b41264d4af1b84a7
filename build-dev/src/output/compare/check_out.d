build-dev/src/output/compare/check_out.o: src/output/compare/check_out.c \
 src/output/compare/check_out.h src/analysis/check.h src/analysis/diff.h \
 src/analysis/breakdown.h src/analysis/curve.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/diffops.h src/analysis/diffseg.h src/analysis/difftree.h \
 src/analysis/optree.h src/analysis/stats.h src/analysis/categories.h \
 src/analysis/steps.h src/analysis/ranges.h src/common/err.h \
 src/output/format.h src/output/jsonw.h src/output/outfile.h \
 src/output/summary/summary.h src/analysis/breakdown.h \
 src/importers/importer.h src/readers/source.h src/analysis/rankrec.h \
 src/analysis/distributed.h src/common/spool.h
src/output/compare/check_out.h:
src/analysis/check.h:
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
src/output/format.h:
src/output/jsonw.h:
src/output/outfile.h:
src/output/summary/summary.h:
src/analysis/breakdown.h:
src/importers/importer.h:
src/readers/source.h:
src/analysis/rankrec.h:
src/analysis/distributed.h:
src/common/spool.h:
