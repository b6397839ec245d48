# SPDX-License-Identifier: GPL-2.0
# Checkers used by the tests (built with `make userspace`): fxt_dump for
# tests/system/030-export-fxt.sh, kshark_check (libkshark) for tests/vm/020-kmod-events.sh.
$(B)/tests/fxt_dump: $(B)/tests/tools/fxt_dump.o $(B)/tests/lib/fxt_decode.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

$(B)/tests/tools/%.o: tests/tools/%.c $(B)/ext/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/lib $(CFLAGS) -MMD -MP -c -o $@ $<

userspace: $(B)/tests/fxt_dump

# KernelShark's library (libkshark-dev, kernelshark: scripts/setup-deps); its headers
# declare const-qualified return types, which -Wextra flags.
$(B)/tests/kshark_check: tests/tools/kshark_check.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(shell pkg-config --cflags libkshark) $(CFLAGS) \
		-Wno-ignored-qualifiers -o $@ $< $(shell pkg-config --libs libkshark)

ifneq ($(shell pkg-config --exists libkshark && echo yes),)
userspace: $(B)/tests/kshark_check
endif

-include $(B)/tests/tools/fxt_dump.d
