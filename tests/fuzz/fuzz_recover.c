// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: `recorderd recover -o OUT FILE` on any bytes. The input is written
 * to a file in a private tmpfs directory and recovered into another, the whole way the
 * command goes: v7_decode's checks, the stream walk, the rebuild through the writer
 * and its read-back. Any crash, leak (ASan) or undefined behaviour (UBSan) is a bug:
 * recover is what a field user runs on a file nobody can vouch for.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "recover/recover.h"

static char in_path[64], out_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char dir[] = "/dev/shm/fuzz_recover.XXXXXX";

	if (!mkdtemp(dir)) {
		perror("fuzz_recover: mkdtemp");
		exit(1);
	}
	snprintf(in_path, sizeof(in_path), "%s/in.dat", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.dat", dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = open(in_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		perror("fuzz_recover: writing the input");
		abort();
	}
	close(fd);
	recover_file(in_path, out_path, 0);
	unlink(out_path);
	return 0;
}
