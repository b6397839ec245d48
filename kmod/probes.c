// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint probes: find each core tracepoint by name
 * (for_each_kernel_tracepoint; the __tracepoint_* symbols are not all
 * exported), attach while recording, and per event: reserve, fill, commit.
 *
 * Probe prototypes are the TP_PROTO of the tracepoints (include/trace/events/sched.h,
 * irq.h, syscalls.h, printk.h), first argument the registration's data pointer; the kernel
 * being built checks each one (ftring_probe_types() below).
 */
#include <linux/interrupt.h>
#include <linux/binfmts.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/irq.h>
#include <trace/events/printk.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>
#include <asm/syscall.h>
#include "compat.h"
#include "ftring.h"

#define RESERVE(name, ev, extra)					\
	ftring_reserve(&buf, FTRING_EV_##name, sizeof(*(ev)) + (extra))

/* prev_state as sched_switch reports it (__trace_sched_switch_state, 6.1) */
static long ftring_switch_state(bool preempt, unsigned int prev_state,
				struct task_struct *p)
{
	unsigned int state;

	if (preempt)
		return TASK_REPORT_MAX;
	state = __task_state_index(prev_state, p->exit_state);
	return state ? (1 << (state - 1)) : state;
}

static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	struct ftring_ev_sched_switch *ev;
	struct rb_cpu *buf;

	ev = RESERVE(sched_switch, ev, 0);
	if (!ev)
		return;
	memcpy(ev->prev_comm, prev->comm, FTRING_COMM_LEN);
	ev->prev_pid = prev->pid;
	ev->prev_prio = prev->prio;
	ev->prev_state = ftring_switch_state(preempt, prev_state, prev);
	memcpy(ev->next_comm, next->comm, FTRING_COMM_LEN);
	ev->next_pid = next->pid;
	ev->next_prio = next->prio;
	ftring_commit(buf);
}

static __always_inline void ftring_wakeup(unsigned int idx, struct task_struct *p)
{
	struct ftring_ev_sched_wakeup *ev;
	struct rb_cpu *buf;

	ev = ftring_reserve(&buf, idx, sizeof(*ev));
	if (!ev)
		return;
	memcpy(ev->comm, p->comm, FTRING_COMM_LEN);
	ev->pid = p->pid;
	ev->prio = p->prio;
	ev->target_cpu = task_cpu(p);
	ftring_commit(buf);
}

static void probe_sched_wakeup(void *data, struct task_struct *p)
{
	ftring_wakeup(FTRING_EV_sched_wakeup, p);
}

static void probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	ftring_wakeup(FTRING_EV_sched_wakeup_new, p);
}

static void probe_sched_process_fork(void *data, struct task_struct *parent,
				     struct task_struct *child)
{
	struct ftring_ev_sched_process_fork *ev;
	struct rb_cpu *buf;

	ev = RESERVE(sched_process_fork, ev, 0);
	if (!ev)
		return;
	memcpy(ev->parent_comm, parent->comm, FTRING_COMM_LEN);
	ev->parent_pid = parent->pid;
	memcpy(ev->child_comm, child->comm, FTRING_COMM_LEN);
	ev->child_pid = child->pid;
	ftring_commit(buf);
}

/* copies @s (length @len, NUL added) after the record; returns the __data_loc */
static __always_inline u32 ftring_put_str(void *rec, u32 off, const char *s, u32 len)
{
	memcpy((char *)rec + off, s, len);
	((char *)rec)[off + len] = '\0';
	return ((len + 1) << 16) | off;
}

static void probe_sched_process_exec(void *data, struct task_struct *p, pid_t old_pid,
				     struct linux_binprm *bprm)
{
	struct ftring_ev_sched_process_exec *ev;
	/*
	 * A name as long as PATH_MAX does not fit in a 4 KiB page: cut short, it still
	 * names the program, where upstream's event is dropped.
	 */
	u32 len = strnlen(bprm->filename,
			  min_t(size_t, PATH_MAX - 1,
				rb_max_payload(PAGE_SIZE - FTP_HDR_SIZE) - sizeof(*ev) - 1));
	struct rb_cpu *buf;

	ev = RESERVE(sched_process_exec, ev, len + 1);
	if (!ev)
		return;
	ev->filename = ftring_put_str(ev, sizeof(*ev), bprm->filename, len);
	ev->pid = p->pid;
	ev->old_pid = old_pid;
	ftring_commit(buf);
}

static void probe_sched_process_exit(void *data, struct task_struct *p)
{
	struct ftring_ev_sched_process_exit *ev;
	struct rb_cpu *buf;

	ev = RESERVE(sched_process_exit, ev, 0);
	if (!ev)
		return;
	memcpy(ev->comm, p->comm, FTRING_COMM_LEN);
	ev->pid = p->pid;
	ev->prio = p->prio;
	ftring_commit(buf);
}

static void probe_irq_handler_entry(void *data, int irq, struct irqaction *action)
{
	const char *name = action->name ? action->name : "(null)";
	struct ftring_ev_irq_handler_entry *ev;
	u32 len = strnlen(name, 64);
	struct rb_cpu *buf;

	ev = RESERVE(irq_handler_entry, ev, len + 1);
	if (!ev)
		return;
	ev->irq = irq;
	ev->name = ftring_put_str(ev, sizeof(*ev), name, len);
	ftring_commit(buf);
}

static void probe_irq_handler_exit(void *data, int irq, struct irqaction *action, int ret)
{
	struct ftring_ev_irq_handler_exit *ev;
	struct rb_cpu *buf;

	ev = RESERVE(irq_handler_exit, ev, 0);
	if (!ev)
		return;
	ev->irq = irq;
	ev->ret = ret;
	ftring_commit(buf);
}

static __always_inline void ftring_softirq(unsigned int idx, unsigned int vec)
{
	struct ftring_ev_softirq_entry *ev;
	struct rb_cpu *buf;

	ev = ftring_reserve(&buf, idx, sizeof(*ev));
	if (!ev)
		return;
	ev->vec = vec;
	ftring_commit(buf);
}

static void probe_softirq_entry(void *data, unsigned int vec)
{
	ftring_softirq(FTRING_EV_softirq_entry, vec);
}

static void probe_softirq_exit(void *data, unsigned int vec)
{
	ftring_softirq(FTRING_EV_softirq_exit, vec);
}

static void probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct ftring_ev_sys_enter *ev;
	unsigned long args[6] __uninitialized;	/* all six set below */
	struct rb_cpu *buf;
	int i;

	/* read before the reservation: the arguments never fault, but keep it short */
	syscall_get_arguments(current, regs, args);
	ftring_syscall_tp_enter();
	ev = RESERVE(sys_enter, ev, 0);
	if (ev) {
		ev->id = id;
		for (i = 0; i < 6; i++)
			ev->args[i] = args[i];
		ftring_commit(buf);
	}
	ftring_syscall_tp_exit();
}

static void probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct ftring_ev_sys_exit *ev;
	struct rb_cpu *buf;

	ftring_syscall_tp_enter();
	ev = RESERVE(sys_exit, ev, 0);
	if (ev) {
		ev->id = syscall_get_nr(current, regs);
		ev->ret = ret;
		ftring_commit(buf);
	}
	ftring_syscall_tp_exit();
}

/* A kernel log message: printk calls this as it stores one (any context, NMI too). */
static void probe_console(void *data, const char *text, size_t len)
{
	struct ftring_ev_console *ev;
	struct rb_cpu *buf;
	u32 n = min_t(size_t, len, FTRING_CONSOLE_MAX);

	ev = RESERVE(console, ev, n + 1);
	if (!ev)
		return;
	ev->msg = ftring_put_str(ev, sizeof(*ev), text, n);
	ftring_commit(buf);
}

/*
 * Never called: each line hands a probe to its tracepoint's typed registration
 * function, generated from the TP_PROTO of the kernel being built, so a prototype
 * that changed on another kernel is a build error (-Werror=incompatible-pointer-types),
 * not a probe called with the wrong arguments.
 */
static void __maybe_unused ftring_probe_types(void)
{
	register_trace_sched_switch(probe_sched_switch, NULL);
	register_trace_sched_wakeup(probe_sched_wakeup, NULL);
	register_trace_sched_wakeup_new(probe_sched_wakeup_new, NULL);
	register_trace_sched_process_fork(probe_sched_process_fork, NULL);
	register_trace_sched_process_exec(probe_sched_process_exec, NULL);
	register_trace_sched_process_exit(probe_sched_process_exit, NULL);
	register_trace_irq_handler_entry(probe_irq_handler_entry, NULL);
	register_trace_irq_handler_exit(probe_irq_handler_exit, NULL);
	register_trace_softirq_entry(probe_softirq_entry, NULL);
	register_trace_softirq_exit(probe_softirq_exit, NULL);
	register_trace_sys_enter(probe_sys_enter, NULL);
	register_trace_sys_exit(probe_sys_exit, NULL);
	register_trace_console(probe_console, NULL);
}

struct ftring_probe {
	const char		*tp_name;
	void			*func;
	struct tracepoint	*tp;
	bool			on;
};

/* indexed by enum ftring_event_index; the marker has no tracepoint */
static struct ftring_probe ftring_probes[FTRING_NR_EVENTS] = {
	[FTRING_EV_sched_switch] = { "sched_switch", probe_sched_switch },
	[FTRING_EV_sched_wakeup] = { "sched_wakeup", probe_sched_wakeup },
	[FTRING_EV_sched_wakeup_new] = { "sched_wakeup_new", probe_sched_wakeup_new },
	[FTRING_EV_sched_process_fork] = { "sched_process_fork", probe_sched_process_fork },
	[FTRING_EV_sched_process_exec] = { "sched_process_exec", probe_sched_process_exec },
	[FTRING_EV_sched_process_exit] = { "sched_process_exit", probe_sched_process_exit },
	[FTRING_EV_irq_handler_entry] = { "irq_handler_entry", probe_irq_handler_entry },
	[FTRING_EV_irq_handler_exit] = { "irq_handler_exit", probe_irq_handler_exit },
	[FTRING_EV_softirq_entry] = { "softirq_entry", probe_softirq_entry },
	[FTRING_EV_softirq_exit] = { "softirq_exit", probe_softirq_exit },
	[FTRING_EV_sys_enter] = { "sys_enter", probe_sys_enter },
	[FTRING_EV_sys_exit] = { "sys_exit", probe_sys_exit },
	[FTRING_EV_console] = { "console", probe_console },
};

static void ftring_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < FTRING_NR_EVENTS; i++)
		if (ftring_probes[i].tp_name && !strcmp(tp->name, ftring_probes[i].tp_name))
			ftring_probes[i].tp = tp;
}

/**
 * ftring_probes_init() - look up every tracepoint the probes attach to.
 *
 * Return: 0, or -ENOENT if one is missing (the kernel lacks an event).
 */
int ftring_probes_init(void)
{
	int i;

	for_each_kernel_tracepoint(ftring_find_tp, NULL);
	for (i = 0; i < FTRING_NR_EVENTS; i++) {
		if (ftring_probes[i].tp_name && !ftring_probes[i].tp) {
			pr_err("ftring: tracepoint %s not found\n", ftring_probes[i].tp_name);
			return -ENOENT;
		}
	}
	return 0;
}

/**
 * ftring_probes_set() - attach exactly the probes of @mask, detach the others.
 * @mask: Events to attach (bit = event index); 0 detaches all.
 *
 * Caller holds ftring_lock. On failure every probe is detached. Attaching or
 * detaching nothing costs nothing (no text patching, no grace period).
 * Return: 0 or a negative errno.
 */
int ftring_probes_set(u64 mask)
{
	bool changed = false;
	int i, ret = 0;

	for (i = 0; i < FTRING_NR_EVENTS; i++) {
		struct ftring_probe *p = &ftring_probes[i];
		bool want = mask & BIT_ULL(i);

		if (!p->tp || want == p->on)
			continue;
		if (want) {
			ret = tracepoint_probe_register(p->tp, p->func, NULL);
			if (ret)
				break;
		} else {
			WARN_ON_ONCE(tracepoint_probe_unregister(p->tp, p->func, NULL));
		}
		p->on = want;
		changed = true;
	}
	if (ret && mask)
		return ftring_probes_set(0) ?: ret;
	/* no probe still runs (and so writes) once we return */
	if (changed)
		tracepoint_synchronize_unregister();
	return ret;
}
