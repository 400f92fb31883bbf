// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap: the /sys/kernel/mm/pmswap directory that the pmswap features
 * (huge swap entries, the pmem swap backend) hang their knobs from.
 *
 * Copyright (C) 2026 pmswap developers
 */

#include <linux/init.h>
#include <linux/kobject.h>

#include "pmswap.h"

struct kobject *pmswap_kobj;

/* After mm_kobj (postcore), before the features' subsys initcalls. */
static int __init pmswap_sysfs_init(void)
{
	pmswap_kobj = kobject_create_and_add("pmswap", mm_kobj);
	return pmswap_kobj ? 0 : -ENOMEM;
}
arch_initcall(pmswap_sysfs_init);
