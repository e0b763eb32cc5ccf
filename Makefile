# tcpsift - one Makefile for the binary, tests, fuzzers and benchmarks.
#
#   make            build ./tcpsift (gcc, -Werror)
#   make demo       install missing deps, build, analyze a bundled sample
#   make check      deps, gcc + clang builds, ASan+UBSan test build, all tests
#   make bench      benchmarks (long; results in bench/RESULTS.md)
#   make lab-matrix the whole truth matrix (root; ~12 min): tests/lab/MATRIX.md
#   make check-exact exact timer/window cases against a scripted peer on tun
#                   (root; ~2 min; not part of `make check`): tests/exact/
#   make fuzz       build the libFuzzer targets (clang) under build/fuzz
#   make check-fuzz replay tests/fuzz/corpus under ASan+UBSan; FUZZ_SECONDS=N
#                   then also fuzzes each target N seconds (needs libFuzzer)
#   make format     clang-format every source file in place
#   make install    binary, man pages, JSON schema, bash completion under
#                   PREFIX (/usr/local), staged under DESTDIR; make uninstall
#   make lint       cppcheck and clang-tidy on the program's C (.clang-tidy;
#                   minutes: `make check` runs only cppcheck)
#
# Variants build out of tree: `make O=build/san SAN=1 tests` is the sanitizer tree.

O        ?= build/rel
SAN      ?=
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)

WARN     := -Wall -Wextra -Wshadow -Wformat=2 -Wvla -Wstrict-prototypes \
            -Wmissing-prototypes -Werror
CPPFLAGS += -D_GNU_SOURCE -I. -DTCPSIFT_VERSION='"$(VERSION)"'
CFLAGS   ?= -O2 -g
LDLIBS   += -lpcap -ljansson -ltrace -lwandio -lz -lbz2 -llzma -lncursesw -lm -pthread

# SAN=1: ASan and UBSan; SAN=thread: ThreadSanitizer (the threads' hand-offs).
ifeq ($(SAN),thread)
SANFLAGS := -O1 -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=thread
else ifneq ($(SAN),)
SANFLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -DJO_CHECK_ORDER \
            -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
endif
# Hardening, always on (scripts/check-hardening.sh checks the binary with
# readelf): a capturer runs as root and the analyser reads files from
# untrusted hosts. FORTIFY needs the optimiser (glibc warns and ignores it
# at -O0), so it follows CFLAGS; ASan replaces the checked string calls with
# its own, so the sanitizer tree leaves it out. clang 14 takes level 3 as 2.
HARDEN_CFLAGS := -fstack-protector-strong -fstack-clash-protection -fPIE
HARDEN_LDFLAGS := -pie -Wl,-z,relro,-z,now
ifeq ($(SAN)$(FUZZFLAGS),)
ifeq ($(filter -O0,$(CFLAGS)),)
ifneq ($(filter -O%,$(CFLAGS)),)
HARDEN_CPPFLAGS := -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3
endif
endif
endif
LDFLAGS  += $(HARDEN_LDFLAGS)
# CFLAGS (optimisation, debug) may be overridden; the rest always applies.
ALL_CFLAGS = $(CFLAGS) -std=gnu11 $(WARN) -MMD -MP -pthread $(HARDEN_CPPFLAGS) $(HARDEN_CFLAGS) \
             $(SANFLAGS) $(FUZZFLAGS)
# Link-time optimisation of the tcpsift binary with gcc (LTO=auto: its job
# count; LTO= turns it off): a packet's path crosses a dozen modules
# (source, decode, flows, the TCP engine, each detector, the sink), and
# inlined across them it takes 5 % fewer instructions and 13 % less time
# (bench/RESULTS.md). Only the binary: the tests and tools link the plain
# archive (an LTO link each would add a minute to make check), so the
# library is compiled a second time, as LTO objects in $(O)/lto/. Not for
# clang (ld.bfd cannot link its LTO objects), the sanitizer and fuzzing
# trees, or an unoptimised build. Decided once (:=), not at each
# recipe that names it: the compiler is asked its name one time.
ifeq ($(origin LTO),undefined)
LTO := $(if $(SAN)$(FUZZFLAGS)$(filter -O0,$(CFLAGS)),,$(if $(filter -O%,$(CFLAGS)),$(if \
        $(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n 1)),,auto),))
endif

# Every .c below these folders goes into libtcpsift.a (tcpsift.c holds main).
LIB_DIRS := common capture analyze tui cli
LIB_SRC  := $(sort $(shell find $(LIB_DIRS) -name '*.c'))
LIB_OBJ  := $(LIB_SRC:%.c=$(O)/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:%.c=$(O)/%)
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TOOL_BIN := $(TOOL_SRC:%.c=$(O)/%)
BENCH_SRC:= $(sort $(wildcard bench/*.c))
BENCH_BIN:= $(BENCH_SRC:%.c=$(O)/%)
# bench/gen is one program in several files: bench/gen.c and bench/gensim/*.c.
GEN_PARTS:= $(sort $(wildcard bench/gensim/*.c))
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:%.c=$(O)/%)
FUZZ_SECONDS ?= 0

.PHONY: FORCE all build tests demo deps check check-unit check-reader check-golden \
        check-docs check-annotate check-budget check-diff check-html check-plot check-cli check-scale check-shard check-threads check-tui check-hostile check-hostile-files check-floods check-tshark check-public check-lab check-matrix check-capture check-metrics check-exact \
        check-format check-layers check-sizes check-fuzz check-hostile-times check-banned check-hardening check-cppcheck lint \
        check-install check-counted tsan-threads clang-hardening bench lab-matrix fuzz format install uninstall clean

all: tcpsift

build: $(O)/tcpsift

tcpsift: $(O)/tcpsift
	@if [ "$(O)" = build/rel ]; then cp $< $@; fi

# The version is compiled in: rebuild its users when it changes, only then.
$(O)/version.stamp: FORCE
	@mkdir -p $(O)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@
# Every object that names TCPSIFT_VERSION (grep -l it): --version, the
# reports' "version" and diff's header name the commit built.
VERSION_OBJ := $(patsubst %.c,$(O)/%.o,$(shell grep -rl --include='*.c' TCPSIFT_VERSION \
		analyze capture cli common tui tcpsift.c 2>/dev/null))
$(VERSION_OBJ): $(O)/version.stamp
FORCE:

ifeq ($(LTO),)
$(O)/tcpsift: $(O)/tcpsift.o $(O)/libtcpsift.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
else
LTO_OBJ := $(LIB_SRC:%.c=$(O)/lto/%.o) $(O)/lto/tcpsift.o
$(O)/tcpsift: $(LTO_OBJ)
	$(CC) $(CFLAGS) -flto=$(LTO) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(O)/lto/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -flto=$(LTO) -c -o $@ $<
$(VERSION_OBJ:$(O)/%=$(O)/lto/%): $(O)/version.stamp
endif

$(O)/libtcpsift.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# Unit tests, tools and benchmarks: each is its own object linked against
# the archive, from which ld takes only the members it references (and what
# those reference). A library change relinks them; only their own source
# recompiles them.
$(UNIT_BIN) $(TOOL_BIN) $(BENCH_BIN): $(O)/%: $(O)/%.o $(O)/libtcpsift.a
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(O)/libtcpsift.a $(LDLIBS)
$(O)/bench/gen: $(GEN_PARTS:%.c=$(O)/%.o)

# The fuzz targets with tests/fuzz/replay.c as main(): they run given inputs
# once each, with no fuzzing engine, so any compiler builds them (and every
# tree compiles them, so an API change cannot leave them behind).
$(FUZZ_BIN): $(O)/%: $(O)/%.o $(O)/tests/fuzz/replay.o $(O)/libtcpsift.a
	$(CC) $(LDFLAGS) -o $@ $< $(O)/tests/fuzz/replay.o $(O)/libtcpsift.a $(LDLIBS)

tests: $(O)/tcpsift $(UNIT_BIN) $(TOOL_BIN) $(FUZZ_BIN)

deps:
	@scripts/deps.sh build

demo:
	@scripts/deps.sh build
	@$(MAKE) --no-print-directory all
	./tcpsift analyze samples/demo-http-loss.pcapng

# Everything a change must pass, cheap steps first; ends with one tally line.
# The builds run JOBS at once; the suites whose verdicts are counted
# (outputs, exit codes, peak RSS, instructions under callgrind: never time)
# COUNTED_JOBS, one more: a third of their time they wait on tmux screens,
# child processes and files (on 2 cores, -j2 kept the CPUs 144 % busy, 384 s;
# -j3 183 %, 282 s); the network suites (lab pacing, timers on real paths)
# one after another. A failing suite does not stop the others (-k): the
# tally says what failed.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
COUNTED_JOBS ?= $(shell echo $$(($(JOBS) + 1)))
check:
	@scripts/deps.sh check
	@rm -f build/check-results
	@mkdir -p build && date +%s >build/check-start
	@$(MAKE) --no-print-directory -j$(JOBS) -Otarget check-layers check-sizes check-format \
	  check-banned check-cppcheck
	@$(MAKE) --no-print-directory -j$(JOBS) O=build/rel CC=gcc tests tcpsift \
	  $(BENCH_SRC:%.c=build/rel/%)
	@$(MAKE) --no-print-directory -j$(JOBS) O=build/san CC=gcc SAN=1 tests build/san/bench/gen \
	  $(FUZZ_SRC:%.c=build/san/%)
	@echo "builds 0 0 0 $$(($$(date +%s) - $$(cat build/check-start)))" >>build/check-results
	@$(MAKE) --no-print-directory -k -j$(COUNTED_JOBS) -Otarget check-counted || \
	  echo "counted-suites 0 1 0" >>build/check-results
	@$(MAKE) --no-print-directory -k O=build/rel check-lab check-exact check-matrix check-capture \
	  check-metrics || \
	  echo "network-suites 0 1 0" >>build/check-results
	@tests/summary.sh

# The counted suites (above), longest first: san-X is check-X in the
# sanitizer tree, rel-X in the release tree (RSS and instructions are
# measured unsanitized; shard is a thousand short runs compared byte for
# byte, 3.7x faster unsanitized, while merge's reader is fuzzed and its
# examples run in the sanitized docs suite). Everything they run is built
# before, but for the clang and ThreadSanitizer trees: built as jobs of
# their own here (clang-hardening, tsan-threads), 33 s off the serial
# builds, since nothing here is timed.
check-counted: rel-floods rel-budget san-tui rel-shard rel-scale check-fuzz san-hostile san-unit \
  rel-public check-hostile-times san-plot rel-tshark san-html san-hostile-files san-threads \
  tsan-threads san-docs san-cli clang-hardening san-diff rel-install san-golden san-reader \
  san-annotate san-park

# -Werror with clang too (its own warnings), and both compilers' binaries
# hardened (scripts/check-hardening.sh).
clang-hardening:
	@$(MAKE) --no-print-directory O=build/clang CC=clang tests
	@scripts/check-hardening.sh build/rel/tcpsift build/clang/tcpsift
san-%:
	@$(MAKE) --no-print-directory O=build/san CC=gcc SAN=1 check-$*
rel-%:
	@$(MAKE) --no-print-directory O=build/rel CC=gcc check-$*

# The threads' hand-offs under ThreadSanitizer (clang; SAN=thread): the
# unit tests of what the threads share without a lock, then the threads
# suite with that tcpsift (tests/threads/tsan.sh).
TSAN_BIN := build/tsan/tcpsift build/tsan/bench/gen build/tsan/tests/unit/test_waitq \
  build/tsan/tests/unit/test_parjson
tsan-threads:
	@$(MAKE) --no-print-directory O=build/tsan CC=clang SAN=thread $(TSAN_BIN)
	@tests/threads/tsan.sh build/tsan

check-unit: tests
	@tests/run_unit.sh $(O)

check-reader: tests
	@tests/reader/run.sh $(O)

check-golden: tests
	@tests/golden/run.sh $(O)/tcpsift

# Memory bounded by live connections (peak RSS: run on an unsanitized build).
check-scale: tests $(BENCH_BIN)
	@tests/scale/run.sh $(O)

# The cost budget (bench/budget.conf): instructions a packet under callgrind.
check-budget: tests $(BENCH_BIN)
	@tests/budget/run.sh $(O)

# tcpsift annotate: verdicts on their frames for tshark, nothing else changed.
check-annotate: tests
	@tests/annotate/run.sh $(O)/tcpsift

# Crafted hostile files (tests/hostile/gen.py): exit code, one-line error,
# no sanitizer report; run in the sanitizer tree.
check-hostile-files: tests
	@tests/hostile/run.sh $(O)/tcpsift

# A million SYNs under --max-memory in every format (peak RSS: unsanitized).
check-floods: tests
	@tests/hostile/floods.sh $(O)

# Hostile conditions for the reader (tests/hostile/reads.sh): signals during
# every kind of wait, cut compressed files, unreadable inputs among several.
check-hostile: tests
	@tests/hostile/reads.sh $(O)/tcpsift

check-docs: tests
	@tests/docs/run.sh $(O)/tcpsift

# analyze --plot / --xplot: the graphs against the JSON report by value, threads,
# tcptrace's files, bad directories, a generated million-packet connection.
check-plot: tests $(O)/bench/gen
	@tests/plot/run.sh $(O)/tcpsift

check-html: tests
	@tests/html/run.sh $(O)/tcpsift

# tcpsift diff: values against analyze's, --fail-on, matching, bad inputs.
check-diff: tests
	@tests/diff/run.sh $(O)/tcpsift

# The text's connection part (--conn/--long, --sort/--top, alignment, plurals)
# and the tcpdump-family command line (-r, trailing filter, help, -V, conflicts).
check-cli: tests
	@tests/cli/run.sh $(O)/tcpsift

check-shard: tests $(O)/bench/gen
	@tests/shard/run.sh $(O)/tcpsift

check-threads: tests $(O)/bench/gen
	@tests/threads/run.sh $(O)/tcpsift

# Parking idle connections changes no report (under ASan in make check).
check-park: tests
	@tests/park/run.sh $(O)/tcpsift

check-tshark: tests
	@tests/tshark/run.sh $(O)/tcpsift

check-public: tests
	@tests/public/run.sh $(O)/tcpsift

check-tui: tests
	@tests/tui/run.sh $(O)/tcpsift

check-lab: tests
	@tests/lab/run.sh $(O)/tcpsift

# Exact cases: a scripted TCP peer on tun, each at 2/20/100 ms RTT (tests/exact/run.sh).
check-exact: tests
	@tests/exact/run.sh $(O)/tcpsift

# The truth matrix's representative cells (tests/lab/matrix.py --subset check).
check-matrix: tests
	@tests/lab/matrix.sh $(O)/tcpsift check

# Every cell of the truth matrix; writes tests/lab/MATRIX.md.
lab-matrix:
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory O=build/rel tests tcpsift
	@tests/lab/matrix.sh build/rel/tcpsift all

check-capture: tests
	@if [ -x tests/capture/run.sh ]; then tests/capture/run.sh $(O)/tcpsift; fi

# capture --metrics scraped by a real Prometheus on a namespace's loopback
# while traffic runs, tui -i --metrics against analyze, misbehaving HTTP
# clients (root; ~20 s): tests/metrics/.
check-metrics: tests
	@tests/metrics/run.sh $(O)/tcpsift

check-format:
	@scripts/check-format.sh

check-layers:
	@scripts/check-layers.sh

# Files within 800 lines, functions within 100 (STYLE.md rule 18); what is
# still over is listed in the script with its reason.
check-sizes:
	@scripts/check-sizes.sh

# No sprintf, strcpy, atoi, system... (the list and why: the script).
check-banned:
	@scripts/check-banned.sh

# The binary as the hardening flags promise: PIE, full RELRO, canary, FORTIFY.
check-hardening: build
	@scripts/check-hardening.sh $(O)/tcpsift

check-cppcheck:
	@scripts/check-lint.sh cppcheck

lint:
	@scripts/check-lint.sh all

# libFuzzer targets (clang); the library is built with coverage hooks.
fuzz:
	@$(MAKE) --no-print-directory O=build/fuzz CC=clang CFLAGS="-O1 -g" \
	  FUZZFLAGS="-fsanitize=fuzzer-no-link,address,undefined" build/fuzz/libtcpsift.a
	@for f in $(FUZZ_SRC); do n=build/fuzz/$$(basename $$f .c); \
	  clang $(CPPFLAGS) -std=gnu11 $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined \
	    -o $$n $$f build/fuzz/libtcpsift.a $(LDLIBS) || exit 1; done

# Replay the committed corpus through every fuzz target in the sanitizer
# tree; with FUZZ_SECONDS > 0 and a clang that has libFuzzer, then fuzz each
# target that long (tests/fuzz/README.md).
check-fuzz:
	@$(MAKE) --no-print-directory O=build/san SAN=1 $(FUZZ_SRC:%.c=build/san/%)
	@if [ "$(FUZZ_SECONDS)" -gt 0 ]; then \
	  if echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' | \
	    clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then \
	    $(MAKE) --no-print-directory fuzz || exit 1; \
	  else echo "check-fuzz: clang has no libFuzzer (-fsanitize=fuzzer): replay only" >&2; fi; fi
	@tests/fuzz/run.sh build/san $(FUZZ_SECONDS)

# Absurd capture times (1970..2262 and beyond, pcapng resolutions and
# offsets) and libtrace formats on garbage, under ASan+UBSan: exit codes,
# one-line errors and warnings, summary.timestamps_clamped.
check-hostile-times:
	@$(MAKE) --no-print-directory O=build/san SAN=1 build/san/tcpsift
	@tests/hostile/times.sh build/san/tcpsift

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory O=build/rel tcpsift $(BENCH_BIN) $(TOOL_BIN)
	bench/run.sh
	bench/tui.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# make install [PREFIX=/usr/local] [DESTDIR=staging]: the binary of $(O)
# (built if needed), every man page (man/*.1, man/*.5), the JSON schemas and
# the bash completion; uninstall removes exactly those files (and
# share/tcpsift, ours). tests/install/run.sh checks both.
PREFIX      ?= /usr/local
BINDIR      := $(PREFIX)/bin
MANDIR      := $(PREFIX)/share/man
DATADIR     := $(PREFIX)/share/tcpsift
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
MAN1        := $(notdir $(wildcard man/*.1))
MAN5        := $(notdir $(wildcard man/*.5))
SCHEMAS     := $(notdir $(wildcard man/*.schema.json))

install: $(O)/tcpsift
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
	  $(DESTDIR)$(DATADIR) $(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(O)/tcpsift $(DESTDIR)$(BINDIR)/tcpsift
	install -m 0644 $(addprefix man/,$(MAN1)) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(addprefix man/,$(MAN5)) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 $(addprefix man/,$(SCHEMAS)) $(DESTDIR)$(DATADIR)/
	install -m 0644 completion/tcpsift.bash $(DESTDIR)$(BASHCOMPDIR)/tcpsift

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tcpsift $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(MAN1)) \
	  $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(MAN5)) $(addprefix $(DESTDIR)$(DATADIR)/,$(SCHEMAS)) \
	  $(DESTDIR)$(BASHCOMPDIR)/tcpsift
	rmdir $(DESTDIR)$(DATADIR) 2>/dev/null || true

# make install into a scratch DESTDIR, twice (PREFIX too): the file list,
# man --warnings on every page, the completion, then uninstall.
# The release tree: what `make install` installs (a sanitizer tree would be
# relinked without SAN=1 by the install target).
check-install: tests
	@tests/install/run.sh $(O)

clean:
	rm -rf build tcpsift

-include $(shell find $(O) -name '*.d' 2>/dev/null)
