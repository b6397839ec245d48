// SPDX-License-Identifier: GPL-2.0
/*
 * Page builder for tests: one writer of ftrace pages in user space, following the
 * kernel's rules (formats.md B.3/B.4): first event delta 0, TIME_EXTEND for deltas
 * of 2^27 or more, commit = bytes used, missed flags set when the page is handed out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "ftrace_page.h"
#include "format/meta.h"
#include "pagegen.h"

void pg_init(struct pagegen *g, unsigned int ps)
{
	memset(g, 0, sizeof(*g));
	g->ps = ps;
}

void pg_close(struct pagegen *g)
{
	__u64 commit;

	if (!g->open)
		return;
	commit = g->used;
	memcpy(g->cur + FTP_COMMIT_OFFSET, &commit, 8);
	if (g->missed_set)
		ftp_page_set_missed(g->cur, g->ps, g->missed);
	if (g->missed_set && !g->missed_store) {
		/* Only the flag: what the kernel does when the count does not fit. */
		memcpy(&commit, g->cur + FTP_COMMIT_OFFSET, 8);
		commit &= ~FTP_MISSED_STORED;
		memcpy(g->cur + FTP_COMMIT_OFFSET, &commit, 8);
		memset(g->cur + FTP_HDR_SIZE + g->used, 0, 8);
	}
	g->missed_set = false;
	g->open = false;
	g->nr++;
}

static int pg_open(struct pagegen *g, uint64_t ts)
{
	if (g->nr + 1 > g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		char *p = realloc(g->pages, cap * g->ps);

		if (!p)
			return -ENOMEM;
		g->pages = p;
		g->cap = cap;
	}
	g->cur = g->pages + g->nr * g->ps;
	memset(g->cur, 0, g->ps);
	memcpy(g->cur + FTP_TS_OFFSET, &ts, 8);
	g->used = 0;
	g->last_ts = ts;
	g->open = true;
	return 0;
}

int pg_add(struct pagegen *g, uint64_t ts, const void *payload, uint32_t len)
{
	uint64_t delta;
	uint32_t need = ftp_data_len(len);
	char *ev;
	int ret;

	if (len > ftp_max_payload(g->ps) || ts < g->last_ts)
		return -EINVAL;
	delta = g->open ? ts - g->last_ts : 0;
	if (delta > FTP_DELTA_MASK)
		need += FTP_EXTEND_LEN;
	if (g->open && FTP_HDR_SIZE + g->used + need > g->ps)
		pg_close(g);
	if (!g->open) {
		ret = pg_open(g, ts);
		if (ret)
			return ret;
		delta = 0;
	}
	/* Pages were handed out: a stale tail points g->cur at the reallocated array. */
	g->cur = g->pages + g->nr * g->ps;
	ev = g->cur + FTP_HDR_SIZE + g->used;
	if (delta > FTP_DELTA_MASK) {
		ftp_put_extend(ev, delta);
		g->used += FTP_EXTEND_LEN;
		ev += FTP_EXTEND_LEN;
		delta = 0;
	}
	memcpy(ftp_put_data(ev, len, (__u32)delta), payload, len);
	g->used += ftp_data_len(len);
	g->last_ts = ts;
	return 0;
}

int pg_add_print(struct pagegen *g, uint64_t ts, int pid, const char *text)
{
	char rec[4096];
	struct ftp_entry e = { .type = PG_PRINT_ID, .pid = pid };
	uint64_t ip = 0xffffffff81000000ULL;
	size_t n = strlen(text) + 1;

	if (16 + n > sizeof(rec))
		return -EINVAL;
	memcpy(rec, &e, 8);
	memcpy(rec + 8, &ip, 8);
	memcpy(rec + 16, text, n);
	return pg_add(g, ts, rec, (uint32_t)(16 + n));
}

void pg_missed(struct pagegen *g, uint64_t missed, bool store)
{
	pg_close(g);
	g->missed = missed;
	g->missed_set = true;
	g->missed_store = store;
}

void pg_free(struct pagegen *g)
{
	free(g->pages);
	memset(g, 0, sizeof(*g));
}

static const char print_format[] =
	"name: print\n"
	"ID: 5\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

static const char blob_format[] =
	"name: blob\n"
	"ID: 900\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int seq;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"seq=%u\", REC->seq\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

int pg_meta(struct trace_meta *m, unsigned int ps)
{
	char hp[512];
	int n;

	memset(m, 0, sizeof(*m));
	n = snprintf(hp, sizeof(hp),
		     "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		     "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		     "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		     "\tfield: char data;\toffset:16;\tsize:%u;\tsigned:0;\n", ps - 16);
	m->header_page = strdup(hp);
	m->header_page_len = (size_t)n;
	m->header_event = strdup(header_event);
	m->header_event_len = strlen(header_event);
	m->page_size = ps;
	m->clock = strdup("local");
	m->trace_clock = strdup("[local] global counter uptime perf mono mono_raw boot\n");
	m->printk = strdup("");
	m->printk_len = 0;
	if (!m->header_page || !m->header_event || !m->clock || !m->trace_clock ||
	    meta_add_system_text(m, "ftrace", print_format, strlen(print_format)) ||
	    meta_add_system_text(m, "test", blob_format, strlen(blob_format))) {
		meta_free(m);
		return -ENOMEM;
	}
	return 0;
}
