// SPDX-License-Identifier: GPL-2.0
/* Page source selection ("auto" order: kmod, mmap, splice) and lifetime. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "source.h"

/* The module's source lives in its own file; a build without it still links. */
extern const struct source_ops source_kmod_ops __attribute__((weak));

static const struct source_ops *by_name(const char *name)
{
	if (!strcmp(name, "kmod"))
		return &source_kmod_ops;	/* NULL when not built in */
	if (!strcmp(name, "mmap"))
		return &source_mmap_ops;
	if (!strcmp(name, "splice"))
		return &source_splice_ops;
	return NULL;
}

const struct source_ops *source_find_module(const char *name, const struct source_params *p)
{
	if (!name || strcmp(name, "auto"))
		return NULL;
	if (&source_kmod_ops && !source_kmod_ops.probe(p))
		return &source_kmod_ops;
	return NULL;
}

int source_is_module(const char *name, const struct source_params *p)
{
	return !strcmp(name, "kmod") || source_find_module(name, p);
}

const struct source_ops *source_find(const char *name, const struct source_params *p)
{
	static const char *const order[] = { "kmod", "mmap", "splice" };
	const struct source_ops *ops;
	size_t first = 0;
	int ret;

	if (name && !strcmp(name, "tracefs")) {
		name = "auto";
		first = 1;	/* the module was tried already */
	}
	if (!name || !strcmp(name, "auto")) {
		for (size_t i = first; i < sizeof(order) / sizeof(order[0]); i++) {
			ops = by_name(order[i]);
			if (ops && !ops->probe(p)) {
				log_debug("page source: %s", ops->name);
				return ops;
			}
		}
		log_err("no page source works on this machine (tried kmod, mmap, splice)");
		return NULL;
	}
	if (strcmp(name, "kmod") && strcmp(name, "mmap") && strcmp(name, "splice")) {
		log_err("unknown page source '%s' (auto, kmod, mmap or splice)", name);
		return NULL;
	}
	ops = by_name(name);
	if (!ops) {
		log_err("page source '%s' is not built into this recorderd", name);
		return NULL;
	}
	ret = ops->probe(p);
	if (ret) {
		log_err("page source '%s' cannot be used here: %s", name,
			ret == -ENOENT ? "its device is missing (for kmod: insmod ftring.ko)" :
					 "see above");
		return NULL;
	}
	return ops;
}

struct source *source_open(const struct source_ops *ops, const struct source_params *p,
			   int *err)
{
	struct source *s = calloc(1, ops->size > sizeof(*s) ? ops->size : sizeof(*s));
	int ret;

	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->ops = ops;
	ret = ops->open(s, p);
	if (ret) {
		free(s);
		*err = ret;
		return NULL;
	}
	return s;
}

void source_adopt(struct source *s)
{
	if (s->ops->adopt)
		s->ops->adopt(s);
}

void source_close(struct source *s)
{
	if (!s)
		return;
	s->ops->close(s);
	free(s);
}
