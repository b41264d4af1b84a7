build-dev/src/output/report/report_segments.o: \
 src/output/report/report_segments.c src/output/report/report_segments.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/output/report/report_enc.h
src/output/report/report_segments.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/output/report/report_enc.h:
