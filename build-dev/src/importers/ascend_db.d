build-dev/src/importers/ascend_db.o: src/importers/ascend_db.c \
 src/importers/ascend.h src/common/err.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h src/readers/csv.h src/common/decimal.h \
 src/readers/source.h src/importers/importer.h
src/importers/ascend.h:
src/common/err.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/readers/csv.h:
src/common/decimal.h:
src/readers/source.h:
src/importers/importer.h:
