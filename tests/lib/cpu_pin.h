/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper: keep the calling thread on the CPU it runs on, so that threads it starts
 * (which inherit the affinity) share that CPU with it: idle-priority workers then get
 * next to no CPU while the test thread is busy.
 */
#ifndef TESTS_CPU_PIN_H
#define TESTS_CPU_PIN_H

#include <sched.h>

/* Pins the caller to its current CPU; *@old receives the affinity to restore. */
static inline int cpu_pin_here(cpu_set_t *old)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	if (cpu < 0 || sched_getaffinity(0, sizeof(*old), old))
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

#endif /* TESTS_CPU_PIN_H */
