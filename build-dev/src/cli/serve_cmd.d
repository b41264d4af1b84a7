build-dev/src/cli/serve_cmd.o: src/cli/serve_cmd.c src/output/textwidth.h \
 src/server/ranks.h src/common/err.h src/output/report/report_enc.h \
 src/common/vec.h src/common/err.h src/readers/source.h src/server/view.h \
 src/analysis/distributed.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/readers/pyvalue.h src/model/strpool.h \
 src/cli/cli.h src/importers/importer.h src/server/server.h \
 src/server/ranks.h
src/output/textwidth.h:
src/server/ranks.h:
src/common/err.h:
src/output/report/report_enc.h:
src/common/vec.h:
src/common/err.h:
src/readers/source.h:
src/server/view.h:
src/analysis/distributed.h:
src/model/profile.h:
src/model/strpool.h:
src/model/trace.h:
src/readers/pyvalue.h:
src/model/strpool.h:
src/cli/cli.h:
src/importers/importer.h:
src/server/server.h:
src/server/ranks.h:
