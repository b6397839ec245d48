/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The persistent region's layout, shared by persist.c (the region this boot writes,
 * the seal at a panic) and lastboot.c (the previous boot's trace read back from it).
 *
 * Region (native-endian, written and read by this module only):
 *   page 0                  struct fp_hdr
 *   pages 1..FP_FMT_PAGES   the event formats of the load that writes the rings
 *   then one slot per CPU id: meta page, descriptor pages, nr_subbufs sub-buffers
 */
#ifndef FTRING_PERSIST_H
#define FTRING_PERSIST_H

#include <linux/types.h>
#include <linux/mm.h>

#define FP_MAGIC	0x3154534950525446ULL	/* "FTRPIST1" */
#define FP_VERSION	1
#define FP_FMT_PAGES	16	/* formats are ~10 KiB; 64 KiB leaves room */
#define FP_MAX_SLOTS	4096	/* trace.dat CPUs recorderd writes */

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

static inline void *fp_slot(void *va, const struct fp_layout *l, u32 slot)
{
	return va + ((size_t)1 + FP_FMT_PAGES + (size_t)slot * l->slot_pages) * PAGE_SIZE;
}

static inline void *fp_subbuf(void *va, const struct fp_layout *l, u32 slot, u32 id)
{
	return fp_slot(va, l, slot) + ((size_t)1 + l->desc_pages + id) * PAGE_SIZE;
}

static inline struct fp_desc *fp_descs(void *va, const struct fp_layout *l, u32 slot)
{
	return fp_slot(va, l, slot) + PAGE_SIZE;
}

/* persist.c */
int ftring_region_layout(u64 size, u32 slots, struct fp_layout *l);
u32 ftring_region_hdr_crc(const struct fp_hdr *h);
u32 ftring_region_covered(const void *page);

/* lastboot.c */
int ftring_lastboot_init(void *va, u64 size, bool discard);
int ftring_lastboot_register(void);
void ftring_lastboot_hold(void);
void ftring_lastboot_exit(void);
bool ftring_lastboot_pending(void);

#endif /* FTRING_PERSIST_H */
