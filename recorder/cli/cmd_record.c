// SPDX-License-Identifier: GPL-2.0
/*
 * `recorderd record`: one capture (capture.c) driven by the event loop (loop.c,
 * capture_pump.c) until COMMAND exits or SIGINT/SIGTERM arrives (through a
 * signalfd), then drain, finish, summary.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/capture_pump.h"
#include "capture/loop.h"
#include "cli.h"
#include "source/drain_threads.h"
#include "util/log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: recorderd record [OPTIONS] [--] [COMMAND [ARGS]]\n"
		"Records until COMMAND exits, or until SIGINT/SIGTERM without COMMAND.\n\n"
		"  -s, --source SRC       auto (default), kmod, mmap or splice\n"
		"  -e, --event SYS[:EV]   enable an event or a whole system (repeatable);\n"
		"                         markers are always on (-s kmod: '!EV' leaves EV out)\n"
		"  -C, --compress ALG     zstd (default) or none\n"
		"  -L, --level N          zstd level 1..22 (default 1)\n"
		"  -o, --output FILE      output file (default trace.dat)\n"
		"  -b, --buffer-kb KB     per-CPU ring buffer size to set\n"
		"  -B, --instance NAME    record tracefs instance NAME (created if missing)\n"
		"  -c, --clock CLOCK      trace clock to use (default: leave as is)\n"
		"  -k, --keep             also record what the buffer holds already (upstream's\n"
		"                         persistent instance after a reboot); not cleared first\n"
		"      --chunk-pages N    pages per compressed chunk\n"
		"      --compress-threads N  idle-priority threads compressing (default one\n"
		"                         per CPU, at most 8); 0: compress while moving pages\n"
		"      --drain-threads N  threads reading the rings (default one per CPU from\n"
		"                         4 CPUs up); 0: the page path reads them itself\n"
		"      --region-mb N      per-CPU file region in MiB (default 4096)\n"
		"      --period-ms N      timer wake-up period (default 200)\n"
		"      --sync-ms N        make the file complete on disk every N ms (default 1000)\n"
		"      --durability power|process\n"
		"                         each sync survives a power cut (default), or a crash\n"
		"                         of recorderd only (no fdatasync while recording)\n"
		"      --watermark PCT    wake up when a CPU ring is PCT%% full (default 10)\n"
		"  -q, --quiet            no summary\n"
		"  -v, --verbose          debug messages\n");
}

static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* @startup: our CPU seconds to set up (metadata); the rest is what recording cost. */
static void summary(struct capture *c, const char *output, double startup)
{
	struct capture_status st;
	struct rusage ru;
	struct stat sb;
	double ratio;

	capture_status(c, &st);
	printf("recorded %.2f s with source %s, %u-byte pages\n", st.seconds,
	       st.source ? st.source : "?", st.page_size);
	for (int i = 0; i < st.ncpus; i++)
		printf("  CPU%-3d pages %8llu  bytes %11llu  entries %9llu  lost %llu  overrun %llu\n",
		       i, (unsigned long long)st.cpu[i].pages,
		       (unsigned long long)st.cpu[i].bytes,
		       (unsigned long long)st.cpu[i].entries,
		       (unsigned long long)st.cpu[i].lost,
		       (unsigned long long)st.cpu[i].overrun);
	if (stat(output, &sb))
		sb.st_size = 0;
	/* a file cut by a write error still has its sparse CPU regions */
	if (sb.st_size > (off_t)sb.st_blocks * 512)
		sb.st_size = (off_t)sb.st_blocks * 512;
	ratio = sb.st_size ? (double)st.raw_bytes / (double)sb.st_size : 0;
	printf("  total pages %llu, %.1f MiB of pages -> %s: %.1f MiB (ratio %.2f), lost %llu\n",
	       (unsigned long long)st.pages, st.raw_bytes / 1048576.0, output,
	       sb.st_size / 1048576.0, ratio, (unsigned long long)st.lost);
	if (st.lost_pages)
		printf("  at least %llu pages taken from the rings after the file's last sync are lost to its write error (`recorderd recover` may find some)\n",
		       (unsigned long long)st.lost_pages);
	/* pages spilled raw while the compression threads fell behind are written twice */
	if (st.workers) {
		printf("  compression: %llu chunks on %u threads, ", (unsigned long long)st.chunks,
		       st.workers);
		printf("%llu spilled to the spool (peak %.1f MiB), %llu compressed by the page path while it waited, %llu stored uncompressed for a sync\n",
		       (unsigned long long)st.spooled, st.spool_peak / 1048576.0,
		       (unsigned long long)st.helped, (unsigned long long)st.stored);
	}
	/* our own CPU time only (not COMMAND's) */
	if (!getrusage(RUSAGE_SELF, &ru))
		printf("  recorder cpu: user %.3f s, sys %.3f s; recording %.3f s, setup %.3f s\n",
		       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
		       cpu_seconds() - startup, startup);
}

/* One recording: the loop, its capture and COMMAND. */
struct record_run {
	struct loop		*loop;
	struct capture_pump	*pump;
	int			tick_id;
	unsigned int		tick_ms;	/* the tick timer's period now */
	pid_t			child;
	int			child_status;
	int			err;		/* the capture's -errno that ended it */
};

static void on_signal(struct loop *l, int signo, void *arg)
{
	struct record_run *r = arg;
	pid_t p;
	int status;

	if (signo != SIGCHLD) {
		log_info("signal %d: stopping", signo);
		loop_quit(l, 0);
		return;
	}
	while ((p = waitpid(-1, &status, WNOHANG)) > 0)
		if (p == r->child) {
			r->child_status = status;
			r->child = 0;
			loop_quit(l, 0);
		}
}

static void on_tick(struct loop *l, uint64_t n, void *arg)
{
	struct record_run *r = arg;
	unsigned int next = capture_pump_tick(r->pump);

	/* idle: slower ticks (capture_pump.h) */
	if (r->pump && next != r->tick_ms && !loop_set_timer(l, r->tick_id, next))
		r->tick_ms = next;
}

static void on_capture_error(void *arg, long err)
{
	struct record_run *r = arg;

	r->err = (int)err;
	loop_quit(r->loop, 1);
}

static pid_t start_child(char **argv, const sigset_t *old)
{
	pid_t pid = fork();

	if (!pid) {
		sigprocmask(SIG_SETMASK, old, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "recorderd record: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int cmd_record(int argc, char **argv)
{
	enum { OPT_CHUNK = 256, OPT_REGION, OPT_PERIOD, OPT_SYNC, OPT_WATERMARK, OPT_DURABILITY,
	       OPT_THREADS, OPT_DRAIN };
	static const struct option opts[] = {
		{ "source",	 required_argument, NULL, 's' },
		{ "event",	 required_argument, NULL, 'e' },
		{ "compress",	 required_argument, NULL, 'C' },
		{ "level",	 required_argument, NULL, 'L' },
		{ "output",	 required_argument, NULL, 'o' },
		{ "buffer-kb",	 required_argument, NULL, 'b' },
		{ "instance",	 required_argument, NULL, 'B' },
		{ "clock",	 required_argument, NULL, 'c' },
		{ "keep",	 no_argument,	    NULL, 'k' },
		{ "chunk-pages", required_argument, NULL, OPT_CHUNK },
		{ "region-mb",	 required_argument, NULL, OPT_REGION },
		{ "period-ms",	 required_argument, NULL, OPT_PERIOD },
		{ "sync-ms",	 required_argument, NULL, OPT_SYNC },
		{ "watermark",	 required_argument, NULL, OPT_WATERMARK },
		{ "durability",	 required_argument, NULL, OPT_DURABILITY },
		{ "compress-threads", required_argument, NULL, OPT_THREADS },
		{ "drain-threads", required_argument, NULL, OPT_DRAIN },
		{ "quiet",	 no_argument,	    NULL, 'q' },
		{ "verbose",	 no_argument,	    NULL, 'v' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct capture_params p = {
		.source = "auto",
		.output = "trace.dat",
		.comp = V7_COMP_ZSTD,
		.region_bytes = 4096ULL << 20,
		.durable = 1,
	};
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, 0 };
	const char **events = NULL;
	int nr_events = 0, quiet = 0, opt, err = 0, ret;
	struct record_run r = { 0 };
	unsigned long long v;
	double startup;
	struct capture *c;
	pid_t child = 0;
	sigset_t old;

	while ((opt = getopt_long(argc, argv, "+s:e:C:L:o:b:B:c:kqvh", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			p.source = optarg;
			break;
		case 'e': {
			const char **ne = realloc(events, (nr_events + 1) * sizeof(*ne));

			if (!ne)
				return 1;
			events = ne;
			events[nr_events++] = optarg;
			break;
		}
		case 'C':
			if (!strcmp(optarg, "zstd")) {
				p.comp = V7_COMP_ZSTD;
			} else if (!strcmp(optarg, "none")) {
				p.comp = V7_COMP_NONE;
			} else {
				log_err("unknown compression '%s' (zstd or none)", optarg);
				goto bad;
			}
			break;
		case 'L':
			if (cli_parse_uint("-L", optarg, 22, 1, &v))
				goto bad;
			p.zstd_level = (int)v;
			break;
		case 'o':
			p.output = optarg;
			break;
		case 'b':
			if (cli_parse_uint("-b", optarg, 1UL << 30, 0, &v))
				goto bad;
			p.buffer_kb = (unsigned int)v;
			break;
		case 'B':
			p.instance = optarg;
			p.create_instance = 1;
			break;
		case 'c':
			p.clock = optarg;
			break;
		case OPT_CHUNK:
			if (cli_parse_uint("--chunk-pages", optarg, 4096, 0, &v))
				goto bad;
			p.chunk_pages = (unsigned int)v;
			break;
		case OPT_REGION:
			if (cli_parse_uint("--region-mb", optarg, 1UL << 24, 0, &v))
				goto bad;
			p.region_bytes = (uint64_t)v << 20;
			break;
		case OPT_PERIOD:
			if (cli_parse_uint("--period-ms", optarg, 60000, 0, &v))
				goto bad;
			p.period_ms = (unsigned int)v;
			break;
		case OPT_SYNC:
			if (cli_parse_uint("--sync-ms", optarg, 3600000, 0, &v))
				goto bad;
			p.sync_ms = (unsigned int)v;
			break;
		case OPT_THREADS:
			if (cli_parse_uint("--compress-threads", optarg, 64, 1, &v))
				goto bad;
			p.compress_threads = v ? (int)v : -1;
			break;
		case OPT_DRAIN:
			if (cli_parse_uint("--drain-threads", optarg, DRAIN_THREADS_MAX, 1, &v))
				goto bad;
			p.drain_threads = v ? (int)v : -1;
			break;
		case OPT_WATERMARK:
			if (cli_parse_uint("--watermark", optarg, 100, 0, &v))
				goto bad;
			p.watermark = (int)v;
			break;
		case OPT_DURABILITY:
			if (strcmp(optarg, "power") && strcmp(optarg, "process")) {
				log_err("bad value '%s' for --durability (power or process)",
					optarg);
				goto bad;
			}
			p.durable = !strcmp(optarg, "power");
			break;
		case 'k':
			p.keep = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'v':
			log_max_level = LOG_LVL_DEBUG;
			break;
		case 'h':
			usage(stdout);
			free(events);
			return 0;
		default:
			goto bad;
		}
	}
	p.events = events;
	p.nr_events = nr_events;

	/* Signals go to the loop through a signalfd; the child gets the old mask back. */
	sigprocmask(SIG_BLOCK, NULL, &old);
	r.loop = loop_new();
	ret = r.loop ? loop_add_signals(r.loop, sigs, on_signal, &r) : -ENOMEM;
	if (ret) {
		log_err("cannot set up the event loop: %s", strerror(-ret));
		loop_free(r.loop);
		free(events);
		return 1;
	}

	c = capture_start(&p, &err);
	startup = cpu_seconds();
	free(events);
	if (!c) {
		loop_free(r.loop);
		return 1;
	}
	r.pump = capture_pump_start(r.loop, c, on_capture_error, &r);
	r.tick_ms = capture_period_ms(c);
	ret = r.pump ? loop_add_timer(r.loop, r.tick_ms, on_tick, &r) : -ENOMEM;
	r.tick_id = ret;
	if (ret < 0)
		log_err("cannot set up the event loop: %s", strerror(-ret));
	else
		ret = 0;
	if (!ret && optind < argc) {
		child = start_child(argv + optind, &old);
		if (child < 0) {
			log_err("cannot start %s: %s", argv[optind], strerror(errno));
			ret = -errno;
		}
		r.child = child;
	}
	if (!ret)
		ret = loop_run(r.loop) < 0 ? -EIO : 0;
	if (r.child > 0) {
		/* Stopped by a signal while COMMAND still runs: pass it on. */
		kill(r.child, SIGTERM);
		waitpid(r.child, &r.child_status, 0);
	}
	capture_pump_stop(r.pump);
	err = capture_stop(c);
	if (!quiet)
		summary(c, p.output, startup);
	capture_free(c);
	loop_free(r.loop);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret || err || r.err)
		return 1;
	if (child > 0 && WIFEXITED(r.child_status))
		return WEXITSTATUS(r.child_status);
	return child > 0 ? 128 + WTERMSIG(r.child_status) : 0;
bad:
	free(events);
	usage(stderr);
	return 2;
}
