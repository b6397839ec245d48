// SPDX-License-Identifier: GPL-2.0
/*
 * The previous boot's trace, read back from the persistent region (persist.h) at
 * load, before this boot's rings write over it, and served as /dev/ftring/lastboot.
 *
 * Every sub-buffer is copied out and kept only if its commit word is sane, its events
 * decode to exactly its length and, when the region was sealed at a panic, its length
 * and CRC are those of the seal: damage costs the damaged sub-buffers only, never the
 * whole trace (upstream's persistent buffer, 6.12, drops everything on one bad page).
 * Nothing read from the region is trusted: the layout is recomputed from the size
 * the checksummed header names (never past the mapping) and compared, and the pages
 * are checked in the copy.
 *
 * The image (format in common/ftring_abi.h) is a head (header, CPU table, formats)
 * and, per CPU, its kept pages sorted by time, each CPU's in an allocation of its own:
 * what is kept is all the memory it takes, until released.
 */
#include <linux/crc32.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "ftring.h"
#include "persist.h"

#define LB_GFP	(GFP_KERNEL | __GFP_NOWARN)	/* failing is an answer: see init */

struct lb_cpu {
	void	*pages;		/* @n pages, time order; NULL if none */
	u32	n;
};

static DEFINE_MUTEX(lb_lock);	/* the image */
static void *lb_head;		/* header, CPU table, formats: @lb_head_len bytes */
static size_t lb_head_len;	/* a multiple of PAGE_SIZE */
static struct lb_cpu *lb_cpus;	/* [nr_cpus of the header] */
static u32 lb_nr_cpus;
static size_t lb_len;		/* the whole image; 0: none (or released) */
static bool lb_misc_on;
static bool lb_pinned;		/* holds a module reference: see register */

enum lb_verdict { LB_EMPTY, LB_OK, LB_BAD };

/* @page is a private copy; @d the seal's descriptor (NULL: not sealed at a panic). */
static enum lb_verdict lb_check(const void *page, const struct fp_desc *d)
{
	u64 commit = ftp_page_commit(page), ts = ftp_page_ts(page);
	u32 len = commit & FTP_COMMIT_MASK, size = PAGE_SIZE - FTP_HDR_SIZE, pos = 0;
	const char *data = ftp_page_data(page);
	struct ftp_event ev;

	if (!commit)
		return LB_EMPTY;
	if (commit & ~(u64)(FTP_COMMIT_MASK | FTP_MISSED_EVENTS | FTP_MISSED_STORED))
		return LB_BAD;
	/* a page with events has the time of its first (readers refuse a 0) */
	if (!len || len > size || !ts || ((commit & FTP_MISSED_STORED) && len + 8 > size))
		return LB_BAD;
	while (pos < len) {
		pos = ftp_next(data, len, pos, &ts, &ev);
		if (!pos)
			return LB_BAD;
		/* a data record holds at least the common header */
		if (ev.payload && ev.payload_len < sizeof(struct ftp_entry))
			return LB_BAD;
	}
	if (d && (d->len != ftring_region_covered(page) ||
		  d->crc != crc32_le(~0U, page, FTP_HDR_SIZE + d->len)))
		return LB_BAD;
	return LB_OK;
}

struct lb_kept {
	u64	ts;
	u32	idx;		/* in the staging area */
};

/* time order; equal times (a coarse clock) keep the order the ring gave them */
static int lb_kept_cmp(const void *a, const void *b)
{
	const struct lb_kept *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void lb_free(void)
{
	u32 i;

	for (i = 0; lb_cpus && i < lb_nr_cpus; i++)
		vfree(lb_cpus[i].pages);
	kvfree(lb_cpus);
	kvfree(lb_head);
	lb_cpus = NULL;
	lb_head = NULL;
	lb_nr_cpus = 0;
	lb_head_len = 0;
	lb_len = 0;
	if (lb_pinned)
		module_put(THIS_MODULE);
	lb_pinned = false;
}

/*
 * Keeps the good sub-buffers of slot @slot (region @va, layout @l, header @h) in
 * lb_cpus[@slot], counting into @c. @stage holds a slot's worth of pages, @kept and
 * @descs a slot's worth of entries. 0 or -ENOMEM.
 */
static int lb_keep_slot(void *va, const struct fp_layout *l, const struct fp_hdr *h, u32 slot,
			void *stage, struct lb_kept *kept, struct fp_desc *descs,
			struct ftring_lastboot_cpu *c)
{
	bool sealed = h->sealed == FTRING_SEAL_PANIC;
	u32 i, n = 0;
	void *pages;

	c->cpu = slot;
	/* the descriptors, copied once: the checks below use the copy */
	if (sealed)
		memcpy(descs, fp_descs(va, l, slot), h->nr_subbufs * sizeof(*descs));
	for (i = 0; i < h->nr_subbufs; i++) {
		void *pg = stage + (size_t)n * PAGE_SIZE;

		memcpy(pg, fp_subbuf(va, l, slot, i), PAGE_SIZE);
		switch (lb_check(pg, sealed ? &descs[i] : NULL)) {
		case LB_EMPTY:
			c->empty++;
			break;
		case LB_BAD:
			c->dropped++;
			break;
		case LB_OK:
			kept[n].ts = ftp_page_ts(pg);
			kept[n].idx = n;
			n++;
			break;
		}
		if (!(i % 64))
			cond_resched();
	}
	if (!n)
		return 0;
	pages = __vmalloc((size_t)n * PAGE_SIZE, LB_GFP);
	if (!pages)
		return -ENOMEM;
	sort(kept, n, sizeof(*kept), lb_kept_cmp, NULL);
	for (i = 0; i < n; i++)
		memcpy(pages + (size_t)i * PAGE_SIZE, stage + (size_t)kept[i].idx * PAGE_SIZE,
		       PAGE_SIZE);
	lb_cpus[slot].pages = pages;
	lb_cpus[slot].n = n;
	c->pages = n;
	return 0;
}

/*
 * Builds the image from the region @va laid out as @l by the previous boot's header
 * @h (already checked). Returns 0 (built, or nothing worth keeping) or -ENOMEM.
 */
static int lb_build(void *va, const struct fp_layout *l, const struct fp_hdr *h)
{
	size_t off_cpus = sizeof(struct ftring_lastboot);
	size_t off_fmt = off_cpus + (size_t)h->nr_slots * sizeof(struct ftring_lastboot_cpu);
	size_t head_len = round_up(off_fmt + h->fmt_len, PAGE_SIZE);
	struct ftring_lastboot_cpu *cpus;
	struct fp_desc *descs = NULL;
	struct lb_kept *kept = NULL;
	struct ftring_lastboot *lb;
	void *stage = NULL;
	u64 total = 0, dropped = 0;
	int ret = -ENOMEM;
	u32 slot;

	lb_head = kvzalloc(head_len, LB_GFP);
	lb_cpus = kvcalloc(h->nr_slots, sizeof(*lb_cpus), LB_GFP);
	lb_nr_cpus = h->nr_slots;
	stage = __vmalloc((size_t)h->nr_subbufs * PAGE_SIZE, LB_GFP);
	kept = kvcalloc(h->nr_subbufs, sizeof(*kept), LB_GFP);
	descs = kvcalloc(h->nr_subbufs, sizeof(*descs), LB_GFP);
	if (!lb_head || !lb_cpus || !stage || !kept || !descs)
		goto out;
	lb = lb_head;
	cpus = lb_head + off_cpus;
	memcpy(lb_head + off_fmt, va + PAGE_SIZE, h->fmt_len);
	for (slot = 0; slot < h->nr_slots; slot++) {
		ret = lb_keep_slot(va, l, h, slot, stage, kept, descs, &cpus[slot]);
		if (ret)
			goto out;
		total += cpus[slot].pages;
		dropped += cpus[slot].dropped;
	}
	ret = 0;
	if (!total && !dropped) {
		pr_info("ftring: persist: the previous boot left no events\n");
		goto out;
	}
	lb->magic = FTRING_LASTBOOT_MAGIC;
	lb->version = FTRING_LASTBOOT_VERSION;
	lb->hdr_len = sizeof(*lb);
	lb->page_size = PAGE_SIZE;
	lb->nr_cpus = h->nr_slots;
	lb->clock = h->clock;
	lb->sealed = h->sealed;
	memcpy(lb->boot_id, h->boot_id, sizeof(lb->boot_id));
	lb->load_ns = h->load_ns;
	lb->seal_ns = h->seal_ns;
	lb->seal_uptime_ns = h->seal_uptime_ns;
	lb->seal_ts = h->seal_ts;
	lb->fmt_len = h->fmt_len;
	lb->nr_pages = total;
	lb->dropped = dropped;
	lb_head_len = head_len;
	lb_len = head_len + total * PAGE_SIZE;
	pr_info("ftring: persist: previous boot (%s): %llu sub-buffers kept, %llu dropped\n",
		h->sealed == FTRING_SEAL_PANIC ? "sealed at a panic" :
		h->sealed == FTRING_SEAL_CLEAN ? "ended cleanly" : "not sealed", total, dropped);
out:
	if (ret == -ENOMEM)
		/* not loading leaves the region, and the trace in it, as it is */
		pr_err("ftring: persist: no memory to keep the previous boot's trace (up to %llu MiB); not loading\n",
		       h->region_size >> 20);
	if (!lb_len)
		lb_free();
	vfree(stage);
	kvfree(kept);
	kvfree(descs);
	return ret;
}

/* A crash's trace this load cannot read: not loading keeps it. -EBUSY. */
static int lb_refuse(const struct fp_hdr *h, u64 size)
{
	pr_err("ftring: persist: the region holds a previous boot's trace written in %llu bytes of %u-byte pages, which this load (%llu bytes, %lu-byte pages) cannot read: not loading; load with the size it was written in to read it, or with persist_discard=1 to drop it\n",
	       h->region_size, h->page_size, size, PAGE_SIZE);
	return -EBUSY;
}

/**
 * ftring_lastboot_init() - keep what the previous boot left in the region, if anything.
 * @va:		The region, mapped.
 * @size:	Its size.
 * @discard:	Drop a trace this load cannot read (persist_discard=).
 *
 * A region that grew is read with the layout it was written in, which lies inside
 * the mapping. One that shrank, or another page size, cannot be read: its trace,
 * unless it ended cleanly, is kept by not loading (a mistaken persist= must not
 * write over the only copy of a crash).
 *
 * Return: 0 (kept, or nothing to keep: said in the log), -ENOMEM, or -EBUSY (the
 * region holds a trace this load cannot read).
 */
int ftring_lastboot_init(void *va, u64 size, bool discard)
{
	struct fp_hdr h;
	struct fp_layout l;
	const char *why = NULL;

	memcpy(&h, va, sizeof(h));
	if (h.magic != FP_MAGIC)
		why = "no ftring header (cold boot or first use)";
	else if (h.version != FP_VERSION)
		why = "another layout version";
	else if (h.crc != ftring_region_hdr_crc(&h))
		why = "header checksum mismatch";
	else if (h.fmt_len > FP_FMT_PAGES * PAGE_SIZE || !h.fmt_len)
		why = "bad format text length";
	else if (h.clock > FTRING_CLOCK_MAX || h.sealed > FTRING_SEAL_CLEAN)
		why = "bad header fields";
	if (!why && (h.region_size > size || h.page_size != PAGE_SIZE)) {
		/* a sound header this load cannot read: a crash's trace is kept by not loading */
		if (h.sealed != FTRING_SEAL_CLEAN && !discard)
			return lb_refuse(&h, size);
		why = "the region shrank, or the page size changed";
	}
	if (!why && (ftring_region_layout(h.region_size, h.nr_slots, &l) ||
		     l.nr_subbufs != h.nr_subbufs || l.desc_pages != h.desc_pages))
		why = "layout does not match the region";
	if (why) {
		pr_info("ftring: persist: no previous-boot trace: %s\n", why);
		return 0;
	}
	if (h.region_size != size)
		pr_info("ftring: persist: the previous boot's region was %llu bytes: read as laid out then\n",
			h.region_size);
	return lb_build(va, &l, &h);
}

static int lb_open(struct inode *inode, struct file *file)
{
	int ret = ftring_may_open();

	if (ret)
		return ret;
	if (file->f_mode & FMODE_WRITE)
		return -EPERM;
	mutex_lock(&lb_lock);
	ret = lb_len ? 0 : -ENODATA;
	mutex_unlock(&lb_lock);
	return ret;
}

/* Copies image bytes [*@ppos, +@count) to @ubuf: the head, then the CPUs' pages. */
static ssize_t lb_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	size_t done = 0, pos, chunk, off;
	const void *src;
	ssize_t ret;
	u32 i;

	mutex_lock(&lb_lock);
	if (!lb_len) {
		ret = -ENODATA;
		goto out;
	}
	while (done < count && *ppos >= 0 && (size_t)*ppos < lb_len) {
		pos = *ppos;
		if (pos < lb_head_len) {
			src = lb_head + pos;
			chunk = lb_head_len - pos;
		} else {
			off = pos - lb_head_len;
			for (i = 0; i < lb_nr_cpus && off >= (size_t)lb_cpus[i].n * PAGE_SIZE; i++)
				off -= (size_t)lb_cpus[i].n * PAGE_SIZE;
			if (WARN_ON_ONCE(i == lb_nr_cpus))
				break;
			src = lb_cpus[i].pages + off;
			chunk = (size_t)lb_cpus[i].n * PAGE_SIZE - off;
		}
		chunk = min(chunk, count - done);
		if (copy_to_user(ubuf + done, src, chunk)) {
			ret = done ? done : -EFAULT;
			goto out;
		}
		done += chunk;
		*ppos += chunk;
	}
	ret = done;
out:
	mutex_unlock(&lb_lock);
	return ret;
}

static long lb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != FTRING_IOC_LASTBOOT_RELEASE)
		return -ENOTTY;
	mutex_lock(&lb_lock);
	if (!lb_len) {
		mutex_unlock(&lb_lock);
		return -ENODATA;
	}
	lb_free();
	mutex_unlock(&lb_lock);
	pr_info("ftring: persist: previous-boot trace released\n");
	return 0;
}

static const struct file_operations lb_fops = {
	.owner		= THIS_MODULE,
	.open		= lb_open,
	.read		= lb_read,
	.unlocked_ioctl	= lb_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= default_llseek,
};

static struct miscdevice lb_dev = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "ftring_lastboot",
	.nodename	= "ftring/lastboot",
	.mode		= 0400,
	.fops		= &lb_fops,
};

/**
 * ftring_lastboot_pending() - is a previous-boot trace waiting to be read?
 *
 * Return: true until it is released (false if there was none).
 */
bool ftring_lastboot_pending(void)
{
	bool ret;

	mutex_lock(&lb_lock);
	ret = lb_len;
	mutex_unlock(&lb_lock);
	return ret;
}

/**
 * ftring_lastboot_register() - create /dev/ftring/lastboot if there is a trace to read.
 *
 * Return: 0 or -errno.
 */
int ftring_lastboot_register(void)
{
	int ret;

	if (!lb_len)
		return 0;
	ret = misc_register(&lb_dev);
	lb_misc_on = !ret;
	return ret;
}

/**
 * ftring_lastboot_hold() - the region is written over: a crash's trace, now only in
 * the copy, holds a reference on the module until it is released (an unload would
 * free it). A clean end does not. Before any file opens (ftring_loaded()): a release
 * through one unpins.
 */
void ftring_lastboot_hold(void)
{
	mutex_lock(&lb_lock);
	if (lb_len && ((const struct ftring_lastboot *)lb_head)->sealed != FTRING_SEAL_CLEAN) {
		__module_get(THIS_MODULE);
		lb_pinned = true;
		pr_info("ftring: persist: the module stays loaded until the previous boot's trace is released (recorderd lastboot --release)\n");
	}
	mutex_unlock(&lb_lock);
}

/** ftring_lastboot_exit() - remove the device, free the image. */
void ftring_lastboot_exit(void)
{
	if (lb_misc_on)
		misc_deregister(&lb_dev);
	lb_misc_on = false;
	lb_free();
}
