// SPDX-License-Identifier: GPL-2.0
/* The exporter's thread table (fxt_export_local.h): open addressing by tid. */
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

/* ---- tasks ---------------------------------------------------------------------- */

/*
 * The table only grows for a new tid: callers hold a task across calls for the same
 * tid (do_syscall, do_task_info), which must not move it.
 */
struct task *exp_task_get(struct exporter *x, int tid)
{
	struct task *found = exp_task_find(x, tid);
	size_t i;

	if (found)
		return found;
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

struct task *exp_task_find(struct exporter *x, int tid)
{
	size_t i;

	if (!x->cap)
		return NULL;
	i = ((unsigned int)tid * 2654435761u) & (x->cap - 1);
	while (x->tasks[i].tid >= 0 && x->tasks[i].tid != tid)
		i = (i + 1) & (x->cap - 1);
	return x->tasks[i].tid == tid ? &x->tasks[i] : NULL;
}

void exp_task_set_comm(struct task *t, const char *comm, size_t max)
{
	size_t n = strnlen(comm, max < 16 ? max : 16);

	if (!n)
		return;
	memcpy(t->comm, comm, n);
	t->comm[n] = 0;
	t->named = 1;
}

/* The (pid, tid) an event of @tid is drawn on; pid 0 goes to the CPU's thread. */
void exp_thread_of(struct exporter *x, int tid, int cpu, uint64_t *pid, uint64_t *koid)
{
	struct task *t;

	if (tid <= 0) {
		*pid = 0;
		*koid = FXT_KOID_CPU_BASE + (unsigned int)cpu;
		return;
	}
	t = exp_task_get(x, tid);
	if (!t) {
		*pid = *koid = (uint64_t)tid;
		return;
	}
	t->frozen = 1;
	*pid = (uint64_t)t->tgid;
	*koid = (uint64_t)tid;
}

const char *exp_process_name(struct exporter *x, int tgid)
{
	struct task *leader = exp_task_find(x, tgid);
	const char *c;

	if (leader && leader->named)
		return leader->comm;
	c = tep_data_comm_from_pid(x->tep, tgid);
	return c && strcmp(c, "<...>") ? c : "";
}