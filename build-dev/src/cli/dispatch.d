build-dev/src/cli/dispatch.o: src/cli/dispatch.c src/cli/cli.h \
 src/importers/importer.h src/common/err.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h src/common/phase.h src/output/summary/summary.h \
 src/analysis/breakdown.h src/analysis/curve.h src/output/jsonw.h \
 src/analysis/rankrec.h src/analysis/distributed.h src/common/spool.h
src/cli/cli.h:
src/importers/importer.h:
src/common/err.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/common/phase.h:
src/output/summary/summary.h:
src/analysis/breakdown.h:
src/analysis/curve.h:
src/output/jsonw.h:
src/analysis/rankrec.h:
src/analysis/distributed.h:
src/common/spool.h:
