build-dev/src/analysis/unmatched.o: src/analysis/unmatched.c \
 src/analysis/unmatched.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h
src/analysis/unmatched.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
