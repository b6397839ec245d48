// SPDX-License-Identifier: GPL-2.0
/*
 * The previous boot's trace, written as trace.dat v7.
 *
 * Input: /dev/ftring/lastboot (common/ftring_abi.h), the sub-buffers the module kept
 * from its persistent rings. Metadata: the boot record the crashed boot saved
 * (boot_record.c: its kallsyms, printk formats), else this boot's tracefs metadata
 * without kallsyms (this boot's symbols would name the wrong functions); the event
 * formats always from the image, whose IDs the pages carry. Task names come from the
 * sched events in the pages, since the crashed boot's saved_cmdlines died with it.
 * Every page is checked again (v7d_page_events) before it is written; the file is
 * built unnamed beside @path and renamed over it complete (v7_finish()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "capture/trace_output.h"
#include "format/v7_decode.h"
#include "format/v7_encode.h"
#include "format/v7_writer.h"
#include "util/fileio.h"
#include "util/log.h"
#include "ftrace_page.h"
#include "boot_record.h"
#include "lastboot.h"
#include "lastboot_image.h"
#include "util/cmdlines.h"

/* trace-cmd 3.4's TRACECMD_OPTION_LAST_BOOT_INFO; 3.1.6 skips options it does not know */
#define OPT_LAST_BOOT_INFO	24
#define MAX_IMAGE		(64ULL << 30)

static const char *const clock_names[] = FTRING_CLOCK_NAMES;

/* Why there is no device to read: module absent, loaded without persist=, or no data. */
static void why_none(int err, char *why, size_t size)
{
	char *param = NULL;
	size_t len = 0;

	if (err == ENODATA) {
		snprintf(why, size, "the previous-boot trace was released already");
		return;
	}
	if (access("/sys/module/ftring", F_OK)) {
		snprintf(why, size, "the ftring module is not loaded");
		return;
	}
	param = fio_read_whole("/sys/module/ftring/parameters/persist", &len);
	if (!param || !len || !strncmp(param, "(null)", 6))
		snprintf(why, size, "the ftring module was loaded without persist=");
	else
		snprintf(why, size, "the persistent region held no trace of a previous boot "
			 "(cold boot, first use, or nothing recorded; dmesg says which)");
	free(param);
}

static int open_image(struct lastboot_result *res)
{
	int fd = open(FTRING_DEV_LASTBOOT, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && (errno == ENOENT || errno == ENODATA || errno == ENODEV)) {
		why_none(errno, res->why, sizeof(res->why));
		return -ENOENT;
	}
	if (fd < 0) {
		snprintf(res->why, sizeof(res->why), "%s: %s", FTRING_DEV_LASTBOOT, strerror(errno));
		return -errno;
	}
	return fd;
}

static char *read_image(int fd, size_t *len, struct lastboot_result *res)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap), *g;
	ssize_t r;

	while (buf) {
		if (cap - n < 65536) {
			if (cap >= MAX_IMAGE) {
				snprintf(res->why, sizeof(res->why), "image larger than %llu bytes",
					 MAX_IMAGE);
				break;
			}
			g = realloc(buf, 2 * cap);
			if (!g)
				break;
			buf = g;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(res->why, sizeof(res->why), "reading %s: %s", FTRING_DEV_LASTBOOT,
				 strerror(errno));
			break;
		}
		if (!r) {
			*len = n;
			return buf;
		}
		n += (size_t)r;
	}
	if (!res->why[0])
		snprintf(res->why, sizeof(res->why), "out of memory reading the image");
	free(buf);
	return NULL;
}

/* The crashed boot's metadata, or this boot's without kallsyms. */
static int load_meta(const struct lastboot_view *v, struct trace_meta *m,
		     struct lastboot_result *res)
{
	static const uint8_t zero[16];
	int ret = -ENOENT;

	if (memcmp(v->hdr->boot_id, zero, 16))
		ret = boot_record_load(v->hdr->boot_id, m);
	if (!ret) {
		res->has_symbols = m->kallsyms != NULL;
	} else {
		log_warn("lastboot: no record of boot %s in %s/boots: kallsyms left out (this "
			 "boot's would name the wrong functions)",
			 res->boot_id[0] ? res->boot_id : "(unnamed)", boot_state_dir());
		ret = meta_collect(m, NULL);
		if (ret) {
			snprintf(res->why, sizeof(res->why), "no metadata: %s", strerror(-ret));
			return ret;
		}
		free(m->kallsyms);
		m->kallsyms = NULL;
		m->kallsyms_len = 0;
	}
	ret = meta_add_module_formats(m, v->formats, strlen(v->formats));
	if (ret) {
		snprintf(res->why, sizeof(res->why), "the image's event formats: %s",
			 ret == -EPROTO ? "not in the module's form" : strerror(-ret));
		return ret;
	}
	if (m->page_size != v->hdr->page_size) {
		snprintf(res->why, sizeof(res->why), "sub-buffers of %u bytes, header_page says %u",
			 v->hdr->page_size, m->page_size);
		return -EPROTO;
	}
	return 0;
}

/*
 * LAST_BOOT_INFO as trace-cmd 3.4 writes it (trace-record.c): "INSTANCE:TEXT", NUL
 * ended; its reader skips up to the colon and gives TEXT to libtraceevent, which takes
 * "ADDR\t[kernel]" and module lines as address deltas to apply. This file carries the
 * crashed boot's own kallsyms, so there is no delta: every line is a "#" comment, as
 * the kernel's "# Current" is, saying which boot this was and how it ended.
 */
static int add_boot_option(struct v7_writer *w, const struct lastboot_view *v,
			   const struct lastboot_result *res)
{
	char text[512];
	int n;

	n = snprintf(text, sizeof(text),
		     "ftring:# boot_id: %s\n# ended: %s\n# uptime_at_panic_ns: %llu\n"
		     "# panic_realtime_ns: %llu\n# module_load_realtime_ns: %llu\n"
		     "# subbufs_kept: %u\n# subbufs_dropped: %llu\n",
		     res->boot_id[0] ? res->boot_id : "unknown", lastboot_end_text(v->hdr->sealed),
		     (unsigned long long)v->hdr->seal_uptime_ns,
		     (unsigned long long)v->hdr->seal_ns, (unsigned long long)v->hdr->load_ns,
		     v->hdr->nr_pages, (unsigned long long)v->hdr->dropped);
	return v7_add_option(w, OPT_LAST_BOOT_INFO, text, (uint32_t)n + 1);
}

static int write_trace(const char *path, int gid, const struct lastboot_view *v,
		       const struct trace_meta *m, struct lastboot_result *res)
{
	const char *clock = clock_names[v->hdr->clock];
	struct v7_params p = { 0 };
	struct v7_writer *w = NULL;
	uint32_t ps = v->hdr->page_size;
	size_t clen = 0;
	char *cmd = NULL, tmp[PATH_MAX];
	int fd, ret;

	fd = fio_create_beside(path, 0640, tmp, sizeof(tmp));
	if (fd >= 0 && gid > 0 && fchown(fd, -1, (gid_t)gid)) {
		int err = -errno;

		close(fd);
		fio_publish(path, tmp, 0);
		fd = err;
	}
	if (fd < 0) {
		snprintf(res->why, sizeof(res->why), "cannot write beside %s: %s", path,
			 strerror(-fd));
		return fd;
	}
	p.fd = fd;
	p.page_size = ps;
	p.ncpus = (int)v->hdr->nr_cpus;
	p.comp = V7_COMP_ZSTD;
	p.clock = clock;
	p.buffer_name = "";
	p.durable = 1;
	p.path = tmp[0] ? tmp : path;
	for (uint32_t cpu = 0; cpu < v->hdr->nr_cpus; cpu++)
		if (v->cpus[cpu].pages * (uint64_t)ps > p.region_bytes)
			p.region_bytes = v->cpus[cpu].pages * (uint64_t)ps;
	p.region_bytes += 1 << 20;	/* per CPU: its pages, compressed or not */
	w = v7_create(&p, m);
	ret = w ? 0 : (errno ? -errno : -EIO);
	ret = ret ?: trace_output_add_options(w, m, clock);
	ret = ret ?: add_boot_option(w, v, res);
	for (uint32_t cpu = 0; !ret && cpu < v->hdr->nr_cpus; cpu++) {
		uint32_t n, kept = 0;
		const char *pages = lastboot_cpu_pages(v, cpu, &n);
		char stat[160];
		long events = 0;

		for (uint32_t i = 0; !ret && i < n; i++) {
			const char *pg = pages + (size_t)i * ps;
			long e = v7d_page_events(pg, ps);

			/* a page without its time would stop readers: not written */
			if (e < 0 || !ftp_page_ts(pg)) {
				res->dropped++;
				continue;
			}
			ret = v7_append_pages(w, (int)cpu, pg, 1);
			events += e;
			kept++;
		}
		res->events += (uint64_t)events;
		res->pages += kept;
		res->cpus += kept > 0;
		snprintf(stat, sizeof(stat),
			 "CPU: %u\nentries: %ld\nsub-buffers kept: %u\nsub-buffers dropped: %u\n",
			 cpu, events, kept, v->cpus[cpu].dropped);
		ret = ret ?: v7_set_cpustat(w, (int)cpu, stat);
	}
	cmd = ret ? NULL : lastboot_cmdlines(v, &clen);
	if (!ret && !cmd)
		ret = -ENOMEM;
	/* bounded as a capture's are (a busy machine's thousands of pids): the lowest kept */
	if (!ret && clen > CMDLINES_MAX) {
		size_t all = clen;
		char *kept = cmdlines_merge(NULL, 0, cmd, clen, CMDLINES_MAX, &clen);

		free(cmd);
		cmd = kept;
		if (!cmd)
			ret = -ENOMEM;
		else
			log_warn("lastboot: %zu of %zu bytes of task names kept (the file's limit)",
				 clen, all);
	}
	ret = ret ?: v7_complete(w, cmd, clen, NULL);
	/*
	 * Complete: if its compact copy cannot be made (a disk almost full), the file is
	 * named as it is, sparse; an unnamed one would go with the fd, and a reboot
	 * before the next try would take the only other copy (the module's).
	 */
	if (!ret && v7_compact(w) && !tmp[0])
		ret = fio_publish_fd(fd, tmp, path);
	ret = fio_publish(path, tmp, !ret) ?: ret;
	if (ret)
		snprintf(res->why, sizeof(res->why), "writing %s: %s", path, strerror(-ret));
	free(cmd);
	v7_free(w);
	close(fd);
	return ret;
}

const char *lastboot_end_text(int sealed)
{
	return sealed == FTRING_SEAL_PANIC ? "sealed at a panic" :
	       sealed == FTRING_SEAL_CLEAN ? "ended cleanly (shutdown or unload)" :
	       "not sealed (no panic seen: a reset, a hang or power)";
}

int lastboot_pending(char id[37], int *sealed)
{
	struct lastboot_result res = { 0 };
	struct ftring_lastboot h;
	static const uint8_t zero[16];
	int fd = open_image(&res);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, &h, sizeof(h));
	close(fd);
	if (n != (ssize_t)sizeof(h) || h.magic != FTRING_LASTBOOT_MAGIC)
		return -EPROTO;
	if (memcmp(h.boot_id, zero, 16))
		lastboot_uuid_str(h.boot_id, id);
	else
		snprintf(id, 37, "unnamed-%llu", (unsigned long long)h.load_ns);
	*sealed = (int)h.sealed;
	return 0;
}

int lastboot_release(void)
{
	int fd = open(FTRING_DEV_LASTBOOT, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FTRING_IOC_LASTBOOT_RELEASE))
		ret = -errno;
	close(fd);
	return ret;
}

int lastboot_write(const char *path, int gid, int release, struct lastboot_result *res)
{
	static const uint8_t zero[16];
	struct lastboot_view v = { 0 };
	struct trace_meta m = { 0 };
	const char *why = NULL;
	size_t len = 0;
	char *img = NULL;
	int fd, ret;

	memset(res, 0, sizeof(*res));
	fd = open_image(res);
	if (fd == -ENOENT)
		return LASTBOOT_NONE;
	if (fd < 0)
		return fd;
	img = read_image(fd, &len, res);
	if (!img) {
		ret = -EIO;
		goto out;
	}
	ret = lastboot_view_init(&v, img, len, &why);
	if (ret) {
		snprintf(res->why, sizeof(res->why), "%s: %s", FTRING_DEV_LASTBOOT,
			 why ? why : strerror(-ret));
		goto out;
	}
	if (memcmp(v.hdr->boot_id, zero, 16))
		lastboot_uuid_str(v.hdr->boot_id, res->boot_id);
	res->sealed = (int)v.hdr->sealed;
	res->uptime_ns = v.hdr->seal_uptime_ns;
	res->dropped = v.hdr->dropped;
	ret = load_meta(&v, &m, res);
	if (!ret)
		ret = write_trace(path, gid, &v, &m, res);
	if (!ret && release && ioctl(fd, FTRING_IOC_LASTBOOT_RELEASE) && errno != ENODATA)
		log_warn("lastboot: releasing the module's copy: %s", strerror(errno));
out:
	meta_free(&m);
	lastboot_view_free(&v);
	free(img);
	close(fd);
	return ret;
}
