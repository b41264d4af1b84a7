build-dev/src/server/view.o: src/server/view.c src/server/view.h \
 src/analysis/distributed.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h src/common/err.h \
 src/readers/pyvalue.h src/model/strpool.h src/output/report/report_enc.h \
 src/server/api_trace.h src/analysis/categories.h src/analysis/curve.h \
 src/readers/jsonvalue.h src/readers/pickle.h src/readers/pyvalue.h \
 src/readers/source.h src/analysis/m4.h src/output/report/report.h \
 src/importers/importer.h src/readers/source.h \
 src/output/report/report_enc.h
src/server/view.h:
src/analysis/distributed.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/err.h:
src/readers/pyvalue.h:
src/model/strpool.h:
src/output/report/report_enc.h:
src/server/api_trace.h:
src/analysis/categories.h:
src/analysis/curve.h:
src/readers/jsonvalue.h:
src/readers/pickle.h:
src/readers/pyvalue.h:
src/readers/source.h:
src/analysis/m4.h:
src/output/report/report.h:
src/importers/importer.h:
src/readers/source.h:
src/output/report/report_enc.h:
