build-dev/src/server/server.o: src/server/server.c src/server/server.h \
 src/common/err.h src/server/ranks.h src/output/report/report_enc.h \
 src/common/vec.h src/common/err.h src/readers/source.h src/server/view.h \
 src/analysis/distributed.h src/model/profile.h src/model/strpool.h \
 src/model/trace.h src/readers/pyvalue.h src/model/strpool.h \
 src/server/api.h src/output/export/chrome_json.h src/server/colbuf.h \
 src/server/upload.h src/output/report/web_assets.h
src/server/server.h:
src/common/err.h:
src/server/ranks.h:
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
src/server/api.h:
src/output/export/chrome_json.h:
src/server/colbuf.h:
src/server/upload.h:
src/output/report/web_assets.h:
