// SPDX-License-Identifier: GPL-2.0
/*
 * Load and CPU accounting for the in-guest recorder benchmark (tests/bench/vm_recorder).
 * In a `-icount shift=0,sleep=off` guest CLOCK_MONOTONIC advances one nanosecond per
 * emulated instruction and idle time jumps to the next timer, so a paced load runs at
 * the same guest rate however fast the host emulates.
 *
 *   vm_load markers PATH COUNT RATE [BYTES [fifo]]
 *	COUNT write()s of BYTES (default 64) to PATH (trace_marker, /dev/ftring/marker),
 *	each "bm<seq> ", 24 pseudo-random hex digits, 'x' padding and '\n'. RATE > 0
 *	paces them at RATE per second in 1 ms batches (a late batch is written at once,
 *	never skipped); RATE 0 writes as fast as it can. Prints "written N failed F ns T":
 *	N writes tried, F of them refused (they count as lost events), T guest ns taken.
 *	"fifo": the writer runs SCHED_FIFO, so that a recorder only gets the CPU the load
 *	leaves (and what RT throttling reserves), as on a busy machine.
 *   vm_load flood PATH COUNT [BYTES]
 *	a flood on every CPU: one writer per online CPU, pinned to it at normal priority,
 *	each writing COUNT markers as `markers` does unpaced, all started at once. Each
 *	writer seeds its hex digits with its CPU, so no two write the same marker. Prints
 *	"written N failed F ns T", summed over the writers, T from the start to the end
 *	of the last one.
 *   vm_load cpu FILE CMD [ARGS...]
 *	runs CMD, passes SIGINT/SIGTERM on to it, and when it has exited writes
 *	"user U sys S status X" to FILE: the CPU seconds of CMD's whole process tree
 *	(RUSAGE_CHILDREN counts every descendant that was waited for).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC	1000000000ULL
#define BATCH_NS	1000000ULL	/* pacing granularity: one batch per guest ms */
#define MAX_BYTES	4096

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * NSEC_PER_SEC + (unsigned long long)ts.tv_nsec;
}

static void sleep_until(unsigned long long t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / NSEC_PER_SEC),
			       .tv_nsec = (long)(t % NSEC_PER_SEC) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * COUNT markers to @fd (see the usage above), paced at @rate a second (0: unpaced);
 * @seed starts the hex digits. Return: the writes refused.
 */
static unsigned long long write_markers(int fd, unsigned long long count,
					unsigned long long rate, size_t bytes,
					unsigned long long seed)
{
	char buf[MAX_BYTES];
	unsigned long long start, i, failed = 0;

	memset(buf, 'x', bytes);
	buf[bytes - 1] = '\n';
	start = now_ns();
	for (i = 0; i < count; i++) {
		int n;

		/* event i is due at start + i / rate: sleep when the batch is ahead of time */
		if (rate && i % (rate * BATCH_NS / NSEC_PER_SEC + 1) == 0) {
			unsigned long long due = start + i * NSEC_PER_SEC / rate;

			if (due > now_ns())
				sleep_until(due);
		}
		n = snprintf(buf, bytes, "bm%llu ", i);
		/* then 24 pseudo-random hex digits: data that compresses like real events */
		for (int k = 0; k < 24 && n < (int)bytes - 1; k++, n++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			buf[n] = "0123456789abcdef"[seed & 15];
		}
		buf[bytes - 1] = '\n';
		/* a refused write (ENOSPC: ftring with strict_writes=1) is an event lost */
		if (write(fd, buf, bytes) != (ssize_t)bytes)
			failed++;
	}
	return failed;
}

#define SEED	0x9e3779b97f4a7c15ULL

static int markers(const char *path, unsigned long long count, unsigned long long rate,
		   size_t bytes)
{
	unsigned long long start, failed;
	int fd = open(path, O_WRONLY);

	if (fd < 0) {
		fprintf(stderr, "vm_load: %s: %s\n", path, strerror(errno));
		return 1;
	}
	start = now_ns();
	failed = write_markers(fd, count, rate, bytes, SEED);
	printf("written %llu failed %llu ns %llu\n", count, failed, now_ns() - start);
	close(fd);
	return 0;
}

/*
 * One writer per online CPU, pinned; they wait on @go (closed by the parent once all
 * are forked) and send their refused-write count back on @res.
 */
static int flood(const char *path, unsigned long long count, size_t bytes)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long start, failed = 0, f;
	int go[2], res[2], bad = 0;
	char c;

	if (ncpus < 1 || pipe(go) || pipe(res)) {
		fprintf(stderr, "vm_load: flood: %s\n", strerror(errno));
		return 1;
	}
	for (long cpu = 0; cpu < ncpus; cpu++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "vm_load: fork: %s\n", strerror(errno));
			return 1;
		}
		if (!pid) {
			cpu_set_t set;
			int fd = open(path, O_WRONLY);

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (fd < 0 || sched_setaffinity(0, sizeof(set), &set)) {
				fprintf(stderr, "vm_load: writer on CPU %ld: %s\n", cpu,
					strerror(errno));
				_exit(1);
			}
			close(go[1]);
			if (read(go[0], &c, 1) < 0)
				_exit(1);
			f = write_markers(fd, count, 0, bytes, SEED + (unsigned long long)cpu);
			_exit(write(res[1], &f, sizeof(f)) == sizeof(f) ? 0 : 1);
		}
	}
	close(go[0]);
	close(res[1]);
	start = now_ns();
	close(go[1]);	/* every writer's read returns: they start together */
	for (long i = 0; i < ncpus; i++) {
		int status;

		if (read(res[0], &f, sizeof(f)) == sizeof(f))
			failed += f;
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	}
	printf("written %llu failed %llu ns %llu\n", count * (unsigned long long)ncpus,
	       failed, now_ns() - start);
	return bad;
}

static pid_t child;	/* set before the signal can matter */

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static int cpu(const char *file, char **argv)
{
	struct sigaction sa = { .sa_handler = forward };
	struct rusage ru;
	int status = 0;
	FILE *f;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "vm_load: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	getrusage(RUSAGE_CHILDREN, &ru);
	f = fopen(file, "w");
	if (!f)
		return 1;
	fprintf(f, "user %.6f sys %.6f status %d\n",
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "markers")) {
		unsigned long bytes = argc > 5 ? strtoul(argv[5], NULL, 0) : 64;
		struct sched_param sp = { .sched_priority = 1 };

		if (argc > 6 && strcmp(argv[6], "fifo")) {
			fprintf(stderr, "vm_load: unknown scheduling '%s' (fifo)\n", argv[6]);
			return 2;
		}
		if (argc > 6 && sched_setscheduler(0, SCHED_FIFO, &sp)) {
			fprintf(stderr, "vm_load: SCHED_FIFO: %s\n", strerror(errno));
			return 1;
		}

		if (bytes < 2 || bytes > MAX_BYTES) {
			fprintf(stderr, "vm_load: BYTES must be 2..%d\n", MAX_BYTES);
			return 2;
		}
		return markers(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
			       bytes);
	}
	if (argc >= 4 && !strcmp(argv[1], "flood")) {
		unsigned long bytes = argc > 4 ? strtoul(argv[4], NULL, 0) : 64;

		if (bytes < 2 || bytes > MAX_BYTES) {
			fprintf(stderr, "vm_load: BYTES must be 2..%d\n", MAX_BYTES);
			return 2;
		}
		return flood(argv[2], strtoull(argv[3], NULL, 0), bytes);
	}
	if (argc >= 4 && !strcmp(argv[1], "cpu"))
		return cpu(argv[2], argv + 3);
	fprintf(stderr, "usage: vm_load markers PATH COUNT RATE [BYTES [fifo]]\n"
			"       vm_load flood PATH COUNT [BYTES]\n"
			"       vm_load cpu FILE CMD [ARGS...]\n");
	return 2;
}
