build-dev/src/analysis/cluster.o: src/analysis/cluster.c \
 src/analysis/cluster.h src/analysis/rankrec.h src/analysis/distributed.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/common/spool.h
src/analysis/cluster.h:
src/analysis/rankrec.h:
src/analysis/distributed.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/spool.h:
