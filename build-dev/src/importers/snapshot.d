build-dev/src/importers/snapshot.o: src/importers/snapshot.c \
 src/model/evpipe.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h \
 src/importers/importer.h src/common/err.h src/model/profile.h \
 src/readers/source.h src/common/phase.h src/readers/jsonvalue.h \
 src/readers/pickle.h src/readers/pyvalue.h src/model/strpool.h \
 src/readers/source.h src/model/match.h src/readers/pickle.h \
 src/readers/pyvalue.h
src/model/evpipe.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/importers/importer.h:
src/common/err.h:
src/model/profile.h:
src/readers/source.h:
src/common/phase.h:
src/readers/jsonvalue.h:
src/readers/pickle.h:
src/readers/pyvalue.h:
src/model/strpool.h:
src/readers/source.h:
src/model/match.h:
src/readers/pickle.h:
src/readers/pyvalue.h:
