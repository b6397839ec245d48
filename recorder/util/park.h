/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How long a reader takes a CPU's wake-up fd out of its poll set after a wake-up
 * that moved nothing: readiness can stay stale (a partial page below the watermark,
 * no room to take the pages), and a level-triggered fd would then wake the reader in
 * a loop. 1 ms after the first empty wake-up, doubling with each one in a row, at
 * most PARK_MAX_MS: an fd whose readiness stays stale wakes the reader at most 100
 * times a second (once its parks reach the cap; the earliest park of a reader's fds
 * ends them all), while a wake-up another path had just served (the tick's or a
 * sync's drain, the usual case) blinds the reader for 1 ms, not 10. At 320 k
 * markers/s a 256 KiB ring fills in 10 ms: in a 1-vCPU guest the flat 10 ms lost
 * 230-500 events of 160 000 a run. For a ring's own fd (capture_pump.c). Where drain
 * threads read the rings (from 4 CPUs up) their fds, and the page pump's fds of
 * their queues, keep a flat PARK_MAX_MS: in the 16-vCPU flood (one host thread for
 * all vCPUs) the back-off there lost 45 000-82 000 of 320 000 events with the kmod
 * source in six runs, the flat park 0-74 000 in four (drain_threads.c).
 */
#ifndef REC_PARK_H
#define REC_PARK_H

#define PARK_MAX_MS	10

/* The park for an empty wake-up, @empties of them in a row before it (updated). */
static inline unsigned int park_ms(unsigned int *empties)
{
	unsigned int ms = 1U << (*empties < 4 ? *empties : 4);

	if (*empties < 4)
		(*empties)++;
	return ms < PARK_MAX_MS ? ms : PARK_MAX_MS;
}

#endif /* REC_PARK_H */
