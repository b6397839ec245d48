// SPDX-License-Identifier: GPL-2.0
/*
 * A test module only (tests/vm/guest/persist.sh): it holds the name of ftring's
 * marker device, so that a load of ftring fails late, after its persistent region
 * was read and its rings placed in it. Nothing else.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

static const struct file_operations squat_fops = {
	.owner	= THIS_MODULE,
};

static struct miscdevice squat_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "ftring_marker",	/* kmod/marker.c */
	.fops	= &squat_fops,
};
module_misc_device(squat_dev);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test only: takes ftring's marker device name, so that ftring's load fails");
