build-dev/src/importers/ascend_ops.o: src/importers/ascend_ops.c \
 src/importers/ascend.h src/common/err.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h src/analysis/attribute.h src/common/decimal.h \
 src/readers/jsonscan.h src/readers/source.h
src/importers/ascend.h:
src/common/err.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/analysis/attribute.h:
src/common/decimal.h:
src/readers/jsonscan.h:
src/readers/source.h:
