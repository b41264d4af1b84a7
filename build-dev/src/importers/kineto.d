build-dev/src/importers/kineto.o: src/importers/kineto.c \
 src/importers/importer.h src/common/err.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h src/common/decimal.h src/readers/jsonscan.h \
 src/readers/source.h src/common/par.h src/common/phase.h
src/importers/importer.h:
src/common/err.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/common/decimal.h:
src/readers/jsonscan.h:
src/readers/source.h:
src/common/par.h:
src/common/phase.h:
