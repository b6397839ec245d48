/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flight recorder of the daemon (mode = flight) on a tracefs source: tracing runs in
 * overwrite mode and nothing reads the buffer until a snapshot drains it, through a
 * source opened for the drain only, into a trace.dat of its own. Tracing is never
 * turned off, so snapshots follow each other with no hole and no restart.
 */
#ifndef REC_SNAPSHOT_H
#define REC_SNAPSHOT_H

#include <stdint.h>

#include "config.h"
#include "source/source.h"

struct flight;

/**
 * flight_start() - set tracing up in overwrite mode and turn it on
 * @c:		configuration (source, instance, events, buffer_kb, clock)
 * @take_over:	@c's instance was left tracing by a daemon that died: keep what its
 *		ring holds (not cleared) and remove it at flight_stop()
 * @err:	-errno on failure; -EOPNOTSUPP when the source is not a tracefs one
 *		(the module): the caller then uses the capture core instead
 *
 * Return: the flight recorder, or NULL.
 */
struct flight *flight_start(const struct rec_config *c, int take_over, int *err);

/**
 * flight_snapshot() - write the newest ring-size of events into a new trace.dat
 * @f:		flight recorder
 * @path:	file to create (must not exist)
 * @c:		configuration (compression, chunk and region sizes)
 * @raw:	page bytes written
 * @file:	file bytes
 *
 * Reads at most one buffer's worth of pages per CPU (the producer keeps writing), so a
 * flood cannot keep it going, adds them to what earlier snapshots read, and writes the
 * newest ring-size of them. Return: 0 or -errno (the partial file is removed).
 */
int flight_snapshot(struct flight *f, const char *path, const struct rec_config *c,
		    uint64_t *raw, uint64_t *file);

/**
 * flight_room() - whether @dir has room for the largest snapshot
 * @f:		flight recorder
 * @dir:	where it would go
 *
 * Every CPU's ring full and incompressible, and the file's metadata. Taken before a
 * snapshot that must not fail once it has read the ring (the last one, at stop: what
 * it read would be lost with the daemon, where unread it stays in the instance).
 * Return: 0, or -ENOSPC (said in the log).
 */
int flight_room(struct flight *f, const char *dir);

/* Kernel counters of @cpu (entries, overrun, lost). 0 or -errno. */
int flight_cpu_stats(struct flight *f, int cpu, struct source_cpu_stats *st);
int flight_ncpus(const struct flight *f);
const char *flight_source_name(const struct flight *f);

/*
 * Tracing off, and the instance left with what its ring holds: flight_stop() then
 * neither restores nor removes it. 0, or -errno when tracing could not be turned off
 * (the instance is kept all the same).
 */
int flight_keep(struct flight *f);

/* Restores every tracing setting flight_start() changed, and frees. Accepts NULL. */
void flight_stop(struct flight *f);

#endif /* REC_SNAPSHOT_H */
