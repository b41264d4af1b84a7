build-dev/src/common/utf8.o: src/common/utf8.c src/common/utf8.h
src/common/utf8.h:
