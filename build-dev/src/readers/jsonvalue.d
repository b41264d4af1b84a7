build-dev/src/readers/jsonvalue.o: src/readers/jsonvalue.c \
 src/readers/jsonvalue.h src/common/err.h src/readers/pickle.h \
 src/readers/pyvalue.h src/model/strpool.h src/readers/source.h \
 src/readers/jsonscan.h
src/readers/jsonvalue.h:
src/common/err.h:
src/readers/pickle.h:
src/readers/pyvalue.h:
src/model/strpool.h:
src/readers/source.h:
src/readers/jsonscan.h:
