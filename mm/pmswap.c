// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap: the /sys/kernel/mm/pmswap directory that the pmswap features
 * (huge swap entries, the pmem swap backend) hang their knobs from.
 *
 * Copyright (C) 2026 pmswap developers
 */

#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/sysfs.h>

#include "pmswap.h"

struct kobject *pmswap_kobj;

/* show and store for the pmswap on/off knobs */
ssize_t pmswap_show_bool(const bool *knob, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(*knob));
}

ssize_t pmswap_store_bool(bool *knob, const char *buf, size_t count)
{
	bool on;
	int err;

	err = kstrtobool(buf, &on);
	if (err)
		return err;
	WRITE_ONCE(*knob, on);
	return count;
}

/* After mm_kobj (postcore), before the features' subsys initcalls. */
static int __init pmswap_sysfs_init(void)
{
	pmswap_kobj = kobject_create_and_add("pmswap", mm_kobj);
	return pmswap_kobj ? 0 : -ENOMEM;
}
arch_initcall(pmswap_sysfs_init);
