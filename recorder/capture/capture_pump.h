/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Drives a capture (capture.h) from an event loop (loop.h): watches each CPU's wake-up
 * fd and services the CPU that woke; an fd whose wake-up had nothing whole to move (a
 * page still being written, or a wake-up the tick had already served) is parked for a
 * while (util/park.h: 1 ms, doubling while it stays empty), since a level-triggered
 * wake-up would spin; each tick un-parks and services every CPU. The one page pump of
 * `recorderd record` and the daemon.
 */
#ifndef REC_CAPTURE_PUMP_H
#define REC_CAPTURE_PUMP_H

#include "capture.h"
#include "loop.h"

struct capture_pump;

/*
 * Called with capture_service()'s -errno. It may stop the pump (and the capture):
 * the pump touches nothing of its own after the call.
 */
typedef void (*capture_pump_fail_fn)(void *arg, long err);

/* Starts watching @c's fds in @l. NULL with errno on failure. */
struct capture_pump *capture_pump_start(struct loop *l, struct capture *c,
					capture_pump_fail_fn fail, void *arg);

/*
 * The periodic run: un-parks every fd, services every CPU (and syncs when due).
 * Return: the period the caller's timer should have from now on: the capture's period,
 * or, once a second of ticks found nothing to move and nothing to sync while every CPU
 * has a wake-up fd, the time to the next sync (an idle recorder then wakes once per
 * sync_ms, and that wake-up writes nothing; a wake-up fd brings data in meanwhile).
 */
unsigned int capture_pump_tick(struct capture_pump *p);

/* Stops watching and frees. Accepts NULL. */
void capture_pump_stop(struct capture_pump *p);

#endif /* REC_CAPTURE_PUMP_H */
