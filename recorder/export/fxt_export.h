/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recorder/export/fxt_export.h - trace.dat (any version libtracecmd reads) to FXT for Perfetto.
 */
#ifndef REC_FXT_EXPORT_H
#define REC_FXT_EXPORT_H

#include <stdint.h>

/* Pseudo koids: above Linux pid_max (2^22), below 2^32 (Perfetto casts koids to u32). */
#define FXT_KOID_CPU_BASE	0x71000000u	/* "cpu-N" threads carrying irq/softirq slices */
#define FXT_KOID_LOST		0x70000000u	/* "lost events" thread */
#define FXT_PROVIDER_ID		1
#define FXT_PROVIDER_NAME	"recorderd"

struct fxt_export_opts {
	uint64_t	ticks_per_second;	/* 0: derived from the file's trace clock */
	unsigned int	max_strings;		/* 0: 32767; tests shrink it to exercise reuse */
	unsigned int	max_threads;		/* 0: 255 */
	int		no_generic;		/* do not export unmapped events as instants */
	uint64_t	reopen_bytes;		/* 0: 16 MiB; see reopen() in fxt_export.c */
};

struct fxt_export_stats {
	uint64_t	records_in;		/* trace.dat records read */
	uint64_t	switches, wakeups, markers, irqs, softirqs, syscalls, generic;
	uint64_t	fxt_passthrough;	/* FXT records carried by module events */
	uint64_t	lost_ranges;		/* lost-event notices turned into instants */
	uint64_t	repaired;		/* synthetic switch-outs/slice ends (lost events) */
	uint64_t	dropped;		/* ends without a begin, invalid FXT payloads */
	uint64_t	threads, processes;
	uint64_t	bytes_out;
	uint64_t	ticks_per_second;
};

int fxt_export(const char *in_path, const char *out_path, const struct fxt_export_opts *opts,
	       struct fxt_export_stats *stats);

#endif /* REC_FXT_EXPORT_H */
