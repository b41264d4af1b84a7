build-dev/src/output/format.o: src/output/format.c src/output/format.h
src/output/format.h:
