build-dev/src/analysis/diffops.o: src/analysis/diffops.c \
 src/analysis/diffops.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h src/analysis/steps.h \
 src/analysis/ranges.h src/model/trace.h src/common/u64map.h
src/analysis/diffops.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/steps.h:
src/analysis/ranges.h:
src/model/trace.h:
src/common/u64map.h:
