// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/daemon/trigger.c: what each trigger kind accepts and refuses, which lines of
 * the trigger instance match (as the kernel prints them), the window and the cooldown,
 * and the file names.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/trigger.h"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define MS	1000000ULL

static const struct {
	const char	*text;
	const char	*want;	/* NULL: accepted */
} specs[] = {
	{ "marker:^panic", NULL },
	{ "marker:a(b|c)+", NULL },
	{ "signal:SIGSEGV,SIGABRT", NULL },
	{ "signal:segv, 6", NULL },
	{ "oom", NULL },
	{ "hung-task", NULL },
	{ "command:upload_now", NULL },
	{ "marker:", "trigger 'marker:': give a regular expression" },
	{ "marker:a(b", "trigger 'marker:a(b': " },
	{ "signal:", "trigger 'signal:': name the signals (signal:SIGSEGV,SIGABRT)" },
	{ "signal:SIGNOPE", "trigger 'signal:SIGNOPE': 'SIGNOPE' is not a signal" },
	{ "signal:99", "trigger 'signal:99': '99' is not a signal" },
	{ "oom:now", "trigger 'oom:now': oom takes no arguments" },
	{ "hung-task:1", "trigger 'hung-task:1': hung-task takes no arguments" },
	{ "command:", "trigger 'command:': the name must be 1-63 of [A-Za-z0-9_.-]" },
	{ "command:a/b", "trigger 'command:a/b': the name must be 1-63 of [A-Za-z0-9_.-]" },
	{ "crash", "trigger 'crash': unknown kind (marker:REGEX, signal:SIG,..., oom, "
		   "hung-task, command:NAME)" },
	{ "signals:SIGSEGV", "trigger 'signals:SIGSEGV': unknown kind" },
};

TEST(specs_accepted_and_refused)
{
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct trigger_spec s;
		char err[256] = "";
		int ret = trigger_spec_parse(specs[i].text, &s, err, sizeof(err));

		if (!specs[i].want) {
			EXPECT_EQ(0, ret) TH_LOG("%s: %s", specs[i].text, err);
		} else {
			EXPECT_EQ(-EINVAL, ret) TH_LOG("%s accepted", specs[i].text);
			EXPECT_EQ(0, strncmp(err, specs[i].want, strlen(specs[i].want)))
				TH_LOG("%s: got '%s'", specs[i].text, err);
		}
		trigger_spec_free(&s);
	}
}

TEST(signal_names_and_numbers)
{
	struct trigger_spec s;
	char err[256];

	ASSERT_EQ(0, trigger_spec_parse("signal:SIGSEGV,abrt,7", &s, err, sizeof(err)));
	EXPECT_EQ((1ULL << 10) | (1ULL << 5) | (1ULL << 6), s.sigmask);
	EXPECT_EQ(TRIGGER_SIGNAL, s.kind);
	trigger_spec_free(&s);
}

static char *const conf[] = {
	"signal:SIGSEGV,SIGABRT", "marker:^(panic|fatal)", "oom", "hung-task", "command:up",
};

static void init(struct trigger_set *s, unsigned int post, unsigned int cooldown)
{
	char err[256];

	if (trigger_set_init(s, conf, 5, post, cooldown, err, sizeof(err)))
		fprintf(stderr, "init: %s\n", err);
}

/* Lines as a 6.1 and a 6.18 kernel print them with context-info off. */
TEST(lines_match_their_trigger)
{
	char detail[TRIGGER_DETAIL_MAX], who[TRIGGER_NAME_MAX];
	struct trigger_set s;

	init(&s, 1000, 0);
	ASSERT_EQ(5, s.n);
	EXPECT_EQ(0, trigger_match_line(&s, "signal_generate: sig=11 errno=0 code=1 "
					"comm=crashy pid=4242 grp=0 res=0", detail, who));
	EXPECT_STREQ("signal SIGSEGV to crashy pid 4242", detail);
	EXPECT_STREQ("crashy", who);
	EXPECT_EQ(0, trigger_match_line(&s, "signal_generate: sig=6 errno=0 code=-6 "
					"comm=a pid=1 grp=1 res=0", detail, who));
	/* a signal not asked for (the kernel filter lets none through; be sure anyway) */
	EXPECT_EQ(-1, trigger_match_line(&s, "signal_generate: sig=15 errno=0 code=0 "
					 "comm=a pid=1 grp=1 res=0", detail, who));
	EXPECT_EQ(1, trigger_match_line(&s, "tracing_mark_write: panic: disk on fire",
					detail, who));
	EXPECT_STREQ("marker 'panic: disk on fire'", detail);
	EXPECT_EQ(1, trigger_match_line(&s, "print: fatal", detail, who));
	EXPECT_EQ(-1, trigger_match_line(&s, "tracing_mark_write: all is well, no panic",
					 detail, who));
	/* our own record of a trigger never triggers */
	EXPECT_EQ(-1, trigger_match_line(&s, "tracing_mark_write: " TRIGGER_MARK_PREFIX
					 "panic", detail, who));
	/* 6.1 prints only the pid of the victim, 6.18 the comm and more */
	EXPECT_EQ(2, trigger_match_line(&s, "mark_victim: pid=77", detail, who));
	EXPECT_STREQ("oom victim ? pid 77", detail);
	EXPECT_STREQ("77", who);
	EXPECT_EQ(2, trigger_match_line(&s, "mark_victim: pid=78 comm=hog total-vm=100kB "
					"anon-rss=1kB", detail, who));
	EXPECT_STREQ("hog", who);
	EXPECT_EQ(3, trigger_match_line(&s, "sched_process_hang: comm=stuck pid=9", detail,
					who));
	EXPECT_STREQ("hung task stuck pid 9", detail);
	/* other events and garbage */
	EXPECT_EQ(-1, trigger_match_line(&s, "sched_switch: prev_comm=a", detail, who));
	EXPECT_EQ(-1, trigger_match_line(&s, "", detail, who));
	EXPECT_EQ(-1, trigger_match_line(&s, "signal_generate: sig=999 comm=x", detail, who));
	EXPECT_EQ(-1, trigger_match_line(&s, "signal_generate:", detail, who));
	EXPECT_EQ(4, trigger_match_command(&s, "up"));
	EXPECT_EQ(-1, trigger_match_command(&s, "down"));
	trigger_set_free(&s);
}

/* Hits in the window join it; after it, hits within the cooldown only count. */
TEST(window_and_cooldown)
{
	struct trigger_set s;

	init(&s, 1000, 5000);
	EXPECT_EQ(TRIGGER_OPENED, trigger_hit(&s, 0, "a", 100 * MS));
	EXPECT_EQ(TRIGGER_JOINED, trigger_hit(&s, 1, "b", 600 * MS));
	EXPECT_EQ(TRIGGER_JOINED, trigger_hit(&s, 0, "c", 900 * MS));
	EXPECT_EQ(3, s.hits);
	EXPECT_STREQ("a", s.detail);
	EXPECT_EQ(0, trigger_close_window(&s));
	EXPECT_EQ(-1, trigger_close_window(&s));
	EXPECT_EQ(TRIGGER_COOLDOWN, trigger_hit(&s, 4, "d", 1200 * MS));
	EXPECT_EQ(TRIGGER_COOLDOWN, trigger_hit(&s, 4, "e", 5099 * MS));
	EXPECT_EQ(TRIGGER_OPENED, trigger_hit(&s, 4, "f", 5100 * MS));
	EXPECT_EQ(1, s.hits);
	EXPECT_EQ(1, s.spec[0].fired);
	EXPECT_EQ(1, s.spec[0].joined);
	EXPECT_EQ(1, s.spec[1].joined);
	EXPECT_EQ(2, s.spec[4].suppressed);
	EXPECT_EQ(1, s.spec[4].fired);
	trigger_set_free(&s);

	/* no cooldown: each window after the last one closed is a file */
	init(&s, 0, 0);
	for (int i = 0; i < 10; i++) {
		EXPECT_EQ(TRIGGER_OPENED, trigger_hit(&s, 4, "x", (i + 1) * MS));
		EXPECT_EQ(4, trigger_close_window(&s));
	}
	EXPECT_EQ(10, s.spec[4].fired);
	trigger_set_free(&s);
}

TEST(file_names)
{
	char name[256];
	struct trigger_set s;

	init(&s, 1000, 0);
	/* 2026-11-25 12:34:56.789 UTC */
	trigger_file_name(&s, 0, "my app/x", 1795610096789ULL, name, sizeof(name));
	EXPECT_STREQ("trig-20261125-123456.789-signal-my_app_x.dat", name);
	trigger_file_name(&s, 2, "", 1795610096005ULL, name, sizeof(name));
	EXPECT_STREQ("trig-20261125-123456.005-oom.dat", name);
	trigger_file_name(&s, 3, "kworker/0:1", 1795610096005ULL, name, sizeof(name));
	EXPECT_STREQ("trig-20261125-123456.005-hung-task-kworker_0_1.dat", name);
	trigger_set_free(&s);
}

/*
 * The literal the module's marker watch looks for: every string the expression
 * matches must contain it (checked on a sample that matches), and it is the
 * longest run known.
 */
TEST(required_literals)
{
	static const struct {
		const char *re, *want, *sample;
		int anchored;
	} c[] = {
		{ "segfault", "segfault", "app segfault at 0", 0 },
		{ "^panic", "panic", "panic: x", 1 },
		{ "^a*panic", "panic", "panic: x", 0 },
		{ "^ab+c", "ab", "abbbc", 1 },
		{ "^x.*longer literal", "longer literal", "xy longer literal", 0 },
		{ "ab*c", "a", "ac", 0 },
		{ "colou?r", "colo", "color", 0 },
		{ "x+yz", "yz", "xxyz", 0 },
		{ "foo(bar|baz)qux", "foo", "foobazqux", 0 },
		{ "a|b", "", "b", 0 },
		{ "(a|b)", "", "a", 0 },
		{ ".*", "", "", 0 },
		{ "[0-9]+ ms", " ms", "12 ms", 0 },
		{ "lib\\.so", "lib.so", "x lib.so y", 0 },
		{ "ERR[]x]OR", "ERR", "ERR]OR", 0 },
		{ "ab{0,2}cd", "cd", "acd", 0 },
		{ "ab{2}c", "ab", "abbc", 0 },
		{ "fatal error: [a-z]+ failed", "fatal error: ", "fatal error: disk failed", 0 },
		{ "[[:alpha:]]x", "x", "qx", 0 },
		{ "(ab(c|d))+e", "e", "abde", 0 },
		{ "a\\|b", "a|b", "a|b", 0 },
		/* "{,n}" is "{0,n}"; stacked quantifiers: "a+?" is "(a+)?" */
		{ "xa{,3}", "x", "x", 0 },
		{ "a{,100}bc", "bc", "bc", 0 },
		{ "(ab){,2}cd", "cd", "cd", 0 },
		{ "xa+?yz", "yz", "xyz", 0 },
		{ "a{00}bc", "bc", "bc", 0 },
		{ "^a{2}?bc", "bc", "bc", 0 },
		{ "^ab*?c", "a", "ac", 1 },
	};
	char out[64];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		regex_t re;
		const char *at;

		EXPECT_EQ(c[i].anchored, trigger_required_literal(c[i].re, out, sizeof(out)))
			TH_LOG("%s", c[i].re);
		EXPECT_STREQ(c[i].want, out) TH_LOG("%s", c[i].re);
		ASSERT_EQ(0, regcomp(&re, c[i].re, REG_EXTENDED | REG_NOSUB));
		EXPECT_EQ(0, regexec(&re, c[i].sample, 0, NULL, 0)) TH_LOG("%s", c[i].re);
		at = strstr(c[i].sample, out);
		EXPECT_NE(NULL, at) TH_LOG("%s", c[i].re);
		if (c[i].anchored)
			EXPECT_EQ(c[i].sample, at) TH_LOG("%s", c[i].re);
		regfree(&re);
	}
	trigger_required_literal("segfault", out, 4);
	EXPECT_STREQ("seg", out);
}

/* A reload keeps the counters of the triggers it keeps; its cooldown starts afresh. */
TEST(reload_carries_counters)
{
	char *const before[] = { "oom", "command:a" }, *const after[] = { "command:b", "oom" };
	struct trigger_set s, old;
	char err[256];

	ASSERT_EQ(0, trigger_set_init(&s, before, 2, 1000, 10000, err, sizeof(err)));
	ASSERT_EQ(TRIGGER_OPENED, trigger_hit(&s, 0, "oom victim x pid 1", 1000 * MS));
	ASSERT_EQ(TRIGGER_JOINED, trigger_hit(&s, 0, "oom victim y pid 2", 1100 * MS));
	trigger_close_window(&s);
	ASSERT_EQ(TRIGGER_COOLDOWN, trigger_hit(&s, 1, "command a", 3000 * MS));
	snprintf(s.spec[0].last_file, sizeof(s.spec[0].last_file), "/x/trig-oom.dat");
	old = s;
	trigger_set_free(&s);
	ASSERT_EQ(0, trigger_set_init(&s, after, 2, 1000, 10000, err, sizeof(err)));
	trigger_set_carry(&s, &old);
	EXPECT_EQ(0, s.spec[0].fired + s.spec[0].joined + s.spec[0].suppressed);
	EXPECT_EQ(1, s.spec[1].fired);
	EXPECT_EQ(1, s.spec[1].joined);
	EXPECT_STREQ("/x/trig-oom.dat", s.spec[1].last_file);
	EXPECT_EQ(TRIGGER_OPENED, trigger_hit(&s, 0, "command b", 5000 * MS));
	EXPECT_EQ(1, s.spec[0].fired);
	trigger_set_free(&s);
}

TEST_HARNESS_MAIN
