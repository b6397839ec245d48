/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block codecs for trace.dat v7: a small table of {bound, compress one block,
 * context new/free}, like trace-cmd's trace-compress-zstd.c. The v7 writer frames
 * the blocks (formats.md A.5); this file only turns bytes into one compressed frame.
 * The only place in the recorder that calls libzstd (its decompression too).
 */
#ifndef REC_COMPRESS_H
#define REC_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct codec;

/*
 * Looks a codec up by the name written in the file header: "zstd" or "none".
 * Returns NULL (errno = ENOENT) for an unknown name.
 */
const struct codec *codec_find(const char *name);

/* Name and version as written to the trace.dat compression header ("" for none). */
const char *codec_name(const struct codec *c);
const char *codec_version(const struct codec *c);

/* Largest output codec_compress() can produce for @len input bytes. */
size_t codec_bound(const struct codec *c, size_t len);

/* A compression context; @level 0 = the codec's default. NULL with errno on failure. */
struct codec_ctx *codec_ctx_new(const struct codec *c, int level);
void codec_ctx_free(struct codec_ctx *ctx);

/*
 * Compresses @in (@in_len bytes) into one frame at @out (@out_cap bytes, at least
 * codec_bound()). Returns the frame length or -errno (-ENOBUFS if it does not fit).
 */
ssize_t codec_compress(struct codec_ctx *ctx, const void *in, size_t in_len,
		       void *out, size_t out_cap);

/*
 * One frame of @in as it is, for the decompressor of the codec to read (zstd: raw
 * blocks): what a chunk costs to write when there is no time to compress it. Returns
 * the frame length or -errno (-ENOBUFS if it does not fit @out_cap).
 */
ssize_t codec_store(const struct codec *c, const void *in, size_t in_len, void *out,
		    size_t out_cap);

/* Whether a zstd @frame of @len bytes is what codec_store() wrote for @ulen bytes. */
bool codec_frame_stored(const void *frame, size_t len, size_t ulen);

/*
 * zstd decompression of one frame into @out (@out_cap bytes, never more written).
 * Returns the bytes produced, -ENOBUFS when they would not fit, -EBADMSG for a bad
 * frame. For readers of files that are not trusted: bounded, never crashes.
 */
struct codec_dctx *codec_dctx_new(void);
void codec_dctx_free(struct codec_dctx *d);
ssize_t codec_decompress(struct codec_dctx *d, const void *in, size_t in_len, void *out,
			 size_t out_cap);

#endif /* REC_COMPRESS_H */
