// SPDX-License-Identifier: GPL-2.0
/*
 * recorderd start | stop | status | snapshot | trigger | reload | rotate | salvage: the CLI
 * of the daemon. `start` builds the configuration and runs daemon_run() (in the
 * background unless --foreground or under systemd); `salvage` builds it the same way
 * and runs daemon_salvage() when a daemon died; the others are one control request
 * each (ctl_client.c) and translate the answer into text or JSON.
 *
 * Exit status: 0 done, 1 failed, 2 usage, 3 no daemon answers on the socket.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "daemon/config.h"
#include "daemon/ctl.h"
#include "daemon/daemon.h"
#include "util/log.h"

#define EXIT_NOT_RUNNING	3
#define MAX_OVERRIDES		256

static const char *socket_path(const char *opt)
{
	const char *env = getenv("RECORDERD_SOCKET");

	if (opt)
		return opt;
	return env && *env ? env : CTL_SOCKET_PATH;
}

/* Sends @cmd and prints errors; returns 0 with the answer in @h/@buf, or an exit code. */
/* Reports what ctl_request() returned and the answer's status: 0 if both say OK. */
static int request_result(int ret, const char *sock, const struct ctl_hdr *h, const void *buf)
{
	if (ret == -ENOENT || ret == -ECONNREFUSED) {
		fprintf(stderr, "recorderd: not running (nothing listens on %s)\n", sock);
		return EXIT_NOT_RUNNING;
	}
	if (ret == -EACCES) {
		fprintf(stderr, "recorderd: %s: permission denied (the socket is root's)\n", sock);
		return 1;
	}
	if (ret) {
		fprintf(stderr, "recorderd: %s: %s\n", sock, strerror(-ret));
		return 1;
	}
	if (h->code != CTL_ST_OK) {
		fprintf(stderr, "recorderd: %s: %.*s\n", ctl_status_str(h->code),
			(int)h->payload_len, (const char *)buf);
		return 1;
	}
	return 0;
}

static int request(const char *sock, uint16_t cmd, const void *pl, size_t len,
		   struct ctl_hdr *h, void *buf, unsigned int timeout_ms)
{
	return request_result(ctl_request(sock, cmd, pl, len, h, buf, timeout_ms), sock, h, buf);
}

/* `start` and `salvage` take the same options, but for --foreground (start only). */
static void start_usage(FILE *f, const char *cmd)
{
	if (!strcmp(cmd, "salvage"))
		fprintf(f,
"usage: recorderd salvage [OPTIONS]\n"
"Finishes what a daemon that died left when none took over: recovers its file, and\n"
"writes what it left tracing to a new file, then stops that tracing. With the options\n"
"and config file the daemon ran with; exits 0 when a daemon runs or nothing is left.\n");
	else
		fprintf(f,
"usage: recorderd start [OPTIONS]\n"
"Starts capturing in the background and returns once the capture is live.\n");
	fprintf(f,
"Options override the config file (default " CONFIG_PATH " if it exists):\n"
"  -c, --config FILE        configuration file (see recorderd.conf.example)\n"
"  -e, --event SYS[:EVENT]  event to enable (repeatable; replaces the file's list)\n"
"  -C, --compression zstd|none\n"
"  -b, --buffer-kb KB       per-CPU kernel buffer size\n"
"  -s, --source auto|kmod|mmap|splice\n"
"  -d, --output-dir DIR     where files go\n"
"  -i, --instance NAME      tracefs instance to record (created if missing)\n"
"  -m, --mode stream|flight stream to files, or keep in memory until snapshot\n"
"  -T, --trigger KIND:ARGS  flight mode: save a file when it fires (repeatable, adds\n"
"                           to the file's): marker:REGEX, signal:SIGSEGV,..., oom,\n"
"                           hung-task, command:NAME (see 'recorderd trigger')\n"
"      --durability power|process\n"
"                           each sync survives a power cut (default), or a crash\n"
"                           of recorderd only (no fdatasync while recording)\n"
"  -O, --set KEY=VALUE      any config key\n"
"      --socket PATH        control socket (default $RECORDERD_SOCKET or "
	CTL_SOCKET_PATH ")\n");
	if (strcmp(cmd, "salvage"))
		fprintf(f,
"  -f, --foreground         do not detach (implied under systemd)\n");
}

static int add_ov(struct config_override *ov, int *nov, const char *key, const char *val)
{
	if (*nov >= MAX_OVERRIDES) {
		fprintf(stderr, "recorderd: too many options\n");
		return -1;
	}
	ov[*nov].key = key;
	ov[*nov].val = val;
	(*nov)++;
	return 0;
}

/* Options of `start` that are plain config keys. */
static const struct {
	int		opt;
	const char	*key;
} opt_keys[] = {
	{ 'C', "compression" }, { 'b', "buffer_kb" }, { 's', "source" }, { 'd', "output_dir" },
	{ 'i', "instance" }, { 'm', "mode" }, { 'S', "socket" }, { 'D', "durability" },
	{ 'T', "trigger" },
};

/* What the options of `start` or `salvage` (argv[0]) give. */
struct start_opts {
	struct rec_config	cfg;
	const char		*cfg_path;	/* absolute, or NULL */
	struct config_override	*ov;		/* static: kept for reload */
	int			nov;
	int			fg;
};

/* Builds so->cfg from the options and config file: -1 to go on, else an exit status. */
static int parse_start(int argc, char **argv, struct start_opts *so)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "event", required_argument, NULL, 'e' },
		{ "compression", required_argument, NULL, 'C' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "source", required_argument, NULL, 's' },
		{ "output-dir", required_argument, NULL, 'd' },
		{ "instance", required_argument, NULL, 'i' },
		{ "mode", required_argument, NULL, 'm' },
		{ "set", required_argument, NULL, 'O' },
		{ "socket", required_argument, NULL, 'S' },
		{ "durability", required_argument, NULL, 'D' },
		{ "trigger", required_argument, NULL, 'T' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct config_override ov[MAX_OVERRIDES];
	static char cfg_path_buf[PATH_MAX];
	const char *env_sock = getenv("RECORDERD_SOCKET"), *key = NULL;
	int salvage = !strcmp(argv[0], "salvage"), nev = 0, o;
	char err[CONFIG_ERR_LEN], *eq;

	memset(so, 0, sizeof(*so));
	so->ov = ov;
	if (env_sock && *env_sock)
		add_ov(ov, &so->nov, "socket", env_sock);
	while ((o = getopt_long(argc, argv, "+c:e:C:b:s:d:i:m:O:T:fh", opts, NULL)) != -1) {
		int r = 0;

		switch (o) {
		case 'c':
			so->cfg_path = optarg;
			break;
		case 'e':
			r = add_ov(ov, &so->nov, nev++ ? "event" : "events", optarg);
			break;
		case 'f':
			if (salvage) {
				start_usage(stderr, argv[0]);
				return 2;
			}
			so->fg = 1;
			break;
		case 'O':
			eq = strchr(optarg, '=');
			if (!eq) {
				fprintf(stderr, "recorderd %s: -O wants KEY=VALUE, got '%s'\n",
					argv[0], optarg);
				return 2;
			}
			*eq = 0;
			r = add_ov(ov, &so->nov, optarg, eq + 1);
			break;
		case 'h':
			start_usage(stdout, argv[0]);
			return 0;
		default:
			/* The remaining options each set one config key. */
			for (size_t i = 0; i < sizeof(opt_keys) / sizeof(opt_keys[0]); i++)
				if (opt_keys[i].opt == o)
					key = opt_keys[i].key;
			if (!key) {
				start_usage(stderr, argv[0]);
				return 2;
			}
			r = add_ov(ov, &so->nov, key, optarg);
			key = NULL;
		}
		if (r)
			return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "recorderd %s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return 2;
	}
	if (!so->cfg_path && !access(CONFIG_PATH, F_OK))
		so->cfg_path = CONFIG_PATH;
	if (so->cfg_path && so->cfg_path[0] != '/') {
		/* Reload re-reads it after the daemon did chdir("/"). */
		if (!realpath(so->cfg_path, cfg_path_buf)) {
			fprintf(stderr, "recorderd: %s: %s\n", so->cfg_path, strerror(errno));
			return 1;
		}
		so->cfg_path = cfg_path_buf;
	}
	if (config_build(&so->cfg, so->cfg_path, ov, so->nov, err)) {
		fprintf(stderr, "recorderd: %s\n", err);
		return 1;
	}
	return -1;
}

/*
 * The daemon's lock, taken before any file, directory or tracing setting is touched
 * (and before a stale socket could be unlinked). 0, or -errno with *@holder the pid of
 * the daemon holding it (0 if none answers), *@salvage 1 when that is a salvage.
 */
static int lock_daemon(const struct rec_config *cfg, pid_t *holder, int *salvage)
{
	static uint8_t buf[CTL_MAX_PAYLOAD];
	struct ctl_hdr h;
	int ret = daemon_lock(cfg->socket, holder, salvage);

	if (ret == -EWOULDBLOCK && !*holder &&
	    !ctl_request(cfg->socket, CTL_CMD_PING, NULL, 0, &h, buf, 2000) && h.code == CTL_ST_OK)
		*holder = (pid_t)((struct ctl_ping *)buf)->pid;
	if (ret && ret != -EWOULDBLOCK)
		fprintf(stderr, "recorderd: cannot lock %s.lock: %s\n", cfg->socket,
			strerror(-ret));
	return ret;
}

static int cmd_start(int argc, char **argv)
{
	struct start_opts so;
	int ready_fd = -1, ret = parse_start(argc, argv, &so);
	pid_t holder = 0;
	int salvage;

	if (ret >= 0)
		return ret;
	/* A second start must say so and touch nothing. */
	ret = lock_daemon(&so.cfg, &holder, &salvage);
	if (ret == -EWOULDBLOCK && salvage)
		fprintf(stderr, "recorderd: a salvage is running (pid %d, socket %s)\n",
			(int)holder, so.cfg.socket);
	else if (ret == -EWOULDBLOCK)
		fprintf(stderr, "recorderd: already running (pid %d, socket %s)\n", (int)holder,
			so.cfg.socket);
	if (ret) {
		config_free(&so.cfg);
		return 1;
	}
	if (daemon_under_systemd()) {
		so.fg = 1;
		log_journal_prefix = 1;
	}
	if (!so.fg) {
		ready_fd = daemon_detach();
		if (ready_fd < 0) {
			fprintf(stderr, "recorderd: cannot detach: %s\n", strerror(-ready_fd));
			config_free(&so.cfg);
			return 1;
		}
	}
	return daemon_run(&so.cfg, so.cfg_path, so.ov, so.nov, ready_fd);
}

/*
 * A live daemon's capture is not ours to touch, and a lock file naming no capture
 * means the last daemon finished cleanly (or salvage ran already): nothing to do.
 */
static int cmd_salvage(int argc, char **argv)
{
	struct start_opts so;
	int ret = parse_start(argc, argv, &so);
	pid_t holder = 0;
	int salvage;

	if (ret >= 0)
		return ret;
	ret = lock_daemon(&so.cfg, &holder, &salvage);
	if (ret == -EWOULDBLOCK && salvage)
		printf("recorderd: another salvage is running (pid %d): nothing to do\n",
		       (int)holder);
	else if (ret == -EWOULDBLOCK)
		printf("recorderd is running (pid %d): nothing to salvage\n", (int)holder);
	else if (!ret && !daemon_lock_previous())
		printf("recorderd: nothing to salvage (no daemon died with a capture open)\n");
	if (ret || !daemon_lock_previous()) {
		config_free(&so.cfg);
		return ret && ret != -EWOULDBLOCK ? 1 : 0;
	}
	/* As `start` under systemd: the journal takes each line's priority. */
	if (daemon_stderr_is_journal())
		log_journal_prefix = 1;
	return daemon_salvage(&so.cfg);
}

/* ---- client subcommands ---------------------------------------------------------- */

struct client_opts {
	const char	*sock;
	int		json;
	const char	*out;
	const char	*name;		/* the argument of `trigger` */
	unsigned int	timeout_s;
};

/* A client command's synopsis, then every option it takes (@extra as in parse_client). */
static void client_usage(FILE *f, const char *usage, const char *extra)
{
	fprintf(f, "usage: recorderd %s\n\n", usage);
	if (strchr(extra, 'j'))
		fprintf(f, "      --json             the answer as one JSON object\n");
	if (strchr(extra, 'o'))
		fprintf(f, "  -o, --output FILE      write FILE (must not exist yet) instead of the\n"
			"                         next file name in output_dir\n");
	fprintf(f,
		"      --socket PATH      control socket (default $RECORDERD_SOCKET or\n"
		"                         " CTL_SOCKET_PATH ")\n"
		"  -t, --timeout SECONDS  wait this long for the daemon's answer (default 60)\n");
}

static int parse_client(int argc, char **argv, struct client_opts *co, const char *extra,
			const char *usage)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int o;

	memset(co, 0, sizeof(*co));
	co->timeout_s = 60;
	/* With a NAME argument (extra has 'n'), options may come before or after it. */
	while ((o = getopt_long(argc, argv, strchr(extra, 'n') ? "o:t:h" : "+o:t:h", opts,
				NULL)) != -1) {
		if (o == 'S') {
			co->sock = optarg;
		} else if (o == 'j' && strchr(extra, 'j')) {
			co->json = 1;
		} else if (o == 'o' && strchr(extra, 'o')) {
			co->out = optarg;
		} else if (o == 't') {
			unsigned long long v;

			if (cli_parse_uint("--timeout", optarg, 86400, 0, &v))
				return 2;
			co->timeout_s = (unsigned int)v;
		} else if (o == 'h') {
			client_usage(stdout, usage, extra);
			return 0;
		} else {
			client_usage(stderr, usage, extra);
			return 2;
		}
	}
	if (strchr(extra, 'n') && optind == argc - 1) {
		co->name = argv[optind++];
		if (!*co->name || strlen(co->name) >= 64) {
			fprintf(stderr, "recorderd: trigger name must be 1-63 characters\n");
			return 2;
		}
	} else if (strchr(extra, 'n') || optind < argc) {
		client_usage(stderr, usage, extra);
		return 2;
	}
	co->sock = socket_path(co->sock);
	return -1;
}

static int cmd_stop(int argc, char **argv)
{
	static uint8_t buf[CTL_MAX_PAYLOAD];
	struct client_opts co;
	struct ctl_hdr h;
	int ret = parse_client(argc, argv, &co, "",
			       "stop [OPTIONS]\n"
			       "Stops the capture: drains the buffers, finishes the files.");

	if (ret >= 0)
		return ret;
	ret = request(co.sock, CTL_CMD_STOP, NULL, 0, &h, buf, co.timeout_s * 1000);
	if (ret)
		return ret;
	/*
	 * The answer means the files are final; return once the daemon has also let go of
	 * the socket (its last step), so that a new start can follow at once.
	 */
	for (int i = 0; i < 200 && !access(co.sock, F_OK); i++)
		usleep(10000);
	printf("recorderd: %.*s\n", (int)h.payload_len, (char *)buf);
	return 0;
}

/* A request whose payload is the NAME argument (extra "n") or nothing. */
static int cmd_simple(int argc, char **argv, uint16_t cmd, const char *extra,
		      const char *usage)
{
	static uint8_t buf[CTL_MAX_PAYLOAD];
	struct client_opts co;
	struct ctl_hdr h;
	int ret = parse_client(argc, argv, &co, extra, usage);

	if (ret >= 0)
		return ret;
	ret = request(co.sock, cmd, co.name, co.name ? strlen(co.name) : 0, &h, buf,
		      co.timeout_s * 1000);
	if (!ret)
		printf("recorderd: %.*s\n", (int)h.payload_len, (char *)buf);
	return ret;
}

static int cmd_reload(int argc, char **argv)
{
	return cmd_simple(argc, argv, CTL_CMD_RELOAD, "",
			  "reload [OPTIONS]\nRe-reads the config file (same as SIGHUP).");
}

static int cmd_rotate(int argc, char **argv)
{
	return cmd_simple(argc, argv, CTL_CMD_ROTATE, "",
			  "rotate [OPTIONS]\nFinishes the current file, starts the next.");
}

static int cmd_snapshot(int argc, char **argv)
{
	static uint8_t buf[CTL_MAX_PAYLOAD];
	char path[PATH_MAX] = "", sz[32];
	struct ctl_snapshot_reply *sr = (void *)buf;
	struct client_opts co;
	struct ctl_hdr h;
	int ret = parse_client(argc, argv, &co, "o",
			       "snapshot [OPTIONS]\n"
			       "Writes the flight recorder's buffers to a trace.dat (flight mode).");

	if (ret >= 0)
		return ret;
	if (co.out && co.out[0] != '/') {
		if (!getcwd(path, sizeof(path)) ||
		    strlen(path) + strlen(co.out) + 2 > sizeof(path)) {
			fprintf(stderr, "recorderd: cannot make %s absolute\n", co.out);
			return 1;
		}
		strcat(path, "/");
		strcat(path, co.out);
	} else if (co.out) {
		snprintf(path, sizeof(path), "%s", co.out);
	}
	ret = request(co.sock, CTL_CMD_SNAPSHOT, path, strlen(path), &h, buf,
		      co.timeout_s * 1000);
	if (ret)
		return ret;
	if (h.payload_len <= sizeof(*sr) || buf[h.payload_len - 1]) {
		fprintf(stderr, "recorderd: malformed snapshot answer\n");
		return 1;
	}
	printf("%s\n", (char *)(sr + 1));
	fprintf(stderr, "recorderd: snapshot of %s of pages in %.0f ms\n",
		config_fmt_size(sr->raw_bytes, sz, sizeof(sz)), sr->duration_ns / 1e6);
	return 0;
}

static int cmd_trigger(int argc, char **argv)
{
	return cmd_simple(argc, argv, CTL_CMD_TRIGGER, "n",
			  "trigger [OPTIONS] NAME\n"
			  "Fires the flight recorder's trigger command:NAME: its window goes "
			  "to a trig-*.dat file.");
}

/* ---- status -------------------------------------------------------------------- */

static const char *state_name(uint32_t s)
{
	static const char *const names[] = {
		"starting", "running", "stopping", "failed", "stalled"
	};

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

static void json_str(const char *key, const char *s, int comma)
{
	printf("\"%s\": \"", key);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	printf("\"%s", comma ? ", " : "");
}

/* The triggers' lines of a status answer (ctl_proto.h), as JSON or text. */
static void print_triggers(const char *lines, int json)
{
	const char *p = lines;
	int n = 0;

	if (json)
		printf("\"triggers\": [");
	while (*p) {
		char f[5][4096] = { "", "", "", "", "" };
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		for (int i = 0; i < 5 && len; i++) {
			size_t k = strcspn(p, "\t\n");

			snprintf(f[i], sizeof(f[i]), "%.*s", (int)k, p);
			p += k;
			len = len > k ? len - k : 0;
			if (*p == '\t') {
				p++;
				len--;
			}
		}
		if (*p == '\n')
			p++;
		if (json) {
			printf("%s{", n ? ", " : "");
			json_str("trigger", f[0], 1);
			printf("\"fired\": %s, \"joined\": %s, \"suppressed\": %s, ", f[1], f[2],
			       f[3]);
			json_str("last_file", f[4], 0);
			printf("}");
		} else {
			if (!n)
				printf("  triggers:     %-32s %6s %6s %10s  %s\n", "", "fired",
				       "joined", "suppressed", "last file");
			printf("    %-44s %6s %6s %10s  %s\n", f[0], f[1], f[2], f[3],
			       *f[4] ? f[4] : "-");
		}
		n++;
	}
	if (json)
		printf("], ");
}

/* A STATUS answer whose lengths agree: header, @ncpus CPUs, strings. */
static bool status_well_formed(const struct ctl_hdr *h, const struct ctl_status_reply *s)
{
	return h->payload_len >= sizeof(*s) &&
	       s->ncpus <= CTL_MAX_PAYLOAD / sizeof(struct ctl_status_cpu) &&
	       h->payload_len == sizeof(*s) + s->ncpus * sizeof(struct ctl_status_cpu) +
	       s->strings_len;
}

/*
 * The daemon's status into @buf (header and strings) and every CPU's counters into
 * *@cpus (malloc'd, *@total of them): in pages when they do not fit in one answer.
 * RECORDERD_STATUS_PAGE_CPUS caps the CPUs per answer (tests page on a small host).
 */
static int fetch_status(const struct client_opts *co, uint8_t *buf,
			struct ctl_status_cpu **cpus, uint32_t *total)
{
	static uint8_t page[CTL_MAX_PAYLOAD];
	const struct ctl_status_reply *s = (void *)buf, *ps = (void *)page;
	const char *cap = getenv("RECORDERD_STATUS_PAGE_CPUS");
	struct ctl_status_req req = { .max_cpus = cap ? (uint32_t)strtoul(cap, NULL, 0) : 0 };
	unsigned int tmo = co->timeout_s * 1000;
	struct ctl_hdr h;
	uint32_t have;
	int ret;

	ret = ctl_request(co->sock, CTL_CMD_STATUS, &req, sizeof(req), &h, buf, tmo);
	/* a daemon from before paging takes no payload: ask as it understands */
	if (!ret && h.code == CTL_ST_BAD_PAYLOAD)
		ret = request(co->sock, CTL_CMD_STATUS, NULL, 0, &h, buf, tmo);
	else
		ret = request_result(ret, co->sock, &h, buf);
	if (ret)
		return ret;
	if (!status_well_formed(&h, s))
		goto malformed;
	*total = s->flags & CTL_STATUS_F_CPU_PAGES ? s->cpus_total : s->ncpus;
	if (*total > (1U << 20) || s->ncpus > *total ||
	    ((s->flags & CTL_STATUS_F_CPU_PAGES) && s->first_cpu))
		goto malformed;
	*cpus = calloc(*total ? *total : 1, sizeof(**cpus));
	if (!*cpus)
		return 1;
	memcpy(*cpus, s + 1, s->ncpus * sizeof(**cpus));
	for (have = s->ncpus; have < *total; have += ps->ncpus) {
		req.first_cpu = have;
		ret = request(co->sock, CTL_CMD_STATUS, &req, sizeof(req), &h, page, tmo);
		if (ret)
			return ret;
		if (!status_well_formed(&h, ps) || ps->first_cpu != have || !ps->ncpus ||
		    ps->ncpus > *total - have)
			goto malformed;
		memcpy(*cpus + have, ps + 1, ps->ncpus * sizeof(**cpus));
	}
	return 0;
malformed:
	fprintf(stderr, "recorderd: malformed status answer\n");
	return 1;
}

static int cmd_status(int argc, char **argv)
{
	static uint8_t buf[CTL_MAX_PAYLOAD];
	const struct ctl_status_reply *s = (void *)buf;
	struct ctl_status_cpu *cpu = NULL;
	const char *str[9] = { "", "", "", "", "", "", "", "", "" };
	char trig_m[24] = "-", trig_e[24] = "-";
	bool trig_missed;
	struct client_opts co;
	uint32_t ncpus = 0;
	const char *p, *end;
	char a[32], b[32], c[32];
	int ret = parse_client(argc, argv, &co, "j",
			       "status [OPTIONS]\nShows what the daemon records.");

	if (ret >= 0)
		return ret;
	ret = fetch_status(&co, buf, &cpu, &ncpus);
	if (ret) {
		free(cpu);
		return ret;
	}
	p = (const char *)((const struct ctl_status_cpu *)(s + 1) + s->ncpus);
	end = p + s->strings_len;
	for (int i = 0; i < 9 && p < end; i++) {
		const char *nul = memchr(p, 0, end - p);

		if (!nul)
			break;
		str[i] = p;
		p = nul + 1;
	}
	/* each a count or "-" (no such watch) */
	trig_missed = sscanf(str[8], "%23s %23s", trig_m, trig_e) == 2 &&
		      strspn(trig_m, "0123456789-") == strlen(trig_m) &&
		      strspn(trig_e, "0123456789-") == strlen(trig_e);
	double ratio = s->file_bytes ? (double)s->raw_bytes / s->file_bytes : 0;
	uint64_t lost = 0, ovr = 0;

	for (uint32_t i = 0; i < ncpus; i++) {
		lost += cpu[i].lost;
		ovr += cpu[i].overrun;
	}
	if (co.json) {
		printf("{");
		json_str("state", state_name(s->state), 1);
		json_str("mode", s->mode == CTL_MODE_FLIGHT ? "flight" : "stream", 1);
		printf("\"pid\": %u, \"uptime_s\": %.3f, ", s->pid, s->uptime_ns / 1e9);
		json_str("source", str[0], 1);
		json_str("events", str[1], 1);
		json_str("output_file", str[2], 1);
		json_str("output_dir", str[3], 1);
		json_str("config", str[4], 1);
		json_str("last_error", str[5], 1);
		json_str("lastboot", str[7], 1);
		printf("\"raw_bytes\": %llu, \"file_bytes\": %llu, \"compression_ratio\": %.3f, "
		       "\"current_raw_bytes\": %llu, \"current_file_bytes\": %llu, "
		       "\"files_done\": %u, \"snapshots\": %u, \"disk_used\": %llu, "
		       "\"disk_budget\": %llu, \"files_deleted\": %u, \"buffer_kb\": %llu, "
		       "\"seamless_rotate\": %s, ",
		       (unsigned long long)s->raw_bytes, (unsigned long long)s->file_bytes, ratio,
		       (unsigned long long)s->cur_raw_bytes,
		       (unsigned long long)s->cur_file_bytes, s->files, s->snapshots,
		       (unsigned long long)s->disk_used, (unsigned long long)s->disk_budget,
		       s->deleted, (unsigned long long)s->buffer_kb,
		       s->flags & CTL_STATUS_F_SEAMLESS_ROTATE ? "true" : "false");
		if (s->flags & CTL_STATUS_F_SPOOL)
			printf("\"chunks_spooled\": %llu, \"spool_peak\": %llu, ",
			       (unsigned long long)s->spooled, (unsigned long long)s->spool_peak);
		if (s->flags & CTL_STATUS_F_STORED)
			printf("\"chunks_stored\": %u, ", s->stored);
		if (trig_missed && strcmp(trig_m, "-"))
			printf("\"trigger_markers_missed\": %s, ", trig_m);
		if (trig_missed && strcmp(trig_e, "-"))
			printf("\"trigger_events_lost\": %s, ", trig_e);
		print_triggers(str[6], 1);
		printf("\"cpus\": [");
		for (uint32_t i = 0; i < ncpus; i++)
			printf("%s{\"cpu\": %u, \"entries\": %llu, \"overrun\": %llu, "
			       "\"lost\": %llu, \"pages\": %llu, \"bytes\": %llu}", i ? ", " : "",
			       cpu[i].cpu, (unsigned long long)cpu[i].entries,
			       (unsigned long long)cpu[i].overrun, (unsigned long long)cpu[i].lost,
			       (unsigned long long)cpu[i].pages, (unsigned long long)cpu[i].bytes);
		printf("]}\n");
		goto out;
	}
	printf("recorderd: %s (pid %u, %s mode, up %.0f s)\n", state_name(s->state), s->pid,
	       s->mode == CTL_MODE_FLIGHT ? "flight" : "stream", s->uptime_ns / 1e9);
	if (s->state == CTL_STATE_STALLED) {
		/* answered by the daemon's sentinel: the counters are the loop's */
		printf("  stalled:      %s\n", str[5]);
		/* what the loop last told it ("" from older daemons) */
		if (*str[0])
			printf("  source:       %s\n", str[0]);
		if (*str[2])
			printf("  output:       %s\n", str[2]);
		goto out;
	}
	printf("  source:       %s\n", str[0]);
	printf("  events:       %s\n", *str[1] ? str[1] : "(none enabled; markers only)");
	printf("  output:       %s\n", *str[2] ? str[2] : s->mode == CTL_MODE_FLIGHT ?
	       "(in kernel memory until a snapshot)" : "(none)");
	printf("  written:      %s to files from %s of pages (pages/file %.2f)\n",
	       config_fmt_size(s->file_bytes, a, sizeof(a)),
	       config_fmt_size(s->raw_bytes, b, sizeof(b)), ratio);
	printf("  this file:    %s (%s of pages)\n",
	       config_fmt_size(s->cur_file_bytes, a, sizeof(a)),
	       config_fmt_size(s->cur_raw_bytes, b, sizeof(b)));
	printf("  files:        %u finished, %u snapshots, in %s\n", s->files, s->snapshots,
	       str[3]);
	if (s->disk_budget)
		printf("  disk budget:  %s used of %s (%.0f%%), %u old files deleted\n",
		       config_fmt_size(s->disk_used, a, sizeof(a)),
		       config_fmt_size(s->disk_budget, b, sizeof(b)),
		       100.0 * s->disk_used / s->disk_budget, s->deleted);
	else
		printf("  disk used:    %s (no budget)\n",
		       config_fmt_size(s->disk_used, a, sizeof(a)));
	printf("  lost events:  %llu dropped as they came, %llu overwritten\n",
	       (unsigned long long)lost, (unsigned long long)ovr);
	/* the compression threads fell behind: raw chunks went through the spool file */
	if (s->flags & CTL_STATUS_F_SPOOL)
		printf("  spooled:      %llu chunks while compression was behind (peak %s)\n",
		       (unsigned long long)s->spooled,
		       config_fmt_size(s->spool_peak, a, sizeof(a)));
	/* a sync could not wait for them: compressed when the file is finished */
	if (s->flags & CTL_STATUS_F_STORED)
		printf("  stored:       %u chunks uncompressed for a sync\n", s->stored);
	if (*str[5])
		printf("  last error:   %s\n", str[5]);
	if (*str[7])
		printf("  last boot:    %s\n", str[7]);
	print_triggers(str[6], 0);
	/* what the triggers could not look at: a match among them fired nothing */
	if (trig_missed) {
		printf("  triggers missed:");
		if (strcmp(trig_m, "-"))
			printf(" %s markers not looked at (the module's watch queue was full)%s",
			       trig_m, strcmp(trig_e, "-") ? "," : "");
		if (strcmp(trig_e, "-"))
			printf(" %s trigger events overwritten unread", trig_e);
		printf("\n");
	}
	printf("  %4s %12s %10s %10s %10s %12s\n", "CPU", "entries", "overrun", "lost", "pages",
	       "bytes");
	for (uint32_t i = 0; i < ncpus; i++)
		printf("  %4u %12llu %10llu %10llu %10llu %12s\n", cpu[i].cpu,
		       (unsigned long long)cpu[i].entries, (unsigned long long)cpu[i].overrun,
		       (unsigned long long)cpu[i].lost, (unsigned long long)cpu[i].pages,
		       config_fmt_size(cpu[i].bytes, c, sizeof(c)));
out:
	free(cpu);
	return 0;
}

/* Entry point for the daemon's subcommands (registered one by one in main.c). */
int cmd_daemon(int argc, char **argv)
{
	static const struct {
		const char	*name;
		int		(*fn)(int argc, char **argv);
	} sub[] = {
		{ "start", cmd_start }, { "stop", cmd_stop }, { "status", cmd_status },
		{ "snapshot", cmd_snapshot }, { "reload", cmd_reload }, { "rotate", cmd_rotate },
		{ "trigger", cmd_trigger }, { "salvage", cmd_salvage },
	};

	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
		if (!strcmp(argv[0], sub[i].name))
			return sub[i].fn(argc, argv);
	fprintf(stderr, "recorderd: unknown daemon command '%s'\n", argv[0]);
	return 2;
}
