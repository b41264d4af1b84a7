build-dev/src/common/spool.o: src/common/spool.c src/common/spool.h \
 src/common/err.h
src/common/spool.h:
src/common/err.h:
