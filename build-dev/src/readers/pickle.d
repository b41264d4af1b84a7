build-dev/src/readers/pickle.o: src/readers/pickle.c src/readers/pickle.h \
 src/common/err.h src/readers/pyvalue.h src/model/strpool.h \
 src/readers/source.h src/readers/mapview.h src/common/vec.h \
 src/common/err.h
src/readers/pickle.h:
src/common/err.h:
src/readers/pyvalue.h:
src/model/strpool.h:
src/readers/source.h:
src/readers/mapview.h:
src/common/vec.h:
src/common/err.h:
