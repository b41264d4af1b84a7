build-dev/src/analysis/kernel_types.o: src/analysis/kernel_types.c \
 src/analysis/kernel_types.h src/analysis/gputimeline.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h
src/analysis/kernel_types.h:
src/analysis/gputimeline.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
