# SPDX-License-Identifier: GPL-2.0
# libFuzzer targets (tests/fuzz/fuzz_*.c): the recorder's code built a second time with
# clang, coverage-guided and with ASan + UBSan, under build/fuzz/.
#   make fuzz-build                the targets
#   make fuzz [FUZZ_SECONDS=N]     each target for N seconds (default 600), corpus kept
#                                  in FUZZ_CORPUS (default build/fuzz/corpus)
# make check runs each for a short bounded time (tests/fuzz/010-fuzz.sh).
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
		-std=gnu11 -Wall -Wno-unused-parameter \
		$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_LIB     := $(LIB_OBJ:$(B)/%=$(B)/fuzz/obj/%) $(HELP_OBJ:$(B)/%=$(B)/fuzz/obj/%)
FUZZ_SECONDS ?= 600

$(B)/fuzz/obj/%.o: %.c $(B)/ext/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/fuzz/fuzz_%: $(B)/fuzz/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LDLIBS)

fuzz-build: $(FUZZ_BIN)

fuzz: setup
	$(MAKE) fuzz-build
	tests/fuzz/run $(FUZZ_SECONDS)

-include $(FUZZ_LIB:.o=.d) $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/obj/tests/fuzz/%.d)

.PHONY: fuzz-build fuzz

# The recorder's own seed files, written by its writer (a normal build).
$(B)/fuzz/make_seeds: $(B)/fuzz/native/make_seeds.o $(LIB_OBJ) $(HELP_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/fuzz/native/%.o: tests/fuzz/%.c $(B)/ext/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

fuzz-build: $(B)/fuzz/make_seeds
-include $(B)/fuzz/native/make_seeds.d
