// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap map in place: a fault on a huge swap entry whose slots are a 2 MiB
 * extent of a pmem swap device maps that extent into the process with one
 * PMD, instead of allocating a THP and copying 2 MiB back into DRAM.
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

#include <linux/hugetlb.h>
#include <linux/log2.h>
#include <linux/maple_tree.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/notifier.h>
#include <linux/pagewalk.h>
#include <linux/pgtable.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/swap_cgroup.h>
#include <linux/swapops.h>
#include <linux/sysfs.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include <linux/zswap.h>
#include <asm/tlbflush.h>

#include "internal.h"
#include "pmswap.h"
#include "swap.h"
#include "swap_pmem.h"

enum {
	INPLACE_NEVER,
	INPLACE_READ,
	INPLACE_ALWAYS,
};

static const char * const inplace_policy_names[] = {
	[INPLACE_NEVER] = "never",
	[INPLACE_READ] = "read",
	[INPLACE_ALWAYS] = "always",
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

static struct kmem_cache *inplace_slots_cache __ro_after_init;

/* The record of extent @ext of @d, or NULL; see struct inplace_slots. */
static struct inplace_slots *inplace_slots_of(struct inplace_dev *d,
					      unsigned long ext)
{
	return xa_load(&d->slots, ext);
}

/* Bytes of map-in-place state that @d holds now. */
static unsigned long inplace_dev_bytes(struct inplace_dev *d)
{
	return sizeof(*d) + 3 * BITS_TO_LONGS(d->nr_extents) * sizeof(long) +
	       d->nr_extents +
	       atomic_long_read(&d->nr_slots) *
	       (inplace_slots_cache ? kmem_cache_size(inplace_slots_cache) : 0);
}

static struct inplace_dev *inplace_devs[MAX_SWAPFILES];
/*
 * The pfns of every device's swap area, [pfn0, pfn0 + max), each range
 * pointing to its inplace_dev: a revert finds the device of a pfn with
 * one lookup. Written at swapon and swapoff under pmswap_pmem_lock (and
 * the tree's own lock); read under RCU, which mtree_load() takes.
 */
static struct maple_tree inplace_pfns = MTREE_INIT(inplace_pfns,
						   MT_FLAGS_USE_RCU);
/* pages mapped in place, by PMDs and PTEs */
static atomic_long_t inplace_pages = ATOMIC_LONG_INIT(0);

/* policy of devices at swapon */
static int default_policy __read_mostly = INPLACE_READ;
static unsigned int promote_interval_ms __read_mostly = 1000;
static unsigned int promote_threshold __read_mostly = 3;
static unsigned int promote_rate_mb __read_mostly = 64;
/* 4 KiB pages in the aligned window a PTE fault maps in place; 1: off */
static unsigned int fault_around_pages __read_mostly = 16;

static void inplace_scan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(inplace_scan_work, inplace_scan_fn);

static struct inplace_dev *inplace_dev_of(struct swap_info_struct *si)
{
	/* pairs with smp_store_release() in pmswap_inplace_swapon() */
	return smp_load_acquire(&inplace_devs[si->type]);
}

/*
 * The device whose swap area holds @pfn, or NULL. Called for a PMD or PTE
 * that maps @pfn in place: swapoff reverts every such entry before the
 * device goes, so the device is there.
 */
static struct inplace_dev *inplace_dev_of_pfn(unsigned long pfn)
{
	return mtree_load(&inplace_pfns, pfn);
}

static unsigned long inplace_extent(struct inplace_dev *d, unsigned long pfn)
{
	return (pfn - d->pfn0) / HPAGE_PMD_NR;
}

/*
 * memory.stat "pmswap_inplace": charged to the memcg that owns the slots
 * (their swap cgroup record), which stays the same from map to revert.
 */
static void inplace_account(swp_entry_t entry, int nr)
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

/*
 * The address @pmd maps in @vma, for a caller that was not told it
 * (__pmd_trans_huge_lock()): the PMD's index in its page table gives
 * address bits 21-29, and of the addresses in @vma with those bits, one
 * per 1 GiB, the one whose walk ends at @pmd is it. 0 if none does.
 */
static unsigned long inplace_pmd_addr(struct vm_area_struct *vma, pmd_t *pmd)
{
	unsigned long idx = offset_in_page(pmd) / sizeof(pmd_t);
	unsigned long addr = ALIGN_DOWN(vma->vm_start, PUD_SIZE) +
			     idx * PMD_SIZE;

	for (; addr < vma->vm_end; addr += PUD_SIZE)
		if (addr >= vma->vm_start && mm_find_pmd(vma->vm_mm, addr) == pmd)
			return addr;
	return 0;
}

/**
 * pmswap_inplace_revert_locked - turn an in-place PMD back into its swap entry
 * @vma: the anonymous VMA
 * @addr: an address in the 2 MiB the PMD maps, or 0 if not known
 * @pmd: the PMD, locked, holding an in-place mapping
 * @promote: make the next fault on the extent copy it into DRAM
 *
 * No I/O: the data is in the swap slots already. The TLB entries of the
 * 2 MiB are flushed before the swap entry is visible (the slots may be
 * freed and reused as soon as the lock is dropped), not the whole mm's;
 * not at all when the mm is being torn down (no user access is left, and
 * exit_mmap() flushes everything at its end). Return: the new PMD.
 */
pmd_t pmswap_inplace_revert_locked(struct vm_area_struct *vma,
				   unsigned long addr, pmd_t *pmd, bool promote)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long haddr;
	pmd_t old = *pmd, new;
	unsigned long pfn, ext;
	struct inplace_dev *d;

	lockdep_assert_held(pmd_lockptr(mm, pmd));
	pfn = pmd_pfn(old);
	d = inplace_dev_of_pfn(pfn);
	if (WARN_ON_ONCE(!d || !IS_ALIGNED(pfn - d->pfn0, HPAGE_PMD_NR)))
		return old;
	ext = inplace_extent(d, pfn);

	if (!addr)
		addr = inplace_pmd_addr(vma, pmd);
	haddr = addr & HPAGE_PMD_MASK;
	old = pmdp_huge_get_and_clear(mm, haddr, pmd);
	if (atomic_read(&mm->mm_users)) {
		/*
		 * One PMD entry, flushed with a PMD stride: x86's
		 * flush_tlb_range() (and so flush_pmd_tlb_range()) walks
		 * 2 MiB in 4 KiB steps, which is past the single-page
		 * ceiling and becomes a flush of the whole TLB.
		 */
		if (addr)
			flush_tlb_mm_range(mm, haddr, haddr + HPAGE_PMD_SIZE,
					   PMD_SHIFT, false);
		else
			flush_tlb_mm(mm);
	}
	new = swp_entry_to_pmd(swp_entry(d->type, pfn - d->pfn0));
	if (pmd_soft_dirty(old))
		new = pmd_swp_mksoft_dirty(new);
	/* the entry was exclusive: a writable mapping always is */
	if (test_and_clear_bit(ext, d->excl) || pmd_write(old))
		new = pmd_swp_mkexclusive(new);
	if (pmd_write(old))
		clear_bit(ext, d->rw);
	set_pmd_at(mm, haddr, pmd, new);
	if (promote) {
		set_bit(ext, d->promote);
		atomic_long_inc(&d->promotions);
		count_vm_event(PMSWAP_INPLACE_PROMOTE);
	}
	atomic_long_dec(&d->now);
	inplace_account(pmd_to_swp_entry(new), -HPAGE_PMD_NR);
	count_vm_event(PMSWAP_INPLACE_REVERT);
	return new;
}

/**
 * pmswap_inplace_revert - revert the PMD at @pmd if it maps pmem in place
 * @vma: the VMA
 * @addr: an address in the 2 MiB @pmd maps
 * @pmd: the PMD, not locked
 */
void pmswap_inplace_revert(struct vm_area_struct *vma, unsigned long addr,
			   pmd_t *pmd)
{
	spinlock_t *ptl = pmd_lock(vma->vm_mm, pmd);

	if (pmd_is_inplace(vma, *pmd))
		pmswap_inplace_revert_locked(vma, addr, pmd, false);
	spin_unlock(ptl);
}

/**
 * pmswap_inplace_unuse - for swapoff: revert an in-place PMD of device @type
 * @vma: the VMA
 * @addr: an address in the 2 MiB @pmd maps
 * @pmd: the PMD, not locked
 * @type: the swap device going away
 */
void pmswap_inplace_unuse(struct vm_area_struct *vma, unsigned long addr,
			  pmd_t *pmd, unsigned int type)
{
	spinlock_t *ptl = pmd_lock(vma->vm_mm, pmd);
	struct inplace_dev *d;

	if (pmd_is_inplace(vma, *pmd)) {
		d = inplace_dev_of_pfn(pmd_pfn(*pmd));
		if (d && d->type == type)
			pmswap_inplace_revert_locked(vma, addr, pmd, false);
	}
	spin_unlock(ptl);
}

/**
 * pmswap_inplace_peek - does @pmd map pmem in place? (smaps, mincore)
 * @vma: the VMA
 * @pmd: the PMD, not locked
 */
bool pmswap_inplace_peek(struct vm_area_struct *vma, pmd_t *pmd)
{
	spinlock_t *ptl = pmd_lockptr(vma->vm_mm, pmd);
	bool ret;

	if (!pmd_is_inplace(vma, pmdp_get_lockless(pmd)))
		return false;
	spin_lock(ptl);
	ret = pmd_is_inplace(vma, *pmd);
	spin_unlock(ptl);
	return ret;
}

/**
 * pmswap_inplace_fault - a fault on a PMD that maps pmem in place
 * @vmf: the fault, vmf->orig_pmd the in-place PMD
 *
 * A write to a read-only mapping, an unshare or a kernel fault that wants
 * a page (GUP) needs one the kernel can refcount: revert the mapping to
 * its swap entry and fault the THP into DRAM (a promotion).
 */
vm_fault_t pmswap_inplace_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	spinlock_t *ptl;	/* the PMD's */
	pmd_t entry;

	/*
	 * A user read, or a user write to a writable mapping, can only be a
	 * fault that raced with the one that mapped the extent (another
	 * thread, or a sharer's TLB): spurious, as for a PTE. Promoting it
	 * would copy 2 MiB for nothing, and split the entry when the memcg
	 * has no room for the copy. So is a populating fault (GUP that takes
	 * no page, MADV_POPULATE_READ), which found the extent mapped by now.
	 */
	if ((vmf->flags & (FAULT_FLAG_USER | FAULT_FLAG_POPULATE)) &&
	    !(vmf->flags & FAULT_FLAG_UNSHARE) &&
	    (!(vmf->flags & FAULT_FLAG_WRITE) || pmd_write(vmf->orig_pmd)))
		return 0;

	ptl = pmd_lock(vma->vm_mm, vmf->pmd);
	if (!pmd_same(*vmf->pmd, vmf->orig_pmd)) {
		spin_unlock(ptl);
		return 0;
	}
	/* counts the promotion; the device may go once the lock is dropped */
	entry = pmswap_inplace_revert_locked(vma, vmf->address, vmf->pmd, true);
	spin_unlock(ptl);
	if (!is_huge_swap_pmd(entry))
		return VM_FAULT_SIGBUS;
	vmf->orig_pmd = entry;
	return do_huge_pmd_swap_page(vmf);
}

/* Is the data of @nr slots from @entry all on the pmem, and readable? */
static bool inplace_slots_on_pmem(struct inplace_dev *d, swp_entry_t entry,
				  int nr)
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
static int inplace_may_map(struct inplace_dev *d, struct vm_fault *vmf,
			   struct swap_info_struct *si, swp_entry_t entry,
			   int nr, bool excl, bool promote)
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
static bool inplace_map_writable(struct vm_area_struct *vma, int policy,
				 bool excl, bool soft_dirty)
{
	return policy == INPLACE_ALWAYS && (vma->vm_flags & VM_WRITE) &&
	       excl && !(vma_soft_dirty_enabled(vma) && !soft_dirty);
}

/* From now on readahead leaves @bit's slot or extent alone. */
static void inplace_set_rw(unsigned long *rw, unsigned long bit)
{
	set_bit(bit, rw);
	/* pairs with smp_mb() in pmswap_inplace_rw_busy() */
	smp_mb__after_atomic();
}

/**
 * pmswap_inplace_try_map - map a huge swap entry's pmem extent in place
 * @vmf: the fault on the huge swap entry vmf->orig_pmd
 * @si: its swap device, pinned by the caller
 *
 * Called by do_huge_pmd_swap_page() when the folio is not in the swap
 * cache. Return: 1 if the fault is done (mapped, or raced with another
 * change of the PMD); 0 to go on and read the THP into DRAM; -EBUSY when
 * the slots could not be claimed: another fault (or MADV_WILLNEED) is
 * mapping or reading the same entry, or a slot is in the swap cache on
 * its own. The caller tells the two apart (huge_swap_cache_diverged())
 * and retries the fault or splits; reading into DRAM instead would split
 * the entry under memcg pressure for nothing but a race.
 */
int pmswap_inplace_try_map(struct vm_fault *vmf, struct swap_info_struct *si)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long haddr = vmf->address & HPAGE_PMD_MASK;
	swp_entry_t entry = pmd_to_swp_entry(vmf->orig_pmd);
	bool write = vmf->flags & (FAULT_FLAG_WRITE | FAULT_FLAG_UNSHARE);
	struct inplace_dev *d = inplace_dev_of(si);
	spinlock_t *ptl = pmd_lockptr(mm, vmf->pmd);
	unsigned long ext = swp_offset(entry) / HPAGE_PMD_NR, pfn;
	bool writable;
	int policy;
	pmd_t pmd;

	if (!d)
		return 0;
	policy = inplace_may_map(d, vmf, si, entry, HPAGE_PMD_NR,
				 pmd_swp_exclusive(vmf->orig_pmd),
				 test_and_clear_bit(ext, d->promote));
	if (policy < 0)
		return 0;

	pfn = d->pfn0 + swp_offset(entry);
	pmd = pmd_mkspecial(pmd_mkhuge(pfn_pmd(pfn, vma->vm_page_prot)));
	pmd = pmd_mkyoung(pmd);
	if (pmd_swp_soft_dirty(vmf->orig_pmd))
		pmd = pmd_mksoft_dirty(pmd);
	writable = inplace_map_writable(vma, policy,
					pmd_swp_exclusive(vmf->orig_pmd),
					pmd_soft_dirty(pmd));
	if (write && !writable)
		return 0;
	if (writable) {
		pmd = pmd_mkwrite(pmd, vma);
		if (write)
			pmd = pmd_mkdirty(pmd);
	}

	/*
	 * Claim the slots as swap-in does, until the PMD is installed. This
	 * fails if any of them is in the swap cache or being read into it:
	 * then the 512 slots are not in one state (the pmem may not hold the
	 * newest data of all of them), and the caller splits the entry; or
	 * if a racing fault on the same entry holds the claim, and the
	 * caller retries. It also keeps a racing fault from touching the
	 * extent's bits until this one is done.
	 */
	if (swapcache_prepare(entry, HPAGE_PMD_NR))
		return -EBUSY;

	pmswap_race_window(PMSWAP_RACE_INPLACE_MAP);
	spin_lock(ptl);
	/*
	 * A memory failure or a namespace removal may have hit the extent
	 * since the checks above: their walk reverts what it finds under
	 * this lock, so what is mapped after the check here is found.
	 */
	if (unlikely(!pmd_same(*vmf->pmd, vmf->orig_pmd) ||
		     !pmswap_pmem_use_dax(d->pd) ||
		     pmswap_pmem_range_bad(d->pd, swp_offset(entry),
					   HPAGE_PMD_NR))) {
		spin_unlock(ptl);
		goto unclaim;
	}
	if (writable) {
		/*
		 * From now on readahead leaves the extent alone (see
		 * pmswap_inplace_rw_busy()): a copy in the swap cache would
		 * go stale as the owner writes to the pmem. Set only here,
		 * where the mapping is sure to go in: a racing fault that
		 * fails must not clear the bit of a live mapping, and the
		 * claim keeps readahead out until after it is set.
		 */
		inplace_set_rw(d->rw, ext);
	}
	set_pmd_at(mm, haddr, vmf->pmd, pmd);
	update_mmu_cache_pmd(vma, vmf->address, vmf->pmd);
	if (pmd_swp_exclusive(vmf->orig_pmd))
		set_bit(ext, d->excl);
	WRITE_ONCE(d->heat[ext], 0);
	atomic_long_inc(&d->now);
	atomic_long_inc(&d->maps);
	inplace_account(entry, HPAGE_PMD_NR);
	spin_unlock(ptl);
	count_vm_event(PMSWAP_INPLACE_MAP);
unclaim:
	swapcache_clear(si, entry, HPAGE_PMD_NR);
	/* done either way: mapped, or the PMD changed under us */
	return 1;
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
	/* pairs with smp_mb__after_atomic() in pmswap_inplace_try_map*() */
	smp_mb();
	if (test_bit(ext, d->rw))
		return true;
	rcu_read_lock();
	slots = inplace_slots_of(d, ext);
	busy = slots && test_bit(swp_offset(entry) % HPAGE_PMD_NR, slots->rw);
	rcu_read_unlock();
	return busy;
}

#ifdef CONFIG_PMSWAP_INPLACE_PTE
/* pages mapped in place by PTEs: the scanner looks at page tables if any */
static atomic_long_t inplace_pte_pages = ATOMIC_LONG_INIT(0);

static void inplace_slots_free_rcu(struct rcu_head *rcu)
{
	kmem_cache_free(inplace_slots_cache,
			container_of(rcu, struct inplace_slots, rcu));
}

/*
 * Take a reference on the record of extent @ext, made if there is none.
 * @gfp: GFP_KERNEL where the caller may sleep, GFP_NOWAIT under a page
 * table lock. Return: the record, or NULL when out of memory.
 */
static struct inplace_slots *inplace_slots_get(struct inplace_dev *d,
					       unsigned long ext, gfp_t gfp)
{
	struct inplace_slots *slots, *new = NULL;
	int err;

	if (!inplace_slots_cache)
		return NULL;
	/* the extent has a record already: the common case, no lock */
	rcu_read_lock();
	slots = inplace_slots_of(d, ext);
	if (slots && refcount_inc_not_zero(&slots->users)) {
		rcu_read_unlock();
		return slots;
	}
	rcu_read_unlock();
	for (;;) {
		xa_lock(&d->slots);
		slots = xa_load(&d->slots, ext);
		if (slots) {
			/* not 0 under the lock: the last put erases it there */
			refcount_inc(&slots->users);
			xa_unlock(&d->slots);
			break;
		}
		if (new) {
			/* may drop the lock to allocate, if @gfp sleeps */
			err = __xa_insert(&d->slots, ext, new,
					  gfp | __GFP_NOWARN);
			xa_unlock(&d->slots);
			if (!err) {
				atomic_long_inc(&d->nr_slots);
				return new;
			}
			if (err != -EBUSY)
				break;
			continue;	/* inserted by another: use that */
		}
		xa_unlock(&d->slots);
		new = kmem_cache_zalloc(inplace_slots_cache, gfp | __GFP_NOWARN);
		if (!new)
			return NULL;
		refcount_set(&new->users, 1);
	}
	if (new)
		kmem_cache_free(inplace_slots_cache, new);
	return slots;
}

/* Drop a reference that inplace_slots_get() or a promotion bit held. */
static void inplace_slots_put(struct inplace_dev *d,
			      struct inplace_slots *slots, unsigned long ext)
{
	if (!refcount_dec_and_lock(&slots->users, &d->slots.xa_lock))
		return;
	__xa_erase(&d->slots, ext);
	xa_unlock(&d->slots);
	atomic_long_dec(&d->nr_slots);
	call_rcu(&slots->rcu, inplace_slots_free_rcu);
}

/* Take slot @off's promotion, if it has one: its fault copies it. */
static bool inplace_slot_take_promote(struct inplace_dev *d, unsigned long off)
{
	unsigned long ext = off / HPAGE_PMD_NR;
	struct inplace_slots *slots;
	bool taken;

	rcu_read_lock();
	slots = inplace_slots_of(d, ext);
	taken = slots && test_and_clear_bit(off % HPAGE_PMD_NR, slots->promote);
	rcu_read_unlock();
	/* the bit's reference kept the record: drop it */
	if (taken)
		inplace_slots_put(d, slots, ext);
	return taken;
}

/*
 * After the fault that a promotion (a revert with PMSWAP_REVERT_PROMOTE)
 * started: if that fault did not take the slot's promotion - it found the
 * slot in the swap cache, or the slot was freed first - take it now, so
 * that its record does not stay for nothing. Taking a later promotion of
 * a reused slot instead only maps that one in place once more.
 */
static void inplace_drop_promote(swp_entry_t entry)
{
	struct swap_info_struct *si = get_swap_device(entry);
	struct inplace_dev *d;

	if (!si)
		return;
	d = inplace_dev_of(si);
	if (d)
		inplace_slot_take_promote(d, swp_offset(entry));
	put_swap_device(si);
}

/* Is slot @off waiting to be promoted? */
static bool inplace_slot_promote_pending(struct inplace_dev *d,
					 unsigned long off)
{
	struct inplace_slots *slots;
	bool pending;

	rcu_read_lock();
	slots = inplace_slots_of(d, off / HPAGE_PMD_NR);
	pending = slots && test_bit(off % HPAGE_PMD_NR, slots->promote);
	rcu_read_unlock();
	return pending;
}

/* pmswap_inplace_pte_revert_locked() for a caller that knows the device */
static pte_t inplace_pte_revert(struct inplace_dev *d,
				struct vm_area_struct *vma, unsigned long addr,
				pte_t *ptep, unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long off = pte_pfn(ptep_get(ptep)) - d->pfn0;
	unsigned long ext = off / HPAGE_PMD_NR, bit = off % HPAGE_PMD_NR;
	/* alive: the mapping holds a reference */
	struct inplace_slots *slots = inplace_slots_of(d, ext);
	pte_t old, new;
	bool rw;

	lockdep_assert_held(ptep_lockptr(mm, ptep));
	/* never: the entry is rebuilt all the same, only the bits are lost */
	WARN_ON_ONCE(!slots);
	if (flags & PMSWAP_REVERT_NOFLUSH)
		old = ptep_get_and_clear(mm, addr, ptep);
	else
		old = ptep_clear_flush(vma, addr, ptep);
	new = swp_entry_to_pte(swp_entry(d->type, off));
	if (pte_soft_dirty(old))
		new = pte_swp_mksoft_dirty(new);
	if (pte_uffd_wp(old))
		new = pte_swp_mkuffd_wp(new);
	/* mapped writable, even if an mprotect() took that away since */
	rw = slots && test_and_clear_bit(bit, slots->rw);
	if ((slots && test_and_clear_bit(bit, slots->excl)) || rw ||
	    pte_write(old))
		new = pte_swp_mkexclusive(new);
	set_pte_at(mm, addr, ptep, new);
	/* the mapping's reference goes to the promotion bit, or is dropped */
	if (slots && (!(flags & PMSWAP_REVERT_PROMOTE) ||
		      test_and_set_bit(bit, slots->promote)))
		inplace_slots_put(d, slots, ext);
	if (flags & PMSWAP_REVERT_PROMOTE) {
		atomic_long_inc(&d->pte_promotions);
		count_vm_event(PMSWAP_INPLACE_PTE_PROMOTE);
	}
	atomic_long_dec(&d->pte_now);
	atomic_long_dec(&inplace_pte_pages);
	inplace_account(pte_to_swp_entry(new), -1);
	count_vm_event(PMSWAP_INPLACE_PTE_REVERT);
	return new;
}

/**
 * pmswap_inplace_pte_revert_locked - turn an in-place PTE back into its swap entry
 * @vma: the anonymous VMA
 * @addr: the address the PTE maps
 * @ptep: the PTE, locked, holding an in-place mapping
 * @flags: PMSWAP_REVERT_PROMOTE to make the next fault on the slot copy
 *	   it into DRAM; PMSWAP_REVERT_NOFLUSH when the mm is being torn down
 *
 * No I/O: the data is in the swap slot already. Return: the new PTE.
 */
pte_t pmswap_inplace_pte_revert_locked(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int flags)
{
	struct inplace_dev *d = inplace_dev_of_pfn(pte_pfn(ptep_get(ptep)));

	if (WARN_ON_ONCE(!d))
		return ptep_get(ptep);
	return inplace_pte_revert(d, vma, addr, ptep, flags);
}

/**
 * pmswap_inplace_pte_unuse - for swapoff: revert an in-place PTE of device @type
 * @vma: the VMA, mmap lock held
 * @pmd: the PMD of the page table
 * @addr: the address @ptep maps
 * @ptep: the PTE, mapped, not locked
 * @type: the swap device going away
 *
 * Return: the PTE as it is now.
 */
pte_t pmswap_inplace_pte_unuse(struct vm_area_struct *vma, pmd_t *pmd,
			       unsigned long addr, pte_t *ptep,
			       unsigned int type)
{
	spinlock_t *ptl = pte_lockptr(vma->vm_mm, pmd);
	struct inplace_dev *d;
	pte_t pte;

	spin_lock(ptl);
	pte = ptep_get(ptep);
	if (pte_is_inplace(vma, pte)) {
		d = inplace_dev_of_pfn(pte_pfn(pte));
		if (d && d->type == type)
			pte = inplace_pte_revert(d, vma, addr, ptep, 0);
	}
	spin_unlock(ptl);
	return pte;
}

/**
 * pmswap_inplace_pte_fault - a fault on a PTE that maps pmem in place
 * @vmf: the fault; vmf->pte mapped, not locked; vmf->orig_pte in place
 *
 * As for a PMD: revert to the swap entry and fault the page into DRAM.
 */
vm_fault_t pmswap_inplace_pte_fault(struct vm_fault *vmf)
{
	vm_fault_t ret;
	pte_t entry;

	spin_lock(vmf->ptl);
	if (unlikely(!pte_same(ptep_get(vmf->pte), vmf->orig_pte))) {
		pte_unmap_unlock(vmf->pte, vmf->ptl);
		return 0;
	}
	entry = pmswap_inplace_pte_revert_locked(vmf->vma, vmf->address,
						 vmf->pte,
						 PMSWAP_REVERT_PROMOTE);
	spin_unlock(vmf->ptl);
	if (unlikely(!is_swap_pte(entry))) {
		pte_unmap(vmf->pte);
		return VM_FAULT_SIGBUS;
	}
	vmf->orig_pte = entry;
	ret = do_swap_page(vmf);
	/* a retry comes back here through do_swap_page(), and takes it */
	if (!(ret & VM_FAULT_RETRY))
		inplace_drop_promote(pte_to_swp_entry(entry));
	return ret;
}

/*
 * The in-place PTE for slot @off from its swap PTE @swp: old, soft-dirty
 * as the entry was, writable if the policy lets the VMA write to it.
 */
static pte_t inplace_mk_pte(struct inplace_dev *d, struct vm_area_struct *vma,
			    unsigned long off, pte_t swp, int policy)
{
	pte_t pte = pte_mkold(pte_mkspecial(pfn_pte(d->pfn0 + off,
						    vma->vm_page_prot)));

	if (pte_swp_soft_dirty(swp))
		pte = pte_mksoft_dirty(pte);
	if (inplace_map_writable(vma, policy, pte_swp_exclusive(swp),
				 pte_soft_dirty(pte)))
		pte = pte_mkwrite(pte, vma);
	return pte;
}

/*
 * Put in-place PTE @pte for slot @off at @addr: the slot is claimed
 * (swapcache_prepare()), the PTE lock held, the PTE still the swap entry.
 * The reference the caller took on @slots, the record of the slot's
 * extent, goes to the mapping.
 */
static void inplace_pte_install(struct inplace_dev *d,
				struct inplace_slots *slots,
				struct vm_area_struct *vma, unsigned long addr,
				pte_t *ptep, pte_t pte, unsigned long off,
				bool excl)
{
	unsigned long bit = off % HPAGE_PMD_NR;

	lockdep_assert_held(ptep_lockptr(vma->vm_mm, ptep));
	/* readahead leaves the slot alone from now on (as for a PMD) */
	if (pte_write(pte))
		inplace_set_rw(slots->rw, bit);
	set_pte_at(vma->vm_mm, addr, ptep, pte);
	update_mmu_cache(vma, addr, ptep);
	if (excl)
		set_bit(bit, slots->excl);
	WRITE_ONCE(slots->heat[bit], 0);
	atomic_long_inc(&d->pte_now);
	atomic_long_inc(&d->pte_maps);
	atomic_long_inc(&inplace_pte_pages);
	inplace_account(swp_entry(d->type, off), 1);
	count_vm_event(PMSWAP_INPLACE_PTE_MAP);
}

/*
 * Fault-around, as filemap_map_pages() does for the page cache: with the
 * page that faulted, map in place the swap entries of the same device in
 * the aligned window of fault_around_pages around it, within its VMA and
 * page table, that pass the checks the fault's page passed. They are
 * mapped old, so the scanner does not take them for hot. A slot marked
 * for promotion is left to its own fault. Called with the PTE lock held:
 * swapcache_prepare() takes the cluster lock inside it, as zap does.
 */
static void inplace_map_around(struct inplace_dev *d,
			       struct swap_info_struct *si,
			       struct vm_fault *vmf, int policy)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long nr = READ_ONCE(fault_around_pages);
	unsigned long addr, start, end, off;
	struct inplace_slots *slots;
	swp_entry_t entry;
	pte_t *ptep, swp;

	if (nr <= 1)
		return;
	start = ALIGN_DOWN(vmf->address, nr * PAGE_SIZE);
	end = min3(start + nr * PAGE_SIZE, vma->vm_end,
		   pmd_addr_end(vmf->address, vma->vm_end));
	start = max3(start, vma->vm_start, vmf->address & PMD_MASK);
	ptep = vmf->pte - ((vmf->address - start) >> PAGE_SHIFT);
	for (addr = start; addr < end; addr += PAGE_SIZE, ptep++) {
		swp = ptep_get(ptep);
		if (addr == vmf->address || !is_swap_pte(swp) ||
		    pte_swp_uffd_wp(swp))
			continue;
		entry = pte_to_swp_entry(swp);
		if (non_swap_entry(entry) || swp_type(entry) != d->type)
			continue;
		off = swp_offset(entry);
		if (inplace_slot_promote_pending(d, off) ||
		    !inplace_slots_on_pmem(d, entry, 1))
			continue;
		/* the record of its extent: no sleeping under the PTE lock */
		slots = inplace_slots_get(d, off / HPAGE_PMD_NR, GFP_NOWAIT);
		if (!slots)
			continue;
		/* in the swap cache, or another fault is reading it in */
		if (swapcache_prepare(entry, 1)) {
			inplace_slots_put(d, slots, off / HPAGE_PMD_NR);
			continue;
		}
		inplace_pte_install(d, slots, vma, addr, ptep,
				    inplace_mk_pte(d, vma, off, swp, policy),
				    off, pte_swp_exclusive(swp));
		atomic_long_inc(&d->pte_around);
		swapcache_clear(si, entry, 1);
	}
}

/*
 * The claim on the slot failed. A fault mapping its window around holds
 * neighbours' claims for a moment, under the PTE lock: once that lock is
 * free, a changed PTE means this fault is done (the access is retried),
 * rather than going on to copy a page that is mapped by then.
 */
static bool inplace_pte_changed(struct vm_fault *vmf)
{
	spinlock_t *ptl;	/* the page table's */
	pte_t *ptep;
	bool changed;

	ptep = pte_offset_map_lock(vmf->vma->vm_mm, vmf->pmd, vmf->address,
				   &ptl);
	if (!ptep)
		return true;
	changed = !pte_same(ptep_get(ptep), vmf->orig_pte);
	pte_unmap_unlock(ptep, ptl);
	return changed;
}

/**
 * pmswap_inplace_try_map_pte - map a 4 KiB swap entry's pmem page in place
 * @vmf: the fault on the swap entry vmf->orig_pte; vmf->pte unmapped
 * @si: its swap device, pinned by the caller
 *
 * Called by do_swap_page() when the swap cache holds no folio for the
 * slot. Return: true if the fault is done (mapped, or raced with another
 * change of the PTE); false to go on and read the page into DRAM.
 */
bool pmswap_inplace_try_map_pte(struct vm_fault *vmf,
				struct swap_info_struct *si)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	swp_entry_t entry = pte_to_swp_entry(vmf->orig_pte);
	bool write = vmf->flags & (FAULT_FLAG_WRITE | FAULT_FLAG_UNSHARE);
	bool excl = pte_swp_exclusive(vmf->orig_pte);
	struct inplace_dev *d = inplace_dev_of(si);
	unsigned long off = swp_offset(entry);
	struct inplace_slots *slots;
	int policy;
	pte_t pte;

	if (!d)
		return false;
	policy = inplace_may_map(d, vmf, si, entry, 1, excl,
				 inplace_slot_take_promote(d, off));
	if (policy < 0)
		return false;
	/*
	 * Only anonymous VMAs (the COW pages of a private file mapping are
	 * swapped too, but pte_is_inplace() would not know them), and only
	 * for a user access or a fault that only populates the page table
	 * (MADV_POPULATE_READ): other kernel faults (GUP that takes a page,
	 * khugepaged's swap-in, uaccess) want a page they can hold.
	 * userfaultfd write protection is the copy path's business.
	 */
	if (!vma_is_anonymous(vma) ||
	    !(vmf->flags & (FAULT_FLAG_USER | FAULT_FLAG_POPULATE)) ||
	    pte_swp_uffd_wp(vmf->orig_pte))
		return false;

	pte = pte_mkyoung(inplace_mk_pte(d, vma, off, vmf->orig_pte, policy));
	if (write && !pte_write(pte))
		return false;
	if (write)
		pte = pte_mkdirty(pte);

	/*
	 * The record of the slot's extent; without memory, copy. Taken
	 * before the claim, so a fault that loses the race for the slot
	 * may make and drop a record for nothing.
	 */
	slots = inplace_slots_get(d, off / HPAGE_PMD_NR, GFP_KERNEL);
	if (!slots)
		return false;
	/* claim the slot until the PTE is in, as for an extent */
	if (swapcache_prepare(entry, 1)) {
		inplace_slots_put(d, slots, off / HPAGE_PMD_NR);
		return inplace_pte_changed(vmf);
	}

	vmf->pte = pte_offset_map_lock(mm, vmf->pmd, vmf->address, &vmf->ptl);
	if (unlikely(!vmf->pte))
		goto unmapped;
	/* a memory failure or namespace removal since the checks above */
	if (unlikely(!pte_same(ptep_get(vmf->pte), vmf->orig_pte) ||
		     !pmswap_pmem_use_dax(d->pd) ||
		     pmswap_pmem_range_bad(d->pd, off, 1))) {
		pte_unmap_unlock(vmf->pte, vmf->ptl);
		goto unmapped;
	}
	inplace_pte_install(d, slots, vma, vmf->address, vmf->pte, pte, off,
			    excl);
	inplace_map_around(d, si, vmf, policy);
	pte_unmap_unlock(vmf->pte, vmf->ptl);
	vmf->pte = NULL;
	goto unclaim;
unmapped:
	vmf->pte = NULL;
	inplace_slots_put(d, slots, off / HPAGE_PMD_NR);
unclaim:
	swapcache_clear(si, entry, 1);
	/* done either way: mapped, or the PTE changed under us */
	return true;
}
#endif /* CONFIG_PMSWAP_INPLACE_PTE */

/* /proc/meminfo: anonymous memory that lives on pmem, mapped in place */
void pmswap_inplace_meminfo(struct seq_file *m)
{
	seq_printf(m, "PmswapInPlace:  %8lu kB\n",
		   atomic_long_read(&inplace_pages) << (PAGE_SHIFT - 10));
}

/* Scanner and memory failure: walk every mm that uses swap. */

struct inplace_walk {
	/* memory failure: revert mappings of these slots of this device */
	struct inplace_dev *dev;
	unsigned long first, last;
	/* scanner: pages it may still promote in this pass */
	long budget;
	/* scanner: reclaim ran since the last pass, promote nothing */
	bool pressure;
};

/*
 * Pages scanned by reclaim so far (kswapd, direct, khugepaged and
 * proactive reclaim all count). Only the scan work calls it.
 */
static unsigned long inplace_reclaim_scans(void)
{
	static unsigned long ev[NR_VM_EVENT_ITEMS];

	all_vm_events(ev);
	return ev[PGSCAN_ANON] + ev[PGSCAN_FILE];
}

static bool inplace_dram_free(void)
{
	return global_zone_page_state(NR_FREE_PAGES) >
	       totalreserve_pages + 4 * HPAGE_PMD_NR;
}

#ifdef CONFIG_PMSWAP_INPLACE_PTE
/* The scanner and memory failure for the 4 KiB slots of one page table. */
static int inplace_walk_ptes(pmd_t *pmd, unsigned long addr,
			     unsigned long end, struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct inplace_walk *w = walk->private;
	unsigned long promote[16], first = addr;
	swp_entry_t promoted[16];
	int i, nr_promote = 0, tight = -1;
	bool young = false;
	pte_t *start, *ptep, pte;
	struct inplace_dev *d = NULL;
	struct inplace_slots *slots;
	unsigned long off;
	spinlock_t *ptl;	/* the page table's */
	u8 heat;

	if (!vma_is_anonymous(vma) ||
	    (!w->dev && !atomic_long_read(&inplace_pte_pages)))
		return 0;
	start = pte_offset_map_lock(vma->vm_mm, pmd, addr, &ptl);
	if (!start)
		return 0;
	for (ptep = start; addr != end; ptep++, addr += PAGE_SIZE) {
		pte = ptep_get(ptep);
		if (!pte_is_inplace(vma, pte))
			continue;
		/* the PTEs of one table are nearly always of one device */
		if (!d || pte_pfn(pte) - d->pfn0 >= d->max)
			d = inplace_dev_of_pfn(pte_pfn(pte));
		if (!d)
			continue;
		off = pte_pfn(pte) - d->pfn0;
		if (w->dev) {
			if (d == w->dev && off >= w->first && off <= w->last)
				inplace_pte_revert(d, vma, addr, ptep, 0);
			continue;
		}
		/* alive: the mapping, under this lock, holds a reference */
		slots = inplace_slots_of(d, off / HPAGE_PMD_NR);
		if (WARN_ON_ONCE(!slots))
			continue;
		/*
		 * x86's ptep_clear_flush_young() does not flush: a TLB entry
		 * would hide the next accesses. Flush once for the table.
		 */
		heat = READ_ONCE(slots->heat[off % HPAGE_PMD_NR]);
		if (ptep_test_and_clear_young(vma, addr, ptep)) {
			heat = min_t(unsigned int, heat + 1, U8_MAX);
			young = true;
		} else {
			heat = 0;
		}
		WRITE_ONCE(slots->heat[off % HPAGE_PMD_NR], heat);
		if (heat < READ_ONCE(promote_threshold) || w->budget <= 0 ||
		    w->pressure || nr_promote == ARRAY_SIZE(promote) ||
		    !inplace_dram_free())
			continue;
		if (tight < 0)
			tight = huge_swap_memcg_tight(vma->vm_mm);
		if (tight)
			continue;
		pte = inplace_pte_revert(d, vma, addr, ptep,
					 PMSWAP_REVERT_PROMOTE);
		promoted[nr_promote] = pte_to_swp_entry(pte);
		w->budget--;
		promote[nr_promote++] = addr;
	}
	if (young)
		flush_tlb_range(vma, first, end);
	pte_unmap_unlock(start, ptl);
	/* Fault them into DRAM now; the mmap lock stays held (no retry). */
	for (i = 0; i < nr_promote; i++) {
		handle_mm_fault(vma, promote[i], FAULT_FLAG_REMOTE, NULL);
		inplace_drop_promote(promoted[i]);
	}
	return 0;
}
#else
static int inplace_walk_ptes(pmd_t *pmd, unsigned long addr,
			     unsigned long end, struct mm_walk *walk)
{
	return 0;
}
#endif

static int inplace_walk_pmd(pmd_t *pmd, unsigned long addr,
			    unsigned long next, struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct inplace_walk *w = walk->private;
	unsigned long haddr = addr & HPAGE_PMD_MASK;
	bool promote = false;
	spinlock_t *ptl = pmd_lockptr(vma->vm_mm, pmd);
	struct inplace_dev *d;
	unsigned long pfn, ext;
	u8 heat;

	/*
	 * A memory failure or removal walk takes the lock even when the PMD
	 * looks like no mapping: a fault that checked the device before the
	 * walk began installs its mapping under this lock, and rechecks the
	 * device there, so either this walk finds the mapping or the fault
	 * sees the device's new state. The scanner may miss a mapping.
	 */
	if (!w->dev && !pmd_is_inplace(vma, pmdp_get_lockless(pmd)))
		return inplace_walk_ptes(pmd, addr, next, walk);
	spin_lock(ptl);
	if (!pmd_is_inplace(vma, *pmd)) {
		spin_unlock(ptl);
		return inplace_walk_ptes(pmd, addr, next, walk);
	}
	pfn = pmd_pfn(*pmd);
	d = inplace_dev_of_pfn(pfn);
	if (!d)
		goto unlock;
	ext = inplace_extent(d, pfn);
	if (w->dev) {
		unsigned long off = pfn - d->pfn0;

		if (d == w->dev && off <= w->last &&
		    off + HPAGE_PMD_NR > w->first)
			pmswap_inplace_revert_locked(vma, haddr, pmd, false);
		goto unlock;
	}

	heat = READ_ONCE(d->heat[ext]);
	if (pmdp_clear_flush_young(vma, haddr, pmd))
		heat = min_t(unsigned int, heat + 1, U8_MAX);
	else
		heat = 0;
	WRITE_ONCE(d->heat[ext], heat);
	if (heat >= READ_ONCE(promote_threshold) && w->budget > 0 &&
	    !w->pressure && inplace_dram_free() &&
	    !huge_swap_memcg_tight(vma->vm_mm)) {
		pmswap_inplace_revert_locked(vma, haddr, pmd, true);
		w->budget -= HPAGE_PMD_NR;
		promote = true;
	}
unlock:
	spin_unlock(ptl);
	/* Fault it into DRAM now; the mmap lock stays held (no retry). */
	if (promote)
		handle_mm_fault(vma, haddr, FAULT_FLAG_REMOTE, NULL);
	return 0;
}

static const struct mm_walk_ops inplace_walk_ops = {
	.pmd_entry = inplace_walk_pmd,
	.walk_lock = PGWALK_RDLOCK,
};

static void inplace_walk_mms(struct inplace_walk *w)
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
		if (w->dev) {
			mmap_read_lock(mm);
			walk_page_range(mm, 0, mm->task_size, &inplace_walk_ops,
					w);
			mmap_read_unlock(mm);
		} else if (mmap_read_trylock(mm)) {
			walk_page_range(mm, 0, mm->task_size, &inplace_walk_ops,
					w);
			mmap_read_unlock(mm);
		}
		cond_resched();
		spin_lock(&mmlist_lock);
	}
	spin_unlock(&mmlist_lock);
	if (prev)
		mmput(prev);
}

static void inplace_scan_fn(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(promote_interval_ms);
	static unsigned long last_scans;
	struct inplace_walk w = { };
	unsigned long scans;

	if (!ms)
		return;
	/*
	 * Memory pressure never promotes: after an interval in which reclaim
	 * ran (anywhere), only the accessed bits are sampled.
	 */
	scans = inplace_reclaim_scans();
	w.pressure = scans != last_scans;
	last_scans = scans;
	if (atomic_long_read(&inplace_pages)) {
		/* MiB per second over the interval, in pages, one THP at least */
		w.budget = max_t(unsigned long, HPAGE_PMD_NR,
				 ((unsigned long)READ_ONCE(promote_rate_mb) *
				  ms / 1000) << (20 - PAGE_SHIFT));
		if (!READ_ONCE(promote_rate_mb))
			w.budget = 0;
		inplace_walk_mms(&w);
	}
	queue_delayed_work(system_unbound_wq, &inplace_scan_work,
			   msecs_to_jiffies(ms));
}

static int inplace_failure(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	struct pmswap_pmem_failure *f = data;
	struct inplace_walk w = {
		.dev = inplace_dev_of(f->si),
		.first = f->first,
		.last = f->last,
	};

	/*
	 * The slots read as bad from now on; revert every mapping of them,
	 * so the next access faults, fails to read and gets SIGBUS.
	 */
	/*
	 * Always walk (failures are rare): a map in progress counts itself
	 * only after its PTE or PMD is in, so a zero count proves nothing.
	 */
	if (w.dev)
		inplace_walk_mms(&w);
	return NOTIFY_OK;
}

static struct notifier_block inplace_failure_nb = {
	.notifier_call = inplace_failure,
};

/* sysfs: /sys/kernel/mm/pmswap/pmem/<disk>/inplace and stats/inplace_* */

static struct inplace_dev *inplace_kobj_dev(struct kobject *kobj)
{
	struct pmswap_pmem *pd = container_of(kobj, struct pmswap_pmem, kobj);

	return inplace_dev_of(pd->si);
}

static ssize_t policy_show(const int *policy, char *buf)
{
	int i, len = 0, cur = READ_ONCE(*policy);

	for (i = 0; i < ARRAY_SIZE(inplace_policy_names); i++)
		len += sysfs_emit_at(buf, len, i == cur ? "[%s]%s" : "%s%s",
				     inplace_policy_names[i],
				     i + 1 < ARRAY_SIZE(inplace_policy_names) ?
				     " " : "\n");
	return len;
}

static ssize_t policy_store(int *policy, const char *buf, size_t count)
{
	int i = sysfs_match_string(inplace_policy_names, buf);

	if (i < 0)
		return i;
	/* takes effect at the next fault; existing mappings stay */
	WRITE_ONCE(*policy, i);
	return count;
}

static ssize_t inplace_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct inplace_dev *d = inplace_kobj_dev(kobj);

	return d ? policy_show(&d->policy, buf) : -ENODEV;
}

static ssize_t inplace_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct inplace_dev *d = inplace_kobj_dev(kobj);

	return d ? policy_store(&d->policy, buf, count) : -ENODEV;
}

/*
 * The device's stats/ directory gets one file per in-place counter while
 * map in place runs on it (merged into swap_pmem.c's "stats" group).
 */
enum inplace_stat {
	IS_MAPPED_NOW, IS_MAPS, IS_PROMOTIONS, IS_COPY_AVOIDED_BYTES,
	IS_PTE_MAPPED_NOW, IS_PTE_MAPS, IS_PTE_PROMOTIONS, IS_PTE_MAPS_AROUND,
	IS_SLOT_RECORDS, IS_METADATA_BYTES,
};

static long long inplace_stat(struct inplace_dev *d, enum inplace_stat which)
{
	long maps = atomic_long_read(&d->maps);
	long promotions = atomic_long_read(&d->promotions);
	long pte_maps = atomic_long_read(&d->pte_maps);
	long pte_promotions = atomic_long_read(&d->pte_promotions);

	switch (which) {
	case IS_MAPPED_NOW:
		return atomic_long_read(&d->now);
	case IS_MAPS:
		return maps;
	case IS_PROMOTIONS:
		return promotions;
	case IS_COPY_AVOIDED_BYTES:
		/* mappings never promoted: their copy was never made */
		return (long long)max(maps - promotions, 0L) * HPAGE_PMD_SIZE +
		       (long long)max(pte_maps - pte_promotions, 0L) * PAGE_SIZE;
	case IS_PTE_MAPPED_NOW:
		return atomic_long_read(&d->pte_now);
	case IS_PTE_MAPS:
		return pte_maps;
	case IS_PTE_PROMOTIONS:
		return pte_promotions;
	case IS_PTE_MAPS_AROUND:
		return atomic_long_read(&d->pte_around);
	case IS_SLOT_RECORDS:
		return atomic_long_read(&d->nr_slots);
	case IS_METADATA_BYTES:
		return inplace_dev_bytes(d);
	}
	return 0;
}

#define INPLACE_STAT_ATTR(_name, _which)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct inplace_dev *d = inplace_kobj_dev(kobj);			\
									\
	if (!d)								\
		return -ENODEV;						\
	return sysfs_emit(buf, "%lld\n", inplace_stat(d, _which));	\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

INPLACE_STAT_ATTR(inplace_mapped_now, IS_MAPPED_NOW);
INPLACE_STAT_ATTR(inplace_maps, IS_MAPS);
INPLACE_STAT_ATTR(inplace_promotions, IS_PROMOTIONS);
INPLACE_STAT_ATTR(inplace_copy_avoided_bytes, IS_COPY_AVOIDED_BYTES);
INPLACE_STAT_ATTR(inplace_pte_mapped_now, IS_PTE_MAPPED_NOW);
INPLACE_STAT_ATTR(inplace_pte_maps, IS_PTE_MAPS);
INPLACE_STAT_ATTR(inplace_pte_promotions, IS_PTE_PROMOTIONS);
INPLACE_STAT_ATTR(inplace_pte_maps_around, IS_PTE_MAPS_AROUND);
INPLACE_STAT_ATTR(inplace_slot_records, IS_SLOT_RECORDS);
INPLACE_STAT_ATTR(inplace_metadata_bytes, IS_METADATA_BYTES);

static struct attribute *inplace_stats_attrs[] = {
	&inplace_mapped_now_attr.attr,
	&inplace_maps_attr.attr,
	&inplace_promotions_attr.attr,
	&inplace_copy_avoided_bytes_attr.attr,
	&inplace_pte_mapped_now_attr.attr,
	&inplace_pte_maps_attr.attr,
	&inplace_pte_promotions_attr.attr,
	&inplace_pte_maps_around_attr.attr,
	&inplace_slot_records_attr.attr,
	&inplace_metadata_bytes_attr.attr,
	NULL,
};

static const struct attribute_group inplace_stats_group = {
	.name = "stats",
	.attrs = inplace_stats_attrs,
};

static struct kobj_attribute inplace_attr = __ATTR_RW_MODE(inplace, 0600);

static struct attribute *inplace_dev_attrs[] = {
	&inplace_attr.attr,
	NULL,
};

static const struct attribute_group inplace_dev_group = {
	.attrs = inplace_dev_attrs,
};

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
	d->policy = READ_ONCE(default_policy);
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
	/* the inplace file and its stats/inplace_* counters come together */
	if (sysfs_create_group(&pd->kobj, &inplace_dev_group)) {
		pr_warn("%pg: no inplace file in sysfs\n", si->bdev);
	} else if (sysfs_merge_group(&pd->kobj, &inplace_stats_group)) {
		sysfs_remove_group(&pd->kobj, &inplace_dev_group);
		pr_warn("%pg: no stats/inplace_* files in sysfs\n", si->bdev);
	}
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
	if (pd) {
		sysfs_unmerge_group(&pd->kobj, &inplace_stats_group);
		sysfs_remove_group(&pd->kobj, &inplace_dev_group);
	}
	/* a memory failure notification uses the device under this lock */
	mutex_lock(&pmswap_pmem_lock);
	WRITE_ONCE(inplace_devs[si->type], NULL);
	mtree_erase(&inplace_pfns, d->pfn0);
	mutex_unlock(&pmswap_pmem_lock);
	/* lookups by pfn happen under a page table lock or RCU */
	synchronize_rcu();
	inplace_dev_free(d);
}

/* sysfs: /sys/kernel/mm/pmswap/inplace/ */

static ssize_t inplace_uint_show(const unsigned int *knob, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(*knob));
}

static ssize_t inplace_uint_store(unsigned int *knob, const char *buf,
				  size_t count, unsigned int min,
				  unsigned int max)
{
	unsigned int v;
	int err = kstrtouint(buf, 0, &v);

	if (err)
		return err;
	if (v < min || v > max)
		return -EINVAL;
	WRITE_ONCE(*knob, v);
	return count;
}

static ssize_t default_policy_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	return policy_show(&default_policy, buf);
}

static ssize_t default_policy_store(struct kobject *kobj,
				    struct kobj_attribute *attr,
				    const char *buf, size_t count)
{
	return policy_store(&default_policy, buf, count);
}

static ssize_t promote_interval_ms_show(struct kobject *kobj,
					struct kobj_attribute *attr, char *buf)
{
	return inplace_uint_show(&promote_interval_ms, buf);
}

static ssize_t promote_interval_ms_store(struct kobject *kobj,
					 struct kobj_attribute *attr,
					 const char *buf, size_t count)
{
	unsigned int old = READ_ONCE(promote_interval_ms);
	ssize_t ret = inplace_uint_store(&promote_interval_ms, buf, count,
					 0, 3600 * 1000);

	/* 0 stops the scanner; anything else (re)starts it on that period */
	if (ret > 0 && promote_interval_ms && promote_interval_ms != old)
		mod_delayed_work(system_unbound_wq, &inplace_scan_work,
				 msecs_to_jiffies(promote_interval_ms));
	return ret;
}

static ssize_t promote_threshold_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	return inplace_uint_show(&promote_threshold, buf);
}

static ssize_t promote_threshold_store(struct kobject *kobj,
				       struct kobj_attribute *attr,
				       const char *buf, size_t count)
{
	/* the heat counter is a u8 */
	return inplace_uint_store(&promote_threshold, buf, count, 1, U8_MAX);
}

static ssize_t promote_rate_mb_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	return inplace_uint_show(&promote_rate_mb, buf);
}

static ssize_t promote_rate_mb_store(struct kobject *kobj,
				     struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	return inplace_uint_store(&promote_rate_mb, buf, count, 0, 1 << 20);
}

static ssize_t fault_around_kb_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(fault_around_pages) << (PAGE_SHIFT - 10));
}

/* 0 to PMD size, rounded down to a power of two pages, as fault_around_bytes */
static ssize_t fault_around_kb_store(struct kobject *kobj,
				     struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	unsigned int kb;
	int err = kstrtouint(buf, 0, &kb);

	if (err)
		return err;
	if (kb > HPAGE_PMD_SIZE >> 10)
		return -EINVAL;
	kb >>= PAGE_SHIFT - 10;
	WRITE_ONCE(fault_around_pages, kb ? rounddown_pow_of_two(kb) : 1);
	return count;
}

static struct kobj_attribute default_policy_attr =
	__ATTR_RW_MODE(default_policy, 0644);
static struct kobj_attribute promote_interval_ms_attr =
	__ATTR_RW_MODE(promote_interval_ms, 0644);
static struct kobj_attribute promote_threshold_attr =
	__ATTR_RW_MODE(promote_threshold, 0644);
static struct kobj_attribute promote_rate_mb_attr =
	__ATTR_RW_MODE(promote_rate_mb, 0644);
static struct kobj_attribute fault_around_kb_attr =
	__ATTR_RW_MODE(fault_around_kb, 0644);

static struct attribute *inplace_attrs[] = {
	&default_policy_attr.attr,
	&promote_interval_ms_attr.attr,
	&promote_threshold_attr.attr,
	&promote_rate_mb_attr.attr,
	&fault_around_kb_attr.attr,
	NULL,
};

static const struct attribute_group inplace_group = {
	.name = "inplace",
	.attrs = inplace_attrs,
};

static int __init pmswap_inplace_init(void)
{
	int err;

	inplace_slots_cache = KMEM_CACHE(inplace_slots, 0);
	if (!inplace_slots_cache)
		pr_warn("out of memory: 4 KiB swap slots are never mapped in place\n");
	if (!pmswap_kobj)
		return -ENOMEM;
	err = sysfs_create_group(pmswap_kobj, &inplace_group);
	if (err)
		return err;
	blocking_notifier_chain_register(&pmswap_pmem_failure_chain,
					 &inplace_failure_nb);
	queue_delayed_work(system_unbound_wq, &inplace_scan_work,
			   msecs_to_jiffies(promote_interval_ms));
	return 0;
}
late_initcall(pmswap_inplace_init);
