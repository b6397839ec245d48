/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference ftring meets, and only here.
 * Built and tested against Debian 12's Linux 6.1 and 6.12; the other branches follow
 * the upstream API changes named next to them.
 */
#ifndef FTRING_COMPAT_H
#define FTRING_COMPAT_H

#include <linux/version.h>
#include <linux/device.h>
#include <linux/mm.h>

/* 6.3: vm_flags became read-only outside vm_flags_{set,clear}() */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void ftring_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void ftring_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#else
#define ftring_vm_flags_set(vma, flags)		vm_flags_set(vma, flags)
#define ftring_vm_flags_clear(vma, flags)	vm_flags_clear(vma, flags)
#endif

/* 6.4: class_create() lost its owner argument */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define ftring_class_create(name)	class_create(THIS_MODULE, name)
#else
#define ftring_class_create(name)	class_create(name)
#endif

/* 6.2: class devnode() takes a const struct device */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define FTRING_DEVNODE_CONST
#else
#define FTRING_DEVNODE_CONST const
#endif

/* 6.12: no_llseek() is gone; a NULL .llseek on a nonseekable_open() file is the same */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#define FTRING_NO_LLSEEK	no_llseek
#else
#define FTRING_NO_LLSEEK	NULL
#endif

/* 6.12: <asm/unaligned.h> became <linux/unaligned.h> */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#include <asm/unaligned.h>
#else
#include <linux/unaligned.h>
#endif

/*
 * 6.14: the syscall tracepoints may fault, and call their probes with preemption
 * enabled; the writer needs it off (one CPU's buffer from reserve to commit). Before,
 * the tracepoint disabled it, and a second disable would show in preempt_count.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#define ftring_syscall_tp_enter()	preempt_disable_notrace()
#define ftring_syscall_tp_exit()	preempt_enable_notrace()
#else
#define ftring_syscall_tp_enter()	do { } while (0)
#define ftring_syscall_tp_exit()	do { } while (0)
#endif

/*
 * 6.11: reserve_mem=SIZE:ALIGN:LABEL and reserve_mem_find_by_name() (mm/memblock.c);
 * Debian's 6.1 has neither: a LABEL cannot be found there.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define FTRING_HAVE_RESERVE_MEM	1
#define ftring_reserve_mem_find(name, start, size) reserve_mem_find_by_name(name, start, size)
#else
#define FTRING_HAVE_RESERVE_MEM	0
static inline int ftring_reserve_mem_find(const char *name, phys_addr_t *start,
					  phys_addr_t *size)
{
	return 0;
}
#endif

#endif /* FTRING_COMPAT_H */
