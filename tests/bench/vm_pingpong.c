// SPDX-License-Identifier: GPL-2.0
/*
 * Load for the in-guest tracer benchmark (tests/bench/vm_pingpong). Times with
 * CLOCK_MONOTONIC; in a `-icount shift=0,sleep=off` guest that clock advances one
 * nanosecond per emulated instruction, so the figures are deterministic "units".
 *
 *   vm_pingpong pingpong ROUNDS REPEATS
 *	two processes on CPU 0 bounce a byte through two pipes; prints the median
 *	units per round trip over REPEATS runs of ROUNDS round trips
 *   vm_pingpong forkexec COUNT REPEATS
 *	COUNT times: fork, the child execs a minimal static program that exits at
 *	once, the parent waits for it; prints the median units per
 *	fork+exec+exit+wait
 *   vm_pingpong idle
 *	no load, prints 0: what a tracer records around one run of this program
 *   vm_pingpong write PATH BYTES COUNT REPEATS
 *	COUNT write()s of BYTES to PATH (trace_marker, /dev/ftring/marker, /dev/null);
 *	prints the median units per write
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPEATS	32

/*
 * Marks the timed runs (not the warm-up) for tests/bench/insn_profile's qemu plugin,
 * which counts only between the two: a long NOP (0f 1f 80 disp32) whose displacement
 * names it, so the mark costs one instruction and means nothing anywhere else.
 */
#if defined(__x86_64__) || defined(__i386__)
#define PROFILE_MARK(name)	".byte 0x0f, 0x1f, 0x80\n\t.long " name
#else
#define PROFILE_MARK(name)	""
#endif

static int warmed_up;	/* the warm-up run is over: mark the timed ones */

static inline void profile_start(void)
{
	if (warmed_up)
		asm volatile(PROFILE_MARK("0x31666f72") ::: "memory");	/* "rof1": on */
}

static inline void profile_stop(void)
{
	if (warmed_up)
		asm volatile(PROFILE_MARK("0x30666f72") ::: "memory");	/* "rof0": off */
}

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
	profile_start();
	for (i = 0; i < rounds; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			exit(1);
	profile_stop();
	t1 = now_ns();
	waitpid(pid, &status, 0);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	return (double)(t1 - t0) / (double)rounds;
}

/*
 * The program the fork/exec loop runs: the smallest static x86-64 executable, one
 * PT_LOAD page whose code is exit_group(0). With no dynamic loader and no libc start-up
 * an op is little more than fork + exec + exit + wait, the part whose tracepoints the
 * benchmark measures; a dynamic program's start-up cost (~1.2M units here, varying by
 * ~1% run to run) would bury a tracer's ~10 events per op.
 */
static const unsigned char exit0_code[] = {
	0xb8, 0xe7, 0x00, 0x00, 0x00,	/* mov $231 (exit_group), %eax */
	0x31, 0xff,			/* xor %edi, %edi */
	0x0f, 0x05,			/* syscall */
};

#define EXIT0_BASE	0x400000UL

/* Writes the program to a new file in /tmp; returns its path in @path or -1. */
static int write_exit0(char *path, size_t size)
{
	unsigned char img[sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr) + sizeof(exit0_code)];
	const Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
			     EV_CURRENT, ELFOSABI_SYSV },
		.e_type = ET_EXEC,
		.e_machine = EM_X86_64,
		.e_version = EV_CURRENT,
		.e_entry = EXIT0_BASE + sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr),
		.e_phoff = sizeof(Elf64_Ehdr),
		.e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr),
		.e_phnum = 1,
	};
	const Elf64_Phdr ph = {
		.p_type = PT_LOAD,
		.p_flags = PF_R | PF_X,
		.p_vaddr = EXIT0_BASE,
		.p_paddr = EXIT0_BASE,
		.p_filesz = sizeof(img),
		.p_memsz = sizeof(img),
		.p_align = 0x1000,
	};
	int fd;

#ifndef __x86_64__
	errno = ENOEXEC;	/* exit0_code is x86-64 machine code */
	return -1;
#endif
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + sizeof(eh), &ph, sizeof(ph));
	memcpy(img + sizeof(eh) + sizeof(ph), exit0_code, sizeof(exit0_code));
	snprintf(path, size, "/tmp/vm_pingpong_exit0.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	/* closed before any exec: an fd open for writing would make exec fail (ETXTBSY) */
	if (write(fd, img, sizeof(img)) != (ssize_t)sizeof(img) || fchmod(fd, 0755)) {
		close(fd);
		unlink(path);
		return -1;
	}
	return close(fd);
}

static double forkexec_once(const char *prog, long count)
{
	unsigned long long t0, t1;
	int status;
	pid_t pid;
	long i;

	t0 = now_ns();
	profile_start();
	for (i = 0; i < count; i++) {
		pid = fork();
		if (pid < 0) {
			perror("vm_pingpong: fork");
			exit(1);
		}
		if (!pid) {
			execl(prog, "exit0", (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "vm_pingpong: exec %s failed (status %#x)\n", prog, status);
			exit(1);
		}
	}
	profile_stop();
	t1 = now_ns();
	return (double)(t1 - t0) / (double)count;
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
	profile_start();
	for (i = 0; i < count; i++)
		if (write(fd, buf, bytes) < 0) {
			fprintf(stderr, "vm_pingpong: write %s: %s\n", path, strerror(errno));
			exit(1);
		}
	profile_stop();
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
	if (argc == 2 && !strcmp(argv[1], "idle")) {
		printf("0\n");	/* a traced run without load: the events around a run */
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "pingpong")) {
		long rounds = atol(argv[2]);

		repeats = atoi(argv[3]);
		if (rounds <= 0 || repeats <= 0 || repeats > MAX_REPEATS)
			return 2;
		pingpong_once(rounds / 10 + 1);		/* warm up */
		warmed_up = 1;
		for (r = 0; r < repeats; r++)
			v[r] = pingpong_once(rounds);
		printf("%.1f\n", median(v, repeats));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "forkexec")) {
		long count = atol(argv[2]);
		char prog[64];

		repeats = atoi(argv[3]);
		if (count <= 0 || repeats <= 0 || repeats > MAX_REPEATS)
			return 2;
		if (write_exit0(prog, sizeof(prog))) {
			perror("vm_pingpong: cannot write the program to exec");
			return 1;
		}
		/* the same address-space layout in every child: no ASLR noise in the costs */
		personality(ADDR_NO_RANDOMIZE);
		forkexec_once(prog, count / 10 + 1);	/* warm up */
		warmed_up = 1;
		for (r = 0; r < repeats; r++)
			v[r] = forkexec_once(prog, count);
		unlink(prog);
		printf("%.1f\n", median(v, repeats));
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "write")) {
		size_t bytes = (size_t)atol(argv[3]);
		long count = atol(argv[4]);

		repeats = atoi(argv[5]);
		if (!bytes || count <= 0 || repeats <= 0 || repeats > MAX_REPEATS)
			return 2;
		write_once(argv[2], bytes, count / 10 + 1);	/* warm up */
		warmed_up = 1;
		for (r = 0; r < repeats; r++)
			v[r] = write_once(argv[2], bytes, count);
		printf("%.1f\n", median(v, repeats));
		return 0;
	}
	fprintf(stderr, "usage: vm_pingpong pingpong ROUNDS REPEATS\n"
		"       vm_pingpong forkexec COUNT REPEATS\n"
		"       vm_pingpong idle\n"
		"       vm_pingpong write PATH BYTES COUNT REPEATS\n");
	return 2;
}
