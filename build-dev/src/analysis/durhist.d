build-dev/src/analysis/durhist.o: src/analysis/durhist.c \
 src/analysis/durhist.h
src/analysis/durhist.h:
