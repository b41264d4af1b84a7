build-dev/src/common/par.o: src/common/par.c src/common/par.h
src/common/par.h:
