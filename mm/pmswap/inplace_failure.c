// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap map in place, memory failure and namespace removal: when the
 * pmem backend finds slots bad (a memory failure), or all of a device's
 * slots going (its namespace is about to be removed), every mapping of
 * those slots in place is reverted to its swap entry, so that the next
 * access faults, finds the slot bad, and gets SIGBUS or reads the data
 * through the block driver.
 *
 * Copyright (C) 2026 pmswap developers
 */

#define pr_fmt(fmt) "pmswap: " fmt

#include <linux/mm.h>
#include <linux/notifier.h>
#include <linux/pagewalk.h>
#include <linux/pgtable.h>
#include <linux/swap.h>

#include "inplace.h"
#include "pmswap.h"
#include "swap_pmem.h"

/* Revert the mappings of slots @first..@last of @dev. */
struct inplace_failure_walk {
	struct inplace_dev *dev;
	unsigned long first, last;
};

#ifdef CONFIG_PMSWAP_INPLACE_PTE
/* The 4 KiB slots of one page table. */
static int inplace_failure_ptes(pmd_t *pmd, unsigned long addr,
				unsigned long end, struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct inplace_failure_walk *w = walk->private;
	struct inplace_dev *d = NULL;
	pte_t *start, *ptep, pte;
	unsigned long off;
	spinlock_t *ptl;	/* the page table's */

	if (!vma_is_anonymous(vma))
		return 0;
	start = pte_offset_map_lock(vma->vm_mm, pmd, addr, &ptl);
	if (!start)
		return 0;
	for (ptep = start; addr != end; ptep++, addr += PAGE_SIZE) {
		pte = ptep_get(ptep);
		if (!pte_is_inplace(vma, pte))
			continue;
		d = inplace_dev_of_pte(d, pte);
		if (!d)
			continue;
		off = pte_pfn(pte) - d->pfn0;
		if (d == w->dev && off >= w->first && off <= w->last)
			inplace_pte_revert(d, vma, addr, ptep, 0);
	}
	pte_unmap_unlock(start, ptl);
	return 0;
}
#else
static int inplace_failure_ptes(pmd_t *pmd, unsigned long addr,
				unsigned long end, struct mm_walk *walk)
{
	return 0;
}
#endif

static int inplace_failure_pmd(pmd_t *pmd, unsigned long addr,
			       unsigned long next, struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct inplace_failure_walk *w = walk->private;
	spinlock_t *ptl = pmd_lockptr(vma->vm_mm, pmd);
	struct inplace_dev *d;
	unsigned long off;

	/*
	 * Take the lock even when the PMD looks like no mapping: a fault
	 * that checked the device before the walk began installs its
	 * mapping under this lock, and rechecks the device there, so either
	 * this walk finds the mapping or the fault sees the device's new
	 * state.
	 */
	spin_lock(ptl);
	if (!pmd_is_inplace(vma, *pmd)) {
		spin_unlock(ptl);
		return inplace_failure_ptes(pmd, addr, next, walk);
	}
	d = inplace_dev_of_pfn(pmd_pfn(*pmd));
	off = d ? pmd_pfn(*pmd) - d->pfn0 : 0;
	if (d && d == w->dev && off <= w->last &&
	    off + HPAGE_PMD_NR > w->first)
		pmswap_inplace_pmd_revert_locked(vma, addr & HPAGE_PMD_MASK, pmd,
						 false);
	spin_unlock(ptl);
	return 0;
}

static const struct mm_walk_ops inplace_failure_ops = {
	.pmd_entry = inplace_failure_pmd,
	.walk_lock = PGWALK_RDLOCK,
};

static int inplace_failure(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	struct pmswap_pmem_failure *f = data;
	struct inplace_failure_walk w = {
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
		inplace_walk_mms(&inplace_failure_ops, &w, true);
	return NOTIFY_OK;
}

static struct notifier_block inplace_failure_nb = {
	.notifier_call = inplace_failure,
};

void __init inplace_failure_init(void)
{
	blocking_notifier_chain_register(&pmswap_pmem_failure_chain,
					 &inplace_failure_nb);
}
