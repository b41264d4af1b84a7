build-dev/src/common/decimal.o: src/common/decimal.c src/common/decimal.h
src/common/decimal.h:
