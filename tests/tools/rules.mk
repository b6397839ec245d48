# SPDX-License-Identifier: GPL-2.0
# Checkers used by the tests (built with `make userspace`): fxt_dump for
# tests/system/030-export-fxt.sh, dat_chunks for tests/system/016-record-spool.sh,
# kshark_check (libkshark) for tests/vm/020-kmod-events.sh.
$(B)/tests/fxt_dump: $(B)/tests/tools/fxt_dump.o $(B)/tests/lib/fxt_decode.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

$(B)/tests/tools/%.o: tests/tools/%.c $(B)/ext/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/lib $(CFLAGS) -MMD -MP -c -o $@ $<

$(B)/tests/dat_chunks: $(B)/tests/tools/dat_chunks.o $(B)/tests/lib/dat_parse.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lzstd

userspace: $(B)/tests/fxt_dump $(B)/tests/dat_chunks

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
-include $(B)/tests/tools/dat_chunks.d
