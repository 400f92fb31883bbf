/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmswap: a pmem swap device as seen by the pmem backend (swap_pmem.c)
 * and by map in place (inplace*.c).
 *
 * Copyright (C) 2026 pmswap developers
 */
#ifndef _MM_PMSWAP_SWAP_PMEM_H
#define _MM_PMSWAP_SWAP_PMEM_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/swap.h>
#include <linux/xarray.h>

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
	/* "bio": swap I/O through the block driver, nothing mapped in place */
	bool use_bio;
	/*
	 * Set for good when the namespace is about to be removed: its pmem
	 * may belong to someone else from then on, so it is never copied
	 * to or mapped again (and use_bio stays set). Swap on the device
	 * goes on through bios, which fail once the disk is gone.
	 */
	bool dead;
	/*
	 * Slots whose memory failed while the disk's bad block list was
	 * full (value entries; empty nearly always): read as bad, like the
	 * list's, so that neither DAX nor map in place meets that poison
	 * again and again. A write to such a slot goes to the block driver
	 * and forgets it. If even this record fails (no memory), bb_full
	 * keeps the whole device on bios for good.
	 */
	struct xarray bad_slots;
	bool bb_full;
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

/* May the swap area be reached through DAX: copied, or mapped in place? */
static inline bool pmswap_pmem_use_dax(struct pmswap_pmem *pd)
{
	return !READ_ONCE(pd->use_bio) && !READ_ONCE(pd->dead);
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

#endif /* _MM_PMSWAP_SWAP_PMEM_H */
