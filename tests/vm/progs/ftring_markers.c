// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a known marker sequence: "PREFIX N" for N = FIRST..LAST, one write() each, to
 * /dev/ftring/marker (or -m FILE). Exits 1 at the first failed write, saying which.
 *
 *   ftring_markers [-m FILE] PREFIX FIRST LAST
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *path = "/dev/ftring/marker";
	long first, last;
	char buf[128];
	int fd, o;

	while ((o = getopt(argc, argv, "m:")) != -1) {
		if (o != 'm')
			return 2;
		path = optarg;
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: %s [-m FILE] PREFIX FIRST LAST\n", argv[0]);
		return 2;
	}
	first = strtol(argv[optind + 1], NULL, 10);
	last = strtol(argv[optind + 2], NULL, 10);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ftring_markers: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (long n = first; n <= last; n++) {
		int len = snprintf(buf, sizeof(buf), "%s %ld", argv[optind], n);

		if (write(fd, buf, (size_t)len) != len) {
			fprintf(stderr, "ftring_markers: marker %ld: %s\n", n, strerror(errno));
			return 1;
		}
	}
	close(fd);
	return 0;
}
