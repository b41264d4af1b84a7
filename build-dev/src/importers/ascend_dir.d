build-dev/src/importers/ascend_dir.o: src/importers/ascend_dir.c \
 src/importers/ascend.h src/common/err.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h src/common/decimal.h src/importers/importer.h \
 src/readers/jsonscan.h src/readers/source.h
src/importers/ascend.h:
src/common/err.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/common/decimal.h:
src/importers/importer.h:
src/readers/jsonscan.h:
src/readers/source.h:
