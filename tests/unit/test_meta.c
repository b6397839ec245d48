// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/format/meta.c: splitting a module's concatenated format files into events, and
 * collecting the running kernel's metadata from tracefs (skipped without it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "format/meta.h"

static const char two[] =
	"name: alpha\nID: 1001\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\nprint fmt: \"a\"\n"
	"name: beta\nID: 1002\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\nprint fmt: \"b\"\n";

TEST(add_system_text_splits_formats)
{
	struct trace_meta m = { 0 };
	const char *second = strstr(two, "name: beta");

	ASSERT_EQ(0, meta_add_system_text(&m, "ftring", two, strlen(two)));
	ASSERT_EQ(1, m.nr_systems);
	EXPECT_STREQ("ftring", m.systems[0].name);
	ASSERT_EQ(2, m.systems[0].nr_events);
	EXPECT_STREQ("alpha", m.systems[0].events[0].name);
	EXPECT_STREQ("beta", m.systems[0].events[1].name);
	/* each event keeps its whole format file, byte for byte */
	EXPECT_EQ((size_t)(second - two), m.systems[0].events[0].len);
	EXPECT_EQ(0, memcmp(two, m.systems[0].events[0].text, m.systems[0].events[0].len));
	EXPECT_STREQ(second, m.systems[0].events[1].text);
	/* the same system again replaces it; "ftrace" goes to FTRACE_EVENTS */
	ASSERT_EQ(0, meta_add_system_text(&m, "ftring", second, strlen(second)));
	ASSERT_EQ(1, m.nr_systems);
	EXPECT_EQ(1, m.systems[0].nr_events);
	ASSERT_EQ(0, meta_add_system_text(&m, "ftrace", two, strlen(two)));
	EXPECT_EQ(1, m.nr_systems);
	EXPECT_EQ(2, m.ftrace.nr_events);
	meta_free(&m);
	meta_free(&m);
}

TEST(add_system_text_rejects_garbage)
{
	struct trace_meta m = { 0 };

	EXPECT_EQ(-EINVAL, meta_add_system_text(&m, "x", "ID: 5\n", 6));
	EXPECT_EQ(-EINVAL, meta_add_system_text(&m, "x", "", 0));
	EXPECT_EQ(-EINVAL, meta_add_system_text(&m, "x", "name: \nID: 1\n", 13));
	/* leading junk before the first "name: " */
	EXPECT_EQ(-EINVAL, meta_add_system_text(&m, "x", "junk\nname: a\nID: 1\n", 19));
	EXPECT_EQ(0, m.nr_systems);
	meta_free(&m);
}

TEST(collect_from_tracefs)
{
	struct trace_meta m;
	int i, print = 0;

	if (geteuid() || access("/sys/kernel/tracing", F_OK))
		SKIP(return, "needs root and tracefs");
	if (meta_collect(&m, NULL))
		SKIP(return, "tracefs not readable here");
	EXPECT_GE(m.page_size, 4096);
	EXPECT_NE(NULL, strstr(m.header_page, "field: char data;"));
	EXPECT_NE(NULL, strstr(m.header_event, "type_len"));
	EXPECT_NE(NULL, m.clock);
	EXPECT_NE(NULL, m.trace_clock);
	EXPECT_NE(NULL, strchr(m.trace_clock, '['));
	for (i = 0; i < m.ftrace.nr_events; i++)
		print += !strcmp(m.ftrace.events[i].name, "print");
	EXPECT_EQ(1, print);
	EXPECT_GT(m.nr_systems, 5);
	/* tracefs_event_systems() leaves "ftrace" out, as trace-cmd's EVENT_FORMATS does */
	for (i = 0; i < m.nr_systems; i++) {
		EXPECT_STRNE("ftrace", m.systems[i].name);
		EXPECT_GT(m.systems[i].nr_events, 0);
	}
	EXPECT_GT(m.kallsyms_len, 1000);
	/* kptr_restrict is lowered for the copy: real addresses, not zeros */
	EXPECT_NE(0, strncmp(m.kallsyms, "0000000000000000", 16));
	meta_free(&m);
}

TEST_HARNESS_MAIN
