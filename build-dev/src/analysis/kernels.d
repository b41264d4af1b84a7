build-dev/src/analysis/kernels.o: src/analysis/kernels.c \
 src/analysis/kernels.h src/analysis/durhist.h src/analysis/optree.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/common/u64map.h
src/analysis/kernels.h:
src/analysis/durhist.h:
src/analysis/optree.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/u64map.h:
