// SPDX-License-Identifier: GPL-2.0
/*
 * common/ftrace_page.h against libtraceevent's kbuffer, the page parser trace-cmd
 * report and KernelShark use: every encoder's output must decode there to the same
 * events, sizes and timestamps, and ftp_next() must walk pages exactly as kbuffer does.
 */
#include <stdlib.h>
#include <string.h>

#include <kbuffer.h>

#include "kselftest_harness.h"
#include "ftrace_page.h"
#include "../lib/pagegen.h"

#define PS	4096

struct kb_event {
	unsigned long long	ts;
	int			off;	/* of the payload, from the page start */
	int			size;
};

/* Every data event kbuffer finds in @page. */
static int kb_walk(void *page, struct kb_event *ev, int max, int *missed)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	unsigned long long ts;
	void *data;
	int n = 0;

	if (!kb || kbuffer_load_subbuffer(kb, page) < 0)
		return -1;
	if (missed)
		*missed = kbuffer_missed_events(kb);
	for (data = kbuffer_read_event(kb, &ts); data && n < max;
	     data = kbuffer_next_event(kb, &ts)) {
		ev[n].ts = ts;
		ev[n].off = (int)((char *)data - (char *)page);
		ev[n].size = kbuffer_event_size(kb);
		n++;
	}
	kbuffer_free(kb);
	return n;
}

static void *new_page(uint64_t ts)
{
	char *p = calloc(1, PS);

	memcpy(p, &ts, 8);
	return p;
}

static void set_commit(void *page, uint64_t len)
{
	memcpy((char *)page + FTP_COMMIT_OFFSET, &len, 8);
}

TEST(small_event_26_bytes)
{
	char *page = new_page(1000), *payload;
	struct kb_event ev[4];
	uint32_t w;

	/* formats.md B.2: 26-byte payload -> type_len 7, 32 bytes in all */
	ASSERT_EQ(32, ftp_data_len(26));
	payload = ftp_put_data(page + FTP_HDR_SIZE, 26, 0);
	memcpy(&w, page + FTP_HDR_SIZE, 4);
	EXPECT_EQ(7, w & 31);
	EXPECT_EQ(FTP_HDR_SIZE + 4, payload - page);
	memset(payload, 0xab, 26);
	set_commit(page, 32);
	ASSERT_EQ(1, kb_walk(page, ev, 4, NULL));
	EXPECT_EQ(1000, ev[0].ts);
	EXPECT_EQ(FTP_HDR_SIZE + 4, ev[0].off);
	EXPECT_EQ(28, ev[0].size);
	free(page);
}

TEST(large_event_170_bytes)
{
	char *page = new_page(5), *payload;
	struct kb_event ev[4];
	uint32_t w[2];

	/* B.2: 170-byte payload -> type_len 0, array[0] = 176, 180 bytes in all */
	ASSERT_EQ(180, ftp_data_len(170));
	payload = ftp_put_data(page + FTP_HDR_SIZE, 170, 3);
	memcpy(w, page + FTP_HDR_SIZE, 8);
	EXPECT_EQ(0, w[0] & 31);
	EXPECT_EQ(3, w[0] >> 5);
	EXPECT_EQ(176, w[1]);
	EXPECT_EQ(FTP_HDR_SIZE + 8, payload - page);
	set_commit(page, 180);
	ASSERT_EQ(1, kb_walk(page, ev, 4, NULL));
	EXPECT_EQ(8, ev[0].ts);
	EXPECT_EQ(FTP_HDR_SIZE + 8, ev[0].off);
	EXPECT_EQ(172, ev[0].size);
	free(page);
}

TEST(boundary_112_and_113_bytes)
{
	char *page = new_page(0);
	struct kb_event ev[4];
	uint32_t off = 0;

	/* RB_MAX_SMALL_DATA: 112 still fits type_len 28, 113 needs the length word */
	EXPECT_EQ(116, ftp_data_len(112));
	EXPECT_EQ(124, ftp_data_len(113));
	ftp_put_data(page + FTP_HDR_SIZE, 112, 0);
	off += ftp_data_len(112);
	ftp_put_data(page + FTP_HDR_SIZE + off, 113, 7);
	off += ftp_data_len(113);
	set_commit(page, off);
	ASSERT_EQ(2, kb_walk(page, ev, 4, NULL));
	EXPECT_EQ(112, ev[0].size);
	EXPECT_EQ(116, ev[1].size);
	EXPECT_EQ(7, ev[1].ts);
	free(page);
}

TEST(time_extend)
{
	char *page = new_page(100);
	uint64_t delta = (1ULL << 28) + 5;
	struct kb_event ev[4];
	uint32_t off = 0;

	ftp_put_data(page + FTP_HDR_SIZE, 8, 0);
	off += ftp_data_len(8);
	ftp_put_extend(page + FTP_HDR_SIZE + off, delta);
	off += FTP_EXTEND_LEN;
	ftp_put_data(page + FTP_HDR_SIZE + off, 8, 0);
	off += ftp_data_len(8);
	set_commit(page, off);
	ASSERT_EQ(2, kb_walk(page, ev, 4, NULL));
	EXPECT_EQ(100, ev[0].ts);
	EXPECT_EQ(100 + delta, ev[1].ts);
	free(page);
}

TEST(time_stamp_absolute)
{
	char *page = new_page(1000);
	uint64_t abs_ts = 123456789012ULL;
	struct kb_event ev[4];
	uint32_t off = 0;

	ftp_put_data(page + FTP_HDR_SIZE, 8, 0);
	off += ftp_data_len(8);
	ftp_put_stamp(page + FTP_HDR_SIZE + off, abs_ts);
	off += FTP_EXTEND_LEN;
	ftp_put_data(page + FTP_HDR_SIZE + off, 8, 9);
	off += ftp_data_len(8);
	set_commit(page, off);
	ASSERT_EQ(2, kb_walk(page, ev, 4, NULL));
	EXPECT_EQ(abs_ts + 9, ev[1].ts);
	free(page);
}

TEST(padding_skipped_and_counted)
{
	char *page = new_page(50);
	struct kb_event ev[4];
	uint32_t off = 0;

	ftp_put_data(page + FTP_HDR_SIZE, 8, 0);
	off += ftp_data_len(8);
	ftp_put_padding(page + FTP_HDR_SIZE + off, 40);
	off += 40;
	ftp_put_data(page + FTP_HDR_SIZE + off, 8, 2);
	off += ftp_data_len(8);
	set_commit(page, off);
	/* kbuffer adds the padding's delta of 1 (formats.md B.3) */
	ASSERT_EQ(2, kb_walk(page, ev, 4, NULL));
	EXPECT_EQ(50 + 1 + 2, ev[1].ts);
	EXPECT_EQ(FTP_HDR_SIZE + 12 + 40 + 4, ev[1].off);
	free(page);
}

TEST(missed_events_stored)
{
	char *page = new_page(1);
	struct kb_event ev[4];
	int missed = 0;

	ftp_put_data(page + FTP_HDR_SIZE, 8, 0);
	set_commit(page, ftp_data_len(8));
	ftp_page_set_missed(page, PS, 42);
	EXPECT_EQ(ftp_data_len(8), ftp_page_len(page));
	EXPECT_TRUE(ftp_page_commit(page) & FTP_MISSED_STORED);
	ASSERT_EQ(1, kb_walk(page, ev, 4, &missed));
	EXPECT_EQ(42, missed);
	free(page);
}

TEST(missed_events_no_room)
{
	char *page = new_page(1);
	struct kb_event ev[4];
	uint32_t len = PS - FTP_HDR_SIZE - 4 - 12;
	int missed = 0;

	/*
	 * A page with fewer than 8 free bytes: only the flag (B.1), kbuffer says -1.
	 * kbuffer reports losses only while it sits on the page's first event, so
	 * that one must be a data event.
	 */
	ftp_put_data(page + FTP_HDR_SIZE, 8, 0);
	ftp_put_padding(page + FTP_HDR_SIZE + 12, len);
	set_commit(page, 12 + len);
	ftp_page_set_missed(page, PS, 42);
	EXPECT_FALSE(ftp_page_commit(page) & FTP_MISSED_STORED);
	EXPECT_TRUE(ftp_page_commit(page) & FTP_MISSED_EVENTS);
	ASSERT_EQ(1, kb_walk(page, ev, 4, &missed));
	EXPECT_EQ(-1, missed);
	free(page);
}

/* ftp_next() against kbuffer over generated pages of mixed sizes and gaps. */
TEST(decoder_matches_kbuffer)
{
	struct pagegen g;
	uint64_t ts = 1000;
	unsigned int seed = 7;
	size_t p, total = 0;
	int i;

	pg_init(&g, PS);
	for (i = 0; i < 5000; i++) {
		char payload[600] = { 0 };
		uint32_t len = 8 + rand_r(&seed) % 400;

		ts += rand_r(&seed) % 5 == 0 ? (1ULL << 27) + rand_r(&seed) : rand_r(&seed) % 1000U;
		payload[0] = (char)i;
		ASSERT_EQ(0, pg_add(&g, ts, payload, len));
	}
	pg_close(&g);
	ASSERT_GT(g.nr, 100);
	for (p = 0; p < g.nr; p++) {
		char *page = g.pages + p * PS;
		struct kb_event ev[256];
		int n = kb_walk(page, ev, 256, NULL), k = 0;
		__u64 t = ftp_page_ts(page);
		uint32_t off = 0;
		struct ftp_event e;

		ASSERT_GT(n, 0);
		while (off < ftp_page_len(page)) {
			off = ftp_next(ftp_page_data(page), ftp_page_len(page), off, &t, &e);
			ASSERT_NE(0, off);
			if (e.type_len > FTP_TYPE_DATA_MAX)
				continue;
			ASSERT_LT(k, n);
			EXPECT_EQ(ev[k].ts, e.ts);
			EXPECT_EQ(ev[k].off, (char *)e.payload - page);
			EXPECT_EQ((uint32_t)ev[k].size, e.payload_len);
			k++;
		}
		EXPECT_EQ(n, k);
		total += k;
	}
	EXPECT_EQ(5000, total);
	pg_free(&g);
}

TEST(ts_before)
{
	char *page = new_page(100);
	uint32_t off = 0;

	ftp_put_data(page + FTP_HDR_SIZE, 8, 0);
	off += ftp_data_len(8);
	ftp_put_data(page + FTP_HDR_SIZE + off, 8, 20);
	off += ftp_data_len(8);
	set_commit(page, off);
	EXPECT_EQ(100, ftp_ts_before(page, 0));
	EXPECT_EQ(100, ftp_ts_before(page, 12));
	EXPECT_EQ(120, ftp_ts_before(page, 24));
	EXPECT_EQ(-1, ftp_ts_before(page, 13));
	free(page);
}

TEST(malformed_rejected)
{
	char *page = new_page(0);
	struct ftp_event e;
	__u64 t = 0;
	uint32_t w[2] = { FTP_TYPE_PADDING, 8 };	/* null padding (delta 0) inside data */

	memcpy(page + FTP_HDR_SIZE, w, 8);
	EXPECT_EQ(0, ftp_next(page + FTP_HDR_SIZE, 64, 0, &t, &e));
	ftp_put_data(page + FTP_HDR_SIZE, 100, 0);
	EXPECT_EQ(0, ftp_next(page + FTP_HDR_SIZE, 50, 0, &t, &e));	/* runs past size */
	free(page);
}

/*
 * A length word of 0xfffffffc after a good event: 4 + it wraps to 0 in 32 bits, which
 * once returned the same offset, so every walker (the module's check of a persistent
 * page, recover, lastboot) looped forever on one damaged word.
 */
TEST(length_wrap_rejected)
{
	static const uint32_t wrap[] = { 0xfffffffc, 0xfffffff8, 0xffffffff };
	char *page = new_page(0);
	struct ftp_event e;

	for (unsigned int i = 0; i < sizeof(wrap) / sizeof(wrap[0]); i++) {
		uint32_t data0[2] = { ftp_word(0, 1), wrap[i] };
		uint32_t pad[2] = { ftp_word(FTP_TYPE_PADDING, 1), wrap[i] };
		__u64 t = 0;
		__u32 off;

		ftp_put_data(page + FTP_HDR_SIZE, 8, 0);	/* 12 bytes: ends at 12 */
		memcpy(page + FTP_HDR_SIZE + 12, data0, 8);
		off = ftp_next(page + FTP_HDR_SIZE, 64, 0, &t, &e);
		ASSERT_EQ(12, off);
		EXPECT_EQ(0, ftp_next(page + FTP_HDR_SIZE, 64, off, &t, &e));
		memcpy(page + FTP_HDR_SIZE + 12, pad, 8);
		EXPECT_EQ(0, ftp_next(page + FTP_HDR_SIZE, 64, off, &t, &e));
	}
	free(page);
}

TEST_HARNESS_MAIN
