build-dev/src/analysis/steps.o: src/analysis/steps.c src/analysis/steps.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/analysis/ranges.h \
 src/common/sortperm.h
src/analysis/steps.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/ranges.h:
src/common/sortperm.h:
