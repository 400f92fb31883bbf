// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap: the /sys/kernel/mm/pmswap directory that the pmswap features
 * (huge swap entries, the pmem swap backend) hang their knobs from, and
 * the race windows that tests widen.
 *
 * Copyright (C) 2026 pmswap developers
 */

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
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

#ifdef CONFIG_PMSWAP_RACE_WINDOWS
/* No hold in a window lasts longer, whatever delay_ms says. */
#define PMSWAP_RACE_MAX_MS	600000U

/*
 * One race window, all fields written from debugfs at any time, no lock.
 * @left: passes still to hold, taken one at a time with
 * atomic_dec_if_positive(); @tgid: when not 0, only that process's tasks
 * take a pass, so that no other process can use it up; @delay_ms: the
 * hold, read again every 20 ms, so writing 0 ends it; @hits: passes
 * taken.
 */
struct pmswap_race_window {
	const char *name;
	atomic_t left;
	u32 tgid;
	u32 delay_ms;
	atomic_t hits;
};

static struct pmswap_race_window pmswap_race_windows[PMSWAP_RACE_NR] = {
	[PMSWAP_RACE_INPLACE_MAP] = { .name = "inplace_map" },
	[PMSWAP_RACE_UNUSE_PMD] = { .name = "unuse_pmd" },
};

/* The hold of @w, in jiffies, as it is set now. */
static unsigned long pmswap_race_hold(struct pmswap_race_window *w)
{
	return msecs_to_jiffies(min(READ_ONCE(w->delay_ms), PMSWAP_RACE_MAX_MS));
}

/**
 * pmswap_race_window - hold the caller here if a test armed window @id
 * @id: the window
 *
 * The hold is a killable sleep: a fatal signal ends it.
 *
 * Context: process context, may sleep; no spinlock held.
 */
void pmswap_race_window(enum pmswap_race id)
{
	struct pmswap_race_window *w = &pmswap_race_windows[id];
	unsigned long start;
	u32 tgid;

	might_sleep();
	if (likely(!atomic_read(&w->left)))
		return;
	tgid = READ_ONCE(w->tgid);
	if (tgid && tgid != task_tgid_nr(current))
		return;
	if (atomic_dec_if_positive(&w->left) < 0)
		return;
	atomic_inc(&w->hits);
	start = jiffies;
	while (!fatal_signal_pending(current) &&
	       time_before(jiffies, start + pmswap_race_hold(w)))
		schedule_timeout_killable(msecs_to_jiffies(20));
}

static int __init pmswap_race_init(void)
{
	struct dentry *dir = debugfs_create_dir("pmswap", NULL);
	struct pmswap_race_window *w;
	char name[64];

	dir = debugfs_create_dir("race", dir);
	for (w = pmswap_race_windows; w < pmswap_race_windows + PMSWAP_RACE_NR;
	     w++) {
		snprintf(name, sizeof(name), "%s_left", w->name);
		debugfs_create_atomic_t(name, 0600, dir, &w->left);
		snprintf(name, sizeof(name), "%s_tgid", w->name);
		debugfs_create_u32(name, 0600, dir, &w->tgid);
		snprintf(name, sizeof(name), "%s_delay_ms", w->name);
		debugfs_create_u32(name, 0600, dir, &w->delay_ms);
		snprintf(name, sizeof(name), "%s_hits", w->name);
		debugfs_create_atomic_t(name, 0400, dir, &w->hits);
	}
	return 0;
}
late_initcall(pmswap_race_init);
#endif
