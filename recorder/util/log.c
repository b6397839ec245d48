// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

int log_max_level = LOG_LVL_INFO;
int log_journal_prefix;
/* per thread: the daemon's sentinel thread must not become a reload's error */
static _Thread_local char first_error[256];
static _Thread_local int marked;

void log_mark_errors(void)
{
	first_error[0] = '\0';
	marked = 1;
}

const char *log_first_error(void)
{
	return first_error;
}

void log_keep_error(const char *msg)
{
	if (marked && !first_error[0] && msg[0])
		snprintf(first_error, sizeof(first_error), "%s", msg);
}

void log_msg(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	bool keep = level <= LOG_LVL_ERR && marked && !first_error[0];

	if (level > log_max_level && !keep)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (keep) {
		size_t n = strnlen(buf, sizeof(first_error) - 1);

		memcpy(first_error, buf, n);
		first_error[n] = '\0';
	}
	if (level > log_max_level)
		return;
	if (log_journal_prefix)
		fprintf(stderr, "<%d>%s\n", level, buf);
	else
		fprintf(stderr, "recorderd: %s%s\n",
			level <= LOG_LVL_ERR ? "error: " : level == LOG_LVL_WARN ? "warning: " : "",
			buf);
}
