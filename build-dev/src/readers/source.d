build-dev/src/readers/source.o: src/readers/source.c src/readers/source.h \
 src/common/err.h src/readers/mapview.h
src/readers/source.h:
src/common/err.h:
src/readers/mapview.h:
