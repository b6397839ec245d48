// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/source/tracing.c: a CPU's tracefs stats as the recorder counts them. Lost
 * is every event the kernel dropped as it came: "dropped events" (a full buffer that
 * does not overwrite) and "commit overrun" (either mode: a writer came round to the
 * page an interrupted writer still held); overwritten ones are "overrun".
 */
#include <string.h>

#include "kselftest_harness.h"
#include "source/source.h"
#include "source/tracing.h"

/* per_cpu/cpu0/stats as Linux 6.18 writes it (kernel/trace/trace.c, tracing_stats_read) */
static const char stats_text[] =
	"entries: 166\n"
	"overrun: 1701055\n"
	"commit overrun: 12\n"
	"bytes: 7344\n"
	"oldest event ts: 29943.293690\n"
	"now ts: 30406.136431\n"
	"dropped events: 30\n"
	"read events: 7\n";

TEST(commit_overrun_is_lost)
{
	struct source_cpu_stats st = { .pages = 3, .bytes = 9 };

	tracing_parse_cpu_stats(stats_text, &st);
	EXPECT_EQ(42, st.lost);
	EXPECT_EQ(1701055, st.overrun);
	EXPECT_EQ(7, st.read);
	/* written: still there + read + overwritten */
	EXPECT_EQ(166 + 7 + 1701055, st.entries);
	/* what the file does not say is left as it was */
	EXPECT_EQ(3, st.pages);
	EXPECT_EQ(9, st.bytes);
}

TEST(parsed_again_from_zero)
{
	struct source_cpu_stats st;

	memset(&st, 0xff, sizeof(st));
	tracing_parse_cpu_stats("entries: 1\n", &st);
	EXPECT_EQ(1, st.entries);
	EXPECT_EQ(0, st.lost);
	EXPECT_EQ(0, st.overrun);
	EXPECT_EQ(0, st.read);
}

TEST_HARNESS_MAIN
