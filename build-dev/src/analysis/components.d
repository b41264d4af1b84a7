build-dev/src/analysis/components.o: src/analysis/components.c \
 src/analysis/components.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h
src/analysis/components.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
