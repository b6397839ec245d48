// SPDX-License-Identifier: GPL-2.0
/*
 * A known workload whose events the tests look for, field by field:
 *   parent "ftw-parent": marker "ftw start <ppid>", lseek(-1, 0x1234, SEEK_SET) (a
 *   failing syscall with known arguments: sys_enter id SYS_lseek, 8 on x86-64 and 62
 *   on arm64, sys_exit ret -9), fork;
 *   child "ftw-child": 20 pipe ping-pong round trips with the parent (sched_switch and
 *   sched_wakeup between the two known pids), marker "ftw child <cpid>", then exec of
 *   this program with --exec-child, which writes marker "ftw exec <cpid>" and exits 3;
 *   parent: waits, marker "ftw done <cpid>".
 * Markers go to /dev/ftring/marker (or the file given with -m, e.g. trace_marker).
 * Prints "parent=<ppid> child=<cpid> exe=<path exec'd> lseek=<SYS_lseek>" on stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *marker_path = "/dev/ftring/marker";

static void marker(const char *what, int pid)
{
	char buf[64];
	int fd = open(marker_path, O_WRONLY), len;

	if (fd < 0) {
		fprintf(stderr, "ftring_workload: %s: %s\n", marker_path, strerror(errno));
		exit(1);
	}
	len = snprintf(buf, sizeof(buf), "ftw %s %d", what, pid);
	if (write(fd, buf, (size_t)len + 1) != len + 1)
		fprintf(stderr, "ftring_workload: marker '%s': %s\n", buf, strerror(errno));
	close(fd);
}

int main(int argc, char **argv)
{
	int to_child[2], to_parent[2], i, status;
	char c = 'x', self[256];
	ssize_t n;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "-m")) {
		marker_path = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc > 1 && !strcmp(argv[1], "--exec-child")) {
		marker("exec", getpid());
		return 3;
	}
	/* exec by real path: sched_process_exec's filename is then known to the test */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	prctl(PR_SET_NAME, "ftw-parent");
	marker("start", getpid());
	if (lseek(-1, 0x1234, SEEK_SET) != -1 || errno != EBADF)
		return 1;
	if (pipe(to_child) || pipe(to_parent))
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		prctl(PR_SET_NAME, "ftw-child");
		for (i = 0; i < 20; i++) {
			if (read(to_child[0], &c, 1) != 1 || write(to_parent[1], &c, 1) != 1)
				_exit(1);
		}
		marker("child", getpid());
		execl(self, "ftring_workload", "-m", marker_path, "--exec-child",
		      (char *)NULL);
		_exit(1);
	}
	for (i = 0; i < 20; i++) {
		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
			return 1;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 3)
		return 1;
	marker("done", pid);
	printf("parent=%d child=%d exe=%s lseek=%d\n", getpid(), pid, self, (int)SYS_lseek);
	return 0;
}
