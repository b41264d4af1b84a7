build-dev/src/output/summary/summary_ascend.o: \
 src/output/summary/summary_ascend.c src/output/summary/summary_ascend.h \
 src/output/jsonw.h src/output/summary/summary.h src/analysis/breakdown.h \
 src/analysis/curve.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/common/vec.h src/common/err.h \
 src/importers/importer.h src/common/err.h src/readers/source.h \
 src/analysis/rankrec.h src/analysis/distributed.h src/common/spool.h \
 src/output/textwidth.h src/analysis/components.h src/analysis/curve.h \
 src/output/format.h
src/output/summary/summary_ascend.h:
src/output/jsonw.h:
src/output/summary/summary.h:
src/analysis/breakdown.h:
src/analysis/curve.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/common/vec.h:
src/common/err.h:
src/importers/importer.h:
src/common/err.h:
src/readers/source.h:
src/analysis/rankrec.h:
src/analysis/distributed.h:
src/common/spool.h:
src/output/textwidth.h:
src/analysis/components.h:
src/analysis/curve.h:
src/output/format.h:
