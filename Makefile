# abev — one non-recursive Makefile. Objects go under build/.
#   make            build ./abev
#   make check      unit tests (cmocka) + integration tests of the real binary
#   make check-asan the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make check-slurm examples/multi-host/ as real Slurm jobs on a one-node cluster (root)
#   make check-dotnet real `dotnet test` of an xunit suite under abev (skipped without dotnet)
#   make check-valgrind, make fuzz, make fuzz-smoke: see mk/fuzz.mk
#   make demo       a real A/B comparison of the bundled example
#   make demo-dotnet the .NET worked example: real dotnet test of two library versions
#   make dotnet-hook the .NET startup hook (dotnet-hook/; part of make where dotnet is on PATH)
#   make install    PREFIX=/usr/local DESTDIR=
#   make completions write completions/ from abev's option tables
#   make docs        write docs/'s generated references (plan keys, options, exit codes)
#   make deps       install missing -dev packages (root on Debian/Ubuntu) or print the command
#   make bench      abev side by side with stock tools; writes bench/results.md (not CI)
#   make bench-short CI's short form of make bench: fails only on a gross slip (bench/README.md)
#   make bench-calibration  the change gate's A/A and power rates by simulation (bench/README.md)
#   make bench-calibration-power  its power curve by rounds alone, in seconds
#   make bench-busy  what abev answers beside one busy loop per core (bench/README.md)

VERSION   := 0.1.0
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/vendor-completions
CC        ?= cc
# Debian's python3, which sees python3-jsonschema; any python3 elsewhere.
PYTHON    ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
PKG_CONFIG ?= pkg-config

PKGS      := libcjson libxml-2.0 libcrypto libarchive zlib
DEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
DEP_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

WARN      := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wvla \
             -Wwrite-strings -Werror
OPT       ?= -O2 -g
CFLAGS    ?=
LDFLAGS   ?=
# Immediate binding: every symbol abev calls is bound at start, so that a
# child between fork() and execve() never asks the loader for one, and
# abev can fork it without the libraries it does not run (run/proc_fork.h:
# the child's peak RSS is then its own).
LDFLAGS   += -Wl,-z,relro,-z,now
# The one feature-test setting of the build: abev is a Linux program
# (wait4, pipe2, syncfs, sched_getaffinity, /proc), so glibc's full set,
# for every file of abev, its tests, fuzz targets and benches; no source of
# abev defines its own. (The demo suite and the test helper are programs of
# their own, built standalone, and keep theirs.)
FEATURES  := -D_GNU_SOURCE
ALL_CFLAGS = $(WARN) $(FEATURES) $(OPT) -pthread $(INCLUDES) $(DEP_CFLAGS) \
             -DABEV_VERSION='"$(VERSION)"' $(CFLAGS)

# B is the build directory of a flavour: build (normal) or build/asan.
B ?= build
ifeq ($(SANITIZE),1)
B := build/asan
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

# orchestrator/ is one folder per stage of the data (docs/architecture.md).
# Includes name their folder ("run/proc.h", "guards/guard.h"): the two
# roots are orchestrator/ and the top, for guards/. make check-layers
# holds every include line to the graph in mk/layers.
INCLUDES  := -Iorchestrator -I.
LIB_SRC   := $(filter-out orchestrator/cli/main.c,$(wildcard orchestrator/*/*.c)) $(wildcard guards/*.c)
TEMPLATES := report_template hosts_template
LIB_OBJ   := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC)) $(patsubst %,$(B)/obj/gen/%.o,$(TEMPLATES))
MAIN_OBJ  := $(B)/obj/orchestrator/cli/main.o
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(patsubst tests/unit/%.c,$(B)/unit/%,$(UNIT_SRC))
HELPER    := $(B)/helpers/abev-helper
DEMO_BIN  := build/examples/demo-suite
ifeq ($(SANITIZE),1)
ABEV_BIN  := $(B)/abev
else
ABEV_BIN  := abev
endif

.PHONY: dotnet-hook all check check-layers check-symbols check-headers check-names check-unit check-integration check-asan check-slurm check-dotnet completions docs demo demo-dotnet install \
	clean deps bench bench-short bench-calibration bench-calibration-power bench-busy
.DELETE_ON_ERROR:

# abev's .NET startup hook (dotnet-hook/, loaded into the runs of a plan
# with "dotnet_runtime"), built where dotnet is on PATH; abev finds it at
# build/dotnet-hook/ beside itself. Without dotnet, make builds the rest.
DOTNET      := $(shell command -v dotnet 2>/dev/null)
DOTNET_HOOK := build/dotnet-hook/AbevStartupHook.dll
ifneq ($(DOTNET),)
DOTNET_HOOK_ALL := $(DOTNET_HOOK)
endif

all: $(ABEV_BIN) $(DOTNET_HOOK_ALL)


$(DOTNET_HOOK): dotnet-hook/AbevStartupHook.csproj dotnet-hook/StartupHook.cs mk/dotnet-hook.sh
	@sh mk/dotnet-hook.sh build/dotnet-hook

dotnet-hook: $(DOTNET_HOOK)

$(ABEV_BIN): $(MAIN_OBJ) $(B)/libabev.a
	$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(B)/libabev.a $(DEP_LIBS) -lm -pthread

$(B)/libabev.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The report templates, compiled into the binary.
build/gen/report_template.c: templates/report.md mk/embed.sh
	@mkdir -p $(dir $@)
	sh mk/embed.sh report_template $< > $@

build/gen/hosts_template.c: templates/report-hosts.md mk/embed.sh
	@mkdir -p $(dir $@)
	sh mk/embed.sh hosts_template $< > $@

$(B)/obj/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Unit tests: one cmocka runner per module, linked against the library
# archive so that each pulls in only the objects it uses.
# A runner's other prerequisites that are objects (a shared fixture's) are
# linked in with it.
$(B)/unit/%: tests/unit/%.c $(B)/libabev.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Wno-strict-prototypes -o $@ $< $(filter %.o,$^) \
	    $(B)/libabev.a $(CMOCKA_LIBS) $(DEP_LIBS) -lm -pthread $(LDFLAGS)
# The scripted machine the pipeline's runners share (tests/unit/fake_machine.h).
UNIT_FAKE := $(B)/obj/tests/unit/fake_machine.o
$(UNIT_FAKE): tests/unit/fake_machine.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Wno-strict-prototypes -MMD -MP -c -o $@ $<
$(B)/unit/test_pipeline $(B)/unit/test_pipeline_seam: $(UNIT_FAKE) tests/unit/fake_machine.h
# The simulation the calibration test and make bench-calibration share.
$(B)/unit/test_calibration: tests/unit/calibration_sim.h

$(HELPER): tests/helpers/helper.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O1 -g -pthread -o $@ $<

$(DEMO_BIN): examples/demo/demo-suite.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O2 -o $@ $< -lm

# Unit tests that run children measure them against the helper's own report.
check-unit: $(UNIT_BIN) $(HELPER)
	@ABEV_HELPER="$(abspath $(HELPER))" sh mk/run-unit.sh $(UNIT_BIN)

# test_plots.py checks with stock tools the SVG files the plots unit test writes.
check-integration: $(ABEV_BIN) $(HELPER) $(DEMO_BIN) $(B)/unit/test_plots
	ABEV="$(abspath $(ABEV_BIN))" ABEV_HELPER="$(abspath $(HELPER))" \
	ABEV_DEMO="$(abspath $(DEMO_BIN))" ABEV_SANITIZED="$(SANITIZE)" \
	ABEV_UNIT="$(abspath $(B)/unit)" ABEV_SRC="$(CURDIR)" $(PYTHON) tests/integration/run.py

check: deps
	@$(MAKE) --no-print-directory check-layers check-symbols check-headers check-names check-unit \
		check-integration

# The folders' graph (mk/layers): every include line stays home or
# follows an edge declared there.
check-layers:
	@$(PYTHON) mk/check-layers.py

# What the objects reference follows the same edges: a call needs no include line.
check-symbols: $(B)/libabev.a
	@$(PYTHON) mk/check-symbols.py $(B)/libabev.a

# No static function named like another file's public one; no file name twice.
check-names: $(B)/libabev.a
	@$(PYTHON) mk/check-names.py $(B)/libabev.a

# Every header compiles on its own with the build's flags.
check-headers:
	@sh mk/check-headers.sh $(CC) $(filter-out -MMD -MP,$(ALL_CFLAGS))

# The shell completions, written from abev's option tables (abev __options);
# test_completion.py fails when the committed ones differ from what they give.
completions: $(ABEV_BIN)
	$(PYTHON) mk/completions.py $(abspath $(ABEV_BIN)) completions

# docs/plan-keys.md, options.md, exit-codes.md and reason-codes.md, each one `abev help TOPIC
# --markdown`; test_docs.py fails when the committed ones differ from it.
docs: $(ABEV_BIN)
	$(PYTHON) mk/docs.py $(abspath $(ABEV_BIN)) docs

check-asan: deps
	@$(MAKE) --no-print-directory SANITIZE=1 check-unit check-integration

# Starts munged, slurmctld and slurmd of its own in a temp directory, runs
# examples/multi-host/abev-array.sbatch and combine.sh, and stops them again.
check-slurm: abev
	@ABEV="$(abspath abev)" sh mk/check-slurm.sh

# The .NET worked example (examples/dotnet-sdk-upgrade/): builds it and runs its plan.
demo-dotnet: deps
	@$(MAKE) --no-print-directory abev
	@sh mk/demo-dotnet.sh

# Builds tests/dotnet/Suite into build/dotnet/ and runs tests/integration/test_dotnet.py.
check-dotnet: abev $(HELPER) $(DOTNET_HOOK_ALL)
	@sh mk/check-dotnet.sh

demo: deps
	@$(MAKE) --no-print-directory abev $(DEMO_BIN)
	@sh mk/demo.sh

deps:
	@sh mk/deps.sh

# Timings against stock tools, never part of make check (bench/README.md).
# BENCH_SCALE: the largest multiple of the base sizes (1, 10, 100 by default);
# BENCH_ROUNDS: alternating rounds per figure, whose median is reported.
BENCH_HASH := $(B)/bench/bench-hash
BENCH_SCALE ?= 100
BENCH_ROUNDS ?= 5
BENCH_SHORT_ROUNDS ?= 3
BENCH_BUSY_TRIES ?= 20

$(BENCH_HASH): bench/hash_files.c $(B)/libabev.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(B)/libabev.a $(DEP_LIBS) -lm -pthread $(LDFLAGS)

bench: $(ABEV_BIN) $(BENCH_HASH)
	ABEV="$(abspath $(ABEV_BIN))" BENCH_HASH="$(abspath $(BENCH_HASH))" \
	BENCH_SCALE="$(BENCH_SCALE)" BENCH_ROUNDS="$(BENCH_ROUNDS)" $(PYTHON) bench/bench.py

# The short form CI runs: issue 41's ratios at small sizes, best of
# BENCH_SHORT_ROUNDS; fails only when one is beyond twice its goal. Writes
# nothing in the tree. ABEV=path measures another abev binary.
bench-short: $(ABEV_BIN) $(BENCH_HASH)
	ABEV="$(if $(ABEV),$(ABEV),$(abspath $(ABEV_BIN)))" BENCH_HASH="$(abspath $(BENCH_HASH))" \
	BENCH_ROUNDS="$(BENCH_SHORT_ROUNDS)" BENCH_SHORT=1 $(PYTHON) bench/bench.py

# The gate's calibration by seeded simulation: prints a Markdown table. The
# simulation is the unit test's (tests/unit/calibration_sim.h).
# ABEV_CALIBRATION_DATASETS and ABEV_CALIBRATION_RESAMPLES scale it.
BENCH_CALIBRATION := $(B)/bench/bench-calibration

$(BENCH_CALIBRATION): bench/calibration.c tests/unit/calibration_sim.h $(B)/libabev.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(B)/libabev.a $(DEP_LIBS) -lm -pthread $(LDFLAGS)

bench-calibration: $(BENCH_CALIBRATION)
	$(BENCH_CALIBRATION)

# Its last table alone, the change gate's power curve by rounds, in seconds.
bench-calibration-power: $(BENCH_CALIBRATION)
	ABEV_CALIBRATION_ONLY=power-curve $(BENCH_CALIBRATION)

# What abev answers beside one busy loop per core (bench/busy.py): counts of
# outcomes of the quick start, A/A and a 1.5x regression; writes its section
# of bench/results.md. BENCH_BUSY_TRIES (default 20) sets the A/A tries;
# BENCH_BUSY_SECTIONS, BENCH_WALLOWN_RUNS, _TRIES and _DEADLINE: bench/busy.py.
bench-busy: $(ABEV_BIN) $(HELPER)
	ABEV="$(abspath $(ABEV_BIN))" ABEV_HELPER="$(abspath $(HELPER))" \
	BENCH_BUSY_TRIES="$(BENCH_BUSY_TRIES)" $(PYTHON) bench/busy.py

install: abev
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 abev $(DESTDIR)$(BINDIR)/abev
	install -m 0644 abev.1 $(DESTDIR)$(MANDIR)/man1/abev.1
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0644 completions/abev.bash $(DESTDIR)$(BASHCOMPDIR)/abev
	install -m 0644 completions/_abev $(DESTDIR)$(ZSHCOMPDIR)/_abev
	if [ -f $(DOTNET_HOOK) ]; then install -d $(DESTDIR)$(PREFIX)/lib/abev && \
	    install -m 0644 $(DOTNET_HOOK) $(DESTDIR)$(PREFIX)/lib/abev/AbevStartupHook.dll; fi

clean:
	rm -rf build build-fuzz abev

include mk/fuzz.mk

-include $(shell find build -name '*.d' 2>/dev/null)
