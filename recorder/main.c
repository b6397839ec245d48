// SPDX-License-Identifier: GPL-2.0
/* recorderd entry point: dispatches to one subcommand per file. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct cli_cmd {
	const char	*name;
	int		(*run)(int argc, char **argv);
	const char	*help;
} cmds[] = {
	{ "record",	cmd_record,	"record until COMMAND exits or a signal" },
	{ "export",	cmd_export,	"convert a trace.dat to another format (--fxt)" },
	{ "start",	cmd_daemon,	"start the capture daemon (background, or under systemd)" },
	{ "stop",	cmd_daemon,	"stop the daemon: drain the buffers, finish the files" },
	{ "status",	cmd_daemon,	"show what the daemon records (--json for machines)" },
	{ "snapshot",	cmd_daemon,	"write the flight recorder's buffers to a file" },
	{ "trigger",	cmd_daemon,	"fire the flight recorder's trigger command:NAME" },
	{ "rotate",	cmd_daemon,	"finish the daemon's current file and start the next" },
	{ "reload",	cmd_daemon,	"re-read the daemon's config file (like SIGHUP)" },
	{ "salvage",	cmd_daemon,	"finish what a daemon that died left (none took over)" },
	{ "recover",	cmd_recover,	"check a trace.dat cut by a crash, and repair it" },
	{ "lastboot",	cmd_lastboot,	"write the trace the previous boot left (ftring persist=)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: recorderd COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'recorderd COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	fprintf(stderr, "recorderd: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
