// SPDX-License-Identifier: GPL-2.0
/* File rotation and the disk budget of the daemon's output directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"
#include "rotate.h"
#include "trigger.h"

/*
 * An existing directory given to the group: only one private to us, the kind we make
 * (0750) or a unit's StateDirectory=; never a shared one such as /var/tmp or /run.
 */
static bool ours_to_share(const char *dir)
{
	struct stat st;

	return !stat(dir, &st) && st.st_uid == geteuid() && !(st.st_mode & 0007);
}

int rotate_mkdir_p(const char *dir, int gid)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);

	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, n + 1);
	for (char *p = path + 1; ; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		/*
		 * What we create is 0750 whatever the umask: the files hold kallsyms with
		 * real addresses, command lines and marker text. Existing ones are left.
		 */
		if (!mkdir(path, 0750)) {
			if (chmod(path, 0750) || (gid > 0 && chown(path, -1, (gid_t)gid)))
				return -errno;
		} else if (errno != EEXIST) {
			return -errno;
		} else if (!c && gid > 0 && ours_to_share(path) && chown(path, -1, (gid_t)gid)) {
			return -errno;
		}
		if (!c)
			break;
		*p = c;
	}
	return 0;
}

int rotate_next_path(const struct rec_config *c, struct rotate_state *rs, time_t wall,
		     char *buf, size_t len)
{
	char name[NAME_MAX + 1];
	struct stat st;
	int ret;

	/* Bounded: a pattern without %# collides within one second at most a few times. */
	for (int tries = 0; tries < 10000; tries++) {
		ret = config_file_name(c, wall, rs->seq++, name, sizeof(name));
		if (ret)
			return ret;
		if (snprintf(buf, len, "%s/%s", c->output_dir, name) >= (int)len)
			return -ENAMETOOLONG;
		if (lstat(buf, &st)) {
			/* any other error (ENOTDIR, EACCES, EIO) is that of every name */
			return errno == ENOENT ? 0 : -errno;
		}
		if (!strstr(c->file_pattern, "%#"))
			wall++;	/* no sequence: try the next second's name */
	}
	return -EEXIST;
}

const char *rotate_due(const struct rec_config *c, const struct rotate_state *rs,
		       uint64_t file_bytes, time_t now_mono)
{
	if (c->rotate_size && file_bytes >= c->rotate_size)
		return "size";
	if (c->rotate_secs && now_mono - rs->started >= (time_t)c->rotate_secs)
		return "time";
	return NULL;
}

struct old_file {
	char		name[NAME_MAX + 1];
	struct timespec	mtime;
	uint64_t	bytes;
};

static int older_first(const void *a, const void *b)
{
	const struct old_file *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* @name is a file of a kind with limits of its own, not of @glob's kind. */
static bool other_kind(const char *glob, const char *name)
{
	static const char *const kinds[] = { TRIGGER_FILE_GLOB, LASTBOOT_FILE_GLOB };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(glob, kinds[i]) && !fnmatch(kinds[i], name, FNM_PERIOD | FNM_EXTMATCH))
			return true;
	return false;
}

/*
 * Deletes the files of @glob in output_dir, oldest first, while one is older than
 * @max_age_s (0 = no limit), they are more than @max_files with @current (0 = no
 * limit), or they and @current take more than @budget - @reserve (0 = no limit); the
 * newest never for the budget when @keep_newest. @used: what is left.
 */
static int prune(const struct rec_config *c, const char *glob, const char *current,
		 uint64_t budget, uint64_t reserve, unsigned int max_files, uint64_t max_age_s,
		 bool keep_newest, uint64_t *used_left)
{
	const char *cur_name = current ? strrchr(current, '/') : NULL;
	struct old_file *files = NULL;
	int nr = 0, cap = 0, deleted = 0;
	uint64_t used = 0, cur_bytes = 0;
	time_t now = time(NULL);
	struct dirent *de;
	DIR *d;

	cur_name = cur_name ? cur_name + 1 : current;
	d = opendir(c->output_dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;

		if (fnmatch(glob, de->d_name, FNM_PERIOD | FNM_EXTMATCH))
			continue;
		/* A wide pattern (*-*.dat) also matches them: each kind has its limits. */
		if (other_kind(glob, de->d_name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (cur_name && !strcmp(de->d_name, cur_name)) {
			cur_bytes = (uint64_t)st.st_blocks * 512;
			continue;
		}
		if (nr == cap) {
			struct old_file *f = realloc(files, (cap + 64) * sizeof(*f));

			if (!f)
				break;
			files = f;
			cap += 64;
		}
		snprintf(files[nr].name, sizeof(files[nr].name), "%s", de->d_name);
		files[nr].mtime = st.st_mtim;
		files[nr].bytes = (uint64_t)st.st_blocks * 512;
		used += files[nr].bytes;
		nr++;
	}
	qsort(files, nr, sizeof(*files), older_first);
	/* Oldest first: by age (max_age), then until the rest fits (disk_budget). */
	for (int i = 0; i < nr; i++) {
		bool too_old = max_age_s && files[i].mtime.tv_sec < now - (time_t)max_age_s;
		uint64_t room = budget > reserve ? budget - reserve : 0;
		bool over = budget && used + cur_bytes > room && !(keep_newest && i == nr - 1);
		bool many = max_files && nr - i + !!cur_name > (int)max_files;
		const char *why = too_old ? "max_age" : over ? "disk budget" : "file limit";

		if (!too_old && !over && !many)
			break;
		if (unlinkat(dirfd(d), files[i].name, 0)) {
			log_warn("%s: cannot delete %s/%s: %s", why, c->output_dir, files[i].name,
				 strerror(errno));
			continue;
		}
		log_info("%s: deleted %s/%s (%llu bytes)", why, c->output_dir, files[i].name,
			 (unsigned long long)files[i].bytes);
		used -= files[i].bytes;
		deleted++;
	}
	closedir(d);
	free(files);
	*used_left = used + cur_bytes;
	return deleted;
}

int rotate_enforce_budget(const struct rec_config *c, struct rotate_state *rs,
			  const char *current, uint64_t reserve)
{
	char glob[CONFIG_GLOB_MAX];
	int ret;

	if (config_file_glob(c, glob, sizeof(glob)))
		return -ENAMETOOLONG;
	/*
	 * A flight recorder's newest snapshot is what it is kept for: the budget takes
	 * older ones. Its current file (the module's work file) is another one, or none.
	 */
	ret = prune(c, glob, current, c->disk_budget, reserve, 0, c->max_age_s,
		    c->mode == CONFIG_MODE_FLIGHT, &rs->disk_used);
	if (ret > 0)
		rs->deleted += ret;
	return ret;
}

int rotate_enforce_trigger_files(const struct rec_config *c, struct rotate_state *rs,
				 const char *newest, uint64_t *used)
{
	uint64_t room = c->disk_budget > rs->disk_used ? c->disk_budget - rs->disk_used : 1;
	int ret = prune(c, TRIGGER_FILE_GLOB, newest, c->disk_budget ? room : 0, 0,
			c->trigger_max_files, c->max_age_s, false, used);

	if (ret > 0)
		rs->deleted += ret;
	return ret;
}

int rotate_enforce_lastboot_files(const struct rec_config *c, const char *newest)
{
	uint64_t used;

	/* a crash's trace: kept by count alone, however old (no budget or age limit) */
	return prune(c, LASTBOOT_FILE_GLOB, newest, 0, 0, LASTBOOT_FILES_KEPT, 0, false, &used);
}
