# SPDX-License-Identifier: GPL-3.0-or-later
# fpulab: build, test, install. GNU make.
#
# Layout: every src/<layer>/*.c except src/cli goes into libfpulab.a;
# src/cli/*.c make the command. ISA code lives in files whose name ends in
# _sse.c, _avx.c, _avx2.c or _avx512.c, and only those get the -m flags.
# Benchmarks (src/bench/bench_*.c) and commands (src/cli/cmd_*.c) are listed
# by file name: adding one is adding a file.

BUILD    ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= gcc
VERSION  := 0.1.0
PKGS     := jansson gsl hwloc cmocka

ifeq ($(origin CC),default)
CC := gcc
endif

GIT_REV  := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
OPTFLAGS ?= -O2
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
BASEFLAGS := -std=gnu11 -fPIC -g $(OPTFLAGS) $(WARN) -Iinclude -Isrc -I$(BUILD)/gen \
	-D_GNU_SOURCE -DFPL_VERSION='"$(VERSION)"' \
	-march=x86-64 -mtune=generic $(EXTRA_CFLAGS)
PKG_CFLAGS = $(shell pkg-config --cflags jansson gsl hwloc 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs jansson gsl hwloc 2>/dev/null)
CFLAGS_ALL = $(BASEFLAGS) $(PKG_CFLAGS) -DFPL_CFLAGS='"$(strip $(OPTFLAGS) $(EXTRA_CFLAGS))"'
LDLIBS     = $(PKG_LIBS) -lm -lpthread $(EXTRA_LDFLAGS)

# Per-file ISA flags. -mno-vzeroupper: gcc would otherwise put YMM/ZMM state
# back to init at every function exit (METHOD.md), which falsifies state
# set-up and hides the cost being measured.
ISA_sse    := -msse2
ISA_avx    := -mavx -mno-vzeroupper
ISA_avx2   := -mavx2 -mfma -mno-vzeroupper
ISA_avx512 := -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -mno-vzeroupper
isa_of = $(foreach i,sse avx avx2 avx512,$(if $(filter %_$(i),$(basename $(notdir $(1)))),$(ISA_$(i))))

LIB_SRC  := $(sort $(filter-out src/cli/%,$(wildcard src/*/*.c src/*/*/*.c)))
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))
BENCHES  := $(patsubst src/bench/bench_%.c,%,$(sort $(wildcard src/bench/bench_*.c)))
CMDS     := $(patsubst src/cli/cmd_%.c,%,$(sort $(wildcard src/cli/cmd_*.c)))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TESTS    := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIBA     := $(BUILD)/libfpulab.a
# The shared library: soname libfpulab.so.$(SOMAJOR), file libfpulab.so.$(VERSION).
SOMAJOR  := 0
SONAME   := libfpulab.so.$(SOMAJOR)
LIBSO    := $(BUILD)/libfpulab.so.$(VERSION)
BIN      := $(BUILD)/fpulab
GEN      := $(BUILD)/gen/fpl_benches.h $(BUILD)/gen/fpl_cmds.h

.PHONY: all run check test deps install clean asan fuzz fuzz-build corpus-regen
all: $(BIN) $(LIBA) $(LIBSO) $(BUILD)/fpulab.pc

deps:
	@scripts/deps.sh

# The README's two set-up commands.
# What `make run` shows once built: the default suite (about 20 s).
RUN_CMD ?= run

run: deps
	@$(MAKE) --no-print-directory all
	$(BIN) $(RUN_CMD)

# A quick suite first (a few seconds; 77 means every benchmark was skipped here), then the tests.
check: deps
	@$(MAKE) --no-print-directory all
	$(BIN) run --budget 3 -q -o $(BUILD)/suite.json || [ $$? -eq 77 ]
	@$(MAKE) --no-print-directory test

test: $(BIN) $(LIBSO) $(BUILD)/fpulab.pc $(TESTS)
	@FPL_BIN=$(abspath $(BIN)) FPL_BUILD=$(abspath $(BUILD)) tests/run-tests.sh $(TESTS)

$(BUILD)/gen/fpl_benches.h: $(wildcard src/bench/bench_*.c) Makefile
	@mkdir -p $(@D)
	@printf '/* generated from src/bench/bench_*.c */\n' > $@.tmp
	@for b in $(BENCHES); do printf 'FPL_BENCH(%s)\n' $$b; done >> $@.tmp
	@mv $@.tmp $@

$(BUILD)/gen/fpl_cmds.h: $(wildcard src/cli/cmd_*.c) Makefile
	@mkdir -p $(@D)
	@printf '/* generated from src/cli/cmd_*.c */\n' > $@.tmp
	@for c in $(CMDS); do printf 'FPL_CMD(%s)\n' $$c; done >> $@.tmp
	@mv $@.tmp $@

# The git revision lives in a header rewritten only when it changes, so the
# few files that print it are rebuilt on a new commit and nothing else is.
$(BUILD)/gen/fpl_version.h: FORCE
	@mkdir -p $(@D)
	@printf '#define FPL_GIT_REV "%s"\n' '$(GIT_REV)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

.PHONY: FORCE
FORCE:

$(BUILD)/%.o: %.c $(GEN) | $(BUILD)/gen/fpl_version.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(call isa_of,$<) -MMD -MP -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIBSO): $(LIB_OBJ)
	$(CC) $(CFLAGS_ALL) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LDLIBS)

$(BIN): $(CLI_OBJ) $(LIBA)
	$(CC) $(CFLAGS_ALL) -o $@ $(CLI_OBJ) $(LIBA) $(LDLIBS)

# Rewrite the CPU corpus's expected answers (tests/data/corpus/*.expected)
# from the dumps beside them; review `git diff tests/data/corpus` before committing.
corpus-regen: $(BUILD)/tests/test_cpucorpus
	FPL_REGEN=1 $(BUILD)/tests/test_cpucorpus

$(BUILD)/tests/%: tests/%.c $(LIBA) $(wildcard tests/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(call isa_of,$<) $(shell pkg-config --cflags cmocka) -Itests \
		-o $@ $< $(LIBA) $(LDLIBS) $(shell pkg-config --libs cmocka)

# Public headers include <jansson.h> only: jansson is Requires; the rest is
# private, named as -l flags so that --static needs no static libudev (hwloc's).
$(BUILD)/fpulab.pc: Makefile
	@mkdir -p $(@D)
	@printf 'prefix=%s\nlibdir=$${prefix}/lib\nincludedir=$${prefix}/include\n\nName: fpulab\nDescription: measure and model x86 FPU/SIMD extended-state costs\nVersion: %s\nRequires: jansson\nLibs: -L$${libdir} -lfpulab\nLibs.private: -lgsl -lgslcblas -lhwloc -lm -lpthread\nCflags: -I$${includedir}\n' \
		'$(PREFIX)' '$(VERSION)' > $@

WIS_NAMES := $(shell grep ^FPL_WIS_CMD src/cli/wis_cmds.h | cut -d, -f1 | cut -c13-)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/fpulab $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/fpulab
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libfpulab.a
	install -m 755 $(LIBSO) $(DESTDIR)$(PREFIX)/lib/libfpulab.so.$(VERSION)
	ln -sf libfpulab.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libfpulab.so
	install -m 644 include/fpulab/*.h $(DESTDIR)$(PREFIX)/include/fpulab/
	sed 's|^prefix=.*|prefix=$(PREFIX)|' $(BUILD)/fpulab.pc > $(DESTDIR)$(PREFIX)/lib/pkgconfig/fpulab.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/fpulab.pc
	if [ -f docs/fpulab.1 ]; then install -m 644 docs/fpulab.1 $(DESTDIR)$(PREFIX)/share/man/man1/; fi
	for n in $(WIS_NAMES); do ln -sf fpulab $(DESTDIR)$(PREFIX)/bin/$$n; done

# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer.
asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPTFLAGS=-O1 \
		EXTRA_CFLAGS='-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer' \
		EXTRA_LDFLAGS='-fsanitize=address,undefined,float-cast-overflow' test

# libFuzzer targets: fuzz/fuzz_<name>.c, each linked against the library built
# by clang with ASan+UBSan in build-fuzz/, each run FUZZ_SECONDS on its seeds
# (fuzz/seeds/<name>/; new inputs go to build-fuzz/corpus/<name>/). clang's
# warnings stay warnings here: gcc's -Werror build is the one that gates.
FUZZ_SECONDS ?= 30
FUZZ_FLAGS   ?=
FUZZ_SAN     := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRC     := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BINS    := $(FUZZ_SRC:fuzz/%.c=build-fuzz/fuzz/%)

fuzz:
	@command -v clang >/dev/null || { echo "fuzz: clang is needed (apt-get install clang)"; exit 1; }
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPTFLAGS=-O1 \
		EXTRA_CFLAGS='$(FUZZ_SAN) -fsanitize=fuzzer-no-link -Wno-error' \
		EXTRA_LDFLAGS='$(FUZZ_SAN)' fuzz-build
	@for t in $(FUZZ_SRC:fuzz/fuzz_%.c=%); do \
		mkdir -p build-fuzz/corpus/$$t build-fuzz/crashes; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s (log: build-fuzz/fuzz_$$t.log)"; \
		build-fuzz/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=build-fuzz/crashes/$$t- $(FUZZ_FLAGS) \
			build-fuzz/corpus/$$t fuzz/seeds/$$t >build-fuzz/fuzz_$$t.log 2>&1 || \
			{ tail -n 40 build-fuzz/fuzz_$$t.log; echo "fuzz: $$t FAILED"; exit 1; }; \
		grep -E '^(Done|stat::number_of_executed_units)' build-fuzz/fuzz_$$t.log; \
	done

fuzz-build: $(FUZZ_BINS)

build-fuzz/fuzz/%: fuzz/%.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(LIBA) $(LDLIBS)

clean:
	rm -rf build build-asan build-fuzz

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
