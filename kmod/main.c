// SPDX-License-Identifier: GPL-2.0
/*
 * Ftring: per-CPU ftrace-format ring buffers fed by tracepoints
 * and user markers, mapped to user space with the upstream trace_mmap ABI.
 *
 * Init order: formats, tracepoint lookup, the persistent region (persist.c: the
 * previous boot's trace is read, nothing written), buffers + devices for the online
 * CPUs, CPU-prepare callback, marker, watch, FXT and control devices; then, with
 * nothing left that can fail, the region is armed (written over) and the devices
 * open (ftring_ready). Exit undoes it in reverse after stopping the probes. Buffers
 * are never freed while the module is loaded (an offline CPU keeps its data readable).
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "ftring.h"

static uint nr_subbufs = FTRING_DEFAULT_SUBBUFS;
module_param(nr_subbufs, uint, 0444);
MODULE_PARM_DESC(nr_subbufs, "sub-buffers per CPU ring at load (2..65536)");

/*
 * An always-on tracer must not make the traced program fail: a marker or FXT write
 * the ring has no room for is dropped, counted in lost_full, and reported as written.
 * Tests (and applications that want to know) set strict_writes to get ENOSPC.
 */
bool ftring_strict_writes;
module_param_named(strict_writes, ftring_strict_writes, bool, 0644);
MODULE_PARM_DESC(strict_writes, "marker/FXT writes dropped for a full ring fail with ENOSPC");

/* Devices open (ftring_loaded()) once the load can no longer fail: see ftring_arm() */
bool ftring_ready;
DEFINE_MUTEX(ftring_lock);		/* start/stop, events, config requests */
DEFINE_MUTEX(ftring_bufs_lock);		/* buffer table, sizes, reset, mappings */
struct rb_cpu **ftring_bufs;
struct ftring_config ftring_cfg;
u64 ftring_events = FTRING_EVENTS_DEFAULT;
bool ftring_recording;
/*
 * A CPU buffer was mapped while this recording ran. Recording with none mapped is an
 * orphan (FTRING_STATUS_ORPHAN: its reader died) only then; one started by hand with
 * no reader yet (ftring_ctl start) is just busy.
 */
bool ftring_reader_seen;
static enum cpuhp_state ftring_hp_state;

/*
 * Gives @cpu a buffer and its device if it has none; ftring_bufs_lock held. Both or
 * neither: a buffer nobody can read would only lose events quietly, so a failure
 * fails the CPU's bring-up, as upstream's ring buffer does (trace_rb_cpu_prepare()).
 */
static int ftring_add_cpu(unsigned int cpu)
{
	struct rb_place place;
	struct rb_cpu *buf;
	int ret;

	if (ftring_bufs[cpu])
		return 0;
	if (ftring_persist_place(cpu, &place))
		buf = rb_cpu_alloc_at(cpu, ftring_cfg.nr_subbufs, &place);
	else
		buf = rb_cpu_alloc(cpu, ftring_cfg.nr_subbufs);
	if (!buf)
		return -ENOMEM;
	buf->overwrite = ftring_cfg.mode == FTRING_MODE_OVERWRITE;
	buf->clock = ftring_cfg.clock;
	buf->watermark = ftring_cfg.watermark;
	/* opening the device before the buffer is published gives ENODEV: harmless */
	ret = ftring_dev_add_cpu(cpu);
	if (ret) {
		pr_err("ftring: no device for cpu%u (%d)\n", cpu, ret);
		rb_cpu_free(buf);
		return ret;
	}
	/* fully initialised before a writer on @cpu can see it */
	smp_store_release(&ftring_bufs[cpu], buf);
	return 0;
}

/*
 * A CPU coming up gets its buffer in the PREPARE stage, on the CPU that brings it up,
 * before it runs anything: from its first event on, nothing it writes is dropped
 * (upstream allocates at CPUHP_TRACE_RB_PREPARE; a module has the dynamic range).
 */
static int ftring_cpu_prepare(unsigned int cpu)
{
	int ret;

	mutex_lock(&ftring_bufs_lock);
	ret = ftring_add_cpu(cpu);
	mutex_unlock(&ftring_bufs_lock);
	return ret;
}

/*
 * The load's last step, which cannot fail: the persistent region is written over
 * only now (a failed load leaves the previous boot's trace in it), then the devices
 * open. Until then no file can be open, so the placed buffers are unused.
 */
static void ftring_arm(void)
{
	unsigned int cpu;
	bool placed;

	mutex_lock(&ftring_bufs_lock);
	placed = ftring_persist_arm();
	for (cpu = 0; placed && cpu < nr_cpu_ids; cpu++)
		if (ftring_bufs[cpu])
			rb_cpu_reset(ftring_bufs[cpu]);
	mutex_unlock(&ftring_bufs_lock);
	ftring_persist_seal_on_panic();
	/* pairs with ftring_loaded(): an open sees every step of the load done */
	smp_store_release(&ftring_ready, true);
}

/* open() of the marker and FXT devices: any writer the node's mode lets in, once loaded */
int ftring_open_loaded(struct inode *inode, struct file *file)
{
	return ftring_loaded() ? 0 : -EAGAIN;
}

static void ftring_free_bufs(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		rb_cpu_free(ftring_bufs[cpu]);
	kfree(ftring_bufs);
}

static int __init ftring_init(void)
{
	unsigned int cpu;
	int ret;

	/* upstream's struct trace_buffer_meta (80 bytes), then ftring's writer */
	BUILD_BUG_ON(offsetof(struct ftring_meta, writer) != 80);
	BUILD_BUG_ON(sizeof(struct ftring_meta) != 88);
	BUILD_BUG_ON(sizeof(struct ftring_ev_sched_switch) != 64);
	BUILD_BUG_ON(BITS_PER_LONG != 64);
	BUILD_BUG_ON(FTRING_NR_EVENTS > 64);
	if (nr_subbufs < 2 || nr_subbufs > FTRING_MAX_SUBBUFS)
		return -EINVAL;
	ftring_cfg.nr_subbufs = nr_subbufs;
	ftring_cfg.subbuf_size = PAGE_SIZE;

	ret = ftring_formats_init();
	if (ret)
		return ret;
	ret = ftring_probes_init();
	if (ret)
		goto err_formats;
	ret = ftring_persist_init();
	if (ret)
		goto err_formats;
	if (ftring_persist_subbufs())
		ftring_cfg.nr_subbufs = ftring_persist_subbufs();
	ret = -ENOMEM;
	ftring_bufs = kcalloc(nr_cpu_ids, sizeof(*ftring_bufs), GFP_KERNEL);
	if (!ftring_bufs)
		goto err_persist;
	ret = ftring_dev_init();
	if (ret)
		goto err_bufs;

	cpus_read_lock();
	mutex_lock(&ftring_bufs_lock);
	for_each_online_cpu(cpu) {
		ret = ftring_add_cpu(cpu);
		if (ret)
			break;
	}
	mutex_unlock(&ftring_bufs_lock);
	if (!ret)
		ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_BP_PREPARE_DYN, "ftring:prepare",
							   ftring_cpu_prepare, NULL);
	cpus_read_unlock();
	if (ret < 0)
		goto err_dev;
	ftring_hp_state = ret;

	ret = ftring_marker_init();
	if (ret)
		goto err_hp;
	ret = ftring_watch_init();
	if (ret)
		goto err_marker;
	ret = ftring_fxt_init();
	if (ret)
		goto err_watch;
	/*
	 * Last (and no open before ftring_arm()): START through it attaches the probes,
	 * and a step failing after it would free the module under them.
	 */
	ret = ftring_ctl_init();
	if (ret)
		goto err_fxt;
	ftring_arm();
	pr_info("ftring: %u sub-buffers per CPU, ABI %d.%d, event IDs %u..%u\n",
		ftring_cfg.nr_subbufs, FTRING_ABI_MAJOR, FTRING_ABI_MINOR, ftring_event_ids[0],
		ftring_event_ids[FTRING_NR_EVENTS - 1]);
	return 0;

err_fxt:
	ftring_fxt_exit();
err_watch:
	ftring_watch_exit();
err_marker:
	ftring_marker_exit();
err_hp:
	cpuhp_remove_state_nocalls(ftring_hp_state);
err_dev:
	ftring_dev_exit();
err_bufs:
	ftring_free_bufs();
err_persist:
	ftring_persist_exit();
err_formats:
	ftring_formats_exit();
	return ret;
}

static void __exit ftring_exit(void)
{
	mutex_lock(&ftring_lock);
	ftring_detach();
	mutex_unlock(&ftring_lock);
	ftring_fxt_exit();
	ftring_watch_exit();
	ftring_marker_exit();
	ftring_ctl_exit();
	cpuhp_remove_state_nocalls(ftring_hp_state);
	ftring_dev_exit();
	ftring_free_bufs();
	ftring_persist_exit();
	ftring_formats_exit();
}

module_init(ftring_init);
module_exit(ftring_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ftring: lock-free per-CPU ftrace-format ring buffers with mmap");
