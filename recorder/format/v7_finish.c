// SPDX-License-Identifier: GPL-2.0
/*
 * Finishing a streaming v7 file (v7_finish(), v7_writer.h).
 *
 * First a last v7_sync() in place: the file is then complete (every chunk, CMDLINES,
 * CPUSTAT) though still sparse, one region per CPU. Then the compact file is built
 * BESIDE it, as .NAME.finishing in the same directory: the metadata copied as they are,
 * each CPU's data copied behind them (copy_file_range: a reflink where the filesystem
 * shares extents, an in-kernel copy elsewhere), CMDLINES + OPTIONS + STRINGS behind the
 * last CPU's data, the header pointed at them; then it is renamed over the original
 * (and, when durable, synced before and the directory after). Nothing the original's
 * tail refers to is ever written, so a kill or a power cut at any instant leaves the
 * complete original or the complete compact file under the name, and at worst a
 * stray .NAME.finishing that recover and the daemon remove. Where the copy cannot be
 * made (a full disk, no directory left), the original stays as the last sync left it:
 * valid and complete, only not compacted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "util/fileio.h"
#include "chunk_pool.h"
#include "compress.h"
#include "v7_writer_local.h"

#define COPY_CHUNK	(1U << 20)

/* @len bytes from @from of @in to @to of the writer's file; in-kernel when it can. */
static int copy_range(struct v7_writer *w, int in, uint64_t from, uint64_t to, uint64_t len)
{
	char *b = NULL;
	int ret = 0;

	if (v7w_injected(w))
		return w->err;
	while (!ret && len) {
		loff_t src = (loff_t)from, dst = (loff_t)to;
		size_t n = len < COPY_CHUNK ? (size_t)len : COPY_CHUNK;
		ssize_t r = -1;

		if (!b)
			r = copy_file_range(in, &src, w->fd, &dst, n, 0);
		if (r < 0 && !b && errno != EINTR) {
			/* Another filesystem or an old kernel: copy through memory. */
			b = malloc(COPY_CHUNK);
			if (!b)
				return -ENOMEM;
		}
		if (r < 0 && b) {
			r = pread(in, b, n, (off_t)from);
			if (r > 0)
				ret = v7w_write(w, b, (size_t)r, to);
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 && !ret)
			ret = v7w_fail(w, r < 0 ? -errno : -EIO, "copy");
		if (ret)
			break;
		from += (uint64_t)r;
		to += (uint64_t)r;
		len -= (uint64_t)r;
	}
	free(b);
	return ret;
}

/* Buffers for compressing the stored chunks of a CPU (codec_frame_stored()). */
struct v7_recompress {
	struct codec_dctx	*dctx;
	char			*frame;		/* a chunk's frame as read */
	char			*pages;		/* its pages */
	uint32_t		compressed;	/* chunks compressed so far */
};

static int recompress_init(struct v7_writer *w, struct v7_recompress *r)
{
	r->dctx = codec_dctx_new();
	r->frame = malloc(w->chunk_worst);
	r->pages = malloc((size_t)w->chunk_pages * w->ps);
	return r->dctx && r->frame && r->pages ? 0 : -ENOMEM;
}

static void recompress_free(struct v7_recompress *r)
{
	codec_dctx_free(r->dctx);
	free(r->frame);
	free(r->pages);
}

/* The stored chunk @h (header), its frame in r->frame, compressed to @to; *@len. */
static int compress_stored(struct v7_writer *w, struct v7_recompress *r, const uint32_t *h,
			   uint64_t to, uint64_t *len)
{
	ssize_t u, clen;

	u = codec_decompress(r->dctx, r->frame, h[0], r->pages, (size_t)w->chunk_pages * w->ps);
	if (u != (ssize_t)h[1])
		return v7w_fail(w, u < 0 ? (int)u : -EBADMSG, "read a stored chunk");
	clen = codec_compress(w->cctx, r->pages, h[1], w->zbuf + 8, w->zcap - 8);
	if (clen < 0)
		return v7w_fail(w, (int)clen, "compress");
	v7w_chunk_header(w->zbuf, (uint32_t)clen, h[1]);
	r->compressed++;
	*len = 8 + (uint64_t)clen;
	return v7w_write(w, w->zbuf, *len, to);
}

/*
 * @c's chunks from @old to @to, the stored ones compressed and the runs between them
 * copied as they are; *@len = the bytes the CPU's data take now.
 */
static int copy_compressing(struct v7_writer *w, struct v7_recompress *r, int old,
			    const struct v7_cpu *c, uint64_t to, uint64_t *len)
{
	uint64_t from = c->region + 4, run = c->region, end = c->region + c->used;
	uint64_t out = to, n = 0;
	uint32_t h[2];
	int ret = 0;

	for (uint32_t i = 0; !ret && i < c->nr_chunks; i++, from += 8 + h[0]) {
		if (from + 8 > end || fio_pread_all(old, h, 8, from) ||
		    h[0] > end - from - 8 || h[1] > (uint64_t)w->chunk_pages * w->ps)
			return v7w_fail(w, -EIO, "read a chunk header");
		/* a stored frame is larger than its pages; a compressed one rarely is */
		if (h[0] < h[1])
			continue;
		if (h[0] > w->chunk_worst - 8 || fio_pread_all(old, r->frame, h[0], from + 8))
			return v7w_fail(w, -EIO, "read a chunk");
		if (!codec_frame_stored(r->frame, h[0], h[1]))
			continue;
		ret = from > run ? copy_range(w, old, run, out, from - run) : 0;
		out += from - run;
		ret = ret ?: compress_stored(w, r, h, out, &n);
		out += n;
		run = from + 8 + h[0];
	}
	ret = ret ?: (end > run ? copy_range(w, old, run, out, end - run) : 0);
	*len = out + (end - run) - to;
	return ret;
}

/*
 * Writes the compact file to w->fd (the new file), reading the data from @old: the
 * metadata as they are, each CPU's data behind them, page aligned (formats.md A.9),
 * its stored chunks compressed; then the tail for that layout.
 */
static int write_compact(struct v7_writer *w, int old)
{
	uint64_t *base = w->base, end, opt_off, meta = w->buf_sec + V7_SEC_HDR_SIZE;
	struct v7_recompress r = { 0 };
	struct v7_buf tail = { 0 };
	uint64_t *used, file_bytes = w->file_bytes;
	int ret;

	used = calloc((size_t)w->ncpus, sizeof(*used));
	if (!used)
		return -ENOMEM;
	for (int i = 0; i < w->ncpus; i++)
		used[i] = w->cpus[i].used;
	ret = copy_range(w, old, 0, 0, meta);
	end = meta;
	for (int i = 0; !ret && i < w->ncpus; i++) {
		struct v7_cpu *c = &w->cpus[i];

		base[i] = 0;
		if (!v7w_cpu_size(w, c))
			continue;
		base[i] = v7w_round_up(end, w->ps);
		if (!c->stored)
			ret = copy_range(w, old, c->region, base[i], c->used);
		else
			ret = (r.pages ? 0 : recompress_init(w, &r)) ?:
			      copy_compressing(w, &r, old, c, base[i], &c->used);
		end = base[i] + c->used;
	}
	ret = ret ?: v7w_build_tail(w, &tail, end, base, 0, w->compressed, &opt_off);
	ret = ret ?: v7w_write(w, tail.p, tail.len, end);
	ret = ret ?: v7w_patch_u64(w, w->buf_sec + 8, end - meta);
	ret = ret ?: v7w_patch_u64(w, w->opt_ptr, opt_off);
	ret = ret ?: v7w_truncate(w, end + tail.len);
	/* the size of the file left: before the free, which zeroes tail.len */
	if (!ret)
		w->file_bytes = end + tail.len;
	for (int i = 0; i < w->ncpus; i++) {
		/* the sizes of the file the name keeps: the original's on failure */
		if (ret)
			w->cpus[i].used = used[i];
		else
			w->cpus[i].stored = 0;
	}
	if (ret)
		w->file_bytes = file_bytes;
	if (!ret && r.compressed)
		log_info("%s: %u chunks stored uncompressed for a sync are compressed now",
			 w->path, r.compressed);
	recompress_free(&r);
	v7_buf_free(&tail);
	free(used);
	return ret;
}

/* Builds the compact file beside the original and renames it over it. */
static int compact_beside(struct v7_writer *w)
{
	char *tmp = fio_beside_name(w->path, "finishing");
	int old = w->fd, fd, ret;
	struct stat st;

	if (!tmp)
		return -ENOMEM;
	if (fstat(old, &st)) {
		ret = -errno;
		goto out;
	}
	unlink(tmp);	/* left by a kill during an earlier finish of this name */
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
	/* The file it replaces keeps its group and mode (open's mode met the umask). */
	if (fd >= 0 && (fchmod(fd, st.st_mode & 07777) ||
			(fchown(fd, st.st_uid, st.st_gid) && errno != EPERM))) {
		ret = -errno;
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	w->fd = fd;
	ret = write_compact(w, old);
	/* Always: a rename over the original must never name data not yet on disk. */
	if (!ret && fdatasync(fd))
		ret = v7w_fail(w, -errno, "fdatasync");
	if (!ret && v7w_injected(w))
		ret = w->err;
	if (!ret && rename(tmp, w->path))
		ret = v7w_fail(w, -errno, "rename");
	if (!ret && w->durable)
		ret = fio_sync_dir_of(w->path);
	w->fd = old;
	close(fd);
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	return ret;
}

/**
 * v7_complete() - complete the file in place
 * @w: writer
 * @cmdlines: CMDLINES text, or NULL to keep what v7_set_cmdlines() gave
 * @cmdlines_len: its length
 * @cpustat: per-CPU "stats" texts (NULL, or entries that may be NULL: kept as set)
 *
 * Return: 0 when the file is complete (not compacted yet), or -errno when not even
 * the last sync could be written (the file keeps the sync before).
 */
int v7_complete(struct v7_writer *w, const char *cmdlines, size_t cmdlines_len,
		char *const *cpustat)
{
	int ret = v7w_check_state(w, V7_ST_CAPTURE, __func__);

	if (!ret && cmdlines)
		ret = v7_set_cmdlines(w, cmdlines, cmdlines_len);
	for (int i = 0; !ret && cpustat && i < w->ncpus; i++)
		if (cpustat[i])
			ret = v7_set_cpustat(w, i, cpustat[i]);
	/* Every chunk in the file first: the pool's too, helped along by this thread. */
	ret = ret ?: v7w_flush_data(w);
	if (!ret && w->in_pool)
		chunk_pool_reap(w->pool, CHUNK_POOL_ALL);
	ret = ret ?: w->err;
	ret = ret ?: v7_sync(w);
	if (ret)
		return ret;
	w->state = V7_ST_FINISHED;
	return 0;
}

/**
 * v7_compact() - replace a completed file by its compact copy
 * @w: writer v7_complete() completed
 *
 * Touches nothing but @w and its files: another thread may do it.
 * Return: 0 when compact (or made without a name to compact under), or -errno when the
 * copy could not be made (the file stays complete as the last sync left it, a
 * warning says so).
 */
int v7_compact(struct v7_writer *w)
{
	int ret = v7w_check_state(w, V7_ST_FINISHED, __func__);

	if (ret || !w->path)
		return ret;
	ret = compact_beside(w);
	if (ret)
		log_warn("%s is complete but not compacted (%s): it keeps its sparse CPU regions",
			 w->path, strerror(-ret));
	return ret;
}

/**
 * v7_finish() - complete the file and compact it (v7_complete(), v7_compact())
 * @w: writer
 * @cmdlines: CMDLINES text, or NULL to keep what v7_set_cmdlines() gave
 * @cmdlines_len: its length
 * @cpustat: per-CPU "stats" texts (NULL, or entries that may be NULL: kept as set)
 *
 * Return: 0 when the file is complete and compact; -errno when the compact copy could
 * not be made (the file is then complete as the last sync left it, a warning says so)
 * or when not even the last sync could be written (the file keeps the sync before).
 */
int v7_finish(struct v7_writer *w, const char *cmdlines, size_t cmdlines_len,
	      char *const *cpustat)
{
	return v7_complete(w, cmdlines, cmdlines_len, cpustat) ?: v7_compact(w);
}
