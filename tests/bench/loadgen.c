// SPDX-License-Identifier: GPL-2.0
/*
 * Load generators for record_bench.sh (never a test):
 *   loadgen markers FILE SECONDS [BYTES]  one thread per CPU, pinned, writing BYTES-long
 *                                         markers to FILE (a trace_marker) nonstop
 *   loadgen pingpong SECONDS              thread pairs bouncing a byte through pipes
 *                                         across CPUs: a flood of sched events
 * Prints "ops N" (writes or round trips) at the end.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

static double seconds;
static const char *marker_file;
static size_t marker_len = 64;
static unsigned long total_ops;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void add_ops(unsigned long n)
{
	pthread_mutex_lock(&lock);
	total_ops += n;
	pthread_mutex_unlock(&lock);
}

static void *marker_thread(void *arg)
{
	int cpu = (int)(long)arg, fd = open(marker_file, O_WRONLY);
	char buf[4096];
	unsigned long n = 0;
	double end = now() + seconds;

	pin(cpu);
	if (fd < 0) {
		perror(marker_file);
		return NULL;
	}
	while (1) {
		int len = snprintf(buf, sizeof(buf), "bench marker cpu%d #%lu ", cpu, n);

		/* a payload that compresses like real text, not like zeros */
		for (size_t i = (size_t)len; i < marker_len && i < sizeof(buf); i++)
			buf[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[(n * 7 + i * 13) % 36];
		if (write(fd, buf, marker_len > (size_t)len ? marker_len : (size_t)len) < 0)
			break;
		if (!(++n & 255) && now() > end)
			break;
	}
	close(fd);
	add_ops(n);
	return NULL;
}

struct pp {
	int	in, out, cpu;
	int	first;
};

static void *pp_thread(void *arg)
{
	struct pp *p = arg;
	double end = now() + seconds;
	unsigned long n = 0;
	char c = 'x';

	pin(p->cpu);
	if (p->first && write(p->out, &c, 1) != 1)
		return NULL;
	while (read(p->in, &c, 1) == 1) {
		if (c == 'q' || (!(++n & 127) && now() > end))
			c = 'q';
		if (write(p->out, &c, 1) != 1 || c == 'q')
			break;
	}
	if (p->first)
		add_ops(n);
	return NULL;
}

int main(int argc, char **argv)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th[256];
	int nth = 0;

	if (argc >= 4 && !strcmp(argv[1], "markers")) {
		marker_file = argv[2];
		seconds = atof(argv[3]);
		if (argc > 4)
			marker_len = (size_t)atoi(argv[4]);
		for (int i = 0; i < ncpu && nth < 256; i++)
			pthread_create(&th[nth++], NULL, marker_thread, (void *)(long)i);
	} else if (argc >= 3 && !strcmp(argv[1], "pingpong")) {
		static struct pp pp[256];

		seconds = atof(argv[2]);
		for (int i = 0; i < ncpu && nth + 2 <= 256; i++) {
			int a[2], b[2];

			if (pipe(a) || pipe(b))
				return 1;
			pp[nth] = (struct pp){ .in = a[0], .out = b[1], .cpu = i, .first = 1 };
			pp[nth + 1] = (struct pp){ .in = b[0], .out = a[1], .cpu = (i + 1) % ncpu };
			pthread_create(&th[nth], NULL, pp_thread, &pp[nth]);
			pthread_create(&th[nth + 1], NULL, pp_thread, &pp[nth + 1]);
			nth += 2;
		}
	} else {
		fprintf(stderr, "usage: loadgen markers FILE SECONDS [BYTES] | pingpong SECONDS\n");
		return 2;
	}
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	printf("ops %lu\n", total_ops);
	return 0;
}
