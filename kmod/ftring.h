/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module's parts share: the per-CPU buffer table, the
 * settings, and the event-writing helper probes and the marker use.
 */
#ifndef FTRING_H
#define FTRING_H

#include <linux/capability.h>
#include <linux/mutex.h>
#include <linux/hardirq.h>
#include <linux/jump_label.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/trace_events.h>
#include "rb_write.h"
#include "ftring_abi.h"
#include "ftring_events.h"

#define FTRING_DEFAULT_SUBBUFS	256	/* 1 MiB per CPU with 4 KiB pages */
#define FTRING_MAX_SUBBUFS	65536

extern struct mutex ftring_lock;
extern struct mutex ftring_bufs_lock;
extern struct rb_cpu **ftring_bufs;	/* [nr_cpu_ids]; set once per CPU */
extern struct ftring_config ftring_cfg;	/* under ftring_bufs_lock */
extern u64 ftring_events;		/* enabled mask, under ftring_lock */
extern bool ftring_recording;		/* READ_ONCE in writers */
extern bool ftring_ready;		/* the load finished: ftring_loaded() */
extern bool ftring_reader_seen;		/* under ftring_bufs_lock: see main.c */
extern bool ftring_strict_writes;	/* module parameter strict_writes */
extern u16 ftring_event_ids[FTRING_NR_EVENTS];	/* events.c: common_type of each */

/*
 * What a marker or FXT write() whose event was dropped returns: the count, as if
 * written (the drop is counted), or ENOSPC with strict_writes; ENODATA once
 * recording has stopped.
 */
static inline ssize_t ftring_dropped_write(size_t count)
{
	if (!READ_ONCE(ftring_recording))
		return -ENODATA;
	return READ_ONCE(ftring_strict_writes) ? -ENOSPC : (ssize_t)count;
}

/*
 * Has the load finished? No device opens before (EAGAIN): a load that fails must
 * not have given out a file (the module goes, references or not), nor written over
 * the persistent region (main.c: ftring_arm()).
 */
static inline bool ftring_loaded(void)
{
	/* pairs with ftring_arm() */
	return smp_load_acquire(&ftring_ready);
}

/*
 * Who may open the control and buffer devices. They give what tracefs gives (every
 * task's syscall arguments and command names, kernel addresses), so the same
 * lockdown reason: refused once the kernel is locked down to confidentiality, as
 * tracefs is. And CAP_SYS_ADMIN, whatever the node's mode. Checked at open: a
 * file opened before lockdown keeps working, as a tracefs file does.
 * Nothing opens while the module is loading (EAGAIN): see ftring_loaded().
 */
static inline int ftring_may_open(void)
{
	int ret = security_locked_down(LOCKDOWN_TRACEFS);

	if (!ftring_loaded())
		return -EAGAIN;
	if (ret)
		return ret;
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}

/* common_flags as ftrace computes them (include/linux/trace_events.h) */
static __always_inline u8 ftring_ctx_flags(void)
{
	u8 f = 0;

	if (irqs_disabled())
		f |= TRACE_FLAG_IRQS_OFF;
	if (in_nmi())
		f |= TRACE_FLAG_NMI;
	if (in_hardirq())
		f |= TRACE_FLAG_HARDIRQ;
	if (in_serving_softirq())
		f |= TRACE_FLAG_SOFTIRQ;
	if (tif_need_resched())
		f |= TRACE_FLAG_NEED_RESCHED;
	return f;
}

/**
 * ftring_reserve() - reserve a record of event @idx on this CPU's buffer and
 * fill its common header.
 * @bufp:	Out: the buffer, for ftring_commit().
 * @idx:	Event index (enum ftring_event_index).
 * @size:	Record size, common header included.
 *
 * Preemption must be off (tracepoint probes run so). Return: the record, or
 * NULL (dropped or no buffer; do not commit).
 */
static __always_inline void *ftring_reserve(struct rb_cpu **bufp, unsigned int idx, u32 size)
{
	struct rb_cpu *buf = READ_ONCE(ftring_bufs[smp_processor_id()]);
	struct ftp_entry *ent;
	unsigned int pc;

	/*
	 * One flag gates every probe: start and stop take effect on all events at
	 * the same instant, however long attaching the probes one by one takes,
	 * so entry/exit pairs are only cut at the very edges of a capture.
	 */
	if (unlikely(!buf || !READ_ONCE(ftring_recording)))
		return NULL;
	ent = rb_reserve(buf, size);
	if (unlikely(!ent))
		return NULL;
	/* the tracepoint's own preempt_disable() is not the traced context's */
	pc = preempt_count() & 0xff;
	ent->type = ftring_event_ids[idx];
	ent->flags = ftring_ctx_flags();
	ent->preempt_count = pc ? min(pc - 1, 0xfU) : 0;
	ent->pid = current->pid;
	*bufp = buf;
	return ent;
}

static __always_inline void ftring_commit(struct rb_cpu *buf)
{
	rb_commit(buf);
}

/* main.c */
struct inode;
struct file;
int ftring_open_loaded(struct inode *inode, struct file *file);

/* dev.c */
int ftring_dev_init(void);
void ftring_dev_exit(void);
int ftring_dev_add_cpu(int cpu);
int ftring_get_reader(struct rb_cpu *buf);

/* ctl.c */
int ftring_ctl_init(void);
void ftring_ctl_exit(void);
int ftring_stop(void);
void ftring_detach(void);

/* marker.c */
int ftring_marker_init(void);
void ftring_marker_exit(void);

/* watch.c */
DECLARE_STATIC_KEY_FALSE(ftring_watch_key);
void ftring_watch_marker(const char *text, size_t len);
int ftring_watch_init(void);
void ftring_watch_exit(void);

/* fxt.c */
int ftring_fxt_init(void);
void ftring_fxt_exit(void);

/* probes.c */
int ftring_probes_init(void);
int ftring_probes_set(u64 mask);

/* persist.c */
int ftring_persist_init(void);
bool ftring_persist_arm(void);
void ftring_persist_seal_on_panic(void);
void ftring_persist_exit(void);
bool ftring_persist_place(unsigned int cpu, struct rb_place *place);
u32 ftring_persist_subbufs(void);
u32 ftring_persist_flags(void);
int ftring_persist_set_boot_id(const u8 *id);
void ftring_persist_set_clock(u32 clock);

/* events.c */
int ftring_formats_init(void);
const char *ftring_formats_text(size_t *len);
void ftring_formats_exit(void);
ssize_t ftring_formats_read(char __user *ubuf, size_t count, loff_t *ppos);

#endif /* FTRING_H */
