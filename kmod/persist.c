// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent rings: the per-CPU rings placed in memory the kernel leaves alone
 * across a warm reboot, and the previous boot's trace read back from it.
 *
 * persist=SIZE@ADDR names a region reserved with memmap=SIZE$ADDR (any kernel);
 * persist=LABEL one reserved with reserve_mem=SIZE:ALIGN:LABEL (Linux >= 6.12).
 *
 * Region layout (native-endian, written and read by this module only):
 *   page 0                  struct fp_hdr
 *   pages 1..FP_FMT_PAGES   the event formats of the boot that writes the rings
 *   then one slot per CPU id: meta page, descriptor pages, nr_subbufs sub-buffers
 * The sub-buffers are the rings' own pages: the write path is the same as without
 * persist=, nothing is copied. At a panic the notifier stops the writers and seals
 * the region: for every sub-buffer its length, time stamp and CRC32 go into the
 * slot's descriptors, then the header says sealed.
 *
 * At load, before the rings are reset, every sub-buffer of the previous boot is
 * copied out and kept only if its commit word is sane, its events decode to exactly
 * its length and, when sealed, its length and CRC are those of the seal: damage
 * costs the damaged sub-buffers only, never the whole trace (upstream's persistent
 * buffer, 6.12, drops everything on one bad page). Nothing read from the region is
 * trusted: the layout is recomputed from the region's size and compared, and the
 * pages are checked in the copy. The kept pages, sorted by time per CPU, form the
 * image /dev/ftring/lastboot reads (format in common/ftring_abi.h).
 *
 * A die notifier is not used: after an oops the kernel may go on writing, and a seal
 * taken then would fail every page written later. Only the panic seals.
 */
#include <linux/crc32.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/panic_notifier.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include "ftring.h"

#define FP_MAGIC	0x3154534950525446ULL	/* "FTRPIST1" */
#define FP_VERSION	1
#define FP_FMT_PAGES	16	/* formats are ~10 KiB; 64 KiB leaves room */
#define FP_MAX_SLOTS	8192

/* page 0 of the region */
struct fp_hdr {
	u64	magic;
	u32	version;
	u32	crc;		/* crc32_le(~0) of the header with @crc = 0 */
	u64	region_size;
	u32	page_size;
	u32	nr_slots;
	u32	nr_subbufs;	/* per slot: ring + reader */
	u32	desc_pages;	/* per slot */
	u32	fmt_len;
	u32	clock;
	u32	sealed;		/* FTRING_SEAL_* */
	u32	pad;
	u8	boot_id[16];
	u64	load_ns;
	u64	seal_ns;
	u64	seal_uptime_ns;
	u64	seal_ts;
};

/* one sub-buffer as the seal saw it */
struct fp_desc {
	u32	crc;
	u32	len;		/* bytes covered by @crc after the page header */
	u64	ts;
};

struct fp_layout {
	u32	nr_slots;
	u32	nr_subbufs;
	u32	desc_pages;
	u32	slot_pages;
};

static char *persist;
module_param(persist, charp, 0444);
MODULE_PARM_DESC(persist, "rings in reserved memory that survives a warm reboot: SIZE@ADDR (memmap=SIZE$ADDR) or LABEL (reserve_mem=, 6.12+)");

static phys_addr_t fp_phys;
static u64 fp_size;
static void *fp_va;		/* NULL: persist= not given */
static bool fp_requested;	/* request_mem_region() held (SIZE@ADDR) */
static bool fp_notified;	/* fp_panic_nb registered */
static struct fp_layout fp_lay;
static DEFINE_MUTEX(fp_lock);	/* header updates, the image */
static void *fp_image;		/* the previous boot's trace, NULL once released */
static size_t fp_image_len;
static bool fp_misc_on;

static struct fp_hdr *fp_hdr(void)
{
	return fp_va;
}

static void *fp_slot(u32 slot)
{
	return fp_va + ((size_t)1 + FP_FMT_PAGES + (size_t)slot * fp_lay.slot_pages) * PAGE_SIZE;
}

static void *fp_subbuf(u32 slot, u32 id)
{
	return fp_slot(slot) + ((size_t)1 + fp_lay.desc_pages + id) * PAGE_SIZE;
}

static struct fp_desc *fp_descs(u32 slot)
{
	return fp_slot(slot) + PAGE_SIZE;
}

/* The only layout a region of @size with @slots CPU slots may have. */
static int fp_layout_for(u64 size, u32 slots, struct fp_layout *l)
{
	u64 per, n;

	if (!slots || slots > FP_MAX_SLOTS || size >> PAGE_SHIFT < 1 + FP_FMT_PAGES)
		return -EINVAL;
	per = ((size >> PAGE_SHIFT) - 1 - FP_FMT_PAGES) / slots;
	if (per < 1 + 1 + 3)
		return -ENOSPC;
	n = per - 1;
	l->desc_pages = DIV_ROUND_UP(n * sizeof(struct fp_desc), PAGE_SIZE);
	n = min_t(u64, n - l->desc_pages, FTRING_MAX_SUBBUFS + 1);
	if (n < 3)
		return -ENOSPC;
	l->nr_slots = slots;
	l->nr_subbufs = n;
	l->slot_pages = 1 + l->desc_pages + n;
	return 0;
}

static u32 fp_hdr_crc(const struct fp_hdr *h)
{
	struct fp_hdr c = *h;

	c.crc = 0;
	return crc32_le(~0U, (const u8 *)&c, sizeof(c));
}

/* Bytes of @page the seal covers after the header: data, and a stored missed count. */
static u32 fp_covered(const void *page)
{
	u64 commit = ftp_page_commit(page);
	u32 len = commit & FTP_COMMIT_MASK, size = PAGE_SIZE - FTP_HDR_SIZE;

	if (len > size)
		return size;
	if ((commit & FTP_MISSED_STORED) && len + 8 <= size)
		len += 8;
	return len;
}

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
 * Builds fp_image from the previous boot's header @h (already checked). Returns 0
 * (image built, or no page worth keeping: no image) or -ENOMEM.
 */
static int fp_build_image(const struct fp_hdr *h)
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
	if (!img || !stage || !kept || !descs)
		goto out;
	lb = img;
	cpus = img + off_cpus;
	memcpy(img + off_fmt, fp_va + PAGE_SIZE, h->fmt_len);
	pos = off_pages;
	for (slot = 0; slot < h->nr_slots; slot++) {
		cpus[slot].cpu = slot;
		/* the descriptors, copied once: the checks below use the copy */
		if (h->sealed)
			memcpy(descs, fp_descs(slot), h->nr_subbufs * sizeof(*descs));
		for (i = 0, n = 0; i < h->nr_subbufs; i++) {
			void *pg = stage + (size_t)n * PAGE_SIZE;

			memcpy(pg, fp_subbuf(slot, i), PAGE_SIZE);
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
	fp_image = img;
	fp_image_len = pos;
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

/* Reads what the previous boot left, if anything. */
static int fp_read_previous(void)
{
	struct fp_hdr h;
	struct fp_layout l;
	const char *why = NULL;

	memcpy(&h, fp_hdr(), sizeof(h));
	if (h.magic != FP_MAGIC)
		why = "no ftring header (cold boot or first use)";
	else if (h.version != FP_VERSION)
		why = "another layout version";
	else if (h.crc != fp_hdr_crc(&h))
		why = "header checksum mismatch";
	else if (h.region_size != fp_size || h.page_size != PAGE_SIZE)
		why = "region size or page size changed";
	else if (fp_layout_for(fp_size, h.nr_slots, &l) || l.nr_subbufs != h.nr_subbufs ||
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
	/* the slots are those of @h's layout from here on */
	fp_lay = l;
	return fp_build_image(&h);
}

/* Writes a fresh header for this boot and empties every slot's sub-buffers. */
static void fp_init_region(void)
{
	struct fp_hdr *h = fp_hdr();
	size_t flen;
	const char *fmt = ftring_formats_text(&flen);
	u32 slot, i;

	for (slot = 0; slot < fp_lay.nr_slots; slot++) {
		memset(fp_descs(slot), 0, (size_t)fp_lay.desc_pages * PAGE_SIZE);
		for (i = 0; i < fp_lay.nr_subbufs; i++)
			memset(fp_subbuf(slot, i), 0, FTP_HDR_SIZE);
	}
	memcpy(fp_va + PAGE_SIZE, fmt, flen);
	memset(h, 0, sizeof(*h));
	h->magic = FP_MAGIC;
	h->version = FP_VERSION;
	h->region_size = fp_size;
	h->page_size = PAGE_SIZE;
	h->nr_slots = fp_lay.nr_slots;
	h->nr_subbufs = fp_lay.nr_subbufs;
	h->desc_pages = fp_lay.desc_pages;
	h->fmt_len = flen;
	h->clock = ftring_cfg.clock;
	h->load_ns = ktime_get_real_ns();
	h->crc = fp_hdr_crc(h);
}

/*
 * The seal, at a panic: the other CPUs are stopped (panic() stops them before it
 * calls the notifiers), so every commit word is final; a writer stopped mid-event
 * never published its bytes, so no page covers them.
 */
static int fp_panic(struct notifier_block *nb, unsigned long action, void *data)
{
	struct fp_hdr *h = fp_hdr();
	struct rb_cpu *buf;
	u32 slot, i;
	u64 ts = 0;

	WRITE_ONCE(ftring_recording, false);
	for (slot = 0; slot < fp_lay.nr_slots; slot++) {
		struct fp_desc *d = fp_descs(slot);

		for (i = 0; i < fp_lay.nr_subbufs; i++) {
			const void *pg = fp_subbuf(slot, i);
			u32 len = fp_covered(pg);

			d[i].len = len;
			d[i].ts = ftp_page_ts(pg);
			d[i].crc = crc32_le(~0U, pg, FTP_HDR_SIZE + len);
		}
	}
	buf = ftring_bufs ? READ_ONCE(ftring_bufs[raw_smp_processor_id()]) : NULL;
	if (buf)
		ts = rb_clock(buf);
	h->seal_ts = ts;
	h->seal_ns = ktime_get_real_fast_ns();
	h->seal_uptime_ns = ktime_get_boot_fast_ns();
	h->clock = READ_ONCE(ftring_cfg.clock);
	h->sealed = FTRING_SEAL_PANIC;
	h->crc = fp_hdr_crc(h);
	return NOTIFY_DONE;
}

static struct notifier_block fp_panic_nb = {
	.notifier_call	= fp_panic,
	/* late: other tracers' notifiers (ftrace_dump_on_oops) may still write events */
	.priority	= INT_MIN,
};

/**
 * ftring_persist_set_boot_id() - name the boot that writes the rings.
 * @id: 16 bytes (the boot's boot_id).
 *
 * Return: 0, or -ENODEV without persist=.
 */
int ftring_persist_set_boot_id(const u8 *id)
{
	struct fp_hdr *h = fp_hdr();

	if (!fp_va)
		return -ENODEV;
	mutex_lock(&fp_lock);
	memcpy(h->boot_id, id, sizeof(h->boot_id));
	h->crc = fp_hdr_crc(h);
	mutex_unlock(&fp_lock);
	return 0;
}

/**
 * ftring_persist_set_clock() - the rings' clock changed: say so in the region.
 * @clock: FTRING_CLOCK_*.
 */
void ftring_persist_set_clock(u32 clock)
{
	struct fp_hdr *h = fp_hdr();

	if (!fp_va)
		return;
	mutex_lock(&fp_lock);
	h->clock = clock;
	h->crc = fp_hdr_crc(h);
	mutex_unlock(&fp_lock);
}

/**
 * ftring_persist_place() - where the rings of @cpu go.
 * @cpu:	The CPU.
 * @place:	Out: the slot's pages.
 *
 * Return: true if persist= placed the rings (then @place is filled), else false.
 */
bool ftring_persist_place(unsigned int cpu, struct rb_place *place)
{
	phys_addr_t slot;

	if (!fp_va || cpu >= fp_lay.nr_slots)
		return false;
	slot = fp_phys + ((phys_addr_t)1 + FP_FMT_PAGES + (phys_addr_t)cpu * fp_lay.slot_pages) *
		PAGE_SIZE;
	place->meta = fp_slot(cpu);
	place->pages = fp_subbuf(cpu, 0);
	place->meta_pfn = PHYS_PFN(slot);
	place->pages_pfn = PHYS_PFN(slot) + 1 + fp_lay.desc_pages;
	return true;
}

/**
 * ftring_persist_flags() - FTRING_STATUS_PERSIST and _LASTBOOT as they stand.
 *
 * Return: the flags.
 */
u32 ftring_persist_flags(void)
{
	u32 f = 0;

	if (fp_va)
		f |= FTRING_STATUS_PERSIST;
	mutex_lock(&fp_lock);
	if (fp_image)
		f |= FTRING_STATUS_LASTBOOT;
	mutex_unlock(&fp_lock);
	return f;
}

/* Ring pages per CPU the region gives (0 without persist=). */
u32 ftring_persist_subbufs(void)
{
	return fp_va ? fp_lay.nr_subbufs - 1 : 0;
}

static int fp_lastboot_open(struct inode *inode, struct file *file)
{
	int ret = ftring_may_open();

	if (ret)
		return ret;
	if (file->f_mode & FMODE_WRITE)
		return -EPERM;
	mutex_lock(&fp_lock);
	ret = fp_image ? 0 : -ENODATA;
	mutex_unlock(&fp_lock);
	return ret;
}

static ssize_t fp_lastboot_read(struct file *file, char __user *ubuf, size_t count,
				loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&fp_lock);
	ret = fp_image ? simple_read_from_buffer(ubuf, count, ppos, fp_image, fp_image_len) :
			 -ENODATA;
	mutex_unlock(&fp_lock);
	return ret;
}

static long fp_lastboot_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void *img;

	if (cmd != FTRING_IOC_LASTBOOT_RELEASE)
		return -ENOTTY;
	mutex_lock(&fp_lock);
	img = fp_image;
	fp_image = NULL;
	fp_image_len = 0;
	mutex_unlock(&fp_lock);
	if (!img)
		return -ENODATA;
	vfree(img);
	pr_info("ftring: persist: previous-boot trace released\n");
	return 0;
}

static const struct file_operations fp_lastboot_fops = {
	.owner		= THIS_MODULE,
	.open		= fp_lastboot_open,
	.read		= fp_lastboot_read,
	.unlocked_ioctl	= fp_lastboot_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= default_llseek,
};

static struct miscdevice fp_lastboot_dev = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "ftring_lastboot",
	.nodename	= "ftring/lastboot",
	.mode		= 0400,
	.fops		= &fp_lastboot_fops,
};

/* persist=SIZE@ADDR or LABEL -> fp_phys, fp_size; 0 or -errno (with a message) */
static int fp_parse(void)
{
	char *at = strchr(persist, '@'), *end;
	u64 size, addr;

	if (at) {
		size = memparse(persist, &end);
		if (end != at)
			goto bad;
		addr = memparse(at + 1, &end);
		if (*end)
			goto bad;
		if (!size || !PAGE_ALIGNED(size) || !PAGE_ALIGNED(addr) || addr + size < addr)
			goto bad;
		/*
		 * Never memory the kernel uses: memmap=SIZE$ADDR takes it out of System RAM;
		 * a SIZE@ADDR inside RAM would be written over by whoever owns those pages.
		 */
		if (region_intersects(addr, size, IORESOURCE_SYSTEM_RAM, IORES_DESC_NONE) !=
		    REGION_DISJOINT) {
			pr_err("ftring: persist=%s: not reserved memory (boot with memmap=0x%llx$0x%llx)\n",
			       persist, size, addr);
			return -EINVAL;
		}
		fp_phys = addr;
		fp_size = size;
		return 0;
	}
	if (!FTRING_HAVE_RESERVE_MEM) {
		pr_err("ftring: persist=%s: a LABEL needs reserve_mem= (Linux 6.12); use SIZE@ADDR with memmap=SIZE$ADDR\n",
		       persist);
		return -EINVAL;
	}
	{
		phys_addr_t start, sz;

		if (!ftring_reserve_mem_find(persist, &start, &sz)) {
			pr_err("ftring: persist=%s: no reserve_mem= region of that name\n",
			       persist);
			return -ENOENT;
		}
		fp_phys = PAGE_ALIGN(start);
		fp_size = (start + sz - fp_phys) & PAGE_MASK;
		return 0;
	}
bad:
	pr_err("ftring: persist=%s: expected SIZE@ADDR (page aligned) or a reserve_mem LABEL\n",
	       persist);
	return -EINVAL;
}

/**
 * ftring_persist_init() - map the region, keep the previous boot's trace, start
 * this boot's. Without persist= nothing happens.
 *
 * Return: 0 or -errno (the module does not load: a persist= that cannot be honoured
 * must not silently record into memory lost at a crash).
 */
int ftring_persist_init(void)
{
	size_t flen;
	int ret;

	if (!persist || !*persist)
		return 0;
	ret = fp_parse();
	if (ret)
		return ret;
	ftring_formats_text(&flen);
	ret = fp_layout_for(fp_size, nr_cpu_ids, &fp_lay);
	if (ret || flen > FP_FMT_PAGES * PAGE_SIZE) {
		pr_err("ftring: persist: %llu bytes are too few for %u CPUs\n", fp_size,
		       nr_cpu_ids);
		return -ENOSPC;
	}
	/* a reserve_mem region is inside System RAM (busy): only memmap= ones are claimed */
	if (strchr(persist, '@')) {
		if (!request_mem_region(fp_phys, fp_size, "ftring persist")) {
			pr_err("ftring: persist: %pa+%llu is in use\n", &fp_phys, fp_size);
			return -EBUSY;
		}
		fp_requested = true;
	}
	fp_va = memremap(fp_phys, fp_size, MEMREMAP_WB);
	if (!fp_va) {
		ret = -ENOMEM;
		goto err;
	}
	ret = fp_read_previous();
	if (ret)
		goto err;
	/* back to this boot's layout (the previous one may have had other CPU ids) */
	fp_layout_for(fp_size, nr_cpu_ids, &fp_lay);
	fp_init_region();
	if (fp_image) {
		ret = misc_register(&fp_lastboot_dev);
		if (ret)
			goto err;
		fp_misc_on = true;
	}
	atomic_notifier_chain_register(&panic_notifier_list, &fp_panic_nb);
	fp_notified = true;
	/* the layout, for whoever must find a page in the region (tests, a debugger) */
	pr_info("ftring: persist: %llu bytes at %pa: %u CPU slots of %u pages from page %u (meta, %u descriptor pages, %u sub-buffers)\n",
		fp_size, &fp_phys, fp_lay.nr_slots, fp_lay.slot_pages, 1 + FP_FMT_PAGES,
		fp_lay.desc_pages, fp_lay.nr_subbufs);
	return 0;
err:
	ftring_persist_exit();
	return ret;
}

/**
 * ftring_persist_exit() - undo ftring_persist_init(); the rings are gone already.
 * The region keeps this boot's data: a later load reads it back (unsealed).
 */
void ftring_persist_exit(void)
{
	if (fp_notified)
		atomic_notifier_chain_unregister(&panic_notifier_list, &fp_panic_nb);
	fp_notified = false;
	if (fp_misc_on)
		misc_deregister(&fp_lastboot_dev);
	fp_misc_on = false;
	vfree(fp_image);
	fp_image = NULL;
	if (fp_va)
		memunmap(fp_va);
	fp_va = NULL;
	if (fp_requested)
		release_mem_region(fp_phys, fp_size);
	fp_requested = false;
}
