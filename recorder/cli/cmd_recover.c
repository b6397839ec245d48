// SPDX-License-Identifier: GPL-2.0
/*
 * recorderd recover [--check] [-o OUT] FILE...: check trace.dat files left by a crash
 * and repair them (in place, or into OUT). Exit status as fsck(8): 0 all valid,
 * 1 repaired (or repairable, --check), 2 usage, 4 a file could not be read or repaired.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "recover/recover.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: recorderd recover [--check] [-o OUT] FILE...\n"
		"Checks each file a crash left behind and repairs it: chunks written after the\n"
		"last sync counted in, a lost tail rebuilt (options, command lines, CPU stats),\n"
		"the sparse CPU regions compacted, chunks a sync stored uncompressed compressed.\n"
		"The file is replaced by a rename only once\n"
		"the repaired one is complete.\n\n"
		"  -n, --check            only say what would be done\n"
		"  -o, --output OUT       write the repaired file to OUT, leave FILE as it is\n"
		"                         (one FILE only)\n"
		"Exit: 0 valid, 1 repaired or compressed (--check: would be), 4 not repairable.\n");
}

int cmd_recover(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check",	no_argument,		NULL, 'n' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL;
	int dry = 0, ret = 0, r, o;

	optind = 1;
	while ((o = getopt_long(argc, argv, "no:h", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			dry = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc || (out && argc - optind != 1)) {
		usage(stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		r = recover_file(argv[i], out, dry ? RECOVER_CHECK : 0);
		if (r < 0)
			ret = 4;
		else if (r > 0 && ret == 0)
			ret = 1;
	}
	return ret;
}
