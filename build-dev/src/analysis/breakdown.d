build-dev/src/analysis/breakdown.o: src/analysis/breakdown.c \
 src/analysis/breakdown.h src/analysis/curve.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/categories.h
src/analysis/breakdown.h:
src/analysis/curve.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/categories.h:
