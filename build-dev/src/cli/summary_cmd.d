build-dev/src/cli/summary_cmd.o: src/cli/summary_cmd.c src/cli/cli.h \
 src/importers/importer.h src/common/err.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h src/cli/job.h src/importers/loadpar.h \
 src/importers/importer.h src/analysis/rankrec.h \
 src/analysis/distributed.h src/common/spool.h src/common/phase.h \
 src/output/summary/summary.h src/analysis/breakdown.h \
 src/analysis/curve.h src/output/jsonw.h \
 src/output/summary/summary_ascend.h src/output/summary/summary.h \
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
src/cli/job.h:
src/importers/loadpar.h:
src/importers/importer.h:
src/analysis/rankrec.h:
src/analysis/distributed.h:
src/common/spool.h:
src/common/phase.h:
src/output/summary/summary.h:
src/analysis/breakdown.h:
src/analysis/curve.h:
src/output/jsonw.h:
src/output/summary/summary_ascend.h:
src/output/summary/summary.h:
src/output/textwidth.h:
