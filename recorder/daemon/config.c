// SPDX-License-Identifier: GPL-2.0
/*
 * recorderd configuration: defaults, "key = value" file, command-line overrides.
 * One table maps each key to its parser and field; the file and the CLI both go
 * through config_set(), so a value is checked the same way wherever it comes from.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "ctl_proto.h"
#include "trigger.h"
#include "util/log.h"

#define CONFIG_MAX_FILE		(1 << 20)

enum key_type {
	K_STR, K_PATH, K_UINT, K_SIZE, K_SECS, K_ENUM, K_EVENTS, K_EVENT, K_TRIGGER
};

struct key_enum {
	const char	*name;
	int		val;
};

struct config_key {
	const char		*name;
	enum key_type		type;
	size_t			off;
	uint64_t		min, max;	/* K_UINT, K_SIZE, K_SECS */
	const struct key_enum	*enums;		/* K_ENUM */
};

static const struct key_enum modes[] = {
	{ "stream", CONFIG_MODE_STREAM }, { "flight", CONFIG_MODE_FLIGHT }, { NULL, 0 }
};
static const struct key_enum comps[] = {
	{ "zstd", V7_COMP_ZSTD }, { "none", V7_COMP_NONE }, { NULL, 0 }
};
static const struct key_enum levels[] = {
	{ "err", LOG_LVL_ERR }, { "error", LOG_LVL_ERR }, { "warn", LOG_LVL_WARN },
	{ "warning", LOG_LVL_WARN }, { "info", LOG_LVL_INFO }, { "debug", LOG_LVL_DEBUG },
	{ NULL, 0 }
};
static const struct key_enum durabilities[] = {
	{ "power", 1 }, { "process", 0 }, { NULL, 0 }
};
static const struct key_enum sources[] = {
	{ "auto", 0 }, { "kmod", 0 }, { "mmap", 0 }, { "splice", 0 }, { NULL, 0 }
};
static const struct key_enum clocks[] = {
	{ "local", 0 }, { "global", 0 }, { "counter", 0 }, { "uptime", 0 }, { "perf", 0 },
	{ "mono", 0 }, { "mono_raw", 0 }, { "boot", 0 }, { "tai", 0 }, { "x86-tsc", 0 },
	{ NULL, 0 }
};

#define F(field) offsetof(struct rec_config, field)
#define GiB (1ULL << 30)

static const struct config_key keys[] = {
	{ "source",	  K_STR,    F(source),	       0, 0, sources },
	{ "instance",	  K_STR,    F(instance),       0, 0, NULL },
	{ "events",	  K_EVENTS, 0,		       0, 0, NULL },
	{ "event",	  K_EVENT,  0,		       0, 0, NULL },
	{ "buffer_kb",	  K_UINT,   F(buffer_kb),      0, 4U << 20, NULL },
	{ "mode",	  K_ENUM,   F(mode),	       0, 0, modes },
	{ "compression",  K_ENUM,   F(comp),	       0, 0, comps },
	{ "zstd_level",	  K_UINT,   F(zstd_level),     0, 19, NULL },
	{ "chunk_pages",  K_UINT,   F(chunk_pages),    0, 4096, NULL },
	{ "region_size",  K_SIZE,   F(region_bytes),   0, 1024 * GiB, NULL },
	{ "output_dir",	  K_PATH,   F(output_dir),     0, 0, NULL },
	{ "file_pattern", K_STR,    F(file_pattern),   0, 0, NULL },
	{ "rotate_size",  K_SIZE,   F(rotate_size),    0, 1024 * GiB, NULL },
	{ "rotate_time",  K_SECS,   F(rotate_secs),    0, 366 * 86400, NULL },
	{ "disk_budget",  K_SIZE,   F(disk_budget),    0, 1ULL << 50, NULL },
	{ "max_age",	  K_SECS,   F(max_age_s),      0, 3660 * 86400, NULL },
	{ "clock",	  K_STR,    F(clock),	       0, 0, clocks },
	{ "period_ms",	  K_UINT,   F(period_ms),      10, 60000, NULL },
	{ "sync_ms",	  K_UINT,   F(sync_ms),	       10, 3600000, NULL },
	{ "durability",	  K_ENUM,   F(durable),	       0, 0, durabilities },
	{ "watchdog_ms",  K_UINT,   F(watchdog_ms),    0, 3600000, NULL },
	{ "stop_timeout", K_SECS,   F(stop_timeout_s), 1, 3600, NULL },
	{ "socket",	  K_PATH,   F(socket),	       0, 0, NULL },
	{ "pidfile",	  K_PATH,   F(pidfile),	       0, 0, NULL },
	{ "log_level",	  K_ENUM,   F(log_level),      0, 0, levels },
	{ "log_file",	  K_PATH,   F(log_file),       0, 0, NULL },
	{ "group",	  K_STR,    F(group),	       0, 0, NULL },
	{ "trigger",	  K_TRIGGER, 0,		       0, 0, NULL },
	{ "trigger_post_ms", K_UINT, F(trigger_post_ms), 0, 600000, NULL },
	{ "trigger_cooldown_ms", K_UINT, F(trigger_cooldown_ms), 0, 86400000, NULL },
	{ "trigger_max_files", K_UINT, F(trigger_max_files), 1, 100000, NULL },
};

#define NKEYS	(sizeof(keys) / sizeof(keys[0]))

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void set_str(char **slot, const char *val)
{
	free(*slot);
	*slot = val ? strdup(val) : NULL;
}

void config_defaults(struct rec_config *c)
{
	memset(c, 0, sizeof(*c));
	c->source = strdup("auto");
	c->mode = CONFIG_MODE_STREAM;
	c->comp = V7_COMP_ZSTD;
	c->output_dir = strdup("/var/lib/recorderd");
	c->file_pattern = strdup("trace-%Y%m%d-%H%M%S-%#.dat");
	c->rotate_size = 256ULL << 20;
	c->disk_budget = 0;
	c->period_ms = 200;
	c->sync_ms = 1000;
	c->durable = 1;
	c->stop_timeout_s = 30;
	c->socket = strdup(CTL_SOCKET_PATH);
	c->log_level = LOG_LVL_INFO;
	c->trigger_post_ms = 1000;
	c->trigger_cooldown_ms = 10000;
	c->trigger_max_files = 20;
}

static void clear_lists(struct rec_config *c)
{
	for (int i = 0; i < c->nr_events; i++)
		free(c->events[i]);
	c->nr_events = 0;
	for (int i = 0; i < c->nr_triggers; i++)
		free(c->triggers[i]);
	c->nr_triggers = 0;
}

void config_free(struct rec_config *c)
{
	clear_lists(c);
	free(c->source);
	free(c->instance);
	free(c->output_dir);
	free(c->file_pattern);
	free(c->clock);
	free(c->socket);
	free(c->pidfile);
	free(c->log_file);
	free(c->group);
	memset(c, 0, sizeof(*c));
}

void config_copy(struct rec_config *dst, const struct rec_config *src)
{
	*dst = *src;
	for (int i = 0; i < src->nr_events; i++)
		dst->events[i] = xstrdup(src->events[i]);
	for (int i = 0; i < src->nr_triggers; i++)
		dst->triggers[i] = xstrdup(src->triggers[i]);
	dst->source = xstrdup(src->source);
	dst->instance = xstrdup(src->instance);
	dst->output_dir = xstrdup(src->output_dir);
	dst->file_pattern = xstrdup(src->file_pattern);
	dst->clock = xstrdup(src->clock);
	dst->socket = xstrdup(src->socket);
	dst->pidfile = xstrdup(src->pidfile);
	dst->log_file = xstrdup(src->log_file);
	dst->group = xstrdup(src->group);
}

/* Unsigned number with an optional unit; @units is a table of suffix -> multiplier. */
struct unit {
	const char	*suffix;
	uint64_t	mult;
};

static const struct unit size_units[] = {
	{ "", 1 }, { "b", 1 }, { "k", 1ULL << 10 }, { "kb", 1ULL << 10 }, { "kib", 1ULL << 10 },
	{ "m", 1ULL << 20 }, { "mb", 1ULL << 20 }, { "mib", 1ULL << 20 },
	{ "g", 1ULL << 30 }, { "gb", 1ULL << 30 }, { "gib", 1ULL << 30 },
	{ "t", 1ULL << 40 }, { "tb", 1ULL << 40 }, { "tib", 1ULL << 40 }, { NULL, 0 }
};

static const struct unit plain_units[] = { { "", 1 }, { NULL, 0 } };

static const struct unit time_units[] = {
	{ "", 1 }, { "s", 1 }, { "sec", 1 }, { "m", 60 }, { "min", 60 }, { "h", 3600 },
	{ "d", 86400 }, { NULL, 0 }
};

static int parse_number(const char *val, const struct unit *units, uint64_t *out)
{
	unsigned long long n;
	char *end;

	while (isspace((unsigned char)*val))
		val++;
	if (!isdigit((unsigned char)*val))
		return -EINVAL;
	errno = 0;
	n = strtoull(val, &end, 10);
	if (errno)
		return -ERANGE;
	while (isspace((unsigned char)*end))
		end++;
	for (const struct unit *u = units; u->suffix; u++) {
		if (strcasecmp(end, u->suffix))
			continue;
		if (n && u->mult > UINT64_MAX / n)
			return -ERANGE;
		*out = n * u->mult;
		return 0;
	}
	return -EINVAL;
}

/* SYSTEM or SYSTEM:EVENT, names of tracefs directories: [A-Za-z0-9_-], '*' allowed. */
static int valid_event(const char *ev)
{
	const char *colon = strchr(ev, ':');
	size_t n = strlen(ev);

	if (!n || n > 255 || ev[0] == ':' || (colon && (!colon[1] || strchr(colon + 1, ':'))))
		return 0;
	for (const char *p = ev; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-:*", *p))
			return 0;
	return 1;
}

/* Appends @val to @list unless it is there: a repeated line is one entry. */
static int list_add(char **list, int *n, int max, const char *val, const char *what,
		    char *err)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(list[i], val))
			return 0;
	if (*n >= max) {
		snprintf(err, CONFIG_ERR_LEN, "more than %d %s", max, what);
		return -EINVAL;
	}
	list[(*n)++] = strdup(val);
	return 0;
}

static int add_event(struct rec_config *c, const char *ev, char *err)
{
	if (!valid_event(ev)) {
		snprintf(err, CONFIG_ERR_LEN, "bad event '%s' (want SYSTEM or SYSTEM:EVENT)", ev);
		return -EINVAL;
	}
	return list_add(c->events, &c->nr_events, CONFIG_MAX_EVENTS, ev, "events", err);
}

/* Checked by the parser the daemon uses; repeated lines add, a duplicate is one. */
static int add_trigger(struct rec_config *c, const char *val, char *err)
{
	struct trigger_spec s;

	if (trigger_spec_parse(val, &s, err, CONFIG_ERR_LEN))
		return -EINVAL;
	trigger_spec_free(&s);
	return list_add(c->triggers, &c->nr_triggers, TRIGGER_MAX, val, "triggers", err);
}

static int set_events(struct rec_config *c, const char *val, char *err)
{
	char *copy = strdup(val), *save = NULL, *tok;
	int ret = 0;

	for (int i = 0; i < c->nr_events; i++)
		free(c->events[i]);
	c->nr_events = 0;
	for (tok = strtok_r(copy, ", \t", &save); tok && !ret; tok = strtok_r(NULL, ", \t", &save))
		ret = add_event(c, tok, err);
	free(copy);
	return ret;
}

#define D2 "[0-9][0-9]"
#define D4 "[0-9][0-9][0-9][0-9]"
#define PATTERN_CONVS "%Y %y %m %d %j %H %M %S %s %F %T %# %%"

/*
 * The conversions of a file_pattern, each with the glob of what it gives (extended,
 * FNM_EXTMATCH): digits only, so that no name holds a '/' and the budget's glob
 * matches our names alone ("%S.dat" must not delete every .dat in the directory).
 * @differs: it changes from one second (or file) to the next.
 */
static const struct pattern_conv {
	char		conv;
	bool		differs;
	const char	*glob;
} pattern_convs[] = {
	{ 'Y', false, D4 }, { 'y', false, D2 }, { 'm', false, D2 }, { 'd', false, D2 },
	{ 'j', false, D2 "[0-9]" }, { 'H', false, D2 }, { 'M', false, D2 },
	{ 'S', true, D2 },
	{ 's', true, "+([0-9])" },		/* seconds since 1970 */
	{ 'F', false, D4 "-" D2 "-" D2 },
	{ 'T', true, D2 ":" D2 ":" D2 },
	{ '#', true, D2 "[0-9]+([0-9])" },	/* the sequence number, "%04u" */
	{ '%', false, "%" },
};

static const struct pattern_conv *find_conv(char conv)
{
	for (size_t i = 0; i < sizeof(pattern_convs) / sizeof(pattern_convs[0]); i++)
		if (pattern_convs[i].conv == conv)
			return &pattern_convs[i];
	return NULL;
}

/* The extended glob of what pattern @p makes, or -EINVAL / -ENAMETOOLONG. */
static int pattern_glob(const char *p, char *buf, size_t len)
{
	size_t n = 0;

	while (*p) {
		if (n + 2 >= len)
			return -ENAMETOOLONG;
		if (p[0] == '%') {
			const struct pattern_conv *cv = find_conv(p[1]);

			if (!cv)
				return -EINVAL;
			if (n + strlen(cv->glob) >= len)
				return -ENAMETOOLONG;
			memcpy(buf + n, cv->glob, strlen(cv->glob));
			n += strlen(cv->glob);
			p += 2;
		} else if (strchr("*?[\\+@!()|", *p)) {
			buf[n++] = '\\';
			buf[n++] = *p++;
		} else {
			buf[n++] = *p++;
		}
	}
	buf[n] = 0;
	return 0;
}

static int check_pattern(const char *p, char *err)
{
	char glob[CONFIG_GLOB_MAX];
	bool differs = false;

	if (!*p || strchr(p, '/')) {
		snprintf(err, CONFIG_ERR_LEN, "file_pattern '%s' must be a file name, no '/'", p);
		return -EINVAL;
	}
	for (const char *q = strchr(p, '%'); q; q = strchr(q + 2, '%')) {
		const struct pattern_conv *cv = find_conv(q[1]);

		if (!cv) {
			snprintf(err, CONFIG_ERR_LEN, "file_pattern '%s': %%%.1s is not one of %s",
				 p, q + 1, PATTERN_CONVS);
			return -EINVAL;
		}
		differs |= cv->differs;
	}
	if (!differs) {
		snprintf(err, CONFIG_ERR_LEN,
			 "file_pattern '%s' needs %%# (sequence) or %%S so that names differ", p);
		return -EINVAL;
	}
	if (pattern_glob(p, glob, sizeof(glob))) {
		snprintf(err, CONFIG_ERR_LEN, "file_pattern '%s' is too long", p);
		return -EINVAL;
	}
	if (!strncmp(p, "trig-", 5) || !strncmp(p, "lastboot-", 9)) {
		snprintf(err, CONFIG_ERR_LEN, "file_pattern '%s': names starting trig- or "
			 "lastboot- are the trigger and previous-boot files'", p);
		return -EINVAL;
	}
	if (strlen(p) < 5 || strcmp(p + strlen(p) - 4, ".dat")) {
		snprintf(err, CONFIG_ERR_LEN, "file_pattern '%s' must end in .dat", p);
		return -EINVAL;
	}
	return 0;
}

static const char *enum_list(const struct key_enum *e, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (; e->name && n < len; e++)
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", e->name);
	return buf;
}

int config_set(struct rec_config *c, const char *key, const char *val, char *err)
{
	const struct config_key *k = NULL;
	char list[128];
	uint64_t n;
	int ret;

	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].name, key))
			k = &keys[i];
	if (!k) {
		snprintf(err, CONFIG_ERR_LEN, "unknown key '%s'", key);
		return -ENOENT;
	}
	void *field = (char *)c + k->off;

	switch (k->type) {
	case K_EVENTS:
		return set_events(c, val, err);
	case K_EVENT:
		return add_event(c, val, err);
	case K_TRIGGER:
		return add_trigger(c, val, err);
	case K_PATH:
		if (val[0] != '/') {
			snprintf(err, CONFIG_ERR_LEN, "%s: '%s' is not an absolute path", key, val);
			return -EINVAL;
		}
		if (strlen(val) >= PATH_MAX - 64) {
			snprintf(err, CONFIG_ERR_LEN, "%s: path too long", key);
			return -EINVAL;
		}
		set_str(field, val);
		return 0;
	case K_STR:
		if (k->enums) {
			const struct key_enum *e;

			for (e = k->enums; e->name; e++)
				if (!strcmp(e->name, val))
					break;
			if (!e->name) {
				snprintf(err, CONFIG_ERR_LEN, "%s: '%s' is not one of: %s", key,
					 val, enum_list(k->enums, list, sizeof(list)));
				return -EINVAL;
			}
		}
		if (!strcmp(key, "file_pattern") && check_pattern(val, err))
			return -EINVAL;
		if (!strcmp(key, "group")) {
			struct group *g = getgrnam(val);

			if (!g || !g->gr_gid) {
				snprintf(err, CONFIG_ERR_LEN, "group: %s", g ?
					 "root's group is not a group to share with" :
					 "no such group");
				return -EINVAL;
			}
			c->group_gid = (int)g->gr_gid;
		}
		if (!strcmp(key, "instance") && (!*val || strchr(val, '/') || val[0] == '.')) {
			snprintf(err, CONFIG_ERR_LEN, "instance: '%s' is not a valid name", val);
			return -EINVAL;
		}
		set_str(field, val);
		return 0;
	case K_ENUM:
		for (const struct key_enum *e = k->enums; e->name; e++) {
			if (!strcmp(e->name, val)) {
				*(int *)field = e->val;
				return 0;
			}
		}
		snprintf(err, CONFIG_ERR_LEN, "%s: '%s' is not one of: %s", key, val,
			 enum_list(k->enums, list, sizeof(list)));
		return -EINVAL;
	case K_UINT:
	case K_SIZE:
	case K_SECS:
		ret = parse_number(val, k->type == K_SIZE ? size_units :
				   k->type == K_SECS ? time_units : plain_units, &n);
		if (ret) {
			snprintf(err, CONFIG_ERR_LEN, "%s: '%s' is not %s", key, val,
				 k->type == K_SIZE ? "a size (e.g. 64M, 2G)" :
				 k->type == K_SECS ? "a duration (e.g. 30s, 10m, 1h)" :
				 "a non-negative integer");
			return -EINVAL;
		}
		if (n < k->min || n > k->max) {
			snprintf(err, CONFIG_ERR_LEN, "%s: %llu is out of range [%llu, %llu]", key,
				 (unsigned long long)n, (unsigned long long)k->min,
				 (unsigned long long)k->max);
			return -EINVAL;
		}
		if (k->type == K_SIZE)
			*(uint64_t *)field = n;
		else if (k->off == F(zstd_level))
			*(int *)field = (int)n;
		else
			*(unsigned int *)field = (unsigned int)n;
		return 0;
	}
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int config_parse_text(struct rec_config *c, const char *text, const char *name, char *err)
{
	char *copy = strdup(text), *line;
	char why[CONFIG_ERR_LEN];
	int lineno = 0, ret = 0;

	if (!copy)
		return -ENOMEM;
	/* strtok_r would merge empty lines and break line numbers: split by hand. */
	for (char *next = copy; next && !ret; ) {
		line = next;
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		char *s = trim(line), *eq, *key, *val;

		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, CONFIG_ERR_LEN, "%s:%d: expected 'key = value', got '%.60s'",
				 name, lineno, s);
			ret = -EINVAL;
			break;
		}
		*eq = 0;
		key = trim(s);
		val = trim(eq + 1);
		/* Values may be quoted to keep leading/trailing blanks out of doubt. */
		size_t vl = strlen(val);

		if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"') {
			val[vl - 1] = 0;
			val++;
		}
		if (!*key) {
			snprintf(err, CONFIG_ERR_LEN, "%s:%d: missing key before '='", name,
				 lineno);
			ret = -EINVAL;
			break;
		}
		if (config_set(c, key, val, why)) {
			snprintf(err, CONFIG_ERR_LEN, "%s:%d: %.180s", name, lineno, why);
			ret = -EINVAL;
		}
	}
	free(copy);
	return ret;
}

int config_load_file(struct rec_config *c, const char *path, char *err)
{
	struct stat st;
	char *text;
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, CONFIG_ERR_LEN, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX_FILE) {
		snprintf(err, CONFIG_ERR_LEN, "%s: not a regular file of at most 1 MiB", path);
		close(fd);
		return -EINVAL;
	}
	text = malloc(st.st_size + 1);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, text, st.st_size);
	close(fd);
	if (n != st.st_size) {
		snprintf(err, CONFIG_ERR_LEN, "%s: short read", path);
		free(text);
		return -EIO;
	}
	text[n] = 0;
	if (memchr(text, 0, n)) {
		snprintf(err, CONFIG_ERR_LEN, "%s: contains a NUL byte (not a text file)", path);
		free(text);
		return -EINVAL;
	}
	ret = config_parse_text(c, text, path, err);
	free(text);
	return ret;
}

int config_check(const struct rec_config *c, char *err)
{
	if (c->disk_budget && c->rotate_size && c->disk_budget < 2 * c->rotate_size) {
		snprintf(err, CONFIG_ERR_LEN,
			 "disk_budget (%llu) must be at least twice rotate_size (%llu): the "
			 "current file and the one before it must both fit",
			 (unsigned long long)c->disk_budget, (unsigned long long)c->rotate_size);
		return -EINVAL;
	}
	if (c->disk_budget && !c->rotate_size && !c->rotate_secs) {
		snprintf(err, CONFIG_ERR_LEN,
			 "disk_budget needs rotate_size or rotate_time (one file can't be trimmed)");
		return -EINVAL;
	}
	if (c->nr_triggers && c->mode != CONFIG_MODE_FLIGHT) {
		snprintf(err, CONFIG_ERR_LEN, "triggers need mode = flight (in stream mode "
			 "every event is in the files already)");
		return -EINVAL;
	}
	if (c->sync_ms < c->period_ms) {
		snprintf(err, CONFIG_ERR_LEN, "sync_ms (%u) must not be below period_ms (%u)",
			 c->sync_ms, c->period_ms);
		return -EINVAL;
	}
	return 0;
}

int config_file_name(const struct rec_config *c, long when, unsigned int seq,
		     char *buf, size_t len)
{
	char fmt[512], seqs[16];
	const char *p = c->file_pattern;
	size_t n = 0;
	time_t t = when;
	struct tm tm;

	/* Expand %# first; strftime would reject it. "%%" is kept for strftime. */
	snprintf(seqs, sizeof(seqs), "%04u", seq);
	while (*p) {
		if (p[0] == '%' && p[1] == '#') {
			if (n + strlen(seqs) >= sizeof(fmt))
				return -ENAMETOOLONG;
			memcpy(fmt + n, seqs, strlen(seqs));
			n += strlen(seqs);
			p += 2;
			continue;
		}
		if (n + 2 >= sizeof(fmt))
			return -ENAMETOOLONG;
		if (p[0] == '%' && p[1])
			fmt[n++] = *p++;
		fmt[n++] = *p++;
	}
	fmt[n] = 0;
	gmtime_r(&t, &tm);
	/* The format is the user's pattern, checked by check_pattern(). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	n = strftime(buf, len, fmt, &tm);
#pragma GCC diagnostic pop
	if (!n)
		return -ENAMETOOLONG;
	return 0;
}

int config_file_glob(const struct rec_config *c, char *buf, size_t len)
{
	return pattern_glob(c->file_pattern, buf, len);
}

const char *config_fmt_size(uint64_t b, char *buf, size_t len)
{
	if (b >= (1ULL << 30))
		snprintf(buf, len, "%.2f GiB", b / (double)(1ULL << 30));
	else if (b >= (1ULL << 20))
		snprintf(buf, len, "%.1f MiB", b / (double)(1ULL << 20));
	else if (b >= (1ULL << 10))
		snprintf(buf, len, "%.1f KiB", b / 1024.0);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
	return buf;
}

int config_build(struct rec_config *c, const char *path, const struct config_override *ov,
		 int nov, char *err)
{
	int ret = 0;

	config_defaults(c);
	if (path)
		ret = config_load_file(c, path, err);
	for (int i = 0; !ret && i < nov; i++) {
		char why[CONFIG_ERR_LEN];

		ret = config_set(c, ov[i].key, ov[i].val, why);
		if (ret)
			snprintf(err, CONFIG_ERR_LEN, "command line: %.200s", why);
	}
	if (!ret)
		ret = config_check(c, err);
	if (ret)
		config_free(c);
	return ret;
}
