// SPDX-License-Identifier: GPL-2.0
/*
 * Triggers: parsing, matching and rate limits (trigger.h). The lines matched are those
 * of the trigger instance's trace_pipe with context-info off, as the kernel prints the
 * events' formats (include/trace/events/{signal,oom,sched}.h, and ftrace's print for
 * markers): "signal_generate: sig=11 errno=0 code=1 comm=X pid=N grp=1 res=0",
 * "mark_victim: pid=N[ comm=X ...]", "sched_process_hang: comm=X pid=N",
 * "tracing_mark_write: TEXT".
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trigger.h"

static const char *const kind_names[TRIGGER_NR_KINDS] = {
	[TRIGGER_MARKER] = "marker", [TRIGGER_SIGNAL] = "signal", [TRIGGER_OOM] = "oom",
	[TRIGGER_HUNG_TASK] = "hung-task", [TRIGGER_COMMAND] = "command",
};

const char *trigger_kind_name(enum trigger_kind k)
{
	return k < TRIGGER_NR_KINDS ? kind_names[k] : "?";
}

/* "SIGSEGV", "SEGV", "segv" or "11" -> 11; 0 if none. */
static int signal_number(const char *s)
{
	char *end;
	long n;

	if (isdigit((unsigned char)*s)) {
		n = strtol(s, &end, 10);
		return !*end && n > 0 && n <= 64 ? (int)n : 0;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (int i = 1; i < 32; i++) {
		const char *abbrev = sigabbrev_np(i);

		if (abbrev && !strcasecmp(abbrev, s))
			return i;
	}
	return 0;
}

static int parse_signals(const char *args, struct trigger_spec *s, char *err, size_t len)
{
	char *copy = strdup(args), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		int n = signal_number(tok);

		if (!n) {
			snprintf(err, len, "trigger '%s': '%s' is not a signal", s->text, tok);
			ret = -EINVAL;
			break;
		}
		s->sigmask |= 1ULL << (n - 1);
	}
	free(copy);
	if (!ret && !s->sigmask) {
		snprintf(err, len, "trigger '%s': name the signals (signal:SIGSEGV,SIGABRT)",
			 s->text);
		ret = -EINVAL;
	}
	return ret;
}

static int valid_command(const char *n)
{
	size_t len = strlen(n);

	if (!len || len >= TRIGGER_NAME_MAX)
		return 0;
	for (; *n; n++)
		if (!isalnum((unsigned char)*n) && !strchr("_.-", *n))
			return 0;
	return 1;
}

int trigger_spec_parse(const char *text, struct trigger_spec *s, char *err, size_t errlen)
{
	const char *colon = strchr(text, ':'), *args = colon ? colon + 1 : "";
	size_t klen = colon ? (size_t)(colon - text) : strlen(text);
	int k, rc;

	memset(s, 0, sizeof(*s));
	if (strlen(text) >= sizeof(s->text)) {
		snprintf(err, errlen, "trigger '%.40s...': too long", text);
		return -EINVAL;
	}
	snprintf(s->text, sizeof(s->text), "%s", text);
	for (k = 0; k < TRIGGER_NR_KINDS; k++)
		if (strlen(kind_names[k]) == klen && !strncmp(kind_names[k], text, klen))
			break;
	if (k == TRIGGER_NR_KINDS) {
		snprintf(err, errlen, "trigger '%s': unknown kind (marker:REGEX, "
			 "signal:SIG,..., oom, hung-task, command:NAME)", text);
		return -EINVAL;
	}
	s->kind = k;
	switch (s->kind) {
	case TRIGGER_MARKER:
		if (!*args) {
			snprintf(err, errlen, "trigger '%s': give a regular expression", text);
			return -EINVAL;
		}
		rc = regcomp(&s->re, args, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char why[128];

			regerror(rc, &s->re, why, sizeof(why));
			snprintf(err, errlen, "trigger '%s': %s", text, why);
			return -EINVAL;
		}
		s->has_re = 1;
		return 0;
	case TRIGGER_SIGNAL:
		return parse_signals(args, s, err, errlen);
	case TRIGGER_OOM:
	case TRIGGER_HUNG_TASK:
		if (colon) {
			snprintf(err, errlen, "trigger '%s': %s takes no arguments", text,
				 kind_names[k]);
			return -EINVAL;
		}
		return 0;
	case TRIGGER_COMMAND:
		if (!valid_command(args)) {
			snprintf(err, errlen, "trigger '%s': the name must be 1-%d of "
				 "[A-Za-z0-9_.-]", text, TRIGGER_NAME_MAX - 1);
			return -EINVAL;
		}
		snprintf(s->name, sizeof(s->name), "%s", args);
		return 0;
	default:
		return -EINVAL;
	}
}

void trigger_spec_free(struct trigger_spec *s)
{
	if (s->has_re)
		regfree(&s->re);
	s->has_re = 0;
}

int trigger_set_init(struct trigger_set *s, char *const *texts, int n, unsigned int post_ms,
		     unsigned int cooldown_ms, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->open = -1;
	s->post_ms = post_ms;
	s->cooldown_ms = cooldown_ms;
	if (n > TRIGGER_MAX) {
		snprintf(err, errlen, "more than %d triggers", TRIGGER_MAX);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++) {
		if (trigger_spec_parse(texts[i], &s->spec[i], err, errlen)) {
			trigger_set_free(s);
			return -EINVAL;
		}
		s->n = i + 1;
	}
	return 0;
}

void trigger_set_free(struct trigger_set *s)
{
	for (int i = 0; i < s->n; i++)
		trigger_spec_free(&s->spec[i]);
	s->n = 0;
}

void trigger_set_carry(struct trigger_set *s, const struct trigger_set *old)
{
	for (int i = 0; i < s->n; i++) {
		struct trigger_spec *t = &s->spec[i];

		for (int j = 0; j < old->n; j++) {
			const struct trigger_spec *o = &old->spec[j];

			if (strcmp(t->text, o->text))
				continue;
			t->fired = o->fired;
			t->joined = o->joined;
			t->suppressed = o->suppressed;
			memcpy(t->last_file, o->last_file, sizeof(t->last_file));
			break;
		}
	}
}

int trigger_set_has(const struct trigger_set *s, enum trigger_kind k)
{
	for (int i = 0; i < s->n; i++)
		if (s->spec[i].kind == k)
			return 1;
	return 0;
}

uint64_t trigger_set_sigmask(const struct trigger_set *s)
{
	uint64_t m = 0;

	for (int i = 0; i < s->n; i++)
		if (s->spec[i].kind == TRIGGER_SIGNAL)
			m |= s->spec[i].sigmask;
	return m;
}

/*
 * The value of "KEY=" in @fields, up to the next blank, into @buf. A comm with blanks
 * is cut at the first one: good enough to name the task.
 */
static int field(const char *fields, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);

	for (const char *p = fields; (p = strstr(p, key)); p += klen) {
		size_t n;

		if (p != fields && p[-1] != ' ')
			continue;
		if (p[klen] != '=')
			continue;
		p += klen + 1;
		n = strcspn(p, " ");
		if (n >= len)
			n = len - 1;
		memcpy(buf, p, n);
		buf[n] = 0;
		return 0;
	}
	return -ENOENT;
}

static const char *after(const char *line, const char *event)
{
	size_t n = strlen(event);

	return !strncmp(line, event, n) && line[n] == ':' && line[n + 1] == ' ' ?
	       line + n + 2 : NULL;
}

int trigger_match_marker(const struct trigger_set *s, const char *text, char *detail)
{
	if (!strncmp(text, TRIGGER_MARK_PREFIX, strlen(TRIGGER_MARK_PREFIX)))
		return -1;
	for (int i = 0; i < s->n; i++) {
		if (s->spec[i].kind != TRIGGER_MARKER ||
		    regexec(&s->spec[i].re, text, 0, NULL, 0))
			continue;
		snprintf(detail, TRIGGER_DETAIL_MAX, "marker '%.200s'", text);
		return i;
	}
	return -1;
}

static int match_signal(const struct trigger_set *s, const char *fields, char *detail,
			char *who)
{
	char comm[TRIGGER_NAME_MAX] = "", pid[16] = "?", num[16];
	const char *abbrev;
	int sig;

	if (field(fields, "sig", num, sizeof(num)))
		return -1;
	sig = atoi(num);
	if (sig < 1 || sig > 64)
		return -1;
	field(fields, "comm", comm, sizeof(comm));
	field(fields, "pid", pid, sizeof(pid));
	abbrev = sigabbrev_np(sig);
	for (int i = 0; i < s->n; i++) {
		if (s->spec[i].kind != TRIGGER_SIGNAL ||
		    !(s->spec[i].sigmask & (1ULL << (sig - 1))))
			continue;
		if (abbrev)
			snprintf(detail, TRIGGER_DETAIL_MAX, "signal SIG%s to %s pid %s", abbrev,
				 comm, pid);
		else
			snprintf(detail, TRIGGER_DETAIL_MAX, "signal %d to %s pid %s", sig, comm,
				 pid);
		snprintf(who, TRIGGER_NAME_MAX, "%s", comm);
		return i;
	}
	return -1;
}

/* An OOM victim or a hung task: "comm=X pid=N" in either order, comm maybe absent. */
static int match_task(const struct trigger_set *s, enum trigger_kind k, const char *fields,
		      char *detail, char *who)
{
	char comm[TRIGGER_NAME_MAX] = "", pid[16] = "?";

	field(fields, "comm", comm, sizeof(comm));
	field(fields, "pid", pid, sizeof(pid));
	for (int i = 0; i < s->n; i++) {
		if (s->spec[i].kind != k)
			continue;
		snprintf(detail, TRIGGER_DETAIL_MAX, "%s %s pid %s",
			 k == TRIGGER_OOM ? "oom victim" : "hung task", comm[0] ? comm : "?", pid);
		snprintf(who, TRIGGER_NAME_MAX, "%s", comm[0] ? comm : pid);
		return i;
	}
	return -1;
}

/* End of the bracket expression opening at @p ('['): the ']' that closes it. */
static const char *bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')		/* a first ']' is a member */
		p++;
	while (*p && *p != ']') {
		/* [:class:], [=x=], [.x.]: their ']' does not close */
		if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			const char *e = strchr(p + 2, p[1]);

			while (e && e[1] != ']')
				e = strchr(e + 1, p[1]);
			if (!e)
				return p + strlen(p);
			p = e + 2;
			continue;
		}
		p++;
	}
	return p;
}

/* Past the atom at @p: a bracket expression, a group, an escape or one character. */
static const char *atom_end(const char *p)
{
	int depth = 0;

	if (*p == '[')
		return *bracket_end(p) ? bracket_end(p) + 1 : p + strlen(p);
	if (*p == '\\')
		return p[1] ? p + 2 : p + 1;
	if (*p != '(')
		return p + 1;
	for (; *p; p++) {
		if (*p == '[') {
			p = bracket_end(p);
			if (!*p)
				break;
		} else if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && !--depth) {
			return p + 1;
		}
	}
	return p;
}

/*
 * Past the quantifiers after an atom at @q (ERE: they may follow one another, "a+?" is
 * "(a+)?"): @optional when one of them allows zero ("*", "?", "{0...}", "{,n}"),
 * @more when one allows more than one ("+", "*", "{m,...}" with m >= 1...). A "{"
 * that does not open an interval is not a quantifier.
 */
static const char *quantifiers(const char *q, int *optional, int *more)
{
	*optional = *more = 0;
	for (;;) {
		if (*q == '*' || *q == '?' || *q == '+') {
			*optional |= *q != '+';
			*more |= *q != '?';
			q++;
		} else if (*q == '{' && (isdigit((unsigned char)q[1]) || q[1] == ',')) {
			const char *e = strchr(q, '}');

			/* "{,n}" is "{0,n}" (glibc); "{00}" is 0 too */
			*optional |= strtoul(q + 1, NULL, 10) == 0;
			*more = 1;
			q = e ? e + 1 : q + strlen(q);
		} else {
			return q;
		}
	}
}

int trigger_required_literal(const char *re, char *out, size_t len)
{
	size_t run = 0, best = 0, best_at = 0, run_at = 0;
	const char *p, *q, *run_re = NULL, *best_re = NULL;
	char lit[TRIGGER_NAME_MAX * 4];

	out[0] = 0;
	if (!len)
		return 0;
	/* Pass 1: an alternation outside any group leaves no common literal. */
	for (p = re; *p; p = atom_end(p))
		if (*p == '|')
			return 0;
	/* Pass 2: runs of literal atoms; each atom's quantifier decides its fate. */
	for (p = re; *p; p = q) {
		int c = -1, optional, more;

		q = atom_end(p);
		if (*p == '\\' && p[1] && strchr(".[]()*+?{}|^$\\", p[1]))
			c = (unsigned char)p[1];
		else if (!strchr(".[]()*+?{}|^$\\", *p))
			c = (unsigned char)*p;
		q = quantifiers(q, &optional, &more);
		if (c >= 0 && !optional && run_at + run < sizeof(lit)) {
			if (!run)
				run_re = p;
			lit[run_at + run++] = (char)c;
			if (run > best) {
				best = run;
				best_at = run_at;
				best_re = run_re;
			}
		}
		/* the run ends at anything not a single required character */
		if (c < 0 || optional || more) {
			run_at += run;
			run = 0;
		}
	}
	if (best > len - 1)
		best = len - 1;
	memcpy(out, lit + best_at, best);
	out[best] = 0;
	return best && re[0] == '^' && best_re == re + 1;
}

int trigger_match_line(const struct trigger_set *s, const char *line, char *detail, char *who)
{
	const char *marker = after(line, "tracing_mark_write");
	const char *sig = after(line, "signal_generate");
	const char *oom = after(line, "mark_victim");
	const char *hung = after(line, "sched_process_hang");

	who[0] = 0;
	if (!marker)
		marker = after(line, "print");
	if (marker)
		return trigger_match_marker(s, marker, detail);
	if (sig)
		return match_signal(s, sig, detail, who);
	if (oom)
		return match_task(s, TRIGGER_OOM, oom, detail, who);
	if (hung)
		return match_task(s, TRIGGER_HUNG_TASK, hung, detail, who);
	return -1;
}

int trigger_match_command(const struct trigger_set *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (s->spec[i].kind == TRIGGER_COMMAND && !strcmp(s->spec[i].name, name))
			return i;
	return -1;
}

enum trigger_verdict trigger_hit(struct trigger_set *s, int idx, const char *detail,
				 uint64_t now_ns)
{
	struct trigger_spec *t = &s->spec[idx];

	if (s->open >= 0) {
		s->hits++;
		t->joined++;
		return TRIGGER_JOINED;
	}
	if (s->last_open_ns && now_ns - s->last_open_ns < s->cooldown_ms * 1000000ULL) {
		t->suppressed++;
		return TRIGGER_COOLDOWN;
	}
	s->open = idx;
	s->open_ns = now_ns;
	s->last_open_ns = now_ns;
	s->hits = 1;
	snprintf(s->detail, sizeof(s->detail), "%s", detail);
	t->fired++;
	return TRIGGER_OPENED;
}

int trigger_close_window(struct trigger_set *s)
{
	int idx = s->open;

	s->open = -1;
	return idx;
}

void trigger_file_name(const struct trigger_set *s, int idx, const char *who,
		       uint64_t wall_ms, char *buf, size_t len)
{
	char w[TRIGGER_NAME_MAX], stamp[32];
	time_t t = wall_ms / 1000;
	struct tm tm;
	size_t n = 0;

	for (const char *p = who; *p && n < sizeof(w) - 1; p++)
		w[n++] = isalnum((unsigned char)*p) || strchr("_.-", *p) ? *p : '_';
	w[n] = 0;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "trig-%s.%03u-%s%s%s.dat", stamp, (unsigned int)(wall_ms % 1000),
		 trigger_kind_name(s->spec[idx].kind), w[0] ? "-" : "", w);
}
