/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference ftring meets, and only here.
 * Built and tested against Linux 6.1 (Debian 12); the other branches follow
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

#endif /* FTRING_COMPAT_H */
