build-dev/src/output/export/chrome_json.o: \
 src/output/export/chrome_json.c src/output/export/chrome_json.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/output/report/report_enc.h \
 src/output/report/report_trace.h src/output/report/report_enc.h \
 src/model/trace.h
src/output/export/chrome_json.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/output/report/report_enc.h:
src/output/report/report_trace.h:
src/output/report/report_enc.h:
src/model/trace.h:
