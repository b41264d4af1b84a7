build-dev/src/output/report/report.o: src/output/report/report.c \
 src/output/report/report.h src/analysis/distributed.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/common/err.h \
 src/importers/importer.h src/readers/source.h \
 src/output/report/report_enc.h src/output/outfile.h src/common/phase.h \
 src/output/report/web_assets.h
src/output/report/report.h:
src/analysis/distributed.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/common/err.h:
src/importers/importer.h:
src/readers/source.h:
src/output/report/report_enc.h:
src/output/outfile.h:
src/common/phase.h:
src/output/report/web_assets.h:
