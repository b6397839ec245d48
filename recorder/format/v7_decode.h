/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader of trace.dat version 7 that trusts nothing in the file: every offset, size
 * and count is checked against the file and against limits before it is used, so any
 * byte string gives an error, never a crash, a hang or unbounded memory. The decoders
 * of what format/v7_encode.c encodes (formats.md A.2-A.11), for recover and for the
 * checks made before a file is handed to libtracecmd. Reads trace-cmd's own v7 files
 * as well as ours. Little-endian files only (the recorder writes on x86 and arm64).
 */
#ifndef REC_V7_DECODE_H
#define REC_V7_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta.h"
#include "v7_encode.h"

#define V7D_WHY_LEN		160
#define V7D_MAX_SECTION		(256U << 20)	/* a metadata section's body, decompressed */
#define V7D_MAX_CHUNK		(64U << 20)	/* one chunk, decompressed */
/* event formats in all (a kernel has a few thousand): each costs allocations */
#define V7D_MAX_FORMATS		65536U

struct v7_file {
	int			fd;
	uint64_t		size;
	uint32_t		page_size;
	bool			zstd;		/* the header names zstd */
	uint64_t		opt_ptr_at;	/* where the header's options offset is */
	uint64_t		opt_off;	/* its value */
	uint64_t		sec[V7_SEC_CMDLINES + 1];	/* metadata sections found before
								 * the data, 0 = none */
	int32_t			sec_desc[V7_SEC_CMDLINES + 1];	/* their description IDs */
	uint64_t		buf_sec;	/* BUFFER section header, 0 = none */
	uint64_t		buf_end;	/* where its size says it ends (capped at EOF) */
	bool			buf_zstd;	/* its compression flag */
	int32_t			buf_desc;
	bool			has_layout;	/* a layout record follows the BUFFER header */
	struct v7_layout	layout;
	struct codec_dctx	*z;		/* decompression context */
	char			why[V7D_WHY_LEN];	/* the reason of the last error */
};

/*
 * Opens @fd (read-only use) as a v7 file: the initial header, then the sections from
 * the start up to the BUFFER section, and the layout record if there is one.
 * Return: 0, or -errno with @f->why saying what is wrong (-ENODATA: no complete header,
 * -EINVAL: not a v7 file or a bad one, -ENOTSUP: big-endian or an unknown compression).
 */
int v7d_open(struct v7_file *f, int fd);
void v7d_close(struct v7_file *f);

/*
 * Reads the section at @off, which must have ID @id, into @body (decompressed when it
 * is flagged). *@desc receives its description ID (may be NULL). 0 or -errno (why set).
 */
int v7d_read_section(struct v7_file *f, uint64_t off, uint16_t id, struct v7_buf *body,
		     int32_t *desc);

/* One option of an OPTIONS section. @data points into the section's body. */
struct v7d_option {
	uint16_t	id;
	uint32_t	len;
	const uint8_t	*data;
};

/*
 * Parses the OPTIONS section at @off and those chained after it (at most 16): calls
 * @fn for every option but DONE; a non-zero return of @fn stops and is returned.
 * Return: 0, or -errno (why set) when a section or an option does not fit.
 */
int v7d_options(struct v7_file *f, uint64_t off,
		int (*fn)(const struct v7d_option *o, void *arg), void *arg);

/* The BUFFER option (A.10), decoded. */
struct v7d_buffer {
	uint64_t		sec_off;
	char			name[256];
	char			clock[64];
	uint32_t		page_size;
	uint32_t		n;
	struct v7_cpu_extent	*cpus;		/* [n], malloc'd */
};

/* Decodes @o (a BUFFER option) into @b; free b->cpus. 0 or -EINVAL (why set). */
int v7d_buffer_option(struct v7_file *f, const struct v7d_option *o, struct v7d_buffer *b);

/* What v7d_stream() found. */
struct v7d_stream {
	uint32_t	stored;		/* compressed: the chunk count in the file */
	uint32_t	chunks;		/* whole, valid chunks (raw: pages) */
	uint32_t	skipped;	/* damaged ones amid them, left out */
	uint32_t	uncompressed;	/* of those, stored by a sync (codec_frame_stored()) */
	uint64_t	bytes;		/* their bytes after the count (raw: the pages) */
	uint64_t	pages;
	uint64_t	events;		/* data events in the pages */
};

/*
 * Walks the per-CPU data at @off that may not reach past @limit: compressed, the u32
 * count then chunks, as far as they are whole and decompress to plausible pages (at
 * most @max_chunks of them); raw, plausible pages. Calls @page_fn (may be NULL) for
 * every page, in order; a non-zero return stops the walk and is returned.
 * Return: 0 or the @page_fn's value; @st says what was found.
 */
int v7d_stream(struct v7_file *f, uint64_t off, uint64_t limit, bool compressed,
	       uint32_t max_chunks, struct v7d_stream *st,
	       int (*page_fn)(const void *page, void *arg), void *arg);

/*
 * A page that can be read: its commit length fits, and its events decode to the end.
 * Returns the number of data events, or -1.
 */
long v7d_page_events(const void *page, uint32_t page_size);

/*
 * The metadata sections (HEADER_INFO .. PRINTK) decoded into @m (meta_free() it), for
 * writing them again. 0 or -errno (why set).
 */
int v7d_meta(struct v7_file *f, struct trace_meta *m);

#endif /* REC_V7_DECODE_H */
