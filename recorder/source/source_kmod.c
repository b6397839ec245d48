// SPDX-License-Identifier: GPL-2.0
/*
 * Page source "kmod": the ftring module's per-CPU buffers (common/ftring_abi.h).
 * The module is configured through /dev/ftring/ctl (ring size, mode, clock, event
 * mask, start/stop); each /dev/ftring/cpuN has the upstream ring-buffer mmap ABI and
 * is consumed by mmap_ring.c exactly like ftrace's trace_pipe_raw. The module's event
 * formats (read() on the ctl device) go into the file's metadata under their own
 * systems, so trace-cmd report decodes every event.
 *
 * The settings the module had before are put back at close; a module that is already
 * recording belongs to someone else and is refused (EBUSY).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ftring_abi.h"
#include "ftring_events.h"
#include "util/log.h"
#include "format/meta.h"
#include "lastboot/boot_record.h"
#include "mmap_ring.h"
#include "source.h"

struct kmod_cpu {
	int			fd;	/* -1: the CPU never had a buffer */
	struct mmap_ring	*ring;
};

struct source_kmod {
	struct source		s;
	int			ctl;
	int			started;
	int			taking;		/* rings a dead recorder left: recording
						 * until source_adopt(), left so at close */
	int			config_saved;
	struct ftring_config	saved;		/* put back at close */
	__u64			saved_events;
	struct ftring_config	cfg;		/* in use */
	__u64			events;
	struct kmod_cpu		*cpus;
};

/* Event names and systems, indexed like the schema (bit i of the event mask). */
#define KMOD_EV_NAME(name, sys, fmt, on)	#name,
#define KMOD_EV_SYS(name, sys, fmt, on)		sys,
static const char *const ev_names[] = { FTRING_EVENT_LIST(KMOD_EV_NAME) };
static const char *const ev_systems[] = { FTRING_EVENT_LIST(KMOD_EV_SYS) };

static const char *const clock_names[] = FTRING_CLOCK_NAMES;

static int ctl_open(void)
{
	struct ftring_version v = { 0 };
	int fd = open(FTRING_DEV_CTL, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FTRING_IOC_ABI_VERSION, &v) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (v.major != FTRING_ABI_MAJOR) {
		log_err("kmod source: the loaded ftring module has ABI %u.%u, recorderd needs %u.x",
			v.major, v.minor, FTRING_ABI_MAJOR);
		close(fd);
		return -EPROTO;
	}
	return fd;
}

static int kmod_probe(const struct source_params *p)
{
	int fd = ctl_open();

	if (fd < 0) {
		/* the usual case without the module: "auto" goes on quietly */
		if (fd == -ENOENT)
			log_debug("kmod source: no %s", FTRING_DEV_CTL);
		else
			log_info("kmod source: %s: %s", FTRING_DEV_CTL, strerror(-fd));
		return fd;
	}
	close(fd);
	return 0;
}

int source_kmod_state(void)
{
	struct ftring_status st;
	int fd = ctl_open(), ret;

	if (fd < 0)
		return fd;
	ret = ioctl(fd, FTRING_IOC_GET_STATUS, &st) < 0 ? -errno :
	      !st.recording ? SOURCE_KMOD_IDLE :
	      st.flags & FTRING_STATUS_ORPHAN ? SOURCE_KMOD_ORPHAN : SOURCE_KMOD_LIVE;
	close(fd);
	return ret;
}

/* Bit of the event @name names: "EVENT", "SYSTEM:EVENT" or "SYSTEM" (all of it). */
static int events_mask(const char *name, __u64 *mask)
{
	const char *colon = strchr(name, ':');
	size_t syslen = colon ? (size_t)(colon - name) : 0;
	int found = 0;

	if (!strcmp(name, "all")) {
		*mask |= FTRING_EVENTS_ALL;
		return 0;
	}
	for (int i = 0; i < FTRING_NR_EVENTS; i++) {
		int match;

		if (colon)
			match = strlen(ev_systems[i]) == syslen &&
				!strncmp(ev_systems[i], name, syslen) &&
				(!strcmp(colon + 1, ev_names[i]) || !strcmp(colon + 1, "*"));
		else
			match = !strcmp(name, ev_names[i]) || !strcmp(name, ev_systems[i]);
		if (match) {
			*mask |= 1ULL << i;
			found = 1;
		}
	}
	return found ? 0 : -ENOENT;
}

/*
 * The events a list names; "!NAME" takes events out. Writes to the marker and FXT
 * devices are recorded whatever the list says, as ftrace records trace_marker
 * whatever events are on, unless the list takes them out ("!marker", "!ftring").
 * A list of exclusions only takes them out of the default set.
 */
static int parse_events(const struct source_params *p, __u64 *mask)
{
	const __u64 user = 1ULL << FTRING_EV_marker | 1ULL << FTRING_EV_fxt;
	__u64 on = 0, off = 0;
	bool named = false;

	for (int i = 0; p->events && i < p->nr_events; i++) {
		const char *name = p->events[i];
		bool out = name[0] == '!';

		if (events_mask(name + out, out ? &off : &on)) {
			char list[1024];
			size_t n = 0;

			for (int j = 0; j < FTRING_NR_EVENTS && n < sizeof(list); j++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s:%s",
						      j ? " " : "", ev_systems[j], ev_names[j]);
			log_err("kmod source: the ftring module has no event '%s' (it has: %s)",
				name + out, list);
			return -EINVAL;
		}
		named |= !out;
	}
	*mask = (named ? on | user : FTRING_EVENTS_DEFAULT) & ~off;
	return 0;
}

static int parse_clock(const char *name, __u32 *clock)
{
	if (!name)
		return 0;
	for (__u32 i = 0; i <= FTRING_CLOCK_MAX; i++) {
		if (!strcmp(name, clock_names[i])) {
			*clock = i;
			return 0;
		}
	}
	log_err("kmod source: the ftring module has no clock '%s' (local, global, mono, boot)",
		name);
	return -EINVAL;
}

static void kmod_close(struct source *s)
{
	struct source_kmod *k = (struct source_kmod *)s;

	if (k->started && ioctl(k->ctl, FTRING_IOC_STOP) < 0)
		log_warn("kmod source: stopping the module: %s", strerror(errno));
	k->started = 0;
	/* Not adopted: the rings stay the orphan they were, with their events. */
	if (k->taking && ioctl(k->ctl, FTRING_IOC_SET_EVENTS, &k->saved_events) < 0)
		log_warn("kmod source: restoring the module's events: %s", strerror(errno));
	k->taking = 0;
	for (int i = 0; k->cpus && i < s->ncpus; i++) {
		mmap_ring_close(k->cpus[i].ring);
		if (k->cpus[i].fd >= 0)
			close(k->cpus[i].fd);
	}
	free(k->cpus);
	k->cpus = NULL;
	/* Put the module back the way we found it (nothing is mapped any more). */
	if (k->config_saved) {
		if (ioctl(k->ctl, FTRING_IOC_SET_CONFIG, &k->saved) < 0 ||
		    ioctl(k->ctl, FTRING_IOC_SET_EVENTS, &k->saved_events) < 0)
			log_warn("kmod source: restoring the module's settings: %s",
				 strerror(errno));
	}
	if (k->ctl >= 0)
		close(k->ctl);
	k->ctl = -1;
}

static int open_cpus(struct source_kmod *k)
{
	struct source *s = &k->s;
	int found = 0, ret;

	for (int i = 0; i < s->ncpus; i++)
		k->cpus[i].fd = -1;
	for (int i = 0; i < s->ncpus; i++) {
		struct kmod_cpu *c = &k->cpus[i];
		char path[64];

		snprintf(path, sizeof(path), FTRING_DEV_CPU_FMT, i);
		c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fd < 0) {
			if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
				continue;	/* CPU never online: no buffer */
			ret = -errno;
			log_err("kmod source: %s: %s", path, strerror(errno));
			return ret;
		}
		c->ring = mmap_ring_open(c->fd, &ret);
		if (!c->ring) {
			log_err("kmod source: cannot map %s: %s", path, strerror(-ret));
			return ret;
		}
		if (mmap_ring_page_size(c->ring) != s->page_size) {
			log_err("kmod source: %s has %u-byte sub-buffers, the module said %u",
				path, mmap_ring_page_size(c->ring), s->page_size);
			return -EPROTO;
		}
		found++;
	}
	if (!found) {
		log_err("kmod source: no /dev/ftring/cpuN device");
		return -ENODEV;
	}
	return 0;
}

/* The next boot's readout names this boot (and finds its boot record) by this id. */
static void set_boot_id(int ctl)
{
	struct ftring_boot_id b;
	int ret = boot_id_current(b.id);

	if (!ret && ioctl(ctl, FTRING_IOC_SET_BOOT_ID, &b) < 0)
		ret = -errno;
	if (ret)
		log_warn("kmod source: the persistent rings will not carry this boot's id: %s",
			 strerror(-ret));
}

/*
 * The module is recording and nothing maps its rings (FTRING_STATUS_ORPHAN): the
 * recorder that started it died (kill -9, a watchdog). Its rings go on as they are
 * (size, mode, clock: a restart applies new ones), nothing is reset, and reading
 * starts where the dead reader stopped, so what was recorded while no daemon ran goes
 * to the new file; its losses are in the module's counters, which the file's CPUSTAT
 * carries. Only the event set is ours at once.
 */
static int kmod_take_over(struct source *s, struct source_kmod *k, const struct ftring_status *st)
{
	if (ioctl(k->ctl, FTRING_IOC_SET_EVENTS, &k->events) < 0) {
		int ret = -errno;

		log_err("kmod source: setting the events: %s", strerror(errno));
		return ret;
	}
	k->taking = 1;
	k->cfg = k->saved;
	s->persistent = !!(st->flags & FTRING_STATUS_PERSIST);
	log_warn("kmod source: the module was left recording by a recorder that died: taking "
		 "its rings over as they are (%u x %u-byte sub-buffers, %s, clock %s), with "
		 "what they hold", k->cfg.nr_subbufs, k->cfg.subbuf_size,
		 k->cfg.mode ? "overwrite" : "discard", clock_names[k->cfg.clock]);
	return 0;
}

/* A stopped module set up as @p asks: size, mode, clock, watermark, events; emptied. */
static int kmod_configure(struct source *s, struct source_kmod *k, const struct source_params *p,
			  const struct ftring_status *st)
{
	int ret;

	k->cfg = k->saved;
	ret = parse_clock(p->clock, &k->cfg.clock);
	if (ret)
		return ret;
	if (st->flags & FTRING_STATUS_PERSIST) {
		/* the rings are the region's: as large as it is, named after this boot */
		s->persistent = 1;
		if (p->buffer_kb)
			log_info("kmod source: persistent rings: %u sub-buffers per CPU, the "
				 "region's size, whatever the buffer size asked",
				 k->saved.nr_subbufs);
		set_boot_id(k->ctl);
	} else if (p->buffer_kb) {
		__u64 n = (__u64)p->buffer_kb * 1024 / k->saved.subbuf_size;

		k->cfg.nr_subbufs = n < 2 ? 2 : n > 65536 ? 65536 : (__u32)n;
	}
	k->cfg.mode = p->overwrite ? FTRING_MODE_OVERWRITE : FTRING_MODE_DISCARD;
	/*
	 * Full ring pages that wake us. Not 0 ("any event"): the consumer leaves the
	 * page the writer is on until it is full, so such a wake-up would find nothing.
	 */
	if (p->watermark_pct > 0)
		k->cfg.watermark = (__u32)((__u64)k->cfg.nr_subbufs * (__u32)p->watermark_pct / 100);
	if (p->watermark_pct >= 0 && !k->cfg.watermark)
		k->cfg.watermark = 1;
	if (k->cfg.watermark >= k->cfg.nr_subbufs)
		k->cfg.watermark = k->cfg.nr_subbufs - 1;
	k->config_saved = 1;
	if (ioctl(k->ctl, FTRING_IOC_SET_CONFIG, &k->cfg) < 0) {
		ret = -errno;
		log_err("kmod source: configuring %u sub-buffers, %s mode, clock %s: %s",
			k->cfg.nr_subbufs, k->cfg.mode ? "overwrite" : "discard",
			clock_names[k->cfg.clock], strerror(errno));
		return ret;
	}
	if (ioctl(k->ctl, FTRING_IOC_RESET) < 0 ||
	    ioctl(k->ctl, FTRING_IOC_SET_EVENTS, &k->events) < 0 ||
	    ioctl(k->ctl, FTRING_IOC_GET_CONFIG, &k->cfg) < 0) {
		ret = -errno;
		log_err("kmod source: preparing the module: %s", strerror(errno));
		return ret;
	}
	return 0;
}

static int kmod_open(struct source *s, const struct source_params *p)
{
	struct source_kmod *k = (struct source_kmod *)s;
	struct ftring_status st;
	int ret;

	k->ctl = ctl_open();
	if (k->ctl < 0) {
		ret = k->ctl;
		log_err("kmod source: %s: %s", FTRING_DEV_CTL, strerror(-ret));
		return ret;
	}
	if (ioctl(k->ctl, FTRING_IOC_GET_STATUS, &st) < 0 ||
	    ioctl(k->ctl, FTRING_IOC_GET_CONFIG, &k->saved) < 0) {
		ret = -errno;
		log_err("kmod source: reading the module's state: %s", strerror(errno));
		goto fail;
	}
	if (st.recording && !(st.flags & FTRING_STATUS_ORPHAN)) {
		log_err("kmod source: the ftring module is already recording (another recorder?)");
		ret = -EBUSY;
		goto fail;
	}
	if (!st.recording && p->orphan_only) {
		log_info("kmod source: the ftring module is not recording: nothing to take over");
		ret = -ENOENT;
		goto fail;
	}
	/* the IDs are the module's (its formats carry them): only the schema must match */
	if (st.nr_events < FTRING_NR_EVENTS) {
		log_err("kmod source: the module has %u events, we know %u: a newer recorderd "
			"than module", st.nr_events, FTRING_NR_EVENTS);
		ret = -EPROTO;
		goto fail;
	}
	k->saved_events = st.events;
	ret = parse_events(p, &k->events);
	if (ret)
		goto fail;
	ret = st.recording ? kmod_take_over(s, k, &st) : kmod_configure(s, k, p, &st);
	if (ret)
		goto fail;
	s->ncpus = (int)st.nr_cpu_ids;
	s->page_size = k->cfg.subbuf_size;
	k->cpus = calloc((size_t)s->ncpus, sizeof(*k->cpus));
	if (!k->cpus) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = open_cpus(k);
	if (ret)
		goto fail;
	/* taken over, it records already: ours once the capture is live */
	if (!st.recording && ioctl(k->ctl, FTRING_IOC_START) < 0) {
		ret = -errno;
		log_err("kmod source: starting the module: %s", strerror(errno));
		goto fail;
	}
	k->started = !k->taking;
	log_debug("kmod source: %d CPUs, %u x %u-byte sub-buffers, %s, clock %s, events %#llx",
		  s->ncpus, k->cfg.nr_subbufs, k->cfg.subbuf_size,
		  k->cfg.mode ? "overwrite" : "discard", clock_names[k->cfg.clock],
		  (unsigned long long)k->events);
	return 0;
fail:
	kmod_close(s);
	return ret;
}

static int kmod_poll_fd(struct source *s, int cpu)
{
	return ((struct source_kmod *)s)->cpus[cpu].fd;
}

static ssize_t kmod_read_pages(struct source *s, int cpu, void *dst, size_t max, int flush)
{
	struct kmod_cpu *c = &((struct source_kmod *)s)->cpus[cpu];

	if (!c->ring)
		return 0;
	return mmap_ring_read_pages(c->ring, dst, max, flush);
}

static int kmod_stats(struct source *s, int cpu, struct source_cpu_stats *st)
{
	struct source_kmod *k = (struct source_kmod *)s;
	struct ftring_cpu_stats ks = { .cpu = (__u32)cpu };
	struct mmap_ring_stats rs = { 0 };

	memset(st, 0, sizeof(*st));
	if (!k->cpus[cpu].ring)
		return 0;
	if (ioctl(k->ctl, FTRING_IOC_GET_STATS, &ks) < 0)
		return -errno;
	mmap_ring_stats(k->cpus[cpu].ring, &rs);
	st->entries = ks.entries;
	st->overrun = ks.overrun;
	st->lost = ks.lost;
	st->read = ks.read;
	st->pages = rs.pages;
	st->bytes = rs.bytes;
	return 0;
}

/* The CPUSTAT text, in the words of tracefs per_cpu/cpuN/stats where they exist. */
static char *kmod_cpustat_text(struct source *s, int cpu)
{
	struct source_kmod *k = (struct source_kmod *)s;
	struct ftring_cpu_stats ks = { .cpu = (__u32)cpu };
	char *out;

	if (!k->cpus[cpu].ring || ioctl(k->ctl, FTRING_IOC_GET_STATS, &ks) < 0)
		return NULL;
	if (asprintf(&out, "CPU: %d\nentries: %llu\noverrun: %llu\ncommit overrun: 0\n"
		     "bytes: %llu\ndropped events: %llu\nread events: %llu\n"
		     "ftring lost full: %llu\nftring lost busy: %llu\nftring lost too big: %llu\n",
		     cpu, (unsigned long long)ks.entries - ks.read - ks.overrun,
		     (unsigned long long)ks.overrun, (unsigned long long)ks.bytes,
		     (unsigned long long)ks.lost, (unsigned long long)ks.read,
		     (unsigned long long)ks.lost_full, (unsigned long long)ks.lost_busy,
		     (unsigned long long)ks.lost_too_big) < 0)
		return NULL;
	return out;
}

/* Reads the whole format text of the ctl device (malloc'd, NUL-terminated). */
static char *read_formats(int ctl, size_t *len)
{
	size_t cap = 65536;
	char *text = malloc(cap), *t;
	ssize_t n;

	*len = 0;
	while (text) {
		if (cap - *len < 4096) {
			t = realloc(text, 2 * cap);
			if (!t)
				break;
			text = t;
			cap *= 2;
		}
		n = pread(ctl, text + *len, cap - *len - 1, (off_t)*len);
		if (n < 0) {
			log_err("kmod source: reading the event formats: %s", strerror(errno));
			break;
		}
		if (!n) {
			text[*len] = '\0';
			return text;
		}
		*len += (size_t)n;
	}
	free(text);
	return NULL;
}

/* The module's formats, with the module's IDs, replace tracefs systems of their names. */
static int kmod_add_meta(struct source *s, struct trace_meta *m)
{
	struct source_kmod *k = (struct source_kmod *)s;
	size_t len;
	char *text = read_formats(k->ctl, &len);
	int ret;

	if (!text)
		return -EIO;
	ret = meta_add_module_formats(m, text, len);
	if (ret == -EPROTO)
		log_err("kmod source: unexpected event format text from the module");
	free(text);
	return ret;
}

static const char *kmod_clock_name(struct source *s)
{
	struct source_kmod *k = (struct source_kmod *)s;

	return k->cfg.clock <= FTRING_CLOCK_MAX ? clock_names[k->cfg.clock] : "local";
}

static int kmod_stop(struct source *s)
{
	struct source_kmod *k = (struct source_kmod *)s;

	if (!k->started)
		return 0;
	k->started = 0;
	if (ioctl(k->ctl, FTRING_IOC_STOP) < 0) {
		log_err("kmod source: stopping the module: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static void kmod_adopt(struct source *s)
{
	struct source_kmod *k = (struct source_kmod *)s;

	if (k->taking)
		k->started = 1;
	k->taking = 0;
}

const struct source_ops source_kmod_ops = {
	.name		= "kmod",
	.size		= sizeof(struct source_kmod),
	.flags		= SOURCE_OWN_EVENTS | SOURCE_SWAP_ON_CPU,
	.probe		= kmod_probe,
	.open		= kmod_open,
	.poll_fd	= kmod_poll_fd,
	.read_pages	= kmod_read_pages,
	.stats		= kmod_stats,
	.cpustat_text	= kmod_cpustat_text,
	.add_meta	= kmod_add_meta,
	.clock_name	= kmod_clock_name,
	.stop		= kmod_stop,
	.adopt		= kmod_adopt,
	.close		= kmod_close,
};
