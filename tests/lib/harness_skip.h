/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kselftest harness of Linux 6.1 (Debian's linux-source-6.1, where scripts/setup-deps
 * takes it from) runs a test's body even when its FIXTURE_SETUP called SKIP(): SKIP
 * leaves the test "passed", and only a failed setup stops it. Later harnesses stop
 * there too. A body whose setup may skip starts with
 *	if (setup_skipped(_metadata))
 *		return;
 * so the skip and its reason stand instead of the body failing on what setup lacked.
 * Include after kselftest_harness.h.
 */
#ifndef TESTS_HARNESS_SKIP_H
#define TESTS_HARNESS_SKIP_H

#include <stdbool.h>

static inline bool setup_skipped(const struct __test_metadata *m)
{
	return m->skip;
}

#endif /* TESTS_HARNESS_SKIP_H */
