// SPDX-License-Identifier: GPL-2.0
/*
 * recorderd recover: check a trace.dat v7 a crash left behind and repair it.
 *
 * Everything is read with format/v7_decode.c, which trusts no byte of the file; no
 * libtracecmd call is made, so a damaged or hostile file gives a reason, never a
 * crash. A file is valid when its tail (the OPTIONS the header points at) parses, its
 * BUFFER option's streams hold exactly the chunks (or pages) it counts, and no more
 * were written after them: then nothing is done, unless some chunks are stored
 * uncompressed (a sync took them before the compression threads could: the file is
 * then about ten times their size, and rewriting it compresses them).
 *
 * Otherwise the file is rebuilt:
 *   - the CPU streams: from the layout record the writer puts after the BUFFER
 *     section header (region of CPU i at data_base + i * region_bytes: exact CPU
 *     ids), or, in a file without one, from the tail's BUFFER option; each stream is
 *     taken as far as its chunks are whole and decompress to readable pages, a
 *     damaged chunk followed by a whole one left out (and said);
 *   - the options, CMDLINES, CPUSTAT and the clock: from the tail the header points
 *     at, or when that one is torn from the newer tail slot of the layout record;
 *   - the metadata sections as they are.
 * The pages go through the same writer that recorded them (format/v7_writer.c), into
 * an unnamed file in the destination's directory, finished the writer's way: the
 * compact file is renamed over the destination (the input itself unless -o), so a
 * crash during recover leaves the input as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/v7_decode.h"
#include "format/v7_writer.h"
#include "util/fileio.h"
#include "recover.h"

#define MAX_KEPT_OPTS	256

/* What a tail (an OPTIONS chain) says. */
struct tail {
	bool			ok;		/* parsed, with a top-buffer BUFFER option */
	struct v7d_buffer	buf;
	uint64_t		cmdlines_off;	/* CMDLINES section, 0 = none */
	uint32_t		ncpus;		/* CPUCOUNT, 0 = none */
	struct v7d_option	opts[MAX_KEPT_OPTS];	/* copies: data malloc'd */
	int			nopts;
	char			**cpustat;	/* [MAX_CPUS] */
	uint64_t		stored;		/* chunks (pages) its streams count */
};

struct rec {
	const char		*path;
	struct v7_file		f;
	int			fd;
	struct tail		t;		/* the tail used for options */
	struct v7d_stream	st[4096];
	uint64_t		off[4096];	/* where each CPU's stream is, 0 = none */
	uint64_t		limit[4096];
	int			ncpus;
	uint64_t		events;
	uint32_t		extra;		/* chunks beyond what the tail counts */
	uint32_t		skipped;	/* damaged chunks amid whole ones */
	uint32_t		uncompressed;	/* chunks a sync stored as they were */
	struct v7_writer	*w;		/* while rebuilding */
	int			wcpu;
	int			werr;
};

static void tail_free(struct tail *t)
{
	free(t->buf.cpus);
	for (int i = 0; i < t->nopts; i++)
		free((void *)t->opts[i].data);
	for (int i = 0; t->cpustat && i < 4096; i++)
		free(t->cpustat[i]);
	free(t->cpustat);
	memset(t, 0, sizeof(*t));
}

struct tail_arg {
	struct v7_file	*f;
	struct tail	*t;
};

static int keep_option(const struct v7d_option *o, void *arg)
{
	struct tail_arg *a = arg;
	struct tail *t = a->t;
	uint8_t *copy;

	switch (o->id) {
	case V7_OPT_BUFFER: {
		struct v7d_buffer b;

		if (v7d_buffer_option(a->f, o, &b))
			return -EINVAL;
		/* the top instance's data; other buffers are not ours to rebuild */
		if (b.name[0] || t->buf.cpus) {
			free(b.cpus);
			return 0;
		}
		t->buf = b;
		return 0;
	}
	case V7_OPT_CPUCOUNT:
		if (o->len == 4)
			memcpy(&t->ncpus, o->data, 4);
		return 0;
	case V7_SEC_CMDLINES:
		if (o->len == 8)
			memcpy(&t->cmdlines_off, o->data, 8);
		return 0;
	case V7_OPT_CPUSTAT: {
		unsigned int cpu;

		/* "CPU: N\n..." as tracefs and the writer put it */
		if (o->len < 8 || o->data[o->len - 1] ||
		    sscanf((const char *)o->data, "CPU: %u", &cpu) != 1 || cpu >= 4096)
			return 0;
		if (!t->cpustat)
			t->cpustat = calloc(4096, sizeof(*t->cpustat));
		if (!t->cpustat)
			return -ENOMEM;
		free(t->cpustat[cpu]);
		t->cpustat[cpu] = strdup((const char *)o->data);
		return 0;
	}
	default:
		/* the writer makes the section offsets, DONE and STRINGS itself */
		if ((o->id >= V7_SEC_STRINGS && o->id <= V7_SEC_CMDLINES) ||
		    t->nopts >= MAX_KEPT_OPTS)
			return 0;
		copy = malloc(o->len ? o->len : 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, o->data, o->len);
		t->opts[t->nopts] = *o;
		t->opts[t->nopts++].data = copy;
		return 0;
	}
}

static bool read_tail(struct v7_file *f, uint64_t off, struct tail *t)
{
	struct tail_arg a = { f, t };

	memset(t, 0, sizeof(*t));
	t->ok = off && !v7d_options(f, off, keep_option, &a) && t->buf.cpus &&
		t->buf.page_size == f->page_size;
	if (!t->ok)
		tail_free(t);
	return t->ok;
}

/* The bytes a tail's streams hold: a later sync's tail counts no fewer. */
static uint64_t tail_bytes(const struct tail *t)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->buf.n; i++)
		n += t->buf.cpus[i].size;
	return n;
}

/* A tail slot starts with CMDLINES (when the capture had them), then OPTIONS. */
static bool read_slot(struct v7_file *f, uint64_t slot, struct tail *t)
{
	uint16_t id = 0;
	uint64_t size = 0;

	if (slot + V7_SEC_HDR_SIZE > f->size || pread(f->fd, &id, 2, (off_t)slot) != 2 ||
	    pread(f->fd, &size, 8, (off_t)slot + 8) != 8)
		return false;
	if (id == V7_SEC_CMDLINES && size < f->size - slot - V7_SEC_HDR_SIZE)
		slot += V7_SEC_HDR_SIZE + size;
	return read_tail(f, slot, t);
}

/* Where the streams are: the layout record's regions, else the tail's extents. */
static int find_streams(struct rec *r)
{
	struct v7_file *f = &r->f;

	if (f->has_layout) {
		r->ncpus = (int)f->layout.ncpus;
		for (int i = 0; i < r->ncpus; i++) {
			r->off[i] = f->layout.data_base + (uint64_t)i * f->layout.region_bytes;
			r->limit[i] = r->off[i] + f->layout.region_bytes;
		}
		return 0;
	}
	if (!r->t.ok)
		return -ENOENT;
	for (uint32_t i = 0; i < r->t.buf.n; i++) {
		const struct v7_cpu_extent *e = &r->t.buf.cpus[i];

		if (e->cpu >= 4096 || e->off < f->buf_sec || r->off[e->cpu])
			return -EINVAL;
		r->off[e->cpu] = e->off;
		r->limit[e->cpu] = e->off + (f->buf_zstd ? 4 : 0) + e->size;
		if ((int)e->cpu >= r->ncpus)
			r->ncpus = (int)e->cpu + 1;
	}
	return 0;
}

/* The tail's count for @cpu: chunks (compressed) or pages, and its bytes. */
static bool tail_extent(const struct rec *r, int cpu, uint64_t *size)
{
	for (uint32_t i = 0; i < r->t.buf.n; i++)
		if (r->t.buf.cpus[i].cpu == (uint32_t)cpu) {
			*size = r->t.buf.cpus[i].size;
			return true;
		}
	return false;
}

/*
 * Walks every stream. The file is valid when the tail is, every stream the tail names
 * holds exactly its bytes, and no stream holds more.
 */
static bool walk_streams(struct rec *r)
{
	bool valid = r->t.ok;

	r->events = 0;
	r->extra = 0;
	r->skipped = 0;
	r->uncompressed = 0;
	for (int i = 0; i < r->ncpus; i++) {
		struct v7d_stream *st = &r->st[i];
		uint64_t size = 0;
		bool named;

		memset(st, 0, sizeof(*st));
		if (!r->off[i])
			continue;
		v7d_stream(&r->f, r->off[i], r->limit[i], r->f.buf_zstd, UINT32_MAX, st, NULL,
			   NULL);
		named = r->t.ok && tail_extent(r, i, &size);
		if (named && st->bytes < size)
			valid = false;		/* the tail names data that is not there */
		if (st->skipped)
			valid = false;		/* damaged chunks: left out of a rebuild */
		r->skipped += st->skipped;
		if (st->bytes > size) {
			valid = false;
			r->extra += r->f.buf_zstd ? st->chunks - (named ? st->stored : 0) :
				    (uint32_t)((st->bytes - size) / r->f.page_size);
		}
		r->events += st->events;
		r->uncompressed += st->uncompressed;
	}
	return valid;
}

static int add_page(const void *page, void *arg)
{
	struct rec *r = arg;

	r->werr = v7_append_pages(r->w, r->wcpu, page, 1);
	return r->werr;
}

static char *cmdlines_text(struct rec *r, size_t *len)
{
	struct v7_buf b = { 0 };
	uint64_t n;
	char *text;

	*len = 0;
	if (!r->t.cmdlines_off ||
	    v7d_read_section(&r->f, r->t.cmdlines_off, V7_SEC_CMDLINES, &b, NULL) ||
	    b.len < 8) {
		v7_buf_free(&b);
		return NULL;
	}
	memcpy(&n, b.p, 8);
	if (n > b.len - 8)
		n = b.len - 8;
	text = malloc(n + 1);
	if (text) {
		memcpy(text, b.p + 8, n);
		*len = n;
	}
	v7_buf_free(&b);
	return text;
}

static uint64_t region_for(const struct rec *r)
{
	uint64_t most = 0;

	for (int i = 0; i < r->ncpus; i++)
		if (r->st[i].pages * r->f.page_size > most)
			most = r->st[i].pages * r->f.page_size;
	/* room for the worst compressed size of that many pages */
	return most + most / 64 + (1ULL << 20);
}

/*
 * Writes the repaired file as @tmp (beside @dest, compacted there by the writer's
 * finish); the caller checks it before it takes @dest's name.
 */
static int rebuild(struct rec *r, const char *dest, const char *tmp)
{
	struct trace_meta m;
	struct stat in;
	struct v7_params p = { 0 };
	size_t clen = 0;
	char *cmd = NULL;
	int ret, wfd;

	ret = v7d_meta(&r->f, &m);
	if (ret) {
		fprintf(stderr, "recover: %s: metadata unreadable: %s\n", r->path, r->f.why);
		return ret;
	}
	wfd = fio_open_work_beside(dest, 0600);
	if (wfd < 0) {
		meta_free(&m);
		fprintf(stderr, "recover: %s: cannot write beside %s: %s\n", r->path, dest,
			strerror(-wfd));
		return wfd;
	}
	/*
	 * The finish gives the file it renames over @dest this one's mode and owner: the
	 * input's. A group it may not give (not root) gets no access instead.
	 */
	if (fstat(r->fd, &in) || fchmod(wfd, in.st_mode & 07777))
		fprintf(stderr, "recover: %s: the repaired file keeps mode 0600: %s\n", r->path,
			strerror(errno));
	else if (fchown(wfd, in.st_uid, in.st_gid) && fchmod(wfd, in.st_mode & 0700))
		fprintf(stderr, "recover: %s: the repaired file keeps mode 0%o: %s\n", r->path,
			in.st_mode & 07777, strerror(errno));
	p.fd = wfd;
	p.page_size = r->f.page_size;
	p.ncpus = r->ncpus;
	p.comp = r->f.buf_zstd ? V7_COMP_ZSTD : V7_COMP_NONE;
	p.region_bytes = region_for(r);
	/* a tail slot's clock too: the streams come from the layout, not its clock */
	p.clock = r->t.buf.clock[0] ? r->t.buf.clock : "local";
	p.buffer_name = "";
	p.durable = 1;
	p.path = tmp;
	r->w = v7_create(&p, &m);
	ret = r->w ? 0 : (errno ? -errno : -EIO);
	for (int i = 0; !ret && i < r->t.nopts; i++) {
		const struct v7d_option *o = &r->t.opts[i];

		/* options the writer owns (BUFFER, CPUCOUNT, ...) were not kept */
		ret = v7_add_option(r->w, o->id, o->data, o->len);
	}
	cmd = ret ? NULL : cmdlines_text(r, &clen);
	if (cmd)
		ret = v7_set_cmdlines(r->w, cmd, clen);
	for (int i = 0; !ret && r->t.cpustat && i < r->ncpus; i++)
		if (r->t.cpustat[i])
			ret = v7_set_cpustat(r->w, i, r->t.cpustat[i]);
	for (int i = 0; !ret && i < r->ncpus; i++) {
		struct v7d_stream st;

		if (!r->st[i].chunks)
			continue;
		r->wcpu = i;
		/* exactly the chunks the check walk found whole */
		ret = v7d_stream(&r->f, r->off[i], r->limit[i], r->f.buf_zstd, r->st[i].chunks,
				 &st, add_page, r);
	}
	ret = ret ?: v7_finish(r->w, NULL, 0, NULL);
	if (ret)
		fprintf(stderr, "recover: %s: writing %s: %s\n", r->path, dest, strerror(-ret));
	v7_free(r->w);
	r->w = NULL;
	close(wfd);
	free(cmd);
	meta_free(&m);
	return ret;
}

/* ", N damaged chunks ... lost" when the walk skipped some, else "". */
static const char *skipped_text(const struct rec *r)
{
	static char text[96];

	if (!r->skipped)
		return "";
	snprintf(text, sizeof(text), ", %u damaged %s skipped (their events are lost)",
		 r->skipped, r->f.buf_zstd ? "chunks" : "pages");
	return text;
}

/* Events in @path as our reader counts them, or -1 if it does not read. */
static long long count_events(const char *path)
{
	struct rec *r = calloc(1, sizeof(*r));
	long long n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (r && fd >= 0 && !v7d_open(&r->f, fd)) {
		r->path = path;
		if (read_tail(&r->f, r->f.opt_off, &r->t) && !find_streams(r) &&
		    walk_streams(r))
			n = (long long)r->events;
		tail_free(&r->t);
	}
	if (r)
		v7d_close(&r->f);
	if (fd >= 0)
		close(fd);
	free(r);
	return n;
}

/* Removes @name (freed) if it is there, unless @dry_run; whether it was there. */
static bool remove_if_there(char *name, int dry_run)
{
	bool there = name && !access(name, F_OK);

	if (there && !dry_run)
		unlink(name);
	free(name);
	return there;
}

/*
 * Removes what a kill can leave beside @path: a finish's compact copy, or recover's
 * own repaired file not yet checked (and the compact copy its finish was making).
 */
static bool remove_stray(const char *path, int dry_run)
{
	char *rec = fio_beside_name(path, "recovering");
	bool found = remove_if_there(fio_beside_name(path, "finishing"), dry_run);

	found |= remove_if_there(rec ? fio_beside_name(rec, "finishing") : NULL, dry_run);
	found |= remove_if_there(rec, dry_run);
	/* the work file of a rebuild without O_TMPFILE, killed before it lost its name */
	found |= remove_if_there(fio_beside_name(path, "work"), dry_run);
	return found;
}

/*
 * Rebuilds into a file beside @dest, reads it back and gives it @dest's name only if
 * it holds every event the walk found: the input is never replaced by a worse copy,
 * and -o never replaces a file. Returns the events, or -errno (said).
 */
static long long rebuild_checked(struct rec *r, const char *dest, bool replace)
{
	char *tmp = fio_beside_name(dest, "recovering");
	long long after = -1;
	int ret;

	if (!tmp)
		return -ENOMEM;
	unlink(tmp);
	ret = rebuild(r, dest, tmp);
	if (!ret) {
		after = count_events(tmp);
		if (after != (long long)r->events) {
			fprintf(stderr, "recover: %s: the rebuilt file %s (%lld events of %llu): %s left as it is\n",
				r->path, after < 0 ? "does not read back" : "lacks events", after,
				(unsigned long long)r->events, replace ? "the input is" : "nothing is");
			ret = -EIO;
		}
	}
	if (!ret) {
		if (replace)
			ret = rename(tmp, dest) ? -errno : 0;
		else
			ret = fio_move(tmp, dest);	/* never over a file */
		ret = ret ?: fio_sync_dir_of(dest);
		if (ret)
			fprintf(stderr, "recover: %s: naming the repaired file %s: %s\n", r->path,
				dest, strerror(-ret));
	}
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret ? ret : after;
}

int recover_file(const char *path, const char *out, unsigned int flags)
{
	bool dry_run = flags & RECOVER_CHECK;
	struct rec *r = calloc(1, sizeof(*r));
	bool valid, whole, stray;
	long long after;
	int ret, streams = 0;

	if (!r)
		return -ENOMEM;
	r->path = path;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		fprintf(stderr, "recover: %s: %s\n", path, strerror(errno));
		goto out;
	}
	ret = v7d_open(&r->f, r->fd);
	if (ret) {
		fprintf(stderr, "recover: %s: %s\n", path, r->f.why);
		goto out;
	}
	stray = remove_stray(path, dry_run);
	valid = read_tail(&r->f, r->f.opt_off, &r->t);
	if (!valid && r->f.has_layout) {
		/* the header's tail is torn: the newer of the two slots that parse */
		struct tail lo, hi;
		bool l = read_slot(&r->f, r->f.layout.tail_base, &lo);
		bool h = read_slot(&r->f, r->f.layout.tail_base + r->f.layout.slot_size, &hi);

		if (l && (!h || tail_bytes(&lo) > tail_bytes(&hi))) {
			r->t = lo;
			if (h)
				tail_free(&hi);
		} else if (h) {
			r->t = hi;
			if (l)
				tail_free(&lo);
		}
		/* the streams come from the layout: this tail gives options only */
		r->t.ok = false;
	}
	ret = find_streams(r);
	if (ret) {
		fprintf(stderr, "recover: %s: %s\n", path, ret == -ENOENT ?
			"no layout record and no readable tail: the CPU streams cannot be found" :
			"the tail's BUFFER option names impossible streams");
		goto out;
	}
	whole = walk_streams(r);
	if (whole && (!r->uncompressed || (flags & RECOVER_KEEP_STORED))) {
		printf("%s: valid, %llu events; nothing to do%s", path,
		       (unsigned long long)r->events,
		       stray ? " (a file a killed finish left beside it was removed)" : "");
		if (r->uncompressed)
			printf(" (%u chunks a sync stored uncompressed are kept: recorderd recover compresses them)",
			       r->uncompressed);
		printf("\n");
		ret = 0;
		if (out)
			fprintf(stderr, "recover: %s: valid: -o %s not written\n", path, out);
		goto out;
	}
	/* a valid file with chunks a sync stored uncompressed: rewritten, compressed */
	if (dry_run && whole) {
		printf("%s: valid, %llu events, %u chunks stored uncompressed: can be compressed\n",
		       path, (unsigned long long)r->events, r->uncompressed);
		ret = 1;
		goto out;
	}
	if (dry_run) {
		printf("%s: %s; %d CPU streams, %u chunks not counted yet%s: can be repaired\n",
		       path, valid ? "readable" : "tail missing or torn", r->ncpus, r->extra,
		       skipped_text(r));
		ret = 1;
		goto out;
	}
	if (out && !access(out, F_OK)) {
		fprintf(stderr, "recover: %s exists: not replaced\n", out);
		ret = -EEXIST;
		goto out;
	}
	after = rebuild_checked(r, out ? out : path, !out);
	if (after < 0) {
		ret = (int)after;
		goto out;
	}
	for (int i = 0; i < r->ncpus; i++)
		streams += r->st[i].chunks > 0;
	printf("%s: repaired (%s): %lld events, %d CPU streams%s%s%s\n", path,
	       whole ? "chunks stored uncompressed by a sync compressed" :
	       r->skipped ? "damaged chunks left out" :
	       valid ? "unsynced chunks counted in" : "tail rebuilt from the chunk streams",
	       after, streams, skipped_text(r), out ? " -> " : "", out ? out : "");
	ret = 1;
out:
	tail_free(&r->t);
	v7d_close(&r->f);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
	return ret;
}
