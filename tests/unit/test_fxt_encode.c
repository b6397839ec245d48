// SPDX-License-Identifier: GPL-2.0
/*
 * FXT encoder, writer tables and validator against words computed by hand from the
 * Fuchsia trace format spec (bit positions quoted next to each expected value).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "fxt.h"
#include "fxt_validate.h"
#include "format/fxt_writer.h"
#include "../lib/fxt_decode.h"

TEST(header_words)
{
	/* magic: bytes 10 00 04 46 78 54 16 00 */
	static const unsigned char magic[8] = { 0x10, 0, 0x04, 0x46, 0x78, 0x54, 0x16, 0 };
	uint64_t m = FXT_MAGIC;

	ASSERT_EQ(0, memcmp(&m, magic, 8));
	/* init: type 1, size 2 */
	EXPECT_EQ(0x21ULL, fxt_init_hdr());
	/* provider info: type 0, size 3, meta 1 [16..19], id 1 [20..51], len 9 [52..59] */
	EXPECT_EQ(0x0090000000110030ULL, fxt_provider_info_hdr(1, 9));
	/* string: type 2, size 2, index 1 [16..30], length 5 [32..46] */
	EXPECT_EQ(0x0000000500010022ULL, fxt_string_hdr(1, 5));
	/* string of 8 bytes: exactly one stream word, no terminator */
	EXPECT_EQ(0x0000000800020022ULL, fxt_string_hdr(2, 8));
	/* thread: type 3, size 3, index 7 [16..23] */
	EXPECT_EQ(0x70033ULL, fxt_thread_hdr(7));
	/* event: size 3, evtype 2 [16..19], nargs 1 [20..23], thread 5 [24..31],
	 * category 0x8003 [32..47] (inline, 3 bytes), name 7 [48..63]
	 */
	EXPECT_EQ(0x0007800305120034ULL, fxt_event_hdr(3, 2, 1, 5, 0x8003, 7));
	/* context switch: size 6, nargs 2 [16..19], cpu 3 [20..35], state 3 [36..39],
	 * subtype 1 [60..63]
	 */
	EXPECT_EQ(0x1000003000320068ULL, fxt_cswitch_hdr(6, 2, 3, FXT_TS_BLOCKED));
	/* cpu is 16 bits wide: cpu 0x1234 */
	EXPECT_EQ(0x1000000123400048ULL, fxt_cswitch_hdr(4, 0, 0x1234, 0));
	/* wakeup: size 5, nargs 2, cpu 1, subtype 2 */
	EXPECT_EQ(0x2000000000120058ULL, fxt_wakeup_hdr(5, 2, 1));
	/* kernel object: size 4, type 2 [16..23], name 0x8005 [24..39], nargs 1 [40..43] */
	EXPECT_EQ(0x0000018005020047ULL, fxt_kobj_hdr(4, FXT_OBJ_THREAD, 0x8005, 1));
	/* int32 argument: type 1, size 1, name 3 [16..31], value -5 [32..63] */
	EXPECT_EQ(0xFFFFFFFB00030011ULL, fxt_arg_hdr(FXT_ARG_I32, 1, 3, (uint32_t)-5));
	/* string argument: value ref in [32..47], nothing above */
	EXPECT_EQ(0x0000800400040026ULL, fxt_arg_hdr(FXT_ARG_STRING, 2, 4, 0x8004));
	/* fields never spill into their neighbours */
	EXPECT_EQ(0ULL, fxt_string_hdr(0x8000, 0x8000) & ~0xfULL & ~(0xfffULL << 4));
	EXPECT_EQ(1U, fxt_stream_words(1));
	EXPECT_EQ(1U, fxt_stream_words(8));
	EXPECT_EQ(2U, fxt_stream_words(9));
	EXPECT_EQ(0U, fxt_stream_words(0));
}

/* Everything the writer wrote to a memfd. */
static uint64_t *written(int fd, size_t *nwords)
{
	off_t len = lseek(fd, 0, SEEK_END);
	uint64_t *w = malloc(len + 8);

	if (!w || pread(fd, w, len, 0) != len)
		return NULL;
	*nwords = len / 8;
	return w;
}

TEST(writer_words)
{
	int fd = memfd_create("fxt", 0);
	struct fxtw *w = fxtw_new(fd);
	size_t n;
	uint64_t *got;
	static const uint64_t want[] = {
		FXT_MAGIC,
		0x0000000100010022ULL, 'w',		/* string 1 "w" (arg name) */
		0x0000000100020022ULL, 'c',		/* string 2 "c" (category) */
		0x0000000100030022ULL, 'n',		/* string 3 "n" (name) */
		0x10033ULL, 1, 2,			/* thread 1 = pid 1, tid 2 */
		0x0003000201100034ULL, 100,		/* instant, 1 arg, thread 1, cat 2, nm 3 */
		0xFFFFFFFF00010011ULL,			/* w = -1 (int32) */
		0x0003000201100034ULL, 101,		/* same again: tables reused */
		0xFFFFFFFF00010011ULL,
		0x1000000000100048ULL, 102, 2, 3,	/* switch: size 4, cpu 1, state 0, 2 -> 3 */
	};

	ASSERT_NE(NULL, w);
	fxtw_magic(w);
	fxtw_args(w);
	fxtw_arg_i32(w, "w", -1);
	fxtw_event(w, FXT_EV_INSTANT, 100, 1, 2, "c", "n", 0, 0);
	fxtw_args(w);
	fxtw_arg_i32(w, "w", -1);
	fxtw_event(w, FXT_EV_INSTANT, 101, 1, 2, "c", "n", 0, 0);
	fxtw_args(w);
	fxtw_cswitch(w, 102, 1, FXT_TS_NEW, 2, 3);
	ASSERT_EQ(0, fxtw_finish(w));
	EXPECT_EQ(sizeof(want), fxtw_bytes(w));
	got = written(fd, &n);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(sizeof(want) / 8, n);
	for (size_t i = 0; i < n; i++) {
		ASSERT_EQ(want[i], got[i]) TH_LOG("word %zu", i);
	}
	free(got);
	fxtw_free(w);
	close(fd);
}

TEST(writer_inline_string_arg)
{
	int fd = memfd_create("fxt", 0);
	struct fxtw *w = fxtw_new(fd);
	uint64_t *got, s0, s1;
	size_t n;

	fxtw_args(w);
	fxtw_arg_str(w, "t", "123456789", 9);	/* 9 bytes: two stream words, 7 zero pad */
	fxtw_kobj(w, FXT_OBJ_THREAD, 42, "abc");
	ASSERT_EQ(0, fxtw_finish(w));
	got = written(fd, &n);
	ASSERT_EQ(2U + 6U, n);
	ASSERT_EQ(0x0000000100010022ULL, got[0]);	/* string 1 "t" */
	/* kobj: size 6 (hdr, koid, "abc", arg hdr + 2 stream words), name inline len 3 */
	ASSERT_EQ(fxt_kobj_hdr(6, FXT_OBJ_THREAD, 0x8003, 1), got[2]);
	ASSERT_EQ(42ULL, got[3]);
	ASSERT_EQ(0x636261ULL, got[4]);
	ASSERT_EQ(fxt_arg_hdr(FXT_ARG_STRING, 3, 1, 0x8009), got[5]);
	memcpy(&s0, "12345678", 8);
	s1 = '9';
	ASSERT_EQ(s0, got[6]);
	ASSERT_EQ(s1, got[7]);
	free(got);
	fxtw_free(w);
	close(fd);
}

#define NAMES	90	/* distinct names, against a table of 32 */

struct reuse_ctx {
	int	events;
	int	bad;
};

static int check_reuse(const struct fxt_dec_rec *r, void *p)
{
	struct reuse_ctx *c = p;
	char want[32];

	if (r->type != FXT_REC_EVENT)
		return 0;
	snprintf(want, sizeof(want), "name-%d", c->events % NAMES);
	if (strcmp(r->name, want) || r->tid != (uint64_t)(1000 + c->events % 5) ||
	    r->pid != r->tid + 1 || !r->nargs || r->args[0].u != (uint64_t)c->events)
		c->bad++;
	c->events++;
	return 0;
}

/* Tables far smaller than the working set: indexes are redefined, never misread. */
TEST(writer_index_reuse)
{
	int fd = memfd_create("fxt", 0);
	struct fxtw *w = fxtw_new(fd);
	struct fxt_dec_summary s;
	struct reuse_ctx c = { 0 };
	char name[32], err[200];
	size_t n;
	uint64_t *got;

	fxtw_set_table_limits(w, 32, 2);
	fxtw_magic(w);
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "name-%d", i % NAMES);
		fxtw_args(w);
		fxtw_arg_u64(w, "seq", i);
		fxtw_event(w, FXT_EV_INSTANT, i, 1000 + i % 5 + 1, 1000 + i % 5, "cat", name, 0, 0);
	}
	ASSERT_EQ(0, fxtw_finish(w));
	got = written(fd, &n);
	ASSERT_EQ(0, fxt_decode(got, n * 8, FXT_DEC_OURS, check_reuse, &c, &s, err,
				sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(200, c.events);
	EXPECT_EQ(0, c.bad);
	/* reuse happened: more string records than the table has slots */
	EXPECT_GT(s.by_type[FXT_REC_STRING], 32ULL);
	EXPECT_GT(s.by_type[FXT_REC_THREAD], 2ULL);
	free(got);
	fxtw_free(w);
	close(fd);
}

/* A valid user-space payload: instant with inline category/name, i32 and string args. */
static size_t good_payload(uint64_t *r)
{
	size_t n = 0;

	r[n++] = fxt_event_hdr(10, FXT_EV_INSTANT, 2, 0, 0x8003, 0x8004);
	r[n++] = 5;			/* ts */
	r[n++] = 10;			/* pid */
	r[n++] = 11;			/* tid */
	r[n++] = 0x707061;		/* "app" */
	r[n++] = 0x74696877;		/* "whit" */
	r[n++] = fxt_arg_hdr(FXT_ARG_I32, 2, 0x8001, 7);
	r[n++] = 'x';
	r[n++] = fxt_arg_hdr(FXT_ARG_STRING, 2, 0x8001, 0);	/* empty value */
	r[n++] = 'y';
	return n;
}

TEST(validator_two_records)
{
	uint64_t two[20];
	struct fxt_vresult res;

	good_payload(two);
	good_payload(two + 10);
	ASSERT_EQ(FXT_V_OK, fxt_validate(two, 160, &res));
	EXPECT_EQ(2U, res.records);
	two[10] |= 1ULL << 24;	/* the second one uses thread index 1 */
	EXPECT_EQ(FXT_V_TABLE_REF, fxt_validate(two, 160, &res));
	EXPECT_EQ(1U, res.records);
	EXPECT_EQ(80U, res.offset);
}

TEST(validator)
{
	uint64_t r[16];
	size_t n = good_payload(r);
	struct fxt_vresult res;

	ASSERT_EQ(10U, n);
	ASSERT_EQ(FXT_V_OK, fxt_validate(r, n * 8, &res));
	EXPECT_EQ(1U, res.records);
	EXPECT_EQ(FXT_V_EMPTY, fxt_validate(r, 0, NULL));
	EXPECT_EQ(FXT_V_EMPTY, fxt_validate(r, n * 8 - 3, NULL));
	EXPECT_EQ(FXT_V_SIZE, fxt_validate(r, (n - 1) * 8, NULL));

#define MUTATE(word, expr, want) do {				\
		good_payload(r);				\
		r[word] = (expr);				\
		EXPECT_EQ(want, fxt_validate(r, n * 8, NULL));	\
	} while (0)
	MUTATE(0, r[0] & ~(0xfffULL << 4), FXT_V_SIZE);			/* size 0 */
	MUTATE(0, (r[0] & ~0xfULL) | FXT_REC_STRING, FXT_V_RECORD_TYPE);
	MUTATE(0, (r[0] & ~0xfULL) | FXT_REC_SCHED, FXT_V_RECORD_TYPE);
	MUTATE(0, r[0] | (11ULL << 16), FXT_V_EVENT_TYPE);
	MUTATE(0, r[0] | (1ULL << 24), FXT_V_TABLE_REF);			/* thread index */
	MUTATE(0, (r[0] & ~(0xffffULL << 32)) | (5ULL << 32), FXT_V_TABLE_REF); /* string idx */
	MUTATE(4, r[4] | (1ULL << 60), FXT_V_RESERVED);			/* padding */
	MUTATE(6, r[6] | (1ULL << 8), FXT_V_ARG);				/* arg size 18 */
	MUTATE(6, (r[6] & ~0xfULL) | 11, FXT_V_ARG);				/* arg type 11 */
	MUTATE(6, (r[6] & ~0xfULL) | FXT_ARG_I64, FXT_V_RESERVED);		/* value bits */
	MUTATE(6, r[6] & ~(0xffffULL << 16), FXT_V_ARG);			/* no name */
	MUTATE(8, r[8] | (1ULL << 50), FXT_V_RESERVED);			/* string [48..63] */
	MUTATE(0, (r[0] & ~(0xfULL << 20)) | (3ULL << 20), FXT_V_LENGTH);	/* 3 args */
	MUTATE(0, (r[0] & ~(0xfULL << 16)) | (4ULL << 16), FXT_V_LENGTH);	/* no end word */
	MUTATE(0, (r[0] & ~(0xfULL << 20)) | (1ULL << 20), FXT_V_LENGTH);	/* extra word */
#undef MUTATE
}

/* The decoder refuses what it must refuse. */
TEST(decoder_rejects)
{
	uint64_t f[8];
	char err[200];

	f[0] = FXT_MAGIC;
	f[1] = fxt_rec_hdr(FXT_REC_EVENT, 4);	/* instant, name index 3 undefined */
	f[1] |= 3ULL << 48;
	f[2] = 1;
	f[3] = 2;
	f[4] = 3;
	EXPECT_NE(0, fxt_decode(f, 40, 0, NULL, NULL, NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "string index 3"));
	f[1] = fxt_rec_hdr(FXT_REC_INIT, 2) | (1ULL << 40);
	f[2] = 1000;
	EXPECT_NE(0, fxt_decode(f, 24, 0, NULL, NULL, NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "reserved"));
	f[1] = fxt_rec_hdr(FXT_REC_INIT, 0);
	EXPECT_NE(0, fxt_decode(f, 24, 0, NULL, NULL, NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "size 0"));
	f[1] = fxt_rec_hdr(FXT_REC_INIT, 3);	/* past the end */
	EXPECT_NE(0, fxt_decode(f, 24, 0, NULL, NULL, NULL, err, sizeof(err)));
	f[1] = fxt_rec_hdr(FXT_REC_INIT, 3);	/* a trailing word: fine for others only */
	f[3] = 0;
	EXPECT_EQ(0, fxt_decode(f, 32, 0, NULL, NULL, NULL, err, sizeof(err)));
	EXPECT_NE(0, fxt_decode(f, 32, FXT_DEC_OURS, NULL, NULL, NULL, err, sizeof(err)));
	f[1] = fxt_string_hdr(1, 3);
	f[2] = 0x41414141;			/* "AAA" + non-zero padding */
	EXPECT_NE(0, fxt_decode(f, 24, 0, NULL, NULL, NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "padding"));
	f[0] = 0;
	EXPECT_NE(0, fxt_decode(f, 24, 0, NULL, NULL, NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "magic"));
}

TEST_HARNESS_MAIN
