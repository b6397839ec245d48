// SPDX-License-Identifier: GPL-2.0
/* recorder/format/compress.c: the codec table, zstd frames as trace-cmd reads them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "kselftest_harness.h"
#include "format/compress.h"

static void fill(unsigned char *p, size_t n, unsigned int seed, int compressible)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = compressible ? (unsigned char)("trace page "[i % 11] + (i / 4096))
				    : (unsigned char)rand_r(&seed);
}

TEST(lookup)
{
	const struct codec *z = codec_find("zstd"), *n = codec_find("none");

	ASSERT_NE(NULL, z);
	ASSERT_NE(NULL, n);
	EXPECT_STREQ("zstd", codec_name(z));
	EXPECT_STREQ(ZSTD_versionString(), codec_version(z));
	EXPECT_STREQ("none", codec_name(n));
	EXPECT_STREQ("", codec_version(n));
	errno = 0;
	EXPECT_EQ(NULL, codec_find("zlib"));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(NULL, codec_find(NULL));
}

TEST(zstd_round_trip_levels)
{
	const struct codec *z = codec_find("zstd");
	static const int levels[] = { 0, 1, 3, 19 };
	size_t len = 16 * 4096, i;
	unsigned char *in = malloc(len), *out, *back = malloc(len);

	ASSERT_NE(NULL, in);
	out = malloc(codec_bound(z, len));
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		struct codec_ctx *ctx = codec_ctx_new(z, levels[i]);
		ssize_t c;
		int comp;

		ASSERT_NE(NULL, ctx);
		for (comp = 0; comp < 2; comp++) {
			fill(in, len, 11 + i, comp);
			c = codec_compress(ctx, in, len, out, codec_bound(z, len));
			ASSERT_GT(c, 0);
			EXPECT_LE((size_t)c, codec_bound(z, len));
			if (comp)
				EXPECT_LT((size_t)c, len / 10);
			/* trace-cmd's frames carry no content size; ours neither (A.2). */
			EXPECT_EQ(ZSTD_CONTENTSIZE_UNKNOWN, ZSTD_getFrameContentSize(out, c));
			ASSERT_EQ(len, ZSTD_decompress(back, len, out, (size_t)c));
			EXPECT_EQ(0, memcmp(in, back, len));
		}
		codec_ctx_free(ctx);
	}
	free(in);
	free(out);
	free(back);
}

TEST(zstd_output_too_small)
{
	const struct codec *z = codec_find("zstd");
	struct codec_ctx *ctx = codec_ctx_new(z, 1);
	unsigned char in[4096], out[64];

	ASSERT_NE(NULL, ctx);
	fill(in, sizeof(in), 5, 0);
	EXPECT_EQ(-ENOBUFS, codec_compress(ctx, in, sizeof(in), out, sizeof(out)));
	/* The context stays usable after a failure. */
	fill(in, sizeof(in), 5, 1);
	EXPECT_GT(codec_compress(ctx, in, sizeof(in), out, sizeof(out)), 0);
	codec_ctx_free(ctx);
}

TEST(none_copies)
{
	const struct codec *n = codec_find("none");
	struct codec_ctx *ctx = codec_ctx_new(n, 0);
	unsigned char in[100], out[100];

	ASSERT_NE(NULL, ctx);
	fill(in, sizeof(in), 3, 0);
	EXPECT_EQ(100, codec_bound(n, 100));
	EXPECT_EQ(100, codec_compress(ctx, in, sizeof(in), out, sizeof(out)));
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	EXPECT_EQ(-ENOBUFS, codec_compress(ctx, in, sizeof(in), out, 99));
	codec_ctx_free(ctx);
	codec_ctx_free(NULL);
}

/*
 * A stored frame (raw blocks) is one zstd frame libzstd reads back byte for byte, whatever
 * the size: empty, below, at and past one 128 KiB block; it fits codec_bound().
 */
TEST(zstd_store_reads_back)
{
	static const size_t sizes[] = { 0, 1, 4096, 131071, 131072, 131073, 300000, 1 << 20 };
	const struct codec *z = codec_find("zstd");
	struct codec_dctx *d = codec_dctx_new();
	size_t cap = codec_bound(z, 1 << 20);
	unsigned char *in = malloc(1 << 20), *out = malloc(cap), *back = malloc(1 << 20);

	ASSERT_NE(NULL, d);
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, back);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k], blocks = n ? (n + 131071) / 131072 : 1;
		ssize_t c;

		fill(in, n, (unsigned int)k, k & 1);
		c = codec_store(z, in, n, out, codec_bound(z, n));
		ASSERT_EQ((ssize_t)(n + 9 + 3 * blocks), c) TH_LOG("%zu bytes", n);
		EXPECT_EQ((unsigned long long)n, ZSTD_getFrameContentSize(out, (size_t)c));
		EXPECT_EQ((size_t)c, ZSTD_findFrameCompressedSize(out, (size_t)c));
		EXPECT_EQ((ssize_t)n, codec_decompress(d, out, (size_t)c, back, 1 << 20));
		EXPECT_EQ(0, memcmp(in, back, n));
		/* the bytes past the frame are not part of it: a cut one is refused */
		if (n)
			EXPECT_EQ(-EBADMSG, codec_decompress(d, out, (size_t)c - 1, back, n));
	}
	EXPECT_EQ(-ENOBUFS, codec_store(z, in, 4096, out, 4096 + 11));
	fill(in, 4096, 1, 0);
	EXPECT_EQ(4096, codec_store(codec_find("none"), in, 4096, out, 4096));
	EXPECT_EQ(0, memcmp(in, out, 4096));
	codec_dctx_free(d);
	free(in);
	free(out);
	free(back);
}

/*
 * codec_frame_stored() knows codec_store()'s frames, whole, of any size, and nothing
 * else: not a compressed frame, not one zstd itself made of raw blocks for data it
 * could not shrink (random bytes), not a cut or altered stored frame.
 */
TEST(zstd_frame_stored)
{
	static const size_t sizes[] = { 0, 1, 4096, 131072, 131073, 300000 };
	const struct codec *z = codec_find("zstd");
	struct codec_ctx *ctx = codec_ctx_new(z, 1);
	size_t cap = codec_bound(z, 300000);
	unsigned char *in = malloc(300000), *out = malloc(cap);
	ssize_t n;

	ASSERT_NE(NULL, ctx);
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		fill(in, sizes[k], 7, 1);
		n = codec_store(z, in, sizes[k], out, cap);
		ASSERT_GT(n, 0);
		EXPECT_TRUE(codec_frame_stored(out, (size_t)n, sizes[k]));
		EXPECT_FALSE(codec_frame_stored(out, (size_t)n, sizes[k] + 1));
		EXPECT_FALSE(codec_frame_stored(out, (size_t)n - 1, sizes[k]));
		if (sizes[k] > 131072) {
			/* the first block said last: the frame would end early */
			out[9] |= 1;
			EXPECT_FALSE(codec_frame_stored(out, (size_t)n, sizes[k]));
		}
	}
	fill(in, 131072, 7, 1);
	n = codec_compress(ctx, in, 131072, out, cap);
	ASSERT_GT(n, 0);
	EXPECT_FALSE(codec_frame_stored(out, (size_t)n, 131072));
	fill(in, 131072, 7, 0);
	n = codec_compress(ctx, in, 131072, out, cap);
	ASSERT_GT(n, 131072);		/* zstd could not shrink it: raw blocks */
	EXPECT_FALSE(codec_frame_stored(out, (size_t)n, 131072));
	codec_ctx_free(ctx);
	free(in);
	free(out);
}

TEST_HARNESS_MAIN
