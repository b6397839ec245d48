// SPDX-License-Identifier: GPL-2.0
/*
 * Control socket server: SOCK_SEQPACKET Unix socket, one request and one response per
 * message. Every request is checked (ctl_check_request) before a handler runs; peers
 * that are neither root nor the daemon's own user get the read-only commands only.
 * Handlers run in the event loop thread, one at a time; the daemon's sentinel thread
 * (sentinel.c) may answer read-only requests the loop leaves waiting, with buffers
 * and a table of its own, and hands the rest back (ctl_server_adopt()).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"
#include "rotate.h"
#include "util/log.h"
#include "capture/loop.h"

#define CTL_MAX_CLIENTS	16

struct ctl_server {
	int				fd;
	char				*path;
	struct loop			*loop;
	const struct ctl_command	*table;
	size_t				n;
	void				*ctx;
	int				gid;		/* may read, 0 = none */
	int				clients[CTL_MAX_CLIENTS];
	int				next_victim;	/* oldest slot to drop when full */
	struct ctl_reply		*reply;
	uint8_t				*rx;
};

/*
 * @uid (primary group @gid) is a member of group @want (> 0). Reentrant: the loop
 * and the sentinel thread may both ask.
 */
static bool in_group(uid_t uid, gid_t gid, int want)
{
	struct passwd pwd, *pw = NULL;
	gid_t groups[256];
	char buf[4096];
	int n = 256;

	if (want <= 0)
		return false;
	if (gid == (gid_t)want)
		return true;
	if (getpwuid_r(uid, &pwd, buf, sizeof(buf), &pw) || !pw ||
	    getgrouplist(pw->pw_name, gid, groups, &n) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (groups[i] == (gid_t)want)
			return true;
	return false;
}

/* Wire layout is fixed: fail the build if the structs ever grow holes or change size. */
_Static_assert(sizeof(struct ctl_hdr) == 24, "ctl_hdr is 24 bytes on the wire");
_Static_assert(sizeof(struct ctl_ping) == 16, "ctl_ping size");
_Static_assert(sizeof(struct ctl_status_cpu) == 56, "ctl_status_cpu size");
_Static_assert(sizeof(struct ctl_status_reply) == 128, "ctl_status_reply size");
_Static_assert(sizeof(struct ctl_snapshot_reply) == 32, "ctl_snapshot_reply size");

static const char *const status_text[CTL_ST_MAX] = {
	[CTL_ST_OK]		= "ok",
	[CTL_ST_BAD_LENGTH]	= "bad message length",
	[CTL_ST_BAD_MAGIC]	= "bad magic",
	[CTL_ST_BAD_VERSION]	= "unsupported protocol version",
	[CTL_ST_BAD_COMMAND]	= "unknown command",
	[CTL_ST_BAD_PAYLOAD]	= "bad payload for this command",
	[CTL_ST_BAD_RESERVED]	= "reserved bytes not zero",
	[CTL_ST_DENIED]		= "permission denied (read-only peer)",
	[CTL_ST_FAILED]		= "failed",
	[CTL_ST_NOT_SUPPORTED]	= "not supported in this mode",
	[CTL_ST_BUSY]		= "busy",
};

const char *ctl_status_str(int status)
{
	if (status < 0 || status >= CTL_ST_MAX || !status_text[status])
		return "unknown status";
	return status_text[status];
}

int ctl_check_request(const void *msg, size_t len, const struct ctl_command *table, size_t n,
		      const struct ctl_command **cmd)
{
	struct ctl_hdr h;

	if (len < sizeof(h) || len > CTL_MAX_MSG)
		return CTL_ST_BAD_LENGTH;
	memcpy(&h, msg, sizeof(h));
	if (h.magic != CTL_MAGIC)
		return CTL_ST_BAD_MAGIC;
	if (h.reserved[0] || h.reserved[1])
		return CTL_ST_BAD_RESERVED;
	if (h.version != CTL_PROTO_VERSION)
		return CTL_ST_BAD_VERSION;
	if (h.payload_len != len - sizeof(h))
		return CTL_ST_BAD_LENGTH;
	for (size_t i = 0; i < n; i++) {
		if (table[i].code != h.code)
			continue;
		if (h.payload_len < table[i].min_len || h.payload_len > table[i].max_len)
			return CTL_ST_BAD_PAYLOAD;
		*cmd = &table[i];
		return CTL_ST_OK;
	}
	return CTL_ST_BAD_COMMAND;
}

int ctl_reply_add(struct ctl_reply *r, const void *data, size_t len)
{
	if (len > sizeof(r->buf) - r->len)
		return -ENOSPC;
	memcpy(r->buf + r->len, data, len);
	r->len += len;
	return 0;
}

void ctl_reply_error(struct ctl_reply *r, uint16_t status, const char *fmt, ...)
{
	va_list ap;
	int n;

	r->status = status;
	r->len = 0;
	va_start(ap, fmt);
	n = vsnprintf((char *)r->buf, 1024, fmt, ap);
	va_end(ap);
	r->len = n < 0 ? 0 : n >= 1024 ? 1023 : n;
}

static void client_close(struct ctl_server *s, int slot)
{
	loop_del_fd(s->loop, s->clients[slot]);
	close(s->clients[slot]);
	s->clients[slot] = -1;
}

static void send_reply(int fd, uint32_t seq, const struct ctl_reply *r)
{
	struct ctl_hdr h = {
		.magic = CTL_MAGIC, .version = CTL_PROTO_VERSION, .code = r->status,
		.payload_len = r->len, .seq = seq,
	};
	struct iovec iov[2] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)r->buf, .iov_len = r->len },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	/* A client that went away is not an error worth more than a debug line. */
	if (sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		log_debug("control: reply not sent: %s", strerror(errno));
}

void ctl_h_ping(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		struct ctl_reply *r)
{
	struct ctl_ping p = { .version = CTL_PROTO_VERSION, .pid = getpid() };

	ctl_reply_add(r, &p, sizeof(p));
}

void ctl_serve_request(int fd, const struct ctl_command *table, size_t n, void *ctx, int gid,
		       uint8_t *rx, struct ctl_reply *r)
{
	const struct ctl_command *cmd = NULL;
	struct ctl_peer peer = { 0 };
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	struct ctl_hdr h = { 0 };
	ssize_t len;
	int st;

	/* MSG_TRUNC returns the real length, so an oversized message is seen as such. */
	len = recv(fd, rx, CTL_MAX_MSG, MSG_TRUNC | MSG_DONTWAIT);
	if (len <= 0)
		return;
	r->status = CTL_ST_OK;
	r->len = 0;
	if ((size_t)len >= sizeof(h))
		memcpy(&h, rx, sizeof(h));
	st = ctl_check_request(rx, len, table, n, &cmd);
	if (st == CTL_ST_BAD_VERSION) {
		r->status = st;
		ctl_h_ping(ctx, &peer, NULL, 0, r);
		send_reply(fd, h.seq, r);
		return;
	}
	if (st != CTL_ST_OK) {
		ctl_reply_error(r, st, "%s", ctl_status_str(st));
		log_debug("control: rejected request (%s)", ctl_status_str(st));
		send_reply(fd, h.seq, r);
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl)) {
		ctl_reply_error(r, CTL_ST_DENIED, "no peer credentials");
		send_reply(fd, h.seq, r);
		return;
	}
	peer.pid = cred.pid;
	peer.uid = cred.uid;
	peer.may_write = cred.uid == 0 || cred.uid == geteuid();
	/* Checked per request: group membership may have changed since connect. */
	if (!peer.may_write && !in_group(cred.uid, cred.gid, gid)) {
		ctl_reply_error(r, CTL_ST_DENIED, "uid %u is not in the daemon's group",
				cred.uid);
		log_info("control: denied uid %u pid %d (not in the group)", cred.uid,
			 cred.pid);
		send_reply(fd, h.seq, r);
		return;
	}
	if (!cmd->read_only && !peer.may_write) {
		ctl_reply_error(r, CTL_ST_DENIED, "command %u needs root (peer uid %u)", h.code,
				cred.uid);
		log_info("control: denied command %u to uid %u pid %d", h.code, cred.uid,
			 cred.pid);
		send_reply(fd, h.seq, r);
		return;
	}
	cmd->fn(ctx, &peer, rx + sizeof(h), h.payload_len, r);
	send_reply(fd, h.seq, r);
}

static void handle_request(struct ctl_server *s, int fd)
{
	ctl_serve_request(fd, s->table, s->n, s->ctx, s->gid, s->rx, s->reply);
}

static void on_client(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct ctl_server *s = arg;
	int slot;

	for (slot = 0; slot < CTL_MAX_CLIENTS; slot++)
		if (s->clients[slot] == fd)
			break;
	if (slot == CTL_MAX_CLIENTS)
		return;
	if (events & EPOLLIN)
		handle_request(s, fd);
	/* One request per connection: the client reconnects for the next one. */
	client_close(s, slot);
}

int ctl_server_fd(const struct ctl_server *s)
{
	return s->fd;
}

void ctl_server_adopt(struct ctl_server *s, int c)
{
	int slot;

	for (slot = 0; slot < CTL_MAX_CLIENTS; slot++)
		if (s->clients[slot] < 0)
			break;
	if (slot == CTL_MAX_CLIENTS) {
		/* A client that connects and never sends must not lock others out. */
		slot = s->next_victim;
		s->next_victim = (s->next_victim + 1) % CTL_MAX_CLIENTS;
		client_close(s, slot);
	}
	if (loop_add_fd(s->loop, c, EPOLLIN | EPOLLRDHUP, on_client, s)) {
		close(c);
		return;
	}
	s->clients[slot] = c;
}

static void on_accept(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct ctl_server *s = arg;
	int c;

	c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (c >= 0)
		ctl_server_adopt(s, c);
}

static int socket_in_use(const char *path)
{
	struct ctl_hdr h;
	uint8_t buf[64];

	struct ctl_hdr req = { .magic = CTL_MAGIC, .version = CTL_PROTO_VERSION,
			       .code = CTL_CMD_PING };

	return ctl_exchange_raw(path, &req, sizeof(req), buf, sizeof(buf), 2000) >=
	       (ssize_t)sizeof(h);
}

static int make_parent_dir(const char *path, int gid)
{
	char *dir = strdup(path);
	int ret = dir ? rotate_mkdir_p(dirname(dir), gid) : -ENOMEM;

	free(dir);
	return ret;
}

struct ctl_server *ctl_server_open(const char *path, int gid, struct loop *l,
				   const struct ctl_command *table, size_t n, void *ctx)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ctl_server *s;
	mode_t old;
	int err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_err("control socket path too long: %s", path);
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(sa.sun_path, path);
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->reply = malloc(sizeof(*s->reply));
	s->rx = malloc(CTL_MAX_MSG);
	s->path = strdup(path);
	s->loop = l;
	s->table = table;
	s->n = n;
	s->ctx = ctx;
	s->gid = gid;
	for (int i = 0; i < CTL_MAX_CLIENTS; i++)
		s->clients[i] = -1;
	s->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (!s->reply || !s->rx || !s->path || s->fd < 0)
		goto fail;
	err = make_parent_dir(path, gid);
	if (err) {
		errno = -err;
		log_err("control socket directory for %s: %s", path, strerror(errno));
		goto fail;
	}
	if (socket_in_use(path)) {
		log_err("another recorderd answers on %s", path);
		errno = EADDRINUSE;
		goto fail;
	}
	unlink(path);	/* stale: nobody answered */
	/* Created 0600 from the start: no window in which others could connect. */
	old = umask(0177);
	err = bind(s->fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	/* Then opened to the group alone, if there is one. */
	if (!err && gid > 0 && (chown(path, -1, (gid_t)gid) || chmod(path, 0660)))
		err = -1;
	if (err || listen(s->fd, CTL_MAX_CLIENTS)) {
		log_err("control socket %s: %s", path, strerror(errno));
		goto fail;
	}
	if (loop_add_fd(l, s->fd, EPOLLIN, on_accept, s)) {
		log_err("control socket: cannot watch it");
		goto fail_unlink;
	}
	return s;
fail_unlink:
	unlink(path);
fail:
	err = errno;
	if (s->fd >= 0)
		close(s->fd);
	free(s->reply);
	free(s->rx);
	free(s->path);
	free(s);
	errno = err;
	return NULL;
}

void ctl_server_close(struct ctl_server *s)
{
	if (!s)
		return;
	for (int i = 0; i < CTL_MAX_CLIENTS; i++)
		if (s->clients[i] >= 0)
			client_close(s, i);
	loop_del_fd(s->loop, s->fd);
	close(s->fd);
	unlink(s->path);
	free(s->reply);
	free(s->rx);
	free(s->path);
	free(s);
}
