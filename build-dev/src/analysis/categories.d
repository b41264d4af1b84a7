build-dev/src/analysis/categories.o: src/analysis/categories.c \
 src/analysis/categories.h src/analysis/curve.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/common/sortperm.h
src/analysis/categories.h:
src/analysis/curve.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/sortperm.h:
