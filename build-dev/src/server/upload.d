build-dev/src/server/upload.o: src/server/upload.c src/server/upload.h \
 src/common/err.h
src/server/upload.h:
src/common/err.h:
