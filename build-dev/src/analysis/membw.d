build-dev/src/analysis/membw.o: src/analysis/membw.c src/analysis/membw.h \
 src/analysis/gputimeline.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h \
 src/common/sortperm.h
src/analysis/membw.h:
src/analysis/gputimeline.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/sortperm.h:
