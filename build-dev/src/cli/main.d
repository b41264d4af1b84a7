build-dev/src/cli/main.o: src/cli/main.c src/cli/cli.h \
 src/importers/importer.h src/common/err.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h
src/cli/cli.h:
src/importers/importer.h:
src/common/err.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
