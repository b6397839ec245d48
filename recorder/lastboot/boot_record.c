// SPDX-License-Identifier: GPL-2.0
/*
 * Boot records: what a trace of this boot needs besides its pages (event formats,
 * kallsyms, printk formats, header_page), saved when a capture into persistent rings
 * starts, so that the next boot can write the crashed boot's trace with the crashed
 * boot's symbols: after a reboot, /proc/kallsyms (KASLR, modules) is another one.
 *
 * A record is a trace.dat v7 without pages, STATE_DIR/boots/BOOT_ID.dat, written by
 * the same writer as every trace and read back with format/v7_decode.c (which trusts
 * nothing in it). The newest BOOT_RECORDS_KEPT are kept.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/v7_decode.h"
#include "format/v7_writer.h"
#include "util/fileio.h"
#include "util/log.h"
#include "boot_record.h"
#include "lastboot_image.h"

#define BOOT_ID_PATH		"/proc/sys/kernel/random/boot_id"
#define BOOT_RECORDS_KEPT	8

const char *boot_state_dir(void)
{
	const char *d = getenv("RECORDERD_STATE_DIR");

	return d && *d ? d : BOOT_STATE_DIR;
}

int boot_id_current(uint8_t id[16])
{
	char buf[64] = "";
	int fd = open(BOOT_ID_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	return lastboot_uuid_parse(buf, id);
}

static int record_path(const uint8_t id[16], char *path, size_t size)
{
	char uuid[37];

	lastboot_uuid_str(id, uuid);
	if ((size_t)snprintf(path, size, "%s/boots/%s.dat", boot_state_dir(), uuid) >= size)
		return -ENAMETOOLONG;
	return 0;
}

static int mkdirs(const char *dir)
{
	char p[PATH_MAX];

	if ((size_t)snprintf(p, sizeof(p), "%s", dir) >= sizeof(p))
		return -ENAMETOOLONG;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return mkdir(p, 0700) && errno != EEXIST ? -errno : 0;
}

/* Removes all but the newest BOOT_RECORDS_KEPT records (and never @keep). */
static void prune(const char *dir, const char *keep)
{
	struct ent { char name[64]; time_t mtime; } ents[64];
	int n = 0, old;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) && n < (int)(sizeof(ents) / sizeof(ents[0]))) {
		size_t l = strlen(de->d_name);
		struct stat st;

		if (l != 40 || strcmp(de->d_name + 36, ".dat") ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		memcpy(ents[n].name, de->d_name, l + 1);
		ents[n++].mtime = st.st_mtime;
	}
	while (n > BOOT_RECORDS_KEPT) {
		old = 0;
		for (int i = 1; i < n; i++)
			if (ents[i].mtime < ents[old].mtime)
				old = i;
		if (!strstr(keep, ents[old].name))
			unlinkat(dirfd(d), ents[old].name, 0);
		ents[old] = ents[--n];
	}
	closedir(d);
}

int boot_record_save(const struct trace_meta *m, const uint8_t id[16])
{
	char path[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX];
	struct v7_params p = { 0 };
	struct v7_writer *w;
	int fd, ret;

	ret = record_path(id, path, sizeof(path));
	if (ret)
		return ret;
	snprintf(dir, sizeof(dir), "%s/boots", boot_state_dir());
	ret = mkdirs(dir);
	if (ret)
		return ret;
	/* built beside and renamed into place when complete: a record is whole or absent */
	fd = fio_create_beside(path, 0600, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	p.fd = fd;
	p.page_size = m->page_size;
	p.ncpus = 1;
	p.comp = V7_COMP_ZSTD;
	p.clock = m->clock ? m->clock : "local";
	p.buffer_name = "";
	p.durable = 1;
	p.path = tmp[0] ? tmp : path;
	w = v7_create(&p, m);
	ret = w ? v7_finish(w, NULL, 0, NULL) : (errno ? -errno : -EIO);
	v7_free(w);
	close(fd);
	ret = fio_publish(path, tmp, !ret) ?: ret;
	if (!ret)
		prune(dir, path);
	return ret;
}

int boot_record_load(const uint8_t id[16], struct trace_meta *m)
{
	char path[PATH_MAX];
	struct v7_file f;
	int fd, ret;

	ret = record_path(id, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = v7d_open(&f, fd);
	if (!ret) {
		ret = v7d_meta(&f, m);
		if (ret)
			log_warn("boot record %s: %s", path, f.why);
		v7d_close(&f);
	} else {
		log_warn("boot record %s: %s", path, f.why);
	}
	close(fd);
	return ret;
}
