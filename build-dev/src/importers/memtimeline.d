build-dev/src/importers/memtimeline.o: src/importers/memtimeline.c \
 src/analysis/categories.h src/analysis/curve.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/importers/importer.h src/common/err.h src/readers/source.h \
 src/readers/jsonscan.h src/readers/source.h src/common/sortperm.h
src/analysis/categories.h:
src/analysis/curve.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/importers/importer.h:
src/common/err.h:
src/readers/source.h:
src/readers/jsonscan.h:
src/readers/source.h:
src/common/sortperm.h:
