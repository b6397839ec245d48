/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands of recorderd; each lives in its own cmd_*.c file. */
#ifndef REC_CLI_H
#define REC_CLI_H

int cmd_record(int argc, char **argv);	/* cmd_record.c */
int cmd_export(int argc, char **argv);	/* cmd_export.c */
/* start, stop, status, snapshot, trigger, rotate, reload, salvage; argv[0] names which. */
int cmd_daemon(int argc, char **argv);	/* cmd_daemon.c */
int cmd_recover(int argc, char **argv);	/* cmd_recover.c */
int cmd_lastboot(int argc, char **argv);	/* cmd_lastboot.c */

/*
 * A whole number in 0..@max (decimal, 0x hex or 0 octal; 0 only if @zero_ok) for
 * option @opt; a bad value is logged as "bad value 'S' for OPT". 0 or -EINVAL.
 */
int cli_parse_uint(const char *opt, const char *s, unsigned long long max, int zero_ok,
		   unsigned long long *v);

#endif /* REC_CLI_H */
