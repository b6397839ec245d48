/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Triggers of the flight recorder (config `trigger = KIND:ARGS`): what each one
 * matches, and when a hit writes a file. Pure: no I/O and no clock of its own (the
 * caller passes the time), so the parsing, the matching and the rate limits are
 * unit-tested. trigger_watch.c finds the kernel's trigger events, daemon_trigger.c
 * writes the files.
 *
 * A hit opens a window of post_ms; hits inside it join it (counted in the same file);
 * after the window the file is written, and hits within cooldown_ms of the window's
 * start are only counted.
 */
#ifndef REC_TRIGGER_H
#define REC_TRIGGER_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#define TRIGGER_MAX		32
#define TRIGGER_NAME_MAX	64
#define TRIGGER_DETAIL_MAX	256
/* Our own record naming a trigger in the ring: never matched by a marker trigger. */
#define TRIGGER_MARK_PREFIX	"recorderd-trigger: "

enum trigger_kind {
	TRIGGER_MARKER,		/* marker:REGEX    a user marker whose text matches */
	TRIGGER_SIGNAL,		/* signal:SIG,...  a task is sent one of these signals */
	TRIGGER_OOM,		/* oom             the OOM killer picks a victim */
	TRIGGER_HUNG_TASK,	/* hung-task       the hung-task detector reports a task */
	TRIGGER_COMMAND,	/* command:NAME    `recorderd trigger NAME` */
	TRIGGER_NR_KINDS
};

struct trigger_spec {
	enum trigger_kind	kind;
	char			text[TRIGGER_NAME_MAX * 4];	/* as configured */
	char			name[TRIGGER_NAME_MAX];		/* command:NAME */
	uint64_t		sigmask;			/* bit N-1: signal N */
	regex_t			re;				/* marker:REGEX */
	int			has_re;
	/* counters */
	uint64_t		fired;		/* hits that opened a window (a file) */
	uint64_t		joined;		/* hits counted in an open window */
	uint64_t		suppressed;	/* hits in the cooldown, no file */
	char			last_file[4096];
};

enum trigger_verdict {
	TRIGGER_OPENED,		/* a new window: a file will be written */
	TRIGGER_JOINED,		/* counted in the open window's file */
	TRIGGER_COOLDOWN,	/* too soon after the last file: counted only */
};

struct trigger_set {
	struct trigger_spec	spec[TRIGGER_MAX];
	int			n;
	unsigned int		post_ms;
	unsigned int		cooldown_ms;
	/* the open window */
	int			open;		/* index of the trigger that opened it, or -1 */
	uint64_t		open_ns;	/* when it opened */
	unsigned int		hits;		/* hits in it, the first included */
	char			detail[TRIGGER_DETAIL_MAX];
	uint64_t		last_open_ns;	/* start of the newest window, 0 = none */
};

/* Name of @k as written in the config ("hung-task"). */
const char *trigger_kind_name(enum trigger_kind k);

/**
 * trigger_spec_parse() - parse "KIND:ARGS"
 * @text:	e.g. "signal:SIGSEGV,SIGABRT", "marker:^panic", "oom", "command:upload"
 * @s:		filled on success (trigger_spec_free() it)
 * @err:	@errlen bytes for the reason on failure
 *
 * Return: 0 or -EINVAL.
 */
int trigger_spec_parse(const char *text, struct trigger_spec *s, char *err, size_t errlen);
void trigger_spec_free(struct trigger_spec *s);

/* Builds the set from @n config strings (already checked). 0 or -EINVAL with @err. */
int trigger_set_init(struct trigger_set *s, char *const *texts, int n, unsigned int post_ms,
		     unsigned int cooldown_ms, char *err, size_t errlen);
void trigger_set_free(struct trigger_set *s);

/*
 * A reload sets the triggers up anew: @s takes from @old (a copy of the set before it,
 * whose expressions are no longer used) the counters and last file of each trigger
 * configured with the same text. The cooldown starts afresh: a reload is the operator
 * choosing new limits.
 */
void trigger_set_carry(struct trigger_set *s, const struct trigger_set *old);

/* Whether the set has a trigger of kind @k. */
int trigger_set_has(const struct trigger_set *s, enum trigger_kind k);
/* The union of the signal triggers' masks. */
uint64_t trigger_set_sigmask(const struct trigger_set *s);

/**
 * trigger_required_literal() - what every match of a marker trigger's text contains
 * @re:		the extended regular expression (as marker:REGEX gives it)
 * @out:	the longest run of characters every string that @re matches contains,
 *		cut to @len - 1 bytes; "" when none is known (an alternation outside
 *		a group, or nothing literal): then every marker is a candidate
 * @len:	bytes at @out
 *
 * The module's marker watch (/dev/ftring/watch) looks for it in each marker as it is
 * written; the daemon then runs the expression on the markers that hold it.
 *
 * Return: 1 when the literal must start the text (the expression begins with ^ and
 * then it), else 0.
 */
int trigger_required_literal(const char *re, char *out, size_t len);

/* Index of the first marker trigger whose expression matches @text, or -1. */
int trigger_match_marker(const struct trigger_set *s, const char *text, char *detail);

/**
 * trigger_match_line() - match one line of the trigger instance's trace_pipe
 * @s:		triggers
 * @line:	"EVENT: FIELDS" (context-info off), no newline
 * @detail:	TRIGGER_DETAIL_MAX bytes: what happened, for the record and the log
 * @who:	TRIGGER_NAME_MAX bytes: the task (comm) or "", for the file name
 *
 * Return: index of the first trigger that matches, or -1.
 */
int trigger_match_line(const struct trigger_set *s, const char *line, char *detail, char *who);

/* Index of the trigger command:@name, or -1. */
int trigger_match_command(const struct trigger_set *s, const char *name);

/* Records a hit of trigger @idx at @now_ns (CLOCK_MONOTONIC). */
enum trigger_verdict trigger_hit(struct trigger_set *s, int idx, const char *detail,
				 uint64_t now_ns);

/* Closes the open window (its file is written or given up); returns its index or -1. */
int trigger_close_window(struct trigger_set *s);

/*
 * The file name of a window opened at wall time @wall_ms by trigger @idx on @who:
 * "trig-YYYYmmdd-HHMMSS.mmm-KIND[-WHO].dat" (UTC; WHO reduced to [A-Za-z0-9_.-]).
 */
void trigger_file_name(const struct trigger_set *s, int idx, const char *who,
		       uint64_t wall_ms, char *buf, size_t len);

/* fnmatch(3) pattern of every name trigger_file_name() makes. */
#define TRIGGER_FILE_GLOB	"trig-*.dat"

#endif /* REC_TRIGGER_H */
