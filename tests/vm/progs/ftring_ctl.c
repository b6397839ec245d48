// SPDX-License-Identifier: GPL-2.0
/*
 * Small ftring control and inspection tool for guest test scripts.
 *
 *   ftring_ctl start | stop | reset
 *   ftring_ctl events all|default|HEXMASK|NAME[,NAME...]   the enabled events
 *   ftring_ctl config NR_SUBBUFS discard|overwrite [local|global|mono|boot]
 *   ftring_ctl stats                      one line of counters per CPU
 *   ftring_ctl show                       the configuration and event mask, one line
 *   ftring_ctl dump                       drain every CPU buffer through the mapping and
 *                                         print one line per event:
 *                                         cpu=N ts=T name pid=P field=value ...
 *   ftring_ctl hold-map FILE              map cpu0, close the fd, write FILE, sleep
 *   ftring_ctl hold-poll FILE             write FILE, block in GET_READER on cpu0 until
 *                                         a signal (EINTR) or data
 *   ftring_ctl marker-loop SECONDS        write markers as fast as possible
 *   ftring_ctl try-open PATH [nocap]      open PATH read-only (nocap: without
 *                                         CAP_SYS_ADMIN); prints "ok" or the error
 *   ftring_ctl hold-ctl FILE              open the control device, write FILE, wait
 *                                         for SIGUSR1, then GET_STATS and STOP on it
 *   ftring_ctl watch [^]LITERAL FILE      set the marker watch to LITERAL, write FILE,
 *                                         wait for SIGUSR1 (an armed marker trigger's
 *                                         cost, for the benchmark); prints the hits
 * Exit status 0, or 1 with a message.
 */
#include <linux/capability.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <time.h>

#include "ftring_test.h"
#include "ftring_events.h"

#define EV_NAME(name, sys, fmt, on)	#name,
static const char *const ev_names[] = { FTRING_EVENT_LIST(EV_NAME) };

static int die(const char *what, int err)
{
	fprintf(stderr, "ftring_ctl: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

static const char *data_loc(const void *rec, uint32_t loc, uint32_t rec_len)
{
	uint32_t off = loc & 0xffff, len = loc >> 16;

	if (!len || off + len > rec_len || ((const char *)rec)[off + len - 1])
		return "<BAD-DATA-LOC>";
	return (const char *)rec + off;
}

struct dump_ctx {
	int	cpu;
	long	n;
};

static void print_event(const struct ftp_event *ev, void *arg)
{
	const struct ftp_entry *e = ev->payload;
	struct dump_ctx *d = arg;
	int idx = ft_ev_index(e->type);
	const void *r = ev->payload;

	d->n++;
	if (idx < 0 || idx >= FTRING_NR_EVENTS) {
		printf("cpu=%d ts=%llu UNKNOWN type=%u\n", d->cpu, (unsigned long long)ev->ts,
		       e->type);
		return;
	}
	printf("cpu=%d ts=%llu %s pid=%d flags=%#x", d->cpu, (unsigned long long)ev->ts,
	       ev_names[idx], e->pid, e->flags);
	switch (idx) {
	case FTRING_EV_sched_switch: {
		const struct ftring_ev_sched_switch *s = r;

		printf(" prev_comm=%.16s prev_pid=%d prev_prio=%d prev_state=%lld"
		       " next_comm=%.16s next_pid=%d next_prio=%d", s->prev_comm, s->prev_pid,
		       s->prev_prio, (long long)s->prev_state, s->next_comm, s->next_pid,
		       s->next_prio);
		break;
	}
	case FTRING_EV_sched_wakeup:
	case FTRING_EV_sched_wakeup_new: {
		const struct ftring_ev_sched_wakeup *s = r;

		printf(" comm=%.16s pid=%d prio=%d target_cpu=%d", s->comm, s->pid, s->prio,
		       s->target_cpu);
		break;
	}
	case FTRING_EV_sched_process_fork: {
		const struct ftring_ev_sched_process_fork *s = r;

		printf(" parent_comm=%.16s parent_pid=%d child_comm=%.16s child_pid=%d",
		       s->parent_comm, s->parent_pid, s->child_comm, s->child_pid);
		break;
	}
	case FTRING_EV_sched_process_exec: {
		const struct ftring_ev_sched_process_exec *s = r;

		printf(" filename=%s pid=%d old_pid=%d",
		       data_loc(r, s->filename, ev->payload_len), s->pid, s->old_pid);
		break;
	}
	case FTRING_EV_sched_process_exit: {
		const struct ftring_ev_sched_process_exit *s = r;

		printf(" comm=%.16s pid=%d prio=%d", s->comm, s->pid, s->prio);
		break;
	}
	case FTRING_EV_irq_handler_entry: {
		const struct ftring_ev_irq_handler_entry *s = r;

		printf(" irq=%d name=%s", s->irq, data_loc(r, s->name, ev->payload_len));
		break;
	}
	case FTRING_EV_irq_handler_exit: {
		const struct ftring_ev_irq_handler_exit *s = r;

		printf(" irq=%d ret=%d", s->irq, s->ret);
		break;
	}
	case FTRING_EV_softirq_entry:
	case FTRING_EV_softirq_exit: {
		const struct ftring_ev_softirq_entry *s = r;

		printf(" vec=%u", s->vec);
		break;
	}
	case FTRING_EV_sys_enter: {
		const struct ftring_ev_sys_enter *s = r;

		printf(" id=%lld args=%llx,%llx,%llx,%llx,%llx,%llx", (long long)s->id,
		       (unsigned long long)s->args[0], (unsigned long long)s->args[1],
		       (unsigned long long)s->args[2], (unsigned long long)s->args[3],
		       (unsigned long long)s->args[4], (unsigned long long)s->args[5]);
		break;
	}
	case FTRING_EV_sys_exit: {
		const struct ftring_ev_sys_exit *s = r;

		printf(" id=%lld ret=%lld", (long long)s->id, (long long)s->ret);
		break;
	}
	case FTRING_EV_marker: {
		const struct ftring_ev_marker *s = r;

		printf(" mpid=%d buf=%s", s->pid, data_loc(r, s->buf, ev->payload_len));
		break;
	}
	}
	printf("\n");
}

static int dump(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF), total = 0;
	int cpu, ctl = ft_ctl_open();	/* the event IDs */

	if (ctl < 0)
		return die(FTRING_DEV_CTL, ctl);
	close(ctl);

	for (cpu = 0; cpu < ncpus; cpu++) {
		struct dump_ctx d = { .cpu = cpu };
		struct ftring_meta *m;
		uint32_t id, done = 0, plen;
		size_t len;
		char *data;
		int fd, empty = 0;

		fd = ft_cpu_open(cpu, O_RDONLY | O_NONBLOCK);
		if (fd == -ENOENT || fd == -ENODEV || fd == -ENXIO)
			continue;	/* never had a buffer */
		if (fd < 0)
			return die("open cpu device", fd);
		m = mmap(NULL, ft_page_size(), PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return die("mmap meta", errno);
		len = (size_t)m->subbuf_size * m->nr_subbufs;
		data = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, m->meta_page_size);
		if (data == MAP_FAILED)
			return die("mmap data", errno);
		id = m->reader.id;
		while (empty < 2) {
			const char *page;
			int ret = ft_ioctl(fd, FTRING_IOC_GET_READER, NULL);

			if (ret)
				return die("GET_READER", ret);
			page = data + (size_t)m->reader.id * m->subbuf_size;
			if (m->reader.id != id) {
				id = m->reader.id;
				done = 0;
				if (m->reader.lost_events)
					printf("cpu=%d LOST %llu\n", cpu,
					       (unsigned long long)m->reader.lost_events);
			}
			/* one snapshot: the writer may still append to this page */
			plen = ft_page_len_acquire(page);
			if (plen == done) {
				empty++;
				continue;
			}
			empty = 0;
			ret = ft_walk_page_range(page, m->subbuf_size, done, plen, print_event, &d);
			if (ret < 0)
				printf("cpu=%d BAD-PAGE %d\n", cpu, ret);
			done = plen;
		}
		total += d.n;
		munmap(data, len);
		munmap(m, ft_page_size());
		close(fd);
	}
	fprintf(stderr, "ftring_ctl: dumped %ld events\n", total);
	return 0;
}

static int stats(int ctl)
{
	struct ftring_status s;
	unsigned int cpu;
	int ret = ft_get_status(ctl, &s);

	if (ret)
		return die("GET_STATUS", ret);
	printf("recording=%u events=%#llx\n", s.recording, (unsigned long long)s.events);
	for (cpu = 0; cpu < s.nr_cpu_ids; cpu++) {
		struct ftring_cpu_stats st;

		if (ft_get_stats(ctl, cpu, &st))
			continue;
		printf("cpu=%u online=%u entries=%llu read=%llu overrun=%llu lost=%llu"
		       " bytes=%llu\n",
		       cpu, st.online, st.entries, st.read, st.overrun, st.lost, st.bytes);
	}
	return 0;
}

/* Writes our pid to @file, for the script waiting on it: 0, or 1 with a message. */
static int write_pid(const char *file)
{
	FILE *f = fopen(file, "w");

	if (!f)
		return die(file, errno);
	fprintf(f, "%d\n", getpid());
	fclose(f);
	return 0;
}

static int hold(const char *how, const char *file)
{
	int fd = ft_cpu_open(0, O_RDONLY), ret;
	struct ftring_meta *m;

	if (fd < 0)
		return die("open cpu0", fd);
	m = mmap(NULL, ft_page_size(), PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return die("mmap", errno);
	if (!strcmp(how, "hold-map"))
		close(fd);	/* only the mapping keeps the device open */
	if (write_pid(file))
		return 1;
	if (!strcmp(how, "hold-map")) {
		for (;;) {
			pause();
			/* SIGUSR1: the mapping must still be readable. */
			printf("meta_struct_len=%u\n", m->meta_struct_len);
			fflush(stdout);
		}
	}
	ret = ft_ioctl(fd, FTRING_IOC_GET_READER, NULL);
	printf("GET_READER returned %d\n", ret);
	return ret == -EINTR || !ret ? 0 : 1;
}

/* "all", "default", a hex mask, or event names separated by commas. */
static int parse_events(const char *arg, uint64_t *mask)
{
	char *end, *copy, *tok, *save = NULL;
	int i;

	if (!strcmp(arg, "all") || !strcmp(arg, "default")) {
		*mask = arg[0] == 'a' ? FTRING_EVENTS_ALL : FTRING_EVENTS_DEFAULT;
		return 0;
	}
	*mask = strtoull(arg, &end, 16);
	if (*arg && !*end)
		return 0;
	*mask = 0;
	copy = strdup(arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < FTRING_NR_EVENTS; i++)
			if (!strcmp(tok, ev_names[i]))
				break;
		if (i == FTRING_NR_EVENTS) {
			fprintf(stderr, "ftring_ctl: no event '%s'\n", tok);
			free(copy);
			return -EINVAL;
		}
		*mask |= 1ULL << i;
	}
	free(copy);
	return 0;
}

/* Opens @path with CAP_SYS_ADMIN dropped from the effective set if @nocap. */
static int try_open(const char *path, int nocap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int fd;

	if (nocap) {
		if (syscall(SYS_capget, &h, d))
			return die("capget", errno);
		d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
		if (syscall(SYS_capset, &h, d))
			return die("capset", errno);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("%s\n", strerror(errno));
		return 1;
	}
	close(fd);
	printf("ok\n");
	return 0;
}

/* A control file opened before lockdown: still usable after it (see ftring.h). */
static int hold_ctl(const char *file)
{
	struct ftring_cpu_stats st = { .cpu = 0 };
	int ctl = ft_ctl_open(), ret;

	if (ctl < 0)
		return die(FTRING_DEV_CTL, ctl);
	if (write_pid(file))
		return 1;
	pause();
	ret = ft_get_stats(ctl, 0, &st);
	printf("GET_STATS returned %d\n", ret);
	ret = ret ?: ft_ioctl(ctl, FTRING_IOC_STOP, NULL);
	printf("STOP returned %d\n", ret);
	return ret ? 1 : 0;
}

/* The marker watch held with one literal until SIGUSR1; then its hits, one a line. */
static int watch(const char *lit, const char *file)
{
	struct ftring_watch_spec spec = { .nr = 1 };
	struct ftring_watch_hit h;
	int w = open(FTRING_DEV_WATCH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (w < 0)
		return die(FTRING_DEV_WATCH, errno);
	/* "^LITERAL": only at the start of a marker */
	spec.prefix = lit[0] == '^';
	snprintf(spec.lit[0], sizeof(spec.lit[0]), "%s", lit + spec.prefix);
	if (ioctl(w, FTRING_IOC_WATCH_MARKERS, &spec))
		return die("FTRING_IOC_WATCH_MARKERS", errno);
	if (write_pid(file))
		return 1;
	pause();
	while (read(w, &h, sizeof(h)) == sizeof(h))
		printf("hit pid=%u missed=%u %s\n", h.pid, h.missed, h.text);
	close(w);
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART: EINTR */
	const char *cmd = argc > 1 ? argv[1] : "";
	struct ftring_config c;
	int ctl, ret = 0;

	sigaction(SIGUSR1, &sa, NULL);
	if (!strcmp(cmd, "dump"))
		return dump();
	if (!strcmp(cmd, "try-open") && (argc == 3 || argc == 4))
		return try_open(argv[2], argc == 4 && !strcmp(argv[3], "nocap"));
	if (!strcmp(cmd, "hold-ctl") && argc == 3)
		return hold_ctl(argv[2]);
	if (!strcmp(cmd, "watch") && argc == 4)
		return watch(argv[2], argv[3]);
	if (!strncmp(cmd, "hold-", 5) && argc == 3)
		return hold(cmd, argv[2]);
	ctl = ft_ctl_open();
	if (ctl < 0)
		return die(FTRING_DEV_CTL, ctl);
	if (!strcmp(cmd, "start")) {
		ret = ft_start(ctl);
	} else if (!strcmp(cmd, "stop")) {
		ret = ft_ioctl(ctl, FTRING_IOC_STOP, NULL);
	} else if (!strcmp(cmd, "reset")) {
		ret = ft_reset(ctl);
	} else if (!strcmp(cmd, "stats")) {
		return stats(ctl);
	} else if (!strcmp(cmd, "show")) {
		struct ftring_status st;

		ret = ft_get_config(ctl, &c);
		if (!ret)
			ret = ft_get_status(ctl, &st);
		if (!ret)
			printf("nr_subbufs=%u mode=%u clock=%u watermark=%u events=%#llx "
			       "flags=%#x\n", c.nr_subbufs, c.mode, c.clock, c.watermark,
			       (unsigned long long)st.events, st.flags);
	} else if (!strcmp(cmd, "events") && argc == 3) {
		uint64_t mask;

		ret = parse_events(argv[2], &mask);
		if (!ret)
			ret = ft_set_events(ctl, mask);
	} else if (!strcmp(cmd, "config") && argc >= 4) {
		static const char *const clocks[] = { "local", "global", "mono", "boot" };
		int i;

		ret = ft_get_config(ctl, &c);
		if (ret)
			return die("GET_CONFIG", ret);
		c.nr_subbufs = strtoul(argv[2], NULL, 0);
		c.mode = !strcmp(argv[3], "overwrite");
		for (i = 0; argc > 4 && i < 4; i++)
			if (!strcmp(argv[4], clocks[i]))
				c.clock = i;
		ret = ft_set_config(ctl, &c);
	} else if (!strcmp(cmd, "marker-loop") && argc == 3) {
		double secs = atof(argv[2]);
		struct timespec t0, t;
		int mfd = open(FTRING_DEV_MARKER, O_WRONLY);
		long n = 0;

		if (mfd < 0)
			return die(FTRING_DEV_MARKER, errno);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			char buf[32];
			int len = snprintf(buf, sizeof(buf), "loop %ld", n++);

			ft_marker(mfd, buf, len + 1);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
		printf("markers=%ld\n", n);
	} else {
		fprintf(stderr, "usage: ftring_ctl start|stop|reset|stats|show|dump|events MASK|"
			"config NR MODE [CLOCK]|hold-map FILE|hold-poll FILE|marker-loop SECS\n");
		return 2;
	}
	if (ret)
		return die(cmd, ret);
	return 0;
}
