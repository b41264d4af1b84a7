build-dev/src/model/match.o: src/model/match.c src/model/match.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h
src/model/match.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
