// SPDX-License-Identifier: GPL-2.0
/*
 * Codec table: "zstd" (libzstd, one frame per block) and "none" (a copy).
 *
 * zstd frames are written without the content size, as trace-cmd does
 * (ZSTD_c_contentSizeFlag = 0): the v7 block header already carries the
 * uncompressed size, and the reader decompresses with ZSTD_decompressDCtx into a
 * buffer of that size (formats.md A.2).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "compress.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Level 1, not libzstd's default 3: on ftrace pages in 32-page chunks it is both
 * faster and no larger (writer_bench on host pages: 859 vs 692 MB per CPU-second,
 * ratio 9.98 vs 9.55; in the guest recorder benchmark 17% less recording CPU). The
 * negative "fast" levels gain 14-30% speed for 8-42% bigger files.
 */
#define ZSTD_LEVEL_DEFAULT	1

struct codec {
	const char	*name;
	const char	*(*version)(void);
	size_t		(*bound)(size_t len);
	void		*(*ctx_new)(int level);
	void		(*ctx_free)(void *priv);
	ssize_t		(*compress)(void *priv, const void *in, size_t in_len,
				    void *out, size_t out_cap);
	ssize_t		(*store)(const void *in, size_t in_len, void *out, size_t out_cap);
};

struct codec_ctx {
	const struct codec	*codec;
	void			*priv;
};

/* zstd */

static const char *zstd_version(void)
{
	return ZSTD_versionString();
}

static size_t zstd_bound(size_t len)
{
	return ZSTD_compressBound(len);
}

static void *zstd_ctx_new(int level)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();

	if (!cctx) {
		errno = ENOMEM;
		return NULL;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel,
						level ? level : ZSTD_LEVEL_DEFAULT)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0))) {
		ZSTD_freeCCtx(cctx);
		errno = EINVAL;
		return NULL;
	}
	return cctx;
}

static void zstd_ctx_free(void *priv)
{
	ZSTD_freeCCtx(priv);
}

static ssize_t zstd_compress(void *priv, const void *in, size_t in_len, void *out,
			     size_t out_cap)
{
	size_t ret = ZSTD_compress2(priv, out, out_cap, in, in_len);

	if (ZSTD_isError(ret))
		return ZSTD_getErrorCode(ret) == ZSTD_error_dstSize_tooSmall ? -ENOBUFS : -EIO;
	return (ssize_t)ret;
}

/*
 * A zstd frame of raw blocks: the bytes as they are, framed (RFC 8878 3.1.1). libzstd
 * has no level that does not look for matches; this costs a copy. Header: the magic
 * number, a descriptor with Single_Segment_flag set and a 4-byte Frame_Content_Size
 * (so no Window_Descriptor: the window is the content), then blocks of at most
 * ZSTD_BLOCKSIZE_MAX (128 KiB) with a 3-byte header each: Last_Block (bit 0),
 * Block_Type 0 = Raw_Block (bits 1-2), Block_Size (bits 3-23).
 */
#define ZSTD_FHD_FCS4_SINGLE	0xa0	/* Frame_Content_Size_flag 2, Single_Segment */

static void put_le(unsigned char *p, unsigned long long v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static ssize_t zstd_store(const void *in, size_t in_len, void *out, size_t out_cap)
{
	size_t nblk = in_len ? (in_len + ZSTD_BLOCKSIZE_MAX - 1) / ZSTD_BLOCKSIZE_MAX : 1;
	size_t need = 4 + 1 + 4 + 3 * nblk + in_len, off = 0;
	unsigned char *o = out;
	const char *i = in;

	if (in_len > 0xffffffffULL)
		return -EINVAL;
	if (need > out_cap)
		return -ENOBUFS;
	put_le(o, ZSTD_MAGICNUMBER, 4);
	o[4] = ZSTD_FHD_FCS4_SINGLE;
	put_le(o + 5, in_len, 4);
	o += 9;
	do {
		size_t n = in_len - off < ZSTD_BLOCKSIZE_MAX ? in_len - off : ZSTD_BLOCKSIZE_MAX;
		bool last = off + n == in_len;

		put_le(o, (unsigned long long)n << 3 | last, 3);
		memcpy(o + 3, i + off, n);
		o += 3 + n;
		off += n;
	} while (off < in_len);
	return (ssize_t)need;
}

/* none: used only for the table's sake; the writer stores raw data unframed */

static const char *none_version(void)
{
	return "";
}

static size_t none_bound(size_t len)
{
	return len;
}

static void *none_ctx_new(int level)
{
	static char none_ctx;

	return &none_ctx;
}

static void none_ctx_free(void *priv)
{
}

static ssize_t none_compress(void *priv, const void *in, size_t in_len, void *out,
			     size_t out_cap)
{
	if (in_len > out_cap)
		return -ENOBUFS;
	memcpy(out, in, in_len);
	return (ssize_t)in_len;
}

static ssize_t none_store(const void *in, size_t in_len, void *out, size_t out_cap)
{
	return none_compress(NULL, in, in_len, out, out_cap);
}

static const struct codec codecs[] = {
	{ "zstd", zstd_version, zstd_bound, zstd_ctx_new, zstd_ctx_free, zstd_compress,
	  zstd_store },
	{ "none", none_version, none_bound, none_ctx_new, none_ctx_free, none_compress,
	  none_store },
};

/**
 * codec_find() - look a codec up by its file-header name
 * @name: "zstd" or "none"
 *
 * Return: the codec, or NULL with errno = ENOENT.
 */
const struct codec *codec_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(codecs); i++)
		if (name && !strcmp(codecs[i].name, name))
			return &codecs[i];
	errno = ENOENT;
	return NULL;
}

/**
 * codec_name() - name written to the trace.dat compression header
 * @c: codec
 *
 * Return: a static string.
 */
const char *codec_name(const struct codec *c)
{
	return c->name;
}

/**
 * codec_version() - version written after the name in the compression header
 * @c: codec
 *
 * Return: a static string; "" for none.
 */
const char *codec_version(const struct codec *c)
{
	return c->version();
}

/**
 * codec_bound() - worst-case output size
 * @c: codec
 * @len: input bytes
 *
 * Return: bytes codec_compress() may need for @len input bytes.
 */
size_t codec_bound(const struct codec *c, size_t len)
{
	return c->bound(len);
}

/**
 * codec_ctx_new() - allocate a compression context
 * @c: codec
 * @level: compression level, 0 = the codec's default
 *
 * Context: not thread-safe; one context per thread.
 * Return: the context, or NULL with errno set.
 */
struct codec_ctx *codec_ctx_new(const struct codec *c, int level)
{
	struct codec_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->codec = c;
	ctx->priv = c->ctx_new(level);
	if (!ctx->priv) {
		free(ctx);
		return NULL;
	}
	return ctx;
}

/**
 * codec_ctx_free() - free a context
 * @ctx: context or NULL
 */
void codec_ctx_free(struct codec_ctx *ctx)
{
	if (!ctx)
		return;
	ctx->codec->ctx_free(ctx->priv);
	free(ctx);
}

/**
 * codec_compress() - compress one block into one frame
 * @ctx: context
 * @in: input bytes
 * @in_len: input length
 * @out: output buffer
 * @out_cap: its size; codec_bound(@in_len) always suffices
 *
 * Return: the frame length, or -ENOBUFS / -EIO.
 */
ssize_t codec_compress(struct codec_ctx *ctx, const void *in, size_t in_len,
		       void *out, size_t out_cap)
{
	return ctx->codec->compress(ctx->priv, in, in_len, out, out_cap);
}

/**
 * codec_store() - frame one block without compressing it
 * @c: codec
 * @in: input bytes
 * @in_len: input length
 * @out: output buffer
 * @out_cap: its size; codec_bound(@in_len) always suffices
 *
 * Return: the frame length, or -ENOBUFS.
 */
ssize_t codec_store(const struct codec *c, const void *in, size_t in_len, void *out,
		    size_t out_cap)
{
	return c->store(in, in_len, out, out_cap);
}

static unsigned long long get_le(const unsigned char *p, int n)
{
	unsigned long long v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/**
 * codec_frame_stored() - whether a zstd frame is one codec_store() wrote
 * @frame: the frame
 * @len: its length
 * @ulen: the length of its content
 *
 * The header codec_store() writes (single segment, a 4-byte content size of @ulen:
 * codec_compress() never writes a content size) and raw blocks only, ending at @len.
 * So a chunk zstd itself could not shrink (raw blocks, no content size) is not one.
 *
 * Return: true for a stored frame.
 */
bool codec_frame_stored(const void *frame, size_t len, size_t ulen)
{
	const unsigned char *p = frame;
	size_t off = 9, total = 0;

	if (len < 9 || get_le(p, 4) != ZSTD_MAGICNUMBER || p[4] != ZSTD_FHD_FCS4_SINGLE ||
	    get_le(p + 5, 4) != ulen)
		return false;
	while (len - off >= 3) {
		unsigned long long h = get_le(p + off, 3);
		size_t n = (size_t)(h >> 3);

		/* Block_Type (bits 1-2) 0: Raw_Block, RFC 8878 3.1.1.2 */
		if ((h >> 1 & 3) || n > len - off - 3)
			return false;
		off += 3 + n;
		total += n;
		if (h & 1)
			return off == len && total == ulen;
	}
	return false;
}

/*
 * Decompression, for the readers of files (v7_decode.c): zstd only, as every
 * compressed v7 block of ours and of trace-cmd's is one zstd frame.
 */
struct codec_dctx {
	ZSTD_DCtx	*z;
};

struct codec_dctx *codec_dctx_new(void)
{
	struct codec_dctx *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->z = ZSTD_createDCtx();
	if (!d->z) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void codec_dctx_free(struct codec_dctx *d)
{
	if (!d)
		return;
	ZSTD_freeDCtx(d->z);
	free(d);
}

ssize_t codec_decompress(struct codec_dctx *d, const void *in, size_t in_len, void *out,
			 size_t out_cap)
{
	size_t r = ZSTD_decompressDCtx(d->z, out, out_cap, in, in_len);

	if (ZSTD_isError(r))
		return ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ? -ENOBUFS : -EBADMSG;
	return (ssize_t)r;
}
