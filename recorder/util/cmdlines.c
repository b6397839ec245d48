// SPDX-License-Identifier: GPL-2.0
/* Command-line text merged one line per pid (cmdlines.h). */
#include <stdlib.h>
#include <string.h>

#include "cmdlines.h"

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

char *cmdlines_merge(const char *first, size_t flen, const char *then, size_t tlen,
		     size_t max, size_t *len)
{
	size_t n = 0, cap = 0, out;
	long *pids = NULL;
	char *m;

	/* @first's pids only filter @then: nothing to filter, nothing to collect */
	for (const char *p = tlen ? first : NULL; p && p < first + flen; ) {
		const char *nl = memchr(p, '\n', (size_t)(first + flen - p));

		if (n == cap) {
			long *g = realloc(pids, (cap = cap ? cap * 2 : 1024) * sizeof(*pids));

			if (!g) {
				free(pids);
				return NULL;
			}
			pids = g;
		}
		pids[n++] = strtol(p, NULL, 10);
		p = nl ? nl + 1 : first + flen;
	}
	if (pids)
		qsort(pids, n, sizeof(*pids), cmp_long);
	m = malloc(flen + tlen + 2);
	if (!m) {
		free(pids);
		return NULL;
	}
	if (flen)
		memcpy(m, first, flen);
	out = flen;
	if (flen && first[flen - 1] != '\n')
		m[out++] = '\n';	/* a line of its own for what follows */
	for (const char *p = then; p && p < then + tlen; ) {
		const char *nl = memchr(p, '\n', (size_t)(then + tlen - p));
		size_t l = (size_t)((nl ? nl + 1 : then + tlen) - p);
		long pid = strtol(p, NULL, 10);

		if (out + l <= max && (!pids || !bsearch(&pid, pids, n, sizeof(*pids), cmp_long))) {
			memcpy(m + out, p, l);
			out += l;
		}
		p += l;
	}
	free(pids);
	m[out] = '\0';		/* not counted: for strtol's sake only */
	*len = out;
	return m;
}
