build-dev/src/cli/diff_cmd.o: src/cli/diff_cmd.c src/cli/cli.h \
 src/importers/importer.h src/common/err.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h src/output/compare/compare.h src/analysis/diff.h \
 src/analysis/breakdown.h src/analysis/curve.h src/analysis/diffops.h \
 src/analysis/diffseg.h src/analysis/difftree.h src/analysis/optree.h \
 src/analysis/stats.h src/analysis/categories.h src/analysis/steps.h \
 src/analysis/ranges.h src/output/jsonw.h src/output/report/report_enc.h \
 src/common/phase.h src/cli/runpair.h src/analysis/diffops.h \
 src/output/textwidth.h
src/cli/cli.h:
src/importers/importer.h:
src/common/err.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
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
src/output/report/report_enc.h:
src/common/phase.h:
src/cli/runpair.h:
src/analysis/diffops.h:
src/output/textwidth.h:
