build-dev/src/common/u64map.o: src/common/u64map.c src/common/u64map.h \
 src/common/err.h
src/common/u64map.h:
src/common/err.h:
