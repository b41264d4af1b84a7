build-dev/src/model/profile.o: src/model/profile.c src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/common/par.h src/common/phase.h src/model/match.h \
 src/common/sortperm.h src/common/u64map.h
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/par.h:
src/common/phase.h:
src/model/match.h:
src/common/sortperm.h:
src/common/u64map.h:
