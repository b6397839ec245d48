/* SPDX-License-Identifier: GPL-2.0 */
/* Whole-file and whole-range I/O that retries short transfers and EINTR. */
#ifndef REC_FILEIO_H
#define REC_FILEIO_H

#include <stddef.h>
#include <stdint.h>

/*
 * Reads all of @path, also files whose size stat cannot tell (procfs, tracefs).
 * Returns a NUL-terminated malloc'd buffer (*@len bytes before the NUL, @len may be
 * NULL), or NULL with errno set.
 */
char *fio_read_whole(const char *path, size_t *len);

/* All @len bytes at @off: 0, -errno, or -ENODATA for end of file first. */
int fio_pread_all(int fd, void *buf, size_t len, uint64_t off);

/* All @len bytes at @off: 0 or -errno (-EIO when nothing could be written). */
int fio_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);

/* "DIR/.NAME.@suffix" for @path DIR/NAME (malloc'd), or NULL: a work file beside it. */
char *fio_beside_name(const char *path, const char *suffix);

/*
 * An unnamed file (O_TMPFILE) in the directory of @path, so that it can be linked or
 * renamed there once complete: an fd, or -errno.
 */
int fio_open_tmp_beside(const char *path, int mode);

/*
 * A work file in the directory of @path that never gets a name: O_TMPFILE, else (a
 * file system without it: NFS before 4.2, 9p, FUSE) a hidden name removed at once.
 * An fd, or -errno.
 */
int fio_open_work_beside(const char *path, int mode);

/*
 * The file that becomes @path once complete: unnamed (O_TMPFILE) where the filesystem
 * has it; else (9p, some FUSE and network filesystems) a hidden ".NAME.XXXXXX" beside
 * @path, whose name goes to @tmp (@tmp[0] = '\0' for an unnamed one). An fd or -errno.
 * A writer that renames into place itself (v7_finish) writes to @tmp when it is set.
 */
int fio_create_beside(const char *path, int mode, char *tmp, size_t tmplen);

/*
 * After fio_create_beside(): with @ok, gives a named @tmp the name @path (and syncs the
 * directory); without, removes it. Nothing to do for an unnamed file. 0 or -errno.
 */
int fio_publish(const char *path, const char *tmp, int ok);

/*
 * After fio_create_beside(), for a file complete in @fd that no writer renamed: synced,
 * then named @path, replacing it at once (an unnamed file is linked under a hidden
 * name beside it first); the directory synced. 0 or -errno (a named @tmp is then
 * removed).
 */
int fio_publish_fd(int fd, const char *tmp, const char *path);

/*
 * Copies all of @from (from its start) to @to at its file position: copy_file_range
 * where the two filesystems allow it (a reflink on some), else read and write.
 * 0 or -errno.
 */
int fio_copy_fd(int from, int to);

/*
 * Gives the file @from the name @to, which must not exist (never replaced): a rename,
 * or across filesystems a copy (mode and owner kept, synced, and its directory) and
 * then the unlink of @from. On failure @from is left as it was and @to does not exist. 0 or -errno.
 */
int fio_move(const char *from, const char *to);

/* Bytes an unprivileged writer may still use on the filesystem of @path: 0 or -errno. */
int fio_free_bytes(const char *path, uint64_t *bytes);

/* fsync of the directory holding @path: its entry (a new or renamed file) is on disk. */
int fio_sync_dir_of(const char *path);

/*
 * Makes room for @n open files (RLIMIT_NOFILE): raises the soft limit, and the hard
 * one when allowed (root), never lowers either. 0, or -errno when the limit stays
 * below @n (the caller goes on and may hit EMFILE).
 */
int fio_reserve_fds(unsigned long n);

#endif /* REC_FILEIO_H */
