// SPDX-License-Identifier: GPL-2.0
/*
 * The control protocol (common/ctl_proto.h, recorder/daemon/ctl_server.c, ctl_client.c):
 * ctl_check_request() on short, bad-magic, bad-reserved, bad-version, bad-length,
 * bad-command and bad-payload requests, then the same through a live socket served by
 * the daemon's event loop, including SO_PEERCRED read-only peers.
 */
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/ctl.h"
#include "util/log.h"
#include "capture/loop.h"
/* The harness compares int literals with unsigned fields. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

static int calls_status, calls_stop;

static void h_status(void *ctx, const struct ctl_peer *p, const void *pl, uint32_t len,
		     struct ctl_reply *r)
{
	calls_status++;
	ctl_reply_add(r, "status!", 7);
}

static void h_stop(void *ctx, const struct ctl_peer *p, const void *pl, uint32_t len,
		   struct ctl_reply *r)
{
	calls_stop++;
	loop_quit(ctx, 0);
}

static void h_snap(void *ctx, const struct ctl_peer *p, const void *pl, uint32_t len,
		   struct ctl_reply *r)
{
	ctl_reply_add(r, pl, len);	/* echo */
}

static const struct ctl_command table[] = {
	{ CTL_CMD_STATUS,   0, 0,   1, h_status },
	{ CTL_CMD_STOP,	    0, 0,   0, h_stop },
	{ CTL_CMD_SNAPSHOT, 0, 100, 0, h_snap },
};

#define NT	(sizeof(table) / sizeof(table[0]))

static struct ctl_hdr hdr(uint16_t code, uint32_t len)
{
	struct ctl_hdr h = {
		.magic = CTL_MAGIC, .version = CTL_PROTO_VERSION, .code = code,
		.payload_len = len,
	};
	return h;
}

TEST(check_request)
{
	const struct ctl_command *cmd = NULL;
	uint8_t msg[256] = { 0 };
	struct ctl_hdr h;

	h = hdr(CTL_CMD_STATUS, 0);
	memcpy(msg, &h, sizeof(h));
	EXPECT_EQ(CTL_ST_OK, ctl_check_request(msg, sizeof(h), table, NT, &cmd));
	EXPECT_EQ(&table[0], cmd);

	/* short: anything below the header */
	for (size_t n = 0; n < sizeof(h); n++)
		EXPECT_EQ(CTL_ST_BAD_LENGTH, ctl_check_request(msg, n, table, NT, &cmd));
	/* oversized (as recv(MSG_TRUNC) reports it) */
	EXPECT_EQ(CTL_ST_BAD_LENGTH, ctl_check_request(msg, CTL_MAX_MSG + 1, table, NT, &cmd));

	h = hdr(CTL_CMD_STATUS, 0);
	h.magic ^= 1;
	memcpy(msg, &h, sizeof(h));
	EXPECT_EQ(CTL_ST_BAD_MAGIC, ctl_check_request(msg, sizeof(h), table, NT, &cmd));

	h = hdr(CTL_CMD_STATUS, 0);
	h.reserved[1] = 1;
	memcpy(msg, &h, sizeof(h));
	EXPECT_EQ(CTL_ST_BAD_RESERVED, ctl_check_request(msg, sizeof(h), table, NT, &cmd));

	h = hdr(CTL_CMD_STATUS, 0);
	h.version = CTL_PROTO_VERSION + 1;
	memcpy(msg, &h, sizeof(h));
	EXPECT_EQ(CTL_ST_BAD_VERSION, ctl_check_request(msg, sizeof(h), table, NT, &cmd));
	h.version = 0;
	memcpy(msg, &h, sizeof(h));
	EXPECT_EQ(CTL_ST_BAD_VERSION, ctl_check_request(msg, sizeof(h), table, NT, &cmd));

	/* payload_len disagreeing with what arrived, both ways */
	h = hdr(CTL_CMD_SNAPSHOT, 10);
	memcpy(msg, &h, sizeof(h));
	EXPECT_EQ(CTL_ST_BAD_LENGTH, ctl_check_request(msg, sizeof(h) + 9, table, NT, &cmd));
	EXPECT_EQ(CTL_ST_BAD_LENGTH, ctl_check_request(msg, sizeof(h) + 11, table, NT, &cmd));
	EXPECT_EQ(CTL_ST_OK, ctl_check_request(msg, sizeof(h) + 10, table, NT, &cmd));

	/* unknown commands: 0, not in the table, past the last code */
	for (uint16_t c = 0; c < 3; c++) {
		uint16_t code = c == 0 ? 0 : c == 1 ? CTL_CMD_PING : CTL_CMD_MAX;

		h = hdr(code, 0);
		memcpy(msg, &h, sizeof(h));
		EXPECT_EQ(CTL_ST_BAD_COMMAND, ctl_check_request(msg, sizeof(h), table, NT, &cmd));
	}
	/* payload not allowed / too long for the command */
	h = hdr(CTL_CMD_STATUS, 4);
	memcpy(msg, &h, sizeof(h));
	EXPECT_EQ(CTL_ST_BAD_PAYLOAD, ctl_check_request(msg, sizeof(h) + 4, table, NT, &cmd));
	h = hdr(CTL_CMD_SNAPSHOT, 101);
	memcpy(msg, &h, sizeof(h));
	EXPECT_EQ(CTL_ST_BAD_PAYLOAD, ctl_check_request(msg, sizeof(h) + 101, table, NT, &cmd));
}

TEST(status_strings)
{
	for (int s = 0; s < CTL_ST_MAX; s++)
		EXPECT_STRNE("unknown status", ctl_status_str(s));
	EXPECT_STREQ("unknown status", ctl_status_str(CTL_ST_MAX));
	EXPECT_STREQ("unknown status", ctl_status_str(-1));
}

struct server_ctx {
	char		dir[64];
	char		path[128];
	struct loop	*loop;
	pthread_t	thread;
};

static void *serve(void *arg)
{
	struct server_ctx *s = arg;

	loop_run(s->loop);
	return NULL;
}

#define NOGROUP	65534	/* Debian's nogroup */

FIXTURE(live) {
	struct server_ctx	s;
	struct ctl_server	*srv;
	uint8_t			buf[CTL_MAX_MSG];
};

FIXTURE_SETUP(live)
{
	strcpy(self->s.dir, "/tmp/test_ctl.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->s.dir));
	snprintf(self->s.path, sizeof(self->s.path), "%s/run/ctl.sock", self->s.dir);
	self->s.loop = loop_new();
	ASSERT_NE(NULL, self->s.loop);
	log_max_level = LOG_LVL_ERR;
	/* shared with nogroup: its members may read (the unprivileged tests below) */
	self->srv = ctl_server_open(self->s.path, NOGROUP, self->s.loop, table, NT,
				    self->s.loop);
	ASSERT_NE(NULL, self->srv);
	ASSERT_EQ(0, pthread_create(&self->s.thread, NULL, serve, &self->s));
}

FIXTURE_TEARDOWN(live)
{
	struct ctl_hdr h;

	/* STOP quits the loop; the thread is then joined. */
	ctl_request(self->s.path, CTL_CMD_STOP, NULL, 0, &h, self->buf, 5000);
	pthread_join(self->s.thread, NULL);
	ctl_server_close(self->srv);
	loop_free(self->s.loop);
	EXPECT_NE(0, access(self->s.path, F_OK));	/* unlinked on close */
	rmdir(strcat(self->s.dir, "/run"));
	self->s.dir[strlen(self->s.dir) - 4] = 0;
	rmdir(self->s.dir);
}

static ssize_t raw(struct server_ctx *s, const void *msg, size_t len, void *out)
{
	return ctl_exchange_raw(s->path, msg, len, out, CTL_MAX_MSG, 5000);
}

/* Root's and its group's alone (0600 without a group: socket_without_group below). */
TEST_F(live, socket_is_private)
{
	struct stat st;

	ASSERT_EQ(0, stat(self->s.path, &st));
	EXPECT_TRUE(S_ISSOCK(st.st_mode));
	EXPECT_EQ(0660, st.st_mode & 0777);
	EXPECT_EQ((gid_t)NOGROUP, st.st_gid);
}

TEST(socket_without_group)
{
	char dir[] = "/tmp/test_ctl.XXXXXX", path[64];
	struct ctl_server *srv;
	struct loop *l = loop_new();
	struct stat st;

	ASSERT_NE(NULL, l);
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ctl.sock", dir);
	srv = ctl_server_open(path, 0, l, table, NT, l);
	ASSERT_NE(NULL, srv);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0600, st.st_mode & 0777);
	ctl_server_close(srv);
	loop_free(l);
	rmdir(dir);
}

TEST_F(live, good_request)
{
	struct ctl_hdr h;

	ASSERT_EQ(0, ctl_request(self->s.path, CTL_CMD_STATUS, NULL, 0, &h, self->buf, 5000));
	EXPECT_EQ(CTL_ST_OK, h.code);
	ASSERT_EQ(7, h.payload_len);
	EXPECT_EQ(0, memcmp(self->buf, "status!", 7));
	ASSERT_EQ(0, ctl_request(self->s.path, CTL_CMD_SNAPSHOT, "abc", 3, &h, self->buf, 5000));
	EXPECT_EQ(CTL_ST_OK, h.code);
	EXPECT_EQ(3, h.payload_len);
}

TEST_F(live, bad_requests_answered_with_status)
{
	struct ctl_hdr h = hdr(CTL_CMD_STATUS, 0), r;
	uint8_t *big = calloc(1, CTL_MAX_MSG + 100);
	int before = calls_status;
	ssize_t n;

	/* short */
	n = raw(&self->s, &h, 5, self->buf);
	ASSERT_GE(n, (ssize_t)sizeof(r));
	memcpy(&r, self->buf, sizeof(r));
	EXPECT_EQ(CTL_ST_BAD_LENGTH, r.code);
	EXPECT_EQ(CTL_MAGIC, r.magic);
	EXPECT_EQ(n - sizeof(r), r.payload_len);

	/* bad version: the answer carries the server's version */
	h.version = 77;
	h.seq = 42;
	n = raw(&self->s, &h, sizeof(h), self->buf);
	ASSERT_EQ((ssize_t)(sizeof(r) + sizeof(struct ctl_ping)), n);
	memcpy(&r, self->buf, sizeof(r));
	EXPECT_EQ(CTL_ST_BAD_VERSION, r.code);
	EXPECT_EQ(42, r.seq);
	EXPECT_EQ(CTL_PROTO_VERSION, ((struct ctl_ping *)(self->buf + sizeof(r)))->version);

	/* bad command */
	h = hdr(999, 0);
	n = raw(&self->s, &h, sizeof(h), self->buf);
	memcpy(&r, self->buf, sizeof(r));
	EXPECT_EQ(CTL_ST_BAD_COMMAND, r.code);

	/* declared length differs from what was sent */
	h = hdr(CTL_CMD_SNAPSHOT, 50);
	memcpy(big, &h, sizeof(h));
	n = raw(&self->s, big, sizeof(h) + 10, self->buf);
	memcpy(&r, self->buf, sizeof(r));
	EXPECT_EQ(CTL_ST_BAD_LENGTH, r.code);

	/* payload too long for the command */
	h = hdr(CTL_CMD_SNAPSHOT, 200);
	memcpy(big, &h, sizeof(h));
	n = raw(&self->s, big, sizeof(h) + 200, self->buf);
	memcpy(&r, self->buf, sizeof(r));
	EXPECT_EQ(CTL_ST_BAD_PAYLOAD, r.code);

	/* larger than any message may be */
	h = hdr(CTL_CMD_SNAPSHOT, CTL_MAX_MSG + 100 - sizeof(h));
	memcpy(big, &h, sizeof(h));
	n = raw(&self->s, big, CTL_MAX_MSG + 100, self->buf);
	if (n >= (ssize_t)sizeof(r)) {
		memcpy(&r, self->buf, sizeof(r));
		EXPECT_EQ(CTL_ST_BAD_LENGTH, r.code);
	} else {
		/* the kernel may refuse a datagram that large outright */
		EXPECT_EQ(-EMSGSIZE, n);
	}

	/* nonzero reserved bytes */
	h = hdr(CTL_CMD_STATUS, 0);
	h.reserved[0] = 3;
	n = raw(&self->s, &h, sizeof(h), self->buf);
	memcpy(&r, self->buf, sizeof(r));
	EXPECT_EQ(CTL_ST_BAD_RESERVED, r.code);

	EXPECT_EQ(before, calls_status);	/* no handler ran for any of them */
	free(big);
}

TEST_F(live, second_server_refused)
{
	struct loop *l = loop_new();

	errno = 0;
	EXPECT_EQ(NULL, ctl_server_open(self->s.path, 0, l, table, NT, l));
	EXPECT_EQ(EADDRINUSE, errno);
	loop_free(l);
}

/* A peer that is neither root nor in the group: nothing, not even status. */
TEST_F(live, peer_outside_the_group_is_refused)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root to switch to an unprivileged uid");
	ASSERT_EQ(0, chmod(self->s.path, 0666));	/* only SO_PEERCRED stands in the way */
	ASSERT_EQ(0, chmod(self->s.dir, 0755));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct ctl_hdr h;
		uint8_t buf[256];
		char run[sizeof(self->s.path)];

		snprintf(run, sizeof(run), "%s/run", self->s.dir);
		if (chmod(run, 0755) || setgroups(0, NULL) || setgid(1) || setuid(65534))
			_exit(10);
		if (ctl_request(self->s.path, CTL_CMD_STATUS, NULL, 0, &h, buf, 5000) ||
		    h.code != CTL_ST_DENIED)
			_exit(11);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(live, unprivileged_peer_is_read_only)
{
	int status, stops = calls_stop;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root to switch to an unprivileged uid");
	/*
	 * Open the socket to others so that only SO_PEERCRED stands in the way (the
	 * server makes the socket's directory 0750, like its other directories).
	 */
	char run[sizeof(self->s.path)];

	snprintf(run, sizeof(run), "%s/run", self->s.dir);
	ASSERT_EQ(0, chmod(self->s.path, 0666));
	ASSERT_EQ(0, chmod(self->s.dir, 0755));
	ASSERT_EQ(0, chmod(run, 0755));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct ctl_hdr h;
		uint8_t buf[256];

		/* nobody, in nogroup: the server's group */
		if (setgroups(0, NULL) || setgid(NOGROUP) || setuid(65534))
			_exit(10);
		if (ctl_request(self->s.path, CTL_CMD_STATUS, NULL, 0, &h, buf, 5000) ||
		    h.code != CTL_ST_OK)
			_exit(11);
		if (ctl_request(self->s.path, CTL_CMD_STOP, NULL, 0, &h, buf, 5000) ||
		    h.code != CTL_ST_DENIED)
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(stops, calls_stop);
}

TEST(client_errors)
{
	struct ctl_hdr h;
	uint8_t buf[64];

	EXPECT_EQ(-ENOENT, ctl_request("/nonexistent/dir/ctl.sock", CTL_CMD_PING, NULL, 0, &h,
				       buf, 1000));
	EXPECT_EQ(-EMSGSIZE, ctl_request("/x", CTL_CMD_SNAPSHOT, buf, CTL_MAX_MSG, &h, buf,
					 1000));
}

TEST_HARNESS_MAIN
