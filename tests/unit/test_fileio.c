// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/util/fileio.c: fio_move() never replaces a file, and across filesystems
 * (here /tmp and /dev/shm, a tmpfs, when they differ) copies with mode kept, syncs
 * the new name's directory and only then removes the source; fio_copy_fd() copies a
 * whole file from its start.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "util/fileio.h"

#define BYTES	(3 << 20)	/* more than one copy_file_range or read of 64 KiB */

/* What fio_move() did, in order: 'D' a directory synced, 'U' an unlink (wrapped). */
static char calls[64];

static void note(char c)
{
	size_t n = strlen(calls);

	if (n + 1 < sizeof(calls))
		calls[n] = c;
}

int __real_fsync(int fd);
int __wrap_fsync(int fd)
{
	struct stat st;

	if (!fstat(fd, &st) && S_ISDIR(st.st_mode))
		note('D');
	return __real_fsync(fd);
}

int __real_unlink(const char *path);
int __wrap_unlink(const char *path)
{
	note('U');
	return __real_unlink(path);
}

static void make(const char *path, int seed, mode_t mode)
{
	char *b = malloc(BYTES);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	for (int i = 0; b && i < BYTES; i++)
		b[i] = (char)(i * 7 + seed);
	if (fd >= 0 && b && write(fd, b, BYTES) != BYTES)
		perror("write");
	if (fd >= 0) {
		fchmod(fd, mode);
		close(fd);
	}
	free(b);
}

static bool same(const char *path, int seed)
{
	size_t len = 0;
	char *b = fio_read_whole(path, &len);
	bool ok = b && len == BYTES;

	for (size_t i = 0; ok && i < len; i++)
		ok = b[i] == (char)(i * 7 + seed);
	free(b);
	return ok;
}

TEST(move_never_replaces)
{
	char dir[] = "/tmp/fio.XXXXXX", a[64], b[64];

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	make(a, 1, 0640);
	make(b, 2, 0600);
	EXPECT_EQ(-EEXIST, fio_move(a, b));
	EXPECT_TRUE(same(a, 1));
	EXPECT_TRUE(same(b, 2));
	unlink(b);
	EXPECT_EQ(0, fio_move(a, b));
	EXPECT_TRUE(same(b, 1));
	EXPECT_NE(0, access(a, F_OK));
	unlink(b);
	rmdir(dir);
}

TEST(move_across_filesystems)
{
	char dir[] = "/tmp/fio.XXXXXX", shm[] = "/dev/shm/fio.XXXXXX", a[64], b[64];
	struct stat s1, s2;

	ASSERT_NE(NULL, mkdtemp(dir));
	if (!mkdtemp(shm) || stat(dir, &s1) || stat(shm, &s2) || s1.st_dev == s2.st_dev) {
		rmdir(dir);
		rmdir(shm);
		SKIP(return, "/tmp and /dev/shm are one filesystem here");
	}
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", shm);
	make(a, 3, 0604);
	memset(calls, 0, sizeof(calls));
	EXPECT_EQ(0, fio_move(a, b));
	EXPECT_TRUE(same(b, 3));
	EXPECT_NE(0, access(a, F_OK)) TH_LOG("the source stayed");
	/* the copy's directory entry is durable before the source is unlinked */
	EXPECT_STREQ("DU", calls);
	ASSERT_EQ(0, stat(b, &s2));
	EXPECT_EQ(0604, s2.st_mode & 07777);
	/* and never over a file there either */
	make(a, 4, 0600);
	EXPECT_EQ(-EEXIST, fio_move(a, b));
	EXPECT_TRUE(same(a, 4));
	EXPECT_TRUE(same(b, 3));
	unlink(a);
	unlink(b);
	rmdir(dir);
	rmdir(shm);
}

TEST_HARNESS_MAIN
