/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces of a trace-cmd trace.dat version 7 file, encoded into memory: the initial
 * header, section headers and bodies, options, the BUFFER option and the STRINGS table
 * (../shared/docs/formats.md A.2-A.11). No I/O: the streaming writer (v7_writer.c), its
 * finishing step (v7_finish.c) and recover (recover/recover.c) all encode through
 * these, so a file means the same whoever wrote it.
 */
#ifndef REC_V7_ENCODE_H
#define REC_V7_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "meta.h"

struct codec;
struct codec_ctx;

#define V7_MAGIC		"\x17\x08\x44tracing"	/* A.2, 10 bytes */
#define V7_SEC_HDR_SIZE		16			/* A.3 */
#define V7_SEC_FL_COMPRESS	1			/* A.3 flags bit 0 */

/* Option and section IDs (trace-cmd-private.h, 3.1.6; formats.md A.4). */
enum {
	V7_OPT_DONE		= 0,
	V7_OPT_DATE		= 1,
	V7_OPT_CPUSTAT		= 2,
	V7_OPT_BUFFER		= 3,
	V7_OPT_TRACECLOCK	= 4,
	V7_OPT_UNAME		= 5,
	V7_OPT_HOOK		= 6,
	V7_OPT_OFFSET		= 7,
	V7_OPT_CPUCOUNT		= 8,
	V7_OPT_VERSION		= 9,
	V7_OPT_PROCMAPS		= 10,
	V7_OPT_TRACEID		= 11,
	V7_OPT_TIME_SHIFT	= 12,
	V7_OPT_GUEST		= 13,
	V7_OPT_TSC2NSEC		= 14,
	V7_SEC_STRINGS		= 15,
	V7_SEC_HEADER_INFO	= 16,
	V7_SEC_FTRACE_EVENTS	= 17,
	V7_SEC_EVENT_FORMATS	= 18,
	V7_SEC_KALLSYMS		= 19,
	V7_SEC_PRINTK		= 20,
	V7_SEC_CMDLINES		= 21,
};

/* A growable byte buffer for section bodies and tails (never on the page path). */
struct v7_buf {
	char	*p;
	size_t	len;
	size_t	cap;
};

int v7_buf_reserve(struct v7_buf *b, size_t len);
int v7_buf_put(struct v7_buf *b, const void *data, size_t len);
int v7_buf_u16(struct v7_buf *b, uint16_t v);
int v7_buf_u32(struct v7_buf *b, uint32_t v);
int v7_buf_u64(struct v7_buf *b, uint64_t v);
int v7_buf_str(struct v7_buf *b, const char *s);	/* with its NUL */
void v7_buf_free(struct v7_buf *b);

/*
 * STRINGS (A.11): a description's ID is its byte offset in the table; @s is added
 * if it is not there yet. Returns the ID, or -1 when out of memory.
 */
int32_t v7_string_id(struct v7_buf *strs, const char *s);

/**
 * v7_put_section() - append a section (16-byte header + body) to @out
 * @out:	buffer; the section starts at its current end
 * @strs:	STRINGS table for @desc, or NULL for "no description" (ID -1)
 * @id:		section ID (A.4)
 * @desc:	description
 * @body:	@len bytes of body
 * @codec:	compresses the body as one block (A.5) when not NULL, with @ctx
 * @sec_end:	0, or an end counted from the start of @out: the section's size then
 *		runs up to there (zeros the file already holds after the body)
 *
 * Return: 0 or -errno.
 */
int v7_put_section(struct v7_buf *out, struct v7_buf *strs, uint16_t id, const char *desc,
		   const void *body, size_t len, const struct codec *codec,
		   struct codec_ctx *ctx, uint64_t sec_end);

/* Appends one option (u16 id, u32 length, data; A.7) to @b. 0 or -ENOMEM. */
int v7_put_option(struct v7_buf *b, uint16_t id, const void *data, uint32_t len);

/* Where one CPU's data are in the BUFFER section (A.10). */
struct v7_cpu_extent {
	uint32_t	cpu;
	uint64_t	off;
	uint64_t	size;
};

/**
 * v7_put_buffer_option() - append the BUFFER option (A.10)
 * @b:		options buffer
 * @sec_off:	file offset of the BUFFER section header
 * @name:	instance name, "" for the top buffer
 * @clock:	trace clock of the data
 * @page_size:	sub-buffer size
 * @cpus:	@n extents, CPUs with data only
 *
 * Return: 0 or -ENOMEM.
 */
int v7_put_buffer_option(struct v7_buf *b, uint64_t sec_off, const char *name,
			 const char *clock, uint32_t page_size,
			 const struct v7_cpu_extent *cpus, uint32_t n);

/*
 * The initial header (A.2, byte exact) for @page_size and the compression @codec
 * ("none" or "zstd"); *@opt_ptr receives the offset of its 8-byte options offset.
 */
int v7_put_initial_header(struct v7_buf *b, uint32_t page_size, const struct codec *codec,
			  uint64_t *opt_ptr);

/*
 * Body of metadata section @id (HEADER_INFO..PRINTK, A.6) from @m.
 * Return: 0, -EINVAL for another id, -ENOMEM, -EFBIG.
 */
int v7_put_meta_body(struct v7_buf *b, uint16_t id, const struct trace_meta *m);

/* Body of the CMDLINES section: u64 length, then @text (NULL = empty). */
int v7_put_cmdlines_body(struct v7_buf *b, const char *text, size_t len);

/* The description trace-cmd gives metadata section @id ("headers", ...), or NULL. */
const char *v7_section_desc(uint16_t id);

/*
 * The layout record: how a file being streamed is laid out, written right after the
 * BUFFER section header, in bytes of that section no reader looks at (the BUFFER
 * option points past them). recover reads it to find each CPU's region exactly. All
 * fields little-endian; a finished (compacted) file has none.
 */
#define V7_LAYOUT_MAGIC		"RECDLYT1"
#define V7_LAYOUT_VERSION	1
#define V7_LAYOUT_ZSTD		(1U << 0)	/* flags: regions hold zstd chunks */

struct v7_layout {
	uint64_t	data_base;	/* region of CPU 0; CPU i at data_base + i * region_bytes */
	uint64_t	region_bytes;
	uint64_t	tail_base;	/* low tail slot; the high one is slot_size above */
	uint64_t	slot_size;
	uint32_t	ncpus;
	uint32_t	page_size;
	uint32_t	flags;		/* V7_LAYOUT_* */
};

#define V7_LAYOUT_SIZE		64	/* bytes the record takes, room to grow included */

/* Appends the record (V7_LAYOUT_SIZE bytes). 0 or -ENOMEM. */
int v7_put_layout(struct v7_buf *b, const struct v7_layout *l);

/*
 * Decodes a record from @p (@len bytes). Return: 0, or -EINVAL when there is none or
 * its fields do not make sense (regions overlapping the tail, CPU counts past 4096,
 * a page size that is not a power of two in 64..2^27).
 */
int v7_get_layout(const void *p, size_t len, struct v7_layout *l);

#endif /* REC_V7_ENCODE_H */
