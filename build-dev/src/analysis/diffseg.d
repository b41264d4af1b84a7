build-dev/src/analysis/diffseg.o: src/analysis/diffseg.c \
 src/analysis/diffseg.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h
src/analysis/diffseg.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
