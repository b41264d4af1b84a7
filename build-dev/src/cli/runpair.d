build-dev/src/cli/runpair.o: src/cli/runpair.c src/output/textwidth.h \
 src/cli/runpair.h src/analysis/diff.h src/analysis/breakdown.h \
 src/analysis/curve.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/diffops.h src/analysis/diffseg.h src/analysis/difftree.h \
 src/analysis/optree.h src/analysis/stats.h src/analysis/categories.h \
 src/analysis/steps.h src/analysis/ranges.h src/analysis/diffops.h \
 src/importers/importer.h src/common/err.h src/readers/source.h \
 src/common/par.h src/common/phase.h
src/output/textwidth.h:
src/cli/runpair.h:
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
src/analysis/diffops.h:
src/importers/importer.h:
src/common/err.h:
src/readers/source.h:
src/common/par.h:
src/common/phase.h:
