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

/**
 * recover_file() - check @path and repair it
 * @path:	trace.dat v7 file
 * @out:	where the repaired file goes; NULL = @path itself (replaced by a rename,
 *		so a crash during recover leaves it as it was)
 * @dry_run:	only report what would be done
 *
 * Prints one line saying what was found and done (stdout), or why not (stderr).
 *
 * Return: 0 when the file was already valid, 1 when it was (or, with @dry_run, can be)
 * repaired, -errno when it cannot be read or repaired.
 */
int recover_file(const char *path, const char *out, int dry_run);

#endif /* REC_RECOVER_H */
