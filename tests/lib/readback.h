/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper: read a trace.dat back through libtracecmd (the reader trace-cmd
 * report and KernelShark use) and summarise it: records per event and per CPU,
 * ftrace/print texts in order per CPU, missed events.
 */
#ifndef TEST_READBACK_H
#define TEST_READBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_MAX_CPUS	256

struct rb_count {
	char		name[128];	/* "system/event" */
	uint64_t	count;
};

struct rb_summary {
	int		ncpus;			/* CPUs the file declares */
	uint64_t	total;			/* records */
	uint64_t	per_cpu[RB_MAX_CPUS];
	struct rb_count	*events;
	int		nr_events;
	char		**markers[RB_MAX_CPUS];	/* ftrace/print "buf" texts per CPU */
	size_t		nr_markers[RB_MAX_CPUS];
	size_t		cap_markers[RB_MAX_CPUS];
	uint64_t	missed;			/* sum of known missed counts */
	uint64_t	missed_unknown;		/* records after a loss of unknown size */
	uint64_t	missed_pages;		/* records with missed_events != 0 */
	bool		ts_ordered;		/* timestamps never go back within a CPU */
	uint64_t	first_ts;
	uint64_t	last_ts;
};

/* One record as libtracecmd returns it, payload copied. */
struct rb_record {
	uint64_t	ts;
	int		cpu;
	int		type;		/* common_type */
	int		size;
	long long	missed;
	unsigned char	*data;
};

/* Reads @path; 0 or -errno (-EIO when libtracecmd refuses the file). */
int rb_summarize(const char *path, struct rb_summary *s);
/* Records of event "system/name", 0 if none. */
uint64_t rb_count(const struct rb_summary *s, const char *name);
void rb_summary_free(struct rb_summary *s);

/* All records of every CPU, CPU by CPU in file order. */
int rb_records(const char *path, struct rb_record **recs, size_t *n);
void rb_records_free(struct rb_record *recs, size_t n);

/* Directory of the shared fixtures/docs: $FTRING_SHARED, else <top>/../shared. */
const char *rb_shared_dir(void);

/* Runs @cmd through the shell; its stdout (malloc'd, NUL-terminated) or NULL. */
char *rb_run(const char *cmd, int *status);

#endif /* TEST_READBACK_H */
