/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of the tasks alive (tracing_cmdlines(): a walk of /proc, then
 * saved_cmdlines for a tracefs source), gathered on a thread of its own. The walk
 * opens a file per thread of the machine: tens of milliseconds each second on a
 * machine with a few thousand threads, during which the page path would read no ring
 * (it lost events to it at every sync).
 * The page path asks for a walk and takes the last one done; it never waits for one
 * except at the end of a file.
 */
#ifndef REC_TASK_NAMES_H
#define REC_TASK_NAMES_H

#include <stdbool.h>
#include <stddef.h>

struct task_names;

/*
 * The thread, started with a first walk under way; @with_saved: the walks read
 * saved_cmdlines too (tracing_cmdlines()). NULL with *@err = -errno.
 */
struct task_names *task_names_start(bool with_saved, int *err);

/* Asks for a walk; returns at once (one under way or already asked for will do). */
void task_names_want(struct task_names *t);

/*
 * The text of the newest walk done and not taken yet (malloc'd, the caller frees it;
 * *@live_len as tracing_cmdlines() gives it), else NULL. With @wait, first waits for a
 * walk that began after this call.
 */
char *task_names_take(struct task_names *t, int wait, size_t *len, size_t *live_len);

/* Stops the thread and frees everything. Accepts NULL. */
void task_names_stop(struct task_names *t);

#endif /* REC_TASK_NAMES_H */
