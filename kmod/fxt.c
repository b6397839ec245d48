// SPDX-License-Identifier: GPL-2.0
/*
 * The FXT device: each write() of whole FXT event records stores one
 * ftring/fxt event carrying those bytes and the writer's process id, on the
 * writer's CPU and with the ring's clock, so applications can put their own
 * slices, counters and flows beside the kernel's scheduling.
 *
 * The records are checked (common/fxt_validate.h) on a private kernel copy,
 * so the bytes checked are the bytes stored, however user space changes its
 * buffer meanwhile. The copy and the check happen before the reservation: a
 * page fault cannot be taken with preemption off inside a writer section,
 * and a refused write must leave nothing in the ring (not even a discarded
 * record that a reader could count).
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "ftring.h"
#include "fxt_validate.h"

static ssize_t ftring_fxt_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct ftring_ev_fxt *ev;
	struct rb_cpu *buf;
	struct fxt_vresult res;
	void *data;
	int ret;

	if (!READ_ONCE(ftring_recording) ||
	    !(READ_ONCE(ftring_events) & BIT_ULL(FTRING_EV_fxt)))
		return -ENODATA;
	/* one event must fit a sub-buffer; records are never split across writes */
	if (count > FTRING_FXT_MAX)
		return -EMSGSIZE;
	data = memdup_user(ubuf, count);
	if (IS_ERR(data))
		return PTR_ERR(data);
	ret = fxt_validate(data, count, &res);
	if (ret) {
		pr_debug("ftring: fxt write by %d refused: error %d in record %u at byte %u\n",
			 current->pid, ret, res.records, res.offset);
		kfree(data);
		return -EINVAL;
	}

	preempt_disable_notrace();
	/* checked again with preemption off: see ftring_marker_write() */
	ev = NULL;
	if (READ_ONCE(ftring_recording))
		ev = ftring_reserve(&buf, FTRING_EV_fxt, sizeof(*ev) + count);
	if (ev) {
		ev->pid = current->tgid;
		ev->data = ((u32)count << 16) | sizeof(*ev);
		memcpy(ev + 1, data, count);
		ftring_commit(buf);
	}
	preempt_enable_notrace();
	kfree(data);
	if (!ev)
		return ftring_dropped_write(count);
	return count;
}

static const struct file_operations ftring_fxt_fops = {
	.owner	= THIS_MODULE,
	.open	= ftring_open_loaded,
	.write	= ftring_fxt_write,
	.llseek	= noop_llseek,
};

static struct miscdevice ftring_fxt_dev = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "ftring_fxt",
	.nodename	= "ftring/fxt",
	.mode		= 0600,
	.fops		= &ftring_fxt_fops,
};

int ftring_fxt_init(void)
{
	return misc_register(&ftring_fxt_dev);
}

void ftring_fxt_exit(void)
{
	misc_deregister(&ftring_fxt_dev);
}
