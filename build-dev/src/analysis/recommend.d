build-dev/src/analysis/recommend.o: src/analysis/recommend.c \
 src/analysis/recommend.h src/analysis/gpumetrics.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/steps.h src/analysis/ranges.h src/analysis/kernels.h \
 src/analysis/durhist.h src/analysis/optree.h src/analysis/curve.h
src/analysis/recommend.h:
src/analysis/gpumetrics.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/steps.h:
src/analysis/ranges.h:
src/analysis/kernels.h:
src/analysis/durhist.h:
src/analysis/optree.h:
src/analysis/curve.h:
