// SPDX-License-Identifier: GPL-2.0
/*
 * tests/lib/fxt_decode.c - strict FXT reader for tests (see fxt_decode.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fxt.h"
#include "fxt_decode.h"

struct dec {
	const unsigned char *buf;
	size_t		len;
	unsigned int	flags;
	char		*str[FXT_MAX_STRING_INDEX + 1];
	uint64_t	thr[FXT_MAX_THREAD_INDEX + 1][2];
	unsigned char	thr_set[FXT_MAX_THREAD_INDEX + 1];
	char		pool[65536];	/* inline strings of the current record */
	size_t		pool_used;
	uint64_t	last_ts;
	int		seen_event;
	char		*err;
	size_t		errlen;
	size_t		off;
};

static int fail(struct dec *d, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!d->err || !d->errlen)
		return -EINVAL;
	n = snprintf(d->err, d->errlen, "offset %zu: ", d->off);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < d->errlen)
		vsnprintf(d->err + n, d->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static uint64_t word(const struct dec *d, size_t widx)
{
	uint64_t w;

	memcpy(&w, d->buf + d->off + widx * 8, 8);
	return w;
}

/* Reads a stream of @len bytes at word @*pos of the record into the pool. */
static int stream(struct dec *d, unsigned int words, unsigned int *pos, unsigned int len,
		  const char **out)
{
	unsigned int n = fxt_stream_words(len);
	const unsigned char *p = d->buf + d->off + (size_t)*pos * 8;
	char *s;

	if (*pos + n > words)
		return fail(d, "string of %u bytes runs past the record", len);
	for (unsigned int i = len; i < n * 8; i++)
		if (p[i])
			return fail(d, "non-zero padding after a %u-byte string", len);
	if (d->pool_used + len + 1 > sizeof(d->pool))
		return fail(d, "too many inline strings in one record");
	s = d->pool + d->pool_used;
	memcpy(s, p, len);
	s[len] = 0;
	d->pool_used += len + 1;
	*pos += n;
	*out = s;
	return 0;
}

static int strref(struct dec *d, unsigned int words, unsigned int *pos, uint16_t ref,
		  const char **out)
{
	if (!ref) {
		*out = "";
		return 0;
	}
	if (fxt_strref_is_inline(ref))
		return stream(d, words, pos, ref & 0x7fff, out);
	if (!d->str[ref])
		return fail(d, "string index %u used before any string record defines it", ref);
	*out = d->str[ref];
	return 0;
}

static int threadref(struct dec *d, unsigned int words, unsigned int *pos, unsigned int ref,
		     uint64_t *pid, uint64_t *tid)
{
	if (!ref) {
		if (*pos + 2 > words)
			return fail(d, "inline thread past the record end");
		*pid = word(d, (*pos)++);
		*tid = word(d, (*pos)++);
		return 0;
	}
	if (!d->thr_set[ref])
		return fail(d, "thread index %u used before any thread record defines it", ref);
	*pid = d->thr[ref][0];
	*tid = d->thr[ref][1];
	return 0;
}

static int args(struct dec *d, struct fxt_dec_rec *r, unsigned int words, unsigned int *pos,
		unsigned int nargs)
{
	static const unsigned char value_words[11] = { 0, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0 };

	r->nargs = nargs;
	for (unsigned int i = 0; i < nargs; i++) {
		struct fxt_dec_arg *a = &r->args[i];
		unsigned int start = *pos, size, end;
		uint64_t h;
		int ret;

		if (*pos >= words)
			return fail(d, "argument %u past the record end", i);
		h = word(d, *pos);
		a->type = (unsigned int)fxt_get(h, 0, 4);
		size = (unsigned int)fxt_get(h, 4, 12);
		end = start + size;
		if (a->type > FXT_ARG_BLOB)
			return fail(d, "argument %u: unknown type %u", i, a->type);
		if (!size || end > words)
			return fail(d, "argument %u: size %u does not fit the record", i, size);
		switch (a->type) {
		case FXT_ARG_I32:
			a->u = (uint64_t)(int64_t)(int32_t)fxt_get(h, 32, 32);
			break;
		case FXT_ARG_U32:
		case FXT_ARG_BLOB:
			a->u = fxt_get(h, 32, 32);
			break;
		case FXT_ARG_BOOL:
			if (fxt_get(h, 33, 31))
				return fail(d, "argument %u: bool reserved bits set", i);
			a->u = fxt_get(h, 32, 1);
			break;
		case FXT_ARG_STRING:
			if (fxt_get(h, 48, 16))
				return fail(d, "argument %u: string reserved bits set", i);
			break;
		default:
			if (fxt_get(h, 32, 32))
				return fail(d, "argument %u: reserved bits [32..63] set", i);
		}
		(*pos)++;
		ret = strref(d, end, pos, (uint16_t)fxt_get(h, 16, 16), &a->name);
		if (ret)
			return ret;
		if (!a->name[0])
			return fail(d, "argument %u has no name", i);
		a->str = NULL;
		if (a->type == FXT_ARG_STRING) {
			ret = strref(d, end, pos, (uint16_t)fxt_get(h, 32, 16), &a->str);
			if (ret)
				return ret;
		} else if (a->type == FXT_ARG_BLOB) {
			*pos += fxt_stream_words((unsigned int)a->u);
		} else if (value_words[a->type]) {
			if (*pos >= end)
				return fail(d, "argument %u: value word missing", i);
			a->u = word(d, (*pos)++);
		}
		if (*pos != end)
			return fail(d, "argument %u '%s': size %u words, content %u", i, a->name,
				    size, *pos - start);
	}
	return 0;
}

/* The exporter's promises about argument types Perfetto checks (fxt-perfetto.md 1.4). */
static int perfetto_arg_types(struct dec *d, const struct fxt_dec_rec *r)
{
	for (unsigned int i = 0; i < r->nargs; i++) {
		const struct fxt_dec_arg *a = &r->args[i];

		if ((!strcmp(a->name, "incoming_weight") || !strcmp(a->name, "outgoing_weight") ||
		     !strcmp(a->name, "weight")) && a->type != FXT_ARG_I32)
			return fail(d, "'%s' must be int32 for Perfetto", a->name);
		if ((!strcmp(a->name, "waker") || !strcmp(a->name, "process")) &&
		    a->type != FXT_ARG_KOID)
			return fail(d, "'%s' must be a koid for Perfetto", a->name);
	}
	return 0;
}

static int check_ts(struct dec *d, uint64_t ts)
{
	if (!(d->flags & FXT_DEC_OURS))
		return 0;
	if (ts < d->last_ts)
		return fail(d, "timestamp %llu before the previous %llu",
			    (unsigned long long)ts, (unsigned long long)d->last_ts);
	d->last_ts = ts;
	d->seen_event = 1;
	return 0;
}

static int record(struct dec *d, struct fxt_dec_rec *r, uint64_t h, unsigned int words)
{
	unsigned int pos = 1, need;
	int ours = d->flags & FXT_DEC_OURS;
	int ret = 0;

	switch (r->type) {
	case FXT_REC_METADATA:
		r->subtype = (unsigned int)fxt_get(h, 16, 4);
		if (r->subtype == FXT_META_TRACE_INFO) {
			if (h != FXT_MAGIC)
				return fail(d, "trace info record that is not the magic");
		} else if (r->subtype == FXT_META_PROVIDER_INFO) {
			if (fxt_get(h, 60, 4))
				return fail(d, "provider info reserved bits set");
			r->koid = fxt_get(h, 20, 32);
			ret = stream(d, words, &pos, (unsigned int)fxt_get(h, 52, 8), &r->name);
		} else if (r->subtype == FXT_META_PROVIDER_SECTION) {
			if (fxt_get(h, 52, 12))
				return fail(d, "provider section reserved bits set");
			r->koid = fxt_get(h, 20, 32);
		} else if (r->subtype == FXT_META_PROVIDER_EVENT) {
			if (fxt_get(h, 56, 8))
				return fail(d, "provider event reserved bits set");
		} else {
			return fail(d, "unknown metadata type %u", r->subtype);
		}
		break;
	case FXT_REC_INIT:
		if (fxt_get(h, 16, 48))
			return fail(d, "initialization reserved bits set");
		if (words < 2)
			return fail(d, "initialization record without its tick rate");
		r->extra = word(d, pos++);
		if (!r->extra)
			return fail(d, "zero ticks per second");
		/* Other writers append words (the spec allows it): keep to the size. */
		if (!ours)
			pos = words;
		break;
	case FXT_REC_STRING: {
		unsigned int idx = (unsigned int)fxt_get(h, 16, 15);

		if (fxt_get(h, 31, 1) || fxt_get(h, 47, 17))
			return fail(d, "string record reserved bits set");
		if (!idx)
			return fail(d, "string record for index 0");
		ret = stream(d, words, &pos, (unsigned int)fxt_get(h, 32, 15), &r->name);
		if (ret)
			return ret;
		free(d->str[idx]);
		d->str[idx] = strdup(r->name);
		if (!d->str[idx])
			return -ENOMEM;
		r->koid = idx;
		break;
	}
	case FXT_REC_THREAD: {
		unsigned int idx = (unsigned int)fxt_get(h, 16, 8);

		if (fxt_get(h, 24, 40))
			return fail(d, "thread record reserved bits set");
		if (!idx)
			return fail(d, "thread record for index 0");
		if (words < 3)
			return fail(d, "thread record of %u words", words);
		d->thr[idx][0] = r->pid = word(d, pos++);
		d->thr[idx][1] = r->tid = word(d, pos++);
		d->thr_set[idx] = 1;
		r->koid = idx;
		break;
	}
	case FXT_REC_EVENT:
		r->subtype = (unsigned int)fxt_get(h, 16, 4);
		if (r->subtype > FXT_EV_MAX)
			return fail(d, "unknown event type %u", r->subtype);
		if (words < 2)
			return fail(d, "event record of %u words", words);
		r->ts = word(d, pos++);
		ret = threadref(d, words, &pos, (unsigned int)fxt_get(h, 24, 8), &r->pid, &r->tid);
		if (!ret)
			ret = strref(d, words, &pos, (uint16_t)fxt_get(h, 32, 16), &r->category);
		if (!ret)
			ret = strref(d, words, &pos, (uint16_t)fxt_get(h, 48, 16), &r->name);
		if (!ret)
			ret = args(d, r, words, &pos, (unsigned int)fxt_get(h, 20, 4));
		if (ret)
			return ret;
		if (r->subtype != FXT_EV_INSTANT && r->subtype != FXT_EV_DURATION_BEGIN &&
		    r->subtype != FXT_EV_DURATION_END) {
			if (pos >= words)
				return fail(d, "event type %u without its extra word", r->subtype);
			r->extra = word(d, pos++);
		}
		ret = check_ts(d, r->ts);
		break;
	case FXT_REC_KERNEL_OBJ:
		if (fxt_get(h, 44, 20))
			return fail(d, "kernel object reserved bits set");
		r->subtype = (unsigned int)fxt_get(h, 16, 8);
		if (words < 2)
			return fail(d, "kernel object record of %u words", words);
		r->koid = word(d, pos++);
		ret = strref(d, words, &pos, (uint16_t)fxt_get(h, 24, 16), &r->name);
		if (!ret)
			ret = args(d, r, words, &pos, (unsigned int)fxt_get(h, 40, 4));
		if (!ret && ours && d->seen_event)
			ret = fail(d, "kernel object after the first event: Perfetto applies it "
				   "too late for sorted records");
		if (!ret && ours)
			ret = perfetto_arg_types(d, r);
		break;
	case FXT_REC_SCHED:
		r->subtype = (unsigned int)fxt_get(h, 60, 4);
		if (r->subtype == FXT_SCHED_SWITCH) {
			if (fxt_get(h, 40, 20))
				return fail(d, "context switch reserved bits set");
			need = 4;
		} else if (r->subtype == FXT_SCHED_WAKEUP) {
			if (fxt_get(h, 36, 24))
				return fail(d, "wakeup reserved bits set");
			need = 3;
		} else if (r->subtype == FXT_SCHED_LEGACY_SWITCH && !ours) {
			pos = words;	/* sized; Perfetto reads it, we do not */
			break;
		} else {
			return fail(d, "scheduling record subtype %u", r->subtype);
		}
		if (words < need)
			return fail(d, "scheduling record of %u words", words);
		r->cpu = (unsigned int)fxt_get(h, 20, 16);
		r->ts = word(d, pos++);
		if (r->subtype == FXT_SCHED_SWITCH) {
			r->state = (unsigned int)fxt_get(h, 36, 4);
			if (r->state > FXT_TS_DEAD)
				return fail(d, "thread state %u", r->state);
			r->out_tid = word(d, pos++);
			r->in_tid = word(d, pos++);
		} else {
			r->tid = word(d, pos++);
		}
		ret = args(d, r, words, &pos, (unsigned int)fxt_get(h, 16, 4));
		if (!ret && ours)
			ret = perfetto_arg_types(d, r);
		if (!ret)
			ret = check_ts(d, r->ts);
		break;
	case FXT_REC_LARGE:
		return fail(d, "large record (type 15): Perfetto cannot split it");
	case FXT_REC_LOG:
		if (ours)
			return fail(d, "log record: Perfetto ignores it");
		pos = words;
		break;
	default:
		/* blob, user object, profiler: sized, skipped */
		if (ours)
			return fail(d, "record type %u is not written by the exporter", r->type);
		pos = words;
	}
	if (ret)
		return ret;
	if (pos != words)
		return fail(d, "record type %u has %u words, content %u", r->type, words, pos);
	return 0;
}

/**
 * fxt_decode() - walk and check every record of an FXT archive.
 * @buf: the archive
 * @len: its size in bytes
 * @flags: FXT_DEC_OURS for files our exporter wrote
 * @cb: called for each record (may be NULL)
 * @ctx: passed to @cb
 * @sum: counts (may be NULL)
 * @err: message of the first problem (may be NULL)
 * @errlen: size of @err
 *
 * Return: 0, a negative errno for a malformed archive, or the callback's non-zero value.
 */
int fxt_decode(const void *buf, size_t len, unsigned int flags, fxt_dec_cb cb, void *ctx,
	       struct fxt_dec_summary *sum, char *err, size_t errlen)
{
	struct dec *d = calloc(1, sizeof(*d));
	struct fxt_dec_summary local;
	int ret = 0;

	if (!d)
		return -ENOMEM;
	if (!sum)
		sum = &local;
	memset(sum, 0, sizeof(*sum));
	d->buf = buf;
	d->len = len;
	d->flags = flags;
	d->err = err;
	d->errlen = errlen;
	if (err && errlen)
		err[0] = 0;
	if (len < 8 || memcmp(buf, "\x10\x00\x04\x46\x78\x54\x16\x00", 8))
		ret = fail(d, "no FXT magic record at offset 0");
	else if (len % 8)
		ret = fail(d, "file size %zu is not a multiple of 8", len);
	while (!ret && d->off < len) {
		struct fxt_dec_rec r;
		uint64_t h = word(d, 0);
		unsigned int words = fxt_hdr_words(h);

		memset(&r, 0, sizeof(r));
		r.offset = d->off;
		r.words = words;
		r.type = fxt_hdr_type(h);
		r.category = r.name = "";
		d->pool_used = 0;
		if (r.type == FXT_REC_LARGE) {
			ret = fail(d, "large record (type 15): Perfetto cannot split it");
			break;
		}
		if (!words) {
			ret = fail(d, "record of size 0 (Perfetto aborts the import)");
			break;
		}
		if (words > (len - d->off) / 8) {
			ret = fail(d, "record of %u words runs past the end of the file", words);
			break;
		}
		ret = record(d, &r, h, words);
		if (ret)
			break;
		sum->records++;
		sum->by_type[r.type]++;
		if (r.type == FXT_REC_EVENT)
			sum->events[r.subtype]++;
		else if (r.type == FXT_REC_SCHED)
			sum->sched[r.subtype]++;
		else if (r.type == FXT_REC_KERNEL_OBJ && r.subtype == FXT_OBJ_PROCESS)
			sum->kobj_process++;
		else if (r.type == FXT_REC_KERNEL_OBJ && r.subtype == FXT_OBJ_THREAD)
			sum->kobj_thread++;
		else if (r.type == FXT_REC_INIT)
			sum->ticks_per_second = r.extra;
		if (cb)
			ret = cb(&r, ctx);
		d->off += (size_t)words * 8;
	}
	for (unsigned int i = 0; i <= FXT_MAX_STRING_INDEX; i++)
		free(d->str[i]);
	free(d);
	return ret;
}

int fxt_decode_file(const char *path, unsigned int flags, fxt_dec_cb cb, void *ctx,
		    struct fxt_dec_summary *sum, char *err, size_t errlen)
{
	struct stat sb;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0 || fstat(fd, &sb)) {
		ret = -errno;
		if (err)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (!sb.st_size) {
		close(fd);
		return fxt_decode("", 0, flags, cb, ctx, sum, err, errlen);
	}
	map = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		if (err)
			snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
		return -errno;
	}
	ret = fxt_decode(map, sb.st_size, flags, cb, ctx, sum, err, errlen);
	munmap(map, sb.st_size);
	return ret;
}

const struct fxt_dec_arg *fxt_dec_arg(const struct fxt_dec_rec *r, const char *name)
{
	for (unsigned int i = 0; i < r->nargs; i++)
		if (!strcmp(r->args[i].name, name))
			return &r->args[i];
	return NULL;
}
