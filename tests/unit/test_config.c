// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/daemon/config.c and recorder/daemon/rotate.c: defaults, the file parser (every error names
 * its line), CLI overrides over the file, consistency checks, file names, the glob the
 * disk budget uses, and the budget itself on a scratch directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "daemon/config.h"
/* The harness compares int literals with unsigned fields. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"
#include "util/log.h"
#include "daemon/rotate.h"

static int parse(struct rec_config *c, const char *text, char *err)
{
	config_defaults(c);
	return config_parse_text(c, text, "test.conf", err);
}

TEST(defaults)
{
	struct rec_config c;
	char err[CONFIG_ERR_LEN] = "";

	config_defaults(&c);
	EXPECT_STREQ("auto", c.source);
	EXPECT_EQ(CONFIG_MODE_STREAM, c.mode);
	EXPECT_EQ(V7_COMP_ZSTD, c.comp);
	EXPECT_STREQ("/run/recorderd/ctl.sock", c.socket);
	EXPECT_EQ(0, c.nr_events);
	EXPECT_EQ(0, config_check(&c, err));
	config_free(&c);
}

TEST(every_key_parses)
{
	static const char text[] =
		"# comment\n"
		"\n"
		"source = mmap\n"
		"instance = rec_test\n"
		"events = sched:sched_switch, irq  sched:sched_wakeup\n"
		"event = timer:hrtimer_start\n"
		"buffer_kb = 4096\n"
		"mode = flight\n"
		"compression = none\n"
		"zstd_level = 3\n"
		"chunk_pages = 16\n"
		"region_size = 64M\n"
		"output_dir = \"/var/tmp/rec\"\n"
		"file_pattern = fr-%Y-%#.dat\n"
		"rotate_size = 100 MiB\n"
		"rotate_time = 10m\n"
		"disk_budget = 2G\n"
		"clock = mono\n"
		"period_ms = 100\n"
		"sync_ms = 500\n"
		"watchdog_ms = 1000\n"
		"stop_timeout = 1m\n"
		"socket = /tmp/x.sock\n"
		"pidfile = /run/recorderd.pid\n"
		"log_level = debug\n";
	struct rec_config c;
	char err[CONFIG_ERR_LEN] = "";

	ASSERT_EQ(0, parse(&c, text, err)) TH_LOG("%s", err);
	EXPECT_STREQ("mmap", c.source);
	EXPECT_STREQ("rec_test", c.instance);
	ASSERT_EQ(4, c.nr_events);
	EXPECT_STREQ("sched:sched_switch", c.events[0]);
	EXPECT_STREQ("irq", c.events[1]);
	EXPECT_STREQ("sched:sched_wakeup", c.events[2]);
	EXPECT_STREQ("timer:hrtimer_start", c.events[3]);
	EXPECT_EQ(4096, c.buffer_kb);
	EXPECT_EQ(CONFIG_MODE_FLIGHT, c.mode);
	EXPECT_EQ(V7_COMP_NONE, c.comp);
	EXPECT_EQ(3, c.zstd_level);
	EXPECT_EQ(16, c.chunk_pages);
	EXPECT_EQ(64ULL << 20, c.region_bytes);
	EXPECT_STREQ("/var/tmp/rec", c.output_dir);
	EXPECT_STREQ("fr-%Y-%#.dat", c.file_pattern);
	EXPECT_EQ(100ULL << 20, c.rotate_size);
	EXPECT_EQ(600, c.rotate_secs);
	EXPECT_EQ(2ULL << 30, c.disk_budget);
	EXPECT_STREQ("mono", c.clock);
	EXPECT_EQ(100, c.period_ms);
	EXPECT_EQ(500, c.sync_ms);
	EXPECT_EQ(1000, c.watchdog_ms);
	EXPECT_EQ(60, c.stop_timeout_s);
	EXPECT_STREQ("/tmp/x.sock", c.socket);
	EXPECT_STREQ("/run/recorderd.pid", c.pidfile);
	EXPECT_EQ(LOG_LVL_DEBUG, c.log_level);
	EXPECT_EQ(0, config_check(&c, err)) TH_LOG("%s", err);
	config_free(&c);
}

/* Each bad line must fail with the file name, the right line number and the reason. */
static const struct {
	const char	*text;
	const char	*want;
} bad[] = {
	{ "bogus = 1\n", "test.conf:1: unknown key 'bogus'" },
	{ "\n\n# c\nmode = fast\n", "test.conf:4: mode: 'fast' is not one of: stream, flight" },
	{ "buffer_kb = abc\n", "test.conf:1: buffer_kb: 'abc' is not a non-negative integer" },
	{ "buffer_kb = -4\n", "test.conf:1: buffer_kb: '-4' is not a non-negative integer" },
	{ "buffer_kb = 4k\n", "test.conf:1: buffer_kb: '4k' is not a non-negative integer" },
	{ "rotate_size = 12X\n", "test.conf:1: rotate_size: '12X' is not a size" },
	{ "rotate_time = 5 weeks\n", "test.conf:1: rotate_time: '5 weeks' is not a duration" },
	{ "zstd_level = 99\n", "test.conf:1: zstd_level: 99 is out of range [0, 19]" },
	{ "period_ms = 1\n", "test.conf:1: period_ms: 1 is out of range [10, 60000]" },
	{ "output_dir = relative/dir\n", "test.conf:1: output_dir: 'relative/dir' is not an abs" },
	{ "source = ftrace\n", "test.conf:1: source: 'ftrace' is not one of: auto, kmod" },
	{ "compression = lz4\n", "test.conf:1: compression: 'lz4' is not one of: zstd, none" },
	{ "events = sched:a:b\n", "test.conf:1: bad event 'sched:a:b'" },
	{ "events = sched:\n", "test.conf:1: bad event 'sched:'" },
	{ "event = a/b\n", "test.conf:1: bad event 'a/b'" },
	{ "mode\n", "test.conf:1: expected 'key = value', got 'mode'" },
	{ " = 3\n", "test.conf:1: missing key before '='" },
	{ "file_pattern = a/b-%#.dat\n", "test.conf:1: file_pattern 'a/b-%#.dat' must be a fil" },
	{ "file_pattern = fixed.dat\n", "test.conf:1: file_pattern 'fixed.dat' needs %# (seq" },
	{ "file_pattern = t-%#.txt\n", "test.conf:1: file_pattern 't-%#.txt' must end in .dat" },
	{ "instance = ../x\n", "test.conf:1: instance: '../x' is not a valid name" },
	{ "clock = wall\n", "test.conf:1: clock: 'wall' is not one of: local" },
	{ "rotate_size = 99999999999999999999\n", "test.conf:1: rotate_size: '9999999" },
};

TEST(bad_lines_name_their_line)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rec_config c;
		char err[CONFIG_ERR_LEN] = "";

		EXPECT_EQ(-EINVAL, parse(&c, bad[i].text, err)) TH_LOG("case %zu", i);
		EXPECT_EQ(0, strncmp(err, bad[i].want, strlen(bad[i].want)))
			TH_LOG("case %zu: got '%s', want '%s...'", i, err, bad[i].want);
		config_free(&c);
	}
}

TEST(first_error_stops_and_keeps_earlier_values)
{
	struct rec_config c;
	char err[CONFIG_ERR_LEN];

	ASSERT_EQ(-EINVAL, parse(&c, "buffer_kb = 8\nnope = 1\nbuffer_kb = 16\n", err));
	EXPECT_EQ(8, c.buffer_kb);
	EXPECT_EQ(0, strncmp(err, "test.conf:2:", 12));
	config_free(&c);
}

TEST(file_then_cli_overrides)
{
	char dir[] = "/tmp/test_config.XXXXXX", path[256], err[CONFIG_ERR_LEN] = "";
	const struct config_override ov[] = {
		{ "events", "irq" }, { "event", "sched" }, { "mode", "flight" },
	};
	struct rec_config c;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.conf", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "events = timer\nbuffer_kb = 2048\nmode = stream\n");
	fclose(f);
	ASSERT_EQ(0, config_build(&c, path, ov, 3, err)) TH_LOG("%s", err);
	EXPECT_EQ(2048, c.buffer_kb);		/* from the file */
	EXPECT_EQ(CONFIG_MODE_FLIGHT, c.mode);	/* CLI wins */
	ASSERT_EQ(2, c.nr_events);		/* CLI -e replaces the file's list */
	EXPECT_STREQ("irq", c.events[0]);
	EXPECT_STREQ("sched", c.events[1]);
	config_free(&c);

	/* A bad CLI value is reported as such, and nothing leaks. */
	const struct config_override bad_ov[] = { { "buffer_kb", "lots" } };

	EXPECT_EQ(-EINVAL, config_build(&c, path, bad_ov, 1, err));
	EXPECT_EQ(0, strncmp(err, "command line: buffer_kb:", 24)) TH_LOG("%s", err);

	/* A missing file is an error naming it. */
	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	EXPECT_EQ(-ENOENT, config_build(&c, path, NULL, 0, err));
	EXPECT_NE(NULL, strstr(err, "missing.conf: No such file"));
	snprintf(path, sizeof(path), "%s/r.conf", dir);
	unlink(path);
	rmdir(dir);
}

TEST(consistency_checks)
{
	struct rec_config c;
	char err[CONFIG_ERR_LEN];

	ASSERT_EQ(0, parse(&c, "rotate_size = 100M\ndisk_budget = 150M\n", err));
	EXPECT_EQ(-EINVAL, config_check(&c, err));
	EXPECT_NE(NULL, strstr(err, "twice rotate_size"));
	config_free(&c);
	ASSERT_EQ(0, parse(&c, "rotate_size = 0\ndisk_budget = 1G\n", err));
	EXPECT_EQ(-EINVAL, config_check(&c, err));
	EXPECT_NE(NULL, strstr(err, "needs rotate_size or rotate_time"));
	config_free(&c);
	ASSERT_EQ(0, parse(&c, "period_ms = 500\nsync_ms = 100\n", err));
	EXPECT_EQ(-EINVAL, config_check(&c, err));
	config_free(&c);
}

#define D2 "[0-9][0-9]"
#define D4 "[0-9][0-9][0-9][0-9]"
#define GLOB_FLAGS (FNM_PERIOD | FNM_EXTMATCH)

TEST(file_names_and_glob)
{
	struct rec_config c;
	char name[256], glob[256], err[CONFIG_ERR_LEN];

	config_defaults(&c);
	/* 2026-01-02 03:04:05 UTC */
	ASSERT_EQ(0, config_file_name(&c, 1767323045, 7, name, sizeof(name)));
	EXPECT_STREQ("trace-20260102-030405-0007.dat", name);
	ASSERT_EQ(0, config_file_glob(&c, glob, sizeof(glob)));
	EXPECT_STREQ("trace-" D4 D4 "-" D4 D2 "-" D2 "[0-9]+([0-9]).dat", glob);
	EXPECT_EQ(0, fnmatch(glob, name, GLOB_FLAGS));
	EXPECT_NE(0, fnmatch(glob, "other.dat", GLOB_FLAGS));
	EXPECT_NE(0, fnmatch(glob, "trace-old-copy-1.dat", GLOB_FLAGS));
	EXPECT_NE(0, fnmatch(glob, "trace-20260102-030405-0007-notes.dat", GLOB_FLAGS));
	EXPECT_EQ(0, fnmatch(glob, "trace-20260102-030405-12345.dat", GLOB_FLAGS));
	/* all conversions: the glob is still no wider than the names */
	ASSERT_EQ(0, config_set(&c, "file_pattern", "%S.dat", err));
	ASSERT_EQ(0, config_file_glob(&c, glob, sizeof(glob)));
	EXPECT_STREQ(D2 ".dat", glob);
	EXPECT_NE(0, fnmatch(glob, "notes.dat", GLOB_FLAGS));
	ASSERT_EQ(0, config_set(&c, "file_pattern", "%s%y%j-%#.dat", err));
	ASSERT_EQ(0, config_file_name(&c, 1767323045, 123456, name, sizeof(name)));
	EXPECT_STREQ("176732304526002-123456.dat", name);
	ASSERT_EQ(0, config_file_glob(&c, glob, sizeof(glob)));
	EXPECT_EQ(0, fnmatch(glob, name, GLOB_FLAGS)) TH_LOG("glob %s", glob);
	/* conversions that give a '/', a space or letters are refused */
	EXPECT_EQ(-EINVAL, config_set(&c, "file_pattern", "t-%D-%#.dat", err));
	EXPECT_STREQ("file_pattern 't-%D-%#.dat': %D is not one of %Y %y %m %d %j %H %M %S %s %F %T %# %%",
		     err);
	/* %%# and %%S are text: the names would not differ */
	EXPECT_EQ(-EINVAL, config_set(&c, "file_pattern", "t-%%#-%%S.dat", err));
	/* %F and %T (date, time) */
	ASSERT_EQ(0, config_set(&c, "file_pattern", "t-%F-%T.dat", err));
	ASSERT_EQ(0, config_file_name(&c, 1767323045, 0, name, sizeof(name)));
	EXPECT_STREQ("t-2026-01-02-03:04:05.dat", name);
	ASSERT_EQ(0, config_file_glob(&c, glob, sizeof(glob)));
	EXPECT_EQ(0, fnmatch(glob, name, GLOB_FLAGS)) TH_LOG("glob %s", glob);
	/* one whose glob would not fit is refused: the budget could not be kept */
	EXPECT_EQ(-EINVAL, config_set(&c, "file_pattern",
				      "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s.dat",
				      err));
	EXPECT_EQ(-EINVAL, config_set(&c, "file_pattern", "t-%x-%#.dat", err));
	EXPECT_EQ(-EINVAL, config_set(&c, "file_pattern", "t-%c-%#.dat", err));
	EXPECT_EQ(-EINVAL, config_set(&c, "file_pattern", "t-%#.dat%", err));
	ASSERT_EQ(0, config_set(&c, "file_pattern", "a[1]+(x)-%%-%#.dat", err));
	ASSERT_EQ(0, config_file_name(&c, 0, 12345, name, sizeof(name)));
	EXPECT_STREQ("a[1]+(x)-%-12345.dat", name);
	ASSERT_EQ(0, config_file_glob(&c, glob, sizeof(glob)));
	EXPECT_EQ(0, fnmatch(glob, name, GLOB_FLAGS)) TH_LOG("glob %s", glob);
	EXPECT_EQ(-ENAMETOOLONG, config_file_name(&c, 0, 1, name, 5));
	config_free(&c);
}

static void make_file(const char *dir, const char *name, size_t bytes, time_t mtime)
{
	char path[512], *buf = calloc(1, bytes);
	struct timeval tv[2] = { { mtime, 0 }, { mtime, 0 } };
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(buf, 0x5a, bytes);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, buf, bytes) != (ssize_t)bytes)
			perror("write");
		close(fd);
	}
	utimes(path, tv);
	free(buf);
}

static int exists(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

TEST(disk_budget_deletes_oldest_of_the_pattern_only)
{
	char dir[] = "/tmp/test_budget.XXXXXX", cur[600], err[CONFIG_ERR_LEN];
	struct rotate_state rs = { 0 };
	struct rec_config c;

	ASSERT_NE(NULL, mkdtemp(dir));
	config_defaults(&c);
	ASSERT_EQ(0, config_set(&c, "output_dir", dir, err));
	ASSERT_EQ(0, config_set(&c, "rotate_size", "100K", err));
	ASSERT_EQ(0, config_set(&c, "disk_budget", "400K", err));
	make_file(dir, "trace-20260101-000001-0000.dat", 100 << 10, 1000);
	make_file(dir, "trace-20260101-000002-0001.dat", 100 << 10, 2000);
	make_file(dir, "trace-20260101-000003-0002.dat", 100 << 10, 3000);
	make_file(dir, "trace-20260101-000004-0003.dat", 100 << 10, 4000);
	make_file(dir, "keep-me.dat", 300 << 10, 10);	/* not of the pattern */
	make_file(dir, "trace-20260101-000005-0004.dat", 50 << 10, 5000);
	snprintf(cur, sizeof(cur), "%s/trace-20260101-000005-0004.dat", dir);

	/* 450K of pattern files, budget 400K, 100K kept free for the current one. */
	EXPECT_EQ(2, rotate_enforce_budget(&c, &rs, cur, 100 << 10));
	EXPECT_FALSE(exists(dir, "trace-20260101-000001-0000.dat"));
	EXPECT_FALSE(exists(dir, "trace-20260101-000002-0001.dat"));
	EXPECT_TRUE(exists(dir, "trace-20260101-000003-0002.dat"));
	EXPECT_TRUE(exists(dir, "keep-me.dat"));
	EXPECT_TRUE(exists(dir, cur + strlen(dir) + 1));
	EXPECT_EQ(2, rs.deleted);
	EXPECT_GE(rs.disk_used, 250 << 10);
	EXPECT_LE(rs.disk_used, 270 << 10);

	/* The current file is never deleted, even when it alone is over budget. */
	ASSERT_EQ(0, config_set(&c, "disk_budget", "200K", err));
	EXPECT_EQ(2, rotate_enforce_budget(&c, &rs, cur, 1 << 30));
	EXPECT_TRUE(exists(dir, cur + strlen(dir) + 1));

	/* The next name never overwrites an existing file. */
	char next[600];

	ASSERT_EQ(0, rotate_next_path(&c, &rs, 0, next, sizeof(next)));
	EXPECT_EQ(0, strncmp(next, dir, strlen(dir)));
	EXPECT_NE(0, access(next, F_OK));

	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
	config_free(&c);
}

TEST(triggers_add_up_and_need_flight_mode)
{
	struct rec_config c, d;
	char err[CONFIG_ERR_LEN] = "";

	ASSERT_EQ(0, parse(&c, "mode = flight\ntrigger = signal:SIGSEGV,SIGABRT\n"
			   "trigger = marker:^panic\ntrigger = oom\ntrigger = oom\n"
			   "trigger_post_ms = 250\ntrigger_cooldown_ms = 0\n"
			   "trigger_max_files = 3\n", err)) TH_LOG("%s", err);
	ASSERT_EQ(3, c.nr_triggers);
	EXPECT_STREQ("signal:SIGSEGV,SIGABRT", c.triggers[0]);
	EXPECT_STREQ("marker:^panic", c.triggers[1]);
	EXPECT_STREQ("oom", c.triggers[2]);
	EXPECT_EQ(250, c.trigger_post_ms);
	EXPECT_EQ(0, c.trigger_cooldown_ms);
	EXPECT_EQ(3, c.trigger_max_files);
	EXPECT_EQ(0, config_check(&c, err)) TH_LOG("%s", err);
	/* the command line adds to the file's */
	ASSERT_EQ(0, config_set(&c, "trigger", "command:up", err));
	EXPECT_EQ(4, c.nr_triggers);
	config_copy(&d, &c);
	EXPECT_STREQ("command:up", d.triggers[3]);
	config_free(&d);
	ASSERT_EQ(0, config_set(&c, "mode", "stream", err));
	EXPECT_EQ(-EINVAL, config_check(&c, err));
	EXPECT_STREQ("triggers need mode = flight (in stream mode every event is in the "
		     "files already)", err);
	config_free(&c);

	EXPECT_EQ(-EINVAL, parse(&c, "mode = flight\n\ntrigger = signal:SIGWHAT\n", err));
	EXPECT_STREQ("test.conf:3: trigger 'signal:SIGWHAT': 'SIGWHAT' is not a signal", err);
	config_free(&c);
	EXPECT_EQ(-EINVAL, parse(&c, "trigger_max_files = 0\n", err));
	config_free(&c);
	config_defaults(&c);
	EXPECT_EQ(1000, c.trigger_post_ms);
	EXPECT_EQ(0, c.nr_triggers);
	config_free(&c);
}

/* Trigger files: at most trigger_max_files, within what the budget leaves; oldest go. */
TEST(trigger_files_are_capped)
{
	char dir[] = "/tmp/test_trigfiles.XXXXXX", cur[600], cmd[700], err[CONFIG_ERR_LEN];
	struct rotate_state rs = { 0 };
	struct rec_config c;
	uint64_t used = 0;

	ASSERT_NE(NULL, mkdtemp(dir));
	config_defaults(&c);
	ASSERT_EQ(0, config_set(&c, "output_dir", dir, err));
	ASSERT_EQ(0, config_set(&c, "trigger_max_files", "3", err));
	make_file(dir, "trig-20260101-000001.000-oom.dat", 10 << 10, 1000);
	make_file(dir, "trig-20260101-000002.000-signal-a.dat", 10 << 10, 2000);
	make_file(dir, "trig-20260101-000003.000-command-up.dat", 10 << 10, 3000);
	make_file(dir, "trace-20260101-000001-0000.dat", 10 << 10, 500);
	make_file(dir, "trig-20260101-000004.000-oom.dat", 10 << 10, 4000);
	snprintf(cur, sizeof(cur), "%s/trig-20260101-000004.000-oom.dat", dir);
	EXPECT_EQ(1, rotate_enforce_trigger_files(&c, &rs, cur, &used));
	EXPECT_FALSE(exists(dir, "trig-20260101-000001.000-oom.dat"));
	EXPECT_TRUE(exists(dir, "trig-20260101-000002.000-signal-a.dat"));
	EXPECT_TRUE(exists(dir, "trace-20260101-000001-0000.dat"));
	EXPECT_TRUE(exists(dir, "trig-20260101-000004.000-oom.dat"));
	EXPECT_GE(used, 30 << 10);
	/* the budget, less what the pattern's files take, holds two of them */
	ASSERT_EQ(0, config_set(&c, "disk_budget", "40K", err));
	rs.disk_used = 15 << 10;
	EXPECT_EQ(1, rotate_enforce_trigger_files(&c, &rs, cur, &used));
	EXPECT_FALSE(exists(dir, "trig-20260101-000002.000-signal-a.dat"));
	EXPECT_TRUE(exists(dir, "trig-20260101-000003.000-command-up.dat"));
	EXPECT_TRUE(exists(dir, "trace-20260101-000001-0000.dat"));
	/* the newest is never deleted */
	ASSERT_EQ(0, config_set(&c, "disk_budget", "1K", err));
	EXPECT_EQ(1, rotate_enforce_trigger_files(&c, &rs, cur, &used));
	EXPECT_TRUE(exists(dir, "trig-20260101-000004.000-oom.dat"));
	config_free(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

/* A wide pattern also matches trigger names: the budget of the pattern never takes them. */
TEST(wide_pattern_leaves_trigger_files)
{
	char dir[] = "/tmp/test_widepat.XXXXXX", cur[600], cmd[700], err[CONFIG_ERR_LEN];
	struct rotate_state rs = { 0 };
	struct rec_config c;

	ASSERT_NE(NULL, mkdtemp(dir));
	config_defaults(&c);
	ASSERT_EQ(0, config_set(&c, "output_dir", dir, err));
	ASSERT_EQ(0, config_set(&c, "file_pattern", "%Y%m%d-%H%M%S.dat", err));
	ASSERT_EQ(0, config_set(&c, "rotate_size", "10K", err));
	ASSERT_EQ(0, config_set(&c, "disk_budget", "30K", err));
	make_file(dir, "trig-20260101-000001.000-oom.dat", 20 << 10, 100);
	make_file(dir, "lastboot-4ca3da25-e914-41c1-b333-ab88152e7f6c.dat", 20 << 10, 50);
	make_file(dir, "20260101-000001.dat", 20 << 10, 1000);
	make_file(dir, "20260101-000002.dat", 20 << 10, 2000);
	snprintf(cur, sizeof(cur), "%s/20260101-000002.dat", dir);
	EXPECT_EQ(1, rotate_enforce_budget(&c, &rs, cur, 0));
	EXPECT_TRUE(exists(dir, "trig-20260101-000001.000-oom.dat"));
	/* nor a previous boot's crash trace */
	EXPECT_TRUE(exists(dir, "lastboot-4ca3da25-e914-41c1-b333-ab88152e7f6c.dat"));
	EXPECT_FALSE(exists(dir, "20260101-000001.dat"));
	/* and no pattern may make trigger or previous-boot names */
	EXPECT_EQ(-EINVAL, config_set(&c, "file_pattern", "trig-%#.dat", err));
	EXPECT_STREQ("file_pattern 'trig-%#.dat': names starting trig- or lastboot- are the "
		     "trigger and previous-boot files'", err);
	EXPECT_EQ(-EINVAL, config_set(&c, "file_pattern", "lastboot-%#.dat", err));
	config_free(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

/*
 * Previous-boot traces: the newest LASTBOOT_FILES_KEPT stay, whatever their size and
 * age (these are from 1970; max_age is an hour).
 */
TEST(lastboot_files_capped)
{
	struct rec_config c;
	char dir[] = "/tmp/recd-lbXXXXXX", err[CONFIG_ERR_LEN], name[64], cmd[64];

	ASSERT_NE(NULL, mkdtemp(dir));
	config_defaults(&c);
	ASSERT_EQ(0, config_set(&c, "output_dir", dir, err));
	ASSERT_EQ(0, config_set(&c, "max_age", "1h", err));
	for (int i = 0; i < LASTBOOT_FILES_KEPT + 2; i++) {
		snprintf(name, sizeof(name), "lastboot-%08d-e914-41c1-b333-ab88152e7f6c.dat", i);
		make_file(dir, name, 4 << 10, 1000 + i);
	}
	make_file(dir, "20260101-000001.dat", 4 << 10, 10);
	EXPECT_EQ(2, rotate_enforce_lastboot_files(&c, NULL));
	EXPECT_FALSE(exists(dir, "lastboot-00000000-e914-41c1-b333-ab88152e7f6c.dat"));
	EXPECT_FALSE(exists(dir, "lastboot-00000001-e914-41c1-b333-ab88152e7f6c.dat"));
	EXPECT_TRUE(exists(dir, "lastboot-00000002-e914-41c1-b333-ab88152e7f6c.dat"));
	EXPECT_TRUE(exists(dir, "20260101-000001.dat"));
	config_free(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

/* max_age deletes the files of the pattern older than it, never the current one. */
TEST(max_age_deletes_old_files)
{
	char dir[] = "/tmp/test_maxage.XXXXXX", cur[600], cmd[700], err[CONFIG_ERR_LEN];
	struct rotate_state rs = { 0 };
	struct rec_config c;
	time_t now = time(NULL);

	ASSERT_NE(NULL, mkdtemp(dir));
	config_defaults(&c);
	ASSERT_EQ(0, config_set(&c, "output_dir", dir, err));
	ASSERT_EQ(0, config_set(&c, "max_age", "1h", err));
	EXPECT_EQ(3600, c.max_age_s);
	make_file(dir, "trace-20260101-000001-0000.dat", 4096, now - 3 * 3600);
	make_file(dir, "trace-20260101-000002-0001.dat", 4096, now - 2 * 3600);
	make_file(dir, "trace-20260101-000003-0002.dat", 4096, now - 600);
	make_file(dir, "old-but-not-ours.dat", 4096, now - 5 * 3600);
	make_file(dir, "trace-20260101-000004-0003.dat", 4096, now - 4 * 3600);
	snprintf(cur, sizeof(cur), "%s/trace-20260101-000004-0003.dat", dir);
	EXPECT_EQ(2, rotate_enforce_budget(&c, &rs, cur, 0));
	EXPECT_FALSE(exists(dir, "trace-20260101-000001-0000.dat"));
	EXPECT_FALSE(exists(dir, "trace-20260101-000002-0001.dat"));
	EXPECT_TRUE(exists(dir, "trace-20260101-000003-0002.dat"));
	EXPECT_TRUE(exists(dir, "old-but-not-ours.dat"));
	EXPECT_TRUE(exists(dir, "trace-20260101-000004-0003.dat"));	/* current */
	/* no limit set: nothing is deleted */
	ASSERT_EQ(0, config_set(&c, "max_age", "0", err));
	make_file(dir, "trace-20260101-000005-0004.dat", 4096, now - 9 * 3600);
	EXPECT_EQ(0, rotate_enforce_budget(&c, &rs, cur, 0));
	config_free(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

/*
 * Flight mode: the newest snapshot stays whatever its size, the older ones go for the
 * budget; with no current file (tracefs) as with the module's work file.
 */
TEST(flight_budget_keeps_the_newest_snapshot)
{
	char dir[] = "/tmp/test_flightbudget.XXXXXX", cur[600], cmd[700], err[CONFIG_ERR_LEN];
	struct rotate_state rs = { 0 };
	struct rec_config c;

	ASSERT_NE(NULL, mkdtemp(dir));
	config_defaults(&c);
	ASSERT_EQ(0, config_set(&c, "output_dir", dir, err));
	ASSERT_EQ(0, config_set(&c, "mode", "flight", err));
	ASSERT_EQ(0, config_set(&c, "rotate_size", "10K", err));
	ASSERT_EQ(0, config_set(&c, "disk_budget", "30K", err));
	make_file(dir, "trace-20260101-000001-0000.dat", 20 << 10, 1000);
	make_file(dir, "trace-20260101-000002-0001.dat", 40 << 10, 2000);
	EXPECT_EQ(1, rotate_enforce_budget(&c, &rs, "", 0));
	EXPECT_FALSE(exists(dir, "trace-20260101-000001-0000.dat"));
	EXPECT_TRUE(exists(dir, "trace-20260101-000002-0001.dat"));
	EXPECT_EQ(0, rotate_enforce_budget(&c, &rs, NULL, 0));
	EXPECT_TRUE(exists(dir, "trace-20260101-000002-0001.dat"));
	/* the module's work file is current: the snapshot before it is the newest */
	make_file(dir, "trace-20260101-000003-0002.dat", 4 << 10, 3000);
	snprintf(cur, sizeof(cur), "%s/trace-20260101-000003-0002.dat", dir);
	EXPECT_EQ(0, rotate_enforce_budget(&c, &rs, cur, 0));
	EXPECT_TRUE(exists(dir, "trace-20260101-000002-0001.dat"));
	/* stream mode: the file before the current one goes */
	ASSERT_EQ(0, config_set(&c, "mode", "stream", err));
	EXPECT_EQ(1, rotate_enforce_budget(&c, &rs, cur, 0));
	EXPECT_FALSE(exists(dir, "trace-20260101-000002-0001.dat"));
	config_free(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

/* group: the directories made, and an existing one private to us; no shared one. */
TEST(mkdir_gives_only_private_directories_to_the_group)
{
	char dir[] = "/tmp/test_mkdirgrp.XXXXXX", sub[600], cmd[700];
	struct stat st;

	if (geteuid())
		SKIP(return, "needs root to give directories to a group");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	ASSERT_EQ(0, rotate_mkdir_p(sub, 1));
	ASSERT_EQ(0, stat(sub, &st));
	EXPECT_EQ(1, st.st_gid);
	EXPECT_EQ(0750, st.st_mode & 07777);
	ASSERT_EQ(0, chmod(dir, 01777));
	ASSERT_EQ(0, rotate_mkdir_p(dir, 1));
	ASSERT_EQ(0, stat(dir, &st));
	EXPECT_EQ(0, st.st_gid);
	ASSERT_EQ(0, chmod(dir, 0755));
	ASSERT_EQ(0, rotate_mkdir_p(dir, 1));
	ASSERT_EQ(0, stat(dir, &st));
	EXPECT_EQ(0, st.st_gid);
	ASSERT_EQ(0, chmod(dir, 0750));
	ASSERT_EQ(0, rotate_mkdir_p(dir, 1));
	ASSERT_EQ(0, stat(dir, &st));
	EXPECT_EQ(1, st.st_gid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

/* A directory that cannot hold the next file says why at once, not "File exists". */
TEST(next_path_names_the_error)
{
	char dir[] = "/tmp/test_next.XXXXXX", file[64], next[600], err[CONFIG_ERR_LEN];
	struct rotate_state rs = { 0 };
	struct rec_config c;
	int fd;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/plain", dir);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	config_defaults(&c);
	ASSERT_EQ(0, config_set(&c, "output_dir", file, err));
	EXPECT_EQ(-ENOTDIR, rotate_next_path(&c, &rs, 0, next, sizeof(next)));
	EXPECT_EQ(1, rs.seq);

	/* taken names are passed over, the first free one is taken */
	ASSERT_EQ(0, config_set(&c, "output_dir", dir, err));
	ASSERT_EQ(0, config_set(&c, "file_pattern", "t-%#.dat", err));
	rs.seq = 0;
	make_file(dir, "t-0000.dat", 10, 1000);
	make_file(dir, "t-0001.dat", 10, 1000);
	ASSERT_EQ(0, rotate_next_path(&c, &rs, 0, next, sizeof(next)));
	EXPECT_STREQ("t-0002.dat", next + strlen(dir) + 1);

	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
	config_free(&c);
}

TEST(rotation_due_by_size_and_time)
{
	struct rotate_state rs = { .started = 1000 };
	struct rec_config c;
	char err[CONFIG_ERR_LEN];

	config_defaults(&c);
	ASSERT_EQ(0, config_set(&c, "rotate_size", "1M", err));
	ASSERT_EQ(0, config_set(&c, "rotate_time", "1h", err));
	EXPECT_EQ(NULL, rotate_due(&c, &rs, 1000, 1010));
	EXPECT_STREQ("size", rotate_due(&c, &rs, 1 << 20, 1010));
	EXPECT_STREQ("time", rotate_due(&c, &rs, 10, 1000 + 3600));
	ASSERT_EQ(0, config_set(&c, "rotate_size", "0", err));
	ASSERT_EQ(0, config_set(&c, "rotate_time", "0", err));
	EXPECT_EQ(NULL, rotate_due(&c, &rs, 1ULL << 40, 1ULL << 30));
	config_free(&c);
}

TEST_HARNESS_MAIN
