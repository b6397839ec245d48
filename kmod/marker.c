// SPDX-License-Identifier: GPL-2.0
/*
 * The marker device: each write() records one ftring/marker event (the
 * bytes written, NUL-terminated, and the writer's pid) on the writer's CPU,
 * like ftrace's trace_marker.
 *
 * The text is copied from user space before the reservation: a page fault
 * cannot be taken with preemption off inside a writer section. Short texts (the
 * usual case) are copied to the stack, sparing an allocation per write.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "ftring.h"

#define FTRING_MARKER_STACK	128	/* longer texts are copied to the heap */

static ssize_t ftring_marker_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct ftring_ev_marker *ev;
	char stack[FTRING_MARKER_STACK];
	struct rb_cpu *buf;
	size_t len = min_t(size_t, count, FTRING_MARKER_MAX);
	char *text = stack;
	u32 size;

	if (!count)
		return 0;
	if (!READ_ONCE(ftring_recording) ||
	    !(READ_ONCE(ftring_events) & BIT_ULL(FTRING_EV_marker)))
		return -ENODATA;
	if (len <= sizeof(stack)) {
		if (copy_from_user(stack, ubuf, len))
			return -EFAULT;
	} else {
		text = memdup_user(ubuf, len);
		if (IS_ERR(text))
			return PTR_ERR(text);
	}

	size = sizeof(*ev) + len + 1;
	preempt_disable_notrace();
	/*
	 * Checked again with preemption off: ftring_stop() clears the flag and
	 * then waits (synchronize_rcu) for sections like this one, so a buffer
	 * reset or resize can never happen under this writer.
	 */
	ev = NULL;
	if (READ_ONCE(ftring_recording))
		ev = ftring_reserve(&buf, FTRING_EV_marker, size);
	if (ev) {
		ev->pid = current->pid;
		ev->buf = ((u32)(len + 1) << 16) | sizeof(*ev);
		memcpy(ev + 1, text, len);
		((char *)(ev + 1))[len] = '\0';
		ftring_commit(buf);
	}
	preempt_enable_notrace();
	if (text != stack)
		kfree(text);
	if (!ev)
		return READ_ONCE(ftring_recording) ? -ENOSPC : -ENODATA;
	return len;
}

static const struct file_operations ftring_marker_fops = {
	.owner	= THIS_MODULE,
	.write	= ftring_marker_write,
	.llseek	= noop_llseek,
};

static struct miscdevice ftring_marker_dev = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "ftring_marker",
	.nodename	= "ftring/marker",
	.mode		= 0600,
	.fops		= &ftring_marker_fops,
};

int ftring_marker_init(void)
{
	return misc_register(&ftring_marker_dev);
}

void ftring_marker_exit(void)
{
	misc_deregister(&ftring_marker_dev);
}
