// SPDX-License-Identifier: GPL-2.0
/*
 * The module's marker watch (marker_watch.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ftring_abi.h"
#include "util/log.h"
#include "marker_watch.h"

/* Hits a call hands over at most: a flood of candidates must not hold the loop. */
#define MARKER_WATCH_READ_MAX	4096

struct marker_watch {
	int			fd;
	unsigned long long	missed;
	struct ftring_watch_hit	hits[16];
};

/* The literals of @s's marker triggers; "" for all when they are too many. */
static void watch_spec(const struct trigger_set *s, struct ftring_watch_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	for (int i = 0; i < s->n; i++) {
		if (s->spec[i].kind != TRIGGER_MARKER)
			continue;
		if (spec->nr == FTRING_WATCH_NR) {
			memset(spec, 0, sizeof(*spec));
			spec->nr = 1;
			return;
		}
		/* the text is "marker:REGEX" */
		if (trigger_required_literal(strchr(s->spec[i].text, ':') + 1,
					     spec->lit[spec->nr], FTRING_WATCH_LIT_MAX))
			spec->prefix |= 1U << spec->nr;
		if (!spec->lit[spec->nr][0])
			log_info("trigger %s: no literal every match holds: the module hands "
				 "over every marker for it", s->spec[i].text);
		spec->nr++;
	}
}

struct marker_watch *marker_watch_open(const struct trigger_set *s, int *err)
{
	struct ftring_watch_spec spec;
	struct marker_watch *w;

	*err = 0;
	if (!trigger_set_has(s, TRIGGER_MARKER))
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		*err = -ENOMEM;
		return NULL;
	}
	watch_spec(s, &spec);
	w->fd = open(FTRING_DEV_WATCH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->fd < 0 || ioctl(w->fd, FTRING_IOC_WATCH_MARKERS, &spec)) {
		*err = -errno;
		if (*err == -ENOENT)
			log_err("marker triggers on the module need %s (ftring ABI 1.5): "
				"this module has none; load a newer one", FTRING_DEV_WATCH);
		else if (*err == -EBUSY)
			log_err("%s: another process watches the markers", FTRING_DEV_WATCH);
		else
			log_err("%s: %s", FTRING_DEV_WATCH, strerror(-*err));
		marker_watch_close(w);
		return NULL;
	}
	return w;
}

int marker_watch_fd(const struct marker_watch *w)
{
	return w->fd;
}

int marker_watch_read(struct marker_watch *w, void (*fn)(const char *text, void *arg),
		      void *arg)
{
	int n = 0;

	while (n < MARKER_WATCH_READ_MAX) {
		ssize_t got = read(w->fd, w->hits, sizeof(w->hits));

		if (got < 0)
			return errno == EAGAIN || errno == EINTR ? n : -errno;
		for (size_t i = 0; i < got / sizeof(w->hits[0]); i++, n++) {
			struct ftring_watch_hit *h = &w->hits[i];
			size_t len = h->len < sizeof(h->text) ? h->len : sizeof(h->text) - 1;

			h->text[len] = 0;
			/*
			 * The writer's newline ends the marker's line on tracefs, where the
			 * text matched has none: the same expressions match here ("...$").
			 */
			if (len && h->text[len - 1] == '\n')
				h->text[len - 1] = 0;
			w->missed += h->missed;
			fn(h->text, arg);
		}
		if (!got)
			break;
	}
	return n;
}

unsigned long long marker_watch_missed(const struct marker_watch *w)
{
	return w->missed;
}

void marker_watch_close(struct marker_watch *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}
