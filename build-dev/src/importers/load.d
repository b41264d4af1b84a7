build-dev/src/importers/load.o: src/importers/load.c src/common/phase.h \
 src/importers/importer.h src/common/err.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h src/analysis/attribute.h src/analysis/categories.h \
 src/analysis/curve.h
src/common/phase.h:
src/importers/importer.h:
src/common/err.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/analysis/attribute.h:
src/analysis/categories.h:
src/analysis/curve.h:
