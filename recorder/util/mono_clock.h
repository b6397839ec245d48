/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CLOCK_MONOTONIC readings for timeouts, ticks, durations and uptime: one clock
 * that wall-clock changes never move, read in one place.
 */
#ifndef REC_MONO_CLOCK_H
#define REC_MONO_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mono_ms(void)
{
	return mono_ns() / 1000000;
}

static inline time_t mono_s(void)
{
	return (time_t)(mono_ns() / 1000000000);
}

#endif /* REC_MONO_CLOCK_H */
