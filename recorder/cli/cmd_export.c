// SPDX-License-Identifier: GPL-2.0
/*
 * recorder/cli/cmd_export.c - "recorderd export --fxt IN.dat OUT.fxt".
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export/fxt_export.h"
#include "util/log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: recorderd export --fxt [OPTIONS] IN.dat OUT.fxt\n"
		"\n"
		"Converts a trace.dat (trace-cmd v6 or v7, any compression) to the Fuchsia trace\n"
		"format, which the Perfetto UI (ui.perfetto.dev) opens: CPU and thread-state\n"
		"tracks, thread/process names, irq/softirq/syscall slices, markers, lost events.\n"
		"\n"
		"  --fxt                      output format (the only one for now)\n"
		"  --ticks-per-second N       timestamp rate when the trace clock has none\n"
		"                             (x86-tsc without TSC2NSEC, counter); default 1e9\n"
		"  --no-generic               drop events that have no FXT mapping instead of\n"
		"                             exporting them as instant events\n"
		"  --reopen-mb N              reopen the input every N MiB of records read (default\n"
		"                             16): bounds libtracecmd 1.3.1's memory on zstd files\n"
		"  -q, --quiet                no summary on stderr\n"
		"  -v, --verbose              debug messages\n");
}

/**
 * cmd_export() - the export subcommand.
 * @argc: argument count, argv[0] = "export"
 * @argv: arguments
 *
 * Return: 0 on success, 1 when the export failed, 2 on a usage error.
 */
int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fxt",		no_argument,		NULL, 'f' },
		{ "ticks-per-second",	required_argument,	NULL, 't' },
		{ "no-generic",		no_argument,		NULL, 'g' },
		{ "reopen-mb",		required_argument,	NULL, 'r' },
		{ "quiet",		no_argument,		NULL, 'q' },
		{ "verbose",		no_argument,		NULL, 'v' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct fxt_export_opts opts = { 0 };
	struct fxt_export_stats st;
	int fxt = 0, quiet = 0, c, ret;
	unsigned long long v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fxt = 1;
			break;
		case 't':
			if (cli_parse_uint("--ticks-per-second", optarg, UINT64_MAX, 0,
					   &v))
				return 2;
			opts.ticks_per_second = v;
			break;
		case 'g':
			opts.no_generic = 1;
			break;
		case 'r':
			if (cli_parse_uint("--reopen-mb", optarg, 1ULL << 40, 0, &v))
				return 2;
			opts.reopen_bytes = v << 20;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'v':
			log_max_level = LOG_LVL_DEBUG;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!fxt || argc - optind != 2) {
		fprintf(stderr, fxt ? "export: need IN.dat and OUT.fxt\n" :
			"export: say which format (--fxt)\n");
		usage(stderr);
		return 2;
	}
	ret = fxt_export(argv[optind], argv[optind + 1], &opts, &st);
	if (ret)
		return 1;
	if (!quiet)
		fprintf(stderr,
			"exported %" PRIu64 " records to %s (%" PRIu64 " bytes): %" PRIu64
			" switches, %" PRIu64 " wakeups, %" PRIu64 " irq, %" PRIu64
			" softirq, %" PRIu64 " syscalls, %" PRIu64 " markers, %" PRIu64
			" other, %" PRIu64 " fxt; %" PRIu64 " threads in %" PRIu64
			" processes; %" PRIu64 " lost-event ranges, %" PRIu64
			" repaired, %" PRIu64 " dropped\n",
			st.records_in, argv[optind + 1], st.bytes_out, st.switches, st.wakeups,
			st.irqs, st.softirqs, st.syscalls, st.markers, st.generic,
			st.fxt_passthrough, st.threads, st.processes, st.lost_ranges,
			st.repaired, st.dropped);
	return 0;
}
