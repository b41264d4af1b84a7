build-dev/src/analysis/modules.o: src/analysis/modules.c \
 src/analysis/modules.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h
src/analysis/modules.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
