// SPDX-License-Identifier: GPL-2.0
/*
 * Seed files for the fuzz targets, written by the recorder's own writer
 * (format/v7_writer.c) with small metadata and small CPU regions, so that a fuzzer's
 * input is mostly structure rather than kallsyms: finished files (zstd and raw),
 * files a crash left (after a sync with chunks beyond it, before any sync, with the
 * tail wiped), and a sparse CPU set. Markers are ftrace/print events.
 *
 *   make_seeds DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/meta.h"
#include "format/v7_writer.h"
#include "../lib/pagegen.h"

#define PS	4096
#define NCPU	4

enum end { FINISHED, SYNCED_THEN_MORE, NEVER_SYNCED, TAIL_WIPED };

struct seed {
	const char		*name;
	enum v7_compression	comp;
	unsigned int		cpu_mask;
	enum end		end;
};

static const struct seed seeds[] = {
	{ "finished-zstd.dat",		V7_COMP_ZSTD, 0x3, FINISHED },
	{ "finished-raw.dat",		V7_COMP_NONE, 0x3, FINISHED },
	{ "sparse-cpus-zstd.dat",	V7_COMP_ZSTD, 0x5, FINISHED },
	{ "crash-after-sync-zstd.dat",	V7_COMP_ZSTD, 0xf, SYNCED_THEN_MORE },
	{ "crash-after-sync-raw.dat",	V7_COMP_NONE, 0x9, SYNCED_THEN_MORE },
	{ "crash-never-synced.dat",	V7_COMP_ZSTD, 0x3, NEVER_SYNCED },
	{ "crash-tail-wiped.dat",	V7_COMP_NONE, 0x6, TAIL_WIPED },
};

static int add_markers(struct v7_writer *w, int cpu, int first, int n)
{
	struct pagegen g;
	char text[64];
	int ret;

	pg_init(&g, PS);
	for (int i = first; i < first + n; i++) {
		snprintf(text, sizeof(text), "seed %d-%d", cpu, i);
		if (pg_add_print(&g, 1000 + (uint64_t)i * 10, 100 + cpu, text))
			return -ENOMEM;
	}
	pg_close(&g);
	ret = v7_append_pages(w, cpu, g.pages, g.nr);
	pg_free(&g);
	return ret;
}

/* The header's options offset: after magic, version, endian, long and page sizes. */
static int wipe_tail(int fd)
{
	static const uint64_t zero;
	char h[64];
	size_t at = 18;

	if (pread(fd, h, sizeof(h), 0) != sizeof(h))
		return -EIO;
	at += strlen(h + at) + 1;
	at += strlen(h + at) + 1;
	return pwrite(fd, &zero, 8, (off_t)at) == 8 ? 0 : -EIO;
}

static int make_seed(const char *dir, const struct seed *s, const struct trace_meta *m)
{
	static const char cmdlines[] = "100 seed0\n101 seed1\n102 seed2\n103 seed3\n";
	struct v7_params p = {
		.page_size = PS,
		.ncpus = NCPU,
		.comp = s->comp,
		.chunk_pages = 2,
		.region_bytes = 64 << 10,
		.clock = "mono",
		.buffer_name = "",
	};
	struct v7_writer *w;
	char path[4096];
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, s->name);
	p.path = path;
	p.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (p.fd < 0)
		return -errno;
	w = v7_create(&p, m);
	if (!w) {
		close(p.fd);
		return -errno;
	}
	v7_set_cmdlines(w, cmdlines, sizeof(cmdlines) - 1);
	for (int cpu = 0; cpu < NCPU && !ret; cpu++)
		if (s->cpu_mask & (1U << cpu))
			ret = add_markers(w, cpu, 0, 150 + 40 * cpu);
	if (!ret && s->end != NEVER_SYNCED)
		ret = v7_sync(w);
	for (int cpu = 0; cpu < NCPU && !ret && s->end == SYNCED_THEN_MORE; cpu++)
		if (s->cpu_mask & (1U << cpu))
			ret = add_markers(w, cpu, 1000, 400);
	if (!ret && s->end == FINISHED)
		ret = v7_finish(w, cmdlines, sizeof(cmdlines) - 1, NULL);
	if (!ret && s->end == TAIL_WIPED)
		ret = wipe_tail(p.fd);
	v7_free(w);
	close(p.fd);
	return ret;
}

int main(int argc, char **argv)
{
	struct trace_meta m;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: make_seeds DIR\n");
		return 2;
	}
	if (pg_meta(&m, PS)) {
		fprintf(stderr, "make_seeds: no metadata\n");
		return 1;
	}
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		ret = make_seed(argv[1], &seeds[i], &m);
		if (ret) {
			fprintf(stderr, "make_seeds: %s: %s\n", seeds[i].name, strerror(-ret));
			return 1;
		}
	}
	meta_free(&m);
	return 0;
}
