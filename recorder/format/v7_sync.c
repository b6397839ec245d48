// SPDX-License-Identifier: GPL-2.0
/*
 * The streaming writer's sync/tail protocol: v7_sync() makes everything appended so
 * far readable, and the tail builder it shares with finishing (v7_finish.c). The file
 * layout it works in is described at the top of v7_writer.c.
 *
 * Crash safety (kill -9 at any moment leaves a readable file holding every chunk of
 * the last completed v7_sync):
 *   1. pending partial chunks are written (the region past the synced end is not
 *      referenced by anything yet);
 *   2. each CPU's u32 chunk count is raised in place, after its chunks are in the file.
 *      An old tail combined with a newer count only makes the reader load more valid
 *      chunks (the per-CPU size is used for the truncation check alone, A.9);
 *   3. the new tail (every option, the BUFFER option with the per-CPU sizes, DONE = 0,
 *      STRINGS) goes to the slot the header does NOT point at;
 *   4. the header's options offset is flipped to it: one 8-byte pwrite, the commit point;
 *   5. the BUFFER section size is set to end at the new slot, and after a flip to the
 *      low slot the file is cut at T + S, removing the stale high slot.
 * Without @durable this holds for a killed process (the page cache outlives it); with
 * it, fdatasync() barriers before and after the flip make it hold for a power loss.
 * The section walk (`trace-cmd dump`) stays sane in every intermediate state: the
 * BUFFER section always ends at a slot start, the low slot's STRINGS section is padded
 * with zeros (empty strings) up to T + S so that what follows it is the high slot, and
 * a stale slot still holds a complete, valid OPTIONS + STRINGS pair.
 *
 * The slot size S is 1 MiB: room for every option a capture adds (v7_add_option()
 * refuses more), so T + S + S is all the file ever holds past the regions.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/fileio.h"
#include "chunk_pool.h"
#include "v7_writer_local.h"

/* Bytes of a CPU's data the reader is told about (A.9, A.10). */
uint64_t v7w_cpu_size(const struct v7_writer *w, const struct v7_cpu *c)
{
	if (!w->compressed)
		return c->used;
	return c->nr_chunks ? c->used - 4 : 0;
}

/* BUFFER option, formats.md A.10; @base[cpu] = where each CPU's data start. */
static int v7_put_buffer(struct v7_writer *w, struct v7_buf *b, const uint64_t *base)
{
	uint32_t k = 0;
	int i;

	for (i = 0; i < w->ncpus; i++) {
		uint64_t size = v7w_cpu_size(w, &w->cpus[i]);

		if (!size)
			continue;
		w->ext[k].cpu = (uint32_t)i;
		w->ext[k].off = base[i];
		w->ext[k].size = size;
		k++;
	}
	return v7_put_buffer_option(b, w->buf_sec, w->buffer_name, w->clock, w->ps, w->ext,
				    k);
}

/*
 * The OPTIONS section body: section offsets, the caller's options, CPUSTATs, CPUCOUNT,
 * BUFFER, DONE = 0 (the order trace-cmd uses, A.7).
 */
static int v7_put_options(struct v7_writer *w, struct v7_buf *b, const uint64_t *base)
{
	char *const *cpustat = w->cpustat;
	uint32_t ncpus = (uint32_t)w->ncpus;
	int i, ret = 0;

	for (i = 0; !ret && i < V7_NR_META - 1; i++)
		if (w->sec_off[i])
			ret = v7_put_option(b, V7_SEC_HEADER_INFO + i, &w->sec_off[i], 8);
	for (i = 0; !ret && i < w->nr_opts; i++)
		ret = v7_put_option(b, w->opts[i].id, w->opts[i].data, w->opts[i].len);
	for (i = 0; !ret && cpustat && i < w->ncpus; i++)
		if (cpustat[i])
			ret = v7_put_option(b, V7_OPT_CPUSTAT, cpustat[i],
					    (uint32_t)strlen(cpustat[i]) + 1);
	if (!ret && w->sec_off[V7_NR_META - 1])
		ret = v7_put_option(b, V7_SEC_CMDLINES, &w->sec_off[V7_NR_META - 1], 8);
	ret = ret ?: v7_put_option(b, V7_OPT_CPUCOUNT, &ncpus, 4);
	ret = ret ?: v7_put_buffer(w, b, base);
	if (!ret) {
		uint64_t next = 0;

		ret = v7_put_option(b, V7_OPT_DONE, &next, 8);
	}
	return ret;
}

int v7w_build_tail(struct v7_writer *w, struct v7_buf *out, uint64_t off,
		   const uint64_t *base, uint64_t sec_end, bool compress_strings,
		   uint64_t *opt_off)
{
	const char *cmd_desc = v7_section_desc(V7_SEC_CMDLINES);
	struct v7_buf opts = { 0 }, body = { 0 };
	int ret = 0;

	/* Every description must be in the table before it is written. */
	if (v7_string_id(&w->strs, "options") < 0 || v7_string_id(&w->strs, "strings") < 0 ||
	    (w->cmdlines && v7_string_id(&w->strs, cmd_desc) < 0))
		return -ENOMEM;
	w->sec_off[V7_NR_META - 1] = 0;
	/*
	 * The section holds no offset: the one built for the last tail goes again while
	 * the text is the same (every sync builds two tails; 256 KiB of command lines took
	 * 2-5 ms to compress in a TCG guest).
	 */
	if (w->cmdlines && !w->cmdlines_sec.len) {
		ret = v7_put_cmdlines_body(&body, w->cmdlines, w->cmdlines_len);
		ret = ret ?: v7_put_section(&w->cmdlines_sec, &w->strs, V7_SEC_CMDLINES, cmd_desc,
					    body.p, body.len, w->compressed ? w->codec : NULL,
					    w->cctx, 0);
		v7_buf_free(&body);
		if (ret)
			w->cmdlines_sec.len = 0;
	}
	if (!ret && w->cmdlines) {
		w->sec_off[V7_NR_META - 1] = off + out->len;
		ret = v7_buf_put(out, w->cmdlines_sec.p, w->cmdlines_sec.len);
	}
	*opt_off = off + out->len;
	ret = ret ?: v7_put_options(w, &opts, base);
	ret = ret ?: v7_put_section(out, &w->strs, V7_OPT_DONE, "options", opts.p, opts.len,
				    NULL, NULL, 0);
	ret = ret ?: v7_put_section(out, &w->strs, V7_SEC_STRINGS, "strings", w->strs.p,
				    w->strs.len, compress_strings ? w->codec : NULL, w->cctx,
				    sec_end ? sec_end - off : 0);
	v7_buf_free(&opts);
	return ret;
}

/*
 * Raises the stored chunk counts. Only after a barrier behind the chunks: a count
 * that reached the disk before its chunk would name garbage after a power cut.
 */
static int v7_write_counts(struct v7_writer *w)
{
	int i, ret;

	for (i = 0; w->compressed && i < w->ncpus; i++) {
		struct v7_cpu *c = &w->cpus[i];

		if (c->nr_chunks == c->synced_chunks)
			continue;
		ret = v7w_write(w, &c->nr_chunks, 4, c->region);
		if (ret)
			return ret;
		c->synced_chunks = c->nr_chunks;
		/* an old tail reads the new count (above), for a CPU it gives data to */
		if (c->named)
			c->kept_raw = c->put_raw;
	}
	return 0;
}

/* Zeros [from, to) so the low slot's padded STRINGS holds only empty strings. */
static int v7_zero(struct v7_writer *w, uint64_t from, uint64_t to)
{
	static const char zeros[4096];
	int ret = 0;

	if (to <= from)
		return 0;
	if (v7w_injected(w))
		return w->err;
	if (!fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
		       (off_t)(to - from)))
		return 0;
	while (!ret && from < to) {
		size_t n = to - from < sizeof(zeros) ? to - from : sizeof(zeros);

		ret = v7w_write(w, zeros, n, from);
		from += n;
	}
	return ret;
}

int v7w_write_tail(struct v7_writer *w)
{
	uint64_t *base = w->base;
	int target = w->slot == 0 ? 1 : 0;
	uint64_t off = w->tail_base + (target ? V7_SLOT_SIZE : 0);
	uint64_t slot_end = w->tail_base + V7_SLOT_SIZE;
	struct v7_buf out = { 0 };
	uint64_t opt_off;
	int i, ret;

	for (i = 0; i < w->ncpus; i++)
		base[i] = w->cpus[i].region;
	ret = v7w_build_tail(w, &out, off, base, target ? 0 : slot_end, false, &opt_off);
	if (ret)
		goto out;
	if (out.len > V7_SLOT_SIZE) {
		log_err("trace.dat writer: command lines and options take %zu bytes, more than %llu",
			out.len, (unsigned long long)V7_SLOT_SIZE);
		ret = -E2BIG;
		goto out;
	}
	if (!target) {
		ret = v7_zero(w, off + out.len, w->low_dirty);
		if (ret)
			goto out;
		w->low_dirty = off + out.len;
	}
	ret = v7w_write(w, out.p, out.len, off);
	ret = ret ?: v7w_barrier(w);
	/*
	 * The commit point: the header now names the new tail. The barrier after it
	 * makes the flip durable before the next sync overwrites the other slot.
	 */
	ret = ret ?: v7w_patch_u64(w, w->opt_ptr, opt_off);
	/* the new tail names every page put so far */
	for (i = 0; !ret && i < w->ncpus; i++) {
		w->cpus[i].kept_raw = w->cpus[i].put_raw;
		w->cpus[i].named = w->cpus[i].put_raw > 0;
	}
	ret = ret ?: v7w_barrier(w);
	if (ret)
		goto out;
	w->slot = target;
	ret = v7w_patch_u64(w, w->buf_sec + 8, off - w->buf_sec - V7_SEC_HDR_SIZE);
	if (!ret && !target)
		ret = v7w_truncate(w, slot_end);
out:
	v7_buf_free(&out);
	return ret;
}

/**
 * v7_sync() - make everything appended so far readable
 * @w: writer
 *
 * Writes the partial chunk of every CPU (the next pages start a new chunk), the chunk
 * counts and a complete tail, then points the header at it.
 *
 * Return: 0 or -errno; a write error is sticky and leaves the previous sync intact.
 */
bool v7_unsynced(const struct v7_writer *w)
{
	if (w->raw_bytes != w->synced_raw || w->in_pool || w->tail_dirty ||
	    (w->durable && w->path && !w->dir_synced))
		return true;
	for (int i = 0; i < w->ncpus; i++)
		if (w->cpus[i].nr_chunks != w->cpus[i].synced_chunks)
			return true;
	return false;
}

int v7_sync(struct v7_writer *w)
{
	int ret = v7w_check_state(w, V7_ST_CAPTURE, __func__);
	uint64_t raw = w->raw_bytes;

	/* Idle: the file on disk is already what a sync would make it. */
	if (!ret && !v7_unsynced(w))
		return 0;

	ret = ret ?: v7w_flush_data(w);
	/* What the pool has compressed so far goes in; the rest waits for the next sync. */
	if (!ret && w->in_pool)
		chunk_pool_reap(w->pool, CHUNK_POOL_NOWAIT);
	ret = ret ?: w->err;
	ret = ret ?: v7w_barrier(w);
	ret = ret ?: v7_write_counts(w);
	ret = ret ?: v7w_write_tail(w);
	/* Once per file: a power cut must not take the new file's name with it. */
	if (!ret && w->durable && w->path && !w->dir_synced) {
		ret = fio_sync_dir_of(w->path);
		if (ret)
			return v7w_fail(w, ret, "fsync of the directory");
		w->dir_synced = true;
	}
	if (!ret) {
		/* Only a sync that made it counts (some tail errors do not stick). */
		w->synced_raw = raw;
		w->tail_dirty = false;
	}
	return ret;
}

/**
 * v7_set_cmdlines() - the CMDLINES every tail from now on carries
 * @w: writer
 * @text: "PID COMM" lines (copied), or NULL for none
 * @len: bytes of @text
 *
 * Return: 0, -ENOMEM, or -E2BIG when it cannot fit a tail slot (the old one stays).
 * The text the tails carry already changes nothing.
 */
int v7_set_cmdlines(struct v7_writer *w, const char *text, size_t len)
{
	char *copy = NULL;

	/* Worst case uncompressed: it must leave room for the options in the slot. */
	if (text && len > V7_SLOT_SIZE / 2)
		return -E2BIG;
	if (text && w->cmdlines && len == w->cmdlines_len && !memcmp(text, w->cmdlines, len))
		return 0;
	if (text) {
		copy = malloc(len ? len : 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, text, len);
	}
	free(w->cmdlines);
	w->cmdlines = copy;
	w->cmdlines_len = text ? len : 0;
	w->cmdlines_sec.len = 0;
	w->tail_dirty = true;
	return 0;
}

/**
 * v7_set_cpustat() - the CPUSTAT option of @cpu every tail from now on carries
 * @w: writer
 * @cpu: CPU id
 * @text: the text (copied), or NULL for none
 *
 * Return: 0, -EINVAL for a bad CPU or a text too long for a slot, -ENOMEM.
 */
int v7_set_cpustat(struct v7_writer *w, int cpu, const char *text)
{
	char *copy = NULL;

	if (cpu < 0 || cpu >= w->ncpus || (text && strlen(text) > V7_SLOT_SIZE / 4 / w->ncpus))
		return -EINVAL;
	if (text) {
		copy = strdup(text);
		if (!copy)
			return -ENOMEM;
	}
	free(w->cpustat[cpu]);
	w->cpustat[cpu] = copy;
	w->tail_dirty = true;
	return 0;
}
