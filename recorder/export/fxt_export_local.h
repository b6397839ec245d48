/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the trace.dat -> FXT exporter, shared by its files and nothing else:
 *   fxt_export.c  the entry point: the pass, then the archive (prologue + events);
 *   fxt_input.c   reading: the time-ordered merge of the CPUs through libtracecmd,
 *                 reopening the input to bound libtracecmd's memory;
 *   fxt_fields.c  reading fields checked against the record, the kind of each event;
 *   fxt_map.c     what each trace event becomes in FXT, lost-event repairs;
 *   fxt_tasks.c   the thread table: tids, tgids, names.
 * Functions here use the exp_ prefix: global, but not part of fxt_export.h.
 */
#ifndef REC_FXT_EXPORT_LOCAL_H
#define REC_FXT_EXPORT_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include <trace-cmd/trace-cmd.h>

#include "format/fxt_writer.h"
#include "fxt_export.h"

/*
 * Exported by libtracecmd 1.3.1 but declared only in trace-cmd-private.h, which Debian
 * does not install: the trace clock saved in the file ("local", "x86-tsc"...), the uname
 * of the traced system, and positioning a CPU's iterator near a time.
 */
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
int tracecmd_set_cpu_to_timestamp(struct tracecmd_input *handle, int cpu,
				  unsigned long long ts);

#define CLONE_THREAD_FLAG	0x00010000	/* include/uapi/linux/sched.h CLONE_THREAD */
#define IRQ_STACK_MAX		8
#define TEXT_MAX		4096		/* longest marker text exported */

enum kind {
	K_OTHER = 0,	/* generic instant */
	K_SWITCH,
	K_WAKEUP,
	K_IRQ_ENTRY,
	K_IRQ_EXIT,
	K_SOFTIRQ_ENTRY,
	K_SOFTIRQ_EXIT,
	K_SYS_ENTER,	/* raw_syscalls: field "id" */
	K_SYS_EXIT,
	K_SYSCALL_ENTER, /* syscalls/sys_enter_NAME: field "__syscall_nr" */
	K_SYSCALL_EXIT,
	K_MARKER,	/* ftrace/print, ftring/marker */
	K_NEWTASK,	/* task/task_newtask: learns tgids from CLONE_THREAD */
	K_RENAME,	/* task/task_rename */
	K_FORK,		/* sched/sched_process_fork */
	K_FXT,		/* ftring/fxt: FXT records written by user space (see kind_of) */
	K_SKIP,
};

struct evinfo {
	struct tep_event	*ev;
	enum kind		kind;
	struct tep_format_field	*f[8];
	char			*name;		/* instant/slice name (syscall name) */
};

/* Field slots of sched_switch. */
enum {
	F_PREV_PID, F_PREV_STATE, F_NEXT_PID, F_PREV_PRIO, F_NEXT_PRIO, F_PREV_COMM, F_NEXT_COMM
};

struct task {
	int		tid;		/* -1: free slot */
	int		tgid;
	int		on_cpu;		/* CPU it is running on as far as we know, or -1 */
	int		in_syscall;	/* an open syscall slice */
	int		prio;		/* at its last switch-in: weight of repaired switch-outs */
	unsigned int	frozen:1;	/* its pid was used in an event: tgid fixed */
	unsigned int	named:1;
	char		comm[17];
};

struct cpu_state {
	int		curr;		/* running tid, -1 unknown */
	uint64_t	last_ts;
	uint64_t	last_off;	/* file offset of its last record read, for reopening */
	int		seen;		/* a record of this CPU was read */
	int		depth;		/* open irq/softirq slices */
	unsigned char	stack[IRQ_STACK_MAX];	/* K_IRQ_ENTRY / K_SOFTIRQ_ENTRY */
};

struct exporter {
	struct tracecmd_input	*in;
	struct tep_handle	*tep;
	struct fxtw		*w;
	const struct fxt_export_opts *opts;
	struct fxt_export_stats	*st;
	int			ncpus;
	struct cpu_state	*cpu;
	struct evinfo		**evs;		/* by event id */
	int			max_id;
	struct tep_format_field	*f_type;	/* common_type and common_pid, read */
	struct tep_format_field	*f_pid;		/* checked against each record */
	struct task		*tasks;		/* open addressing by tid */
	size_t			ntasks, cap;
	struct { uint64_t value; char letter; } state_flags[16];
	int			nstate_flags;
	uint64_t		last_ts;
	uint64_t		bytes_since_open;	/* record bytes read from this handle */
	uint64_t		reopen_bytes;
	char			machine[65];	/* traced system's uname -m, for syscall names */
	int			reopen;		/* on_record stopped the pass to reopen */
	int			failed;
};
/* fxt_export.c: frees what an exporter holds (not @x itself) */
void exp_free(struct exporter *x);

/* fxt_tasks.c */
struct task *exp_task_get(struct exporter *x, int tid);	/* created if new */
struct task *exp_task_find(struct exporter *x, int tid);	/* NULL if unknown */
void exp_task_set_comm(struct task *t, const char *comm, size_t max);
/* FXT process and thread koids of @tid (on @cpu, for the idle task). */
void exp_thread_of(struct exporter *x, int tid, int cpu, uint64_t *pid, uint64_t *koid);
const char *exp_process_name(struct exporter *x, int tgid);

/* fxt_input.c */
int exp_check_input(const char *path);
void exp_find_machine(struct exporter *x);
/* One pass over @path in time order, each record to exp_on_record(). 0 or -1. */
int exp_merge_pass(struct exporter *x, const char *path);

/* fxt_fields.c */
/* The event table, the CPUs' state and the common fields, once the input is open. */
int exp_map_init(struct exporter *x);
/* The common fields again, from a new handle's event formats (after a reopen). */
int exp_map_bind(struct exporter *x);
void exp_load_state_flags(struct exporter *x, struct tep_event *ev);
/*
 * Bytes of field @f inside record @r (fixed, __data_loc or __rel_loc), or NULL when
 * they are not all inside the record; *@len = their count.
 */
const uint8_t *exp_field_bytes(const struct tep_format_field *f, const struct tep_record *r,
			       size_t *len);
/* A numeric field (sign-extended per its type), @dflt when absent or unreadable. */
int64_t exp_num(struct tep_format_field *f, struct tep_record *r, int64_t dflt);
/* A string field's bytes up to its NUL or end, *@len long; NULL when unreadable. */
const char *exp_str_field(struct tep_format_field *f, struct tep_record *r, size_t *len);
/* The record's event type and writer pid from the common fields; -1 / 0 unreadable. */
int exp_rec_type(struct exporter *x, struct tep_record *r);
int exp_rec_pid(struct exporter *x, struct tep_record *r);
/* Event @id's kind and field slots, classified on first use; NULL for a bad id. */
struct evinfo *exp_evinfo(struct exporter *x, int id);
/* FXT thread state of sched_switch's prev_state, by the file's own state letters. */
unsigned int exp_fxt_state(struct exporter *x, int64_t prev_state);

/* fxt_map.c */
int exp_on_record(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data);
/* Ends every open slice and switch at the end of the pass. */
void exp_close_all(struct exporter *x);

#endif /* REC_FXT_EXPORT_LOCAL_H */
