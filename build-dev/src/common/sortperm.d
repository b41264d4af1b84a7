build-dev/src/common/sortperm.o: src/common/sortperm.c \
 src/common/sortperm.h src/common/err.h src/common/par.h
src/common/sortperm.h:
src/common/err.h:
src/common/par.h:
