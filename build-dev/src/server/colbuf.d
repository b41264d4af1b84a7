build-dev/src/server/colbuf.o: src/server/colbuf.c src/server/colbuf.h \
 src/output/report/report_enc.h src/common/vec.h src/common/err.h \
 src/common/err.h
src/server/colbuf.h:
src/output/report/report_enc.h:
src/common/vec.h:
src/common/err.h:
src/common/err.h:
