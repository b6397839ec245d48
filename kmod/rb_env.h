/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the ring-buffer files (rb_*.c/h) need from their host.
 *
 * In the kernel: the kernel headers. In user space (tests/kmod-user): a shim with
 * the same names (local_t, barriers, WARN_ONCE, per-CPU emulation), so the SAME
 * ring-buffer sources are stress-tested with threads and signal-handler writers.
 */
#ifndef FTRING_RB_ENV_H
#define FTRING_RB_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/bug.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/irq_work.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>
#include <linux/trace_clock.h>
#include <linux/preempt.h>
#include <asm/local.h>
/* 0 task, 1 softirq, 2 hardirq, 3 NMI: the writer's context (recursion guard) */
#define RB_CTX_LEVEL()		interrupt_context_level()
/* where the user-space stress test interrupts a page switch; nothing here */
#define RB_TEST_POINT(buf)	do { } while (0)
/*
 * What a page switch's wait for a remote swap is timed with: sched_clock(), which
 * runs with interrupts off (local_clock() may stand still until the next tick).
 */
#define rb_wait_clock()		trace_clock_local()
/*
 * Pages are written in the little-endian ftrace layout (common/ftrace_page.h:
 * type_len in the low 5 bits of the event header, little-endian words) that every
 * reader of ftring's pages expects. A big-endian kernel would write pages no reader
 * decodes: refuse to build rather than record garbage.
 */
#ifdef CONFIG_CPU_BIG_ENDIAN
#error "ftring: big-endian kernels are not supported (pages are little-endian ftrace pages)"
#endif
#else
#include "rb_shim.h"
#endif

#endif /* FTRING_RB_ENV_H */
