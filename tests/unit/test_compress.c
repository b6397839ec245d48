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

TEST_HARNESS_MAIN
