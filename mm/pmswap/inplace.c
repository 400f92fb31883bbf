// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap map in place, the core: device state, policy, accounting,
 * swapon and swapoff. mm/pmswap/inplace.h lists the other files.
 *
 * A fault on a huge swap entry whose slots are a 2 MiB extent of a pmem
 * swap device maps that extent into the process with one PMD, instead of
 * allocating a THP and copying 2 MiB back into DRAM.
 *
 * Representation. An in-place mapping is a present, special, huge PMD in
 * an anonymous VMA pointing at the pmem pages of the extent. It is a view
 * of the huge swap entry it replaced and keeps everything that entry held:
 * the 512 swap counts, the swap cgroup charge, MM_SWAPENTS and the
 * deposited page table. No struct page of the pmem is touched: no
 * refcount, no mapcount, no rmap, no LRU; the PMD is special, so
 * vm_normal_page_pmd() and GUP-fast ignore it. The swap entry can always
 * be rebuilt from the PMD: pfn - first pfn of the swap area = slot.
 *
 * Whoever needs more than a read access through the page table - a page
 * table walker, fork, split, swapoff, a write fault under the "read"
 * policy, GUP that takes a page - first turns the mapping back into the
 * huge swap entry ("revert", no I/O, a TLB flush), and then finds the
 * case it already handles. A fault on a present in-place PMD promotes:
 * the entry is reverted and faulted back into DRAM as a THP.
 *
 * Policies, per device: "never" copies to DRAM as before; "read" maps
 * read-only, the first write promotes; "always" maps writable when the
 * entry is exclusive (one owner), so writes land on the pmem. While an
 * extent is mapped writable, swap readahead may not read its slots into
 * the swap cache, as that copy would go stale.
 *
 * Hot extents are promoted by a scanner: every promote_interval_ms it
 * walks the mms that use swap, clears the accessed bit of each in-place
 * PMD, and promotes an extent found accessed promote_threshold scans in a
 * row, at most promote_rate_mb MiB per second, and only while free DRAM
 * is above the reserves, the owner's memcg has headroom and reclaim did
 * not run during the last interval.
 *
 * 4 KiB swap entries get the same treatment one level down: a present,
 * special PTE pointing at the slot's pmem page, with per-slot bits and
 * heat instead of per-extent ones, kept in a record per 2 MiB extent that
 * exists only while some of its slots are mapped this way (struct
 * inplace_slots): that state grows with what is mapped in place, not
 * with the size of the device. The zap, fork, swapoff and fault paths
 * revert it; every other walker finds no page behind it (vm_normal_page()
 * returns NULL for it) and leaves it alone; GUP faults it into DRAM,
 * unless it takes no page (MADV_POPULATE_READ maps in place). Like
 * a page cache fault, a fault maps the eligible swap entries around its
 * page in place with it (fault_around_kb, 64 KiB by default).
 *
 * Copyright (C) 2026 pmswap developers
 */

#define pr_fmt(fmt) "pmswap: " fmt

#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pagewalk.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/swap_cgroup.h>
#include <linux/swapops.h>
#include <linux/zswap.h>

#include "../internal.h"
#include "../swap.h"
#include "inplace.h"
#include "pmswap.h"
#include "swap_pmem.h"

struct kmem_cache *inplace_slots_cache __ro_after_init;

/* Bytes of map-in-place state that @d holds now. */
unsigned long inplace_dev_bytes(struct inplace_dev *d)
{
	return sizeof(*d) + 3 * BITS_TO_LONGS(d->nr_extents) * sizeof(long) +
	       d->nr_extents +
	       atomic_long_read(&d->nr_slots) *
	       (inplace_slots_cache ? kmem_cache_size(inplace_slots_cache) : 0);
}

struct inplace_dev *inplace_devs[MAX_SWAPFILES];
/*
 * The pfns of every device's swap area, [pfn0, pfn0 + max), each range
 * pointing to its inplace_dev: a revert finds the device of a pfn with
 * one lookup. Written at swapon and swapoff under pmswap_pmem_lock (and
 * the tree's own lock); read under RCU, which mtree_load() takes.
 */
struct maple_tree inplace_pfns = MTREE_INIT(inplace_pfns, MT_FLAGS_USE_RCU);
/* pages mapped in place, by PMDs and PTEs */
atomic_long_t inplace_pages = ATOMIC_LONG_INIT(0);

/* policy of devices at swapon */
int inplace_default_policy __read_mostly = INPLACE_READ;

/*
 * memory.stat "pmswap_inplace": charged to the memcg that owns the slots
 * (their swap cgroup record), which stays the same from map to revert.
 */
void inplace_account(swp_entry_t entry, int nr)
{
	struct mem_cgroup *memcg;

	atomic_long_add(nr, &inplace_pages);
	if (mem_cgroup_disabled())
		return;
	rcu_read_lock();
	memcg = mem_cgroup_from_id(lookup_swap_cgroup_id(entry));
	if (memcg)
		mod_memcg_state(memcg, MEMCG_PMSWAP_INPLACE, nr);
	rcu_read_unlock();
}

/* Is the data of @nr slots from @entry all on the pmem, and readable? */
bool inplace_slots_on_pmem(struct inplace_dev *d, swp_entry_t entry, int nr)
{
	bool zero;

	return zswap_never_enabled() &&
	       swap_zeromap_batch(entry, nr, &zero) == nr && !zero &&
	       !pmswap_pmem_range_bad(d->pd, swp_offset(entry), nr);
}

/*
 * What a fault on @nr slots from @entry must pass, at PMD or PTE level,
 * before they are mapped in place. @excl: the entry has one owner;
 * @promote: the fault took the "copy at the next fault" bit of the extent
 * or slot (a promotion, or what the scanner found hot). Return: the
 * device's policy, or -1 to copy as usual.
 */
int inplace_may_map(struct inplace_dev *d, struct vm_fault *vmf,
		    struct swap_info_struct *si, swp_entry_t entry, int nr,
		    bool excl, bool promote)
{
	bool write = vmf->flags & (FAULT_FLAG_WRITE | FAULT_FLAG_UNSHARE);
	int policy;

	if (promote || !pmswap_pmem_use_dax(d->pd))
		return -1;
	policy = READ_ONCE(d->policy);
	if (policy == INPLACE_NEVER)
		return -1;
	/* mlocked memory stays in DRAM */
	if (vmf->vma->vm_flags & VM_LOCKED)
		return -1;
	/* a write maps only under "always", only for one owner */
	if (write && (policy != INPLACE_ALWAYS || !excl ||
		      (vmf->flags & FAULT_FLAG_UNSHARE)))
		return -1;
	/* swapoff has begun (racy: swapoff reverts whatever gets mapped) */
	if (!(data_race(si->flags) & SWP_WRITEOK))
		return -1;
	if (!inplace_slots_on_pmem(d, entry, nr))
		return -1;
	return policy;
}

/*
 * Map writable? Only under "always", for an entry with one owner, in a
 * writable VMA, and not while soft-dirty tracking waits for a write fault.
 */
bool inplace_map_writable(struct vm_area_struct *vma, int policy, bool excl,
			  bool soft_dirty)
{
	return policy == INPLACE_ALWAYS && (vma->vm_flags & VM_WRITE) &&
	       excl && !(vma_soft_dirty_enabled(vma) && !soft_dirty);
}

/**
 * pmswap_inplace_active - does @si map swapped data in place?
 * @si: a swap device, pinned by the caller
 *
 * Return: true if its policy is not "never" and its pmem is reached
 * through DAX. Racy: the policy may change at any time, and the answer
 * only picks how a fault copies.
 */
bool pmswap_inplace_active(struct swap_info_struct *si)
{
	struct inplace_dev *d = inplace_dev_of(si);

	return d && pmswap_pmem_use_dax(d->pd) &&
	       READ_ONCE(d->policy) != INPLACE_NEVER;
}

/**
 * pmswap_inplace_rw_busy - may swap readahead read @entry into the swap cache?
 * @entry: a slot the caller has just claimed with swapcache_prepare()
 *
 * Return: true if the slot's extent is mapped writable in place: the
 * cached copy would go stale as the owner writes to the pmem.
 */
bool pmswap_inplace_rw_busy(swp_entry_t entry)
{
	struct swap_info_struct *si = swp_swap_info(entry);
	struct inplace_dev *d = si ? inplace_dev_of(si) : NULL;
	unsigned long ext = swp_offset(entry) / HPAGE_PMD_NR;
	struct inplace_slots *slots;
	bool busy;

	if (!d)
		return false;
	/* pairs with smp_mb__after_atomic() in inplace_set_rw() */
	smp_mb();
	if (test_bit(ext, d->rw))
		return true;
	rcu_read_lock();
	slots = inplace_slots_of(d, ext);
	busy = slots && test_bit(swp_offset(entry) % HPAGE_PMD_NR, slots->rw);
	rcu_read_unlock();
	return busy;
}

/* /proc/meminfo: anonymous memory that lives on pmem, mapped in place */
void pmswap_inplace_meminfo(struct seq_file *m)
{
	seq_printf(m, "PmswapInPlace:  %8lu kB\n",
		   atomic_long_read(&inplace_pages) << (PAGE_SHIFT - 10));
}

/*
 * Walk every mm that uses swap (on the mmlist) with @ops and @private:
 * the promotion scanner and memory failure. @wait: take each mm's mmap
 * lock however long that takes (memory failure must see every mapping);
 * otherwise skip an mm whose lock is contended (the scanner).
 */
void inplace_walk_mms(const struct mm_walk_ops *ops, void *private,
		      bool wait)
{
	struct mm_struct *mm, *prev = NULL;
	struct list_head *p;

	spin_lock(&mmlist_lock);
	p = &init_mm.mmlist;
	while ((p = p->next) != &init_mm.mmlist) {
		mm = list_entry(p, struct mm_struct, mmlist);
		if (!mmget_not_zero(mm))
			continue;
		spin_unlock(&mmlist_lock);
		if (prev)
			mmput(prev);
		prev = mm;
		if (wait) {
			mmap_read_lock(mm);
			walk_page_range(mm, 0, mm->task_size, ops, private);
			mmap_read_unlock(mm);
		} else if (mmap_read_trylock(mm)) {
			walk_page_range(mm, 0, mm->task_size, ops, private);
			mmap_read_unlock(mm);
		}
		cond_resched();
		spin_lock(&mmlist_lock);
	}
	spin_unlock(&mmlist_lock);
	if (prev)
		mmput(prev);
}

/*
 * After swapoff (nothing is mapped in place, no lookup can reach @d): the
 * records left are those of promotions whose fault never took them (see
 * inplace_drop_promote()).
 */
static void inplace_dev_free(struct inplace_dev *d)
{
	struct inplace_slots *slots;
	unsigned long ext;

	xa_for_each(&d->slots, ext, slots)
		kmem_cache_free(inplace_slots_cache, slots);
	xa_destroy(&d->slots);
	bitmap_free(d->rw);
	bitmap_free(d->promote);
	bitmap_free(d->excl);
	kvfree(d->heat);
	kfree(d);
}

/**
 * pmswap_inplace_swapon - let faults map @si's extents in place
 * @si: a swap device just enabled
 */
void pmswap_inplace_swapon(struct swap_info_struct *si)
{
	struct pmswap_pmem *pd = pmswap_pmem_get(si);
	struct inplace_dev *d;

	if (!pd)
		return;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		goto nomem;
	d->pd = pd;
	d->type = si->type;
	d->pfn0 = PHYS_PFN(pd->phys0);
	d->max = pd->max;
	d->policy = READ_ONCE(inplace_default_policy);
	d->nr_extents = DIV_ROUND_UP(pd->max, HPAGE_PMD_NR);
	d->rw = bitmap_zalloc(d->nr_extents, GFP_KERNEL);
	d->promote = bitmap_zalloc(d->nr_extents, GFP_KERNEL);
	d->excl = bitmap_zalloc(d->nr_extents, GFP_KERNEL);
	d->heat = kvzalloc(d->nr_extents, GFP_KERNEL);
	xa_init(&d->slots);
	if (!d->rw || !d->promote || !d->excl || !d->heat) {
		inplace_dev_free(d);
		goto nomem;
	}
	/* the tree publishes d with rcu_assign_pointer(): set up before */
	mutex_lock(&pmswap_pmem_lock);
	if (mtree_store_range(&inplace_pfns, d->pfn0, d->pfn0 + d->max - 1, d,
			      GFP_KERNEL)) {
		mutex_unlock(&pmswap_pmem_lock);
		inplace_dev_free(d);
		goto nomem;
	}
	/* d is fully set up before lookups by type can see it */
	smp_store_release(&inplace_devs[si->type], d);
	mutex_unlock(&pmswap_pmem_lock);
	inplace_sysfs_add(d);
	return;
nomem:
	pr_warn("%pg: out of memory, no map in place on this device\n",
		si->bdev);
}

/**
 * pmswap_inplace_swapoff - forget @si; nothing of it is mapped in place
 * @si: the swap device; try_to_unuse() has reverted every in-place PMD
 */
void pmswap_inplace_swapoff(struct swap_info_struct *si)
{
	struct inplace_dev *d = inplace_dev_of(si);
	struct pmswap_pmem *pd = pmswap_pmem_get(si);

	if (!d)
		return;
	WARN_ON_ONCE(atomic_long_read(&d->now) || atomic_long_read(&d->pte_now));
	if (pd)
		inplace_sysfs_remove(d);
	/* a memory failure notification uses the device under this lock */
	mutex_lock(&pmswap_pmem_lock);
	WRITE_ONCE(inplace_devs[si->type], NULL);
	mtree_erase(&inplace_pfns, d->pfn0);
	mutex_unlock(&pmswap_pmem_lock);
	/* lookups by pfn happen under a page table lock or RCU */
	synchronize_rcu();
	inplace_dev_free(d);
}

static int __init pmswap_inplace_init(void)
{
	int err;

	inplace_slots_cache = KMEM_CACHE(inplace_slots, 0);
	if (!inplace_slots_cache)
		pr_warn("out of memory: 4 KiB swap slots are never mapped in place\n");
	/* first: map in place runs even if a knob below cannot be made */
	inplace_failure_init();
	err = inplace_sysfs_init();
	if (err)
		return err;
	err = inplace_pte_init();
	if (err)
		return err;
	return inplace_promote_init();
}
late_initcall(pmswap_inplace_init);
