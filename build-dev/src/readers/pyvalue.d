build-dev/src/readers/pyvalue.o: src/readers/pyvalue.c \
 src/readers/pyvalue.h src/common/err.h src/model/strpool.h \
 src/common/vec.h src/common/err.h
src/readers/pyvalue.h:
src/common/err.h:
src/model/strpool.h:
src/common/vec.h:
src/common/err.h:
