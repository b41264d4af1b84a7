build-dev/src/analysis/launch_queue.o: src/analysis/launch_queue.c \
 src/analysis/launch_queue.h src/analysis/gputimeline.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/common/sortperm.h
src/analysis/launch_queue.h:
src/analysis/gputimeline.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/sortperm.h:
