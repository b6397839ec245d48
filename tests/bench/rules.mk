# SPDX-License-Identifier: GPL-2.0
# The v7 writer benchmark (never a pass/fail test): build/bench/writer_bench.
BENCH_WRITER_OBJ := $(LIB_OBJ)

$(B)/bench/writer_bench: $(B)/tests/bench/writer_bench.o $(BENCH_WRITER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tests/bench/%.o: tests/bench/%.c $(B)/ext/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

userspace: $(B)/bench/writer_bench

-include $(B)/tests/bench/writer_bench.d

# record_bench.sh's load generators (H2).
$(B)/bench/loadgen: $(B)/tests/bench/loadgen.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread

userspace: $(B)/bench/loadgen

-include $(B)/tests/bench/loadgen.d

# insn_profile's qemu plugin (tests/bench/insn_profile.c): a shared object qemu loads.
$(B)/bench/insn_profile.so: tests/bench/insn_profile.c tests/bench/qemu_plugin_v1.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -fPIC -fvisibility=hidden -o $@ $< -lpthread

userspace: $(B)/bench/insn_profile.so
