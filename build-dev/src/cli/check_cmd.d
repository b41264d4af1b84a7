build-dev/src/cli/check_cmd.o: src/cli/check_cmd.c src/analysis/check.h \
 src/analysis/diff.h src/analysis/breakdown.h src/analysis/curve.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/analysis/diffops.h \
 src/analysis/diffseg.h src/analysis/difftree.h src/analysis/optree.h \
 src/analysis/stats.h src/analysis/categories.h src/analysis/steps.h \
 src/analysis/ranges.h src/common/err.h src/output/compare/check_out.h \
 src/cli/cli.h src/importers/importer.h src/readers/source.h \
 src/common/phase.h src/cli/runpair.h src/analysis/diff.h \
 src/analysis/diffops.h
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
src/output/compare/check_out.h:
src/cli/cli.h:
src/importers/importer.h:
src/readers/source.h:
src/common/phase.h:
src/cli/runpair.h:
src/analysis/diff.h:
src/analysis/diffops.h:
