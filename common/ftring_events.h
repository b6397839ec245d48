/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ftring event schema: the one description of every event the module writes.
 *
 * FTRING_EVENT_LIST() names each event (its index: bit of the event mask), its
 * tracefs system and its print fmt; FTRING_FIELDS_<name>() lists its fields. From
 * these, this header generates the C record layouts the module's writers fill
 * (struct ftring_ev_<name>) and the enum of indexes; kmod/events.c generates the
 * tracefs-syntax format text from the same macros, so the bytes written and the
 * format the recorder stores in EVENT_FORMATS cannot disagree.
 *
 * Field macros, each given the record struct S:
 *   F(S, ctype, "format type", name, signed)         scalar
 *   A(S, ctype, "format type", name, count, signed)  fixed array
 *   D(S, "format type", name)                        __data_loc: u32 holding
 *                                                    (len << 16) | offset from the
 *                                                    record start
 * Sched, irq and raw_syscalls events keep the kernel's system, event and field
 * names and layouts (Linux 6.1 include/trace/events/{sched,irq,syscalls}.h), so
 * KernelShark's sched plugin and trace-cmd's plugins work on them.
 *
 * Builds in the kernel and in user space: only <linux/types.h>.
 */
#ifndef FTRING_EVENTS_H
#define FTRING_EVENTS_H

#include <linux/types.h>
#include "ftrace_page.h"

#define FTRING_COMM_LEN	16	/* TASK_COMM_LEN */

#define FTRING_FIELDS_sched_switch(F, A, D, S)				\
	A(S, char, "char", prev_comm, FTRING_COMM_LEN, 1)		\
	F(S, __s32, "pid_t", prev_pid, 1)				\
	F(S, __s32, "int", prev_prio, 1)				\
	F(S, __s64, "long", prev_state, 1)				\
	A(S, char, "char", next_comm, FTRING_COMM_LEN, 1)		\
	F(S, __s32, "pid_t", next_pid, 1)				\
	F(S, __s32, "int", next_prio, 1)

#define FTRING_FIELDS_WAKEUP(F, A, D, S)				\
	A(S, char, "char", comm, FTRING_COMM_LEN, 1)			\
	F(S, __s32, "pid_t", pid, 1)					\
	F(S, __s32, "int", prio, 1)					\
	F(S, __s32, "int", target_cpu, 1)

#define FTRING_FIELDS_sched_wakeup(F, A, D, S)	FTRING_FIELDS_WAKEUP(F, A, D, S)
#define FTRING_FIELDS_sched_wakeup_new(F, A, D, S) FTRING_FIELDS_WAKEUP(F, A, D, S)

#define FTRING_FIELDS_sched_process_fork(F, A, D, S)			\
	A(S, char, "char", parent_comm, FTRING_COMM_LEN, 1)		\
	F(S, __s32, "pid_t", parent_pid, 1)				\
	A(S, char, "char", child_comm, FTRING_COMM_LEN, 1)		\
	F(S, __s32, "pid_t", child_pid, 1)

#define FTRING_FIELDS_sched_process_exec(F, A, D, S)			\
	D(S, "char", filename)						\
	F(S, __s32, "pid_t", pid, 1)					\
	F(S, __s32, "pid_t", old_pid, 1)

#define FTRING_FIELDS_sched_process_exit(F, A, D, S)			\
	A(S, char, "char", comm, FTRING_COMM_LEN, 1)			\
	F(S, __s32, "pid_t", pid, 1)					\
	F(S, __s32, "int", prio, 1)

#define FTRING_FIELDS_irq_handler_entry(F, A, D, S)			\
	F(S, __s32, "int", irq, 1)					\
	D(S, "char", name)

#define FTRING_FIELDS_irq_handler_exit(F, A, D, S)			\
	F(S, __s32, "int", irq, 1)					\
	F(S, __s32, "int", ret, 1)

#define FTRING_FIELDS_softirq_entry(F, A, D, S)				\
	F(S, __u32, "unsigned int", vec, 0)

#define FTRING_FIELDS_softirq_exit(F, A, D, S)				\
	F(S, __u32, "unsigned int", vec, 0)

#define FTRING_FIELDS_sys_enter(F, A, D, S)				\
	F(S, __s64, "long", id, 1)					\
	A(S, __u64, "unsigned long", args, 6, 0)

#define FTRING_FIELDS_sys_exit(F, A, D, S)				\
	F(S, __s64, "long", id, 1)					\
	F(S, __s64, "long", ret, 1)

/* pid: the writing thread (as common_pid), kept in the record for consumers
 * that strip the common header; buf: the bytes written, NUL-terminated.
 */
#define FTRING_FIELDS_marker(F, A, D, S)				\
	F(S, __s32, "int", pid, 1)					\
	D(S, "char", buf)

/* pid: the writing process (tgid; the thread is common_pid); data: whole FXT event
 * records as written to /dev/ftring/fxt, checked by common/fxt_validate.h.
 */
#define FTRING_FIELDS_fxt(F, A, D, S)					\
	F(S, __s32, "int", pid, 1)					\
	D(S, "u8", data)

/* msg: one kernel log message as printk stored it (printk:console's field), so the
 * text of an oops or panic is in the trace with the events that led to it.
 */
#define FTRING_FIELDS_console(F, A, D, S)				\
	D(S, "char", msg)
#define FTRING_CONSOLE_MAX	1024	/* longer messages are cut (printk's own line max) */

#define FTRING_PRINT_SCHED_SWITCH					\
	"\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "	\
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, "	\
	"REC->prev_pid, REC->prev_prio, (REC->prev_state & 0xff) ? "	\
	"__print_flags(REC->prev_state & 0xff, \"|\", { 0x01, \"S\" }, " \
	"{ 0x02, \"D\" }, { 0x04, \"T\" }, { 0x08, \"t\" }, "		\
	"{ 0x10, \"X\" }, { 0x20, \"Z\" }, { 0x40, \"P\" }, "		\
	"{ 0x80, \"I\" }) : \"R\", REC->prev_state & 0x100 ? \"+\" : \"\", " \
	"REC->next_comm, REC->next_pid, REC->next_prio"

#define FTRING_PRINT_WAKEUP						\
	"\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, "	\
	"REC->pid, REC->prio, REC->target_cpu"

#define FTRING_PRINT_SOFTIRQ						\
	"\"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, "	\
	"{ 0, \"HI\" }, { 1, \"TIMER\" }, { 2, \"NET_TX\" }, "		\
	"{ 3, \"NET_RX\" }, { 4, \"BLOCK\" }, { 5, \"IRQ_POLL\" }, "	\
	"{ 6, \"TASKLET\" }, { 7, \"SCHED\" }, { 8, \"HRTIMER\" }, "	\
	"{ 9, \"RCU\" })"

/*
 * E(name, "system", print fmt, enabled by default). Append only: the position is
 * the event's ID offset, part of the ABI.
 */
#define FTRING_EVENT_LIST(E)						\
	E(sched_switch, "sched", FTRING_PRINT_SCHED_SWITCH, 1)		\
	E(sched_wakeup, "sched", FTRING_PRINT_WAKEUP, 1)		\
	E(sched_wakeup_new, "sched", FTRING_PRINT_WAKEUP, 1)		\
	E(sched_process_fork, "sched",					\
	  "\"comm=%s pid=%d child_comm=%s child_pid=%d\", "		\
	  "REC->parent_comm, REC->parent_pid, REC->child_comm, "	\
	  "REC->child_pid", 1)						\
	E(sched_process_exec, "sched",					\
	  "\"filename=%s pid=%d old_pid=%d\", __get_str(filename), "	\
	  "REC->pid, REC->old_pid", 1)					\
	E(sched_process_exit, "sched",					\
	  "\"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio", 1) \
	E(irq_handler_entry, "irq",					\
	  "\"irq=%d name=%s\", REC->irq, __get_str(name)", 1)		\
	E(irq_handler_exit, "irq",					\
	  "\"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : "	\
	  "\"unhandled\"", 1)						\
	E(softirq_entry, "irq", FTRING_PRINT_SOFTIRQ, 1)		\
	E(softirq_exit, "irq", FTRING_PRINT_SOFTIRQ, 1)			\
	E(sys_enter, "raw_syscalls",					\
	  "\"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, "	\
	  "REC->args[0], REC->args[1], REC->args[2], REC->args[3], "	\
	  "REC->args[4], REC->args[5]", 0)				\
	E(sys_exit, "raw_syscalls",					\
	  "\"NR %ld = %ld\", REC->id, REC->ret", 0)			\
	E(marker, "ftring", "\"%s\", __get_str(buf)", 1)		\
	E(fxt, "ftring",						\
	  "\"pid=%d len=%u %s\", REC->pid, "				\
	  "__get_dynamic_array_len(data), "				\
	  "__print_hex(__get_dynamic_array(data), "			\
	  "__get_dynamic_array_len(data))", 1)				\
	E(console, "printk", "\"%s\", __get_str(msg)", 1)

/* Record layouts: struct ftring_ev_<name>, the common header first. */
#define FTE_STRUCT_F(S, ct, ft, n, sgn)		ct n;
#define FTE_STRUCT_A(S, ct, ft, n, cnt, sgn)	ct n[cnt];
#define FTE_STRUCT_D(S, ft, n)			__u32 n;
#define FTE_STRUCT(name, sys, fmt, on)					\
	struct ftring_ev_##name {					\
		struct ftp_entry ent;					\
		FTRING_FIELDS_##name(FTE_STRUCT_F, FTE_STRUCT_A,	\
				     FTE_STRUCT_D, ftring_ev_##name)	\
	};
FTRING_EVENT_LIST(FTE_STRUCT)
#undef FTE_STRUCT

/* Index of each event (bit of the mask; FTRING_IOC_GET_EVENT_IDS gives its ID). */
#define FTE_ENUM(name, sys, fmt, on)	FTRING_EV_##name,
enum ftring_event_index {
	FTRING_EVENT_LIST(FTE_ENUM)
	FTRING_NR_EVENTS
};

#undef FTE_ENUM

/* Events enabled after load (bit i = event index i). */
#define FTE_DEFAULT(name, sys, fmt, on)	| ((__u64)(on) << FTRING_EV_##name)
#define FTRING_EVENTS_DEFAULT	(0 FTRING_EVENT_LIST(FTE_DEFAULT))

/* Bits that name an event. */
#define FTRING_EVENTS_ALL	((1ULL << FTRING_NR_EVENTS) - 1)

#endif /* FTRING_EVENTS_H */
