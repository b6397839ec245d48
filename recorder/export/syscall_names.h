/* SPDX-License-Identifier: GPL-2.0 */
/* recorder/export/syscall_names.h - system call number to name, per traced machine. */
#ifndef REC_SYSCALL_NAMES_H
#define REC_SYSCALL_NAMES_H

const char *syscall_name(const char *machine, long nr);

#endif /* REC_SYSCALL_NAMES_H */
