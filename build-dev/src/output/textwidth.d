build-dev/src/output/textwidth.o: src/output/textwidth.c \
 src/output/textwidth.h src/common/utf8.h
src/output/textwidth.h:
src/common/utf8.h:
