# SPDX-License-Identifier: GPL-2.0
# test_v7_writer simulates power cuts: the writer's file updates are recorded through
# these wrappers (test_v7_writer.c, "Power cut simulation").
$(B)/tests/test_v7_writer: LDFLAGS += -Wl,--wrap=pwrite,--wrap=fdatasync,--wrap=ftruncate,--wrap=fallocate
