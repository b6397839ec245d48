// SPDX-License-Identifier: GPL-2.0
/*
 * recorderd recover: check a trace.dat v7 a crash left behind and repair it in place.
 *
 * What a crash can leave (recorder/format/v7_writer.h):
 *   - a valid file whose per-CPU regions hold chunks written after the last v7_sync():
 *     they are complete on disk but not counted; recover counts them in;
 *   - a file whose tail (OPTIONS) is missing or torn, e.g. killed inside v7_finish():
 *     recover walks the metadata sections to the BUFFER section, finds the chunk
 *     streams by scanning the BUFFER section, and writes a new tail.
 *
 * The repair never moves data. It appends the new OPTIONS section at the end of the
 * file, raises the chunk counts, extends the BUFFER section over it, and only then
 * flips the header's options offset (one 8-byte write, the commit point), so a crash
 * during recover leaves the file as it was.
 *
 * Only little-endian files (as the recorder writes them on x86/arm64) are handled.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <trace-cmd/trace-cmd.h>
#include <unistd.h>
#include <zstd.h>

#include "ftrace_page.h"
#include "recover.h"
#include "format/v7_encode.h"
#include "util/fileio.h"

#define MAX_STREAMS	1024
#define MAX_OPTS	256
#define MAX_CHUNK	(64U << 20)	/* larger uncompressed chunks are not ours */
#define SCAN_ALIGN	4096ULL

struct stream {
	uint32_t	cpu;
	uint64_t	off;		/* where the u32 chunk count is (or the raw pages) */
	uint32_t	stored;		/* chunk count in the file */
	uint32_t	chunks;		/* chunks that decompress */
	uint64_t	size;		/* bytes after the count (compressed) or raw bytes */
	uint64_t	tail_size;	/* size the old tail gave, 0 if none */
	uint64_t	limit;		/* the stream cannot reach past this offset */
};

struct opt {
	uint16_t	id;
	uint32_t	len;
	uint8_t		*data;
};

struct rfile {
	const char	*path;
	int		fd;
	uint64_t	fsize;
	uint32_t	page;
	bool		zstd;
	uint64_t	optptr_at;	/* where the header's options offset is */
	uint64_t	first_sec;
	uint64_t	sec[V7_SEC_CMDLINES + 1];	/* offsets of metadata sections, 0 = none */
	uint64_t	buffer_off;	/* BUFFER section header */
	uint64_t	buffer_end;	/* where its size says it ends (capped at EOF) */
	bool		buffer_zstd;	/* its compression flag */
	struct stream	s[MAX_STREAMS];
	int		ns;
	struct opt	opts[MAX_OPTS];	/* options of the old tail we keep */
	int		nopts;
	char		clock[64];
	bool		tail_ok;
	uint8_t		*cbuf, *ubuf;	/* chunk buffers */
	ZSTD_DCtx	*dctx;
};



static int read_u32(struct rfile *f, uint64_t off, uint32_t *v)
{
	return fio_pread_all(f->fd, v, 4, off);
}

static int read_u64(struct rfile *f, uint64_t off, uint64_t *v)
{
	return fio_pread_all(f->fd, v, 8, off);
}

/* Initial header, formats.md A.2. */
static int parse_header(struct rfile *f)
{
	uint8_t h[128];
	size_t n1, n2;

	if (f->fsize < 32 ||
	    fio_pread_all(f->fd, h, f->fsize < sizeof(h) ? f->fsize : sizeof(h), 0)) {
		fprintf(stderr, "recover: %s: %llu bytes, no complete header: nothing to save\n",
			f->path, (unsigned long long)f->fsize);
		return -ENODATA;
	}
	if (memcmp(h, "\x17\x08\x44tracing", 10) || strcmp((char *)h + 10, "7")) {
		fprintf(stderr, "recover: %s: not a trace.dat version 7\n", f->path);
		return -EINVAL;
	}
	if (h[12] != 0) {
		fprintf(stderr, "recover: %s: big-endian files are not handled\n", f->path);
		return -EINVAL;
	}
	memcpy(&f->page, h + 14, 4);
	n1 = strnlen((char *)h + 18, 32) + 1;
	n2 = n1 <= 32 ? strnlen((char *)h + 18 + n1, 32) + 1 : 33;
	if (n1 > 32 || n2 > 32 || f->page < 256 || f->page > (1U << 20) ||
	    18 + n1 + n2 + 8 > f->fsize) {
		fprintf(stderr, "recover: %s: bad or cut initial header\n", f->path);
		return -EINVAL;
	}
	f->zstd = !strcmp((char *)h + 18, "zstd");
	if (!f->zstd && strcmp((char *)h + 18, "none")) {
		fprintf(stderr, "recover: %s: compression '%s' is not handled\n", f->path,
			(char *)h + 18);
		return -EINVAL;
	}
	f->optptr_at = 18 + n1 + n2;
	f->first_sec = f->optptr_at + 8;
	return 0;
}

/* Walks the sections from the start to the BUFFER section (A.3). */
static int walk_metadata(struct rfile *f)
{
	uint64_t off = f->first_sec;
	uint16_t id, flags;
	uint64_t size;

	for (int i = 0; i < 64 && off + 16 <= f->fsize; i++) {
		if (fio_pread_all(f->fd, &id, 2, off) || fio_pread_all(f->fd, &flags, 2, off + 2) ||
		    read_u64(f, off + 8, &size))
			return -EIO;
		if (id == V7_OPT_BUFFER) {
			f->buffer_off = off;
			f->buffer_zstd = flags & 1;
			f->buffer_end = size <= f->fsize - off - 16 ? off + 16 + size : f->fsize;
			return 0;
		}
		/* trace-cmd also puts OPTIONS (0) and STRINGS sections before the data */
		if ((id != V7_OPT_DONE && id != V7_SEC_STRINGS &&
		     (id < V7_SEC_HEADER_INFO || id > V7_SEC_CMDLINES)) ||
		    size > f->fsize - off - 16)
			break;
		if (id >= V7_SEC_HEADER_INFO)
			f->sec[id] = off;
		off += 16 + size;
	}
	fprintf(stderr, "recover: %s: no BUFFER section after the metadata (file cut before "
		"any data?)\n", f->path);
	return -EINVAL;
}

/* True when @p looks like one ftrace page (B.1): commit within the page. */
static bool page_plausible(const struct rfile *f, const uint8_t *p)
{
	uint64_t ts, commit;

	memcpy(&ts, p, 8);
	memcpy(&commit, p + 8, 8);
	commit &= (1ULL << 27) - 1;
	return ts && commit && commit <= f->page - 16;
}

/* Reads and checks the chunk at @off (ending by @limit); returns 8 + c, or 0. */
static uint64_t check_chunk(struct rfile *f, uint64_t off, uint64_t limit)
{
	uint32_t c, u;
	size_t got;

	if (off + 8 > limit || read_u32(f, off, &c) || read_u32(f, off + 4, &u))
		return 0;
	if (!c || !u || u % f->page || u > MAX_CHUNK || c > ZSTD_compressBound(u) ||
	    off + 8 + c > limit)
		return 0;
	if (fio_pread_all(f->fd, f->cbuf, c, off + 8))
		return 0;
	got = ZSTD_decompressDCtx(f->dctx, f->ubuf, MAX_CHUNK, f->cbuf, c);
	if (ZSTD_isError(got) || got != u || !page_plausible(f, f->ubuf))
		return 0;
	return 8 + (uint64_t)c;
}

/* Counts the chunks (or raw pages) that are whole and valid from @s->off. */
static void walk_stream(struct rfile *f, struct stream *s)
{
	uint64_t pos, len;

	s->chunks = 0;
	s->size = 0;
	if (!s->limit)
		s->limit = f->fsize;
	if (!f->buffer_zstd) {
		for (pos = s->off; pos + f->page <= s->limit; pos += f->page) {
			if (fio_pread_all(f->fd, f->ubuf, f->page, pos) || !page_plausible(f, f->ubuf))
				break;
			s->size += f->page;
		}
		s->stored = s->tail_size / f->page;
		s->chunks = s->size / f->page;
		return;
	}
	if (read_u32(f, s->off, &s->stored))
		return;
	for (pos = s->off + 4; (len = check_chunk(f, pos, s->limit)); pos += len) {
		s->chunks++;
		s->size += len;
	}
}

/* Parses one OPTIONS section and those chained after it (A.8). */
static int parse_options(struct rfile *f, uint64_t off, int depth)
{
	uint64_t size, end, next = 0;
	uint16_t id, flags;
	uint8_t *body;
	int ret = -EINVAL;

	if (depth > 16 || !off || off + 16 > f->fsize)
		return -EINVAL;
	if (fio_pread_all(f->fd, &id, 2, off) || fio_pread_all(f->fd, &flags, 2, off + 2) ||
	    read_u64(f, off + 8, &size) || id != 0 || flags || size > f->fsize - off - 16 ||
	    size > (16U << 20))
		return -EINVAL;
	body = malloc(size);
	if (!body || fio_pread_all(f->fd, body, size, off + 16)) {
		free(body);
		return -EIO;
	}
	for (uint64_t p = 0; p + 6 <= size; ) {
		uint16_t oid;
		uint32_t olen;

		memcpy(&oid, body + p, 2);
		memcpy(&olen, body + p + 2, 4);
		p += 6;
		if (olen > size - p)
			break;
		end = p + olen;
		if (oid == V7_OPT_DONE) {
			if (olen == 8)
				memcpy(&next, body + p, 8);
			ret = 0;
			break;
		}
		if (oid == V7_OPT_BUFFER && olen > 8) {
			/* u64 offset, name, clock, u32 page size, u32 K, K x (u32, u64, u64) */
			const char *name = (char *)body + p + 8;
			size_t nl = strnlen(name, olen - 8);
			const char *clk = name + nl + 1;
			uint64_t q = p + 8 + nl + 1;
			size_t cl = q < end ? strnlen(clk, end - q) : 0;
			uint32_t k;

			q += cl + 1;
			if (!nl && q + 8 <= end) {
				snprintf(f->clock, sizeof(f->clock), "%.*s", (int)cl, clk);
				memcpy(&k, body + q + 4, 4);
				q += 8;
				for (uint32_t i = 0; i < k && q + 20 <= end && f->ns < MAX_STREAMS;
				     i++, q += 20) {
					struct stream *s = &f->s[f->ns++];

					memset(s, 0, sizeof(*s));
					memcpy(&s->cpu, body + q, 4);
					memcpy(&s->off, body + q + 4, 8);
					memcpy(&s->tail_size, body + q + 12, 8);
				}
			}
		} else if ((oid < V7_SEC_HEADER_INFO || oid > V7_SEC_CMDLINES) &&
			   oid != V7_OPT_CPUCOUNT && f->nopts < MAX_OPTS) {
			struct opt *o = &f->opts[f->nopts++];

			o->id = oid;
			o->len = olen;
			o->data = malloc(olen ? olen : 1);
			if (o->data)
				memcpy(o->data, body + p, olen);
			else
				f->nopts--;
		}
		p = end;
	}
	free(body);
	if (!ret && next)
		ret = parse_options(f, next, depth + 1);
	return ret;
}

/* A stream ends before the next one starts, and inside the BUFFER section. */
static void set_limits(struct rfile *f)
{
	for (int i = 0; i < f->ns; i++) {
		f->s[i].limit = f->buffer_end > f->s[i].off ? f->buffer_end : f->fsize;
		for (int j = 0; j < f->ns; j++)
			if (f->s[j].off > f->s[i].off && f->s[j].off < f->s[i].limit)
				f->s[i].limit = f->s[j].off;
	}
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * No usable tail: find the streams by scanning the BUFFER section at SCAN_ALIGN steps
 * (the writer aligns every region to the page and file-system block), skipping holes.
 * The regions are equal in size, so CPU ids follow from the offsets' common divisor.
 */
static void scan_streams(struct rfile *f)
{
	uint64_t base = (f->buffer_off + 16 + SCAN_ALIGN - 1) & ~(SCAN_ALIGN - 1);
	uint64_t pos = base, region = 0;

	f->ns = 0;
	while (pos + 8 <= f->fsize && f->ns < MAX_STREAMS) {
		off_t data = lseek(f->fd, pos, SEEK_DATA);
		struct stream *s = &f->s[f->ns];

		if (data < 0)
			break;
		pos = ((uint64_t)data) & ~(SCAN_ALIGN - 1);
		memset(s, 0, sizeof(*s));
		s->off = pos;
		walk_stream(f, s);
		if (s->chunks) {
			f->ns++;
			pos += (f->buffer_zstd ? 4 : 0) + s->size;
			pos = (pos + SCAN_ALIGN - 1) & ~(SCAN_ALIGN - 1);
		} else {
			pos += SCAN_ALIGN;
		}
	}
	for (int i = 0; i < f->ns; i++)
		region = gcd64(region, f->s[i].off - base);
	for (int i = 0; i < f->ns; i++)
		f->s[i].cpu = region ? (uint32_t)((f->s[i].off - base) / region) : (uint32_t)i;
}



/* Appends a new OPTIONS section and points the file at it (see the top comment). */
static int write_tail(struct rfile *f)
{
	struct v7_buf opts = { 0 }, sec = { 0 };
	struct v7_cpu_extent *ext = calloc(f->ns ? f->ns : 1, sizeof(*ext));
	uint64_t tail = (f->fsize + 7) & ~7ULL, zero = 0, secsize;
	uint32_t ncpus = 0;
	int ret = ext ? 0 : -ENOMEM;

	for (int id = V7_SEC_HEADER_INFO; !ret && id <= V7_SEC_CMDLINES; id++)
		if (f->sec[id])
			ret = v7_put_option(&opts, id, &f->sec[id], 8);
	for (int i = 0; !ret && i < f->nopts; i++)
		ret = v7_put_option(&opts, f->opts[i].id, f->opts[i].data, f->opts[i].len);
	for (int i = 0; ext && i < f->ns; i++) {
		if (f->s[i].cpu + 1 > ncpus)
			ncpus = f->s[i].cpu + 1;
		ext[i].cpu = f->s[i].cpu;
		ext[i].off = f->s[i].off;
		ext[i].size = f->s[i].size;
	}
	ret = ret ?: v7_put_option(&opts, V7_OPT_CPUCOUNT, &ncpus, 4);
	/* the top instance's data */
	ret = ret ?: v7_put_buffer_option(&opts, f->buffer_off, "",
					  f->clock[0] ? f->clock : "local", f->page, ext,
					  (uint32_t)f->ns);
	ret = ret ?: v7_put_option(&opts, V7_OPT_DONE, &zero, 8);
	/* no description: the file's STRINGS table is left as it is */
	ret = ret ?: v7_put_section(&sec, NULL, V7_OPT_DONE, NULL, opts.p, opts.len, NULL,
				    NULL, 0);
	free(ext);
	v7_buf_free(&opts);
	if (ret) {
		v7_buf_free(&sec);
		return ret;
	}

	/* 1. the new tail, past everything; 2. counts; 3. BUFFER size; 4. the pointer. */
	ret = fio_pwrite_all(f->fd, sec.p, sec.len, tail);
	v7_buf_free(&sec);
	if (!ret && fdatasync(f->fd))
		ret = -errno;
	for (int i = 0; !ret && i < f->ns; i++)
		if (f->buffer_zstd && f->s[i].chunks != f->s[i].stored)
			ret = fio_pwrite_all(f->fd, &f->s[i].chunks, 4, f->s[i].off);
	secsize = tail - f->buffer_off - 16;
	if (!ret)
		ret = fio_pwrite_all(f->fd, &secsize, 8, f->buffer_off + 8);
	if (!ret && fdatasync(f->fd))
		ret = -errno;
	if (!ret)
		ret = fio_pwrite_all(f->fd, &tail, 8, f->optptr_at);
	if (!ret && fsync(f->fd))
		ret = -errno;
	return ret;
}

static int count_cb(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
{
	(*(uint64_t *)data)++;
	return 0;
}

/* Opens @path with libtracecmd, as report does; returns events read or -1. */
static long long read_events(const char *path)
{
	struct tracecmd_input *h;
	uint64_t n = 0;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h)
		return -1;
	tracecmd_iterate_events(h, NULL, 0, count_cb, &n);
	tracecmd_close(h);
	return (long long)n;
}

static void rfile_free(struct rfile *f)
{
	for (int i = 0; i < f->nopts; i++)
		free(f->opts[i].data);
	free(f->cbuf);
	free(f->ubuf);
	ZSTD_freeDCtx(f->dctx);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

int recover_file(const char *path, int dry_run)
{
	struct rfile *f = calloc(1, sizeof(*f));
	long long before, after;
	uint64_t optoff = 0;
	uint32_t extra = 0;
	struct stat st;
	int ret;

	if (!f)
		return -ENOMEM;
	f->path = path;
	f->fd = open(path, (dry_run ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	f->cbuf = malloc(ZSTD_compressBound(MAX_CHUNK));
	f->ubuf = malloc(MAX_CHUNK);
	f->dctx = ZSTD_createDCtx();
	if (f->fd < 0 || fstat(f->fd, &st)) {
		ret = -errno;
		fprintf(stderr, "recover: %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (!f->cbuf || !f->ubuf || !f->dctx) {
		ret = -ENOMEM;
		goto out;
	}
	f->fsize = st.st_size;
	before = read_events(path);
	ret = parse_header(f);
	if (!ret)
		ret = walk_metadata(f);
	if (ret && before >= 0) {
		printf("%s: valid, %lld events (a layout recover does not know: not searched "
		       "for unsynced chunks)\n", path, before);
		ret = 0;
	}
	if (ret)
		goto out;
	f->tail_ok = !read_u64(f, f->optptr_at, &optoff) && !parse_options(f, optoff, 0);
	if (f->tail_ok) {
		set_limits(f);
		for (int i = 0; i < f->ns; i++) {
			walk_stream(f, &f->s[i]);
			/* Fewer whole chunks than the tail claims: trust the scan below. */
			if (f->s[i].chunks < f->s[i].stored)
				f->tail_ok = false;
			extra += f->s[i].chunks - f->s[i].stored;
		}
	}
	if (!f->tail_ok || (!f->ns && before < 0)) {
		f->tail_ok = false;
		f->nopts = 0;
		scan_streams(f);
		if (!f->ns) {
			fprintf(stderr, "recover: %s: no complete chunk found: nothing to save\n",
				path);
			ret = before >= 0 ? 0 : -ENODATA;
			goto out;
		}
	}
	if (f->tail_ok && !extra && before >= 0) {
		printf("%s: valid, %lld events; nothing to do\n", path, before);
		ret = 0;
		goto out;
	}
	if (dry_run) {
		printf("%s: %s; %d CPU streams, %u chunks not counted yet: can be repaired\n",
		       path, f->tail_ok ? "readable" : "tail missing or torn", f->ns, extra);
		ret = 1;
		goto out;
	}
	ret = write_tail(f);
	if (ret) {
		fprintf(stderr, "recover: %s: writing the new tail: %s\n", path, strerror(-ret));
		goto out;
	}
	after = read_events(path);
	if (after < 0) {
		fprintf(stderr, "recover: %s: still unreadable after repair\n", path);
		ret = -EIO;
		goto out;
	}
	printf("%s: repaired (%s): %lld events (was %s%lld), %d CPU streams\n", path,
	       f->tail_ok ? "unsynced chunks counted in" : "tail rebuilt from the chunk streams",
	       after, before < 0 ? "unreadable, " : "", before < 0 ? 0LL : before, f->ns);
	ret = 1;
out:
	rfile_free(f);
	return ret;
}
