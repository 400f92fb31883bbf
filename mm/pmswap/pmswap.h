/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmswap: declarations shared by the files in mm/pmswap/ only. The hooks
 * the rest of the kernel calls are in <linux/pmswap.h>.
 *
 * Copyright (C) 2026 pmswap developers
 */
#ifndef _MM_PMSWAP_PMSWAP_H
#define _MM_PMSWAP_PMSWAP_H

#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/pmswap.h>
#include <linux/types.h>

struct kobject;
struct mm_struct;

#ifdef CONFIG_PMSWAP_HUGE_SWAP
bool huge_swap_memcg_tight(struct mm_struct *mm);
#endif

/*
 * Race windows (CONFIG_PMSWAP_RACE_WINDOWS): points between a lockless
 * check and the locked step that depends on it, where a test may make
 * the path sleep so that the racing path runs inside the window. Each
 * caller may sleep there.
 */
enum pmswap_race {
	/* a fault mapping pmem in place: after its checks, before the PMD lock */
	PMSWAP_RACE_INPLACE_MAP,
	/* swapoff: after reading a huge swap entry, before acting on it */
	PMSWAP_RACE_UNUSE_PMD,
	PMSWAP_RACE_NR,
};

#ifdef CONFIG_PMSWAP_RACE_WINDOWS
void pmswap_race_window(enum pmswap_race id);
#else
static inline void pmswap_race_window(enum pmswap_race id)
{
}
#endif

/* /sys/kernel/mm/pmswap; NULL if it could not be created. */
extern struct kobject *pmswap_kobj;

ssize_t pmswap_show_bool(const bool *knob, char *buf);
ssize_t pmswap_store_bool(bool *knob, const char *buf, size_t count);

#endif /* _MM_PMSWAP_PMSWAP_H */
