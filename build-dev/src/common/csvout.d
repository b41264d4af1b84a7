build-dev/src/common/csvout.o: src/common/csvout.c src/common/csvout.h
src/common/csvout.h:
