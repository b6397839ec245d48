/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The previous boot's trace as /dev/ftring/lastboot gives it (common/ftring_abi.h):
 * checked before any field is used, then walked for task names. No I/O here.
 */
#ifndef REC_LASTBOOT_IMAGE_H
#define REC_LASTBOOT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "ftring_abi.h"

#define LASTBOOT_MAX_CPUS	4096	/* as the trace.dat writer */

struct lastboot_view {
	const struct ftring_lastboot	*hdr;	/* inside the image */
	const struct ftring_lastboot_cpu *cpus;	/* [hdr->nr_cpus] */
	char				*formats;	/* malloc'd copy, NUL-terminated */
	const char			*pages;		/* first kept page */
	size_t				*first;		/* [nr_cpus]: index of each CPU's first page */
};

/*
 * Checks @img (@len bytes) and fills @v (free with lastboot_view_free()). Every
 * size, count and offset is checked against @len and against limits.
 * Return: 0, -EINVAL (with *@why set to a static reason) or -ENOMEM.
 */
int lastboot_view_init(struct lastboot_view *v, const void *img, size_t len, const char **why);
void lastboot_view_free(struct lastboot_view *v);

/* The pages of @cpu: *@n of them, page_size each. */
const char *lastboot_cpu_pages(const struct lastboot_view *v, uint32_t cpu, uint32_t *n);

/*
 * The task names the events carry (sched_switch, sched_wakeup*, fork, exit; their IDs
 * from the view's formats): "PID COMM\n" lines as saved_cmdlines reads, the newest name
 * (by event time, across CPUs) of each PID. Malloc'd (*@len bytes, NUL-terminated), or NULL (-ENOMEM).
 */
char *lastboot_cmdlines(const struct lastboot_view *v, size_t *len);

/* "8-4-4-4-12" hex of a 16-byte boot id into @out (37 bytes). */
void lastboot_uuid_str(const uint8_t id[16], char out[37]);
/* The reverse; 0 or -EINVAL. */
int lastboot_uuid_parse(const char *s, uint8_t id[16]);

#endif /* REC_LASTBOOT_IMAGE_H */
