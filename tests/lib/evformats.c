// SPDX-License-Identifier: GPL-2.0
/*
 * Event formats as tracefs prints them: layouts and print fmt of Linux 6.18
 * (include/trace/events/{sched,irq,syscalls,task}.h) and of the ftring module
 * (common/ftring_events.h), with made-up IDs (evformats.h).
 */
#include <string.h>

#include "format/meta.h"
#include "evformats.h"

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char sched[] =
	"name: sched_switch\nID: 300\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_state=%s ==> next_comm=%s next_pid=%d\", "
	"REC->prev_comm, REC->prev_pid, (REC->prev_state & 0xff) ? "
	"__print_flags(REC->prev_state & 0xff, \"|\", { 0x01, \"S\" }, { 0x02, \"D\" }, "
	"{ 0x04, \"T\" }, { 0x08, \"t\" }, { 0x10, \"X\" }, { 0x20, \"Z\" }, { 0x40, \"P\" }, "
	"{ 0x80, \"I\" }) : \"R\", REC->next_comm, REC->next_pid\n"
	"name: sched_wakeup\nID: 305\nformat:\n" COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, "
	"REC->prio, REC->target_cpu\n"
	"name: sched_process_fork\nID: 306\nformat:\n" COMMON
	"\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, "
	"REC->parent_pid, REC->child_comm, REC->child_pid\n";

static const char irq[] =
	"name: irq_handler_entry\nID: 301\nformat:\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n"
	"name: irq_handler_exit\nID: 302\nformat:\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d ret=%d\", REC->irq, REC->ret\n"
	"name: softirq_entry\nID: 307\nformat:\n" COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n"
	"name: softirq_exit\nID: 308\nformat:\n" COMMON
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"vec=%u\", REC->vec\n";

static const char raw_syscalls[] =
	"name: sys_enter\nID: 303\nformat:\n" COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	"print fmt: \"NR %ld\", REC->id\n"
	"name: sys_exit\nID: 304\nformat:\n" COMMON
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";

static const char syscalls[] =
	"name: sys_enter_openat\nID: 312\nformat:\n" COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"dfd: 0x%08lx, filename: 0x%08lx\", ((unsigned long)(REC->dfd)), "
	"((unsigned long)(REC->filename))\n"
	"name: sys_exit_openat\nID: 313\nformat:\n" COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"0x%lx\", REC->ret\n";

static const char task[] =
	"name: task_newtask\nID: 314\nformat:\n" COMMON
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:unsigned long clone_flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:short oom_score_adj;\toffset:40;\tsize:2;\tsigned:1;\n\n"
	"print fmt: \"pid=%d comm=%s clone_flags=%lx\", REC->pid, REC->comm, REC->clone_flags\n"
	"name: task_rename\nID: 315\nformat:\n" COMMON
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char oldcomm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:char newcomm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:short oom_score_adj;\toffset:44;\tsize:2;\tsigned:1;\n\n"
	"print fmt: \"pid=%d oldcomm=%s newcomm=%s\", REC->pid, REC->oldcomm, REC->newcomm\n";

static const char ftring[] =
	"name: marker\nID: 310\nformat:\n" COMMON
	"\tfield:int pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] buf;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s\", __get_str(buf)\n"
	"name: fxt\nID: 311\nformat:\n" COMMON
	"\tfield:int pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc u8[] data;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%d bytes\", __get_dynamic_array_len(data)\n";

const struct evf_system evf_systems[] = {
	{ "sched", sched },
	{ "irq", irq },
	{ "raw_syscalls", raw_syscalls },
	{ "syscalls", syscalls },
	{ "task", task },
	{ "ftring", ftring },
};

const int evf_nr_systems = sizeof(evf_systems) / sizeof(evf_systems[0]);

int evf_add_all(struct trace_meta *m)
{
	int ret = 0;

	/* one call per system: a second one would replace the first */
	for (int i = 0; i < evf_nr_systems && !ret; i++)
		ret = meta_add_system_text(m, evf_systems[i].name, evf_systems[i].text,
					   strlen(evf_systems[i].text));
	return ret;
}
