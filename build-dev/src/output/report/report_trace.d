build-dev/src/output/report/report_trace.o: \
 src/output/report/report_trace.c src/output/report/report_trace.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/output/report/report_enc.h \
 src/model/trace.h src/common/sortperm.h
src/output/report/report_trace.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/output/report/report_enc.h:
src/model/trace.h:
src/common/sortperm.h:
