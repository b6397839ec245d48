/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recorderd lastboot: the previous boot's trace, from the ftring module's persistent
 * rings, written as a trace.dat v7 (lastboot.c).
 */
#ifndef REC_LASTBOOT_H
#define REC_LASTBOOT_H

#include <stdint.h>

/* lastboot_write() results besides -errno */
#define LASTBOOT_WRITTEN	0
#define LASTBOOT_NONE		1	/* no previous-boot trace: @why says why */

struct lastboot_result {
	char		why[160];	/* LASTBOOT_NONE or an error: the reason */
	char		boot_id[37];	/* the boot that wrote the rings ("" unknown) */
	uint64_t	events;		/* events written */
	uint64_t	pages;		/* sub-buffers written */
	uint64_t	dropped;	/* sub-buffers dropped (module's checks + ours) */
	uint32_t	cpus;		/* CPUs with pages */
	int		sealed;		/* FTRING_SEAL_*: how that boot ended */
	uint64_t	uptime_ns;	/* that boot's uptime at the panic (sealed) */
	int		has_symbols;	/* a boot record gave that boot's kallsyms */
};

/*
 * Writes the previous boot's trace to @path (replaced atomically once complete, group
 * @gid when > 0); with @release, frees the module's copy afterwards.
 * Return: LASTBOOT_WRITTEN, LASTBOOT_NONE, or -errno (@res->why says what failed).
 */
int lastboot_write(const char *path, int gid, int release, struct lastboot_result *res);

/* The trace waiting in the module: its boot id as text and how it ended (FTRING_SEAL_*).
 * 0 or -errno (-ENOENT: none waiting). For naming a file before writing it. */
int lastboot_pending(char id[37], int *sealed);

/* Frees the module's copy without reading it. 0 or -errno. */
int lastboot_release(void);

/* How a boot ended, in words, for FTRING_SEAL_* @sealed. */
const char *lastboot_end_text(int sealed);

#endif /* REC_LASTBOOT_H */
