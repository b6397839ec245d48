// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU devices /dev/ftring/cpuN: mmap of the meta page and
 * sub-buffers (read-only, shared), GET_READER, poll.
 *
 * Unload safety: an open file (and so a mapping, which holds its file) pins the
 * module through fops.owner; a process blocked in poll or GET_READER holds an
 * open file too. Module exit therefore never runs while a reader exists.
 */
#include <linux/cdev.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/poll.h>
#include <linux/smp.h>
#include "compat.h"
#include "ftring.h"

static dev_t ftring_cpu_devt;
static struct cdev ftring_cpu_cdev;
static struct class *ftring_class;

static void ftring_swap_on_cpu(void *arg)
{
	struct rb_cpu *buf = arg;

	/* IPI: interrupts are off, we are on buf->cpu */
	buf->swap_ret = rb_reader_swap(buf);
}

/* Tries of a swap from this CPU that met a page switch, before the IPI. */
#define FTRING_REMOTE_TRIES	16

/*
 * The swap from this CPU, when it needs no IPI (rb_reader_swap_remote()): 0, or 1
 * to swap on @buf's CPU. Interrupts off keep the handshake short for a writer
 * waiting on it; on @buf's own CPU the IPI path runs the swap right here anyway.
 * A page switch lasts a few hundred instructions: worth waiting out here rather
 * than interrupting the writer's CPU.
 */
static int ftring_swap_here(struct rb_cpu *buf)
{
	unsigned long flags;
	int i, ret = 1;

	for (i = 0; i < FTRING_REMOTE_TRIES; i++) {
		local_irq_save(flags);
		if (smp_processor_id() != buf->cpu)
			ret = rb_reader_swap_remote(buf);
		local_irq_restore(flags);
		if (ret != -EAGAIN)
			return ret;
		cpu_relax();
	}
	return 1;
}

/**
 * ftring_get_reader() - run the reader swap for @buf.
 * @buf: The buffer, with @buf->reader_lock held and cpus_read_lock() taken.
 *
 * A reader behind its writer swaps from its own CPU; otherwise the swap runs on
 * @buf's CPU, by IPI.
 *
 * Return: 0 or -errno. Writers that kept the CPU busy RB_MAX_RETRIES times are
 * not an error: no swap is made, the caller refreshes the meta page and the
 * reader comes back (upstream's GET_READER has no busy answer either).
 */
int ftring_get_reader(struct rb_cpu *buf)
{
	int i, ret;

	for (i = 0; i < RB_MAX_RETRIES; i++) {
		if (cpu_online(buf->cpu)) {
			if (!ftring_swap_here(buf))
				return 0;
			ret = smp_call_function_single(buf->cpu, ftring_swap_on_cpu, buf, 1);
			if (!ret)
				ret = buf->swap_ret;
		} else {
			/* an offline CPU runs no writer (cpus_read_lock holds it there) */
			ret = rb_reader_swap(buf);
		}
		if (ret != -EAGAIN)
			return ret;
		usleep_range(10, 50);
	}
	return 0;
}

static struct rb_cpu *ftring_file_buf(struct file *file)
{
	return file->private_data;
}

static int ftring_cpu_open(struct inode *inode, struct file *file)
{
	unsigned int cpu = iminor(inode);
	struct rb_cpu *buf;
	int ret = ftring_may_open();

	if (ret)
		return ret;
	/* a node made by hand can carry any minor */
	if (cpu >= nr_cpu_ids)
		return -ENODEV;
	buf = READ_ONCE(ftring_bufs[array_index_nospec(cpu, nr_cpu_ids)]);
	if (!buf)
		return -ENODEV;
	file->private_data = buf;
	return nonseekable_open(inode, file);
}

static bool ftring_readable_arm(struct rb_cpu *buf)
{
	WRITE_ONCE(buf->waiters, true);
	/* waiters visible before we look at the counters the writers bump */
	smp_mb();
	return rb_readable(buf);
}

static __poll_t ftring_cpu_poll(struct file *file, poll_table *wait)
{
	struct rb_cpu *buf = ftring_file_buf(file);

	poll_wait(file, &buf->waitq, wait);
	return ftring_readable_arm(buf) ? EPOLLIN | EPOLLRDNORM : 0;
}

static long ftring_cpu_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct rb_cpu *buf = ftring_file_buf(file);
	int ret;

	if (!cmd) {
		/* as upstream: cmd 0 wakes every waiter (e.g. to stop a reader) */
		WRITE_ONCE(buf->wake_seq, buf->wake_seq + 1);
		wake_up_interruptible_all(&buf->waitq);
		return 0;
	}
	if (cmd != FTRING_IOC_GET_READER)
		return -ENOTTY;
	/* as upstream: the reader swap is for a mapping reader only */
	if (!atomic_read(&buf->mapped))
		return -ENODEV;
	if (!(file->f_flags & O_NONBLOCK)) {
		unsigned int seq = READ_ONCE(buf->wake_seq);

		ret = wait_event_interruptible(buf->waitq, ftring_readable_arm(buf) ||
					       READ_ONCE(buf->wake_seq) != seq);
		if (ret)
			return ret;
	}
	cpus_read_lock();
	mutex_lock(&buf->reader_lock);
	ret = ftring_get_reader(buf);
	rb_update_meta(buf);
	mutex_unlock(&buf->reader_lock);
	cpus_read_unlock();
	return ret;
}

static void ftring_vma_open(struct vm_area_struct *vma)
{
	struct rb_cpu *buf = vma->vm_private_data;

	atomic_inc(&buf->mapped);
}

static void ftring_vma_close(struct vm_area_struct *vma)
{
	struct rb_cpu *buf = vma->vm_private_data;

	atomic_dec(&buf->mapped);
}

/* no partial munmap/mprotect: the mapping count stays per VMA */
static int ftring_vma_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct ftring_vm_ops = {
	.open		= ftring_vma_open,
	.close		= ftring_vma_close,
	.may_split	= ftring_vma_may_split,
};

/* mapping page index 0 = meta page, 1 + id = sub-buffer id */
static int ftring_cpu_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct rb_cpu *buf = ftring_file_buf(file);
	unsigned long npages = vma_pages(vma), pgoff = vma->vm_pgoff, i;
	unsigned long addr = vma->vm_start;
	int ret = 0;

	/* VM_SHARED is already cleared for a read-only file: test VM_MAYSHARE */
	if ((vma->vm_flags & (VM_WRITE | VM_EXEC)) || !(vma->vm_flags & VM_MAYSHARE))
		return -EPERM;	/* upstream's answer to all three (ring_buffer.c) */
	ftring_vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	ftring_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);

	/* the page array cannot be resized while we insert and count the mapping */
	mutex_lock(&ftring_bufs_lock);
	if (pgoff >= buf->nr_pages + 2 || npages > buf->nr_pages + 2 - pgoff) {
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < npages && !ret; i++, addr += PAGE_SIZE) {
		unsigned long idx = pgoff + i;
		void *va = idx ? buf->pages[idx - 1].addr : buf->meta;

		/* persistent rings are reserved memory, maybe without struct pages */
		if (buf->pages_pfn)
			ret = remap_pfn_range(vma, addr, idx ? buf->pages_pfn + idx - 1 :
					      buf->meta_pfn, PAGE_SIZE, vma->vm_page_prot);
		else
			ret = vm_insert_page(vma, addr, virt_to_page(va));
	}
	if (ret)
		goto out;
	vma->vm_private_data = buf;
	vma->vm_ops = &ftring_vm_ops;
	atomic_inc(&buf->mapped);
	if (READ_ONCE(ftring_recording))
		ftring_reader_seen = true;
out:
	mutex_unlock(&ftring_bufs_lock);
	return ret;
}

static const struct file_operations ftring_cpu_fops = {
	.owner		= THIS_MODULE,
	.open		= ftring_cpu_open,
	.poll		= ftring_cpu_poll,
	.unlocked_ioctl	= ftring_cpu_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= ftring_cpu_mmap,
	.llseek		= FTRING_NO_LLSEEK,
};

static char *ftring_devnode(FTRING_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0600;
	return NULL;
}

/**
 * ftring_dev_add_cpu() - create /dev/ftring/cpuN for a CPU that got a buffer.
 * @cpu: The CPU.
 *
 * Return: 0 or a negative errno.
 */
int ftring_dev_add_cpu(int cpu)
{
	struct device *dev;

	dev = device_create(ftring_class, NULL, MKDEV(MAJOR(ftring_cpu_devt), cpu),
			    NULL, "ftring!cpu%d", cpu);
	return PTR_ERR_OR_ZERO(dev);
}

/**
 * ftring_dev_init() - register the per-CPU device numbers and class.
 *
 * Return: 0 or a negative errno.
 */
int ftring_dev_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&ftring_cpu_devt, 0, nr_cpu_ids, "ftring");
	if (ret)
		return ret;
	cdev_init(&ftring_cpu_cdev, &ftring_cpu_fops);
	ftring_cpu_cdev.owner = THIS_MODULE;
	ret = cdev_add(&ftring_cpu_cdev, ftring_cpu_devt, nr_cpu_ids);
	if (ret)
		goto err_region;
	ftring_class = ftring_class_create("ftring");
	if (IS_ERR(ftring_class)) {
		ret = PTR_ERR(ftring_class);
		goto err_cdev;
	}
	ftring_class->devnode = ftring_devnode;
	return 0;

err_cdev:
	cdev_del(&ftring_cpu_cdev);
err_region:
	unregister_chrdev_region(ftring_cpu_devt, nr_cpu_ids);
	return ret;
}

/**
 * ftring_dev_exit() - remove every per-CPU device (no file can be open: the
 * module is only unloaded when no file pins it).
 */
void ftring_dev_exit(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (ftring_bufs[cpu])
			device_destroy(ftring_class, MKDEV(MAJOR(ftring_cpu_devt), cpu));
	class_destroy(ftring_class);
	cdev_del(&ftring_cpu_cdev);
	unregister_chrdev_region(ftring_cpu_devt, nr_cpu_ids);
}
