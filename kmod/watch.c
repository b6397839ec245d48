// SPDX-License-Identifier: GPL-2.0
/*
 * The marker watch (/dev/ftring/watch, ftring_abi.h): recorderd's marker triggers
 * hear of the markers whose text holds one of their literals as they are written,
 * then match their regular expression on that text, instead of reading the rings.
 * Unwatched, the marker path pays a patched-out jump (a static key); watched, a
 * search per literal (a compare for one anchored at the start), and a copy into the
 * queue for a hit only.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include "compat.h"
#include "ftring.h"

DEFINE_STATIC_KEY_FALSE(ftring_watch_key);

struct ftring_watch {
	struct ftring_watch_spec spec;	/* changed only with the key off */
	size_t			lit_len[FTRING_WATCH_NR];
	struct mutex		read_lock;	/* one reader pops at a time */
	spinlock_t		lock;		/* the queue */
	unsigned int		head, count;
	struct ftring_watch_hit	q[FTRING_WATCH_QUEUE];
};

/*
 * The open watch. The marker path reads it with preemption off, only while the key
 * is on; the key goes off and synchronize_rcu() passes before the spec changes or
 * the watch is freed.
 */
static struct ftring_watch *ftring_watch;
static DEFINE_MUTEX(ftring_watch_mutex);	/* open, set, release */
static DECLARE_WAIT_QUEUE_HEAD(ftring_watch_wq);

#define FTRING_ONES	(~0UL / 0xff)	/* 0x0101...01 */

/*
 * Whether @lit (@n > 0 bytes) occurs in @text (@len bytes). Its first byte is looked
 * for a word at a time (a word with a zero byte once XORed with that byte repeated:
 * (x - 0x01..) & ~x & 0x80.. is non-zero), memcmp() only where a word has it: about a
 * unit per byte of marker, not a memcmp() per byte as strnstr().
 */
static bool ftring_watch_find(const char *text, size_t len, const char *lit, size_t n)
{
	unsigned long pat = FTRING_ONES * (u8)lit[0], x;
	size_t i = 0, j, end;

	if (n > len)
		return false;
	end = len - n + 1;	/* positions where @lit fits */
	for (; i + sizeof(x) <= end; i += sizeof(x)) {
		x = get_unaligned((const unsigned long *)(text + i)) ^ pat;
		if (!((x - FTRING_ONES) & ~x & (FTRING_ONES << 7)))
			continue;
		for (j = i; j < i + sizeof(x); j++)
			if (text[j] == lit[0] && !memcmp(text + j, lit, n))
				return true;
	}
	for (; i < end; i++)
		if (text[i] == lit[0] && !memcmp(text + i, lit, n))
			return true;
	return false;
}

static bool ftring_watch_holds(const struct ftring_watch *w, const char *text, size_t len)
{
	size_t n;
	u32 i;

	for (i = 0; i < w->spec.nr; i++) {
		n = w->lit_len[i];
		if (!n)
			return true;
		if (w->spec.prefix & BIT(i) ? n <= len && !memcmp(text, w->spec.lit[i], n) :
		    ftring_watch_find(text, len, w->spec.lit[i], n))
			return true;
	}
	return false;
}

/* From the marker path (preemption off), @text NUL-terminated after @len bytes. */
void ftring_watch_marker(const char *text, size_t len)
{
	struct ftring_watch *w = READ_ONCE(ftring_watch);
	struct ftring_watch_hit *h;
	unsigned long flags;
	bool first = false;
	size_t n;

	if (!w || !ftring_watch_holds(w, text, len))
		return;
	spin_lock_irqsave(&w->lock, flags);
	if (w->count == FTRING_WATCH_QUEUE) {
		/*
		 * Counted in the newest waiting hit, which the reader gets even if no
		 * hit follows. It is not the one the reader may be copying (the head)
		 * while the queue is full.
		 */
		w->q[(w->head + w->count - 1) % FTRING_WATCH_QUEUE].missed++;
	} else {
		h = &w->q[(w->head + w->count) % FTRING_WATCH_QUEUE];
		n = min_t(size_t, len, FTRING_WATCH_TEXT - 1);
		h->pid = current->pid;
		h->cpu = smp_processor_id();
		h->len = len;
		h->missed = 0;
		memcpy(h->text, text, n);
		h->text[n] = '\0';
		first = !w->count++;
	}
	spin_unlock_irqrestore(&w->lock, flags);
	if (first)
		wake_up_interruptible(&ftring_watch_wq);
}

/* Key off, and no marker path left inside ftring_watch_marker(). */
static void ftring_watch_quiesce(void)
{
	if (static_key_enabled(&ftring_watch_key)) {
		static_branch_disable(&ftring_watch_key);
		synchronize_rcu();
	}
}

static long ftring_watch_set(struct ftring_watch *w, const void __user *arg)
{
	struct ftring_watch_spec *spec;
	size_t len[FTRING_WATCH_NR];
	long ret = 0;
	u32 i;

	spec = memdup_user(arg, sizeof(*spec));
	if (IS_ERR(spec))
		return PTR_ERR(spec);
	if (spec->nr > FTRING_WATCH_NR || spec->prefix >> spec->nr)
		ret = -EINVAL;
	for (i = 0; !ret && i < spec->nr; i++) {
		len[i] = strnlen(spec->lit[i], FTRING_WATCH_LIT_MAX);
		if (len[i] == FTRING_WATCH_LIT_MAX)
			ret = -EINVAL;
	}
	if (ret) {
		kfree(spec);
		return ret;
	}
	mutex_lock(&ftring_watch_mutex);
	ftring_watch_quiesce();
	w->spec = *spec;
	memcpy(w->lit_len, len, sizeof(len[0]) * spec->nr);
	if (spec->nr)
		static_branch_enable(&ftring_watch_key);
	mutex_unlock(&ftring_watch_mutex);
	kfree(spec);
	return 0;
}

static long ftring_watch_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != FTRING_IOC_WATCH_MARKERS)
		return -ENOTTY;
	return ftring_watch_set(file->private_data, (const void __user *)arg);
}

/*
 * Pops whole hits into @ubuf; a hit leaves the queue only once copied out. It is
 * copied from its slot, which no writer touches until it is popped (writers fill the
 * slots past the queued ones), and only this reader pops (read_lock).
 */
static ssize_t ftring_watch_read(struct file *file, char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	struct ftring_watch *w = file->private_data;
	const struct ftring_watch_hit *h;
	size_t done = 0, used;
	unsigned long flags;
	bool have;
	int ret;

	if (count < sizeof(*h))
		return -EINVAL;
again:
	if (!(file->f_flags & O_NONBLOCK)) {
		ret = wait_event_interruptible(ftring_watch_wq, READ_ONCE(w->count));
		if (ret)
			return ret;
	}
	if (mutex_lock_interruptible(&w->read_lock))
		return -ERESTARTSYS;
	while (done + sizeof(*h) <= count) {
		spin_lock_irqsave(&w->lock, flags);
		have = w->count;
		h = &w->q[w->head];
		spin_unlock_irqrestore(&w->lock, flags);
		if (!have)
			break;
		/* the text up to its NUL: the slot's bytes past it are an older hit's */
		used = offsetof(struct ftring_watch_hit, text) +
		       min_t(size_t, h->len, FTRING_WATCH_TEXT - 1) + 1;
		if (copy_to_user(ubuf + done, h, used) ||
		    clear_user(ubuf + done + used, sizeof(*h) - used)) {
			mutex_unlock(&w->read_lock);
			return done ? done : -EFAULT;
		}
		spin_lock_irqsave(&w->lock, flags);
		w->head = (w->head + 1) % FTRING_WATCH_QUEUE;
		w->count--;
		spin_unlock_irqrestore(&w->lock, flags);
		done += sizeof(*h);
	}
	mutex_unlock(&w->read_lock);
	/* another reader of this file took what woke us: a blocking read waits on */
	if (!done && !(file->f_flags & O_NONBLOCK))
		goto again;
	return done ? done : -EAGAIN;
}

static __poll_t ftring_watch_poll(struct file *file, poll_table *pt)
{
	struct ftring_watch *w = file->private_data;

	poll_wait(file, &ftring_watch_wq, pt);
	return READ_ONCE(w->count) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int ftring_watch_open(struct inode *inode, struct file *file)
{
	struct ftring_watch *w;
	int ret = ftring_may_open();

	if (ret)
		return ret;
	w = kvzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	BUILD_BUG_ON(FTRING_MARKER_MAX >= FTRING_WATCH_TEXT);
	mutex_init(&w->read_lock);
	spin_lock_init(&w->lock);
	mutex_lock(&ftring_watch_mutex);
	if (ftring_watch) {
		mutex_unlock(&ftring_watch_mutex);
		kvfree(w);
		return -EBUSY;
	}
	WRITE_ONCE(ftring_watch, w);
	mutex_unlock(&ftring_watch_mutex);
	file->private_data = w;
	return nonseekable_open(inode, file);
}

static int ftring_watch_release(struct inode *inode, struct file *file)
{
	struct ftring_watch *w = file->private_data;

	mutex_lock(&ftring_watch_mutex);
	ftring_watch_quiesce();
	WRITE_ONCE(ftring_watch, NULL);
	mutex_unlock(&ftring_watch_mutex);
	kvfree(w);
	return 0;
}

static const struct file_operations ftring_watch_fops = {
	.owner		= THIS_MODULE,
	.open		= ftring_watch_open,
	.release	= ftring_watch_release,
	.read		= ftring_watch_read,
	.poll		= ftring_watch_poll,
	.unlocked_ioctl	= ftring_watch_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice ftring_watch_dev = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "ftring_watch",
	.nodename	= "ftring/watch",
	.mode		= 0600,
	.fops		= &ftring_watch_fops,
};

int ftring_watch_init(void)
{
	return misc_register(&ftring_watch_dev);
}

void ftring_watch_exit(void)
{
	misc_deregister(&ftring_watch_dev);
}
