build-dev/src/readers/csv.o: src/readers/csv.c src/readers/csv.h \
 src/common/decimal.h src/common/err.h src/readers/source.h \
 src/common/vec.h src/common/err.h
src/readers/csv.h:
src/common/decimal.h:
src/common/err.h:
src/readers/source.h:
src/common/vec.h:
src/common/err.h:
