# memlens — build, test, fuzz and benchmark.
#
#   make            build/memlens
#   make test       every test (C units, CLI, web JS); ends with "N passed, N failed"
#   make SAN=1 test the same under ASan + UBSan (build-san/)
#   make fuzz       each libFuzzer target for FUZZ_SECONDS (clang)
#   make bench      speed and memory benchmarks on generated inputs (bench/)
#   make sample     build/sample/: a small generated trace for the README demo
#   make web-dist   web/dist/web_assets.c: the generated web UI that a source
#                   tarball or the Python sdist carries, so that building
#                   from one needs no npm (used when web/node_modules is absent)
#   make MPI=0      without build/memlens-mpi: it is built (with its tests) by
#                   default wherever mpicc is found (Open MPI: libopenmpi-dev),
#                   for `mpirun -n K build/memlens-mpi summary|perf|check|report DIR`
#   make install    PREFIX=/usr/local (DESTDIR too): the binary, memlens.1, bash and zsh
#                   completion; make uninstall removes them.  make sample also writes a
#                   snapshot, an Ascend export, a job and a memory timeline (the README's inputs)

CC      ?= cc
SAN     ?= 0
MPICC   ?= mpicc
# MPI=1 where mpicc is found, unless the command line says MPI=0
MPI     ?= $(if $(shell command -v $(MPICC) 2>/dev/null),1,0)
BUILD   ?= build
ifeq ($(SAN),1)
BUILD   := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OPT     := -O1 -g
else
SANFLAGS :=
OPT     ?= -O2 -g
endif

CFLAGS  ?=
CFLAGS  += -std=gnu11 $(OPT) -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-format-truncation \
           -D_GNU_SOURCE -pthread -MMD -MP $(SANFLAGS) $(MHD_CFLAGS) $(addprefix -I,$(SRC_DIRS))
LDFLAGS += -pthread $(SANFLAGS)
MHD_LIBS := $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
MHD_CFLAGS := $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
# libdeflate (Debian libdeflate-dev) deflates the report's data where present; zlib otherwise
DEFLATE_LIBS := $(shell pkg-config --libs libdeflate 2>/dev/null)
LDLIBS  += -lz $(DEFLATE_LIBS) -lsqlite3 -lm $(MHD_LIBS)

SRC_DIRS := $(shell find src -type d)
# src/par/: the MPI transport, compiled with mpicc into memlens-mpi only
LIB_SRC  := $(filter-out src/cli/main.c src/par/%,$(shell find src -name '*.c' | sort))
MPI_BIN  := $(if $(filter 1,$(MPI)),$(BUILD)/memlens-mpi)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TOOL_SRC := $(sort $(wildcard tools/*.c))
TOOL_BIN := $(TOOL_SRC:tools/%.c=$(BUILD)/tools/%)
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 20

# The HTML report embeds the web UI (web/src, ES modules joined in this order)
# and uPlot from npm (web/node_modules, installed by scripts/setup).
# trace.js (the Trace view, mountTrace) is bundled when present.
WEB_JS   := $(strip $(addprefix web/src/,format.js drawfail.js devorder.js tip.js decode.js m4.js stack.js zoom.js tracedata.js tracesource.js table.js perftable.js source.js lanes.js alive.js frames.js present.js views.js catview.js staticview.js keys.js unmatched.js segmodel.js segments.js tablectl.js \
            tabs.js perfview.js gputime.js overview.js operators.js htakernels.js kernels.js modules.js stragglers.js distributed.js compare.js cluster.js) \
            web/src/arrow.js web/src/critpath.js web/src/trace.js web/src/upload.js web/src/app.js)
WEB_GEN  := $(BUILD)/gen/web_assets.c
UPLOT    := web/node_modules/uplot/dist
# Prebuilt assets: web/dist/web_assets.c is the generated file an sdist or a
# source tarball carries (`make web-dist` writes it; git ignores it).  Where
# npm's uPlot is absent (no web/node_modules) and that file is there, the
# build compiles it instead of generating one: building from a tarball needs
# a C compiler and the -dev packages, not npm.
WEB_DIST := web/dist/web_assets.c
ifeq ($(wildcard $(UPLOT)/uPlot.iife.min.js),)
ifneq ($(wildcard $(WEB_DIST)),)
WEB_GEN  := $(WEB_DIST)
WEB_PREBUILT := 1
endif
endif
LIB_OBJ  += $(BUILD)/gen/web_assets.o
ml_comma := ,
ml_empty :=
ml_space := $(ml_empty) $(ml_empty)

.PHONY: all tests test check fuzz bench sample clean web web-dist
all: $(BUILD)/memlens $(TOOL_BIN) $(MPI_BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(UPLOT)/uPlot.iife.min.js $(UPLOT)/uPlot.min.css:
	@echo "error: $@ is missing: run scripts/setup (it runs npm ci in web/)" >&2; exit 1

$(BUILD)/embed: tools/embed/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $<

ifneq ($(WEB_PREBUILT),1)
$(WEB_GEN): $(BUILD)/embed $(WEB_JS) web/src/style.css web/src/body.html $(UPLOT)/uPlot.iife.min.js $(UPLOT)/uPlot.min.css
	@mkdir -p $(dir $@)
	$(BUILD)/embed $@ uplot_js=$(UPLOT)/uPlot.iife.min.js uplot_css=$(UPLOT)/uPlot.min.css \
	  style=web/src/style.css body=web/src/body.html mod:app=$(subst $(ml_space),$(ml_comma),$(WEB_JS))

# The generated assets, kept where a tarball or an sdist carries them
# (copied only when they were made again: setup.py rebuilds the extension
# whenever the copy is newer than it).
web-dist: $(WEB_DIST)
$(WEB_DIST): $(WEB_GEN)
	@mkdir -p $(dir $@)
	cp $(WEB_GEN) $@
else
web-dist:
	@echo "web-dist: $(WEB_DIST) is prebuilt (no web/node_modules to make it from)"
endif

$(BUILD)/gen/web_assets.o: $(WEB_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libmemlens.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/memlens: $(BUILD)/src/cli/main.o $(BUILD)/libmemlens.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/src/par/%.o: src/par/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -c $< -o $@

$(BUILD)/memlens-mpi: $(BUILD)/src/par/mpi.o $(BUILD)/libmemlens.a
	$(MPICC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c tests/check.h $(BUILD)/libmemlens.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -o $@ $< $(BUILD)/libmemlens.a $(LDFLAGS) $(LDLIBS)

$(BUILD)/tools/%: tools/%.c $(BUILD)/libmemlens.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libmemlens.a $(LDFLAGS) $(LDLIBS)

# `tests` builds what `make test` runs (CI builds it with -j2, then runs the
# README's `make test`).
tests: $(BUILD)/memlens $(TEST_BIN) $(TOOL_BIN) $(MPI_BIN)

test check: tests
	@BUILD=$(BUILD) SAN=$(SAN) sh tests/run

# libFuzzer targets need clang.  The library is compiled once for all of them
# (build-fuzz/obj/, with the fuzzer's coverage instrumentation), each target
# links it: a target compiled every library source again (a minute each, on
# one core).  Any UBSan finding stops the run (and fails `make fuzz`), as in
# `make SAN=1`.  fuzz/NAME.dict, when there is one, is the dictionary of
# fuzz_NAME.  The targets run FUZZ_JOBS at a time (default 2), each
# FUZZ_SECONDS on its own core; each one's log is printed when it fails.
FUZZ_JOBS ?= 2
# (a target passing the wrong pointer type compiles with a warning only,
# and then fails at run time: such warnings are errors here)
FUZZ_FLAGS  := -std=gnu11 -g -O1 -D_GNU_SOURCE -pthread -fno-sanitize-recover=undefined -Werror=incompatible-pointer-types -Werror=int-conversion -Werror=implicit-function-declaration $(addprefix -I,$(SRC_DIRS))
FUZZ_CFLAGS := $(FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined
FUZZ_OBJ := $(LIB_SRC:%.c=build-fuzz/obj/%.o) build-fuzz/obj/web_assets.o
build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@
build-fuzz/obj/web_assets.o: $(WEB_GEN)
	@mkdir -p $(dir $@)
	clang $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@
.SECONDARY: $(FUZZ_OBJ)
build-fuzz/%: fuzz/%.c $(FUZZ_OBJ)
	clang $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_OBJ) $(LDLIBS)

fuzz: $(FUZZ_SRC:fuzz/%.c=build-fuzz/%)
	@printf '%s\n' $^ | xargs -P $(FUZZ_JOBS) -n 1 sh -c ' \
	  f=$$1; n=$$(basename $$f); mkdir -p build-fuzz/corpus-$$n; \
	  cp fuzz/seeds/$$n/* build-fuzz/corpus-$$n/ 2>/dev/null; \
	  dict=fuzz/$${n#fuzz_}.dict; [ -f $$dict ] && dict=-dict=$$dict || dict=; \
	  echo "fuzz $$n for $(FUZZ_SECONDS)s $$dict"; \
	  $$f -artifact_prefix=build-fuzz/$$n- -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -rss_limit_mb=2048 $$dict \
	      -print_final_stats=1 build-fuzz/corpus-$$n >build-fuzz/$$n.log 2>&1 \
	  || { echo "fuzz $$n failed:"; tail -40 build-fuzz/$$n.log; exit 1; }' sh \
	  && echo "fuzz: all targets ran clean"

bench: $(BUILD)/memlens $(TOOL_BIN)
	@BUILD=$(BUILD) sh bench/run

# Demo data made by the project itself, one of each input kind memlens reads
# (the README's examples run on them): two training steps of a GPT-like model
# (train), the same model with 16 layers instead of 12 (train16: for diff and
# check), a job of 4 ranks, one slow and one leaking (job/), a CUDA allocator
# snapshot, a torch_npu text export of 2 ranks (ascend/) and the memory
# timeline PyTorch's export_memory_timeline writes, made from train.
SAMPLE := $(BUILD)/sample/train.pt.trace.json.gz
SAMPLES := $(SAMPLE) $(BUILD)/sample/train16.pt.trace.json.gz $(BUILD)/sample/job/rank3.pt.trace.json.gz \
           $(BUILD)/sample/snapshot.pickle $(BUILD)/sample/ascend/rank1_ascend_pt/profiler_info_1.json \
           $(BUILD)/sample/timeline.raw.json.gz
sample: $(SAMPLES)
$(SAMPLE): $(BUILD)/tools/gen_trace
	@mkdir -p $(dir $@)
	$(BUILD)/tools/gen_trace --steps 2 --seed 1 --gzip --out $@ \
	    --expect $(BUILD)/sample/expect.json --truth $(BUILD)/sample/truth.csv
$(BUILD)/sample/train16.pt.trace.json.gz: $(BUILD)/tools/gen_trace
	@mkdir -p $(dir $@)
	$(BUILD)/tools/gen_trace --steps 2 --seed 1 --layers 16 --gzip --out $@
$(BUILD)/sample/job/rank3.pt.trace.json.gz: $(BUILD)/tools/gen_trace
	@mkdir -p $(dir $@)
	$(BUILD)/tools/gen_trace --steps 2 --seed 1 --gzip --world-size 4 --slow-ranks 1 --leak-rank 2 --out $(dir $@)
$(BUILD)/sample/snapshot.pickle: $(BUILD)/tools/gen_snapshot
	@mkdir -p $(dir $@)
	$(BUILD)/tools/gen_snapshot --size-mb 2 --seed 1 $@
$(BUILD)/sample/ascend/rank1_ascend_pt/profiler_info_1.json: $(BUILD)/tools/gen_ascend
	@mkdir -p $(BUILD)/sample/ascend
	$(BUILD)/tools/gen_ascend --ranks 2 --steps 2 --seed 1 $(BUILD)/sample/ascend
$(BUILD)/sample/timeline.raw.json.gz: $(SAMPLE) $(BUILD)/memlens
	$(BUILD)/memlens export $(SAMPLE) -o $@

# The man page and the completions are made from the program's own --help
# texts (tools/man.sh), so they cannot drift from what memlens prints.
.PHONY: man install uninstall
man: $(BUILD)/memlens.1
$(BUILD)/memlens.bash $(BUILD)/_memlens: $(BUILD)/memlens.1
$(BUILD)/memlens.1: $(BUILD)/memlens tools/man.sh
	sh tools/man.sh man $(BUILD)/memlens >$(BUILD)/memlens.1.tmp && mv $(BUILD)/memlens.1.tmp $(BUILD)/memlens.1
	sh tools/man.sh bash $(BUILD)/memlens >$(BUILD)/memlens.bash.tmp && mv $(BUILD)/memlens.bash.tmp $(BUILD)/memlens.bash
	sh tools/man.sh zsh $(BUILD)/memlens >$(BUILD)/_memlens.tmp && mv $(BUILD)/_memlens.tmp $(BUILD)/_memlens

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
install: $(BUILD)/memlens $(MPI_BIN) $(BUILD)/memlens.1 $(BUILD)/memlens.bash $(BUILD)/_memlens
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(BUILD)/memlens $(MPI_BIN) $(DESTDIR)$(BINDIR)/
	install -m 644 $(BUILD)/memlens.1 $(DESTDIR)$(MANDIR)/man1/memlens.1
	install -m 644 $(BUILD)/memlens.bash $(DESTDIR)$(BASHCOMPDIR)/memlens
	install -m 644 $(BUILD)/_memlens $(DESTDIR)$(ZSHCOMPDIR)/_memlens
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/memlens $(DESTDIR)$(BINDIR)/memlens-mpi $(DESTDIR)$(MANDIR)/man1/memlens.1 \
	      $(DESTDIR)$(BASHCOMPDIR)/memlens $(DESTDIR)$(ZSHCOMPDIR)/_memlens

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) build-fuzz/obj -name '*.d' 2>/dev/null)
