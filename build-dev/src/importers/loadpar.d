build-dev/src/importers/loadpar.o: src/importers/loadpar.c \
 src/importers/loadpar.h src/common/err.h src/importers/importer.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/readers/source.h src/common/par.h
src/importers/loadpar.h:
src/common/err.h:
src/importers/importer.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/common/par.h:
