// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's sentinel (sentinel.h): watchdog pings and control answers that do not
 * depend on the loop's thread being free. It reads nothing of the daemon's state but
 * the loop's last beat (an atomic), the loop thread's own /proc entries and the
 * strings the loop hands it (copied in and out under what_lock, held for a copy and
 * nothing else), so it cannot be held up by what holds up the loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "capture/loop.h"
#include "ctl.h"
#include "daemon.h"
#include "sentinel.h"
#include "util/log.h"
#include "util/mono_clock.h"

#define LOG_EVERY_MS	10000	/* a stall is logged at most this often */

struct sentinel {
	pthread_t		th;
	pid_t			tid;		/* the loop's thread */
	struct loop		*loop;		/* read: loop_turns() only */
	int			listen_fd;
	int			gid;
	unsigned int		mode;
	unsigned int		wd_ms;
	int			stop_fd;	/* eventfd: stop the thread */
	int			handoff[2];	/* pipe: connections for the loop */
	_Atomic uint64_t	beat_ms;	/* the loop's last beat */
	_Atomic unsigned int	state;		/* enum ctl_state the loop published */
	uint64_t		t0_ms;		/* the daemon's start, for uptime */
	uint64_t		next_ping;
	uint64_t		logged_ms;	/* last stall message, 0 = none yet */
	unsigned int		waited_ms;	/* the request being answered waited */
	pthread_mutex_t		what_lock;
	size_t			what_len;
	char			what[SENTINEL_WHAT_MAX]; /* sentinel_set_what() */
	uint8_t			*rx;
	struct ctl_reply	*reply;
};

/* First line of a /proc file of the loop's thread into @buf; "" if unreadable. */
static void read_task_file(const struct sentinel *s, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)s->tid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/* The loop thread's scheduler state ('R', 'S', 'D', ...) and where it waits. */
static char loop_state(const struct sentinel *s, char *wchan, size_t len)
{
	char stat[512], *p;

	read_task_file(s, "stat", stat, sizeof(stat));
	read_task_file(s, "wchan", wchan, len);
	if (!*wchan || !strcmp(wchan, "0"))
		snprintf(wchan, len, "user space");
	/* "pid (comm) S ...": comm may hold anything, so from its last ')' */
	p = strrchr(stat, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* What holds the loop up (@what: for how long, in words), for STATUS and the log. */
static void describe(const struct sentinel *s, const char *what, uint64_t ms, char *buf,
		     size_t len)
{
	char wchan[64];
	char st = loop_state(s, wchan, sizeof(wchan));

	snprintf(buf, len, "the main thread %s %llu ms: %s (%s)", what, (unsigned long long)ms,
		 st == 'D' ? "blocked on I/O" : st == 'R' ? "running" : "waiting", wchan);
}

static void watchdog(struct sentinel *s)
{
	uint64_t now = mono_ms(), idle = now - atomic_load(&s->beat_ms);
	char why[160], wchan[64];
	bool on_io, ping;

	/* the loop beats at least once a period */
	if (idle < s->wd_ms + s->wd_ms / 2) {
		daemon_notify("WATCHDOG=1");
		s->logged_ms = 0;
		return;
	}
	/*
	 * A slow or frozen disk is no reason to kill the daemon that writes to it, for a
	 * while: past SENTINEL_IO_MAX_MS the wait is treated as a hang (a dead NFS
	 * server, a deadlock in a driver: both look like a disk from here).
	 */
	on_io = loop_state(s, wchan, sizeof(wchan)) == 'D';
	ping = on_io && idle < SENTINEL_IO_MAX_MS;
	if (ping)
		daemon_notify("WATCHDOG=1");
	if (s->logged_ms && now - s->logged_ms < LOG_EVERY_MS)
		return;
	s->logged_ms = now;
	describe(s, "has not turned for", idle, why, sizeof(why));
	if (ping)
		log_warn("%s; the watchdog is kept alive", why);
	else
		log_err("%s; no watchdog ping", why);
}

/* Pings when a period is due: also while serve() waits for the loop. */
static void watchdog_due(struct sentinel *s)
{
	if (s->wd_ms && mono_ms() >= s->next_ping) {
		watchdog(s);
		s->next_ping = mono_ms() + s->wd_ms;
	}
}

/* STATUS while the loop is held up: who we are and why; no counter (they are its). */
static void sn_status(void *ctx, const struct ctl_peer *peer, const void *pl, uint32_t len,
		      struct ctl_reply *r)
{
	struct sentinel *s = ctx;
	struct ctl_status_reply st = {
		.state = atomic_load(&s->state) == CTL_STATE_STOPPING ? CTL_STATE_STOPPING :
			 CTL_STATE_STALLED,
		.mode = s->mode,
		.pid = getpid(),
		.uptime_ns = (mono_ms() - s->t0_ms) * 1000000ULL,
	};
	/* after the loop's five: last error (why it answers here), triggers, last boot */
	const char *str, *end;
	char why[160];
	uint32_t n = 0;

	describe(s, "has left this request waiting", s->waited_ms, why, sizeof(why));
	ctl_reply_add(r, &st, sizeof(st));
	pthread_mutex_lock(&s->what_lock);
	str = s->what;
	end = s->what + s->what_len;
	for (int i = 0; i < 8; i++) {
		const char *next = i < 5 && str < end ? memchr(str, 0, end - str) : NULL;
		const char *one = next ? str : i == 5 ? why : "";

		if (!ctl_reply_add(r, one, strlen(one) + 1))
			n += strlen(one) + 1;
		if (next)
			str = next + 1;
	}
	pthread_mutex_unlock(&s->what_lock);
	((struct ctl_status_reply *)r->buf)->strings_len = n;
}

static const struct ctl_command sn_commands[] = {
	{ CTL_CMD_PING,	  0, 0, 1, ctl_h_ping },
	{ CTL_CMD_STATUS, 0, sizeof(struct ctl_status_req), 1, sn_status },
};

/*
 * A connection the loop left waiting: answer it here, or hand it back. The loop
 * wakes at once for a connection, so one that waits while the loop does not turn
 * means the loop is held up in a handler: answered after SENTINEL_GRACE_MS if the
 * loop sleeps on I/O, after SENTINEL_STALL_MS otherwise (a reload may take that long
 * and still answer itself). A loop that turns will get to it.
 */
static void serve(struct sentinel *s)
{
	struct pollfd p = { .fd = s->listen_fd, .events = POLLIN };
	unsigned long turns = loop_turns(s->loop);
	unsigned int waited = 0;
	struct ctl_hdr h;
	char wchan[64];
	int c;

	for (;;) {
		usleep(10000);
		if (poll(&p, 1, 0) <= 0)
			return;		/* the loop took it */
		watchdog_due(s);
		if (loop_turns(s->loop) != turns) {
			turns = loop_turns(s->loop);
			waited = 0;
			continue;
		}
		waited += 10;
		if (waited >= SENTINEL_STALL_MS ||
		    (waited >= SENTINEL_GRACE_MS && loop_state(s, wchan, sizeof(wchan)) == 'D'))
			break;
	}
	s->waited_ms = waited;
	c = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (c < 0)
		return;		/* the loop got there first */
	/* the request follows the connect at once (ctl_request()) */
	p.fd = c;
	if (poll(&p, 1, 100) == 1 &&
	    recv(c, &h, sizeof(h), MSG_PEEK | MSG_DONTWAIT) == (ssize_t)sizeof(h) &&
	    (h.code == CTL_CMD_PING || h.code == CTL_CMD_STATUS)) {
		ctl_serve_request(c, sn_commands, sizeof(sn_commands) / sizeof(sn_commands[0]),
				  s, s->gid, s->rx, s->reply);
		close(c);
		return;
	}
	/* a command that changes something is the loop's: it runs it once it can */
	if (write(s->handoff[1], &c, sizeof(c)) != (ssize_t)sizeof(c))
		close(c);
}

static void *sentinel_main(void *arg)
{
	struct sentinel *s = arg;

	s->next_ping = mono_ms() + s->wd_ms;
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = s->stop_fd, .events = POLLIN },
			{ .fd = s->listen_fd, .events = POLLIN },
		};
		uint64_t now = mono_ms();
		int timeout = !s->wd_ms ? -1 : s->next_ping > now ? (int)(s->next_ping - now) : 0;

		if (poll(p, 2, timeout) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		watchdog_due(s);
		if (p[1].revents & POLLIN)
			serve(s);
	}
	return NULL;
}

struct sentinel *sentinel_start(struct loop *l, int listen_fd, int gid, unsigned int mode,
				unsigned int watchdog_ms, uint64_t t0_ms)
{
	struct sentinel *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	s->tid = gettid();
	s->loop = l;
	s->listen_fd = listen_fd;
	s->gid = gid;
	s->mode = mode;
	s->wd_ms = watchdog_ms;
	s->t0_ms = t0_ms;
	atomic_store(&s->state, CTL_STATE_RUNNING);
	atomic_store(&s->beat_ms, mono_ms());
	s->handoff[0] = s->handoff[1] = -1;
	pthread_mutex_init(&s->what_lock, NULL);
	s->stop_fd = eventfd(0, EFD_CLOEXEC);
	s->rx = malloc(CTL_MAX_MSG);
	s->reply = malloc(sizeof(*s->reply));
	if (s->stop_fd < 0 || !s->rx || !s->reply ||
	    pipe2(s->handoff, O_CLOEXEC | O_NONBLOCK))
		goto fail;
	err = pthread_create(&s->th, NULL, sentinel_main, s);
	if (err) {
		errno = err;
		goto fail;
	}
	return s;
fail:
	err = errno;
	if (s->stop_fd >= 0)
		close(s->stop_fd);
	if (s->handoff[0] >= 0) {
		close(s->handoff[0]);
		close(s->handoff[1]);
	}
	free(s->rx);
	free(s->reply);
	pthread_mutex_destroy(&s->what_lock);
	free(s);
	errno = err;
	return NULL;
}

void sentinel_set_what(struct sentinel *s, const char *strs, size_t len)
{
	if (!s)
		return;
	if (len > sizeof(s->what))
		len = sizeof(s->what);
	while (len && strs[len - 1])	/* whole strings only */
		len--;
	pthread_mutex_lock(&s->what_lock);
	memcpy(s->what, strs, len);
	s->what_len = len;
	pthread_mutex_unlock(&s->what_lock);
}

void sentinel_beat(struct sentinel *s)
{
	if (s)
		atomic_store(&s->beat_ms, mono_ms());
}

void sentinel_busy(struct sentinel *s, uint64_t busy_ms)
{
	if (busy_ms < SENTINEL_IO_MAX_MS)
		sentinel_beat(s);
}

void sentinel_set_state(struct sentinel *s, unsigned int state)
{
	if (s)
		atomic_store(&s->state, state);
}

int sentinel_handoff_fd(const struct sentinel *s)
{
	return s ? s->handoff[0] : -1;
}

void sentinel_stop(struct sentinel *s)
{
	uint64_t one = 1;
	int c;

	if (!s)
		return;
	/* an eventfd write fails only when its counter would overflow: never from 0 */
	if (write(s->stop_fd, &one, sizeof(one)) != sizeof(one))
		log_err("sentinel: cannot stop the thread: %s", strerror(errno));
	pthread_join(s->th, NULL);
	/* connections handed back that the loop never took */
	while (read(s->handoff[0], &c, sizeof(c)) == (ssize_t)sizeof(c))
		close(c);
	close(s->stop_fd);
	close(s->handoff[0]);
	close(s->handoff[1]);
	free(s->rx);
	free(s->reply);
	pthread_mutex_destroy(&s->what_lock);
	free(s);
}
