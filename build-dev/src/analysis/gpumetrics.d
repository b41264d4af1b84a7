build-dev/src/analysis/gpumetrics.o: src/analysis/gpumetrics.c \
 src/analysis/gpumetrics.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h src/analysis/steps.h \
 src/analysis/ranges.h src/analysis/optree.h src/common/sortperm.h
src/analysis/gpumetrics.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/steps.h:
src/analysis/ranges.h:
src/analysis/optree.h:
src/common/sortperm.h:
