build-dev/src/cli/job.o: src/cli/job.c src/output/textwidth.h \
 src/cli/job.h src/importers/loadpar.h src/common/err.h \
 src/importers/importer.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h src/readers/source.h \
 src/analysis/rankrec.h src/analysis/distributed.h src/common/spool.h \
 src/cli/cli.h src/importers/importer.h src/cli/transport.h
src/output/textwidth.h:
src/cli/job.h:
src/importers/loadpar.h:
src/common/err.h:
src/importers/importer.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/analysis/rankrec.h:
src/analysis/distributed.h:
src/common/spool.h:
src/cli/cli.h:
src/importers/importer.h:
src/cli/transport.h:
