/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repair of trace.dat v7 files a crash left behind (recorderd recover). The writer
 * keeps a valid tail after each v7_sync(), so a file cut by kill -9 normally reads
 * fine; recover also saves the chunks written after the last sync, and rebuilds the
 * tail from the chunk streams when it is gone (a crash inside v7_finish()).
 */
#ifndef REC_RECOVER_H
#define REC_RECOVER_H

/**
 * recover_file() - check @path and repair it in place
 * @path:	trace.dat v7 file
 * @dry_run:	only report what would be done
 *
 * Prints one line saying what was found and done.
 *
 * Return: 0 when the file was already valid, 1 when it was (or, with @dry_run, can be)
 * repaired, -errno when it cannot be read or repaired.
 */
int recover_file(const char *path, int dry_run);

#endif /* REC_RECOVER_H */
