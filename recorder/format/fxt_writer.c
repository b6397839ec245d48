// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/format/fxt_writer.c - buffered FXT output, string/thread tables with index reuse.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fxt.h"
#include "fxt_writer.h"

#define OUT_BUF_SIZE	(256 * 1024)
#define STR_BUCKETS	65536	/* power of two, >= 2 * FXT_MAX_STRING_INDEX */
#define THR_BUCKETS	512	/* power of two, >= 2 * FXT_MAX_THREAD_INDEX */

struct str_ent {
	char		*s;		/* NULL: slot free */
	uint32_t	len;
	uint32_t	hash;
	int32_t		next;		/* chain in the bucket, 0 = end */
	uint32_t	gen;		/* record that last used it: pinned while building it */
	uint8_t		ref;		/* second-chance bit */
};

struct thr_ent {
	uint64_t	pid, tid;
	int32_t		next;
	uint32_t	gen;
	uint8_t		used, ref;
};

struct fxtw {
	int		fd;
	int		err;		/* first error, negative errno */
	uint64_t	bytes;
	size_t		fill;
	unsigned char	*buf;

	unsigned int	max_str, max_thr;
	uint32_t	gen;
	struct str_ent	*str;		/* [0..FXT_MAX_STRING_INDEX], index 0 unused */
	int32_t		*str_head;
	unsigned int	str_used, str_hand;
	struct thr_ent	thr[FXT_MAX_THREAD_INDEX + 1];
	int32_t		thr_head[THR_BUCKETS];
	unsigned int	thr_used, thr_hand;

	/* Argument list of the record being built. */
	uint64_t	args[FXT_MAX_RECORD_WORDS];
	unsigned int	nargw, nargs;
	uint64_t	rec[FXT_MAX_RECORD_WORDS];
};

static uint32_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *c = p;
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (len--) {
		h ^= *c++;
		h *= 16777619u;
	}
	return h;
}

static void out_flush(struct fxtw *w)
{
	size_t off = 0;

	while (off < w->fill && !w->err) {
		ssize_t n = write(w->fd, w->buf + off, w->fill - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			w->err = n < 0 ? -errno : -EIO;
		else
			off += n;
	}
	w->fill = 0;
}

void fxtw_raw(struct fxtw *w, const void *p, size_t len)
{
	const unsigned char *c = p;

	if (w->err)
		return;
	w->bytes += len;
	while (len) {
		size_t n = OUT_BUF_SIZE - w->fill;

		if (n > len)
			n = len;
		memcpy(w->buf + w->fill, c, n);
		w->fill += n;
		c += n;
		len -= n;
		if (w->fill == OUT_BUF_SIZE)
			out_flush(w);
	}
}

static void put_words(struct fxtw *w, const uint64_t *words, unsigned int n)
{
	fxtw_raw(w, words, (size_t)n * 8);
}

/* Append @len bytes padded with zeros to 8 bytes at @dst; returns the words used. */
static unsigned int put_stream(uint64_t *dst, const char *s, size_t len)
{
	unsigned int words = fxt_stream_words(len);

	if (words)
		dst[words - 1] = 0;
	memcpy(dst, s, len);
	return words;
}

struct fxtw *fxtw_new(int fd)
{
	struct fxtw *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = fd;
	w->buf = malloc(OUT_BUF_SIZE);
	w->str = calloc(FXT_MAX_STRING_INDEX + 1, sizeof(*w->str));
	w->str_head = calloc(STR_BUCKETS, sizeof(*w->str_head));
	if (!w->buf || !w->str || !w->str_head) {
		fxtw_free(w);
		return NULL;
	}
	w->max_str = FXT_MAX_STRING_INDEX;
	w->max_thr = FXT_MAX_THREAD_INDEX;
	w->gen = 1;
	return w;
}

/* Strings one record may use: arguments, category, name; all pinned while it is built. */
#define MIN_STRINGS	(FXT_MAX_ARGS + 2 + 15)

/**
 * fxtw_set_table_limits() - shrink the tables (tests use it to exercise index reuse).
 * @w: writer, before its first string or thread
 * @max_strings: MIN_STRINGS..32767 (fewer could leave no slot to replace)
 * @max_threads: 0 (threads always inline) ..255
 */
void fxtw_set_table_limits(struct fxtw *w, unsigned int max_strings, unsigned int max_threads)
{
	if (max_strings >= MIN_STRINGS && max_strings <= FXT_MAX_STRING_INDEX)
		w->max_str = max_strings;
	if (max_threads <= FXT_MAX_THREAD_INDEX)
		w->max_thr = max_threads;
}

uint64_t fxtw_bytes(const struct fxtw *w)
{
	return w->bytes;
}

int fxtw_error(const struct fxtw *w)
{
	return w->err;
}

/**
 * fxtw_finish() - flush buffered records.
 * @w: writer
 *
 * Return: 0, or the first error met while writing (negative errno).
 */
int fxtw_finish(struct fxtw *w)
{
	out_flush(w);
	return w->err;
}

void fxtw_free(struct fxtw *w)
{
	if (!w)
		return;
	if (w->str)
		for (unsigned int i = 0; i <= FXT_MAX_STRING_INDEX; i++)
			free(w->str[i].s);
	free(w->str);
	free(w->str_head);
	free(w->buf);
	free(w);
}

void fxtw_magic(struct fxtw *w)
{
	uint64_t m = FXT_MAGIC;

	put_words(w, &m, 1);
}

void fxtw_provider_info(struct fxtw *w, uint32_t id, const char *name)
{
	size_t len = strlen(name);
	uint64_t rec[1 + 32];

	if (len > 255)
		len = 255;
	rec[0] = fxt_provider_info_hdr(id, len);
	put_words(w, rec, 1 + put_stream(rec + 1, name, len));
}

void fxtw_init(struct fxtw *w, uint64_t ticks_per_second)
{
	uint64_t rec[2] = { fxt_init_hdr(), ticks_per_second };

	put_words(w, rec, 2);
}

static void str_unlink(struct fxtw *w, unsigned int idx)
{
	int32_t *p = &w->str_head[w->str[idx].hash & (STR_BUCKETS - 1)];

	while (*p && *p != (int32_t)idx)
		p = &w->str[*p].next;
	if (*p)
		*p = w->str[idx].next;
}

/* A free index, or the least recently used one that the current record does not use. */
static unsigned int str_slot(struct fxtw *w)
{
	if (w->str_used < w->max_str)
		return ++w->str_used;
	for (;;) {
		struct str_ent *e;

		w->str_hand = w->str_hand % w->max_str + 1;
		e = &w->str[w->str_hand];
		if (e->gen == w->gen)
			continue;
		if (e->ref) {
			e->ref = 0;
			continue;
		}
		str_unlink(w, w->str_hand);
		free(e->s);
		e->s = NULL;
		return w->str_hand;
	}
}

/**
 * fxtw_string() - string ref for @s, registering it in the string table when new.
 * @w: writer
 * @s: UTF-8 bytes (not necessarily terminated)
 * @len: length; strings longer than FXT_MAX_STRING_LEN are cut
 *
 * Return: 0 for the empty string, else an index ref valid for the record being built.
 */
uint16_t fxtw_string(struct fxtw *w, const char *s, size_t len)
{
	uint32_t h;
	int32_t i;
	unsigned int idx;
	struct str_ent *e;

	if (!len)
		return 0;
	if (len > FXT_MAX_STRING_LEN)
		len = FXT_MAX_STRING_LEN;
	h = hash_bytes(s, len);
	for (i = w->str_head[h & (STR_BUCKETS - 1)]; i; i = w->str[i].next) {
		e = &w->str[i];
		if (e->hash == h && e->len == len && !memcmp(e->s, s, len)) {
			e->gen = w->gen;
			e->ref = 1;
			return (uint16_t)i;
		}
	}
	idx = str_slot(w);
	e = &w->str[idx];
	e->s = malloc(len);
	if (!e->s) {
		w->err = w->err ? w->err : -ENOMEM;
		return 0;
	}
	memcpy(e->s, s, len);
	e->len = len;
	e->hash = h;
	e->gen = w->gen;
	e->ref = 0;
	e->next = w->str_head[h & (STR_BUCKETS - 1)];
	w->str_head[h & (STR_BUCKETS - 1)] = idx;

	w->rec[0] = fxt_string_hdr(idx, len);
	put_words(w, w->rec, 1 + put_stream(w->rec + 1, s, len));
	return (uint16_t)idx;
}

uint16_t fxtw_cstring(struct fxtw *w, const char *s)
{
	return fxtw_string(w, s, strlen(s));
}

/* Thread ref for (pid, tid); 0 (inline) when the thread table is disabled. */
static unsigned int thread_ref(struct fxtw *w, uint64_t pid, uint64_t tid)
{
	uint32_t b = hash_bytes(&tid, sizeof(tid)) & (THR_BUCKETS - 1);
	unsigned int idx;
	struct thr_ent *e;
	int32_t i, *p;
	uint64_t rec[3];

	if (!w->max_thr)
		return 0;
	for (i = w->thr_head[b]; i; i = w->thr[i].next) {
		e = &w->thr[i];
		if (e->tid == tid && e->pid == pid) {
			e->gen = w->gen;
			e->ref = 1;
			return i;
		}
	}
	if (w->thr_used < w->max_thr) {
		idx = ++w->thr_used;
	} else {
		for (;;) {
			w->thr_hand = w->thr_hand % w->max_thr + 1;
			e = &w->thr[w->thr_hand];
			if (e->gen == w->gen)
				continue;
			if (e->ref) {
				e->ref = 0;
				continue;
			}
			break;
		}
		idx = w->thr_hand;
		p = &w->thr_head[hash_bytes(&e->tid, sizeof(e->tid)) & (THR_BUCKETS - 1)];
		while (*p != (int32_t)idx)
			p = &w->thr[*p].next;
		*p = e->next;
	}
	e = &w->thr[idx];
	e->pid = pid;
	e->tid = tid;
	e->gen = w->gen;
	e->ref = 0;
	e->used = 1;
	e->next = w->thr_head[b];
	w->thr_head[b] = idx;

	rec[0] = fxt_thread_hdr(idx);
	rec[1] = pid;
	rec[2] = tid;
	put_words(w, rec, 3);
	return idx;
}

/**
 * fxtw_args() - start a new record: empty argument list, new table generation.
 * @w: writer
 *
 * Table entries used from here until the record is written are never replaced.
 */
void fxtw_args(struct fxtw *w)
{
	w->nargw = 0;
	w->nargs = 0;
	w->gen++;
	if (!w->gen)
		w->gen = 1;
}

/* Room for an argument of @words words; also leaves room for the largest record head. */
static int arg_room(struct fxtw *w, unsigned int words)
{
	if (w->nargs >= FXT_MAX_ARGS || w->nargw + words > FXT_MAX_RECORD_WORDS - 8) {
		w->err = w->err ? w->err : -E2BIG;
		return 0;
	}
	return 1;
}

static void arg_word(struct fxtw *w, unsigned int type, const char *name, uint32_t v32,
		     int has_value, uint64_t value)
{
	uint16_t n = fxtw_cstring(w, name);
	unsigned int words = 1 + !!has_value;

	if (!arg_room(w, words))
		return;
	w->args[w->nargw++] = fxt_arg_hdr(type, words, n, v32);
	if (has_value)
		w->args[w->nargw++] = value;
	w->nargs++;
}

void fxtw_arg_i32(struct fxtw *w, const char *name, int32_t v)
{
	arg_word(w, FXT_ARG_I32, name, (uint32_t)v, 0, 0);
}

void fxtw_arg_u32(struct fxtw *w, const char *name, uint32_t v)
{
	arg_word(w, FXT_ARG_U32, name, v, 0, 0);
}

void fxtw_arg_i64(struct fxtw *w, const char *name, int64_t v)
{
	arg_word(w, FXT_ARG_I64, name, 0, 1, (uint64_t)v);
}

void fxtw_arg_u64(struct fxtw *w, const char *name, uint64_t v)
{
	arg_word(w, FXT_ARG_U64, name, 0, 1, v);
}

void fxtw_arg_koid(struct fxtw *w, const char *name, uint64_t koid)
{
	arg_word(w, FXT_ARG_KOID, name, 0, 1, koid);
}

void fxtw_arg_bool(struct fxtw *w, const char *name, int v)
{
	arg_word(w, FXT_ARG_BOOL, name, !!v, 0, 0);
}

void fxtw_arg_str(struct fxtw *w, const char *name, const char *s, size_t len)
{
	uint16_t n = fxtw_cstring(w, name);
	unsigned int words;

	if (len > FXT_MAX_STRING_LEN)
		len = FXT_MAX_STRING_LEN;
	words = 1 + fxt_stream_words(len);
	if (!arg_room(w, words))
		return;
	/* An empty value is the empty string ref (0), with no stream. */
	w->args[w->nargw] = fxt_arg_hdr(FXT_ARG_STRING, words, n,
					len ? fxt_strref_inline(len) : 0);
	put_stream(w->args + w->nargw + 1, s, len);
	w->nargw += words;
	w->nargs++;
}

/* Writes w->rec[0..n) followed by the argument list, with the header's size patched. */
static void put_record(struct fxtw *w, unsigned int n, int has_extra, uint64_t extra)
{
	unsigned int words = n + w->nargw + !!has_extra;

	if (words > FXT_MAX_RECORD_WORDS) {
		w->err = w->err ? w->err : -E2BIG;
		return;
	}
	w->rec[0] |= fxt_field(words, 4, 12);
	memcpy(w->rec + n, w->args, (size_t)w->nargw * 8);
	if (has_extra)
		w->rec[n + w->nargw] = extra;
	put_words(w, w->rec, words);
}

void fxtw_event(struct fxtw *w, unsigned int evtype, uint64_t ts, uint64_t pid, uint64_t tid,
		const char *category, const char *name, int has_extra, uint64_t extra)
{
	uint16_t cat = fxtw_cstring(w, category);
	uint16_t nm = fxtw_cstring(w, name);
	unsigned int tref = thread_ref(w, pid, tid);
	unsigned int n = 0;

	w->rec[n++] = fxt_event_hdr(0, evtype, w->nargs, tref, cat, nm);
	w->rec[n++] = ts;
	if (!tref) {
		w->rec[n++] = pid;
		w->rec[n++] = tid;
	}
	put_record(w, n, has_extra, extra);
}

void fxtw_cswitch(struct fxtw *w, uint64_t ts, unsigned int cpu, unsigned int out_state,
		  uint64_t out_tid, uint64_t in_tid)
{
	w->rec[0] = fxt_cswitch_hdr(0, w->nargs, cpu, out_state);
	w->rec[1] = ts;
	w->rec[2] = out_tid;
	w->rec[3] = in_tid;
	put_record(w, 4, 0, 0);
}

void fxtw_wakeup(struct fxtw *w, uint64_t ts, unsigned int cpu, uint64_t tid)
{
	w->rec[0] = fxt_wakeup_hdr(0, w->nargs, cpu);
	w->rec[1] = ts;
	w->rec[2] = tid;
	put_record(w, 3, 0, 0);
}

void fxtw_kobj(struct fxtw *w, unsigned int objtype, uint64_t koid, const char *name)
{
	size_t len = strnlen(name, 1024);
	unsigned int n = 0;

	w->rec[n++] = fxt_kobj_hdr(0, objtype, len ? fxt_strref_inline(len) : 0, w->nargs);
	w->rec[n++] = koid;
	n += put_stream(w->rec + n, name, len);
	put_record(w, n, 0, 0);
}
