/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmswap map in place: what its files share. mm/pmswap/inplace.c has the
 * design; the files, one per role:
 *
 *   inplace.c          device state, policy, accounting, swapon/swapoff,
 *                      the walk over every mm that uses swap
 *   inplace_pmd.c      2 MiB extents mapped by a PMD: map, revert, fault
 *   inplace_pte.c      4 KiB slots mapped by a PTE, with fault-around
 *                      (CONFIG_PMSWAP_INPLACE_PTE)
 *   inplace_promote.c  the promotion scanner and its knobs
 *   inplace_failure.c  memory failure and namespace removal
 *   inplace_sysfs.c    the per-device files and /sys/kernel/mm/pmswap/inplace
 *
 * Lock rules. An in-place mapping, and the bits of its extent or slot in
 * struct inplace_dev or struct inplace_slots, change under the page table
 * lock of that mapping (the PMD's or the PTE's) while the fault that maps
 * it holds the slots' claim (swapcache_prepare()). A device is published
 * and torn down under pmswap_pmem_lock; lookups by type and by pfn are
 * lockless (acquire, RCU). See struct inplace_slots for its records.
 *
 * Copyright (C) 2026 pmswap developers
 */
#ifndef _MM_PMSWAP_INPLACE_H
#define _MM_PMSWAP_INPLACE_H

#include <linux/atomic.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/refcount.h>
#include <linux/swap.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "swap_pmem.h"

struct mm_walk_ops;

enum {
	INPLACE_NEVER,
	INPLACE_READ,
	INPLACE_ALWAYS,
};

struct inplace_dev {
	struct pmswap_pmem *pd;
	int type;
	/* pfn of swap slot 0 and number of slots */
	unsigned long pfn0, max;
	int policy;
	atomic_long_t now;
	atomic_long_t maps;
	atomic_long_t promotions;
	unsigned long nr_extents;
	/* extents mapped writable in place */
	unsigned long *rw;
	/* extents whose (one) in-place mapping stands for an exclusive entry */
	unsigned long *excl;
	/* extents whose next fault copies to DRAM */
	unsigned long *promote;
	/* scans in a row that found the extent accessed */
	u8 *heat;
	/* the same for 4 KiB slots mapped in place by a PTE, per slot */
	atomic_long_t pte_now;
	atomic_long_t pte_maps;
	atomic_long_t pte_promotions;
	/* of pte_maps, the neighbours a fault mapped with its own page */
	atomic_long_t pte_around;
	/*
	 * struct inplace_slots of the extents with slots mapped in place by
	 * PTEs or waiting to be promoted, by extent; its lock (xa_lock)
	 * guards their reference counts. @nr_slots: how many.
	 */
	struct xarray slots;
	atomic_long_t nr_slots;
};

/**
 * struct inplace_slots - state of the 4 KiB slots of one extent in place
 * @rw: slots mapped writable in place
 * @excl: slots whose in-place mapping stands for an exclusive entry
 * @promote: slots whose next fault copies them into DRAM
 * @heat: per slot, scans in a row that found it accessed
 * @users: slots of the extent mapped in place, plus bits set in @promote
 * @rcu: to free it after lockless readers are done
 *
 * Made by the first fault that maps one of the extent's slots in place,
 * freed when @users drops to 0. Locking: the record is inserted, and its
 * @users dropped to 0 and the record erased, under the device's
 * xa_lock(&d->slots), which nests inside page table locks; other
 * references are taken with refcount_inc_not_zero() under RCU. A
 * record is found with xa_load(): under RCU, or by a holder of one of
 * its references (a slot mapped in place, its PTE lock held; or a
 * promotion bit it has just cleared), which keeps it alive. The bits of
 * a slot are set and cleared with atomic ops by the holder of its claim
 * (swapcache_prepare()) or of the PTE lock of its in-place mapping;
 * readahead reads @rw and fault-around @promote under RCU.
 */
struct inplace_slots {
	DECLARE_BITMAP(rw, HPAGE_PMD_NR);
	DECLARE_BITMAP(excl, HPAGE_PMD_NR);
	DECLARE_BITMAP(promote, HPAGE_PMD_NR);
	u8 heat[HPAGE_PMD_NR];
	refcount_t users;
	struct rcu_head rcu;
};

extern struct kmem_cache *inplace_slots_cache;

/* The record of extent @ext of @d, or NULL; see struct inplace_slots. */
static inline struct inplace_slots *inplace_slots_of(struct inplace_dev *d,
						     unsigned long ext)
{
	return xa_load(&d->slots, ext);
}

extern struct inplace_dev *inplace_devs[MAX_SWAPFILES];
extern struct maple_tree inplace_pfns;
/* pages mapped in place, by PMDs and PTEs */
extern atomic_long_t inplace_pages;
/* policy of devices at swapon */
extern int inplace_default_policy;

static inline struct inplace_dev *inplace_dev_of(struct swap_info_struct *si)
{
	/* pairs with smp_store_release() in pmswap_inplace_swapon() */
	return smp_load_acquire(&inplace_devs[si->type]);
}

/*
 * The device whose swap area holds @pfn, or NULL. Called for a PMD or PTE
 * that maps @pfn in place: swapoff reverts every such entry before the
 * device goes, so the device is there.
 */
static inline struct inplace_dev *inplace_dev_of_pfn(unsigned long pfn)
{
	return mtree_load(&inplace_pfns, pfn);
}

/*
 * The device of in-place PTE @pte: @d, the device of the PTE before it in
 * a walk, when it holds the pfn (the PTEs of one table are nearly always
 * of one device), else looked up.
 */
static inline struct inplace_dev *inplace_dev_of_pte(struct inplace_dev *d,
						     pte_t pte)
{
	if (d && pte_pfn(pte) - d->pfn0 < d->max)
		return d;
	return inplace_dev_of_pfn(pte_pfn(pte));
}

static inline unsigned long inplace_extent(struct inplace_dev *d,
					   unsigned long pfn)
{
	return (pfn - d->pfn0) / HPAGE_PMD_NR;
}

/* From now on readahead leaves @bit's slot or extent alone. */
static inline void inplace_set_rw(unsigned long *rw, unsigned long bit)
{
	set_bit(bit, rw);
	/* pairs with smp_mb() in pmswap_inplace_rw_busy() */
	smp_mb__after_atomic();
}

/* inplace.c */
unsigned long inplace_dev_bytes(struct inplace_dev *d);
void inplace_account(swp_entry_t entry, int nr);
bool inplace_slots_on_pmem(struct inplace_dev *d, swp_entry_t entry, int nr);
int inplace_may_map(struct inplace_dev *d, struct vm_fault *vmf,
		    struct swap_info_struct *si, swp_entry_t entry, int nr,
		    bool excl, bool promote);
bool inplace_map_writable(struct vm_area_struct *vma, int policy, bool excl,
			  bool soft_dirty);
void inplace_walk_mms(const struct mm_walk_ops *ops, void *private,
		      bool wait);

/* inplace_pte.c */
#ifdef CONFIG_PMSWAP_INPLACE_PTE
/* pages mapped in place by PTEs: the scanner looks at page tables if any */
extern atomic_long_t inplace_pte_pages;
pte_t inplace_pte_revert(struct inplace_dev *d, struct vm_area_struct *vma,
			 unsigned long addr, pte_t *ptep, unsigned int flags);
void inplace_drop_promote(swp_entry_t entry);
int inplace_pte_init(void);
#else
static inline int inplace_pte_init(void)
{
	return 0;
}
#endif

/* inplace_promote.c */
int inplace_promote_init(void);

/* inplace_failure.c */
void inplace_failure_init(void);

/* inplace_sysfs.c */
int inplace_sysfs_init(void);
void inplace_sysfs_add(struct inplace_dev *d);
void inplace_sysfs_remove(struct inplace_dev *d);
ssize_t inplace_uint_show(const unsigned int *knob, char *buf);
ssize_t inplace_uint_store(unsigned int *knob, const char *buf, size_t count,
			   unsigned int min, unsigned int max);

#endif /* _MM_PMSWAP_INPLACE_H */
