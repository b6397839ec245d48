/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the in-guest ftring test programs: -errno wrappers around the
 * control ioctls (common/ftring_abi.h), CPU pinning, marker writes, and a walk over
 * one ftrace-format sub-buffer (common/ftrace_page.h).
 * Plain functions return 0 or -errno, so tests can ASSERT_EQ(0, ...) on them.
 */
#ifndef FTRING_TEST_H
#define FTRING_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ftring_abi.h"
#include "ftrace_page.h"

static inline int ft_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/* The module's event IDs of this load, by event index; set by ft_ctl_open(). */
static struct ftring_event_ids ft_ids;

/* Opens the control device and loads the event IDs; returns the fd or -errno. */
static inline int ft_ctl_open(void)
{
	int fd = open(FTRING_DEV_CTL, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FTRING_IOC_GET_EVENT_IDS, &ft_ids) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* The ID of event FTRING_EV_<name> (after ft_ctl_open()). */
#define FT_ID(name)	(ft_ids.id[FTRING_EV_##name])

/* The index of the event with ID @type, or -1. */
static inline int ft_ev_index(unsigned int type)
{
	for (unsigned int i = 0; i < ft_ids.nr && i < 64; i++)
		if (type && ft_ids.id[i] == type)
			return (int)i;
	return -1;
}

static inline int ft_cpu_open(int cpu, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), FTRING_DEV_CPU_FMT, cpu);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static inline int ft_stop(int ctl)
{
	int ret = ft_ioctl(ctl, FTRING_IOC_STOP, NULL);

	/* Stopping a stopped module is not an error worth failing a setup over. */
	return ret == -EALREADY || ret == -EINVAL ? 0 : ret;
}

static inline int ft_start(int ctl)
{
	return ft_ioctl(ctl, FTRING_IOC_START, NULL);
}

static inline int ft_reset(int ctl)
{
	return ft_ioctl(ctl, FTRING_IOC_RESET, NULL);
}

static inline int ft_set_events(int ctl, uint64_t mask)
{
	return ft_ioctl(ctl, FTRING_IOC_SET_EVENTS, &mask);
}

static inline int ft_get_config(int ctl, struct ftring_config *c)
{
	memset(c, 0, sizeof(*c));
	return ft_ioctl(ctl, FTRING_IOC_GET_CONFIG, c);
}

static inline int ft_set_config(int ctl, const struct ftring_config *c)
{
	return ft_ioctl(ctl, FTRING_IOC_SET_CONFIG, (void *)c);
}

static inline int ft_get_status(int ctl, struct ftring_status *s)
{
	memset(s, 0, sizeof(*s));
	return ft_ioctl(ctl, FTRING_IOC_GET_STATUS, s);
}

static inline int ft_get_stats(int ctl, int cpu, struct ftring_cpu_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->cpu = cpu;
	return ft_ioctl(ctl, FTRING_IOC_GET_STATS, st);
}

/* Stop, then apply @nr_subbufs/@mode (0 = keep), then reset: a known empty state. */
static inline int ft_setup(int ctl, uint32_t nr_subbufs, int mode)
{
	struct ftring_config c;
	int ret;

	ret = ft_stop(ctl);
	if (!ret)
		ret = ft_get_config(ctl, &c);
	if (ret)
		return ret;
	if (nr_subbufs)
		c.nr_subbufs = nr_subbufs;
	if (mode >= 0)
		c.mode = mode;
	ret = ft_set_config(ctl, &c);
	return ret ? ret : ft_reset(ctl);
}

static inline int ft_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* One marker write; returns the count written or -errno. */
static inline ssize_t ft_marker(int mfd, const void *buf, size_t len)
{
	ssize_t n = write(mfd, buf, len);

	return n < 0 ? -errno : n;
}

#define FT_STRICT_WRITES	"/sys/module/ftring/parameters/strict_writes"

/*
 * Sets the module parameter strict_writes (dropped marker/FXT writes fail with
 * ENOSPC instead of returning the count). Returns the previous value, or -errno.
 */
static inline int ft_strict_writes(int on)
{
	char c = 'N';
	int fd = open(FT_STRICT_WRITES, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (read(fd, &c, 1) != 1 || pwrite(fd, on ? "1" : "0", 1, 0) != 1) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return c == 'Y' || c == '1';
}

static inline long ft_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/*
 * Data length of @page, loaded once with acquire: the event bytes it covers are then
 * complete. A reader that walks a page the writer may still append to must use ONE
 * such snapshot for both the walk and where it resumes next time; loading it twice
 * skips or double-counts the events committed in between.
 */
static inline uint32_t ft_page_len_acquire(const void *page)
{
	return __atomic_load_n((const __u64 *)((const char *)page + FTP_COMMIT_OFFSET),
			       __ATOMIC_ACQUIRE) & FTP_COMMIT_MASK;
}

/*
 * Calls @fn for every data event of the sub-buffer @page (@page_size bytes) between
 * data offsets @from (an event boundary) and @to (a commit length the caller loaded
 * with ft_page_len_acquire()).
 * Returns the number of data events, -EBADMSG if the page cannot be walked, -ERANGE
 * if its clock goes backwards.
 */
typedef void (*ft_event_fn)(const struct ftp_event *ev, void *arg);

static inline int ft_walk_page_range(const void *page, uint32_t page_size, uint32_t from,
				     uint32_t to, ft_event_fn fn, void *arg)
{
	const char *data = ftp_page_data(page);
	uint32_t size = to;
	uint32_t off = from;
	int64_t start = ftp_ts_before(page, from);
	__u64 ts = (__u64)start, prev = ts;
	struct ftp_event ev;
	int n = 0;

	if (size > page_size - FTP_HDR_SIZE || from > size || start < 0)
		return -EBADMSG;
	while (off < size) {
		off = ftp_next(data, size, off, &ts, &ev);
		if (!off)
			return -EBADMSG;
		if (ts < prev)
			return -ERANGE;	/* time went backwards inside one CPU's page */
		prev = ts;
		if (ev.type_len > FTP_TYPE_DATA_MAX)
			continue;
		if (ev.payload_len < sizeof(struct ftp_entry))
			return -EBADMSG;
		n++;
		if (fn)
			fn(&ev, arg);
	}
	return n;
}

/* ft_walk_page_range() up to the commit length at the time of the call. */
static inline int ft_walk_page_from(const void *page, uint32_t page_size, uint32_t from,
				    ft_event_fn fn, void *arg)
{
	return ft_walk_page_range(page, page_size, from, ft_page_len_acquire(page), fn, arg);
}

static inline int ft_walk_page(const void *page, uint32_t page_size, ft_event_fn fn, void *arg)
{
	return ft_walk_page_from(page, page_size, 0, fn, arg);
}

/* Missed-events count a page carries: 0 none, -1 flagged without a count. */
static inline int64_t ft_page_missed(const void *page, uint32_t page_size)
{
	uint64_t commit = ftp_page_commit(page);
	uint32_t len = ftp_page_len(page);

	if (!(commit & FTP_MISSED_EVENTS))
		return 0;
	if (!(commit & FTP_MISSED_STORED) || FTP_HDR_SIZE + len + 8 > page_size)
		return -1;
	return *(const int64_t *)((const char *)page + FTP_HDR_SIZE + len);
}

#endif /* FTRING_TEST_H */
