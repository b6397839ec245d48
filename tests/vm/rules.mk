# SPDX-License-Identifier: GPL-2.0
# Programs that run inside the qemu guest (tests/vm/run puts every build/vm/progs/* in
# the guest's PATH): the ftring kselftests, load generators and the VM benchmark.
VM_PROG_SRC := $(wildcard tests/vm/progs/*.c) tests/bench/vm_pingpong.c \
	       tests/bench/vm_load.c
VM_PROGS    := $(patsubst %.c,$(B)/vm/progs/%,$(notdir $(wildcard $(VM_PROG_SRC))))

userspace: $(VM_PROGS)
vm-progs: $(VM_PROGS)
.PHONY: vm-progs

$(B)/vm/progs/%: tests/vm/progs/%.c $(B)/ext/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/vm/progs $(CFLAGS) -Wno-sign-compare -MMD -MP -o $@ $< -lpthread

$(B)/vm/progs/%: tests/bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -o $@ $< -lpthread

-include $(VM_PROGS:%=%.d)
