build-dev/src/readers/mapview.o: src/readers/mapview.c \
 src/readers/mapview.h src/common/err.h
src/readers/mapview.h:
src/common/err.h:
