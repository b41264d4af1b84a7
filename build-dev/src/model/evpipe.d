build-dev/src/model/evpipe.o: src/model/evpipe.c src/model/evpipe.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/model/match.h src/common/par.h
src/model/evpipe.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/model/match.h:
src/common/par.h:
