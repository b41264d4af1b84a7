build-dev/src/model/strpool.o: src/model/strpool.c src/model/strpool.h \
 src/common/err.h
src/model/strpool.h:
src/common/err.h:
