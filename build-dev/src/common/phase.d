build-dev/src/common/phase.o: src/common/phase.c src/common/phase.h
src/common/phase.h:
