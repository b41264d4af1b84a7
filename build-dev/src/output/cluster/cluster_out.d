build-dev/src/output/cluster/cluster_out.o: \
 src/output/cluster/cluster_out.c src/output/cluster/cluster_out.h \
 src/analysis/cluster.h src/analysis/rankrec.h src/analysis/distributed.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/common/spool.h src/output/jsonw.h \
 src/output/format.h
src/output/cluster/cluster_out.h:
src/analysis/cluster.h:
src/analysis/rankrec.h:
src/analysis/distributed.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/spool.h:
src/output/jsonw.h:
src/output/format.h:
