build-dev/src/output/export/export.o: src/output/export/export.c \
 src/output/export/export.h src/common/err.h src/importers/importer.h \
 src/model/profile.h src/model/strpool.h src/model/trace.h \
 src/common/vec.h src/common/err.h src/readers/source.h \
 src/analysis/breakdown.h src/analysis/curve.h src/analysis/categories.h \
 src/common/csvout.h src/output/outfile.h src/common/utf8.h
src/output/export/export.h:
src/common/err.h:
src/importers/importer.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/analysis/breakdown.h:
src/analysis/curve.h:
src/analysis/categories.h:
src/common/csvout.h:
src/output/outfile.h:
src/common/utf8.h:
