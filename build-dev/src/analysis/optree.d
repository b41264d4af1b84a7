build-dev/src/analysis/optree.o: src/analysis/optree.c \
 src/analysis/optree.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h src/analysis/steps.h \
 src/analysis/ranges.h src/common/u64map.h
src/analysis/optree.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/steps.h:
src/analysis/ranges.h:
src/common/u64map.h:
