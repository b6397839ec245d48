/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper: builds ftrace ring-buffer pages (common/ftrace_page.h) holding
 * ftrace/print records or arbitrary payloads, the way the kernel lays them out.
 */
#ifndef TEST_PAGEGEN_H
#define TEST_PAGEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PG_PRINT_ID	5	/* ftrace/print on every kernel we read */
#define PG_BLOB_ID	900	/* test/blob: u32 seq, made up for tests */

struct trace_meta;

struct pagegen {
	unsigned int	ps;		/* page size */
	char		*pages;		/* finished pages */
	size_t		nr;
	size_t		cap;
	char		*cur;		/* page being filled */
	uint32_t	used;		/* data bytes in @cur */
	uint64_t	last_ts;
	bool		open;
	uint64_t	missed;		/* for the next page */
	bool		missed_set;
	bool		missed_store;
};

void pg_init(struct pagegen *g, unsigned int ps);
/* Adds one record at @ts (>= the previous); opens a new page when needed. */
int pg_add(struct pagegen *g, uint64_t ts, const void *payload, uint32_t len);
/* An ftrace/print record "text" from @pid. */
int pg_add_print(struct pagegen *g, uint64_t ts, int pid, const char *text);
/* The next page starts after a loss of @missed events (count stored if @store). */
void pg_missed(struct pagegen *g, uint64_t missed, bool store);
/* Closes the current page (commit written, tail zeroed). */
void pg_close(struct pagegen *g);
void pg_free(struct pagegen *g);

/*
 * Metadata of a 6.18 x86-64 kernel reduced to what tests need: header_page for
 * @ps-byte pages, header_event, ftrace/print and a made-up test/blob event.
 * Free with meta_free().
 */
int pg_meta(struct trace_meta *m, unsigned int ps);

#endif /* TEST_PAGEGEN_H */
