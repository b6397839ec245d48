// SPDX-License-Identifier: GPL-2.0
/*
 * What each trace event becomes in FXT (the mapping table is at the top of
 * fxt_export.c), and the repairs of lost-event damage. Fields are read through
 * fxt_fields.c; keeps per-CPU state (running task, open irq slices).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxt.h"
#include "fxt_validate.h"
#include "fxt_export_local.h"
#include "syscall_names.h"
#include "util/log.h"

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
	"HRTIMER", "RCU",	/* include/linux/interrupt.h softirq_to_name */
};

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
	struct task *t = exp_task_get(x, tid);

	cswitch(x, ts, cpu, FXT_TS_RUNNING, tid, t ? t->prio : 0, 0, 0, 1);
	if (t && t->on_cpu == cpu)
		t->on_cpu = -1;
	x->cpu[cpu].curr = 0;
}

static void repair_elsewhere(struct exporter *x, uint64_t ts, int cpu, int tid)
{
	struct task *t = tid > 0 ? exp_task_get(x, tid) : NULL;
	int other = t ? t->on_cpu : -1;

	if (other >= 0 && other != cpu && x->cpu[other].curr == tid) {
		repair_switch_out(x, ts, other, tid);
		x->cpu[other].curr = -1;	/* who runs there now is unknown */
	}
}

static void do_switch(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	int cpu = r->cpu;
	int prev = (int)exp_num(e->f[F_PREV_PID], r, 0);
	int next = (int)exp_num(e->f[F_NEXT_PID], r, 0);
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
	cswitch(x, r->ts, cpu, exp_fxt_state(x, exp_num(e->f[F_PREV_STATE], r, 0)),
		prev, (int32_t)exp_num(e->f[F_PREV_PRIO], r, 0),
		next, (int32_t)exp_num(e->f[F_NEXT_PRIO], r, 0), 0);
	x->st->switches++;

	t = prev > 0 ? exp_task_get(x, prev) : NULL;
	if (t) {
		t->on_cpu = -1;
		s = exp_str_field(e->f[F_PREV_COMM], r, &len);
		if (s)
			exp_task_set_comm(t, s, len);
	}
	t = next > 0 ? exp_task_get(x, next) : NULL;
	if (t) {
		t->on_cpu = cpu;
		t->prio = (int)exp_num(e->f[F_NEXT_PRIO], r, 0);
		s = exp_str_field(e->f[F_NEXT_COMM], r, &len);
		if (s)
			exp_task_set_comm(t, s, len);
	}
	c->curr = next;
}

static void do_wakeup(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	int tid = (int)exp_num(e->f[0], r, 0);
	int waker = exp_rec_pid(x, r);
	int target = (int)exp_num(e->f[2], r, r->cpu);
	struct task *t;
	size_t len;
	const char *s;

	if (tid <= 0)
		return;
	if (target < 0 || target >= 65536)
		target = r->cpu;
	t = exp_task_get(x, tid);
	s = exp_str_field(e->f[3], r, &len);
	if (t && s)
		exp_task_set_comm(t, s, len);
	fxtw_args(x->w);
	fxtw_arg_i32(x->w, "weight", (int32_t)exp_num(e->f[1], r, 0));
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
	int64_t v = exp_num(e->f[0], r, -1);
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
		name = exp_str_field(e->f[1], r, &len);
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

	exp_thread_of(x, tid, cpu, &pid, &koid);
	fxtw_args(x->w);
	if (has_ret)
		fxtw_arg_i64(x->w, "ret", ret);
	fxtw_event(x->w, FXT_EV_DURATION_END, ts, pid, koid, "syscall", "", 0, 0);
}

static void do_syscall(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	int tid = exp_rec_pid(x, r);
	int entry = e->kind == K_SYS_ENTER || e->kind == K_SYSCALL_ENTER;
	int64_t nr = exp_num(e->f[0], r, -1);
	struct task *t;
	uint64_t pid, koid;
	char nbuf[48];

	if (tid <= 0)
		return;
	t = exp_task_get(x, tid);
	if (!t)
		return;
	if (!entry) {
		if (!t->in_syscall) {
			x->st->dropped++;
			return;
		}
		syscall_end(x, r->ts, tid, r->cpu, 1, exp_num(e->f[1], r, 0));
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
	exp_thread_of(x, tid, r->cpu, &pid, &koid);
	fxtw_args(x->w);
	fxtw_arg_i64(x->w, "nr", nr);
	fxtw_event(x->w, FXT_EV_DURATION_BEGIN, r->ts, pid, koid, "syscall", nbuf, 0, 0);
	t->in_syscall = 1;
	x->st->syscalls++;
}

static void do_marker(struct exporter *x, struct evinfo *e, struct tep_record *r)
{
	size_t len;
	const char *s = exp_str_field(e->f[0], r, &len);
	uint64_t pid, koid;

	if (!s)
		len = 0;
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\0'))
		len--;
	if (len > TEXT_MAX)
		len = TEXT_MAX;
	exp_thread_of(x, exp_rec_pid(x, r), r->cpu, &pid, &koid);
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

	exp_thread_of(x, exp_rec_pid(x, r), r->cpu, &pid, &koid);
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
			s = exp_str_field(f, r, &len);
			if (len > 256)
				len = 256;
			fxtw_arg_str(x->w, f->name, s ? s : "", s ? len : 0);
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			continue;
		} else if (f->size <= 8) {
			if (f->flags & TEP_FIELD_IS_SIGNED)
				fxtw_arg_i64(x->w, f->name, exp_num(f, r, 0));
			else
				fxtw_arg_u64(x->w, f->name, (uint64_t)exp_num(f, r, 0));
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
	size_t l = 0;
	const uint8_t *p = exp_field_bytes(e->f[0], r, &l);
	uint64_t buf[512];
	unsigned int off = 0;
	uint64_t pid, koid;

	if (!p || !l || l > sizeof(buf) || fxt_validate(memcpy(buf, p, l), l, NULL)) {
		x->st->dropped++;
		return;
	}
	exp_thread_of(x, exp_rec_pid(x, r), r->cpu, &pid, &koid);
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
	int tid = (int)exp_num(e->f[0], r, 0);
	struct task *t, *parent;
	size_t len;
	const char *s;

	t = tid > 0 ? exp_task_get(x, tid) : NULL;
	if (!t)
		return;
	s = exp_str_field(e->f[e->kind == K_NEWTASK ? 2 : 1], r, &len);
	if (s)
		exp_task_set_comm(t, s, len);
	if (e->kind == K_NEWTASK && !t->frozen &&
	    (exp_num(e->f[1], r, 0) & CLONE_THREAD_FLAG)) {
		int creator = exp_rec_pid(x, r);

		parent = creator > 0 ? exp_task_get(x, creator) : NULL;
		t = exp_task_get(x, tid);	/* the table may have moved */
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

int exp_on_record(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
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
	e = exp_evinfo(x, exp_rec_type(x, r));
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

/* Ends what is still open, so no slice keeps dur = -1 in Perfetto. */
void exp_close_all(struct exporter *x)
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