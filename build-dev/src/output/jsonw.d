build-dev/src/output/jsonw.o: src/output/jsonw.c src/output/jsonw.h \
 src/common/utf8.h
src/output/jsonw.h:
src/common/utf8.h:
