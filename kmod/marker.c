// SPDX-License-Identifier: GPL-2.0
/*
 * The marker device: each write() records one ftring/marker event (the
 * bytes written, NUL-terminated, and the writer's pid) on the writer's CPU,
 * like ftrace's trace_marker.
 *
 * A writer section runs with preemption off, where a page fault cannot be
 * served. Short texts (the usual case) are copied to the stack first, with
 * faults allowed, then into the record: two small copies cost less than one
 * copy_from_user() to the ring (its hardened-usercopy check alone). Longer
 * ones are faulted in, then copied straight into the record with page faults
 * disabled: one copy and no allocation. Should that copy still fault (the
 * memory went away in between), the record is committed reading "<faulted>"
 * and the write fails with EFAULT, as trace_marker does: one write, at most
 * one record, and the writer learns that its text was not recorded.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/pagemap.h>
#include <linux/uaccess.h>
#include "compat.h"
#include "ftring.h"

#define FTRING_MARKER_STACK	128	/* longer texts are copied in place */
#define FTRING_MARKER_FAULTED	"<faulted>"

/*
 * Records one marker of @len bytes from @ktext (kernel memory) or, if NULL, from
 * @utext (user memory, copied without faulting). Returns @len, -EFAULT when
 * the user copy faulted (the record then reads FTRING_MARKER_FAULTED), or what
 * ftring_dropped_write() says when the event was dropped.
 */
static __always_inline ssize_t ftring_marker_put(const char *ktext, const char __user *utext,
						 size_t len)
{
	struct ftring_ev_marker *ev;
	struct rb_cpu *buf;
	bool faulted = false;
	char *text;

	/* the user path is for long texts only: "<faulted>" fits their room */
	BUILD_BUG_ON(sizeof(FTRING_MARKER_FAULTED) > FTRING_MARKER_STACK);

	preempt_disable_notrace();
	/*
	 * Checked again with preemption off: ftring_stop() clears the flag and
	 * then waits (synchronize_rcu) for sections like this one, so a buffer
	 * reset or resize can never happen under this writer.
	 */
	ev = NULL;
	if (READ_ONCE(ftring_recording))
		ev = ftring_reserve(&buf, FTRING_EV_marker, sizeof(*ev) + len + 1);
	if (ev) {
		text = (char *)(ev + 1);
		ev->pid = current->pid;
		if (ktext) {
			memcpy(text, ktext, len);
		} else {
			pagefault_disable();
			faulted = __copy_from_user_inatomic(text, utext, len);
			pagefault_enable();
			if (unlikely(faulted)) {
				len = sizeof(FTRING_MARKER_FAULTED) - 1;
				memcpy(text, FTRING_MARKER_FAULTED, len);
			}
		}
		text[len] = '\0';
		if (static_branch_unlikely(&ftring_watch_key))
			ftring_watch_marker(text, len);
		ev->buf = ((u32)(len + 1) << 16) | sizeof(*ev);
		ftring_commit(buf);
	}
	preempt_enable_notrace();
	if (!ev)
		return ftring_dropped_write(len);
	return faulted ? -EFAULT : len;
}

/*
 * A text longer than the stack buffer: copied in place (see the top). A page
 * that went away after the fault-in leaves the one record reading "<faulted>"
 * and -EFAULT; the text is not copied again (that would be a second record).
 */
static noinline ssize_t ftring_marker_write_long(const char __user *ubuf, size_t len)
{
	/* a bad pointer fails here (access_ok() included) and leaves no record */
	if (fault_in_readable(ubuf, len))
		return -EFAULT;
	return ftring_marker_put(NULL, ubuf, len);
}

/*
 * copy_from_user() of a short text to the stack buffer minus its fixed costs
 * (an out-of-line call, the hardened-usercopy check of a destination that is
 * our own array), a seventh of what a 16-byte marker cost. Word loads, the
 * last one overlapping its neighbour; faults are served as usual (preemption
 * is on).
 */
static __always_inline int ftring_copy_short(u64 *dst, const char __user *src, size_t len)
{
	size_t i, words = len / 8;
	u64 w;

	if (!IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS))
		return copy_from_user(dst, src, len) ? -EFAULT : 0;
	if (!user_access_begin(src, len))
		return -EFAULT;
	for (i = 0; i + 2 <= words; i += 2) {
		unsafe_get_user(dst[i], (const u64 __user *)src + i, fault);
		unsafe_get_user(dst[i + 1], (const u64 __user *)src + i + 1, fault);
	}
	if (i < words)
		unsafe_get_user(dst[i], (const u64 __user *)src + i, fault);
	if (words && len % 8) {
		unsafe_get_user(w, (const u64 __user *)(src + len - 8), fault);
		put_unaligned(w, (u64 *)((char *)dst + len - 8));
	} else if (!words) {
		for (i = 0; i < len; i++)
			unsafe_get_user(((char *)dst)[i], src + i, fault);
	}
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

static ssize_t ftring_marker_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	size_t len = min_t(size_t, count, FTRING_MARKER_MAX);
	/* not zeroed (INIT_STACK_ALL_ZERO): only the bytes copied in are read */
	u64 stack[FTRING_MARKER_STACK / 8] __uninitialized;

	if (!count)
		return 0;
	if (!READ_ONCE(ftring_recording) ||
	    !(READ_ONCE(ftring_events) & BIT_ULL(FTRING_EV_marker)))
		return -ENODATA;
	if (len > sizeof(stack))
		return ftring_marker_write_long(ubuf, len);
	if (ftring_copy_short(stack, ubuf, len))
		return -EFAULT;
	return ftring_marker_put((char *)stack, NULL, len);
}

static const struct file_operations ftring_marker_fops = {
	.owner	= THIS_MODULE,
	.open	= ftring_open_loaded,
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
