build-dev/src/analysis/m4.o: src/analysis/m4.c src/analysis/m4.h \
 src/common/err.h
src/analysis/m4.h:
src/common/err.h:
