// SPDX-License-Identifier: GPL-2.0
/* Process plumbing of the daemon: detach, readiness, sd_notify, watchdog, pidfile. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon.h"
#include "rotate.h"
#include "util/log.h"

int daemon_under_systemd(void)
{
	const char *s = getenv("NOTIFY_SOCKET");

	return s && *s;
}

/* systemd names the journal stream it connected ("DEV:INODE"); is it our stderr? */
int daemon_stderr_is_journal(void)
{
	const char *s = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!s || sscanf(s, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st))
		return 0;
	return st.st_dev == (dev_t)dev && st.st_ino == (ino_t)ino;
}

int daemon_detach(void)
{
	char msg[1024];
	int pfd[2], status = 1;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		close(pfd[0]);
		if (setsid() < 0)
			return -errno;
		/* A second fork so the daemon is never a session leader (no tty reacquired). */
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid > 0)
			_exit(0);
		if (chdir("/"))
			return -errno;
		umask(022);
		return pfd[1];
	}
	/* Parent: wait for "<status> <message>" from the daemon, or EOF if it died. */
	close(pfd[1]);
	waitpid(pid, NULL, 0);
	while ((n = read(pfd[0], msg + got, sizeof(msg) - 1 - got)) > 0)
		got += n;
	close(pfd[0]);
	msg[got] = 0;
	if (got >= 2) {
		status = msg[0] - '0';
		if (msg[2])
			fprintf(status ? stderr : stdout, "%s\n", msg + 2);
	} else {
		fprintf(stderr, "recorderd: the daemon exited before it was ready (see the log)\n");
	}
	exit(status);
}

void daemon_ready(int fd, int status, const char *msg, const char *log_file)
{
	char buf[1024];
	int n, devnull;

	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%d %s", status ? 1 : 0, msg ? msg : "");
	if (write(fd, buf, n < (int)sizeof(buf) ? n : (int)sizeof(buf) - 1) < 0)
		log_debug("readiness pipe: %s", strerror(errno));
	close(fd);
	if (status)
		return;
	/* Detached and live: let go of the terminal; the log goes to log_file if set. */
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
		dup2(devnull, STDERR_FILENO);
		close(devnull);
	}
	if (log_file) {
		int lfd = open(log_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

		if (lfd >= 0) {
			dup2(lfd, STDERR_FILENO);
			close(lfd);
		}
	}
}

void daemon_notify(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!daemon_under_systemd())
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sd_notify(0, buf);
}

unsigned int daemon_watchdog_ms(void)
{
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0 || !usec)
		return 0;
	/* Ping at half the timeout, as sd_watchdog_enabled(3) recommends. */
	return usec / 2000 ? (unsigned int)(usec / 2000) : 1;
}

static int lock_fd = -1;
static struct daemon_prev prev;
static bool prev_valid;
static bool lock_salvage;	/* we are `recorderd salvage`: the pid line says so */

/*
 * "PID[ salvage]\nfile PATH\ninstance NAME\n": what a daemon that died left (the pid
 * line names a salvage as such, for a second one to say so).
 */
static void read_previous(int fd)
{
	char buf[8192], *line, *save = NULL;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return;
	buf[n] = '\0';
	memset(&prev, 0, sizeof(prev));
	prev.pid = (pid_t)strtol(buf, NULL, 10);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "file ", 5))
			snprintf(prev.file, sizeof(prev.file), "%s", line + 5);
		else if (!strncmp(line, "instance ", 9))
			snprintf(prev.instance, sizeof(prev.instance), "%s", line + 9);
	}
	prev_valid = prev.file[0] || prev.instance[0];
}

int daemon_lock(const char *sock, pid_t *holder, int *salvage)
{
	char path[PATH_MAX], pid_dir[PATH_MAX], pid[24] = "", *end;
	ssize_t n;
	int fd;

	*holder = 0;
	*salvage = 0;
	if (snprintf(path, sizeof(path), "%s.lock", sock) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = rotate_mkdir_p(dirname(strcpy(pid_dir, path)), 0);
	if (fd)
		return fd;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;

		n = pread(fd, pid, sizeof(pid) - 1, 0);
		if (n > 0) {
			pid[n] = '\0';
			*holder = (pid_t)strtol(pid, &end, 10);
			*salvage = !strncmp(end, " salvage\n", 9);
		}
		close(fd);
		return err;
	}
	lock_fd = fd;
	read_previous(fd);
	return 0;
}

void daemon_lock_note(const char *file, const char *instance)
{
	char buf[8192];
	int n = snprintf(buf, sizeof(buf), "%d%s\n", (int)getpid(),
			 lock_salvage ? " salvage" : "");

	if (file && file[0])
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "file %s\n", file);
	if (instance && instance[0] && n < (int)sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "instance %s\n", instance);
	if (n >= (int)sizeof(buf))
		n = snprintf(buf, sizeof(buf), "%d%s\n", (int)getpid(),
			     lock_salvage ? " salvage" : "");
	/* Short: one write; a torn one reads as a pid alone (no takeover). */
	if (lock_fd < 0 || ftruncate(lock_fd, 0) || pwrite(lock_fd, buf, (size_t)n, 0) != n)
		log_warn("cannot write the daemon's state into the lock file");
}

/*
 * Our pid, and what a dead predecessor left until our own capture names itself: a
 * start that fails before that (a pidfile, the socket) must not make its file and
 * instance nobody's, or the salvage that follows failed restarts finds nothing.
 */
void daemon_lock_owner(int salvage)
{
	lock_salvage = salvage;
	if (prev_valid)
		daemon_lock_note(prev.file, prev.instance);
	else
		daemon_lock_note(NULL, NULL);
}

const struct daemon_prev *daemon_lock_previous(void)
{
	return prev_valid ? &prev : NULL;
}

int daemon_pidfile_write(const char *path)
{
	char buf[32];
	int fd, n, err;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		/* The control socket proved no daemon runs, so this one is stale. */
		unlink(path);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	err = write(fd, buf, n) == n ? 0 : -EIO;
	close(fd);
	return err;
}

void daemon_pidfile_remove(const char *path)
{
	if (path)
		unlink(path);
}
