build-dev/src/analysis/stats.o: src/analysis/stats.c src/analysis/stats.h \
 src/analysis/breakdown.h src/analysis/curve.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/categories.h src/common/par.h
src/analysis/stats.h:
src/analysis/breakdown.h:
src/analysis/curve.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/categories.h:
src/common/par.h:
