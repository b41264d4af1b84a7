build-dev/src/output/report/report_blobq.o: \
 src/output/report/report_blobq.c src/output/report/report_blobq.h \
 src/output/report/report_enc.h src/common/vec.h src/common/err.h \
 src/common/err.h
src/output/report/report_blobq.h:
src/output/report/report_enc.h:
src/common/vec.h:
src/common/err.h:
src/common/err.h:
