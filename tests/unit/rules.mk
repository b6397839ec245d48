# SPDX-License-Identifier: GPL-2.0
# test_v7_writer simulates power cuts: the writer's file updates are recorded through
# these wrappers (test_v7_writer.c, "Power cut simulation").
$(B)/tests/test_v7_writer: LDFLAGS += -Wl,--wrap=pwrite,--wrap=fdatasync,--wrap=ftruncate,--wrap=fallocate
# test_capture_pump drives the pump with a scripted capture and records its parks.
$(B)/tests/test_capture_pump: LDFLAGS += -Wl,--wrap=capture_service,--wrap=capture_status \
	-Wl,--wrap=capture_fds,--wrap=loop_set_timer,--wrap=loop_add_timer
# test_capture_rotate fails the capture's source on demand.
$(B)/tests/test_capture_rotate: LDFLAGS += -Wl,--wrap=source_find,--wrap=meta_collect_since \
	-Wl,--wrap=fdatasync
# test_recover cuts the rebuild's read of the streams short.
$(B)/tests/test_recover: LDFLAGS += -Wl,--wrap=v7d_stream,--wrap=open
# test_lastboot reads its image from a file, not the module's device.
$(B)/tests/test_lastboot: LDFLAGS += -Wl,--wrap=open
# test_source_splice has the file refuse a flush's page, or take half a page.
$(B)/tests/test_source_splice: LDFLAGS += -Wl,--wrap=pwrite,--wrap=splice
# test_mmap_ring plays a kernel whose writer grows the page at each GET_READER.
$(B)/tests/test_mmap_ring: LDFLAGS += -Wl,--wrap=ioctl
# test_loop once more with ASan: a handler that grows the slot array moves it, and the
# loop must not go on reading the old one (a use after free no plain build shows).
$(B)/asan/%.o: %.c $(B)/ext/kselftest_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=address -fno-omit-frame-pointer -MMD -MP -c -o $@ $<
$(B)/tests/test_loop_asan: $(B)/asan/tests/unit/test_loop.o $(B)/asan/recorder/capture/loop.o \
	$(B)/asan/recorder/util/log.o
	$(CC) $(LDFLAGS) -fsanitize=address -o $@ $^ $(LDLIBS)
userspace: $(B)/tests/test_loop_asan
-include $(B)/asan/tests/unit/test_loop.d $(B)/asan/recorder/capture/loop.d $(B)/asan/recorder/util/log.d

# The order of a cross-filesystem move: the new name's directory synced before the
# source goes (test_fileio.c).
$(B)/tests/test_fileio: LDFLAGS += -Wl,--wrap=fsync,--wrap=unlink
