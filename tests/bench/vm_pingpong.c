// SPDX-License-Identifier: GPL-2.0
/*
 * Load for the in-guest tracer benchmark (tests/bench/vm_pingpong). Times with
 * CLOCK_MONOTONIC; in a `-icount shift=0,sleep=off` guest that clock advances one
 * nanosecond per emulated instruction, so the figures are deterministic "units".
 *
 *   vm_pingpong pingpong ROUNDS REPEATS
 *	two processes on CPU 0 bounce a byte through two pipes; prints the median
 *	units per round trip over REPEATS runs of ROUNDS round trips
 *   vm_pingpong write PATH BYTES COUNT REPEATS
 *	COUNT write()s of BYTES to PATH (trace_marker, /dev/ftring/marker, /dev/null);
 *	prints the median units per write
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPEATS	32

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static double pingpong_once(long rounds)
{
	int a[2], b[2], status;
	unsigned long long t0, t1;
	char c = 0;
	pid_t pid;
	long i;

	if (pipe(a) || pipe(b))
		exit(1);
	pid = fork();
	if (pid < 0)
		exit(1);
	if (!pid) {
		for (i = 0; i < rounds; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = now_ns();
	for (i = 0; i < rounds; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			exit(1);
	t1 = now_ns();
	waitpid(pid, &status, 0);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	return (double)(t1 - t0) / (double)rounds;
}

static double write_once(const char *path, size_t bytes, long count)
{
	unsigned long long t0, t1;
	char *buf = malloc(bytes);
	int fd = open(path, O_WRONLY);
	long i;

	if (!buf || fd < 0) {
		fprintf(stderr, "vm_pingpong: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	memset(buf, 'm', bytes);
	buf[bytes - 1] = '\0';
	t0 = now_ns();
	for (i = 0; i < count; i++)
		if (write(fd, buf, bytes) < 0) {
			fprintf(stderr, "vm_pingpong: write %s: %s\n", path, strerror(errno));
			exit(1);
		}
	t1 = now_ns();
	close(fd);
	free(buf);
	return (double)(t1 - t0) / (double)count;
}

int main(int argc, char **argv)
{
	double v[MAX_REPEATS];
	int r, repeats;

	pin_cpu0();
	if (argc == 4 && !strcmp(argv[1], "pingpong")) {
		long rounds = atol(argv[2]);

		repeats = atoi(argv[3]);
		if (rounds <= 0 || repeats <= 0 || repeats > MAX_REPEATS)
			return 2;
		pingpong_once(rounds / 10 + 1);		/* warm up */
		for (r = 0; r < repeats; r++)
			v[r] = pingpong_once(rounds);
		printf("%.1f\n", median(v, repeats));
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "write")) {
		size_t bytes = (size_t)atol(argv[3]);
		long count = atol(argv[4]);

		repeats = atoi(argv[5]);
		if (!bytes || count <= 0 || repeats <= 0 || repeats > MAX_REPEATS)
			return 2;
		write_once(argv[2], bytes, count / 10 + 1);
		for (r = 0; r < repeats; r++)
			v[r] = write_once(argv[2], bytes, count);
		printf("%.1f\n", median(v, repeats));
		return 0;
	}
	fprintf(stderr, "usage: vm_pingpong pingpong ROUNDS REPEATS\n"
		"       vm_pingpong write PATH BYTES COUNT REPEATS\n");
	return 2;
}
