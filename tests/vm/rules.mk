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

# ftring_squat.ko (tests/vm/squat/) for the x86 guests' kernels, 6.1 and 6.12, each
# built in a copy under build/ (the source tree stays clean): it makes a load of
# ftring fail after the persistent region was read (tests/vm/guest/persist.sh).
SQUAT_SRC := tests/vm/squat/ftring_squat.c tests/vm/squat/Kbuild
vm-squat:
	@if [ -d "$(KDIR)" ]; then \
		install -p -D -t $(B)/vm/squat $(SQUAT_SRC) && \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/$(B)/vm/squat modules; \
	fi
	@if [ -d "$(KDIR612)" ]; then \
		install -p -D -t $(K612)/squat $(SQUAT_SRC) && \
		$(MAKE) -C $(KDIR612) M=$(CURDIR)/$(K612)/squat modules; \
	fi
.PHONY: vm-squat
