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
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "util/fileio.h"
#include "chunk_pool.h"
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

/* Where each CPU's data go in the compact file; returns the end of the last. */
static uint64_t compact_layout(struct v7_writer *w, uint64_t *base)
{
	uint64_t end = w->buf_sec + V7_SEC_HDR_SIZE;

	for (int i = 0; i < w->ncpus; i++) {
		base[i] = 0;
		if (!v7w_cpu_size(w, &w->cpus[i]))
			continue;
		/* Uncompressed data must start page aligned (formats.md A.9). */
		base[i] = v7w_round_up(end, w->ps);
		end = base[i] + w->cpus[i].used;
	}
	return end;
}

/* Writes the compact file to w->fd (the new file), reading the data from @old. */
static int write_compact(struct v7_writer *w, int old)
{
	uint64_t *base = w->base, end, opt_off, meta = w->buf_sec + V7_SEC_HDR_SIZE;
	struct v7_buf tail = { 0 };
	int ret;

	end = compact_layout(w, base);
	/* Initial header, metadata sections and the BUFFER section header, as they are. */
	ret = copy_range(w, old, 0, 0, meta);
	for (int i = 0; !ret && i < w->ncpus; i++)
		if (base[i])
			ret = copy_range(w, old, w->cpus[i].region, base[i], w->cpus[i].used);
	ret = ret ?: v7w_build_tail(w, &tail, end, base, 0, w->compressed, &opt_off);
	ret = ret ?: v7w_write(w, tail.p, tail.len, end);
	ret = ret ?: v7w_patch_u64(w, w->buf_sec + 8, end - meta);
	ret = ret ?: v7w_patch_u64(w, w->opt_ptr, opt_off);
	ret = ret ?: v7w_truncate(w, end + tail.len);
	/* the size of the file left: before the free, which zeroes tail.len */
	if (!ret)
		w->file_bytes = end + tail.len;
	v7_buf_free(&tail);
	return ret;
}

/* "DIR/.NAME.finishing" for @path. */
static char *finishing_name(const char *path)
{
	char *d = strdup(path), *b = strdup(path), *out = NULL;

	if (d && b && asprintf(&out, "%s/.%s.finishing", dirname(d), basename(b)) < 0)
		out = NULL;
	free(d);
	free(b);
	return out;
}

/* Builds the compact file beside the original and renames it over it. */
static int compact_beside(struct v7_writer *w)
{
	char *tmp = finishing_name(w->path);
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
