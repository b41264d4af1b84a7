build-dev/src/output/outfile.o: src/output/outfile.c src/output/outfile.h \
 src/common/err.h
src/output/outfile.h:
src/common/err.h:
