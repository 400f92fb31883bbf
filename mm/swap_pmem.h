/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmswap: a pmem swap device as seen by the pmem backend (swap_pmem.c)
 * and by map in place (swap_inplace.c).
 *
 * Copyright (C) 2026 pmswap developers
 */
#ifndef _MM_SWAP_PMEM_H
#define _MM_SWAP_PMEM_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/swap.h>

struct pmswap_pmem {
	struct kobject kobj;
	struct swap_info_struct *si;
	struct dax_device *dax_dev;
	struct badblocks *bb;
	/* DAX page offset and physical address of swap slot 0 */
	pgoff_t pgoff0;
	phys_addr_t phys0;
	/* first disk sector of the swap area (non-zero on a partition) */
	sector_t sect0;
	unsigned long max;
	unsigned long bad_pages;
	bool use_bio;
	atomic_long_t pages_written;
	atomic_long_t pages_read;
	atomic_long_t read_errors;
	atomic_long_t write_fallbacks;
	atomic_long_t poison_notices;
};

extern struct pmswap_pmem *pmswap_pmem_devs[MAX_SWAPFILES];
/* serialises publishing and tearing down devices against notify_failure */
extern struct mutex pmswap_pmem_lock;

static inline struct pmswap_pmem *pmswap_pmem_get(struct swap_info_struct *si)
{
	/* pairs with smp_store_release() in pmswap_pmem_swapon() */
	return smp_load_acquire(&pmswap_pmem_devs[si->type]);
}

bool pmswap_pmem_range_bad(struct pmswap_pmem *pd, unsigned long offset,
			   unsigned long nr);

/*
 * Called (blocking) when a memory failure hit swap slots @first..@last of
 * @si, after they were recorded as bad blocks, and for all slots when the
 * namespace is about to be removed.
 */
struct pmswap_pmem_failure {
	struct swap_info_struct *si;
	unsigned long first, last;
};

extern struct blocking_notifier_head pmswap_pmem_failure_chain;

#endif /* _MM_SWAP_PMEM_H */
