build-dev/src/analysis/gputime.o: src/analysis/gputime.c \
 src/analysis/gputime.h src/analysis/gpu_idle.h \
 src/analysis/gputimeline.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h \
 src/analysis/kernel_types.h src/analysis/launch_queue.h \
 src/analysis/launches.h src/analysis/durhist.h src/analysis/membw.h
src/analysis/gputime.h:
src/analysis/gpu_idle.h:
src/analysis/gputimeline.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/analysis/kernel_types.h:
src/analysis/launch_queue.h:
src/analysis/launches.h:
src/analysis/durhist.h:
src/analysis/membw.h:
