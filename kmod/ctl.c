// SPDX-License-Identifier: GPL-2.0
/*
 * The control device: the ioctls of common/ftring_abi.h and read() of the
 * event formats.
 *
 * Every request is validated in full before anything changes; what cannot
 * change while recording (or while mapped) fails with EBUSY, never half done.
 */
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "ftring.h"

/* Settings every buffer takes; ftring_bufs_lock held. */
static void ftring_apply_cfg(const struct ftring_config *cfg)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct rb_cpu *buf = ftring_bufs[cpu];

		if (!buf)
			continue;
		WRITE_ONCE(buf->overwrite, cfg->mode == FTRING_MODE_OVERWRITE);
		WRITE_ONCE(buf->clock, cfg->clock);
		WRITE_ONCE(buf->watermark, cfg->watermark);
	}
}

/* Empties every buffer; not recording, ftring_bufs_lock held. */
static void ftring_reset_all(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct rb_cpu *buf = ftring_bufs[cpu];

		if (!buf)
			continue;
		mutex_lock(&buf->reader_lock);
		rb_cpu_reset(buf);
		mutex_unlock(&buf->reader_lock);
	}
}

/* Is any buffer mapped? ftring_bufs_lock held (mappings are counted under it). */
static bool ftring_any_mapped(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (ftring_bufs[cpu] && atomic_read(&ftring_bufs[cpu]->mapped))
			return true;
	return false;
}

/* Resize every buffer to @nr ring pages: all or nothing. */
static int ftring_resize(u32 nr)
{
	unsigned long need = 0;
	struct rb_page **fresh;
	unsigned int cpu;
	int ret = 0;

	/*
	 * The new rings come before the old ones go (all or nothing), so all of
	 * them must fit in what the system can give without reclaiming itself into
	 * the ground (upstream's ring buffer checks si_mem_available() too).
	 */
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (ftring_bufs[cpu])
			need += nr + 1;
	if (need > si_mem_available())
		return -ENOMEM;
	fresh = kcalloc(nr_cpu_ids, sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return -ENOMEM;
	for (cpu = 0; cpu < nr_cpu_ids && !ret; cpu++) {
		if (!ftring_bufs[cpu])
			continue;
		if (atomic_read(&ftring_bufs[cpu]->mapped))
			ret = -EBUSY;
		else
			ret = rb_pages_alloc(ftring_bufs[cpu], nr, &fresh[cpu]);
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct rb_cpu *buf = ftring_bufs[cpu];
		struct rb_page *old;
		u32 old_nr;

		if (!buf || !fresh[cpu])
			continue;
		if (ret) {
			rb_pages_free(fresh[cpu], nr);
			continue;
		}
		mutex_lock(&buf->reader_lock);
		old = buf->pages;
		old_nr = buf->nr_pages;
		buf->pages = fresh[cpu];
		buf->nr_pages = nr;
		rb_cpu_reset(buf);
		mutex_unlock(&buf->reader_lock);
		rb_pages_free(old, old_nr);
	}
	kfree(fresh);
	return ret;
}

static int ftring_set_config(const struct ftring_config *req)
{
	struct ftring_config cfg = *req;
	int ret = 0, i;

	if (cfg.nr_subbufs < 2 || cfg.nr_subbufs > FTRING_MAX_SUBBUFS ||
	    cfg.mode > FTRING_MODE_OVERWRITE || cfg.clock > FTRING_CLOCK_MAX ||
	    cfg.watermark >= cfg.nr_subbufs || cfg.flags)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(cfg.reserved); i++)
		if (cfg.reserved[i])
			return -EINVAL;
	cfg.subbuf_size = PAGE_SIZE;

	mutex_lock(&ftring_bufs_lock);
	if (ftring_recording && (cfg.nr_subbufs != ftring_cfg.nr_subbufs ||
				 cfg.mode != ftring_cfg.mode || cfg.clock != ftring_cfg.clock)) {
		ret = -EBUSY;
		goto out;
	}
	if (cfg.nr_subbufs != ftring_cfg.nr_subbufs) {
		/* persistent rings are as large as their region */
		ret = ftring_persist_subbufs() ? -EINVAL : ftring_resize(cfg.nr_subbufs);
		if (ret)
			goto out;
	} else if (cfg.clock != ftring_cfg.clock) {
		/*
		 * One clock per buffer: events stamped by the old clock cannot be
		 * ordered against the new one's, so they go, as tracefs's trace_clock
		 * change clears its buffers. Not under a mapping reader's feet.
		 */
		if (ftring_any_mapped()) {
			ret = -EBUSY;
			goto out;
		}
		ftring_reset_all();
	}
	ftring_cfg = cfg;
	ftring_apply_cfg(&cfg);
	ftring_persist_set_clock(cfg.clock);
out:
	mutex_unlock(&ftring_bufs_lock);
	return ret;
}

/*
 * Probes attach at the first START and stay attached across STOP/START: a stop
 * only closes the gate every probe checks (ftring_reserve()). Attaching patches
 * kernel text (static calls, jump labels) on every CPU; doing it once per
 * capture instead of once per start/stop keeps that cost, and its latency, out
 * of quick stop/start cycles. They detach when their event is disabled and at
 * unload.
 */
static bool ftring_attached;

static int ftring_start(void)
{
	int ret;

	if (ftring_recording)
		return -EALREADY;
	/* attach everything first, then open the gate */
	ret = ftring_probes_set(ftring_events);
	if (ret)
		return ret;
	ftring_attached = true;
	WRITE_ONCE(ftring_recording, true);
	/* a mapping made from here on sets it too (ftring_cpu_mmap()) */
	mutex_lock(&ftring_bufs_lock);
	ftring_reader_seen = ftring_any_mapped();
	mutex_unlock(&ftring_bufs_lock);
	return 0;
}

/**
 * ftring_stop() - stop recording; on return no writer is in any buffer.
 *
 * Caller holds ftring_lock. Return: 0, or -EALREADY if not recording.
 */
int ftring_stop(void)
{
	if (!ftring_recording)
		return -EALREADY;
	WRITE_ONCE(ftring_recording, false);
	/* probes and marker writers run with preemption off: wait them out */
	synchronize_rcu();
	return 0;
}

/**
 * ftring_detach() - stop and detach every probe (module unload).
 *
 * Caller holds ftring_lock.
 */
void ftring_detach(void)
{
	ftring_stop();
	ftring_probes_set(0);
	ftring_attached = false;
}

static int ftring_get_stats(struct ftring_cpu_stats *st)
{
	struct rb_cpu *buf;
	u32 cpu = st->cpu;

	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	/* @cpu comes from user space: no speculative load past the table either */
	cpu = array_index_nospec(cpu, nr_cpu_ids);
	buf = READ_ONCE(ftring_bufs[cpu]);
	if (!buf)
		return -ENODEV;
	memset(st, 0, sizeof(*st));
	st->cpu = cpu;
	st->online = cpu_online(cpu);
	mutex_lock(&buf->reader_lock);
	st->entries = local_read(&buf->entries);
	st->overrun = local_read(&buf->overrun);
	st->read = buf->read;
	st->bytes = local_read(&buf->bytes);
	st->lost_full = local_read(&buf->lost_full);
	st->lost_busy = local_read(&buf->lost_busy);
	st->lost_too_big = local_read(&buf->lost_too_big);
	st->lost = st->lost_full + st->lost_busy + st->lost_too_big;
	st->nr_subbufs = buf->nr_pages + 1;
	mutex_unlock(&buf->reader_lock);
	return 0;
}

static long ftring_ctl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	union {
		struct ftring_version ver;
		struct ftring_status status;
		struct ftring_config cfg;
		struct ftring_cpu_stats stats;
		struct ftring_event_ids ids;
		struct ftring_boot_id boot;
		u64 mask;
	} u;
	int ret = 0;

	memset(&u, 0, sizeof(u));
	switch (cmd) {
	case FTRING_IOC_ABI_VERSION:
		u.ver.major = FTRING_ABI_MAJOR;
		u.ver.minor = FTRING_ABI_MINOR;
		return copy_to_user(uarg, &u.ver, sizeof(u.ver)) ? -EFAULT : 0;
	case FTRING_IOC_GET_STATUS:
		mutex_lock(&ftring_lock);
		u.status.recording = ftring_recording;
		u.status.events = ftring_events;
		mutex_unlock(&ftring_lock);
		u.status.nr_cpu_ids = nr_cpu_ids;
		u.status.event_id_base = 0;	/* per load: GET_EVENT_IDS */
		u.status.nr_events = FTRING_NR_EVENTS;
		u.status.flags = ftring_persist_flags();
		mutex_lock(&ftring_bufs_lock);
		if (u.status.recording && ftring_reader_seen && !ftring_any_mapped())
			u.status.flags |= FTRING_STATUS_ORPHAN;
		mutex_unlock(&ftring_bufs_lock);
		return copy_to_user(uarg, &u.status, sizeof(u.status)) ? -EFAULT : 0;
	case FTRING_IOC_GET_CONFIG:
		mutex_lock(&ftring_bufs_lock);
		u.cfg = ftring_cfg;
		mutex_unlock(&ftring_bufs_lock);
		return copy_to_user(uarg, &u.cfg, sizeof(u.cfg)) ? -EFAULT : 0;
	case FTRING_IOC_SET_CONFIG:
		if (copy_from_user(&u.cfg, uarg, sizeof(u.cfg)))
			return -EFAULT;
		mutex_lock(&ftring_lock);
		ret = ftring_set_config(&u.cfg);
		mutex_unlock(&ftring_lock);
		return ret;
	case FTRING_IOC_SET_EVENTS:
		if (copy_from_user(&u.mask, uarg, sizeof(u.mask)))
			return -EFAULT;
		if (u.mask & ~FTRING_EVENTS_ALL)
			return -EINVAL;
		mutex_lock(&ftring_lock);
		if (ftring_attached)
			ret = ftring_probes_set(u.mask);
		if (!ret)
			WRITE_ONCE(ftring_events, u.mask);
		else if (ftring_probes_set(ftring_events))
			ftring_detach();	/* could not restore: stop cleanly */
		mutex_unlock(&ftring_lock);
		return ret;
	case FTRING_IOC_START:
		mutex_lock(&ftring_lock);
		ret = ftring_start();
		mutex_unlock(&ftring_lock);
		return ret;
	case FTRING_IOC_STOP:
		mutex_lock(&ftring_lock);
		ret = ftring_stop();
		mutex_unlock(&ftring_lock);
		return ret;
	case FTRING_IOC_RESET:
		mutex_lock(&ftring_lock);
		mutex_lock(&ftring_bufs_lock);
		/* not under a mapping reader: its meta page would go blank mid-read */
		if (ftring_recording || ftring_any_mapped())
			ret = -EBUSY;
		else
			ftring_reset_all();
		mutex_unlock(&ftring_bufs_lock);
		mutex_unlock(&ftring_lock);
		return ret;
	case FTRING_IOC_GET_EVENT_IDS:
		BUILD_BUG_ON(ARRAY_SIZE(u.ids.id) < FTRING_NR_EVENTS);
		u.ids.nr = FTRING_NR_EVENTS;
		memcpy(u.ids.id, ftring_event_ids, sizeof(ftring_event_ids));
		return copy_to_user(uarg, &u.ids, sizeof(u.ids)) ? -EFAULT : 0;
	case FTRING_IOC_SET_BOOT_ID:
		if (copy_from_user(&u.boot, uarg, sizeof(u.boot)))
			return -EFAULT;
		return ftring_persist_set_boot_id(u.boot.id);
	case FTRING_IOC_GET_STATS:
		if (copy_from_user(&u.stats, uarg, sizeof(u.stats)))
			return -EFAULT;
		ret = ftring_get_stats(&u.stats);
		if (ret)
			return ret;
		return copy_to_user(uarg, &u.stats, sizeof(u.stats)) ? -EFAULT : 0;
	default:
		return -ENOTTY;
	}
}

static int ftring_ctl_open(struct inode *inode, struct file *file)
{
	return ftring_may_open();
}

static ssize_t ftring_ctl_read(struct file *file, char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	return ftring_formats_read(ubuf, count, ppos);
}

static const struct file_operations ftring_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= ftring_ctl_open,
	.read		= ftring_ctl_read,
	.unlocked_ioctl	= ftring_ctl_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= default_llseek,
};

static struct miscdevice ftring_ctl_dev = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "ftring_ctl",
	.nodename	= "ftring/ctl",
	.mode		= 0600,
	.fops		= &ftring_ctl_fops,
};

int ftring_ctl_init(void)
{
	return misc_register(&ftring_ctl_dev);
}

void ftring_ctl_exit(void)
{
	misc_deregister(&ftring_ctl_dev);
}
