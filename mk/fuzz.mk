# Fuzzing and valgrind, included by the Makefile.
#   make fuzz            each libFuzzer target in tests/fuzz/ for FUZZ_SECONDS (default 120) s
#   make fuzz-smoke      the same for 30 s each (what CI runs)
#   make check-valgrind  the cmocka unit runners under valgrind (leaks are errors)
#
# The fuzz targets and the library they test are built with clang and
# -fsanitize=fuzzer,address,undefined into build-fuzz/, apart from the
# normal build. Seeds: tests/fuzz/seeds/<target>/ (fixtures taken from the
# unit tests), examples/*/plan.json, what make_seeds writes (a real signed
# evidence directory and its bundles), and ../shared/corpus/ read in place
# when it is there. What the fuzzer finds on its own goes to
# build-fuzz/corpus/<target>/, a crashing input to build-fuzz/crashes/.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 120
FUZZ_B       := build-fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(filter-out tests/fuzz/fuzz_common.c,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BINS    := $(patsubst %,$(FUZZ_B)/fuzz_%,$(FUZZ_TARGETS))
SHARED_CORPUS ?= ../shared/corpus
# Per target: its seed directories besides tests/fuzz/seeds/<target> and build-fuzz/seeds/<target>.
FUZZ_SEEDS_plan     := examples/demo examples/multi-host
FUZZ_SEEDS_results  := $(SHARED_CORPUS)/trx $(SHARED_CORPUS)/junit

.PHONY: fuzz fuzz-smoke fuzz-build fuzz-lib check-valgrind

# The library, as in the normal build (the Makefile's own rules, with
# B=build-fuzz) but with clang and the fuzzer's instrumentation; libFuzzer's
# main() is linked into the targets only.
fuzz-lib:
	@$(MAKE) --no-print-directory B=$(FUZZ_B) CC=$(FUZZ_CC) OPT="$(FUZZ_OPT)" $(FUZZ_B)/libabev.a

$(FUZZ_B)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.c tests/fuzz/fuzz_common.h $(FUZZ_B)/libabev.a
	$(FUZZ_CC) $(WARN) -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer $(FUZZ_SAN) \
	    $(FEATURES) $(INCLUDES) $(DEP_CFLAGS) -o $@ $< tests/fuzz/fuzz_common.c \
	    $(FUZZ_B)/libabev.a $(DEP_LIBS) -lm -pthread

$(FUZZ_B)/make_seeds: tests/fuzz/make_seeds.c build/libabev.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< build/libabev.a $(DEP_LIBS) -lm -pthread

fuzz-build: deps
	@mkdir -p $(FUZZ_B)
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz: $(FUZZ_CC) not found (apt-get install clang)"; exit 1; }
	@$(MAKE) --no-print-directory build/libabev.a
	@$(MAKE) --no-print-directory fuzz-lib
	@$(MAKE) --no-print-directory $(FUZZ_BINS) $(FUZZ_B)/make_seeds
	@rm -rf $(FUZZ_B)/seeds && $(FUZZ_B)/make_seeds $(FUZZ_B)/seeds && rm -rf $(FUZZ_B)/seeds/work

fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_B=$(FUZZ_B) SHARED_CORPUS=$(SHARED_CORPUS) \
	    $(foreach t,$(FUZZ_TARGETS),FUZZ_SEEDS_$(t)="$(FUZZ_SEEDS_$(t))") \
	    sh mk/fuzz.sh $(FUZZ_TARGETS)

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=30

# valgrind runs the normal build's unit runners (-O2 -g): the code CI ships.
check-valgrind: deps
	@command -v valgrind >/dev/null || { echo "check-valgrind: valgrind not found (apt-get install valgrind)"; exit 1; }
	@$(MAKE) --no-print-directory $(patsubst tests/unit/%.c,build/unit/%,$(UNIT_SRC)) build/helpers/abev-helper
	@# The calibration simulation's figures are checked at full size by make check;
	@# under valgrind a tenth of its datasets shows memory errors as well.
	@ABEV_CALIBRATION_DATASETS=200 ABEV_HELPER="$(abspath build/helpers/abev-helper)" \
	    sh mk/run-unit.sh --valgrind \
	    $(patsubst tests/unit/%.c,build/unit/%,$(UNIT_SRC))

-include $(shell find $(FUZZ_B) -name '*.d' 2>/dev/null)
