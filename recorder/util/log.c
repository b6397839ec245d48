// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

int log_max_level = LOG_LVL_INFO;
int log_journal_prefix;

void log_msg(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (level > log_max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (log_journal_prefix)
		fprintf(stderr, "<%d>%s\n", level, buf);
	else
		fprintf(stderr, "recorderd: %s%s\n",
			level <= LOG_LVL_ERR ? "error: " : level == LOG_LVL_WARN ? "warning: " : "",
			buf);
}
