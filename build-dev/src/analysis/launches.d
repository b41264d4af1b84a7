build-dev/src/analysis/launches.o: src/analysis/launches.c \
 src/analysis/launches.h src/analysis/durhist.h \
 src/analysis/gputimeline.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h
src/analysis/launches.h:
src/analysis/durhist.h:
src/analysis/gputimeline.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
