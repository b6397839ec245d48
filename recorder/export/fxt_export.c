// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/fxt_export.c - trace.dat -> FXT, for the Perfetto UI.
 *
 * One streaming pass over the records in global timestamp order (a merge of the per-CPU
 * streams libtracecmd reads; memory: one record per CPU, one entry per thread seen, and
 * libtracecmd's own buffers, bounded by reopen()). Lost-event damage is repaired so that
 * Perfetto never gets an overwritten or unterminated slice (dur = -1): switch-outs that
 * were lost are written as switches to idle marked "synthetic", exits without entries are
 * dropped, entries without exits are ended, and everything open is closed at the end.
 * Mapping (shared docs/fxt-perfetto.md section 3.4 explains why):
 *   sched_switch            -> context switch record (subtype 1), int32 weights = prio,
 *                              INT32_MIN for the idle task (pid 0)
 *   sched_wakeup[_new]      -> thread wakeup record (subtype 2) with a koid "waker"
 *   irq / softirq           -> duration begin/end on the per-CPU thread "cpu-N"
 *   raw_syscalls, syscalls  -> duration begin/end on the calling thread
 *   ftrace/print, ftring/marker -> instant event, the text as string argument "text"
 *   lost events             -> instant event on the "lost events" thread
 *   anything else           -> instant event named after the event, fields as arguments
 * Thread and process names are kernel-object records, which Perfetto applies when it
 * tokenizes, before the sorted events: they must come first in the file, yet they are
 * only known after the pass. So the events go to a temporary file and the archive is
 * written as: magic, provider, init, kernel objects, then the events copied in.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "fxt.h"
#include "fxt_validate.h"
#include "fxt_export.h"
#include "format/fxt_writer.h"
#include "util/log.h"
#include "syscall_names.h"

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

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
	"HRTIMER", "RCU",	/* include/linux/interrupt.h softirq_to_name */
};

/* ---- tasks ---------------------------------------------------------------------- */

static struct task *task_get(struct exporter *x, int tid)
{
	size_t i;

	if (x->ntasks * 2 >= x->cap) {
		size_t ncap = x->cap ? x->cap * 2 : 1024;
		struct task *nt = malloc(ncap * sizeof(*nt));

		if (!nt) {
			x->failed = -ENOMEM;
			return NULL;
		}
		for (i = 0; i < ncap; i++)
			nt[i].tid = -1;
		for (i = 0; i < x->cap; i++) {
			size_t j;

			if (x->tasks[i].tid < 0)
				continue;
			j = ((unsigned int)x->tasks[i].tid * 2654435761u) & (ncap - 1);
			while (nt[j].tid >= 0)
				j = (j + 1) & (ncap - 1);
			nt[j] = x->tasks[i];
		}
		free(x->tasks);
		x->tasks = nt;
		x->cap = ncap;
	}
	i = ((unsigned int)tid * 2654435761u) & (x->cap - 1);
	while (x->tasks[i].tid >= 0 && x->tasks[i].tid != tid)
		i = (i + 1) & (x->cap - 1);
	if (x->tasks[i].tid < 0) {
		memset(&x->tasks[i], 0, sizeof(x->tasks[i]));
		x->tasks[i].tid = tid;
		x->tasks[i].tgid = tid;
		x->tasks[i].on_cpu = -1;
		x->ntasks++;
	}
	return &x->tasks[i];
}

static struct task *task_find(struct exporter *x, int tid)
{
	size_t i;

	if (!x->cap)
		return NULL;
	i = ((unsigned int)tid * 2654435761u) & (x->cap - 1);
	while (x->tasks[i].tid >= 0 && x->tasks[i].tid != tid)
		i = (i + 1) & (x->cap - 1);
	return x->tasks[i].tid == tid ? &x->tasks[i] : NULL;
}

static void task_set_comm(struct task *t, const char *comm, size_t max)
{
	size_t n = strnlen(comm, max < 16 ? max : 16);

	if (!n)
		return;
	memcpy(t->comm, comm, n);
	t->comm[n] = 0;
	t->named = 1;
}

/* The (pid, tid) an event of @tid is drawn on; pid 0 goes to the CPU's thread. */
static void thread_of(struct exporter *x, int tid, int cpu, uint64_t *pid, uint64_t *koid)
{
	struct task *t;

	if (tid <= 0) {
		*pid = 0;
		*koid = FXT_KOID_CPU_BASE + (unsigned int)cpu;
		return;
	}
	t = task_get(x, tid);
	if (!t) {
		*pid = *koid = (uint64_t)tid;
		return;
	}
	t->frozen = 1;
	*pid = (uint64_t)t->tgid;
	*koid = (uint64_t)tid;
}

/* ---- fields --------------------------------------------------------------------- */

static int64_t num(struct tep_format_field *f, struct tep_record *r, int64_t dflt)
{
	unsigned long long v;

	if (!f || tep_read_number_field(f, r->data, &v))
		return dflt;
	/* sign-extend signed fields narrower than 64 bits */
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8) {
		unsigned int sh = 64 - 8 * f->size;

		return (int64_t)(v << sh) >> sh;
	}
	return (int64_t)v;
}

/* Bytes of a string field: fixed char array, __data_loc or trailing char buf[]. */
static const char *str_field(struct tep_format_field *f, struct tep_record *r, size_t *len)
{
	const char *p;
	size_t max;

	*len = 0;
	if (!f)
		return NULL;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		int l = 0;

		p = tep_get_field_raw(NULL, f->event, f->name, r, &l, 0);
		max = p && l > 0 ? (size_t)l : 0;
	} else {
		if (f->offset >= r->size)
			return NULL;
		p = (const char *)r->data + f->offset;
		max = f->size > 0 ? (size_t)f->size : (size_t)(r->size - f->offset);
		if (max > (size_t)(r->size - f->offset))
			max = r->size - f->offset;
	}
	if (!p)
		return NULL;
	*len = strnlen(p, max);
	return p;
}

/* Field slots per kind, found by name (layouts differ between kernels). */
static void bind_fields(struct evinfo *e, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		e->f[i] = names[i] ? tep_find_field(e->ev, names[i]) : NULL;
}

static struct tep_format_field *first_string_field(struct tep_event *ev)
{
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if ((f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) ||
		    ((f->flags & TEP_FIELD_IS_ARRAY) && strstr(f->type, "char")))
			return f;
	return NULL;
}

static enum kind kind_of(struct evinfo *e)
{
	static const char *const sw[] = { "prev_pid", "prev_state", "next_pid", "prev_prio",
					  "next_prio", "prev_comm", "next_comm" };
	struct tep_event *ev = e->ev;
	const char *sys = ev->system, *n = ev->name;

	if (!strcmp(n, "sched_switch") && !strcmp(sys, "sched")) {
		bind_fields(e, sw, 7);
		return e->f[F_PREV_PID] && e->f[F_NEXT_PID] ? K_SWITCH : K_OTHER;
	}
	if ((!strcmp(n, "sched_wakeup") || !strcmp(n, "sched_wakeup_new")) &&
	    !strcmp(sys, "sched")) {
		static const char *const wk[] = { "pid", "prio", "target_cpu", "comm" };

		bind_fields(e, wk, 4);
		return e->f[0] ? K_WAKEUP : K_OTHER;
	}
	if (!strcmp(sys, "irq")) {
		static const char *const irq[] = { "irq", "name", "ret" };
		static const char *const sirq[] = { "vec" };

		if (!strcmp(n, "irq_handler_entry") || !strcmp(n, "irq_handler_exit")) {
			bind_fields(e, irq, 3);
			return n[12] == 'e' && n[13] == 'n' ? K_IRQ_ENTRY : K_IRQ_EXIT;
		}
		if (!strcmp(n, "softirq_entry") || !strcmp(n, "softirq_exit")) {
			bind_fields(e, sirq, 1);
			return n[8] == 'e' && n[9] == 'n' ? K_SOFTIRQ_ENTRY : K_SOFTIRQ_EXIT;
		}
	}
	if (!strcmp(sys, "raw_syscalls")) {
		static const char *const sc[] = { "id", "ret" };

		bind_fields(e, sc, 2);
		if (!strcmp(n, "sys_enter"))
			return K_SYS_ENTER;
		if (!strcmp(n, "sys_exit"))
			return K_SYS_EXIT;
	}
	if (!strcmp(sys, "syscalls") && (!strncmp(n, "sys_enter_", 10) ||
					 !strncmp(n, "sys_exit_", 9))) {
		static const char *const sc[] = { "__syscall_nr", "ret" };

		bind_fields(e, sc, 2);
		e->name = strdup(n + (n[4] == 'e' && n[5] == 'n' ? 10 : 9));
		return n[4] == 'e' && n[5] == 'n' ? K_SYSCALL_ENTER : K_SYSCALL_EXIT;
	}
	if ((!strcmp(sys, "ftrace") && !strcmp(n, "print")) ||
	    (!strcmp(sys, "ftring") && !strcmp(n, "marker"))) {
		e->f[0] = tep_find_field(ev, "buf");
		if (!e->f[0])
			e->f[0] = first_string_field(ev);
		return e->f[0] ? K_MARKER : K_OTHER;
	}
	if (!strcmp(sys, "task") && !strcmp(n, "task_newtask")) {
		static const char *const nt[] = { "pid", "clone_flags", "comm" };

		bind_fields(e, nt, 3);
		return e->f[0] && e->f[1] ? K_NEWTASK : K_OTHER;
	}
	if (!strcmp(sys, "task") && !strcmp(n, "task_rename")) {
		static const char *const rn[] = { "pid", "newcomm" };

		bind_fields(e, rn, 2);
		return K_RENAME;
	}
	if (!strcmp(sys, "sched") && !strcmp(n, "sched_process_fork")) {
		static const char *const fk[] = { "child_pid", "child_comm" };

		bind_fields(e, fk, 2);
		return e->f[0] ? K_FORK : K_OTHER;
	}
	/*
	 * FXT written by user space through the module (/dev/ftring/fxt): the event
	 * ftring/fxt of common/ftring_events.h, whose __data_loc byte array "data" holds
	 * whole FXT event records the module checked with common/fxt_validate.h.
	 */
	if (!strcmp(sys, "ftring") && !strcmp(n, "fxt")) {
		e->f[0] = tep_find_field(ev, "data");
		return e->f[0] ? K_FXT : K_SKIP;
	}
	return K_OTHER;
}

static struct evinfo *evinfo(struct exporter *x, int id)
{
	struct evinfo *e;

	if (id < 0 || id > x->max_id)
		return NULL;
	if (x->evs[id])
		return x->evs[id];
	e = calloc(1, sizeof(*e));
	if (!e) {
		x->failed = -ENOMEM;
		return NULL;
	}
	e->ev = tep_find_event(x->tep, id);
	e->kind = e->ev ? kind_of(e) : K_SKIP;
	x->evs[id] = e;
	return e;
}

/*
 * Letters of sched_switch's prev_state, read from the __print_flags() table of the event's
 * own print fmt: the bit values moved between kernel versions (TASK_REPORT).
 */
static int find_state_flags(struct exporter *x, struct tep_print_arg *a)
{
	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_FLAGS:
			for (struct tep_print_flag_sym *s = a->flags.flags;
			     s && x->nstate_flags < 16; s = s->next) {
				x->state_flags[x->nstate_flags].value = strtoull(s->value, NULL, 0);
				x->state_flags[x->nstate_flags++].letter = s->str[0];
			}
			return x->nstate_flags > 0;
		case TEP_PRINT_OP:
			if (find_state_flags(x, a->op.left) || find_state_flags(x, a->op.right))
				return 1;
			break;
		case TEP_PRINT_TYPE:
			if (find_state_flags(x, a->typecast.item))
				return 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

static void load_state_flags(struct exporter *x, struct tep_event *ev)
{
	static const char letters[] = "SDTtXZPI";	/* Linux >= 4.14 TASK_REPORT order */

	if (ev && find_state_flags(x, ev->print_fmt.args))
		return;
	x->nstate_flags = 0;
	for (int i = 0; letters[i]; i++) {
		x->state_flags[i].value = 1ULL << i;
		x->state_flags[i].letter = letters[i];
		x->nstate_flags++;
	}
}

static unsigned int fxt_state(struct exporter *x, int64_t prev_state)
{
	for (int i = 0; i < x->nstate_flags; i++) {
		if (!(x->state_flags[i].value & (uint64_t)prev_state))
			continue;
		switch (x->state_flags[i].letter) {
		case 'T': case 't':
			return FXT_TS_SUSPENDED;
		case 'Z':
			return FXT_TS_DYING;
		case 'X': case 'x':
			return FXT_TS_DEAD;
		case 'W':
			return FXT_TS_RUNNING;
		default:	/* S, D (FXT has no uninterruptible sleep), P, I, K */
			return FXT_TS_BLOCKED;
		}
	}
	return FXT_TS_RUNNING;	/* "R" / "R+": preempted */
}

/* ---- records ------------------------------------------------------------------- */

static void cswitch(struct exporter *x, uint64_t ts, int cpu, unsigned int state,
		    int out, int32_t out_w, int in, int32_t in_w, int synthetic)
{
	fxtw_args(x->w);
	fxtw_arg_i32(x->w, "incoming_weight", in > 0 ? in_w : FXT_WEIGHT_IDLE);
	fxtw_arg_i32(x->w, "outgoing_weight", out > 0 ? out_w : FXT_WEIGHT_IDLE);
	if (synthetic)
		fxtw_arg_bool(x->w, "synthetic", 1);
	fxtw_cswitch(x->w, ts, (unsigned int)cpu, state, out > 0 ? out : 0, in > 0 ? in : 0);
	if (synthetic)
		x->st->repaired++;
}

/* Switch @tid out of @cpu to idle: its switch-out was lost. */
static void repair_switch_out(struct exporter *x, uint64_t ts, int cpu, int tid)
{
	struct task *t = task_get(x, tid);

	cswitch(x, ts, cpu, FXT_TS_RUNNING, tid, t ? t->prio : 0, 0, 0, 1);
	if (t && t->on_cpu == cpu)
		t->on_cpu = -1;
	x->cpu[cpu].curr = 0;
}

static void repair_elsewhere(struct exporter *x, uint64_t ts, int cpu, int tid)
{
	struct task *t = tid > 0 ? task_get(x, tid) : NULL;
	int other = t ? t->on_cpu : -1;

	if (other >= 0 && other != cpu && x->cpu[other].curr == tid) {
		repair_switch_out(x, ts, other, tid);
		x->cpu[other].curr = -1;	/* who runs there now is unknown */
	}
}

static void do_switch(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	int cpu = r->cpu;
	int prev = (int)num(e->f[F_PREV_PID], r, 0);
	int next = (int)num(e->f[F_NEXT_PID], r, 0);
	struct cpu_state *c = &x->cpu[cpu];
	struct task *t;
	size_t len;
	const char *s;

	/* The previous switch-in on this CPU was not of @prev: its switch-out was lost. */
	if (c->curr > 0 && c->curr != prev)
		repair_switch_out(x, r->ts, cpu, c->curr);
	/*
	 * @prev or @next still runs on another CPU as far as we know: its switch-out there
	 * was lost (Perfetto would close or overwrite the slice it has open there).
	 */
	repair_elsewhere(x, r->ts, cpu, prev);
	repair_elsewhere(x, r->ts, cpu, next);
	cswitch(x, r->ts, cpu, fxt_state(x, num(e->f[F_PREV_STATE], r, 0)),
		prev, (int32_t)num(e->f[F_PREV_PRIO], r, 0),
		next, (int32_t)num(e->f[F_NEXT_PRIO], r, 0), 0);
	x->st->switches++;

	t = prev > 0 ? task_get(x, prev) : NULL;
	if (t) {
		t->on_cpu = -1;
		s = str_field(e->f[F_PREV_COMM], r, &len);
		if (s)
			task_set_comm(t, s, len);
	}
	t = next > 0 ? task_get(x, next) : NULL;
	if (t) {
		t->on_cpu = cpu;
		t->prio = (int)num(e->f[F_NEXT_PRIO], r, 0);
		s = str_field(e->f[F_NEXT_COMM], r, &len);
		if (s)
			task_set_comm(t, s, len);
	}
	c->curr = next;
}

static void do_wakeup(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	int tid = (int)num(e->f[0], r, 0);
	int waker = tep_data_pid(x->tep, r);
	int target = (int)num(e->f[2], r, r->cpu);
	struct task *t;
	size_t len;
	const char *s;

	if (tid <= 0)
		return;
	if (target < 0 || target >= 65536)
		target = r->cpu;
	t = task_get(x, tid);
	s = str_field(e->f[3], r, &len);
	if (t && s)
		task_set_comm(t, s, len);
	fxtw_args(x->w);
	fxtw_arg_i32(x->w, "weight", (int32_t)num(e->f[1], r, 0));
	/* Woken from idle or interrupt context: the waker is the CPU's irq thread. */
	fxtw_arg_koid(x->w, "waker", waker > 0 ? (uint64_t)waker :
		      FXT_KOID_CPU_BASE + (unsigned int)r->cpu);
	fxtw_wakeup(x->w, r->ts, (unsigned int)target, (uint64_t)tid);
	x->st->wakeups++;
}

/*
 * Interrupts are drawn on the CPU's own pseudo thread "cpu-N", not on the interrupted
 * thread: every idle task is pid 0, so interrupts that hit idle CPUs would all land on one
 * "thread 0" track and interleave across CPUs; and a handler is not part of the
 * interrupted task's work (its syscall slices would be split by unrelated handlers).
 */
static void cpu_slice_end(struct exporter *x, uint64_t ts, int cpu)
{
	struct cpu_state *c = &x->cpu[cpu];

	fxtw_args(x->w);
	fxtw_event(x->w, FXT_EV_DURATION_END, ts, 0, FXT_KOID_CPU_BASE + (unsigned int)cpu,
		   c->stack[c->depth - 1] == K_IRQ_ENTRY ? "irq" : "softirq", "", 0, 0);
	c->depth--;
}

static void do_irq(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	struct cpu_state *c = &x->cpu[r->cpu];
	uint64_t koid = FXT_KOID_CPU_BASE + (unsigned int)r->cpu;
	int entry = e->kind == K_IRQ_ENTRY || e->kind == K_SOFTIRQ_ENTRY;
	enum kind open = e->kind == K_IRQ_ENTRY || e->kind == K_IRQ_EXIT ?
			 K_IRQ_ENTRY : K_SOFTIRQ_ENTRY;
	int64_t v = num(e->f[0], r, -1);
	char nbuf[64];
	const char *name;
	size_t len;

	if (!entry) {
		/* An exit without its entry (trace start or lost events) is dropped. */
		if (!c->depth || c->stack[c->depth - 1] != open) {
			x->st->dropped++;
			return;
		}
		cpu_slice_end(x, r->ts, r->cpu);
		return;
	}
	/* Hard irqs do not nest on Linux: an open one lost its exit. */
	while (open == K_IRQ_ENTRY && c->depth && c->stack[c->depth - 1] == K_IRQ_ENTRY) {
		cpu_slice_end(x, r->ts, r->cpu);
		x->st->repaired++;
	}
	if (c->depth == IRQ_STACK_MAX) {
		x->st->dropped++;
		return;
	}
	if (open == K_IRQ_ENTRY) {
		name = str_field(e->f[1], r, &len);
		if (name && len && len < 48)
			snprintf(nbuf, sizeof(nbuf), "irq %lld %.*s", (long long)v, (int)len, name);
		else
			snprintf(nbuf, sizeof(nbuf), "irq %lld", (long long)v);
		x->st->irqs++;
	} else {
		if (v >= 0 && v < (int64_t)(sizeof(softirq_names) / sizeof(softirq_names[0])))
			snprintf(nbuf, sizeof(nbuf), "%s", softirq_names[v]);
		else
			snprintf(nbuf, sizeof(nbuf), "softirq %lld", (long long)v);
		x->st->softirqs++;
	}
	fxtw_args(x->w);
	fxtw_arg_i32(x->w, open == K_IRQ_ENTRY ? "irq" : "vec", (int32_t)v);
	fxtw_event(x->w, FXT_EV_DURATION_BEGIN, r->ts, 0, koid,
		   open == K_IRQ_ENTRY ? "irq" : "softirq", nbuf, 0, 0);
	c->stack[c->depth++] = (unsigned char)open;
}

static void syscall_end(struct exporter *x, uint64_t ts, int tid, int cpu, int has_ret,
			int64_t ret)
{
	uint64_t pid, koid;

	thread_of(x, tid, cpu, &pid, &koid);
	fxtw_args(x->w);
	if (has_ret)
		fxtw_arg_i64(x->w, "ret", ret);
	fxtw_event(x->w, FXT_EV_DURATION_END, ts, pid, koid, "syscall", "", 0, 0);
}

static void do_syscall(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	int tid = tep_data_pid(x->tep, r);
	int entry = e->kind == K_SYS_ENTER || e->kind == K_SYSCALL_ENTER;
	int64_t nr = num(e->f[0], r, -1);
	struct task *t;
	uint64_t pid, koid;
	char nbuf[48];

	if (tid <= 0)
		return;
	t = task_get(x, tid);
	if (!t)
		return;
	if (!entry) {
		if (!t->in_syscall) {
			x->st->dropped++;
			return;
		}
		syscall_end(x, r->ts, tid, r->cpu, 1, num(e->f[1], r, 0));
		t->in_syscall = 0;
		return;
	}
	if (t->in_syscall) {	/* its exit was lost */
		syscall_end(x, r->ts, tid, r->cpu, 0, 0);
		x->st->repaired++;
	}
	if (e->name)
		snprintf(nbuf, sizeof(nbuf), "%s", e->name);
	else if (syscall_name(x->machine, (long)nr))
		snprintf(nbuf, sizeof(nbuf), "%s", syscall_name(x->machine, (long)nr));
	else
		snprintf(nbuf, sizeof(nbuf), "syscall %lld", (long long)nr);
	thread_of(x, tid, r->cpu, &pid, &koid);
	fxtw_args(x->w);
	fxtw_arg_i64(x->w, "nr", nr);
	fxtw_event(x->w, FXT_EV_DURATION_BEGIN, r->ts, pid, koid, "syscall", nbuf, 0, 0);
	t->in_syscall = 1;
	x->st->syscalls++;
}

static void do_marker(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	size_t len;
	const char *s = str_field(e->f[0], r, &len);
	uint64_t pid, koid;

	if (!s)
		len = 0;
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\0'))
		len--;
	if (len > TEXT_MAX)
		len = TEXT_MAX;
	thread_of(x, tep_data_pid(x->tep, r), r->cpu, &pid, &koid);
	fxtw_args(x->w);
	fxtw_arg_str(x->w, "text", s ? s : "", len);
	fxtw_event(x->w, FXT_EV_INSTANT, r->ts, pid, koid, e->ev->system, e->ev->name, 0, 0);
	x->st->markers++;
}

/* Generic instant: the event's own fields (numbers and strings) as arguments. */
static void do_other(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	uint64_t pid, koid;
	unsigned int n = 0;

	thread_of(x, tep_data_pid(x->tep, r), r->cpu, &pid, &koid);
	fxtw_args(x->w);
	for (struct tep_format_field *f = e->ev->format.fields; f && n < FXT_MAX_ARGS;
	     f = f->next) {
		size_t len;
		const char *s;

		if (f->offset + (f->flags & TEP_FIELD_IS_DYNAMIC ? 4 : f->size) > r->size)
			continue;
		if ((f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) ||
		    ((f->flags & TEP_FIELD_IS_ARRAY) && strstr(f->type, "char"))) {
			if (!strstr(f->type, "char"))
				continue;
			s = str_field(f, r, &len);
			if (len > 256)
				len = 256;
			fxtw_arg_str(x->w, f->name, s ? s : "", s ? len : 0);
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			continue;
		} else if (f->size <= 8) {
			if (f->flags & TEP_FIELD_IS_SIGNED)
				fxtw_arg_i64(x->w, f->name, num(f, r, 0));
			else
				fxtw_arg_u64(x->w, f->name, (uint64_t)num(f, r, 0));
		} else {
			continue;
		}
		n++;
	}
	fxtw_event(x->w, FXT_EV_INSTANT, r->ts, pid, koid, e->ev->system, e->ev->name, 0, 0);
	x->st->generic++;
}

/*
 * FXT records from user space: checked again (the file may come from an older module or
 * be damaged), re-stamped with the ring buffer's time so the archive stays in time order
 * (the end word of a complete event keeps its distance), and attributed to the writer
 * when they leave the thread words zero.
 */
static void do_fxt(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	int l = 0;
	unsigned char *p = tep_get_field_raw(NULL, e->ev, e->f[0]->name, r, &l, 0);
	uint64_t buf[512];
	unsigned int off = 0;
	uint64_t pid, koid;

	if (!p || l <= 0 || (size_t)l > sizeof(buf) ||
	    fxt_validate(memcpy(buf, p, l), (unsigned long)l, NULL)) {
		x->st->dropped++;
		return;
	}
	thread_of(x, tep_data_pid(x->tep, r), r->cpu, &pid, &koid);
	while (off < (unsigned int)l / 8) {
		uint64_t *rec = buf + off;
		unsigned int words = fxt_hdr_words(rec[0]);
		unsigned int evtype = (unsigned int)fxt_get(rec[0], 16, 4);
		int64_t delta = (int64_t)(r->ts - rec[1]);

		rec[1] = r->ts;
		if (!rec[2] && !rec[3]) {
			rec[2] = pid;
			rec[3] = koid;
		}
		if (evtype == FXT_EV_DURATION_COMPLETE)
			rec[words - 1] += (uint64_t)delta;
		fxtw_raw(x->w, rec, (size_t)words * 8);
		off += words;
		x->st->fxt_passthrough++;
	}
}

static void do_task_info(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	int tid = (int)num(e->f[0], r, 0);
	struct task *t, *parent;
	size_t len;
	const char *s;

	t = tid > 0 ? task_get(x, tid) : NULL;
	if (!t)
		return;
	s = str_field(e->f[e->kind == K_NEWTASK ? 2 : 1], r, &len);
	if (s)
		task_set_comm(t, s, len);
	if (e->kind == K_NEWTASK && !t->frozen &&
	    (num(e->f[1], r, 0) & CLONE_THREAD_FLAG)) {
		int creator = tep_data_pid(x->tep, r);

		parent = creator > 0 ? task_get(x, creator) : NULL;
		t = task_get(x, tid);	/* the table may have moved */
		if (parent && t)
			t->tgid = parent->tgid;
	}
}

static void lost_events(struct exporter *x, struct tep_record *r)
{
	struct cpu_state *c = &x->cpu[r->cpu];

	/* Slices open on this CPU may have lost their end: close them here. */
	while (c->depth) {
		cpu_slice_end(x, r->ts, r->cpu);
		x->st->repaired++;
	}
	fxtw_args(x->w);
	fxtw_arg_u32(x->w, "cpu", (uint32_t)r->cpu);
	fxtw_arg_i64(x->w, "count", r->missed_events > 0 ? r->missed_events : -1);
	fxtw_arg_u64(x->w, "since", c->last_ts);
	fxtw_event(x->w, FXT_EV_INSTANT, r->ts, 0, FXT_KOID_LOST, "ftrace", "lost events",
		   0, 0);
	x->st->lost_ranges++;
}

static int on_record(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
{
	struct exporter *x = data;
	struct evinfo *e;

	if (r->cpu < 0 || r->cpu >= x->ncpus)
		return 0;
	x->st->records_in++;
	if (r->missed_events)
		lost_events(x, r);
	x->cpu[r->cpu].last_ts = r->ts;
	x->cpu[r->cpu].last_off = r->offset;
	x->cpu[r->cpu].seen = 1;
	x->last_ts = r->ts;
	x->bytes_since_open += (uint64_t)r->record_size;
	e = evinfo(x, tep_data_type(x->tep, r));
	if (!e)
		return x->failed ? -1 : 0;
	switch (e->kind) {
	case K_SWITCH:
		do_switch(x, e, r);
		break;
	case K_WAKEUP:
		do_wakeup(x, e, r);
		break;
	case K_IRQ_ENTRY: case K_IRQ_EXIT: case K_SOFTIRQ_ENTRY: case K_SOFTIRQ_EXIT:
		do_irq(x, e, r);
		break;
	case K_SYS_ENTER: case K_SYS_EXIT: case K_SYSCALL_ENTER: case K_SYSCALL_EXIT:
		do_syscall(x, e, r);
		break;
	case K_MARKER:
		do_marker(x, e, r);
		break;
	case K_FXT:
		do_fxt(x, e, r);
		break;
	case K_NEWTASK: case K_RENAME: case K_FORK:
		do_task_info(x, e, r);
		if (!x->opts->no_generic)
			do_other(x, e, r);
		break;
	case K_OTHER:
		if (!x->opts->no_generic)
			do_other(x, e, r);
		break;
	case K_SKIP:
		break;
	}
	/* A write error stops the pass (fxt_export() reports it), and so does a reopen. */
	if (x->failed || fxtw_error(x->w))
		return -1;
	if (x->bytes_since_open >= x->reopen_bytes) {
		x->reopen = 1;
		return -1;
	}
	return 0;
}

/*
 * libtracecmd 1.3.1 never frees the decompressed chunks of a compressed file (its
 * free_zpage() looks them up at the wrong offset; fixed upstream by commit 1571b67c,
 * "libtracecmd: Fix free_zpage() offset", 2024-01), so its memory grows with the trace.
 * To keep the export bounded, the pass closes the handle every reopen_bytes of records
 * and opens the file again, each CPU positioned just after the last record it gave.
 */
static int reopen(struct exporter *x, const char *path)
{
	for (int i = 0; i <= x->max_id; i++) {
		if (x->evs[i]) {
			free(x->evs[i]->name);
			free(x->evs[i]);
			x->evs[i] = NULL;
		}
	}
	tracecmd_close(x->in);
	x->in = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!x->in) {
		log_err("export: cannot open %s again\n", path);
		return -EIO;
	}
	x->tep = tracecmd_get_tep(x->in);
	x->bytes_since_open = 0;
	log_debug("export: reopened %s at %llu\n", path, (unsigned long long)x->last_ts);
	for (int cpu = 0; cpu < x->ncpus; cpu++) {
		struct cpu_state *c = &x->cpu[cpu];
		struct tep_record *r;
		uint64_t off, ts;

		if (!c->seen)
			continue;
		/* lands at or before the time; then read up to the last record given */
		tracecmd_set_cpu_to_timestamp(x->in, cpu, c->last_ts);
		do {
			r = tracecmd_read_data(x->in, cpu);
			if (!r) {
				log_err("export: %s: CPU %d: record at %llu not found again\n",
					path, cpu, (unsigned long long)c->last_off);
				return -EIO;
			}
			off = r->offset;
			ts = r->ts;
			tracecmd_free_record(r);
		} while (off != c->last_off && ts <= c->last_ts);
		if (off != c->last_off) {
			log_err("export: %s: CPU %d: record at %llu not found again\n", path, cpu,
				(unsigned long long)c->last_off);
			return -EIO;
		}
	}
	return 0;
}

/*
 * The records of all CPUs in timestamp order (ties: lowest CPU first), one record per CPU
 * held at a time. A merge of our own rather than tracecmd_iterate_events(): it must stop
 * and resume across reopen(), and 1.3.1's iterator frees its peeked records wrongly when
 * stopped early.
 */
static int merge_pass(struct exporter *x, const char *path)
{
	struct tep_record **head = calloc((size_t)x->ncpus, sizeof(*head));
	int ret = 0;

	if (!head)
		return -ENOMEM;
	for (int cpu = 0; cpu < x->ncpus; cpu++)
		head[cpu] = tracecmd_read_data(x->in, cpu);
	for (;;) {
		int best = -1;

		for (int cpu = 0; cpu < x->ncpus; cpu++)
			if (head[cpu] && (best < 0 || head[cpu]->ts < head[best]->ts))
				best = cpu;
		if (best < 0)
			break;
		ret = on_record(x->in, head[best], best, x);
		tracecmd_free_record(head[best]);
		head[best] = NULL;
		if (!ret) {
			head[best] = tracecmd_read_data(x->in, best);
			continue;
		}
		ret = 0;
		if (!x->reopen)
			break;		/* x->failed or a write error: reported by the caller */
		for (int cpu = 0; cpu < x->ncpus; cpu++) {
			tracecmd_free_record(head[cpu]);
			head[cpu] = NULL;
		}
		x->reopen = 0;
		ret = reopen(x, path);
		if (ret)
			break;
		for (int cpu = 0; cpu < x->ncpus; cpu++)
			head[cpu] = tracecmd_read_data(x->in, cpu);
	}
	for (int cpu = 0; cpu < x->ncpus; cpu++)
		tracecmd_free_record(head[cpu]);
	free(head);
	return ret;
}

/* Ends what is still open, so no slice keeps dur = -1 in Perfetto. */
static void close_all(struct exporter *x)
{
	uint64_t ts = x->last_ts;

	for (int cpu = 0; cpu < x->ncpus; cpu++) {
		while (x->cpu[cpu].depth) {
			cpu_slice_end(x, ts, cpu);
			x->st->repaired++;
		}
		if (x->cpu[cpu].curr > 0)
			repair_switch_out(x, ts, cpu, x->cpu[cpu].curr);
	}
	for (size_t i = 0; i < x->cap; i++) {
		struct task *t = &x->tasks[i];

		if (t->tid > 0 && t->in_syscall) {
			syscall_end(x, ts, t->tid, 0, 0, 0);
			t->in_syscall = 0;
			x->st->repaired++;
		}
	}
}

/* ---- archive ------------------------------------------------------------------- */

static uint64_t ticks_for_clock(const char *clock, const struct fxt_export_opts *o)
{
	static const char *const ns_clocks[] = { "local", "global", "perf", "mono", "mono_raw",
						 "boot", "tai", "uptime", "tsc2nsec" };

	if (o->ticks_per_second)
		return o->ticks_per_second;
	if (!clock)
		clock = "local";	/* files without a TRACECLOCK option */
	for (size_t i = 0; i < sizeof(ns_clocks) / sizeof(ns_clocks[0]); i++)
		if (!strcmp(clock, ns_clocks[i]))
			return 1000000000ULL;
	if (!strcmp(clock, "counter"))
		log_warn("trace clock 'counter' counts events, not time: 1 count is shown as 1 ns\n");
	else
		log_warn("trace clock '%s' has no known rate: timestamps are shown as ns "
			 "(libtracecmd already converts x86-tsc when the file has TSC2NSEC); "
			 "use --ticks-per-second to set it\n", clock);
	return 1000000000ULL;
}

static const char *process_name(struct exporter *x, int tgid)
{
	struct task *leader = task_find(x, tgid);
	const char *c;

	if (leader && leader->named)
		return leader->comm;
	c = tep_data_comm_from_pid(x->tep, tgid);
	return c && strcmp(c, "<...>") ? c : "";
}

/* Process and thread names first: Perfetto applies them when it tokenizes. */
static int cmp_int(const void *a, const void *b)
{
	int l = *(const int *)a, r = *(const int *)b;

	return (l > r) - (l < r);
}

static void write_prologue(struct exporter *x, struct fxtw *w)
{
	char name[32];
	int *tgids, *tids;
	size_t n = 0;

	fxtw_magic(w);
	fxtw_provider_info(w, FXT_PROVIDER_ID, FXT_PROVIDER_NAME);
	fxtw_init(w, x->st->ticks_per_second);

	fxtw_args(w);
	fxtw_kobj(w, FXT_OBJ_PROCESS, 0, "kernel");
	for (int cpu = 0; cpu < x->ncpus; cpu++) {
		snprintf(name, sizeof(name), "cpu-%d", cpu);
		fxtw_args(w);
		fxtw_arg_koid(w, "process", 0);
		fxtw_kobj(w, FXT_OBJ_THREAD, FXT_KOID_CPU_BASE + (unsigned int)cpu, name);
	}
	fxtw_args(w);
	fxtw_arg_koid(w, "process", 0);
	fxtw_kobj(w, FXT_OBJ_THREAD, FXT_KOID_LOST, "lost events");

	/* processes: every tgid once, named after its leader; then threads; in pid order */
	tgids = malloc((x->ntasks + 1) * sizeof(*tgids));
	tids = malloc((x->ntasks + 1) * sizeof(*tids));
	if (!tgids || !tids) {
		free(tgids);
		free(tids);
		x->failed = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < x->cap; i++) {
		if (x->tasks[i].tid <= 0)
			continue;
		tgids[n] = x->tasks[i].tgid;
		tids[n++] = x->tasks[i].tid;
	}
	qsort(tgids, n, sizeof(*tgids), cmp_int);
	qsort(tids, n, sizeof(*tids), cmp_int);
	for (size_t i = 0; i < n; i++) {
		if (i && tgids[i] == tgids[i - 1])
			continue;
		fxtw_args(w);
		fxtw_kobj(w, FXT_OBJ_PROCESS, (uint64_t)tgids[i], process_name(x, tgids[i]));
		x->st->processes++;
	}
	for (size_t i = 0; i < n; i++) {
		struct task *t = task_find(x, tids[i]);
		const char *c;

		c = t->named ? NULL : tep_data_comm_from_pid(x->tep, t->tid);
		if (c && strcmp(c, "<...>"))
			task_set_comm(t, c, strlen(c));
		fxtw_args(w);
		fxtw_arg_koid(w, "process", (uint64_t)t->tgid);
		fxtw_kobj(w, FXT_OBJ_THREAD, (uint64_t)t->tid, t->comm);
		x->st->threads++;
	}
	free(tgids);
	free(tids);
}

static int copy_fd(int from, int to)
{
	char buf[1 << 16];
	off_t off = 0;

	if (lseek(from, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n = copy_file_range(from, &off, to, NULL, 1 << 30, 0);

		if (n == 0)
			return 0;
		if (n > 0)
			continue;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
			return -errno;
		break;
	}
	/* no copy_file_range between these files: plain copy from where it stopped */
	if (lseek(from, off, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(from, buf, sizeof(buf)), m = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		while (m < n) {
			ssize_t k = write(to, buf + m, n - m);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				return k < 0 ? -errno : -EIO;
			m += k;
		}
	}
}

/* Unreadable or not a trace.dat: say which, before libtracecmd's generic failure. */
static int check_input(const char *path)
{
	static const char magic[10] = "\x17\x08\x44tracing";
	char buf[10];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		log_err("export: cannot open %s: %s\n", path, strerror(errno));
		return -errno;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != (ssize_t)sizeof(buf) || memcmp(buf, magic, sizeof(buf))) {
		log_err("export: %s is not a trace.dat file (no tracing magic)\n", path);
		return -EINVAL;
	}
	return 0;
}

/* The events' temporary file: beside the output (same file system), else in /tmp. */
static int tmp_in_dir_of(const char *out_path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(out_path, '/');
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == out_path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - out_path), out_path);
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	return fd;
}

/*
 * The machine the trace was taken on: the last word of the file's uname ("Linux host
 * 6.18.0 x86_64"). Without one (trace-cmd restore writes none) syscalls keep their
 * numbers: the output depends on the file only, not on where it is exported.
 */
static void find_machine(struct exporter *x)
{
	const char *u = tracecmd_get_uname(x->in);
	const char *sp = u ? strrchr(u, ' ') : NULL;

	if (sp && sp[1])
		snprintf(x->machine, sizeof(x->machine), "%s", sp + 1);
	else
		log_debug("export: no uname in the file: syscalls are shown by number\n");
}

static void exporter_free(struct exporter *x)
{
	if (x->evs)
		for (int i = 0; i <= x->max_id; i++)
			if (x->evs[i]) {
				free(x->evs[i]->name);
				free(x->evs[i]);
			}
	free(x->evs);
	free(x->tasks);
	free(x->cpu);
	fxtw_free(x->w);
	if (x->in)
		tracecmd_close(x->in);
}

/**
 * fxt_export() - write the FXT archive of a trace.dat file.
 * @in_path: trace.dat, any version and compression libtracecmd reads
 * @out_path: FXT file to create (replaced if it exists)
 * @opts: options, all zero for the defaults
 * @stats: filled with what was read, written, repaired and dropped
 *
 * Errors are logged here, where they are found.
 * Return: 0, or a negative errno.
 */
int fxt_export(const char *in_path, const char *out_path, const struct fxt_export_opts *opts,
	       struct fxt_export_stats *stats)
{
	struct exporter x = { .opts = opts, .st = stats };
	struct stat in_sb, out_sb;
	struct fxtw *head = NULL;
	int tmp = -1, out = -1, ret;
	struct tep_event *sw;

	memset(stats, 0, sizeof(*stats));
	ret = check_input(in_path);
	if (ret)
		return ret;
	if (!stat(in_path, &in_sb) && !stat(out_path, &out_sb) && in_sb.st_dev == out_sb.st_dev &&
	    in_sb.st_ino == out_sb.st_ino) {
		log_err("export: %s is the input: not overwriting it\n", out_path);
		return -EINVAL;
	}
	x.in = tracecmd_open(in_path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!x.in) {
		log_err("export: libtracecmd cannot read %s (damaged or unsupported trace.dat)\n",
			in_path);
		return -EINVAL;
	}
	x.tep = tracecmd_get_tep(x.in);
	x.ncpus = tep_get_cpus(x.tep);
	if (x.ncpus <= 0 || x.ncpus > 65536) {
		log_err("export: %s: bad CPU count %d\n", in_path, x.ncpus);
		ret = -EINVAL;
		goto out;
	}
	stats->ticks_per_second = ticks_for_clock(tracecmd_get_trace_clock(x.in), opts);
	find_machine(&x);

	out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		ret = -errno;
		log_err("export: cannot create %s: %s\n", out_path, strerror(errno));
		goto out;
	}
	tmp = tmp_in_dir_of(out_path);
	if (tmp < 0) {
		ret = -errno;
		log_err("export: no temporary file for %s: %s\n", out_path, strerror(errno));
		goto out;
	}

	x.max_id = 0;
	for (int i = 0; i < tep_get_events_count(x.tep); i++) {
		struct tep_event *ev = tep_get_event(x.tep, i);

		if (ev && ev->id > x.max_id)
			x.max_id = ev->id;
	}
	x.evs = calloc((size_t)x.max_id + 1, sizeof(*x.evs));
	x.cpu = calloc((size_t)x.ncpus, sizeof(*x.cpu));
	x.w = fxtw_new(tmp);
	head = fxtw_new(out);
	if (!x.evs || !x.cpu || !x.w || !head) {
		ret = -ENOMEM;
		log_err("export: out of memory\n");
		goto out;
	}
	for (int cpu = 0; cpu < x.ncpus; cpu++)
		x.cpu[cpu].curr = -1;
	if (opts->max_strings || opts->max_threads)
		fxtw_set_table_limits(x.w, opts->max_strings ? opts->max_strings : 32767,
				      opts->max_threads);
	sw = tep_find_event_by_name(x.tep, "sched", "sched_switch");
	load_state_flags(&x, sw);

	x.reopen_bytes = opts->reopen_bytes ? opts->reopen_bytes : 16ULL << 20;
	ret = merge_pass(&x, in_path);
	if (ret)
		goto out;
	if (!x.failed && !fxtw_error(x.w))
		close_all(&x);
	ret = x.failed ? x.failed : fxtw_finish(x.w);
	if (ret) {
		log_err("export: writing events for %s: %s\n", out_path, strerror(-ret));
		goto out;
	}
	write_prologue(&x, head);
	ret = fxtw_finish(head);
	if (!ret)
		ret = copy_fd(tmp, out);
	if (!ret && fsync(out) && errno != EINVAL)
		ret = -errno;
	if (ret) {
		log_err("export: writing %s: %s\n", out_path, strerror(-ret));
		goto out;
	}
	stats->bytes_out = fxtw_bytes(head) + fxtw_bytes(x.w);
out:
	fxtw_free(head);
	if (tmp >= 0)
		close(tmp);
	if (out >= 0 && close(out) && !ret)
		ret = -errno;
	if (ret && out >= 0)
		unlink(out_path);
	exporter_free(&x);
	return ret;
}
