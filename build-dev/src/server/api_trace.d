build-dev/src/server/api_trace.o: src/server/api_trace.c \
 src/server/api_trace.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h \
 src/output/report/report_enc.h src/server/colbuf.h \
 src/output/report/report_trace.h src/output/report/report_enc.h \
 src/model/trace.h
src/server/api_trace.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/output/report/report_enc.h:
src/server/colbuf.h:
src/output/report/report_trace.h:
src/output/report/report_enc.h:
src/model/trace.h:
