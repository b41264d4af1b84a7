build-dev/src/analysis/distributed.o: src/analysis/distributed.c \
 src/analysis/distributed.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/ranges.h
src/analysis/distributed.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/ranges.h:
