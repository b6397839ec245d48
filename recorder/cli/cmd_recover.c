// SPDX-License-Identifier: GPL-2.0
/*
 * recorderd recover FILE...: check trace.dat files left by a crash, repair them in
 * place. Exit status as fsck(8): 0 all valid, 1 repaired (or repairable, --check),
 * 2 usage, 4 a file could not be read or repaired.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "recover/recover.h"

int cmd_recover(int argc, char **argv)
{
	int dry = 0, ret = 0, n = 0, r;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: recorderd recover [--check] FILE...\n"
			       "Checks each file; one a crash left mid-tail is repaired in place\n"
			       "(its tail rebuilt from the chunk streams). --check only reports.\n"
			       "Exit: 0 valid, 1 repaired (--check: repairable), 4 not repairable.\n");
			return 0;
		}
		if (!strcmp(argv[i], "--check") || !strcmp(argv[i], "-n")) {
			dry = 1;
			continue;
		}
		n++;
		r = recover_file(argv[i], dry);
		if (r < 0)
			ret = 4;
		else if (r > 0 && ret == 0)
			ret = 1;
	}
	if (!n) {
		fprintf(stderr, "usage: recorderd recover [--check] FILE...\n");
		return 2;
	}
	return ret;
}
