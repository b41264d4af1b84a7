build-dev/src/readers/jsonscan.o: src/readers/jsonscan.c \
 src/readers/jsonscan.h src/common/err.h src/readers/source.h \
 src/common/decimal.h
src/readers/jsonscan.h:
src/common/err.h:
src/readers/source.h:
src/common/decimal.h:
