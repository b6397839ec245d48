// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/util/cmdlines.c: merged command lines name each pid once, by the first
 * text's line (a reused pid's stale name in the kernel's text loses to the live one),
 * and the bound drops later lines, never the first text's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "util/cmdlines.h"

static char *merge(const char *a, const char *b, size_t max)
{
	size_t len = 0;
	char *m = cmdlines_merge(a, strlen(a), b, strlen(b), max, &len), *s;

	if (!m)
		return NULL;
	s = strndup(m, len);
	free(m);
	return s;
}

TEST(first_wins_one_line_per_pid)
{
	char *m = merge("7 live\n12 sh\n", "3 old\n7 stale\n12 sh\n40 gone\n", SIZE_MAX);

	ASSERT_NE(NULL, m);
	EXPECT_STREQ("7 live\n12 sh\n3 old\n40 gone\n", m);
	free(m);
}

TEST(bound_drops_later_lines_only)
{
	char *m = merge("1 a\n2 b\n", "3 c\n4 d\n", 12);

	ASSERT_NE(NULL, m);
	EXPECT_STREQ("1 a\n2 b\n3 c\n", m);
	free(m);
	m = merge("1 a\n2 b\n", "3 c\n", 4);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("1 a\n2 b\n", m);
	free(m);
}

TEST(empty_and_unterminated)
{
	char *m = merge("", "5 x\n6 y", SIZE_MAX);

	ASSERT_NE(NULL, m);
	EXPECT_STREQ("5 x\n6 y", m);
	free(m);
	m = merge("5 z", "5 x\n7 w\n", SIZE_MAX);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("5 z\n7 w\n", m);
	free(m);
}

TEST_HARNESS_MAIN
