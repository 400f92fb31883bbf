// SPDX-License-Identifier: GPL-2.0
/*
 * Huge swap entries: swap a PMD-mapped anonymous THP out as one PMD-level
 * swap entry and fault it back in as one PMD mapping.
 *
 * A huge swap entry is a non-present PMD holding a real swap entry (not a
 * migration entry). It stands for the 512 contiguous swap slots, starting
 * at a 512-aligned offset, that add_to_swap() gave the THP's folio; each of
 * those slots holds one swap count for the entry, exactly as the 512 PTE
 * swap entries it replaces would. So the entry is a compact encoding of
 * 512 PTE swap entries, and splitting it into them is always correct: that
 * is what every path that cannot handle the huge entry does.
 *
 * The page table that the THP had deposited stays deposited while the PMD
 * holds the swap entry, so the entry can be split without allocating.
 *
 * Copyright (C) 2026 pmswap developers
 */

#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/kobject.h>
#include <linux/memcontrol.h>
#include <linux/mm_inline.h>
#include <linux/mmu_notifier.h>
#include <linux/rmap.h>
#include <linux/sched/mm.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/sysfs.h>
#include <linux/userfaultfd_k.h>
#include <linux/zswap.h>
#include <asm/pgalloc.h>
#include <asm/tlbflush.h>

#include "../internal.h"
#include "pmswap.h"
#include "../swap.h"

static bool huge_swap_on __read_mostly = true;

static void huge_swap_add_mmlist(struct mm_struct *mm, struct mm_struct *near)
{
	if (likely(!list_empty(&mm->mmlist)))
		return;
	spin_lock(&mmlist_lock);
	if (list_empty(&mm->mmlist))
		list_add(&mm->mmlist, &near->mmlist);
	spin_unlock(&mmlist_lock);
}

/*
 * Take one more swap count on each of the 512 slots of @entry, or on none:
 * on failure (a count that needs a continuation page) undo and return -1.
 */
static int huge_swap_dup_slots(swp_entry_t entry)
{
	int i;

	for (i = 0; i < HPAGE_PMD_NR; i++) {
		if (swap_duplicate(swp_entry(swp_type(entry),
					     swp_offset(entry) + i)) < 0) {
			if (i)
				swap_free_nr(entry, i);
			return -1;
		}
	}
	return 0;
}

/**
 * huge_swap_try_unmap_pmd - replace a THP's PMD mapping with a huge swap entry
 * @pvmw: the walk of try_to_unmap_one(), at a PMD mapping, PMD lock held
 * @folio: the locked folio being unmapped for swap-out
 *
 * Return: true when the PMD now holds a huge swap entry and the mapping's
 * reference on @folio is gone; false when nothing was changed and the
 * caller must split the PMD as before.
 */
bool huge_swap_try_unmap_pmd(struct page_vma_mapped_walk *pvmw,
			     struct folio *folio)
{
	struct vm_area_struct *vma = pvmw->vma;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long haddr = pvmw->address & HPAGE_PMD_MASK;
	swp_entry_t entry = folio->swap;
	struct page *page = folio_page(folio, 0);
	pmd_t pmdval, swp_pmd;
	bool anon_exclusive;

	if (!READ_ONCE(huge_swap_on) || !folio_test_anon(folio) ||
	    !folio_test_swapbacked(folio) || !folio_test_swapcache(folio) ||
	    !pmd_trans_huge(*pvmw->pmd))
		return false;
	if (folio_nr_pages(folio) != HPAGE_PMD_NR ||
	    !IS_ALIGNED(swp_offset(entry), HPAGE_PMD_NR) ||
	    pmd_page(*pvmw->pmd) != page)
		goto fallback;

	/* One swap count per slot for this mapping, as for 512 PTEs. */
	if (huge_swap_dup_slots(entry))
		goto fallback;

	flush_cache_range(vma, haddr, haddr + HPAGE_PMD_SIZE);
	pmdval = pmdp_invalidate(vma, haddr, pvmw->pmd);
	if (pmd_dirty(pmdval))
		folio_mark_dirty(folio);

	/* See folio_try_share_anon_rmap_pmd(): invalidate the PMD first. */
	anon_exclusive = PageAnonExclusive(page);
	if (anon_exclusive && folio_try_share_anon_rmap_pmd(folio, page)) {
		/* Maybe pinned: keep it mapped, let the caller split. */
		set_pmd_at(mm, haddr, pvmw->pmd, pmdval);
		swap_free_nr(entry, HPAGE_PMD_NR);
		goto fallback;
	}

	huge_swap_add_mmlist(mm, &init_mm);
	update_hiwater_rss(mm);
	add_mm_counter(mm, MM_ANONPAGES, -HPAGE_PMD_NR);
	add_mm_counter(mm, MM_SWAPENTS, HPAGE_PMD_NR);

	swp_pmd = swp_entry_to_pmd(entry);
	if (anon_exclusive)
		swp_pmd = pmd_swp_mkexclusive(swp_pmd);
	if (pmd_soft_dirty(pmdval))
		swp_pmd = pmd_swp_mksoft_dirty(swp_pmd);
	if (pmd_uffd_wp(pmdval))
		swp_pmd = pmd_swp_mkuffd_wp(swp_pmd);
	set_pmd_at(mm, haddr, pvmw->pmd, swp_pmd);

	folio_remove_rmap_pmd(folio, page, vma);
	folio_put(folio);
	count_vm_event(THP_SWPOUT_PMD);
	count_mthp_stat(HPAGE_PMD_ORDER, MTHP_STAT_SWPOUT_PMD);
	return true;

fallback:
	count_vm_event(THP_SWPOUT_PMD_FALLBACK);
	return false;
}

/**
 * huge_swap_split_pmd_locked - turn a huge swap entry into 512 PTE swap entries
 * @vma: the VMA mapping @haddr
 * @pmd: the PMD, locked, holding a huge swap entry
 * @haddr: the 2 MiB-aligned address the PMD maps
 */
void huge_swap_split_pmd_locked(struct vm_area_struct *vma, pmd_t *pmd,
				unsigned long haddr)
{
	struct mm_struct *mm = vma->vm_mm;
	pmd_t old = *pmd, _pmd;
	swp_entry_t entry = pmd_to_swp_entry(old);
	pgtable_t pgtable;
	pte_t *pte;
	int i;

	VM_WARN_ON_ONCE(!is_huge_swap_pmd(old));
	VM_WARN_ON_ONCE(!IS_ALIGNED(haddr, HPAGE_PMD_SIZE));
	lockdep_assert_held(pmd_lockptr(mm, pmd));

	pgtable = pgtable_trans_huge_withdraw(mm, pmd);
	pmd_populate(mm, &_pmd, pgtable);
	pte = pte_offset_map(&_pmd, haddr);
	if (WARN_ON_ONCE(!pte)) {
		/* Cannot happen for a table we just populated: keep the entry. */
		pgtable_trans_huge_deposit(mm, pmd, pgtable);
		return;
	}
	for (i = 0; i < HPAGE_PMD_NR; i++) {
		pte_t e = swp_entry_to_pte(swp_entry(swp_type(entry),
						     swp_offset(entry) + i));

		if (pmd_swp_exclusive(old))
			e = pte_swp_mkexclusive(e);
		if (pmd_swp_soft_dirty(old))
			e = pte_swp_mksoft_dirty(e);
		if (pmd_swp_uffd_wp(old))
			e = pte_swp_mkuffd_wp(e);
		VM_WARN_ON(!pte_none(ptep_get(pte + i)));
		set_pte_at(mm, haddr + i * PAGE_SIZE, pte + i, e);
	}
	pte_unmap(pte);
	/* Make the PTEs visible before the PMD points at them. */
	smp_wmb();
	pmd_populate(mm, pmd, pgtable);
	count_vm_event(THP_SPLIT_SWAP_PMD);
}

/*
 * Split the huge swap entry at @pmd if it is still @orig; unlike
 * split_huge_pmd(), never split a THP that a racing fault mapped meanwhile.
 */
static void huge_swap_split_pmd(struct vm_area_struct *vma, pmd_t *pmd,
				unsigned long haddr, pmd_t orig)
{
	spinlock_t *ptl = pmd_lock(vma->vm_mm, pmd);

	if (pmd_same(*pmd, orig))
		huge_swap_split_pmd_locked(vma, pmd, haddr);
	spin_unlock(ptl);
}

/**
 * huge_swap_zap_entry - drop a huge swap entry that was cleared from its PMD
 * @mm: the mm whose page table held it
 * @orig: the entry
 *
 * The caller frees the deposited page table.
 */
void huge_swap_zap_entry(struct mm_struct *mm, pmd_t orig)
{
	free_swap_and_cache_nr(pmd_to_swp_entry(orig), HPAGE_PMD_NR);
	add_mm_counter(mm, MM_SWAPENTS, -HPAGE_PMD_NR);
}

/**
 * huge_swap_zap_or_split - drop or split the huge swap entry at @pmd
 * @vma: the VMA
 * @pmd: the PMD, unlocked
 * @addr: start of the range being zapped in this PMD
 * @next: end of that range
 *
 * For MADV_FREE and friends: a range covering the whole 2 MiB frees the
 * slots; a partial one splits the entry so the PTE path can do its part.
 *
 * Return: true when the entry was freed.
 */
bool huge_swap_zap_or_split(struct vm_area_struct *vma, pmd_t *pmd,
			    unsigned long addr, unsigned long next)
{
	struct mm_struct *mm = vma->vm_mm;
	spinlock_t *ptl = pmd_lock(mm, pmd);
	pmd_t orig = *pmd;
	bool freed = false;

	if (!is_huge_swap_pmd(orig))
		goto out;
	if (IS_ALIGNED(addr, HPAGE_PMD_SIZE) && next - addr == HPAGE_PMD_SIZE) {
		pmd_clear(pmd);
		huge_swap_zap_entry(mm, orig);
		pte_free(mm, pgtable_trans_huge_withdraw(mm, pmd));
		mm_dec_nr_ptes(mm);
		freed = true;
	} else {
		huge_swap_split_pmd_locked(vma, pmd, addr & HPAGE_PMD_MASK);
	}
out:
	spin_unlock(ptl);
	return freed;
}

/**
 * huge_swap_copy_pmd - fork a huge swap entry
 *
 * Called from copy_huge_pmd() with both PMD locks held and a page table to
 * deposit. Return: 0 when the entry was copied; -EAGAIN when the source
 * entry was split instead (a swap count needs a continuation page, which
 * the PTE path knows how to add); the caller then frees @pgtable and
 * copies the PTEs.
 */
int huge_swap_copy_pmd(struct mm_struct *dst_mm, struct mm_struct *src_mm,
		       pmd_t *dst_pmd, pmd_t *src_pmd, unsigned long addr,
		       struct vm_area_struct *dst_vma,
		       struct vm_area_struct *src_vma, pgtable_t pgtable)
{
	pmd_t pmd = *src_pmd;
	swp_entry_t entry = pmd_to_swp_entry(pmd);

	if (huge_swap_dup_slots(entry)) {
		huge_swap_split_pmd_locked(src_vma, src_pmd,
					   addr & HPAGE_PMD_MASK);
		return -EAGAIN;
	}
	huge_swap_add_mmlist(dst_mm, src_mm);

	/* Both processes share the slots now: neither is exclusive. */
	if (pmd_swp_exclusive(pmd)) {
		pmd = pmd_swp_clear_exclusive(pmd);
		set_pmd_at(src_mm, addr, src_pmd, pmd);
	}
	add_mm_counter(dst_mm, MM_SWAPENTS, HPAGE_PMD_NR);
	mm_inc_nr_ptes(dst_mm);
	pgtable_trans_huge_deposit(dst_mm, dst_pmd, pgtable);
	if (!userfaultfd_wp(dst_vma))
		pmd = pmd_swp_clear_uffd_wp(pmd);
	set_pmd_at(dst_mm, addr, dst_pmd, pmd);
	return 0;
}

/*
 * Whether a fault may bring the entry back as one THP. Everything else
 * splits the entry and lets do_swap_page() handle 4 KiB at a time.
 */
static bool huge_swap_can_swapin(struct vm_area_struct *vma,
				 unsigned long haddr)
{
	if (!READ_ONCE(huge_swap_on))
		return false;
	if (userfaultfd_armed(vma))
		return false;
	if (haddr < vma->vm_start || haddr + HPAGE_PMD_SIZE > vma->vm_end)
		return false;
	return thp_vma_allowable_order(vma, vma->vm_flags,
				       TVA_IN_PF | TVA_ENFORCE_SYSFS,
				       HPAGE_PMD_ORDER);
}

/*
 * Has a slot of @entry been cached on its own (the 512 slots' states have
 * diverged)? The whole THP in the swap cache under @entry is no
 * divergence: MADV_WILLNEED or a sharer's fault is reading it, or has read
 * it, and a retried fault maps it.
 */
static bool huge_swap_cache_diverged(swp_entry_t entry)
{
	struct folio *folio;
	bool whole;
	int i;

	for (i = 0; i < HPAGE_PMD_NR; i++) {
		swp_entry_t e = swp_entry(swp_type(entry), swp_offset(entry) + i);

		folio = filemap_get_folio(swap_address_space(e),
					  swap_cache_index(e));
		if (!IS_ERR(folio)) {
			whole = folio_nr_pages(folio) == HPAGE_PMD_NR &&
				folio->swap.val == entry.val;
			folio_put(folio);
			return !whole;
		}
	}
	return false;
}

/*
 * Does another page table (a fork sharer) or a swap cache reference hold
 * any of the 512 slots? Read racily, as do_swap_page() reads
 * __swap_count(): a stale answer only chooses the other way to read.
 */
static bool huge_swap_shared(struct swap_info_struct *si, swp_entry_t entry)
{
	unsigned long off = swp_offset(entry);
	int i;

	for (i = 0; i < HPAGE_PMD_NR; i++)
		/* racy read: see above */
		if ((data_race(si->swap_map[off + i]) & ~SWAP_HAS_CACHE) != 1)
			return true;
	return false;
}

/*
 * Would reading 2 MiB take the faulting task's memcg (or an ancestor) over
 * memory.high or memory.max? Then the whole-THP read would push 2 MiB of
 * other memory out for what may be one 4 KiB access: under memcg pressure
 * with scattered accesses that amplification turns into thrashing (seen
 * in the benchmarks: 512 pages in and out per touched page). Read only
 * the faulting page instead. A folio already in the swap cache costs no
 * I/O and is still mapped whole.
 */
bool huge_swap_memcg_tight(struct mm_struct *mm)
{
#ifdef CONFIG_MEMCG
	struct mem_cgroup *memcg, *iter;
	bool tight = false;

	if (mem_cgroup_disabled())
		return false;
	memcg = get_mem_cgroup_from_mm(mm);
	rcu_read_lock();
	for (iter = memcg; iter && !mem_cgroup_is_root(iter);
	     iter = parent_mem_cgroup(iter)) {
		unsigned long want = page_counter_read(&iter->memory) +
				     HPAGE_PMD_NR;

		if (want > READ_ONCE(iter->memory.high) ||
		    want > READ_ONCE(iter->memory.max)) {
			tight = true;
			break;
		}
	}
	rcu_read_unlock();
	mem_cgroup_put(memcg);
	return tight;
#else
	return false;
#endif
}

/*
 * Does the fault at @haddr continue a sequential run of huge swap faults
 * in @vma? Under memcg pressure a whole-THP read pays for itself when the
 * rest of the 2 MiB is used next, as in a scan, and not for scattered
 * accesses (see huge_swap_memcg_tight()). Like swap readahead, which
 * judges by the last fault of the VMA (swap_vma_ra_win()), this keeps the
 * last huge swap fault in vma->swap_readahead_info: its 2 MiB-aligned
 * address, and in bit 0 whether it was part of a run; only for faults
 * that would read from a synchronous device. Swap readahead writes that
 * word too (swap_cache_get_folio(), swap_vma_readahead(), also for a
 * synchronous device when a slot is shared); either reading
 * the other's value only makes one guess worse: readahead restarts with
 * a small window, and this may take a 4 KiB fault next door for a run.
 * A fault on the PMD next to the last one, either side, continues a run;
 * a fault on the same PMD again (a retry) keeps the last answer. Only a
 * guess: a stride of 2 MiB that touches one page per THP passes for a
 * run, and two threads scanning different parts of the VMA break each
 * other's runs (both only cost time, never correctness).
 */
static bool huge_swap_sequential(struct vm_area_struct *vma,
				 unsigned long haddr)
{
	unsigned long last = atomic_long_read(&vma->swap_readahead_info);
	unsigned long prev = last & HPAGE_PMD_MASK;
	bool seq;

	if (prev == haddr)
		seq = last & 1;
	else
		seq = last && (prev + HPAGE_PMD_SIZE == haddr ||
			       haddr + HPAGE_PMD_SIZE == prev);
	atomic_long_set(&vma->swap_readahead_info, haddr | seq);
	return seq;
}

/*
 * Were all 512 pages of @entry zero at swap-out? Then they sit in the
 * device's zeromap, nothing of them is on the device, and the THP comes
 * back by clearing 2 MiB. Racy like the zeromap reads of do_swap_page():
 * while the PMD holds the entry the bits do not change, but a racing
 * zap can free the slots and a swap-out reuse them; the fault checks the
 * bits again once it has claimed the slots (huge_swap_claim()).
 */
static bool huge_swap_zero(swp_entry_t entry)
{
	bool zero;

	return swap_zeromap_batch(entry, HPAGE_PMD_NR, &zero) ==
	       HPAGE_PMD_NR && zero;
}

/*
 * A PMD-size folio to read @entry's 512 slots into, for the fault and for
 * MADV_WILLNEED; NULL when the THP should not come back whole from here:
 * the memcg has no room for it and the fault may not reclaim for it
 * (@seq: it continues a sequential run, or its slots were all zero), or
 * the slots are not all on the device. Then the charge
 * reclaims what the THP needs when the THP gfp allows direct reclaim
 * (defrag "always", or "madvise" on a MADV_HUGEPAGE VMA), as a THP
 * fault's charge does; otherwise, or if reclaim fails, the caller
 * splits. swap_read_folio() cannot fill a large folio from zswap,
 * nor from slots that are partly zero-mapped: those go the 4 KiB way, as
 * alloc_swap_folio() leaves them.
 */
static struct folio *huge_swap_alloc_folio(struct vm_area_struct *vma,
					   unsigned long haddr,
					   swp_entry_t entry, bool seq)
{
	if ((!seq && huge_swap_memcg_tight(vma->vm_mm)) ||
	    !zswap_never_enabled() ||
	    swap_zeromap_batch(entry, HPAGE_PMD_NR, NULL) != HPAGE_PMD_NR)
		return NULL;
	return vma_alloc_folio(vma_thp_gfp_mask(vma), HPAGE_PMD_ORDER, vma,
			       haddr, true);
}

/*
 * Claim @entry's 512 slots for a read into one PMD-size folio, all or
 * nothing, as do_swap_page() claims a large folio, so that a parallel
 * swap-in cannot free and reuse them. Return: 0 when claimed; -EEXIST
 * when a slot is in the swap cache or being read into it (or was freed);
 * -EAGAIN, with nothing claimed, when the slots' zeromap bits are no
 * longer all alike. They were when huge_swap_alloc_folio() looked, but
 * the charge that followed may have reclaimed for a while, and a zap
 * racing with it can free the slots and a swap-out reuse them; once
 * claimed, the bits cannot change. swap_read_folio() would warn about a
 * large folio that is partly zero-mapped, and read nothing into it: the
 * caller splits instead.
 */
static int huge_swap_claim(struct swap_info_struct *si, swp_entry_t entry)
{
	if (swapcache_prepare(entry, HPAGE_PMD_NR))
		return -EEXIST;
	if (swap_zeromap_batch(entry, HPAGE_PMD_NR, NULL) != HPAGE_PMD_NR) {
		swapcache_clear(si, entry, HPAGE_PMD_NR);
		return -EAGAIN;
	}
	return 0;
}

/*
 * Read @entry's 512 slots into a new PMD-size folio and add it to the swap
 * cache, in the state a THP has after swap-out: anonymous, in the swap
 * cache, mapped nowhere. Every path that can meet a swap cache folio - the
 * PMD fault, the 4 KiB fault after a split, swapoff, a sharer's fault -
 * handles that state; a large folio that is not anonymous yet would be
 * handled by none of them but the PMD fault.
 *
 * For MADV_WILLNEED, and for a fault on slots that a fork sharer also
 * holds, which must be read once, through the swap cache, as
 * do_swap_page() reads them. Only on a synchronous device: the read is
 * over when swap_read_folio() returns, so it is done before the folio is
 * added, and a read that failed (a bad block, an I/O error) leaves nothing
 * behind for later faults to meet.
 *
 * Return: the folio, referenced, unlocked and uptodate; NULL when the THP
 * cannot come back whole from here (no memcg headroom, no THP, zswap or
 * zero-mapped slots, no anon_vma, a failed read); ERR_PTR(-EEXIST) when a
 * slot is in the swap cache or being read into it.
 */
static struct folio *huge_swap_read_cached(struct swap_info_struct *si,
					   struct vm_area_struct *vma,
					   unsigned long haddr,
					   swp_entry_t entry, bool seq)
{
	gfp_t gfp = vma_thp_gfp_mask(vma);
	struct folio *folio;
	void *shadow = NULL;
	int err;

	/* racy like do_swap_page(): a stale flag only costs a split */
	if (!vma->anon_vma || !(data_race(si->flags) & SWP_SYNCHRONOUS_IO))
		return NULL;
	folio = huge_swap_alloc_folio(vma, haddr, entry, seq);
	if (!folio)
		return NULL;
	if (mem_cgroup_swapin_charge_folio(folio, vma->vm_mm, gfp, entry)) {
		folio_put(folio);
		return NULL;
	}
	err = huge_swap_claim(si, entry);
	if (err) {
		folio_put(folio);
		return err == -EEXIST ? ERR_PTR(err) : NULL;
	}
	__folio_set_locked(folio);
	__folio_set_swapbacked(folio);
	/* To provide the entry to swap_read_folio(), which unlocks the folio */
	folio->swap = entry;
	swap_read_folio(folio, NULL);
	folio->private = NULL;
	if (!folio_test_uptodate(folio))
		goto fail;

	folio_lock(folio);
	if (add_to_swap_cache(folio, entry, gfp & GFP_RECLAIM_MASK, &shadow)) {
		folio_unlock(folio);
		goto fail;
	}
	/* the swap cache holds the claim (SWAP_HAS_CACHE) from now on */
	mem_cgroup_swapin_uncharge_swap(entry, HPAGE_PMD_NR);
	if (shadow)
		workingset_refault(folio, shadow);
	folio_set_anon_swapcache(folio, vma, haddr);
	folio_add_lru(folio);
	folio_unlock(folio);
	return folio;

fail:
	swapcache_clear(si, entry, HPAGE_PMD_NR);
	folio_put(folio);
	return NULL;
}

/**
 * huge_swap_willneed - MADV_WILLNEED on a PMD
 * @vma: the VMA
 * @haddr: the 2 MiB-aligned address the PMD maps
 * @pmd: the PMD, not locked
 *
 * A huge swap entry is read into the swap cache as one THP, where its
 * fault finds it and maps it with a PMD. pmem mapped in place is reverted
 * to its swap entry and read the same way: the caller said it will use
 * the memory soon, and wants it in DRAM. Nothing is read when the THP is
 * cached already, when its fault would not bring it back whole, when the
 * memcg has no room for it, or from an asynchronous device.
 *
 * Return: true if @pmd held a huge swap entry or an in-place mapping,
 * which have no page table for the caller to walk.
 */
bool huge_swap_willneed(struct vm_area_struct *vma, unsigned long haddr,
			pmd_t *pmd)
{
	pmd_t orig = pmdp_get_lockless(pmd);
	struct swap_info_struct *si;
	struct folio *folio;
	swp_entry_t entry;

	if (pmd_is_inplace(vma, orig)) {
		if (!huge_swap_can_swapin(vma, haddr) ||
		    huge_swap_memcg_tight(vma->vm_mm))
			return true;
		pmswap_inplace_pmd_revert(vma, haddr, pmd);
		orig = pmdp_get_lockless(pmd);
	}
	if (!is_huge_swap_pmd(orig))
		return false;
	if (!huge_swap_can_swapin(vma, haddr))
		return true;
	entry = pmd_to_swp_entry(orig);
	si = get_swap_device(entry);
	if (!si)
		return true;
	folio = swap_cache_get_folio(entry, vma, haddr);
	if (!folio)
		folio = huge_swap_read_cached(si, vma, haddr, entry, false);
	if (!IS_ERR_OR_NULL(folio))
		folio_put(folio);
	put_swap_device(si);
	return true;
}

/**
 * do_huge_pmd_swap_page - fault on a huge swap entry
 * @vmf: the fault; vmf->orig_pmd holds the entry
 *
 * Bring the whole THP back with one fault: from the swap cache when the
 * folio is still there, otherwise read as one PMD-sized folio from a
 * synchronous swap device. Where that cannot be done the entry is split
 * into 512 PTE swap entries and the fault is retried.
 */
vm_fault_t do_huge_pmd_swap_page(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long haddr = vmf->address & HPAGE_PMD_MASK;
	pmd_t orig = vmf->orig_pmd;
	swp_entry_t entry = pmd_to_swp_entry(orig);
	struct folio *folio, *swapcache;
	struct swap_info_struct *si;
	bool need_clear_cache = false;
	rmap_t rmap_flags = RMAP_NONE;
	bool exclusive, seq;
	vm_fault_t ret = 0;
	int err;
	void *shadow;
	pmd_t pmd;

	if (!huge_swap_can_swapin(vma, haddr))
		goto split;

	/* Prevent swapoff from happening to us. */
	si = get_swap_device(entry);
	if (unlikely(!si))
		return 0;

	folio = swap_cache_get_folio(entry, vma, haddr);
	swapcache = folio;
	if (folio) {
		/*
		 * The THP itself, left there by swap-out or read by
		 * MADV_WILLNEED or a sharer's fault; anything else means
		 * the slots' states have diverged.
		 */
		if (folio_nr_pages(folio) != HPAGE_PMD_NR ||
		    folio->swap.val != entry.val ||
		    folio_test_has_hwpoisoned(folio)) {
			folio_put(folio);
			goto split_put;
		}
	} else {
		/* On pmem the extent may simply be mapped where it is. */
		int mapped = pmswap_inplace_pmd_try_map(vmf, si);

		if (mapped == -EBUSY)
			goto busy;
		if (mapped) {
			put_swap_device(si);
			return 0;
		}
		/* Racy like do_swap_page(): a stale flag only costs a split. */
		if (!(data_race(si->flags) & SWP_SYNCHRONOUS_IO))
			goto split_put;
		/*
		 * Only copying devices follow runs. On one that maps in
		 * place, a fault that gets here (mostly a write, or a
		 * promotion) copies the whole THP only with headroom; without
		 * it the entry splits, the faulting page is copied and the
		 * rest stays on pmem for the 4 KiB faults to map in place.
		 */
		seq = !pmswap_inplace_active(si) &&
		      huge_swap_sequential(vma, haddr);
		/*
		 * Slots that were all zero hold nothing to copy or to map in
		 * place: the fault is a first touch of THP memory and charges
		 * as a THP fault does, reclaiming for it, under every policy.
		 * Split, the 512 pages would come back one zero-filled 4 KiB
		 * fault at a time, and under pressure never as a THP again.
		 */
		if (!seq)
			seq = huge_swap_zero(entry);
		if (!(vmf->flags & (FAULT_FLAG_WRITE | FAULT_FLAG_UNSHARE)) &&
		    huge_swap_shared(si, entry)) {
			/*
			 * A fork sharer holds the slots too: read them once,
			 * through the swap cache, where its fault finds the
			 * same THP (do_swap_page() reads shared slots so).
			 * A write wants a private copy anyway: it reads into
			 * one directly, which keeps the THP whole where
			 * mapping the shared folio would split it at the
			 * write's copy-on-write.
			 */
			folio = huge_swap_read_cached(si, vma, haddr, entry,
						      seq);
			if (IS_ERR(folio))
				goto busy;
			if (!folio)
				goto split_put;
			swapcache = folio;
			goto read_done;
		}
		folio = huge_swap_alloc_folio(vma, haddr, entry, seq);
		if (!folio)
			goto split_put;
		if (mem_cgroup_swapin_charge_folio(folio, mm,
						   vma_thp_gfp_mask(vma), entry)) {
			folio_put(folio);
			goto split_put;
		}
		__folio_set_locked(folio);
		__folio_set_swapbacked(folio);
		err = huge_swap_claim(si, entry);
		if (err) {
			folio_unlock(folio);
			folio_put(folio);
			if (err == -EEXIST)
				goto busy;
			goto split_put;
		}
		need_clear_cache = true;
		mem_cgroup_swapin_uncharge_swap(entry, HPAGE_PMD_NR);
		shadow = get_shadow_from_swap_cache(entry);
		if (shadow)
			workingset_refault(folio, shadow);
		folio_add_lru(folio);
		/* To provide the entry to swap_read_folio() */
		folio->swap = entry;
		swap_read_folio(folio, NULL);
		folio->private = NULL;
		/*
		 * The read is over (a synchronous device). If it failed, one
		 * bad 4 KiB slot must not cost the other 511 pages: split,
		 * and let do_swap_page() read them one at a time, so that
		 * only the bad page's own fault fails.
		 */
		if (!folio_test_uptodate(folio)) {
			folio_put(folio);
			swapcache_clear(si, entry, HPAGE_PMD_NR);
			goto split_put;
		}
read_done:
		ret = VM_FAULT_MAJOR;
		count_vm_event(PGMAJFAULT);
		count_memcg_event_mm(mm, PGMAJFAULT);
	}

	/* The read of a fresh folio unlocks it when the I/O completes. */
	ret |= folio_lock_or_retry(folio, vmf);
	if (ret & VM_FAULT_RETRY)
		goto out_release;
	if (swapcache) {
		/* folio_free_swap() or swapoff may have released it. */
		if (unlikely(!folio_test_swapcache(folio) ||
			     folio->swap.val != entry.val))
			goto out_page;
		if ((vmf->flags & FAULT_FLAG_WRITE) && !folio_test_lru(folio))
			lru_add_drain();
	}

	vmf->ptl = pmd_lock(mm, vmf->pmd);
	if (unlikely(!pmd_same(*vmf->pmd, orig)))
		goto out_nomap;
	if (unlikely(!folio_test_uptodate(folio))) {
		ret = VM_FAULT_SIGBUS;
		goto out_nomap;
	}

	VM_WARN_ON_FOLIO(folio_test_anon(folio) &&
			 PageAnonExclusive(folio_page(folio, 0)), folio);
	if (folio != swapcache) {
		/* A fresh folio nobody else can see. */
		exclusive = true;
	} else {
		exclusive = pmd_swp_exclusive(orig);
		/*
		 * See do_swap_page(): no exclusive page under writeback on
		 * a backend that needs stable pages; the flag is read racily.
		 */
		if (exclusive && folio_test_writeback(folio) &&
		    data_race(si->flags & SWP_STABLE_WRITES)) /* racy read */
			exclusive = false;
	}

	arch_swap_restore(entry, folio);
	swap_free_nr(entry, HPAGE_PMD_NR);
	if (should_try_to_free_swap(folio, vma, vmf->flags))
		folio_free_swap(folio);

	add_mm_counter(mm, MM_ANONPAGES, HPAGE_PMD_NR);
	add_mm_counter(mm, MM_SWAPENTS, -HPAGE_PMD_NR);
	pmd = mk_huge_pmd(folio_page(folio, 0), vma->vm_page_prot);
	if (pmd_swp_soft_dirty(orig))
		pmd = pmd_mksoft_dirty(pmd);
	if (exclusive || folio_ref_count(folio) == 1) {
		if ((vma->vm_flags & VM_WRITE) &&
		    !(vma_soft_dirty_enabled(vma) && !pmd_soft_dirty(pmd))) {
			pmd = pmd_mkwrite(pmd, vma);
			if (vmf->flags & FAULT_FLAG_WRITE)
				pmd = pmd_mkdirty(pmd);
		}
		rmap_flags |= RMAP_EXCLUSIVE;
	}
	/* Our folio reference becomes the PMD mapping's. */
	if (folio != swapcache || !folio_test_anon(folio))
		folio_add_new_anon_rmap(folio, vma, haddr, rmap_flags);
	else
		folio_add_anon_rmap_pmd(folio, folio_page(folio, 0), vma,
					haddr, rmap_flags);
	set_pmd_at(mm, haddr, vmf->pmd, pmd);
	update_mmu_cache_pmd(vma, vmf->address, vmf->pmd);
	spin_unlock(vmf->ptl);
	folio_unlock(folio);

	count_vm_event(THP_SWPIN_PMD);
	count_mthp_stat(HPAGE_PMD_ORDER, MTHP_STAT_SWPIN_PMD);
	if (need_clear_cache)
		swapcache_clear(si, entry, HPAGE_PMD_NR);
	put_swap_device(si);
	return ret;

out_nomap:
	spin_unlock(vmf->ptl);
out_page:
	folio_unlock(folio);
out_release:
	folio_put(folio);
	if (need_clear_cache)
		swapcache_clear(si, entry, HPAGE_PMD_NR);
	put_swap_device(si);
	return ret;

busy:
	/*
	 * A slot cached on its own (the slots' states have diverged): split.
	 * Otherwise another fault or MADV_WILLNEED is reading the same entry:
	 * let it finish, and retry.
	 */
	if (huge_swap_cache_diverged(entry))
		goto split_put;
	put_swap_device(si);
	schedule_timeout_uninterruptible(1);
	return 0;

split_put:
	put_swap_device(si);
split:
	count_vm_event(THP_SWPIN_PMD_FALLBACK);
	count_mthp_stat(HPAGE_PMD_ORDER, MTHP_STAT_SWPIN_PMD_FALLBACK);
	huge_swap_split_pmd(vma, vmf->pmd, haddr, orig);
	return 0;
}

#ifdef CONFIG_USERFAULTFD
/* Is any of @entry's 512 slots in the swap cache, or being read into it? */
static bool huge_swap_cached(struct swap_info_struct *si, swp_entry_t entry)
{
	unsigned long off = swp_offset(entry);
	int i;

	for (i = 0; i < HPAGE_PMD_NR; i++)
		if (READ_ONCE(si->swap_map[off + i]) & SWAP_HAS_CACHE)
			return true;
	return false;
}

/**
 * huge_swap_move_pmd - UFFDIO_MOVE of a huge swap entry, whole
 * @mm: the mm of both VMAs
 * @dst_pmd: the destination PMD, empty when looked at
 * @src_pmd: the source PMD, holding a huge swap entry when looked at
 * @dst_vma: the destination VMA
 * @src_vma: the source VMA
 * @dst_addr: the 2 MiB-aligned destination address
 * @src_addr: the 2 MiB-aligned source address
 *
 * Move the entry and its deposited page table as move_pages_huge_pmd()
 * moves a THP, so the THP comes back whole at its new address. Like
 * move_swap_pte(), only an exclusive entry moves, and only while none of
 * its slots is in the swap cache (a cached folio's rmap would still name
 * the source).
 *
 * Return: 0 when moved; -EAGAIN when a PMD changed under us (retry);
 * -EBUSY when the entry cannot move whole (the caller splits it and
 * moves its PTE entries).
 */
int huge_swap_move_pmd(struct mm_struct *mm, pmd_t *dst_pmd, pmd_t *src_pmd,
		       struct vm_area_struct *dst_vma,
		       struct vm_area_struct *src_vma,
		       unsigned long dst_addr, unsigned long src_addr)
{
	pmd_t orig = pmdp_get_lockless(src_pmd), pmd;
	struct mmu_notifier_range range;
	struct swap_info_struct *si;
	spinlock_t *src_ptl, *dst_ptl;
	pgtable_t pgtable;
	swp_entry_t entry;
	int err = 0;

	if (!is_huge_swap_pmd(orig))
		return -EAGAIN;
	if (!pmd_swp_exclusive(orig))
		return -EBUSY;
	entry = pmd_to_swp_entry(orig);
	si = get_swap_device(entry);
	if (!si)
		return -EAGAIN;

	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, mm, src_addr,
				src_addr + HPAGE_PMD_SIZE);
	mmu_notifier_invalidate_range_start(&range);
	src_ptl = pmd_lockptr(mm, src_pmd);
	dst_ptl = pmd_lockptr(mm, dst_pmd);
	double_pt_lock(src_ptl, dst_ptl);
	if (!pmd_same(*src_pmd, orig) || !pmd_none(*dst_pmd)) {
		err = -EAGAIN;
	} else if (huge_swap_cached(si, entry)) {
		err = -EBUSY;
	} else {
		pmd = pmdp_huge_get_and_clear(mm, src_addr, src_pmd);
		pgtable = pgtable_trans_huge_withdraw(mm, src_pmd);
		pgtable_trans_huge_deposit(mm, dst_pmd, pgtable);
		set_pmd_at(mm, dst_addr, dst_pmd, pmd);
	}
	double_pt_unlock(src_ptl, dst_ptl);
	mmu_notifier_invalidate_range_end(&range);
	put_swap_device(si);
	return err;
}
#endif

/**
 * huge_swap_unuse_pmd - swapoff meets a huge swap entry of the device going
 * @vma: the VMA, its mmap lock held for reading
 * @pmd: the PMD, not locked
 * @addr: an address in the 2 MiB @pmd maps
 * @type: the swap device being turned off
 *
 * Bring the THP back whole where the fault would (no retry: swapoff holds
 * the mmap lock), else split the entry into PTE swap entries for
 * unuse_pte_range(). Both act only while the PMD still holds the entry
 * read here: the owner may have faulted it in, discarded it or split it
 * meanwhile, and swapoff must not fault anything into a PMD that no
 * longer holds its swap entry (handle_mm_fault() would fill an empty one
 * with a new THP, or call the userfaultfd handler).
 */
void huge_swap_unuse_pmd(struct vm_area_struct *vma, pmd_t *pmd,
			 unsigned long addr, unsigned int type)
{
	unsigned long haddr = addr & HPAGE_PMD_MASK;
	struct vm_fault vmf = {
		.vma = vma,
		.address = haddr,
		.real_address = haddr,
		.pmd = pmd,
		.pgoff = linear_page_index(vma, haddr),
		.flags = FAULT_FLAG_REMOTE,
	};

	vmf.orig_pmd = pmdp_get_lockless(pmd);
	if (!is_huge_swap_pmd(vmf.orig_pmd) ||
	    swp_type(pmd_to_swp_entry(vmf.orig_pmd)) != type)
		return;
	pmswap_race_window(PMSWAP_RACE_UNUSE_PMD);
	do_huge_pmd_swap_page(&vmf);
	huge_swap_split_pmd(vma, pmd, haddr, vmf.orig_pmd);
}

#ifdef CONFIG_SYSFS
static ssize_t huge_swap_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return pmswap_show_bool(&huge_swap_on, buf);
}

static ssize_t huge_swap_store(struct kobject *kobj,
			       struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	return pmswap_store_bool(&huge_swap_on, buf, count);
}

static struct kobj_attribute huge_swap_attr = __ATTR_RW(huge_swap);

static struct attribute *pmswap_attrs[] = {
	&huge_swap_attr.attr,
	NULL,
};

static const struct attribute_group pmswap_attr_group = {
	.attrs = pmswap_attrs,
};

static int __init huge_swap_sysfs_init(void)
{
	if (!pmswap_kobj)
		return -ENOMEM;
	return sysfs_create_group(pmswap_kobj, &pmswap_attr_group);
}
subsys_initcall(huge_swap_sysfs_init);
#endif
