build-dev/src/analysis/attribute.o: src/analysis/attribute.c \
 src/analysis/attribute.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h src/common/decimal.h
src/analysis/attribute.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/decimal.h:
