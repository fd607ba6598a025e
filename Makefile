# mod_tack -- top-level Makefile.
#
#   make              build the core library, the tool and the module
#   make check        Check unit tests of the core library
#   make check-asan   the same under AddressSanitizer + UBSan (clang)
#   make test         everything: unit, sanitizer, tool and Apache::Test suites
#   make demo         serve a real TACK through a private httpd and fetch it
#   make deps         install the Debian packages the project needs
#
# Objects built with cc live in build/ (build-asan/ for the sanitizer run);
# apxs builds the module in the top directory as libtool wants.

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
            -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS += -D_GNU_SOURCE
APXS     ?= apxs
PERL     ?= perl
PROVE    ?= prove

CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)
SSL_LIBS     := -lssl -lcrypto
JANSSON_LIBS := -ljansson

# ---- core library --------------------------------------------------------
CORE_SRC := tack_ext.c tack_pem.c tack_keyfile.c
CORE_HDR := tack_ext.h tack_cbs.h

# ---- command-line tool (issue 4 owns this section) -----------------------
TOOL_SRC := $(wildcard tack.c tack_cli_*.c)
TOOL_HDR := $(wildcard tack_cli*.h)

# ---- unit tests -----------------------------------------------------------
UNIT_SRC := $(wildcard t/unit/*.c)

BUILD      := build
BUILD_ASAN := build-asan
CORE_OBJ      := $(CORE_SRC:%.c=$(BUILD)/%.o)
CORE_OBJ_ASAN := $(CORE_SRC:%.c=$(BUILD_ASAN)/%.o)

ASAN_CC     := clang
ASAN_CFLAGS := -O1 -g -fno-omit-frame-pointer \
               -fsanitize=address,undefined -fno-sanitize-recover=all

.PHONY: all core tool module check check-asan test test-unit test-tool \
        test-apache demo deps clean

all: core tool module

core: $(BUILD)/libtack.a

$(BUILD) $(BUILD_ASAN):
	mkdir -p $@

$(BUILD)/%.o: %.c $(CORE_HDR) | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -fPIC -c -o $@ $<

$(BUILD)/libtack.a: $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD_ASAN)/%.o: %.c $(CORE_HDR) | $(BUILD_ASAN)
	$(ASAN_CC) $(CPPFLAGS) $(ASAN_CFLAGS) $(WARN) -c -o $@ $<

# ---- tool -------------------------------------------------------------
tool: $(if $(TOOL_SRC),tack)

tack: $(TOOL_SRC) $(TOOL_HDR) $(BUILD)/libtack.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -I. -o $@ $(TOOL_SRC) \
	    $(BUILD)/libtack.a $(SSL_LIBS) $(JANSSON_LIBS)

# ---- module (issue 3 owns this section) ---------------------------------
module: $(if $(wildcard mod_tack.c),.libs/mod_tack.so)

.libs/mod_tack.so: mod_tack.c $(CORE_SRC) $(CORE_HDR)
	$(APXS) -c -Wc,-Wall -Wc,-Wextra -Wc,-Wno-unused-parameter \
	    -Wc,-D_GNU_SOURCE -o mod_tack.so mod_tack.c $(CORE_SRC) \
	    $(SSL_LIBS) $(JANSSON_LIBS)

# ---- tests --------------------------------------------------------------
$(BUILD)/check_tack: $(UNIT_SRC) t/unit/*.h $(BUILD)/libtack.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(CHECK_CFLAGS) -I. -It/unit \
	    -o $@ $(UNIT_SRC) $(BUILD)/libtack.a $(CHECK_LIBS) $(SSL_LIBS)

$(BUILD_ASAN)/check_tack: $(UNIT_SRC) t/unit/*.h $(CORE_OBJ_ASAN)
	$(ASAN_CC) $(CPPFLAGS) $(ASAN_CFLAGS) $(WARN) $(CHECK_CFLAGS) -I. \
	    -It/unit -o $@ $(UNIT_SRC) $(CORE_OBJ_ASAN) $(CHECK_LIBS) $(SSL_LIBS)

# Tests find their data relative to the top directory.
check: $(BUILD)/check_tack
	TACK_TOP=$(CURDIR) $(BUILD)/check_tack

# CK_FORK=no would hide a crash behind the runner; keep fork mode and let
# ASan report through the child's exit status.
check-asan: $(BUILD_ASAN)/check_tack
	TACK_TOP=$(CURDIR) ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	    UBSAN_OPTIONS=print_stacktrace=1 $(BUILD_ASAN)/check_tack

test-unit: check check-asan

test-tool: tool
	$(PROVE) t/tool/

test-apache: module tool
	t/run-apache-tests

test: test-unit test-tool test-apache

demo: all
	scripts/demo.sh

deps:
	scripts/deps.sh

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) tack *.lo *.la *.slo .libs t/logs \
	    t/conf/httpd.conf t/conf/apache_test_config.pm
