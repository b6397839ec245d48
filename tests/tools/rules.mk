# SPDX-License-Identifier: GPL-2.0
# FXT checker used by tests/system/030-export-fxt.sh (built with `make userspace`).
$(B)/tests/fxt_dump: $(B)/tests/tools/fxt_dump.o $(B)/tests/lib/fxt_decode.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

$(B)/tests/tools/%.o: tests/tools/%.c $(B)/ext/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/lib $(CFLAGS) -MMD -MP -c -o $@ $<

userspace: $(B)/tests/fxt_dump

-include $(B)/tests/tools/fxt_dump.d
