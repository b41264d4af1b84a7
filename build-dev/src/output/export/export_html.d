build-dev/src/output/export/export_html.o: \
 src/output/export/export_html.c src/output/export/export.h \
 src/common/err.h src/importers/importer.h src/model/profile.h \
 src/model/strpool.h src/model/trace.h src/common/vec.h src/common/err.h \
 src/readers/source.h src/analysis/stats.h src/analysis/breakdown.h \
 src/analysis/curve.h src/analysis/categories.h
src/output/export/export.h:
src/common/err.h:
src/importers/importer.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/analysis/stats.h:
src/analysis/breakdown.h:
src/analysis/curve.h:
src/analysis/categories.h:
