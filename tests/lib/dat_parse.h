/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper: a small trace.dat v7 parser written from formats.md alone, independent
 * of the writer and of libtracecmd. It walks the sections the way the reader and
 * `trace-cmd dump` do, follows the options chain, decodes the BUFFER option, and
 * unpacks each CPU's data back into raw pages. Used to check structure byte by byte
 * and to take real pages out of the trace-cmd fixtures.
 */
#ifndef TEST_DAT_PARSE_H
#define TEST_DAT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/meta.h"

#define DP_MAX_SECS	64
#define DP_MAX_OPTS	512
#define DP_MAX_CPUS	256

struct dp_section {
	uint64_t	off;		/* of the 16-byte header */
	uint16_t	id;
	uint16_t	flags;
	int32_t		desc;
	uint64_t	size;
};

struct dp_option {
	uint16_t	id;
	uint32_t	len;
	uint64_t	off;		/* of the data */
	const unsigned char *data;
};

struct dp_cpu {
	uint32_t	cpu;
	uint64_t	off;
	uint64_t	size;
};

struct dp_file {
	int		fd;
	const unsigned char *map;
	uint64_t	len;
	uint32_t	page_size;
	char		comp[32];
	char		comp_ver[32];
	uint64_t	opt_ptr_off;	/* where the header's options offset lives */
	uint64_t	first_opts;
	struct dp_section secs[DP_MAX_SECS];
	int		nr_secs;
	bool		walk_ok;	/* sections back to back, ending exactly at EOF */
	struct dp_option opts[DP_MAX_OPTS];
	int		nr_opts;
	int		nr_opt_sections;
	bool		have_buffer;
	uint64_t	buf_sec;
	char		buf_name[64];
	char		clock[64];
	uint32_t	buf_ps;
	int		nr_cpus;
	struct dp_cpu	cpus[DP_MAX_CPUS];
	bool		buf_compressed;
	unsigned char	*strings;
	size_t		strings_len;
};

/* Maps and parses @path; 0 or -errno (-EINVAL with a message on stderr if malformed). */
int dp_open(const char *path, struct dp_file *f);
void dp_close(struct dp_file *f);
/* Index of the section at offset @off, or -1. */
int dp_find_section(const struct dp_file *f, uint64_t off);
/* Body of section @i, decompressed if flagged (malloc'd). */
int dp_section_body(const struct dp_file *f, int i, unsigned char **body, size_t *len);
/*
 * The raw pages of BUFFER entry @idx (malloc'd), the number of chunks and, unless
 * @nr_stored is NULL, of those whose frame is no smaller than its pages (stored by a
 * sync, or data zstd could not shrink).
 */
int dp_cpu_pages(const struct dp_file *f, int idx, unsigned char **pages, size_t *len,
		 uint32_t *nr_chunks, uint32_t *nr_stored);
/* Chunks of every CPU, and of those the ones dp_cpu_pages() counts stored; 0 or -errno. */
int dp_count_chunks(const struct dp_file *f, uint64_t *chunks, uint64_t *stored);
/* Description string by ID, or NULL. */
const char *dp_string(const struct dp_file *f, int32_t id);
/* First option @id, or NULL. */
const struct dp_option *dp_option(const struct dp_file *f, uint16_t id);
/* The file's metadata sections, as the writer takes them. */
int dp_meta(const struct dp_file *f, struct trace_meta *m);

#endif /* TEST_DAT_PARSE_H */
