// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap map in place, PMD level: a fault on a huge swap entry maps its
 * 2 MiB extent of pmem with one special PMD; the PMD reverts to the swap
 * entry when anything needs more than a read through the page table, and
 * a fault on it promotes the extent into a THP in DRAM.
 *
 * Copyright (C) 2026 pmswap developers
 */

#define pr_fmt(fmt) "pmswap: " fmt

#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/vmstat.h>
#include <asm/tlbflush.h>

#include "../internal.h"
#include "../swap.h"
#include "inplace.h"
#include "pmswap.h"
#include "swap_pmem.h"

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
 * pmswap_inplace_pmd_revert_locked - turn an in-place PMD back into its swap entry
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
pmd_t pmswap_inplace_pmd_revert_locked(struct vm_area_struct *vma,
				       unsigned long addr, pmd_t *pmd,
				       bool promote)
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
 * pmswap_inplace_pmd_revert - revert the PMD at @pmd if it maps pmem in place
 * @vma: the VMA
 * @addr: an address in the 2 MiB @pmd maps
 * @pmd: the PMD, not locked
 */
void pmswap_inplace_pmd_revert(struct vm_area_struct *vma, unsigned long addr,
			       pmd_t *pmd)
{
	spinlock_t *ptl = pmd_lock(vma->vm_mm, pmd);

	if (pmd_is_inplace(vma, *pmd))
		pmswap_inplace_pmd_revert_locked(vma, addr, pmd, false);
	spin_unlock(ptl);
}

/**
 * pmswap_inplace_pmd_unuse - for swapoff: revert an in-place PMD of device @type
 * @vma: the VMA
 * @addr: an address in the 2 MiB @pmd maps
 * @pmd: the PMD, not locked
 * @type: the swap device going away
 */
void pmswap_inplace_pmd_unuse(struct vm_area_struct *vma, unsigned long addr,
			      pmd_t *pmd, unsigned int type)
{
	spinlock_t *ptl = pmd_lock(vma->vm_mm, pmd);
	struct inplace_dev *d;

	if (pmd_is_inplace(vma, *pmd)) {
		d = inplace_dev_of_pfn(pmd_pfn(*pmd));
		if (d && d->type == type)
			pmswap_inplace_pmd_revert_locked(vma, addr, pmd, false);
	}
	spin_unlock(ptl);
}

/**
 * pmswap_inplace_pmd_peek - does @pmd map pmem in place? (smaps, mincore)
 * @vma: the VMA
 * @pmd: the PMD, not locked
 */
bool pmswap_inplace_pmd_peek(struct vm_area_struct *vma, pmd_t *pmd)
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
 * pmswap_inplace_pmd_fault - a fault on a PMD that maps pmem in place
 * @vmf: the fault, vmf->orig_pmd the in-place PMD
 *
 * A write to a read-only mapping, an unshare or a kernel fault that wants
 * a page (GUP) needs one the kernel can refcount: revert the mapping to
 * its swap entry and fault the THP into DRAM (a promotion).
 */
vm_fault_t pmswap_inplace_pmd_fault(struct vm_fault *vmf)
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
	entry = pmswap_inplace_pmd_revert_locked(vma, vmf->address, vmf->pmd,
						 true);
	spin_unlock(ptl);
	if (!is_huge_swap_pmd(entry))
		return VM_FAULT_SIGBUS;
	vmf->orig_pmd = entry;
	return do_huge_pmd_swap_page(vmf);
}

/**
 * pmswap_inplace_pmd_try_map - map a huge swap entry's pmem extent in place
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
int pmswap_inplace_pmd_try_map(struct vm_fault *vmf,
			       struct swap_info_struct *si)
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
