# iocontend: one Makefile for the library, the program, the tests and the demo.
BUILD   ?= build
OPT     ?= -O2 -g
CC      ?= cc
ORACLE_PY := /usr/bin/python3

CSTD := -std=c11 -D_DEFAULT_SOURCE
WARN := -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -Wwrite-strings -Wformat=2 -Wundef -Wcast-qual \
        -Wvla -Wdouble-promotion -Wimplicit-fallthrough -Wconversion -Wno-sign-conversion
SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

PKGS    := gsl libpq jansson libmicrohttpd inih zlib liblzma
CFLAGS   = $(CSTD) $(WARN) $(OPT) -pthread -MMD -MP $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lbz2 -lm -pthread
LDFLAGS ?=

LIB_SRC  := $(wildcard common/*.c stats/*.c sql/*.c ingest/*.c ingest/*/*.c analysis/*.c \
              daemon/*.c)
PROG_SRC := $(wildcard cli/*.c)
GEN_SRC  := $(wildcard data/*.c)
TEST_SRC := $(wildcard tests/*/test_*.c)
TEST_SUPPORT := $(wildcard tests/support/*.c)
FUZZ_SRC := $(wildcard fuzz/*.c)

MIG_SQL  := $(sort $(wildcard sql/migrations/*.sql))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/migrations.o
PROG_OBJ := $(PROG_SRC:%.c=$(BUILD)/%.o)
GEN_OBJ  := $(GEN_SRC:%.c=$(BUILD)/%.o)
SUP_OBJ  := $(TEST_SUPPORT:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:%.c=$(BUILD)/%)
LIB      := $(BUILD)/libiocontend.a
PROG     := $(BUILD)/iocontend
GEN      := $(BUILD)/iocontend-gen

# The fuzz targets (fuzz/fuzz_NAME.c), each an entry of libFuzzer and of the replay
# driver (fuzz/replay.c) that make test runs over the seeds, with any compiler.
FUZZ_TARGETS := darshan darshan_bin dxt iostat config source sa
FUZZ_BIN   := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
REPLAY_BIN := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/replay_%)
# The configuration is cli/'s: its target links the program's objects but main.
CLI_OBJ    := $(filter-out $(BUILD)/cli/main.o,$(PROG_OBJ))

# System headers as -isystem: the HeaderFilterRegex's "sql/" would match postgresql/.
TIDY_INC  = $(patsubst -I%,-isystem %,$(shell pkg-config --cflags $(PKGS)))
ALL_C    := $(LIB_SRC) $(PROG_SRC) $(GEN_SRC) $(TEST_SRC) $(TEST_SUPPORT) $(FUZZ_SRC)
ALL_H    := $(wildcard common/*.h stats/*.h sql/*.h ingest/*.h ingest/*/*.h analysis/*.h \
              daemon/*.h cli/*.h \
              tests/support/*.h fuzz/*.h)

# The objects and the generated migrations are kept after a link (make would delete
# them as intermediates). Named, not a bare .SECONDARY:, which would make every target
# secondary, FORCE included, so that a changed object list never reached the archive.
ALL_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(ALL_C) $(wildcard bench/*.c))
.SECONDARY: $(ALL_OBJ) $(BUILD)/gen/migrations.c $(BUILD)/gen/migrations.o
.PHONY: all deps test-deps lint fmt test test-run check demo bench bench-build bench-compare clean \
        compile_commands.json fuzz fuzz-build install uninstall
all: $(LIB) $(PROG) $(if $(GEN_SRC),$(GEN))

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# stats/ is the numeric core and gains from -O3's vectorising (make bench shows it);
# only where OPT is the default: an OPT given on the command line (make check's) is
# kept.
$(BUILD)/stats/%.o: OPT := $(OPT:-O2=-O3)

# The migrations are compiled in, so the binary carries its schema.
$(BUILD)/gen/migrations.c: $(MIG_SQL) sql/embed.sh
	@mkdir -p $(dir $@)
	sh sql/embed.sh $@ $(MIG_SQL)

$(BUILD)/gen/migrations.o: $(BUILD)/gen/migrations.c
	$(CC) $(CFLAGS) -Wno-overlength-strings -I. -c $< -o $@

# The archive follows its list of objects as well as their times: after a file is
# renamed or removed, no object is newer than the archive, which would otherwise keep
# the old member and miss nothing make can see.
LIB_LIST := $(BUILD)/libiocontend.list
FORCE:
$(LIB_LIST): FORCE
	@mkdir -p $(dir $@)
	@echo '$(LIB_OBJ)' | cmp -s - $@ || echo '$(LIB_OBJ)' > $@

$(LIB): $(LIB_OBJ) $(LIB_LIST)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(LIB_OBJ)

$(PROG): $(PROG_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(GEN): $(GEN_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(SUP_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka
# test_cli reads the configuration's key table (cli/config.c), as fuzz_config does.
$(BUILD)/tests/integration/test_cli: $(BUILD)/tests/integration/test_cli.o $(SUP_OBJ) \
    $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# Static pattern rules: a plain $(BUILD)/fuzz/fuzz_% would also match the objects.
$(REPLAY_BIN): $(BUILD)/fuzz/replay_%: $(BUILD)/fuzz/replay.o $(BUILD)/fuzz/fuzz_%.o \
    $(BUILD)/fuzz/fuzz.o $(BUILD)/tests/support/testutil.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(filter-out $(LIB),$^) $(LIB) $(LDLIBS) -lcmocka
$(BUILD)/fuzz/replay_config $(BUILD)/fuzz/fuzz_config: $(CLI_OBJ)

$(FUZZ_BIN): $(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/fuzz_%.o $(BUILD)/fuzz/fuzz.o $(LIB)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $(filter-out $(LIB),$^) $(LIB) $(LDLIBS)

# make install [PREFIX=/usr/local] [DESTDIR=]: the programs, the page, the man pages,
# the example configuration and the systemd units (dist/). The page goes to
# PREFIX/share/iocontend/web, which the binary finds from PREFIX/bin (daemon/static.c),
# so BINDIR and the page's folder follow PREFIX; IOCONTEND_WEB_DIR still wins. The
# configuration stays under /etc (cli/config.c reads /etc/iocontend/iocontend.conf
# whatever PREFIX); nightly.conf, the admin's, is never overwritten. Without DESTDIR
# the service's user is made (systemd-sysusers) and systemd reloads its units.
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      := $(PREFIX)/bin
LIBEXECDIR  := $(PREFIX)/libexec
WEBDIR      := $(PREFIX)/share/iocontend/web
MANDIR      ?= $(PREFIX)/share/man
SYSCONFDIR  ?= /etc
UNITDIR     ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
UNITS       := iocontend.service iocontend-db.service iocontend-nightly.service \
               iocontend-nightly.timer
SUBST       := sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' \
                   -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g'

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/iocontend $(DESTDIR)$(WEBDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(SYSCONFDIR)/iocontend \
	  $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR)
	install -m 0755 $(PROG) $(GEN) $(DESTDIR)$(BINDIR)/
	$(SUBST) dist/iocontend-nightly.sh > $(DESTDIR)$(LIBEXECDIR)/iocontend/iocontend-nightly
	chmod 0755 $(DESTDIR)$(LIBEXECDIR)/iocontend/iocontend-nightly
	install -m 0644 web/* $(DESTDIR)$(WEBDIR)/
	install -m 0644 man/iocontend.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/iocontend.conf.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 dist/iocontend.conf.example $(DESTDIR)$(SYSCONFDIR)/iocontend/
	test -e $(DESTDIR)$(SYSCONFDIR)/iocontend/nightly.conf || \
	  install -m 0644 dist/nightly.conf $(DESTDIR)$(SYSCONFDIR)/iocontend/
	for u in $(UNITS); do \
	  in=dist/$$u; [ -e $$in ] || in=dist/$$u.in; \
	  $(SUBST) $$in > $(DESTDIR)$(UNITDIR)/$$u && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	install -m 0644 dist/iocontend.sysusers $(DESTDIR)$(SYSUSERSDIR)/iocontend.conf
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ]; then \
	  if command -v systemd-sysusers >/dev/null; then \
	    systemd-sysusers $(SYSUSERSDIR)/iocontend.conf; fi; \
	  if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
	fi

# Leaves /etc/iocontend/iocontend.conf and nightly.conf (the admin's), the user
# iocontend and the state directory.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/iocontend $(DESTDIR)$(BINDIR)/iocontend-gen \
	  $(DESTDIR)$(LIBEXECDIR)/iocontend/iocontend-nightly \
	  $(addprefix $(DESTDIR)$(WEBDIR)/,$(notdir $(wildcard web/*))) \
	  $(DESTDIR)$(MANDIR)/man1/iocontend.1 $(DESTDIR)$(MANDIR)/man5/iocontend.conf.5 \
	  $(DESTDIR)$(SYSCONFDIR)/iocontend/iocontend.conf.example \
	  $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS)) $(DESTDIR)$(SYSUSERSDIR)/iocontend.conf
	rmdir $(DESTDIR)$(LIBEXECDIR)/iocontend $(DESTDIR)$(WEBDIR) \
	  $(DESTDIR)$(PREFIX)/share/iocontend 2>/dev/null || true
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi

# Installs on Debian 12 (as root), only when missing: deps what building and running
# the program (and the demo) need; test-deps that and the tests' tools (chromium,
# prometheus, the Python oracles, clang, cppcheck...), which make test installs.
deps:
	@sh tests/deps.sh run

test-deps:
	@sh tests/deps.sh test

lint:
	@mkdir -p $(BUILD)
	sh tests/lint/boundaries.sh
	sh tests/lint/migrations.sh
	sh tests/lint/architecture.sh
	clang-format --dry-run --Werror $(ALL_C) $(ALL_H)
	@# One file per clang-tidy run: clang-tidy 14's valist checker misfires on the
	@# second and later files of a multi-file run.
	@printf '%s\n' $(LIB_SRC) $(PROG_SRC) $(GEN_SRC) $(FUZZ_SRC) | xargs -P 2 -I{} sh -c \
	  'clang-tidy --quiet {} -- $(CSTD) $(TIDY_INC) 2>&1 | grep -v -E "^[0-9]+ warnings? generated"; exit 0' > $(BUILD)/tidy.log; \
	  if grep -q -E 'error:|warning:' $(BUILD)/tidy.log; then cat $(BUILD)/tidy.log; exit 1; fi; echo "clang-tidy: clean"
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr --suppress=missingIncludeSystem --std=c11 $(LIB_SRC) $(PROG_SRC) $(GEN_SRC) \
	  $(FUZZ_SRC)

fmt:
	clang-format -i $(ALL_C) $(ALL_H)

# Every unit binary, then the integration suite; results in $(BUILD)/test-results.txt.
# The replay of the fuzz seeds runs with the unit binaries.
test-run: all $(TEST_BIN) $(REPLAY_BIN)
	@BUILD=$(BUILD) ORACLE_PY=$(ORACLE_PY) sh tests/run.sh $(BUILD) $(filter-out $(BUILD)/tests/integration/%,$(TEST_BIN)) $(REPLAY_BIN) $(filter $(BUILD)/tests/integration/%,$(TEST_BIN))

check:
	$(MAKE) BUILD=build/san OPT="-O1 -g $(SAN)" LDFLAGS="$(SAN)" test-run

# The packages first, then the build: under -j a compiler would start before the
# headers it needs are installed.
test: test-deps
	@$(MAKE) --no-print-directory all lint bench-build
	@rm -f build/test-results.txt build/san/test-results.txt; a=0; b=0; \
	$(MAKE) --no-print-directory test-run || a=$$?; \
	$(MAKE) --no-print-directory BUILD=build/san OPT="-O1 -g $(SAN)" LDFLAGS="$(SAN)" test-run || b=$$?; \
	sh tests/summary.sh build/test-results.txt build/san/test-results.txt; \
	test $$a -eq 0 && test $$b -eq 0

# The demo keeps its state under the checkout (./var), whatever the user's default.
# As root the embedded cluster runs as postgres, who cannot enter a checkout under
# /root (mode 0700): the state then goes to /var/lib/iocontend/demo, root's own
# directory, never a predictable name in a world-writable one. IOCONTEND_STATE_DIR,
# when set, still wins. make demo DEMO_ARGS=--check: the whole path, exiting 0 once
# the API answers; DEMO_ARGS="--listen 0.0.0.0:8080": served to other machines. Only
# the runtime's packages (make deps), not the tests' tools.
demo: deps
	@$(MAKE) --no-print-directory all
	@state="$(CURDIR)/var"; \
	if [ -n "$$IOCONTEND_STATE_DIR" ]; then state="$$IOCONTEND_STATE_DIR"; \
	elif [ "$$(id -u)" -eq 0 ] && \
	    ! /usr/sbin/runuser -u postgres -- test -x "$(CURDIR)" 2>/dev/null; then \
	  echo "demo: postgres cannot enter $(CURDIR); the state goes to /var/lib/iocontend/demo"; \
	  state=/var/lib/iocontend/demo; \
	fi; exec $(PROG) --state-dir "$$state" demo $(DEMO_ARGS)

# Ours beside the Python stack: bench/run.sh (assoc: d = 10^3 .. 10^6, about 2
# minutes on 2 cores; BENCH_D="1000 10000" for a shorter run), then bench/kde.sh,
# bench/signif.sh, bench/sweep.sh, bench/rf.sh, bench/ingest.sh; never part of test.
BENCH_BIN := $(BUILD)/bench/bench_assoc
$(BENCH_BIN): $(BUILD)/bench/bench_assoc.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The sections after the assoc one (bench/sections.sh): kde, signif, sweep, rf, ingest,
# each also alone: make bench BENCH_ONLY="kde sweep" (assoc is bench/run.sh). ingest
# (bench/ingest.sh) times `iocontend ingest` black-box beside a binary COPY of the same
# rows; BENCH_INGEST_LOGS=5000 shrinks it for a quick check, INGEST_ARGS adds ingest
# arguments. history (bench/history.sh, BENCH_ONLY=history; not in the default list:
# its clusters, made once and kept, take 21 GB of disk (du, 2026-12-07; 13.4 GB the
# 30 days of 1 s samples)) times analyze over 3 days to a year of stored samples and
# one more night; BENCH_HISTORY_SIZES="3d60 6d60 1d1" shrinks it.
BENCH_KDE := $(BUILD)/bench/bench_kde
$(BENCH_KDE): $(BUILD)/bench/bench_kde.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

BENCH_SIGNIF := $(BUILD)/bench/bench_signif
$(BENCH_SIGNIF): $(BUILD)/bench/bench_signif.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

BENCH_RF := $(BUILD)/bench/bench_rf
$(BENCH_RF): $(BUILD)/bench/bench_rf.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

BENCH_ONLY ?= assoc kde signif sweep rf ingest
# make test builds the bench drivers (never runs them) so that they keep compiling.
bench-build: $(BENCH_BIN) $(BENCH_KDE) $(BENCH_SIGNIF) $(BENCH_RF)

bench: test-deps
	@$(MAKE) --no-print-directory all bench-build
	@ORACLE_PY=$(ORACLE_PY) BENCH_ONLY="$(BENCH_ONLY)" bash bench/sections.sh $(BUILD)

# A refactor's figures beside an earlier commit's (bench/compare.sh): assoc and ingest,
# BASE built from a git worktree under build/base, five alternating rounds, medians;
# never part of test. make bench-compare BASE=main~3
bench-compare: test-deps
	@test -n "$(BASE)" || { echo "make bench-compare: name the commit, BASE=REV"; exit 2; }
	@$(MAKE) --no-print-directory all bench-build
	@ORACLE_PY=$(ORACLE_PY) bash bench/compare.sh $(BUILD) $(BASE)

# libFuzzer over each corpus (fuzz/NAME.seeds), one at a time, FUZZ_SECONDS each
# (FUZZ_ONLY="darshan config": some of them); never part of test. Debian's clang-14, everything instrumented for coverage under ASan +
# UBSan in build/libfuzzer. clang, unlike gcc, warns of the float NAN of <math.h> made
# double (-Wdouble-promotion) and of a va_list handed to vsnprintf
# (-Wformat-nonliteral); gcc's build keeps both checks.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang-14
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
fuzz: test-deps
	@$(MAKE) --no-print-directory BUILD=build/libfuzzer CC=$(FUZZ_CC) \
	  WARN="$(WARN) -Wno-double-promotion -Wno-format-nonliteral" \
	  OPT="-O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link" LDFLAGS="$(FUZZ_SAN)" fuzz-build
	@sh fuzz/run.sh build/libfuzzer $(FUZZ_SECONDS) $(FUZZ_ONLY)

fuzz-build: $(FUZZ_BIN)

# For clangd and clang-tidy in an editor: every compile command of a full build, in a
# build folder of its own so that the normal one stays as it is.
compile_commands.json:
	rm -rf build/cc
	bear --output $@ -- $(MAKE) --no-print-directory BUILD=build/cc all bench-build \
	  $(TEST_SRC:%.c=build/cc/%)

clean:
	rm -rf build

SHELL := /bin/bash
# Only this build's own dependency files: a find under $(BUILD) would also read those
# of build/san, build/cc and the base tree of make bench-compare (build/base/src),
# whose rules name other objects and headers that may no longer exist here.
-include $(wildcard $(ALL_OBJ:.o=.d))
