build-dev/src/model/trace.o: src/model/trace.c src/model/trace.h \
 src/model/strpool.h src/common/vec.h src/common/err.h \
 src/model/profile.h src/common/sortperm.h src/common/par.h \
 src/common/phase.h src/common/u64map.h
src/model/trace.h:
src/model/strpool.h:
src/common/vec.h:
src/common/err.h:
src/model/profile.h:
src/common/sortperm.h:
src/common/par.h:
src/common/phase.h:
src/common/u64map.h:
