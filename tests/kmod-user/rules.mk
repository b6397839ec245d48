# SPDX-License-Identifier: GPL-2.0
# User-space build of the module's ring buffer (the same kmod/rb_*.c files) against
# tests/kmod-user/rb_shim.h, stress-tested by test_rb_stress (threads + signal writers).
KU_SRC  := kmod/rb_write.c kmod/rb_read.c kmod/rb_alloc.c tests/kmod-user/test_rb_stress.c
KU_OBJ  := $(KU_SRC:%.c=$(B)/kmod-user/%.o)
KU_FLAGS := -Itests/kmod-user -Ikmod -Icommon -I$(B)/ext \
	    $(shell pkg-config --cflags libtraceevent 2>/dev/null) -D_GNU_SOURCE

userspace: $(B)/tests/test_rb_stress

$(B)/kmod-user/%.o: %.c $(B)/ext/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(KU_FLAGS) $(CFLAGS) -fno-strict-aliasing -MMD -MP -c -o $@ $<

$(B)/tests/test_rb_stress: $(KU_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs libtraceevent 2>/dev/null) -lpthread -lrt

-include $(KU_OBJ:.o=.d)
