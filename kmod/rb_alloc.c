// SPDX-License-Identifier: GPL-2.0
/*
 * Page rings: allocation (zeroed, on the CPU's node), ring
 * initialisation, reset, free.
 *
 * Page ids are fixed for the life of a page array: id 0 starts as the reader
 * page, 1..nr_pages form the ring in order, and the writer starts on page 1,
 * which is also the head. Swaps move pages between ring and reader, never ids.
 */
#ifdef __KERNEL__
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/topology.h>
#endif
#include "rb_write.h"

/*
 * A trace buffer is never worth an OOM kill: fail instead (as upstream's ring buffer
 * allocates), quietly, since the caller reports ENOMEM.
 */
#define RB_GFP	(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

static void rb_wake_fn(struct irq_work *work)
{
	struct rb_cpu *buf = container_of(work, struct rb_cpu, wake_work);

	WRITE_ONCE(buf->waiters, false);
	wake_up_interruptible_all(&buf->waitq);
}

/**
 * rb_pages_free() - free a page array from rb_pages_alloc().
 * @pages:	The array (NULL is fine).
 * @nr_pages:	Ring pages it was allocated for.
 */
void rb_pages_free(struct rb_page *pages, u32 nr_pages)
{
	u32 i;

	if (!pages)
		return;
	for (i = 0; i <= nr_pages; i++)
		if (pages[i].addr)
			free_page((unsigned long)pages[i].addr);
	kvfree(pages);
}

/**
 * rb_pages_alloc() - allocate @nr_pages ring pages plus the reader page.
 * @buf:	The buffer (for its CPU's node).
 * @nr_pages:	Ring pages.
 * @pages:	Out: the array, all pages zeroed.
 *
 * Return: 0 or -ENOMEM (nothing allocated).
 */
int rb_pages_alloc(struct rb_cpu *buf, u32 nr_pages, struct rb_page **pages)
{
	int node = cpu_to_node(buf->cpu);
	struct rb_page *p;
	struct page *page;
	u32 i;

	p = kvcalloc(nr_pages + 1, sizeof(*p), RB_GFP);
	if (!p)
		return -ENOMEM;
	for (i = 0; i <= nr_pages; i++) {
		page = alloc_pages_node(node, RB_GFP | __GFP_ZERO, 0);
		if (!page) {
			rb_pages_free(p, nr_pages);
			return -ENOMEM;
		}
		p[i].addr = page_address(page);
	}
	*pages = p;
	return 0;
}

/**
 * rb_cpu_reset() - empty @buf and zero its counters.
 * @buf: The buffer; no writer may run on it (not recording, or in the hotplug
 *	 path before the CPU writes), and @buf->reader_lock is held, or the buffer
 *	 is not yet visible, or no file can be open yet (the load's ftring_arm()).
 */
void rb_cpu_reset(struct rb_cpu *buf)
{
	u32 i, n = buf->nr_pages;

	for (i = 0; i <= n; i++) {
		struct rb_page *pg = &buf->pages[i];

		memset(pg->addr, 0, FTP_HDR_SIZE + buf->data_size);
		pg->next = i == n ? 1 : i + 1;
		pg->prev = i == 1 ? n : i - 1;
		pg->real_end = 0;
		pg->flags = 0;
		local_set(&pg->entries, 0);
		pg->entries_base = 0;
		pg->drops_mark = 0;
	}
	buf->pages[0].next = 1;		/* reader page: leads into the ring */
	buf->pages[0].prev = 0;
	buf->reader_id = 0;
	buf->commit_id = 1;
	local_set(&buf->head, 1);
	local_set(&buf->tail, RB_TAIL(1, 0));
	buf->ctx = 0;
	local_set(&buf->nest, 0);
	local_set(&buf->reserves, 0);
	local_set(&buf->nested_seq, 0);
	buf->stamp_seq = 0;
	buf->last_ts = 0;
	buf->swapping = 0;
	local_set(&buf->switching, 0);
	buf->remote_seq = 0;
	buf->remote_given_up = 0;
	buf->disabled = 0;
	local_set(&buf->entries, 0);
	local_set(&buf->overrun, 0);
	local_set(&buf->bytes, 0);
	local_set(&buf->lost_full, 0);
	local_set(&buf->lost_busy, 0);
	local_set(&buf->lost_too_big, 0);
	local_set(&buf->drops, 0);
	local_set(&buf->pages_done, 0);
	local_set(&buf->pages_gone, 0);
	buf->read = 0;
	buf->pages_read = 0;
	buf->reader_read = 0;
	buf->reader_counted = 0;
	buf->lost_events = 0;
	buf->last_overrun = 0;
	buf->last_drops = 0;
	memset(buf->meta, 0, FTP_HDR_SIZE + buf->data_size);
	((struct ftring_meta *)buf->meta)->writer = 1;	/* the tail page, as set above */
	rb_update_meta(buf);
}

/**
 * rb_cpu_alloc_at() - set up and reset the buffer of @cpu (placed and kept: not reset).
 * @cpu:	The CPU.
 * @nr_pages:	Ring pages (>= 2).
 * @place:	Memory to use for the meta page and sub-buffers (persistent rings),
 *		or NULL to allocate them.
 *
 * Return: the buffer, or NULL.
 */
struct rb_cpu *rb_cpu_alloc_at(int cpu, u32 nr_pages, const struct rb_place *place)
{
	struct rb_cpu *buf;
	struct page *meta;
	u32 i;

	buf = kzalloc_node(sizeof(*buf), GFP_KERNEL, cpu_to_node(cpu));
	if (!buf)
		return NULL;
	buf->cpu = cpu;
	buf->data_size = PAGE_SIZE - FTP_HDR_SIZE;
	buf->nr_pages = nr_pages;
	mutex_init(&buf->reader_lock);
	init_waitqueue_head(&buf->waitq);
	init_irq_work(&buf->wake_work, rb_wake_fn);
	if (place) {
		buf->pages = kvcalloc(nr_pages + 1, sizeof(*buf->pages), RB_GFP);
		if (!buf->pages)
			goto err;
		for (i = 0; i <= nr_pages; i++)
			buf->pages[i].addr = (char *)place->pages + (size_t)i * PAGE_SIZE;
		buf->meta = place->meta;
		buf->meta_pfn = place->meta_pfn;
		buf->pages_pfn = place->pages_pfn;
		if (!place->keep)
			rb_cpu_reset(buf);
		return buf;
	}
	meta = alloc_pages_node(cpu_to_node(cpu), GFP_KERNEL | __GFP_ZERO, 0);
	if (!meta)
		goto err;
	buf->meta = page_address(meta);
	if (rb_pages_alloc(buf, nr_pages, &buf->pages))
		goto err;
	rb_cpu_reset(buf);
	return buf;
err:
	if (buf->meta && !place)
		free_page((unsigned long)buf->meta);
	kfree(buf);
	return NULL;
}

/**
 * rb_cpu_alloc() - allocate and reset the buffer of @cpu.
 * @cpu:	The CPU.
 * @nr_pages:	Ring pages (>= 2).
 *
 * Return: the buffer, or NULL.
 */
struct rb_cpu *rb_cpu_alloc(int cpu, u32 nr_pages)
{
	return rb_cpu_alloc_at(cpu, nr_pages, NULL);
}

/**
 * rb_cpu_free() - free a buffer nobody can reach any more.
 * @buf: The buffer (NULL is fine).
 */
void rb_cpu_free(struct rb_cpu *buf)
{
	if (!buf)
		return;
	irq_work_sync(&buf->wake_work);
	if (buf->pages_pfn) {
		/* placed: the pages belong to the region, only the array is ours */
		kvfree(buf->pages);
	} else {
		rb_pages_free(buf->pages, buf->nr_pages);
		free_page((unsigned long)buf->meta);
	}
	kfree(buf);
}
