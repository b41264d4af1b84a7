build-dev/src/cli/snapshot_cmd.o: src/cli/snapshot_cmd.c \
 src/output/textwidth.h src/cli/cli.h src/importers/importer.h \
 src/common/err.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h src/readers/source.h \
 src/analysis/breakdown.h src/analysis/curve.h src/output/format.h
src/output/textwidth.h:
src/cli/cli.h:
src/importers/importer.h:
src/common/err.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/analysis/breakdown.h:
src/analysis/curve.h:
src/output/format.h:
