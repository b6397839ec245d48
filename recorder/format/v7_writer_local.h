/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the streaming v7 writer shared by its three files, and by nothing else:
 *   v7_writer.c  creating a file, appending pages;
 *   v7_sync.c    v7_sync() with its tail protocol, the tail builder;
 *   v7_finish.c  finishing: the last chunks, compaction, the final tail.
 * Functions here use the v7w_ prefix: global, but not part of v7_writer.h.
 */
#ifndef REC_V7_WRITER_LOCAL_H
#define REC_V7_WRITER_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "v7_writer.h"

/*
 * 32 pages per chunk (trace-cmd uses 10), chosen with tests/bench/writer_bench on
 * 34 MB of real pages (sched, irq, timer, syscalls; zstd -1): the ratio reaches 0.94
 * of the zstd CLI's at 32 pages against 0.89 at 10 and 0.97 at 64, at 870 MB per CPU
 * second against 670 at 10 and 890 at 64; libtracecmd reads all sizes back at the
 * same speed. It costs 128 KiB of buffer per CPU that records.
 */
#define V7_DEF_CHUNK_PAGES	32
#define V7_DEF_REGION		(1ULL << 30)
#define V7_SLOT_SIZE		(1ULL << 20)	/* room for one tail while recording */
#define V7_NR_META		(V7_SEC_CMDLINES - V7_SEC_HEADER_INFO + 1)

enum v7_state {
	V7_ST_CAPTURE,		/* metadata written, accepting pages */
	V7_ST_FINISHED,		/* v7_finish() done; nothing more accepted */
};

struct v7_cpu {
	uint64_t	region;		/* file offset of the region */
	uint64_t	used;		/* bytes used: compressed 4 + sum(8 + c_i), raw pages */
	uint32_t	nr_chunks;	/* chunks written */
	uint32_t	synced_chunks;	/* chunk count stored in the file */
	uint32_t	stored;		/* chunks a sync stored (codec_frame_stored()) */
	char		*chunk;		/* pages waiting for a full chunk */
	unsigned int	pending;	/* pages in @chunk */
	uint64_t	promised;	/* worst-case bytes of its chunks being compressed */
	unsigned int	in_pool;	/* its chunks being compressed */
	uint64_t	put_raw;	/* page bytes in the region (its chunks' ulen) */
	uint64_t	kept_raw;	/* of those, what the file names (count, tail) */
	bool		named;		/* the header's tail gives it data: its count counts */
};

struct v7_opt {
	uint16_t	id;
	uint32_t	len;
	char		*data;
};

struct v7_writer {
	int			fd;
	enum v7_state		state;
	int			err;		/* sticky write error, -errno */
	unsigned int		ps;		/* trace page (sub-buffer) size */
	int			ncpus;
	bool			compressed;
	bool			durable;	/* fdatasync around the commit point */
	bool			dir_synced;	/* durable: the file's name is on disk */
	unsigned int		chunk_pages;
	uint64_t		region_bytes;
	uint64_t		align;		/* A, see v7_writer.c */
	const struct codec	*codec;
	struct codec_ctx	*cctx;
	struct chunk_pool	*pool;		/* compresses chunks off this thread, or NULL */
	unsigned int		in_pool;	/* chunks submitted, not delivered yet */
	char			*zbuf;		/* 8-byte chunk header + one frame */
	size_t			zcap;
	size_t			chunk_worst;	/* 8 + bound of a full chunk */
	char			*clock;
	char			*buffer_name;
	char			*path;		/* for finishing beside it; NULL = in place */
	char			*cmdlines;	/* CMDLINES text every tail carries, or NULL */
	size_t			cmdlines_len;
	struct v7_buf		cmdlines_sec;	/* its section as built last, empty = stale */
	char			**cpustat;	/* [ncpus] CPUSTAT texts, entries may be NULL */
	uint64_t		opt_ptr;	/* the header's options-offset field */
	uint64_t		sec_off[V7_NR_META];	/* HEADER_INFO..CMDLINES, 0 = none */
	uint64_t		buf_sec;	/* BUFFER section header */
	uint64_t		data_base;	/* region 0 */
	uint64_t		tail_base;	/* T */
	int			slot;		/* slot the header points at: -1, 0 low, 1 high */
	uint64_t		low_dirty;	/* end of the bytes ever written in the low slot */
	struct v7_buf		strs;		/* STRINGS table */
	struct v7_opt		*opts;
	int			nr_opts;
	struct v7_cpu		*cpus;
	uint64_t		*base;		/* scratch: each CPU's data offset for a tail */
	struct v7_cpu_extent	*ext;		/* scratch: the BUFFER option's extents */
	uint64_t		raw_bytes;
	uint64_t		synced_raw;	/* raw_bytes when the last sync began */
	bool			tail_dirty;	/* the tail's texts changed since */
	uint64_t		file_bytes;
	long			fail_after;	/* fault injection: file updates left, -1 = off */
};

static inline uint64_t v7w_round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* A chunk's 8-byte header before its frame (formats.md A.5): compressed, uncompressed. */
static inline void v7w_chunk_header(char *hdr, uint32_t clen, uint32_t ulen)
{
	memcpy(hdr, &clen, 4);
	memcpy(hdr + 4, &ulen, 4);
}

/* Fails the writer for good (logged once): the file keeps its last synced state. */
int v7w_fail(struct v7_writer *w, int err, const char *what);
/* Tests: -EIO in place of the file update a kill -9 would not have let happen. */
int v7w_injected(struct v7_writer *w);
/* The one sink every byte of the file goes through. */
int v7w_write(struct v7_writer *w, const void *data, size_t len, uint64_t off);
int v7w_patch_u64(struct v7_writer *w, uint64_t off, uint64_t v);
int v7w_truncate(struct v7_writer *w, uint64_t len);
/* With @durable: fdatasync, so what was written is on disk before what refers to it. */
int v7w_barrier(struct v7_writer *w);
int v7w_check_state(const struct v7_writer *w, enum v7_state want, const char *fn);
/* Bytes of a CPU's data the reader is told about (A.9, A.10). */
uint64_t v7w_cpu_size(const struct v7_writer *w, const struct v7_cpu *c);
/* Writes every CPU's partial chunk (data only: the counts follow a barrier later). */
int v7w_flush_data(struct v7_writer *w);
/* A section with @body at @off (compressed when the file is); *@end = its end. */
int v7w_write_section(struct v7_writer *w, uint64_t off, uint16_t id, const char *desc,
		      const struct v7_buf *body, uint64_t *end);
/*
 * The tail for file offset @off into @out: CMDLINES (when set), OPTIONS, STRINGS.
 * @base[cpu] = each CPU's data offset, @sec_end pads STRINGS up to there (0 = no),
 * @compress_strings at finish only (padding must stay readable as empty strings).
 * *@opt_off receives where OPTIONS starts: what the header must point at.
 */
int v7w_build_tail(struct v7_writer *w, struct v7_buf *out, uint64_t off,
		   const uint64_t *base, uint64_t sec_end, bool compress_strings,
		   uint64_t *opt_off);

/* Writes a complete tail to the slot the header does not name, then flips to it. */
int v7w_write_tail(struct v7_writer *w);

#endif /* REC_V7_WRITER_LOCAL_H */
