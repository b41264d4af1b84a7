build-dev/src/analysis/difftree.o: src/analysis/difftree.c \
 src/analysis/difftree.h src/analysis/optree.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/steps.h src/analysis/ranges.h src/model/trace.h \
 src/common/u64map.h
src/analysis/difftree.h:
src/analysis/optree.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/steps.h:
src/analysis/ranges.h:
src/model/trace.h:
src/common/u64map.h:
