build-dev/src/output/report/report_static.o: \
 src/output/report/report_static.c src/analysis/components.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/output/report/report_static.h \
 src/output/report/report_enc.h
src/analysis/components.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/output/report/report_static.h:
src/output/report/report_enc.h:
