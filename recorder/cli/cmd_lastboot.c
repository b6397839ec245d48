// SPDX-License-Identifier: GPL-2.0
/*
 * recorderd lastboot [-o FILE] [--release]: the previous boot's trace from the ftring
 * module's persistent rings (persist=), as trace.dat v7. Exit 0 written, 3 nothing to
 * write (the message says why), 1 failed, 2 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ftring_abi.h"
#include "lastboot/lastboot.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: recorderd lastboot [-o FILE] [--release]\n"
		"Writes the trace the previous boot left in the ftring module's persistent\n"
		"rings (module parameter persist=) as a trace.dat: the events up to the crash,\n"
		"with that boot's event formats and, if it saved a boot record, its kallsyms.\n\n"
		"  -o, --output FILE      where to write (default lastboot.dat)\n"
		"  -r, --release          free the module's copy once written (the daemon does)\n"
		"Exit: 0 written, 3 no previous-boot trace, 1 failed.\n");
}

int cmd_lastboot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output",	required_argument,	NULL, 'o' },
		{ "release",	no_argument,		NULL, 'r' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = "lastboot.dat";
	struct lastboot_result r;
	int release = 0, o, ret;

	optind = 1;
	while ((o = getopt_long(argc, argv, "o:rh", opts, NULL)) != -1) {
		switch (o) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			release = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	ret = lastboot_write(out, 0, release, &r);
	if (ret == LASTBOOT_NONE) {
		fprintf(stderr, "lastboot: no previous-boot trace: %s\n", r.why);
		return 3;
	}
	if (ret < 0) {
		fprintf(stderr, "lastboot: %s\n", r.why[0] ? r.why : strerror(-ret));
		return 1;
	}
	printf("lastboot: %s: %llu events on %u CPUs (%llu sub-buffers), %llu sub-buffers "
	       "dropped; boot %s, %s",
	       out, (unsigned long long)r.events, r.cpus, (unsigned long long)r.pages,
	       (unsigned long long)r.dropped, r.boot_id[0] ? r.boot_id : "unnamed",
	       lastboot_end_text(r.sealed));
	if (r.sealed == FTRING_SEAL_PANIC)
		printf(" at uptime %llu.%03llu s", (unsigned long long)(r.uptime_ns / 1000000000),
		       (unsigned long long)(r.uptime_ns / 1000000 % 1000));
	printf("%s\n", r.has_symbols ? "" : "; no kallsyms of that boot");
	return 0;
}
