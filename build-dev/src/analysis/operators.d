build-dev/src/analysis/operators.o: src/analysis/operators.c \
 src/analysis/operators.h src/analysis/durhist.h src/analysis/kernels.h \
 src/analysis/optree.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h \
 src/common/sortperm.h src/analysis/steps.h src/analysis/ranges.h \
 src/common/par.h src/common/u64map.h
src/analysis/operators.h:
src/analysis/durhist.h:
src/analysis/kernels.h:
src/analysis/optree.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/sortperm.h:
src/analysis/steps.h:
src/analysis/ranges.h:
src/common/par.h:
src/common/u64map.h:
