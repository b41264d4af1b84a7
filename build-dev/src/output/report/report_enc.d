build-dev/src/output/report/report_enc.o: src/output/report/report_enc.c \
 src/output/report/report_enc.h src/common/vec.h src/common/err.h \
 src/common/err.h src/common/par.h src/output/report/report_blobq.h \
 src/common/utf8.h
src/output/report/report_enc.h:
src/common/vec.h:
src/common/err.h:
src/common/err.h:
src/common/par.h:
src/output/report/report_blobq.h:
src/common/utf8.h:
