build-dev/src/analysis/gpu_idle.o: src/analysis/gpu_idle.c \
 src/analysis/gpu_idle.h src/analysis/gputimeline.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h
src/analysis/gpu_idle.h:
src/analysis/gputimeline.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
