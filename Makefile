# ftring + recorderd: top-level build.
#   make            recorderd, the tests and (when kernel headers exist) the module
#   make demo       set up, build, record a real capture and show what is in it
#   make check      set up, build, run every test (ends with "N passed, N failed")
#   make bench      benchmarks (never pass/fail): tests/bench/results/, README section
#   make fuzz       the libFuzzer targets for FUZZ_SECONDS each (tests/fuzz/rules.mk)
#   make install    recorderd, its man page, service, config example, the module via
#                   DKMS sources
#   make arm64      recorderd, the guest programs and the module for arm64 (build/arm64)
#   make deb        Debian packages recorderd and ftring-dkms in build/deb/ (scripts/deb)

B        := build
CC       ?= cc
PKGS     := libtracefs libtraceevent libtracecmd libzstd libsystemd
CPPFLAGS += -Icommon -Irecorder -isystem $(B)/ext -D_GNU_SOURCE
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 \
	    -fno-strict-aliasing $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread

# Kernel build: Debian's linux-headers-amd64 (6.1) unless KDIR is given. The running
# kernel's headers win when installed (a device running its own Debian kernel).
KDIR     ?= $(shell scripts/kdir)
KVER     ?= $(notdir $(patsubst %/build,%,$(KDIR)))

REC_SRC  := $(wildcard recorder/*.c recorder/*/*.c)
REC_OBJ  := $(REC_SRC:%.c=$(B)/%.o)
LIB_OBJ  := $(filter-out $(B)/recorder/main.o,$(REC_OBJ))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
HELP_SRC := $(wildcard tests/lib/*.c)
HELP_OBJ := $(HELP_SRC:%.c=$(B)/%.o)

all: userspace module module-6.12 vm-squat

userspace: $(B)/recorderd $(UNIT_BIN)

$(B)/recorderd: $(REC_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Only the tests include the harness: recorderd itself builds without it (and without
# the network scripts/setup-deps needs), as the Debian package build does.
$(UNIT_SRC:%.c=$(B)/%.o): $(B)/ext/kselftest_harness.h

$(B)/tests/%: $(B)/tests/unit/%.o $(LIB_OBJ) $(HELP_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/ext/kselftest_harness.h:
	scripts/setup-deps

setup:
	scripts/setup-deps

module:
	@if [ -d "$(KDIR)" ]; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR) modules; \
	else \
		echo "module: no kernel headers (KDIR=$(KDIR)); run 'make setup'"; \
	fi

# The module for Debian 12's 6.12 kernel too (the guest suite runs on both: tests/vm/
# 090-kernel-6.12.sh).
KDIR612  ?= $(shell scripts/kdir 6.12)
K612     := $(B)/kmod-6.12
module-6.12:
	@if [ -d "$(KDIR612)" ]; then \
		scripts/install --module-sources $(K612) && \
		$(MAKE) -C $(KDIR612) M=$(CURDIR)/$(K612) modules; \
	else \
		echo "module-6.12: no 6.12 kernel headers ($(KDIR612)); run 'make setup'"; \
	fi

# arm64, as on most field devices: recorderd and the guest programs cross-built
# against the Debian arm64 root scripts/arm64-sysroot makes (cached outside the clone),
# and the module against that root's Debian arm64 6.1 headers; all in $(A64)/.
# tests/vm/095-arm64.sh runs them under qemu-system-aarch64.
A64      := $(B)/arm64
A64CC    := aarch64-linux-gnu-gcc
arm64:
	@root=$$(scripts/arm64-sysroot) && mkdir -p $(A64) && ln -sfn ../ext $(A64)/ext && \
	PKG_CONFIG_SYSROOT_DIR=$$root \
	PKG_CONFIG_LIBDIR=$$root/usr/lib/aarch64-linux-gnu/pkgconfig:$$root/usr/share/pkgconfig \
		$(MAKE) B=$(A64) CC="$(A64CC) --sysroot=$$root" $(A64)/recorderd vm-progs && \
	scripts/install --module-sources $(A64)/kmod && \
	$(MAKE) -C $$(ls -d $$root/usr/src/linux-headers-*-arm64) ARCH=arm64 \
		CROSS_COMPILE=$(A64CC:gcc=) M=$(CURDIR)/$(A64)/kmod modules

checkpatch: $(B)/ext/kselftest_harness.h
	scripts/checkpatch

check: setup
	$(MAKE) all arm64 fuzz-build
	tests/run

demo: setup
	$(MAKE) all
	scripts/demo

bench: setup
	$(MAKE) all
	tests/bench/run --readme README

install: $(B)/recorderd
	scripts/install "$(DESTDIR)"

# Builds from a copy of the tree in $(B)/deb/src, so the source tree stays clean.
deb:
	scripts/deb

clean:
	rm -rf $(B)/recorder $(B)/tests $(B)/recorderd
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi

-include $(REC_OBJ:.o=.d) $(HELP_OBJ:.o=.d) $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%.d)
# Extra rules owned by a subdirectory (e.g. the user-space build of the ring buffer).
-include $(wildcard tests/*/rules.mk recorder/rules.mk)

.PHONY: all userspace setup module module-6.12 arm64 checkpatch check demo bench install deb clean
