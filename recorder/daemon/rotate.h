/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files of the daemon: the name of the next file, when the current one is due
 * for rotation (size, age), and the disk budget (oldest files of the pattern deleted
 * first, never the file being written).
 */
#ifndef REC_ROTATE_H
#define REC_ROTATE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config.h"

struct rotate_state {
	unsigned int	seq;		/* next %# value */
	time_t		started;	/* when the current file was opened (CLOCK_MONOTONIC s) */
	uint64_t	disk_used;	/* last measured, files of the pattern */
	unsigned int	deleted;	/* files deleted for the budget */
};

/**
 * rotate_next_path() - pick the path of the next output file
 * @c:		configuration (output_dir, file_pattern)
 * @rs:		rotation state (seq is advanced)
 * @wall:	wall-clock time for the strftime conversions
 * @buf:	receives output_dir/NAME, a path that does not exist yet
 * @len:	size of @buf
 *
 * Return: 0 or -errno.
 */
int rotate_next_path(const struct rec_config *c, struct rotate_state *rs, time_t wall,
		     char *buf, size_t len);

/* Why the current file should be closed now: "size", "time", or NULL (not yet). */
const char *rotate_due(const struct rec_config *c, const struct rotate_state *rs,
		       uint64_t file_bytes, time_t now_mono);

/**
 * rotate_enforce_budget() - delete the files of the pattern older than max_age, then
 *			     the oldest until they fit disk_budget
 * @c:		configuration (max_age, disk_budget; 0 = no limit: only measure)
 * @rs:		rotation state (disk_used, deleted updated)
 * @current:	file being written (never deleted), or NULL
 * @reserve:	room to leave for the current file to grow, in bytes
 *
 * Files are measured by allocated blocks (the writer's per-CPU regions are sparse).
 * Oldest means smallest mtime, then name.
 *
 * Return: files deleted (>= 0), or -errno when the directory cannot be read.
 */
int rotate_enforce_budget(const struct rec_config *c, struct rotate_state *rs,
			  const char *current, uint64_t reserve);

/*
 * rotate_enforce_trigger_files() - the same for the trigger files (TRIGGER_FILE_GLOB):
 * at most trigger_max_files with @newest (never deleted), within what the disk budget
 * leaves beside the files of the pattern (@rs->disk_used), oldest first.
 * @used: set to their size. Return: files deleted, or -errno.
 */
int rotate_enforce_trigger_files(const struct rec_config *c, struct rotate_state *rs,
				 const char *newest, uint64_t *used);

/* Previous-boot traces the daemon saves (lastboot-BOOT_ID.dat): crash evidence, kept
 * out of the pattern's budget and age limits; the newest LASTBOOT_FILES_KEPT stay. */
#define LASTBOOT_FILE_GLOB	"lastboot-*.dat"
#define LASTBOOT_FILES_KEPT	8

/* Deletes all but the newest LASTBOOT_FILES_KEPT with @newest. Files deleted or -errno. */
int rotate_enforce_lastboot_files(const struct rec_config *c, const char *newest);

/*
 * Creates @dir and its parents (0750 whatever the umask; existing ones are left). With
 * @gid > 0 (the "group" setting) the ones it creates and @dir itself belong to that
 * group, so that its members can reach the files (and the socket) inside.
 */
int rotate_mkdir_p(const char *dir, int gid);

#endif /* REC_ROTATE_H */
