# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the mod_tack authors (NOTICE)
# mod_tack -- top-level Makefile.
#
#   make                  build the core library, the tool and the module
#   make core             the core library alone (build/libtack.a)
#   make tool             the tack tool (./tack)
#   make module           build/mod_tack.so (httpd's flags from apxs)
#   make check            Check unit tests of the core library
#   make check-asan       the same under AddressSanitizer + UBSan (clang)
#   make test             everything below marked (test): unit, sanitizer,
#                         fuzz smoke, tool, Apache::Test, reliability, ACME
#                         and install suites (NO_INSTALL_TEST=1: no install)
#   make test-suites      what make test runs after make deps: every suite,
#                         installing nothing
#   make test-unit        check and check-asan (test)
#   make test-tool        the tool's tests, t/tool/ (test)
#   make test-tool-asan   the same against the tool under ASan + UBSan (test)
#   make test-repo        the repository's own checks, t/repo/ (test)
#   make test-apache      the Apache::Test suite, t/apache/ (test)
#   make test-reliability bad-input matrix, hostile clients, reload, secrets
#                         (test)
#   make test-acme        certbot and mod_md renewals against a private
#                         pebble, through the hooks (test)
#   make test-install     make install, a2enmod, the real apache2, make
#                         uninstall; as root, restoring the system (test)
#   make reliability-full 20 graceful restarts under load, a storm of 50
#                         SIGUSR1 under TackSigningKey's background, valgrind
#                         on the running server (long)
#   make reliability-build  what the reliability tests need, built
#   make test-store-scale a TackStore serving 10,000 vhosts (long)
#   make fuzz             every libFuzzer target FUZZ_SECONDS (default 60)
#   make fuzz-smoke       every target 4 seconds (test)
#   make fuzz-long        1,000,000 executions per target (docs/fuzzing.md)
#   make fuzz-build       the fuzz targets, built
#   make bench            the benchmarks, report in bench/results.md
#                         (about 20 minutes; BENCH_QUICK=1 for a smoke run)
#   make bench-build      the load generator and certificate maker
#   make bench-restart-rss  the httpd parent's memory across 100 graceful
#                         restarts at 1,500 vhosts, with and without
#                         TackSigningKey (bench/restart-rss.sh; as root)
#   make demo             serve a real TACK through a private httpd and fetch it
#   make deps             install the Debian packages the project needs (and
#                         bring OpenSSL's up to the version apache2 expects)
#   make preflight        check that a plain mod_ssl httpd starts cleanly here
#   make install          the module, mods-available/tack.{load,conf}, the
#                         tool, its man page, the certificate hooks and the
#                         documentation (PREFIX/share/doc/mod_tack); the
#                         command is TACK_PROG (default tack); refuses
#                         while the libapache2-mod-tack package is installed
#   make uninstall        reverses it; refuses while the configuration still
#                         has Tack directives (FORCE=1: remove all the same),
#                         and while the package is installed; KEEP_SITES=1:
#                         the way to the package (admin guide, section 1):
#                         all but mods-available, the sites' Tack lines and
#                         mods-enabled, which the package takes over
#   make status-screenshot  the status page at 1,000 vhosts in headless
#                         Chromium, 1,280 px wide: docs/status-1000.png
#   make package          the Debian packages libapache2-mod-tack and
#                         tacktool, into dist/ (dpkg-buildpackage; as root
#                         it installs the build dependencies first, as
#                         make deps does: no Recommends, named)
#   make package-test     all six below, before a release (as root)
#   make package-test-deps  the checkers package-test runs, installed as
#                         make deps installs (no Recommends, named)
#   make package-lintian  lintian --pedantic on the packages: no tag at all
#   make package-blhc     blhc on the build log: every hardening flag
#   make package-piuparts piuparts: install, purge, upgrade to the next build
#   make package-reprotest  two builds (time, path, locale, umask varied):
#                         the same .debs bit for bit
#   make package-autopkgtest  debian/tests in a test bed (a chroot copy)
#   make package-cycle    install, reinstall, upgrade, remove, purge on the
#                         real apache2, checking files and configtest
#   make format-check     every .c and .h as .clang-format lays it out
#                         (clang-format 14, Debian 12's; CI runs it there)
#   make test-release     the README's two commands (make demo, make test)
#                         from a fresh clone of HEAD in a pristine tree of
#                         Debian DIST (default trixie): a debootstrap base
#                         kept under /var/cache/mod-tack/chroot, copied
#                         anew for each run; as root)
#   make test-openssl4    the core, the tool and the module built against
#                         OpenSSL 4.0 (experimental's) in a sid chroot: the
#                         unit tests, the tool's tests that need neither
#                         httpd nor a token, and the Apache suite against
#                         an httpd built there from Debian's apache2 source
#                         (cached in OSSL4_CACHE; as root)
#   make test-httpd-suite  httpd's own test framework (Debian's apache2
#                         source package of this release, debian/perl-
#                         framework): its t/ssl against the system's
#                         apache2 without mod_tack and with a TackFile in
#                         every SSL vhost, TLS 1.2 and 1.3; the results,
#                         subtest by subtest, must be identical (FULL=1:
#                         the whole suite; t/ssl about 4-7 minutes,
#                         the whole suite about 40)
#   make test-release-remove  unmount and delete DIST's base, tree and
#                         package cache
#   make clean            remove what the build made
#   make help             this list
#
# Everything built lives in build/ (build/module/ the module's objects,
# build-asan/ for the sanitizer run); ./tack is the tool.

CC       ?= cc
CFLAGS   ?= -O2 -g
# No deprecated OpenSSL API (3.0 to 4.0): a deprecation is an error.
WARN     := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
            -Wmissing-prototypes -Wno-unused-parameter \
            -Werror=deprecated-declarations
CPPFLAGS += -D_GNU_SOURCE
APXS     ?= apxs
PERL     ?= perl
PROVE    ?= prove

# Read when the unit tests are linked (after make test's deps), not when
# make reads this file.
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)
SSL_LIBS     := -lssl -lcrypto
JANSSON_LIBS := -ljansson

# ---- core library (core/) ---------------------------------------------------
# The core's files in their layers, bottom first (docs/contributing.md,
# "Architecture"): each calls, and includes the header of, only files
# listed before it (t/repo/23-core-layers.t).
# tack_pkcs11.c: keys in a PKCS#11 token, through OpenSSL's pkcs11-provider
# (loaded at run time: nothing to link), over tack_pkcs11_uri.c (what a URI
# names) and tack_pkcs11_token.c (the PKCS#11 module asked directly).
# Whatever uses the core is compiled with -Icore.
CORE_SRC := $(addprefix core/,tack_base.c tack_util.c tack_utf8.c \
            tack_file.c tack_key.c tack_ext.c tack_pem.c tack_keyfile.c \
            tack_pkcs11_uri.c tack_pkcs11_token.c tack_pkcs11.c \
            tack_store.c tack_state.c)
# A header per file (tack_cbs.h: the wire cursor, header-only, beneath all).
CORE_HDR := $(CORE_SRC:.c=.h) core/tack_cbs.h
# What a program linking the core links too (tack_state.c: jansson).
CORE_LIBS = $(SSL_LIBS) $(JANSSON_LIBS)

# ---- command-line tool -----------------------------------------------------
# Its sources live in tool/; the binary is ./tack at the top, where the
# tests, make install and the demo run it.
# -pthread: `tack check --all-addresses` checks the addresses in threads.
TOOL_SRC := $(wildcard tool/tack.c tool/tack_cli_*.c)
TOOL_HDR := $(wildcard tool/tack_cli*.h)
# The command's name, in every message and usage line of the tool and in
# the module's log hints, and the name make install gives the tool and its
# man page.  Debian's package says tacktool (its tack package, ncurses'
# terminfo checker, owns /usr/bin/tack); the binary in the tree stays
# TOOL_OUT, ./tack, whatever the name.
TACK_PROG ?= tack
TOOL_OUT  ?= tack

# ---- unit tests -----------------------------------------------------------
UNIT_SRC := $(wildcard t/unit/*.c)

BUILD      := build
BUILD_ASAN := build-asan
CORE_OBJ      := $(CORE_SRC:core/%.c=$(BUILD)/%.o)
CORE_OBJ_ASAN := $(CORE_SRC:core/%.c=$(BUILD_ASAN)/%.o)

ASAN_CC     := clang
ASAN_CFLAGS := -O1 -g -fno-omit-frame-pointer \
               -fsanitize=address,undefined -fno-sanitize-recover=all

.PHONY: all core tool module check check-asan test test-unit test-tool \
        test-apache demo deps preflight help clean fuzz fuzz-build fuzz-smoke \
        fuzz-long reliability-build test-reliability reliability-full

all: core tool module

core: $(BUILD)/libtack.a

$(BUILD) $(BUILD_ASAN):
	mkdir -p $@

$(BUILD)/%.o: core/%.c $(CORE_HDR) | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -fPIC -c -o $@ $<

$(BUILD)/libtack.a: $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD_ASAN)/%.o: core/%.c $(CORE_HDR) | $(BUILD_ASAN)
	$(ASAN_CC) $(CPPFLAGS) $(ASAN_CFLAGS) $(WARN) -c -o $@ $<

# ---- tool -------------------------------------------------------------
tool: $(if $(TOOL_SRC),$(TOOL_OUT))

$(TOOL_OUT): $(TOOL_SRC) $(TOOL_HDR) $(BUILD)/libtack.a
	$(CC) $(CPPFLAGS) -DTACK_PROG='"$(TACK_PROG)"' $(CFLAGS) $(WARN) -Icore \
	    -pthread $(LDFLAGS) -o $@ \
	    $(TOOL_SRC) $(BUILD)/libtack.a $(SSL_LIBS) $(JANSSON_LIBS)

# The tool under AddressSanitizer + UBSan, and its suite run against it
# (t/tool takes the binary from TACK_BIN).
.PHONY: test-tool-asan
$(BUILD_ASAN)/tack: $(TOOL_SRC) $(TOOL_HDR) $(CORE_OBJ_ASAN)
	$(ASAN_CC) $(CPPFLAGS) -DTACK_PROG='"$(TACK_PROG)"' $(ASAN_CFLAGS) \
	    $(WARN) -Icore -pthread -o $@ \
	    $(TOOL_SRC) $(CORE_OBJ_ASAN) $(SSL_LIBS) $(JANSSON_LIBS)

# Not 12-pkcs11.t: pkcs11-provider dlopens the PKCS#11 module with
# RTLD_DEEPBIND, which AddressSanitizer refuses (google/sanitizers#611);
# test-tool runs it against the plain tool, check-asan the URI parser.
# Nor 27-no-lapse.t: it preloads libfaketime, which hangs the ASan build
# at its start; test-tool runs it.
ASAN_NOT_RUN := t/tool/12-pkcs11.t t/tool/27-no-lapse.t
test-tool-asan: preflight $(BUILD_ASAN)/tack module $(BUILD)/gencerts
	TACK_BIN=$(CURDIR)/$(BUILD_ASAN)/tack ASAN_OPTIONS=detect_leaks=1 \
	    UBSAN_OPTIONS=print_stacktrace=1 \
	    $(PROVE) $(filter-out $(ASAN_NOT_RUN),$(wildcard t/tool/*.t))
	@echo "test-tool-asan: NOT RUN under ASan: t/tool/12-pkcs11.t" \
	    "(pkcs11-provider dlopens the PKCS#11 module with RTLD_DEEPBIND," \
	    "which AddressSanitizer refuses) and t/tool/27-no-lapse.t" \
	    "(libfaketime, preloaded, hangs AddressSanitizer's start);" \
	    "make test-tool runs both"

# ---- module (mod_tack.c, module/) --------------------------------------------
# Built like the core and the tool: with the house's warnings, each file to
# an object of its own under build/module/, linked into build/mod_tack.so
# with the core library (build/libtack.a, built once for all).  apxs is
# asked for httpd's compiler flags, not to compile: nothing of the build
# lands at the top of the tree.
MODULE_SO := $(BUILD)/mod_tack.so
module: $(if $(wildcard mod_tack.c),$(MODULE_SO))

# The module's files in their layers, bottom first (docs/contributing.md,
# "Architecture"): each calls only files listed before it, except within
# the status group (t/repo/layers.t).  mod_tack.c, the module's record
# and hooks, is the top; the rest is in module/.
MODULE_SRC := $(addprefix module/,mod_tack_base.c mod_tack_load.c \
              mod_tack_store.c mod_tack_resolve.c mod_tack_memory.c \
              mod_tack_guard.c \
              mod_tack_secret.c \
              mod_tack_signer.c \
              mod_tack_sign.c mod_tack_md.c \
              mod_tack_background.c mod_tack_config.c mod_tack_handshake.c \
              mod_tack_status.c mod_tack_status_json.c \
              mod_tack_status_html.c mod_tack_metrics.c \
              mod_tack_setup.c) mod_tack.c
MODULE_HDR := $(addprefix module/,mod_tack_base.h mod_tack_model.h \
              mod_tack_load.h mod_tack_store.h mod_tack_resolve.h \
              mod_tack_memory.h \
              mod_tack_guard.h \
              mod_tack_secret.h mod_tack_signer.h mod_tack_sign.h \
              mod_tack_md.h \
              mod_tack_background.h \
              mod_tack_config.h mod_tack_runtime.h mod_tack_status.h \
              mod_tack_setup.h)
MODULE_OBJ := $(patsubst %.c,$(BUILD)/module/%.o,$(notdir $(MODULE_SRC)))

# httpd's flags, as apxs -c would pass them (hardening included), then the
# project's CPPFLAGS and CFLAGS (the package build passes dpkg-buildflags'
# this way).  -fvisibility=hidden and --exclude-libs: only tack_module
# (marked in mod_tack_base.h) is exported, so neither the module's nor the
# core's symbols can clash with another module's.
# Read from apxs the first time a rule uses them, then kept (never when
# make reads this file: on a bare machine apxs comes with make deps).
APXS_Q = $(shell $(APXS) -q $(1) 2>/dev/null)
MODULE_CFLAGS = $(eval MODULE_CFLAGS := $(call APXS_Q,CFLAGS) \
                    -pthread)$(MODULE_CFLAGS)
MODULE_CPPFLAGS = $(eval MODULE_CPPFLAGS := $(call APXS_Q,EXTRA_CPPFLAGS) \
                      -I$(call APXS_Q,INCLUDEDIR) \
                      -I$(call APXS_Q,APR_INCLUDEDIR) \
                      -I$(call APXS_Q,APU_INCLUDEDIR))$(MODULE_CPPFLAGS)

$(BUILD)/module:
	mkdir -p $@

# One line, not a compiler's "httpd.h: No such file", when apxs is missing.
define apxs-present
@command -v $(APXS) >/dev/null || { echo "make: $(APXS) not found:" \
    "apache2-dev is missing (make deps installs it, as root)" >&2; exit 1; }
endef

define module-cc
	$(apxs-present)
	$(CC) $(MODULE_CPPFLAGS) $(CPPFLAGS) -DTACK_PROG='"$(TACK_PROG)"' \
	    -Imodule -Icore \
	    $(MODULE_CFLAGS) $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden \
	    -c -o $@ $<
endef
$(BUILD)/module/%.o: module/%.c $(MODULE_HDR) $(CORE_HDR) | $(BUILD)/module
	$(module-cc)
$(BUILD)/module/mod_tack.o: mod_tack.c $(MODULE_HDR) $(CORE_HDR) | $(BUILD)/module
	$(module-cc)

$(MODULE_SO): $(MODULE_OBJ) $(BUILD)/libtack.a
	$(CC) -shared -pthread -Wl,-z,relro -Wl,-z,now -Wl,--as-needed \
	    $(LDFLAGS) -o $@ $(MODULE_OBJ) $(BUILD)/libtack.a \
	    -Wl,--exclude-libs,ALL $(CORE_LIBS)

# ---- fuzzing (libFuzzer + ASan + UBSan; seeds in fuzz/corpus/) ----------
FUZZ_TARGETS := tack ext00 ext02 pem keyfile validate pins preload state
FUZZ_BUILD   := build-fuzz
FUZZ_FLAGS   := -g -O1 -fno-omit-frame-pointer \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SECONDS ?= 60
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_common.h $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(FUZZ_BUILD)
	$(ASAN_CC) $(CPPFLAGS) $(FUZZ_FLAGS) $(WARN) -Icore -Ifuzz -o $@ $< \
	    $(CORE_SRC) $(CORE_LIBS)

# The pin store lives in the tool: its target links the tool's store,
# `tack pins` and utility code (and jansson) besides the core.
FUZZ_PINS_SRC := tool/tack_cli_pins.c tool/tack_cli_pins_cmd.c \
                 tool/tack_cli_util.c
$(FUZZ_BUILD)/fuzz_pins: fuzz/fuzz_pins.c fuzz/fuzz_common.h fuzz/fuzz_cli.h \
                         $(FUZZ_PINS_SRC) \
                         tool/tack_cli.h tool/tack_cli_pins.h \
                         $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(FUZZ_BUILD)
	$(ASAN_CC) $(CPPFLAGS) $(FUZZ_FLAGS) $(WARN) -Icore -Itool -Ifuzz -o $@ $< \
	    $(FUZZ_PINS_SRC) $(CORE_SRC) $(SSL_LIBS) $(JANSSON_LIBS)

# Preload lists: the list code, and what it links in the tool (the pin
# store it reads, the check engine `preload build --hosts` runs and what
# that links: the forms of a TACK it prints).
FUZZ_PRELOAD_SRC := tool/tack_cli_preload.c tool/tack_cli_preload_cmd.c \
                    tool/tack_cli_pins.c tool/tack_cli_engine.c \
                    tool/tack_cli_net.c \
                    tool/tack_cli_show.c tool/tack_cli_load.c \
                    tool/tack_cli_util.c
$(FUZZ_BUILD)/fuzz_preload: fuzz/fuzz_preload.c fuzz/fuzz_common.h fuzz/fuzz_cli.h \
                            $(FUZZ_PRELOAD_SRC) tool/tack_cli.h \
                            tool/tack_cli_preload.h tool/tack_cli_pins.h \
                            $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(FUZZ_BUILD)
	$(ASAN_CC) $(CPPFLAGS) $(FUZZ_FLAGS) $(WARN) -Icore -Itool -Ifuzz -pthread \
	    -o $@ $< $(FUZZ_PRELOAD_SRC) $(CORE_SRC) $(SSL_LIBS) $(JANSSON_LIBS)

fuzz-build: $(FUZZ_BINS)

# Each target runs FUZZ_SECONDS; new inputs go to fuzz/out/, never to the
# committed seeds.  fuzz-smoke is the short run that make test includes.
fuzz: $(FUZZ_BINS)
	scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: $(FUZZ_BINS)
	scripts/fuzz.sh 4 $(FUZZ_TARGETS)

# ---- reliability: bad-input matrix, hostile clients, reload
# under load, valgrind.  Private httpds on 127.0.0.1:18600-18699, no
# Apache::Test.  The quick files run in make test; the long ones (20
# graceful restarts under load, valgrind) in make reliability-full.
REL_BUILD := $(BUILD)/rel
REL_QUICK := t/reliability/matrix.t t/reliability/hostile.t \
             t/reliability/reload.t t/reliability/secrets.t \
             t/reliability/files.t t/reliability/storm.t
REL_FULL  := t/reliability/reload.t t/reliability/storm.t \
             t/reliability/valgrind.t

$(REL_BUILD):
	mkdir -p $@

$(REL_BUILD)/rawhello: t/reliability/rawhello.c | $(REL_BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $<

# An LD_PRELOAD spy for secrets.t: private-key reads with mod_tack on the
# stack.
$(REL_BUILD)/keyspy.so: t/reliability/keyspy.c | $(REL_BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -shared -fPIC -o $@ $< -ldl

# An LD_PRELOAD shim for files.t: a temporary file swapped for a symbolic
# link right after it is written; a staged file swapped for a FIFO or a
# link right after it is listed.
$(REL_BUILD)/swapper.so: t/reliability/swapper.c | $(REL_BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -shared -fPIC -o $@ $< -ldl

# The load generator is the benchmark's ($(BUILD)/loadgen, section below).
reliability-build: module tool $(REL_BUILD)/rawhello $(REL_BUILD)/keyspy.so \
                   $(REL_BUILD)/swapper.so $(BUILD)/loadgen

test-reliability: preflight reliability-build
	$(PROVE) $(REL_QUICK)

reliability-full: reliability-build
	RELIABILITY_FULL=1 $(PROVE) -v $(REL_FULL)

# The long fuzzing campaign: a fixed number of executions per target,
# recorded in fuzz/out/long.tsv (see docs/fuzzing.md).
fuzz-long: $(FUZZ_BINS)
	scripts/fuzz-long.sh

# ---- benchmarks (bench/README.md) ------------------------------------------
# Not tests: CI does not run them.  `make bench` builds the load generator,
# runs the five benchmarks (about 45 minutes; BENCH_QUICK=1 for a short smoke
# run) and writes bench/results.md with the plot bench/scale.png.
.PHONY: bench bench-build

bench-build: $(BUILD)/loadgen $(BUILD)/gencerts

$(BUILD)/loadgen: bench/loadgen.c | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -pthread -o $@ $< $(SSL_LIBS)

$(BUILD)/gencerts: bench/gencerts.c | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(SSL_LIBS)

bench: bench-build tool module
	bash bench/run-all.sh

# The parent's memory across 100 graceful restarts at 1,500 vhosts, with
# and without TackSigningKey (not part of make bench: a measurement).
.PHONY: bench-restart-rss
bench-restart-rss: bench-build tool module
	bash bench/restart-rss.sh

# ---- install: Debian's layout, through apxs -------------------
# make install: the module into apxs's module directory, conf/tack.load and
# conf/tack.conf into mods-available (then: a2enmod tack), the tool and its
# man page under PREFIX, the hooks and the documentation.  make uninstall
# reverses it (a2dismod first when the module is enabled; KEEP_SITES=1,
# FORCE=1).  DESTDIR is honoured for packaging.  The recipe, and what each
# step writes into the files it installs, is scripts/install.sh's.
PREFIX         ?= /usr/local
BINDIR         ?= $(PREFIX)/bin
MANDIR         ?= $(PREFIX)/share/man
DOCDIR         ?= $(PREFIX)/share/doc/mod_tack
# Whose copy of the docs this install writes: the source tree's (empty)
# or, from debian/rules, the Debian packages' (DOC_COPY=package): their
# own README (debian/README.package: the tree's is about building and
# testing), and where what the packages do is not what make install does,
# guides that say what the packages do.
DOC_COPY       ?=
HOOKDIR        ?= $(PREFIX)/lib/tack
APXS_MODDIR     = $(shell $(APXS) -q LIBEXECDIR 2>/dev/null)
APXS_CONFDIR    = $(shell $(APXS) -q SYSCONFDIR 2>/dev/null)
MODS_AVAILABLE ?= $(APXS_CONFDIR)/mods-available
# The configuration uninstall checks and a2dismod edits: Debian's
# APACHE_CONFDIR when set (an instance of its own), else apxs's.
TACK_CONFDIR   ?= $(or $(APACHE_CONFDIR),$(APXS_CONFDIR))
MODS_ENABLED   ?= $(TACK_CONFDIR)/mods-enabled
# What scripts/install.sh reads, from its environment.
INSTALL_VARS    = DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' BINDIR='$(BINDIR)' \
    MANDIR='$(MANDIR)' DOCDIR='$(DOCDIR)' HOOKDIR='$(HOOKDIR)' \
    APXS_MODDIR='$(APXS_MODDIR)' MODS_AVAILABLE='$(MODS_AVAILABLE)' \
    TACK_CONFDIR='$(TACK_CONFDIR)' MODS_ENABLED='$(MODS_ENABLED)' \
    TACK_PROG='$(TACK_PROG)' DOC_COPY='$(DOC_COPY)' \
    MODULE_SO='$(MODULE_SO)' TOOL_OUT='$(TOOL_OUT)' BUILD='$(BUILD)' \
    FORCE='$(FORCE)' KEEP_SITES='$(KEEP_SITES)'

.PHONY: install uninstall test-install test-store-scale

install: module tool
	@$(INSTALL_VARS) scripts/install.sh install

uninstall:
	@$(INSTALL_VARS) scripts/install.sh uninstall

# The install test: make install, a2enmod, configtest, start and graceful
# of the real Debian apache2 (a private copy of /etc/apache2 on a port in
# 18700-18749), tack check, make uninstall; as root, leaving the system as
# it was.
test-install: preflight module tool
	$(PROVE) t/install/

# The store at a hosting provider's scale: 10,000 vhosts, one TackStore.
test-store-scale: module tool $(BUILD)/gencerts
	TACK_STORE_VHOSTS=$${TACK_STORE_VHOSTS:-10000} t/run-apache-tests \
	    t/apache/store.t -verbose

# The status page at 1,000 vhosts, photographed by headless Chromium at
# 1,280 pixels into docs/status-1000.png (not part of make test).
.PHONY: status-screenshot
status-screenshot: module tool $(BUILD)/gencerts
	sh scripts/status-screenshot.sh

# ---- tests --------------------------------------------------------------
define check-present
@pkg-config --exists check 2>/dev/null || { echo "make: Check (the unit" \
    "test library) not found by pkg-config: check is missing (make deps" \
    "installs it, as root)" >&2; exit 1; }
endef

$(BUILD)/check_tack: $(UNIT_SRC) t/unit/*.h $(BUILD)/libtack.a
	$(check-present)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(CHECK_CFLAGS) -Icore -It/unit $(LDFLAGS) \
	    -o $@ $(UNIT_SRC) $(BUILD)/libtack.a $(CHECK_LIBS) $(CORE_LIBS)

$(BUILD_ASAN)/check_tack: $(UNIT_SRC) t/unit/*.h $(CORE_OBJ_ASAN)
	$(check-present)
	$(ASAN_CC) $(CPPFLAGS) $(ASAN_CFLAGS) $(WARN) $(CHECK_CFLAGS) -Icore \
	    -It/unit -o $@ $(UNIT_SRC) $(CORE_OBJ_ASAN) $(CHECK_LIBS) $(CORE_LIBS)

# Tests find their data relative to the top directory.
# make test needs /proc and /sys mounted (a pseudo-file case of the unit
# tests reads them); a package build's make check may run without.
check: $(BUILD)/check_tack
	TACK_TOP=$(CURDIR) $(CHECK_ENV) $(BUILD)/check_tack

# CK_FORK=no would hide a crash behind the runner; keep fork mode and let
# ASan report through the child's exit status.
check-asan: $(BUILD_ASAN)/check_tack
	TACK_TOP=$(CURDIR) ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	    UBSAN_OPTIONS=print_stacktrace=1 $(CHECK_ENV) $(BUILD_ASAN)/check_tack

test-unit: CHECK_ENV = TACK_TEST_PSEUDO_FS=required
test-unit: check check-asan

# The module too: t/tool/06-httpd.t and 11-fleet-httpd.t check it;
# gencerts: 05-fleet.t signs 2000 certificates of their own.
test-tool: preflight tool module $(BUILD)/gencerts
	$(PROVE) t/tool/

# The repository's own checks (t/repo/): the docs against the code and
# make help, the layers in the built objects, the guides run in a
# sandbox, licences, layout, packaging metadata, deps.sh with stand-ins.
.PHONY: test-repo
test-repo: preflight tool module
	$(PROVE) t/repo/

test-apache: preflight module tool $(BUILD)/gencerts
	t/run-apache-tests

# NO_INSTALL_TEST=1 leaves out the one test that installs into the system
# apache2 (and restores it): it needs root.
# certbot and mod_md against a private pebble on 127.0.0.1 (t/acme/): real
# renewals with new keys, the hooks, pinned clients; about a minute.
.PHONY: test-acme
test-acme: preflight module tool
	$(PROVE) t/acme/

# make format-check: every tracked .c and .h file as the repository's
# .clang-format lays it out, by clang-format 14, Debian 12's (Debian 13's
# 19 lays out some lines otherwise: one version, one tree; CI runs it in
# its Debian 12 tree).  Another version fails, saying so: it never passes
# by checking nothing.  Not part of make test, which Debian 13 runs too.
CLANG_FORMAT ?= clang-format
CLANG_FORMAT_MAJOR := 14
.PHONY: format-check
format-check:
	@v=$$($(CLANG_FORMAT) --version 2>/dev/null | \
	    sed -n 's/.*clang-format version \([0-9]*\)\..*/\1/p'); \
	if [ "$$v" != "$(CLANG_FORMAT_MAJOR)" ]; then \
	    echo "make format-check: needs clang-format $(CLANG_FORMAT_MAJOR)" \
	        "(Debian 12's; apt-get install clang-format), found" \
	        "'$${v:-none}': run it in a Debian 12 tree" >&2; exit 1; fi; \
	files=$$(git ls-files '*.c' '*.h'); \
	[ -n "$$files" ] || { echo "make format-check: no files (not a git checkout?)" >&2; exit 1; }; \
	if ! $(CLANG_FORMAT) --dry-run --Werror $$files; then \
	    echo "make format-check: the lines above differ from .clang-format's" \
	        "layout: git clang-format (changed lines) or clang-format -i FILE" >&2; \
	    exit 1; fi; \
	echo "make format-check: $$(echo "$$files" | wc -l) files, clang-format $$v: no drift"

# make test and make demo may be the first command on a bare machine: the
# packages go in first (deps), then a second make, which reads this file
# again, builds with what apxs and pkg-config say now that they are there.
TEST_SUITES := preflight test-unit fuzz-smoke test-repo test-tool test-tool-asan \
               test-apache test-reliability test-acme \
               $(if $(NO_INSTALL_TEST),,test-install)
.PHONY: test-suites
test: deps
	@$(MAKE) --no-print-directory test-suites

test-suites: $(TEST_SUITES)

demo:
	@TACK_DEPS_FOR=demo scripts/deps.sh demo
	@$(MAKE) --no-print-directory all
	scripts/demo.sh

# A Debian release, in a pristine tree outside this one (scripts/test-release.sh):
# .ci/run runs both commands in bookworm's and trixie's.
DIST ?= trixie
.PHONY: test-release test-release-remove
test-release:
	scripts/test-release.sh $(DIST)

test-release-remove:
	scripts/test-release.sh --remove $(DIST)

# OpenSSL 4.0 removed the ENGINE API and deprecates more: the core, the
# tool and the module built against it, in a sid chroot with experimental's
# libssl4, the module with an httpd built there from Debian's apache2
# source and kept in OSSL4_CACHE between runs (scripts/test-openssl4.sh
# says which tests cannot run there, and why).
OSSL4_CACHE ?= /var/cache/mod-tack/ossl4
.PHONY: test-openssl4
test-openssl4:
	TACK_RELEASE_ANY_SWITCHED_ON="a test harness, not the README's commands" \
	TACK_RELEASE_BIND="$(OSSL4_CACHE):/var/cache/mod-tack/ossl4" \
	    scripts/test-release.sh sid scripts/test-openssl4.sh

# httpd's own test framework, without mod_tack and with it, compared
# subtest by subtest (scripts/httpd-suite.sh; the framework is fetched
# from Debian's archive into /var/cache/mod-tack/src, outside the tree).
.PHONY: test-httpd-suite
test-httpd-suite: preflight module tool
	FULL=$(FULL) scripts/httpd-suite.sh

deps:
	@TACK_DEPS_FOR=$(or $(filter demo test,$(MAKECMDGOALS)),deps) scripts/deps.sh

# Before any suite that starts httpd: a plain mod_ssl must start without a
# warning here, or every error-log check would fail (scripts/preflight.sh).
preflight:
	@scripts/preflight.sh

help:
	@sed -n '4,/^$$/s/^# \{0,1\}//p' Makefile

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(FUZZ_BUILD) $(PKG_DIR) fuzz/out tack *.lo *.la *.slo .libs t/logs \
	    t/conf/httpd.conf t/conf/apache_test_config.pm

# ---- Debian packages (debian/, docs/admin-guide.md) -----------
# make package: libapache2-mod-tack and tacktool, built by
# dpkg-buildpackage -us -uc -b from a copy of the tree's sources (tracked
# and new files; no build products) in build-pkg/, into dist/, with the
# source package (dpkg-source -b) that lintian checks too.
# make package-test: lintian --pedantic on them, blhc on the build log,
# reprotest, piuparts, autopkgtest (debian/tests, in a test bed: a chroot
# copy of the release's cached base), and the install / reinstall /
# upgrade / remove / purge cycle on the real apache2 (t/package/cycle.t);
# as root, leaving the packages uninstalled.
# The version built here: debian/changelog's for this Debian release
# (0.1.1~deb12u1 on Debian 12; scripts/package.sh says why).
PKG_VERSION = $(shell sh scripts/package.sh --version)
PKG_DIR     := build-pkg
# Where the packages go (not DIST: that is test-release's release).
PKG_OUT     := dist

.PHONY: package package-test package-lintian package-autopkgtest package-cycle \
	package-test-deps package-piuparts package-blhc package-reprotest

package:
	sh scripts/package.sh $(PKG_DIR) $(PKG_OUT)

# The checkers (lintian, autopkgtest, piuparts, blhc, reprotest), installed
# as deps.sh installs the rest: named, nothing left switched on.
package-test-deps:
	TACK_DEPS_FOR=package-test sh scripts/deps.sh package-test

package-lintian: package-test-deps package
	lintian --fail-on error,warning,info,pedantic --info --display-info \
	    --pedantic \
	    $(if $(filter 0,$(shell id -u)),--allow-root) \
	    $(PKG_OUT)/mod-tack_$(PKG_VERSION)_*.changes $(PKG_OUT)/mod-tack_$(PKG_VERSION).dsc

package-autopkgtest: package-test-deps package
	sh scripts/package-autopkgtest.sh $(PKG_OUT) $(PKG_VERSION)

package-cycle: package-test-deps package
	PKG_DIST=$(CURDIR)/$(PKG_OUT) PKG_VERSION=$(PKG_VERSION) $(PROVE) -v t/package/

# piuparts: install and purge, and the upgrade from this build to the next
# (scripts/package-piuparts.sh).
package-piuparts: package-test-deps package
	sh scripts/package-piuparts.sh $(PKG_OUT) $(PKG_VERSION)

# blhc: every compile and link of the build (the unit tests' too) with
# Debian's hardening flags.
package-blhc: package-test-deps package
	@out=$$(blhc --arch=$$(dpkg --print-architecture) $(PKG_DIR)/build.log); \
	if [ -n "$$out" ]; then echo "$$out"; \
	    echo "make package-blhc: blhc flags the build above ($(PKG_DIR)/build.log)"; exit 1; fi; \
	echo "make package-blhc: blhc: every compile and link has the hardening flags"

# reprotest: the source package built twice, the second time a year and
# more later (faketime: the unit tests run under it too), in another
# directory, another locale and another umask; the .debs must be the same
# bit for bit.  Not varied: file order (disorderfs needs FUSE), user,
# host name and kernel (they need a virtual machine).
REPROTEST_VARY := -all,+time,+build_path,+locales,+umask
package-reprotest: package-test-deps package
	rm -rf $(PKG_DIR)/reprotest
	mkdir -p $(PKG_DIR)/reprotest
	cp $(PKG_OUT)/mod-tack_$(PKG_VERSION).dsc $(PKG_OUT)/mod-tack_$(PKG_VERSION).tar.xz \
	    $(PKG_DIR)/reprotest/
	cd $(PKG_DIR)/reprotest && reprotest --vary=$(REPROTEST_VARY) \
	    --store-dir=out mod-tack_$(PKG_VERSION).dsc -- null >reprotest.log 2>&1 || \
	    { tail -n 40 reprotest.log; echo "make package-reprotest: the builds differ" \
	      "(or one failed): $(PKG_DIR)/reprotest/reprotest.log, out/"; exit 1; }
	@echo "make package-reprotest: two builds, the same .debs bit for bit" \
	    "($(REPROTEST_VARY))"

package-test: package-lintian package-blhc package-reprotest package-piuparts \
	package-autopkgtest package-cycle
