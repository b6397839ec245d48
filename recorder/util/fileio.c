// SPDX-License-Identifier: GPL-2.0
/* Whole-file and whole-range I/O (fileio.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fileio.h"

char *fio_read_whole(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = NULL, *p;
	int e;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	if (!buf) {
		e = ENOMEM;
		goto fail;
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			p = realloc(buf, cap * 2);
			if (!p) {
				e = ENOMEM;
				goto fail;
			}
			buf = p;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			goto fail;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	errno = e;
	return NULL;
}

int fio_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENODATA;
		done += (size_t)n;
	}
	return 0;
}

int fio_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

int fio_copy_fd(int from, int to)
{
	char buf[1 << 16];
	off_t off = 0;

	if (lseek(from, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n = copy_file_range(from, &off, to, NULL, 1 << 30, 0);

		if (n == 0)
			return 0;
		if (n > 0)
			continue;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
			return -errno;
		break;
	}
	/* no copy_file_range between these files: plain copy from where it stopped */
	if (lseek(from, off, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(from, buf, sizeof(buf)), m = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		while (m < n) {
			ssize_t k = write(to, buf + m, n - m);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				return k < 0 ? -errno : -EIO;
			m += k;
		}
	}
}

/* @from's bytes, mode and owner into @to, created; synced. 0 or -errno. */
static int copy_new(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret;
	struct stat st;

	if (in < 0 || fstat(in, &st)) {
		ret = -errno;
		goto done;
	}
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
	if (out < 0) {
		ret = -errno;
		goto done;
	}
	ret = fchmod(out, st.st_mode & 07777) ||
	      (fchown(out, st.st_uid, st.st_gid) && errno != EPERM) ? -errno : 0;
	ret = ret ?: fio_copy_fd(in, out);
	if (!ret && fsync(out))
		ret = -errno;
	if (close(out) && !ret)
		ret = -errno;
	if (ret)
		unlink(to);
done:
	if (in >= 0)
		close(in);
	return ret;
}

int fio_move(const char *from, const char *to)
{
	int ret;

	if (!renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EXDEV)
		return -errno;
	ret = copy_new(from, to);
	if (ret)
		return ret;
	/* The new name must outlive a power cut before the only other copy goes. */
	ret = fio_sync_dir_of(to);
	if (ret) {
		unlink(to);
		return ret;
	}
	unlink(from);	/* the copy is whole: a second copy left behind is no failure */
	return 0;
}

int fio_free_bytes(const char *path, uint64_t *bytes)
{
	struct statvfs sv;

	if (statvfs(path, &sv))
		return -errno;
	*bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	return 0;
}

int fio_sync_dir_of(const char *path)
{
	char *d = strdup(path);
	int fd, ret = 0;

	if (!d)
		return -ENOMEM;
	fd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(d);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

char *fio_beside_name(const char *path, const char *suffix)
{
	char *d = strdup(path), *b = strdup(path), *name = NULL;

	if (d && b && asprintf(&name, "%s/.%s.%s", dirname(d), basename(b), suffix) < 0)
		name = NULL;
	free(d);
	free(b);
	return name;
}

int fio_open_work_beside(const char *path, int mode)
{
	int fd = fio_open_tmp_beside(path, mode);
	char *name;

	if (fd != -EOPNOTSUPP && fd != -EISDIR)
		return fd;
	name = fio_beside_name(path, "work");
	if (!name)
		return -ENOMEM;
	unlink(name);	/* left by a kill between the open and the unlink below */
	fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	fd = fd < 0 ? -errno : fd;
	if (fd >= 0)
		unlink(name);
	free(name);
	return fd;
}

int fio_open_tmp_beside(const char *path, int mode)
{
	char *d = strdup(path);
	int fd;

	if (!d)
		return -ENOMEM;
	fd = open(dirname(d), O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	free(d);
	return fd < 0 ? -errno : fd;
}

int fio_create_beside(const char *path, int mode, char *tmp, size_t tmplen)
{
	char *d, *b;
	int fd = fio_open_tmp_beside(path, mode);

	tmp[0] = '\0';
	if (fd != -EOPNOTSUPP && fd != -EISDIR)
		return fd;
	d = strdup(path);
	b = strdup(path);
	if (!d || !b) {
		fd = -ENOMEM;
	} else if ((size_t)snprintf(tmp, tmplen, "%s/.%s.XXXXXX", dirname(d), basename(b)) >=
		   tmplen) {
		fd = -ENAMETOOLONG;
	} else {
		fd = mkostemp(tmp, O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
		} else if (fchmod(fd, (mode_t)mode)) {
			int err = -errno;

			close(fd);
			unlink(tmp);
			fd = err;
		}
	}
	if (fd < 0)
		tmp[0] = '\0';
	free(d);
	free(b);
	return fd;
}

int fio_publish(const char *path, const char *tmp, int ok)
{
	if (!tmp[0])
		return 0;
	if (!ok || rename(tmp, path)) {
		int err = ok ? -errno : 0;

		unlink(tmp);
		return err;
	}
	return fio_sync_dir_of(path);
}

/* Links the unnamed file @fd as @name: through /proc (no capability), else by fd. */
static int link_unnamed(int fd, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW))
		return 0;
	/* no /proc (a chroot, a sandbox): AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH */
	if (errno == ENOENT && !linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH))
		return 0;
	return -errno;
}

int fio_publish_fd(int fd, const char *tmp, const char *path)
{
	int ret = -EEXIST;

	if (fsync(fd) && errno != EINVAL) {
		ret = -errno;
		fio_publish(path, tmp, 0);	/* removes a named @tmp */
		return ret;
	}
	if (tmp[0])
		return fio_publish(path, tmp, 1);
	/* a hidden name of its own first (never a second visible copy), then over @path */
	for (int i = 0; i < 100 && ret == -EEXIST; i++) {
		char suffix[32], *name;

		snprintf(suffix, sizeof(suffix), "publish.%d.%d", (int)getpid(), i);
		name = fio_beside_name(path, suffix);
		if (!name)
			return -ENOMEM;
		ret = link_unnamed(fd, name);
		if (!ret && rename(name, path)) {
			ret = -errno;
			unlink(name);
		}
		free(name);
	}
	return ret ?: fio_sync_dir_of(path);
}

int fio_reserve_fds(unsigned long n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= n)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < n) {
		struct rlimit up = { .rlim_cur = n, .rlim_max = n };

		/* Raising the hard limit needs CAP_SYS_RESOURCE; else up to it. */
		if (!setrlimit(RLIMIT_NOFILE, &up))
			return 0;
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		return -EMFILE;
	}
	rl.rlim_cur = n;
	return setrlimit(RLIMIT_NOFILE, &rl) ? -errno : 0;
}
