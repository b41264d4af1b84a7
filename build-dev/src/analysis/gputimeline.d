build-dev/src/analysis/gputimeline.o: src/analysis/gputimeline.c \
 src/analysis/gputimeline.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h \
 src/common/sortperm.h src/common/u64map.h
src/analysis/gputimeline.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/sortperm.h:
src/common/u64map.h:
