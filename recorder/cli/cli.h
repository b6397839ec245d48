/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands of recorderd; each lives in its own cmd_*.c file. */
#ifndef REC_CLI_H
#define REC_CLI_H

int cmd_record(int argc, char **argv);	/* cmd_record.c */
int cmd_export(int argc, char **argv);	/* cmd_export.c */
/* start, stop, status, snapshot, rotate, reload; argv[0] names which. */
int cmd_daemon(int argc, char **argv);	/* cmd_daemon.c */
int cmd_recover(int argc, char **argv);	/* cmd_recover.c */

#endif /* REC_CLI_H */
