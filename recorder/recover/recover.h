/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repair of trace.dat v7 files a crash left behind (recorderd recover). The writer
 * keeps a valid tail after each v7_sync(), so a file cut by kill -9 or a power cut
 * normally reads as it is; recover also saves the chunks written after the last sync,
 * rebuilds the tail when it is gone, and compacts a file left with its sparse CPU
 * regions. It reads with format/v7_decode.c only: any input gives a reason, never a
 * crash.
 */
#ifndef REC_RECOVER_H
#define REC_RECOVER_H

/* recover_file() @flags */
enum {
	RECOVER_CHECK		= 1 << 0,	/* only report what would be done */
	RECOVER_KEEP_STORED	= 1 << 1,	/* valid but with stored chunks: kept */
};

/**
 * recover_file() - check @path and repair it
 * @path:	trace.dat v7 file
 * @out:	where the repaired file goes; NULL = @path itself (replaced by a rename,
 *		so a crash during recover leaves it as it was)
 * @flags:	RECOVER_*
 *
 * Prints one line saying what was found and done (stdout), or why not (stderr). A
 * file that is valid but holds chunks a sync stored uncompressed is rewritten with
 * them compressed, unless RECOVER_KEEP_STORED. The repaired file keeps @path's mode
 * and, where allowed, its owner and group.
 *
 * Return: 0 when the file was already valid, 1 when it was (or, with RECOVER_CHECK,
 * can be) repaired or compressed, -errno when it cannot be read or repaired.
 */
int recover_file(const char *path, const char *out, unsigned int flags);

#endif /* REC_RECOVER_H */
