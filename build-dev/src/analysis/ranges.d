build-dev/src/analysis/ranges.o: src/analysis/ranges.c \
 src/analysis/ranges.h src/common/vec.h src/common/err.h \
 src/common/sortperm.h
src/analysis/ranges.h:
src/common/vec.h:
src/common/err.h:
src/common/sortperm.h:
