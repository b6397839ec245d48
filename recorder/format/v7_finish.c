// SPDX-License-Identifier: GPL-2.0
/*
 * Finishing a streaming v7 file (v7_finish(), v7_writer.h): the last chunks, then the
 * holes between the CPU regions removed and CMDLINES + OPTIONS + STRINGS written right
 * behind the last CPU's data, so the result is a compact file like trace-cmd's; the
 * header is flipped to the new tail last.
 *
 * Holes go with FALLOC_FL_COLLAPSE_RANGE, or, where the filesystem cannot collapse
 * (tmpfs, ...), by copying each CPU's data downwards. Where the data are copied down,
 * nothing the old tail refers to is overwritten (as long as no CPU's data moves by
 * less than its own size), so a kill at any point of finishing leaves the last synced
 * file or the finished one. With collapse, a kill between the first collapse and the
 * flip leaves a header naming a tail that moved; `recorderd recover` rebuilds it from
 * the chunk streams.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "v7_writer_local.h"

/* Moves @len bytes from @from down to @to (@to < @from; the ranges may overlap). */
static int v7_move_down(struct v7_writer *w, uint64_t to, uint64_t from, uint64_t len)
{
	size_t bsz = 1 << 20;
	char *b = malloc(bsz);
	int ret = 0;

	if (!b)
		return -ENOMEM;
	while (!ret && len) {
		size_t n = len < bsz ? (size_t)len : bsz;
		ssize_t r = pread(w->fd, b, n, (off_t)from);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = v7w_fail(w, r < 0 ? -errno : -EIO, "read back");
			break;
		}
		ret = v7w_write(w, b, (size_t)r, to);
		to += (uint64_t)r;
		from += (uint64_t)r;
		len -= (uint64_t)r;
	}
	free(b);
	return ret;
}

/*
 * Removes the holes between the regions; fills @base with each CPU's final data
 * offset and returns the end of the last CPU's data in *@end.
 */
static int v7_compact(struct v7_writer *w, uint64_t *base, uint64_t *end)
{
	uint64_t pos = w->data_base;
	bool collapse = true;
	int i, last = -1, ret = 0;

	for (i = 0; i < w->ncpus; i++) {
		uint64_t size = v7w_cpu_size(w, &w->cpus[i]);

		base[i] = 0;
		if (!size)
			continue;
		base[i] = pos;
		*end = pos + w->cpus[i].used;
		pos = v7w_round_up(*end, w->align);
		last = i;
	}
	if (last < 0) {
		*end = w->buf_sec + V7_SEC_HDR_SIZE;
		return 0;
	}
	/* Collapse the highest hole first: the lower regions keep their offsets. */
	for (i = last; i >= 0; i--) {
		struct v7_cpu *c = &w->cpus[i];
		uint64_t start = w->data_base;
		int j;

		if (!v7w_cpu_size(w, c))
			continue;
		for (j = i - 1; j >= 0; j--)
			if (v7w_cpu_size(w, &w->cpus[j])) {
				start = w->cpus[j].region + v7w_round_up(w->cpus[j].used, w->align);
				break;
			}
		if (start == c->region)
			continue;
		if (!fallocate(w->fd, FALLOC_FL_COLLAPSE_RANGE, (off_t)start,
			       (off_t)(c->region - start)))
			continue;
		if (i != last || (errno != EOPNOTSUPP && errno != EINVAL))
			return v7w_fail(w, -errno, "collapse range");
		collapse = false;
		break;
	}
	if (collapse)
		return 0;
	/* No collapse here (tmpfs, ...): copy each CPU's data down, lowest first. */
	for (i = 0; !ret && i <= last; i++) {
		if (!base[i] || base[i] == w->cpus[i].region)
			continue;
		ret = v7_move_down(w, base[i], w->cpus[i].region, w->cpus[i].used);
	}
	return ret;
}

static int v7_write_cmdlines(struct v7_writer *w, uint64_t off, const char *text,
			     size_t len, uint64_t *end)
{
	struct v7_buf body = { 0 };
	int ret = v7_put_cmdlines_body(&body, text, len);

	if (!ret) {
		w->sec_off[V7_NR_META - 1] = off;
		ret = v7w_write_section(w, off, V7_SEC_CMDLINES,
					v7_section_desc(V7_SEC_CMDLINES), &body, end);
	}
	v7_buf_free(&body);
	return ret;
}

/**
 * v7_finish() - complete the file
 * @w: writer
 * @cmdlines: saved_cmdlines text or NULL
 * @cmdlines_len: its length
 * @cpustat: per-CPU "stats" texts (NULL, or entries that may be NULL)
 *
 * Writes the pending chunks, removes the holes between the CPU regions and writes
 * CMDLINES, OPTIONS and STRINGS behind the data. Not atomic (see the top comment).
 *
 * Return: 0 or -errno; on a write error before the compaction the file keeps its
 * last synced state.
 */
int v7_finish(struct v7_writer *w, const char *cmdlines, size_t cmdlines_len,
	      char *const *cpustat)
{
	uint64_t *base = w->base, end, opt_off;
	struct v7_buf tail = { 0 };
	int ret = v7w_check_state(w, V7_ST_CAPTURE, __func__);

	ret = ret ?: v7w_flush_all(w);
	ret = ret ?: v7_compact(w, base, &end);
	if (ret)
		return ret;
	w->state = V7_ST_FINISHED;
	ret = v7_write_cmdlines(w, end, cmdlines, cmdlines_len, &opt_off);
	ret = ret ?: v7w_build_tail(w, &tail, opt_off, base, cpustat, 0, w->compressed);
	ret = ret ?: v7w_write(w, tail.p, tail.len, opt_off);
	ret = ret ?: v7w_barrier(w);
	/*
	 * Flip first: until the cut below the old BUFFER size still spans the new
	 * sections, so both the reader and the section walk stay sane. After the cut
	 * and before the size is patched only the walk (dump) misses STRINGS.
	 */
	ret = ret ?: v7w_patch_u64(w, w->opt_ptr, opt_off);
	ret = ret ?: v7w_truncate(w, opt_off + tail.len);
	ret = ret ?: v7w_patch_u64(w, w->buf_sec + 8, end - w->buf_sec - V7_SEC_HDR_SIZE);
	ret = ret ?: v7w_barrier(w);
	v7_buf_free(&tail);
	return ret;
}