// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent rings: the per-CPU rings placed in memory the kernel leaves alone
 * across a warm reboot, and sealed at a panic (the region's layout: persist.h).
 *
 * persist=SIZE@ADDR names a region reserved with memmap=SIZE$ADDR (any kernel);
 * persist=LABEL one reserved with reserve_mem=SIZE:ALIGN:LABEL (Linux >= 6.11).
 *
 * The sub-buffers are the rings' own pages: the write path is the same as without
 * persist=, nothing is copied. At a panic the notifier stops the writers and seals the
 * region: for every sub-buffer its length, time stamp and CRC32 go into the slot's
 * descriptors, then the header says sealed. Before this load writes anything, what the
 * previous one left is taken (lastboot.c); and it writes only once it cannot fail
 * (ftring_persist_arm()), so a failed load leaves the region as it was.
 *
 * A die notifier is not used: after an oops the kernel may go on writing, and a seal
 * taken then would fail every page written later. Only the panic seals.
 */
#include <linux/crc32.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/libnvdimm.h>
#include <linux/panic_notifier.h>
#include <linux/reboot.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include "compat.h"
#include "ftring.h"
#include "persist.h"

static char *persist;
module_param(persist, charp, 0444);
MODULE_PARM_DESC(persist, "rings in reserved memory that survives a warm reboot: SIZE@ADDR (memmap=SIZE$ADDR) or LABEL (reserve_mem=, 6.11+)");

static bool persist_discard;
module_param(persist_discard, bool, 0444);
MODULE_PARM_DESC(persist_discard, "drop a previous boot's trace this load cannot read (the region shrank, another page size), which otherwise makes the load fail");

static phys_addr_t fp_phys;
static u64 fp_size;
static void *fp_va;		/* NULL: persist= not given */
static bool fp_requested;	/* request_mem_region() held (SIZE@ADDR) */
static bool fp_armed;		/* this boot's header written: the region is ours */
static bool fp_notified;	/* fp_panic_nb and fp_reboot_nb registered */
static struct fp_layout fp_lay;
static DEFINE_MUTEX(fp_lock);	/* header updates */

static struct fp_hdr *fp_hdr(void)
{
	return fp_va;
}

/**
 * ftring_region_layout() - the only layout a region may have.
 * @size:	The region's size.
 * @slots:	CPU slots.
 * @l:		Out: the layout.
 *
 * Return: 0, or -EINVAL/-ENOSPC when @size cannot hold @slots slots.
 */
int ftring_region_layout(u64 size, u32 slots, struct fp_layout *l)
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

/* crc32_le(~0) of @h with its @crc field 0 */
u32 ftring_region_hdr_crc(const struct fp_hdr *h)
{
	struct fp_hdr c = *h;

	c.crc = 0;
	return crc32_le(~0U, (const u8 *)&c, sizeof(c));
}

/* Bytes of @page the seal covers after the header: data, and a stored missed count. */
u32 ftring_region_covered(const void *page)
{
	u64 commit = ftp_page_commit(page);
	u32 len = commit & FTP_COMMIT_MASK, size = PAGE_SIZE - FTP_HDR_SIZE;

	if (len > size)
		return size;
	if ((commit & FTP_MISSED_STORED) && len + 8 <= size)
		len += 8;
	return len;
}

/*
 * The header's checksum, and the header out of the cache: a reset after a hang
 * does not write dirty lines back, and a stale header would fail its checksum at
 * the next load, taking every page it describes with it.
 */
static void fp_hdr_commit(struct fp_hdr *h)
{
	h->crc = ftring_region_hdr_crc(h);
	arch_wb_cache_pmem(h, sizeof(*h));
}

/* Writes a fresh header for this boot and empties every slot's sub-buffers. */
static void fp_init_region(void)
{
	struct fp_hdr *h = fp_hdr();
	size_t flen;
	const char *fmt = ftring_formats_text(&flen);
	u32 slot, i;

	for (slot = 0; slot < fp_lay.nr_slots; slot++) {
		memset(fp_descs(fp_va, &fp_lay, slot), 0, (size_t)fp_lay.desc_pages * PAGE_SIZE);
		for (i = 0; i < fp_lay.nr_subbufs; i++)
			memset(fp_subbuf(fp_va, &fp_lay, slot, i), 0, FTP_HDR_SIZE);
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
	/* the emptied descriptors and sub-buffer headers too, before the header */
	arch_wb_cache_pmem(fp_va + PAGE_SIZE, fp_size - PAGE_SIZE);
	fp_hdr_commit(h);
}

/*
 * The seal, at a panic: the other CPUs are stopped (panic() stops them before it
 * calls the notifiers), so every commit word is final; a writer stopped mid-event
 * never published its bytes, so no page covers them.
 */
static int fp_panic(struct notifier_block *nb, unsigned long action, void *data)
{
	struct fp_hdr *h = fp_hdr();
	u32 slot, i;

	WRITE_ONCE(ftring_recording, false);
	for (slot = 0; slot < fp_lay.nr_slots; slot++) {
		struct fp_desc *d = fp_descs(fp_va, &fp_lay, slot);

		for (i = 0; i < fp_lay.nr_subbufs; i++) {
			const void *pg = fp_subbuf(fp_va, &fp_lay, slot, i);
			u32 len = ftring_region_covered(pg);

			d[i].len = len;
			d[i].ts = ftp_page_ts(pg);
			d[i].crc = crc32_le(~0U, pg, FTP_HDR_SIZE + len);
		}
	}
	/*
	 * The pages and descriptors reach memory before the header says sealed: a
	 * reset does not write dirty lines back, and a seal over pages still in the
	 * cache would fail them all.
	 */
	arch_wb_cache_pmem(fp_va + PAGE_SIZE, fp_size - PAGE_SIZE);
	h->clock = READ_ONCE(ftring_cfg.clock);
	h->seal_ts = rb_clock_read(h->clock);
	h->seal_ns = ktime_get_real_fast_ns();
	h->seal_uptime_ns = ktime_get_boot_fast_ns();
	h->sealed = FTRING_SEAL_PANIC;
	fp_hdr_commit(h);
	return NOTIFY_DONE;
}

static struct notifier_block fp_panic_nb = {
	.notifier_call	= fp_panic,
	/* late: other tracers' notifiers (ftrace_dump_on_oops) may still write events */
	.priority	= INT_MIN,
};

/* An orderly end (reboot, power off, unload): the next load need not keep it. */
static void fp_mark_clean(void)
{
	struct fp_hdr *h = fp_hdr();

	mutex_lock(&fp_lock);
	if (h->sealed != FTRING_SEAL_PANIC) {
		h->sealed = FTRING_SEAL_CLEAN;
		fp_hdr_commit(h);
	}
	mutex_unlock(&fp_lock);
}

static int fp_reboot(struct notifier_block *nb, unsigned long action, void *data)
{
	fp_mark_clean();
	return NOTIFY_DONE;
}

static struct notifier_block fp_reboot_nb = {
	.notifier_call	= fp_reboot,
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
	fp_hdr_commit(h);
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
	fp_hdr_commit(h);
	mutex_unlock(&fp_lock);
}

/**
 * ftring_persist_place() - where the rings of @cpu go.
 * @cpu:	The CPU.
 * @place:	Out: the slot's pages (to be kept as they are until the region is armed).
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
	place->meta = fp_slot(fp_va, &fp_lay, cpu);
	place->pages = fp_subbuf(fp_va, &fp_lay, cpu, 0);
	place->meta_pfn = PHYS_PFN(slot);
	place->pages_pfn = PHYS_PFN(slot) + 1 + fp_lay.desc_pages;
	place->keep = !fp_armed;
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
	if (ftring_lastboot_pending())
		f |= FTRING_STATUS_LASTBOOT;
	return f;
}

/* Ring pages per CPU the region gives (0 without persist=). */
u32 ftring_persist_subbufs(void)
{
	return fp_va ? fp_lay.nr_subbufs - 1 : 0;
}

/* persist=SIZE@ADDR or LABEL -> fp_phys, fp_size; 0 or -errno (with a message) */
static int fp_parse(void)
{
	char *at = strchr(persist, '@'), *end;
	phys_addr_t start, sz;
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
		    REGION_DISJOINT ||
		    region_intersects(addr, size, IORESOURCE_MEM, IORES_DESC_RESERVED) !=
		    REGION_INTERSECTS) {
			pr_err("ftring: persist=%s: not a reserved region (boot with memmap=0x%llx$0x%llx)\n",
			       persist, size, addr);
			return -EINVAL;
		}
		fp_phys = addr;
		fp_size = size;
		return 0;
	}
	if (!FTRING_HAVE_RESERVE_MEM) {
		pr_err("ftring: persist=%s: a LABEL needs reserve_mem= (Linux 6.11); use SIZE@ADDR with memmap=SIZE$ADDR\n",
		       persist);
		return -EINVAL;
	}
	if (!ftring_reserve_mem_find(persist, &start, &sz)) {
		pr_err("ftring: persist=%s: no reserve_mem= region of that name\n", persist);
		return -ENOENT;
	}
	fp_phys = PAGE_ALIGN(start);
	if (sz <= fp_phys - start || ((start + sz - fp_phys) & PAGE_MASK) == 0) {
		pr_err("ftring: persist=%s: the region is smaller than a page\n", persist);
		return -EINVAL;
	}
	fp_size = (start + sz - fp_phys) & PAGE_MASK;
	return 0;
bad:
	pr_err("ftring: persist=%s: expected SIZE@ADDR (page aligned) or a reserve_mem LABEL\n",
	       persist);
	return -EINVAL;
}

/**
 * ftring_persist_init() - map the region and keep the previous boot's trace; the
 * region is only read (ftring_persist_arm() starts this boot's). Without persist=
 * nothing happens.
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
	if (WARN_ON_ONCE(flen > FP_FMT_PAGES * PAGE_SIZE))
		return -E2BIG;	/* the schema outgrew the layout: a build-time mistake */
	ret = ftring_region_layout(fp_size, nr_cpu_ids, &fp_lay);
	if (ret) {
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
	ret = ftring_lastboot_init(fp_va, fp_size, persist_discard);
	if (ret)
		goto err;
	ret = ftring_lastboot_register();
	if (ret)
		goto err;
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
 * ftring_persist_arm() - this boot's rings take the region over: a fresh header,
 * every slot emptied; the previous boot's trace lives on in its copy alone.
 *
 * Called once nothing in the load can fail any more: a load failing before it
 * leaves the region as it found it, and the previous boot's trace for the next
 * load (the copy kept here goes with the failed module). ftring_bufs_lock held
 * (ftring_persist_place() reads fp_armed under it).
 *
 * Return: true if there is a region (its placed buffers must be reset now).
 */
bool ftring_persist_arm(void)
{
	lockdep_assert_held(&ftring_bufs_lock);
	if (!fp_va)
		return false;
	fp_init_region();
	fp_armed = true;
	ftring_lastboot_hold();
	return true;
}

/* After ftring_persist_arm(), out of ftring_bufs_lock: the seal at a panic, the clean end. */
void ftring_persist_seal_on_panic(void)
{
	if (!fp_armed)
		return;
	atomic_notifier_chain_register(&panic_notifier_list, &fp_panic_nb);
	register_reboot_notifier(&fp_reboot_nb);
	fp_notified = true;
}

/**
 * ftring_persist_exit() - undo ftring_persist_init(); the rings are gone already.
 * The region keeps this boot's data, marked as ended cleanly: a later load reads it
 * back (checked by structure) and the daemon does not save it by itself.
 */
void ftring_persist_exit(void)
{
	if (fp_notified) {
		atomic_notifier_chain_unregister(&panic_notifier_list, &fp_panic_nb);
		unregister_reboot_notifier(&fp_reboot_nb);
	}
	if (fp_armed)
		fp_mark_clean();
	fp_notified = false;
	fp_armed = false;
	ftring_lastboot_exit();
	if (fp_va)
		memunmap(fp_va);
	fp_va = NULL;
	if (fp_requested)
		release_mem_region(fp_phys, fp_size);
	fp_requested = false;
}
