build-dev/src/importers/walk.o: src/importers/walk.c \
 src/importers/ascend.h src/common/err.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h src/analysis/attribute.h src/analysis/categories.h \
 src/analysis/curve.h src/importers/importer.h
src/importers/ascend.h:
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
src/importers/importer.h:
