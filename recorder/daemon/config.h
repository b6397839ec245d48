/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recorderd configuration: built-in defaults, then the config file, then the command
 * line, each layer overriding the one before. Pure: no I/O besides reading the file,
 * no logging (errors come back as text naming the file and line), so it is unit-tested
 * without a daemon. recorder/recorderd.conf.example documents every key.
 */
#ifndef REC_CONFIG_H
#define REC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "format/v7_writer.h"
#include "trigger.h"

#define CONFIG_PATH		"/etc/recorderd.conf"
#define CONFIG_MAX_EVENTS	128
#define CONFIG_ERR_LEN		256

enum config_mode {
	CONFIG_MODE_STREAM,	/* pages go to files as they arrive */
	CONFIG_MODE_FLIGHT,	/* kernel overwrites; files only on snapshot */
};

struct rec_config {
	char			*source;	/* auto, kmod, mmap, splice */
	char			*instance;	/* tracefs instance, NULL = top buffer */
	char			*events[CONFIG_MAX_EVENTS]; /* SYSTEM or SYSTEM:EVENT */
	int			nr_events;
	unsigned int		buffer_kb;	/* per CPU, 0 = leave the kernel's */
	enum config_mode	mode;
	enum v7_compression	comp;
	int			zstd_level;	/* 0 = writer default */
	unsigned int		chunk_pages;	/* 0 = writer default */
	uint64_t		region_bytes;	/* per-CPU file region, 0 = writer default */
	char			*output_dir;
	char			*file_pattern;	/* strftime + %# (sequence number) */
	uint64_t		rotate_size;	/* bytes, 0 = never */
	unsigned int		rotate_secs;	/* 0 = never */
	uint64_t		disk_budget;	/* all files of the pattern, 0 = no limit */
	unsigned int		max_age_s;	/* delete files of the pattern older, 0 = keep */
	char			*clock;		/* trace clock, NULL = leave */
	unsigned int		period_ms;	/* timer wake-up */
	unsigned int		sync_ms;	/* crash-safety interval: v7_sync() */
	int			durable;	/* durability = power (1) or process (0) */
	unsigned int		watchdog_ms;	/* 0 = from systemd's WATCHDOG_USEC */
	unsigned int		stop_timeout_s;	/* `recorderd stop` waits this long */
	char			*socket;	/* control socket path */
	char			*pidfile;	/* NULL = none */
	int			log_level;	/* enum log_level */
	char			*log_file;	/* detached without systemd: log here */
	char			*group;		/* may read files and run status, NULL = none */
	int			group_gid;	/* its gid, 0 = none */
	int			foreground;	/* do not daemonize (set under systemd) */
	char			*triggers[TRIGGER_MAX]; /* "KIND:ARGS" (trigger.h) */
	int			nr_triggers;
	unsigned int		trigger_post_ms;	/* window after a trigger */
	unsigned int		trigger_cooldown_ms;	/* no new file sooner */
	unsigned int		trigger_max_files;	/* trig-*.dat kept, oldest go */
};

/* Which layer set a key (for `status` and reload messages). */
enum config_origin { CONFIG_DEFAULT, CONFIG_FILE, CONFIG_CLI };

/* Fills @c with the defaults. config_free() releases it. */
void config_defaults(struct rec_config *c);

/**
 * config_set() - set one key from its text form
 * @c:		configuration
 * @key:	key as written in the config file (e.g. "rotate_size")
 * @val:	value text
 * @err:	CONFIG_ERR_LEN bytes for the reason on failure
 *
 * "events" replaces the list (comma or blank separated); "event" appends one.
 *
 * Return: 0, -ENOENT for an unknown key, -EINVAL for a bad value.
 */
int config_set(struct rec_config *c, const char *key, const char *val, char *err);

/**
 * config_parse_text() - apply "key = value" lines
 * @c:		configuration
 * @text:	NUL-terminated file contents
 * @name:	file name used in error messages
 * @err:	CONFIG_ERR_LEN bytes: "FILE:LINE: reason" on failure
 *
 * Blank lines and lines starting with '#' are ignored. Stops at the first error.
 *
 * Return: 0 or -EINVAL.
 */
int config_parse_text(struct rec_config *c, const char *text, const char *name, char *err);

/* Reads @path and applies it; a missing file is -ENOENT (with @err set). */
int config_load_file(struct rec_config *c, const char *path, char *err);

/* Checks values that depend on each other (e.g. snapshot-only keys). 0 or -EINVAL. */
int config_check(const struct rec_config *c, char *err);

/*
 * Builds the next output file name from file_pattern: strftime conversions at @when and
 * %# for @seq (4 digits). Returns 0, or -ENAMETOOLONG.
 */
int config_file_name(const struct rec_config *c, long when, unsigned int seq,
		     char *buf, size_t len);

/*
 * fnmatch(3) glob, extended (FNM_EXTMATCH), matching every name config_file_name() can
 * produce and as few others as can be: 0, -ENAMETOOLONG (never for CONFIG_GLOB_MAX
 * bytes: check_pattern() refused longer ones).
 */
#define CONFIG_GLOB_MAX		512
int config_file_glob(const struct rec_config *c, char *buf, size_t len);

/* Human-readable size ("64 MiB"), for messages. */
const char *config_fmt_size(uint64_t bytes, char *buf, size_t len);

/* A command-line option as a config key, applied over the file at start and reload. */
struct config_override {
	const char	*key;
	const char	*val;
};

/**
 * config_build() - defaults, then the file @path (if not NULL), then @ov, then checks
 * @c:		filled on success (config_free() it)
 * @path:	config file or NULL
 * @ov:		@nov overrides from the command line
 * @err:	CONFIG_ERR_LEN bytes for the reason on failure
 *
 * Return: 0 or -errno (@c is then freed).
 */
int config_build(struct rec_config *c, const char *path, const struct config_override *ov,
		 int nov, char *err);

void config_copy(struct rec_config *dst, const struct rec_config *src);
void config_free(struct rec_config *c);

#endif /* REC_CONFIG_H */
