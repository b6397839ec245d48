// SPDX-License-Identifier: GPL-2.0
/* Option values shared by the subcommands (cli.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/log.h"

int cli_parse_uint(const char *opt, const char *s, unsigned long long max, int zero_ok,
		   unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || *v > max || (!*v && !zero_ok)) {
		log_err("bad value '%s' for %s", s, opt);
		return -EINVAL;
	}
	return 0;
}
