// SPDX-License-Identifier: GPL-2.0
/*
 * The previous boot's trace, read back from the persistent region (persist.h) at
 * load, before this boot's rings write over it, and served as /dev/ftring/lastboot.
 *
 * Every sub-buffer is copied out and kept only if its commit word is sane, its events
 * decode to exactly its length and, when the region was sealed at a panic, its length
 * and CRC are those of the seal: damage costs the damaged sub-buffers only, never the
 * whole trace (upstream's persistent buffer, 6.12, drops everything on one bad page).
 * Nothing read from the region is trusted: the layout is recomputed from the region's
 * size and compared, and the pages are checked in the copy. The kept pages, sorted by
 * time per CPU, form the image (format in common/ftring_abi.h), held until released.
 */
#include <linux/crc32.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "ftring.h"
#include "persist.h"

static DEFINE_MUTEX(lb_lock);	/* the image */
static void *lb_image;		/* the previous boot's trace, NULL once released */
static size_t lb_image_len;
static bool lb_misc_on;

enum fp_verdict { FP_EMPTY, FP_OK, FP_BAD };

/* @page is a private copy; @d the seal's descriptor (NULL: not sealed). */
static enum fp_verdict fp_check(const void *page, const struct fp_desc *d)
{
	u64 commit = ftp_page_commit(page), ts = ftp_page_ts(page);
	u32 len = commit & FTP_COMMIT_MASK, size = PAGE_SIZE - FTP_HDR_SIZE, pos = 0;
	const char *data = ftp_page_data(page);
	struct ftp_event ev;

	if (!commit)
		return FP_EMPTY;
	if (commit & ~(u64)(FTP_COMMIT_MASK | FTP_MISSED_EVENTS | FTP_MISSED_STORED))
		return FP_BAD;
	if (!len || len > size || ((commit & FTP_MISSED_STORED) && len + 8 > size))
		return FP_BAD;
	while (pos < len) {
		pos = ftp_next(data, len, pos, &ts, &ev);
		if (!pos)
			return FP_BAD;
		/* a data record holds at least the common header */
		if (ev.payload && ev.payload_len < sizeof(struct ftp_entry))
			return FP_BAD;
	}
	if (d && (d->len != fp_covered(page) ||
		  d->crc != crc32_le(~0U, page, FTP_HDR_SIZE + d->len)))
		return FP_BAD;
	return FP_OK;
}

struct fp_kept {
	u64	ts;
	u32	idx;		/* in the staging area */
};

static int fp_kept_cmp(const void *a, const void *b)
{
	const struct fp_kept *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Builds lb_image from the region @va laid out as @l by the previous boot's header @h
 * (already checked). Returns 0 (image built, or no page worth keeping: no image) or
 * -ENOMEM.
 */
static int fp_build_image(void *va, const struct fp_layout *l, const struct fp_hdr *h)
{
	size_t off_cpus = sizeof(struct ftring_lastboot);
	size_t off_fmt = off_cpus + (size_t)h->nr_slots * sizeof(struct ftring_lastboot_cpu);
	size_t off_pages = round_up(off_fmt + h->fmt_len, PAGE_SIZE), pos;
	struct ftring_lastboot_cpu *cpus;
	struct fp_desc *descs = NULL;
	struct fp_kept *kept = NULL;
	struct ftring_lastboot *lb;
	void *stage = NULL, *img;
	u32 slot, i, n, total = 0;
	u64 dropped = 0;
	int ret = -ENOMEM;

	img = vzalloc(off_pages + (size_t)h->nr_slots * h->nr_subbufs * PAGE_SIZE);
	stage = vmalloc((size_t)h->nr_subbufs * PAGE_SIZE);
	kept = kvcalloc(h->nr_subbufs, sizeof(*kept), GFP_KERNEL);
	descs = kvcalloc(h->nr_subbufs, sizeof(*descs), GFP_KERNEL);
	if (!img || !stage || !kept || !descs) {
		/* not loading leaves the region, and the trace in it, as it is */
		pr_err("ftring: persist: no memory to keep the previous boot's trace (%llu MiB); not loading\n",
		       h->region_size >> 20);
		goto out;
	}
	lb = img;
	cpus = img + off_cpus;
	memcpy(img + off_fmt, va + PAGE_SIZE, h->fmt_len);
	pos = off_pages;
	for (slot = 0; slot < h->nr_slots; slot++) {
		cpus[slot].cpu = slot;
		/* the descriptors, copied once: the checks below use the copy */
		if (h->sealed)
			memcpy(descs, fp_descs(va, l, slot), h->nr_subbufs * sizeof(*descs));
		for (i = 0, n = 0; i < h->nr_subbufs; i++) {
			void *pg = stage + (size_t)n * PAGE_SIZE;

			memcpy(pg, fp_subbuf(va, l, slot, i), PAGE_SIZE);
			switch (fp_check(pg, h->sealed ? &descs[i] : NULL)) {
			case FP_EMPTY:
				cpus[slot].empty++;
				break;
			case FP_BAD:
				cpus[slot].dropped++;
				break;
			case FP_OK:
				kept[n].ts = ftp_page_ts(pg);
				kept[n].idx = n;
				n++;
				break;
			}
		}
		sort(kept, n, sizeof(*kept), fp_kept_cmp, NULL);
		for (i = 0; i < n; i++, pos += PAGE_SIZE)
			memcpy(img + pos, stage + (size_t)kept[i].idx * PAGE_SIZE, PAGE_SIZE);
		cpus[slot].pages = n;
		total += n;
		dropped += cpus[slot].dropped;
		cond_resched();
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
	lb_image = img;
	lb_image_len = pos;
	img = NULL;
	pr_info("ftring: persist: previous boot (%s): %u sub-buffers kept, %llu dropped\n",
		h->sealed ? "sealed at a panic" : "not sealed", total, dropped);
out:
	vfree(img);
	vfree(stage);
	kvfree(kept);
	kvfree(descs);
	return ret;
}

/**
 * fp_lastboot_init() - keep what the previous boot left in the region, if anything.
 * @va:	The region, mapped.
 * @size:	Its size.
 *
 * Return: 0 (kept, or nothing to keep: said in the log) or -ENOMEM.
 */
int fp_lastboot_init(void *va, u64 size)
{
	struct fp_hdr h;
	struct fp_layout l;
	const char *why = NULL;

	memcpy(&h, va, sizeof(h));
	if (h.magic != FP_MAGIC)
		why = "no ftring header (cold boot or first use)";
	else if (h.version != FP_VERSION)
		why = "another layout version";
	else if (h.crc != fp_hdr_crc(&h))
		why = "header checksum mismatch";
	else if (h.region_size != size || h.page_size != PAGE_SIZE)
		why = "region size or page size changed";
	else if (fp_layout_for(size, h.nr_slots, &l) || l.nr_subbufs != h.nr_subbufs ||
		 l.desc_pages != h.desc_pages)
		why = "layout does not match the region";
	else if (h.fmt_len > FP_FMT_PAGES * PAGE_SIZE || !h.fmt_len)
		why = "bad format text length";
	else if (h.clock > FTRING_CLOCK_MAX || h.sealed > FTRING_SEAL_PANIC)
		why = "bad header fields";
	if (why) {
		pr_info("ftring: persist: no previous-boot trace: %s\n", why);
		return 0;
	}
	return fp_build_image(va, &l, &h);
}

static int lb_open(struct inode *inode, struct file *file)
{
	int ret = ftring_may_open();

	if (ret)
		return ret;
	if (file->f_mode & FMODE_WRITE)
		return -EPERM;
	mutex_lock(&lb_lock);
	ret = lb_image ? 0 : -ENODATA;
	mutex_unlock(&lb_lock);
	return ret;
}

static ssize_t lb_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&lb_lock);
	ret = lb_image ? simple_read_from_buffer(ubuf, count, ppos, lb_image, lb_image_len) :
			 -ENODATA;
	mutex_unlock(&lb_lock);
	return ret;
}

static long lb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void *img;

	if (cmd != FTRING_IOC_LASTBOOT_RELEASE)
		return -ENOTTY;
	mutex_lock(&lb_lock);
	img = lb_image;
	lb_image = NULL;
	lb_image_len = 0;
	mutex_unlock(&lb_lock);
	if (!img)
		return -ENODATA;
	vfree(img);
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
 * fp_lastboot_pending() - is a previous-boot trace waiting to be read?
 *
 * Return: true until it is released (or if there was none, false).
 */
bool fp_lastboot_pending(void)
{
	bool ret;

	mutex_lock(&lb_lock);
	ret = !!lb_image;
	mutex_unlock(&lb_lock);
	return ret;
}

/**
 * fp_lastboot_register() - create /dev/ftring/lastboot if there is a trace to read.
 *
 * Return: 0 or -errno.
 */
int fp_lastboot_register(void)
{
	int ret;

	if (!lb_image)
		return 0;
	ret = misc_register(&lb_dev);
	lb_misc_on = !ret;
	return ret;
}

/** fp_lastboot_exit() - remove the device, free the image. */
void fp_lastboot_exit(void)
{
	if (lb_misc_on)
		misc_deregister(&lb_dev);
	lb_misc_on = false;
	vfree(lb_image);
	lb_image = NULL;
	lb_image_len = 0;
}
