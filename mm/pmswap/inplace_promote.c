// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap map in place, the promotion scanner: hot extents and slots go
 * back into DRAM.
 *
 * Every promote_interval_ms it walks the mms that use swap, clears the
 * accessed bit of each in-place PMD and PTE, and promotes an extent or
 * slot found accessed promote_threshold scans in a row, at most
 * promote_rate_mb MiB per second, and only while free DRAM is above the
 * reserves, the owner's memcg has headroom and reclaim did not run during
 * the last interval. Its knobs are in /sys/kernel/mm/pmswap/inplace.
 *
 * Copyright (C) 2026 pmswap developers
 */

#define pr_fmt(fmt) "pmswap: " fmt

#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/pagewalk.h>
#include <linux/pgtable.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/sysfs.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include <asm/tlbflush.h>

#include "../internal.h"
#include "inplace.h"
#include "pmswap.h"

static unsigned int promote_interval_ms __read_mostly = 1000;
static unsigned int promote_threshold __read_mostly = 3;
static unsigned int promote_rate_mb __read_mostly = 64;

static void inplace_scan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(inplace_scan_work, inplace_scan_fn);

/* One pass of the scanner. */
struct inplace_scan {
	/* pages it may still promote in this pass */
	long budget;
	/* reclaim ran since the last pass, promote nothing */
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
/* The scanner for the 4 KiB slots of one page table. */
static int inplace_scan_ptes(pmd_t *pmd, unsigned long addr,
			     unsigned long end, struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct inplace_scan *w = walk->private;
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

	if (!vma_is_anonymous(vma) || !atomic_long_read(&inplace_pte_pages))
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
static int inplace_scan_ptes(pmd_t *pmd, unsigned long addr,
			     unsigned long end, struct mm_walk *walk)
{
	return 0;
}
#endif

static int inplace_scan_pmd(pmd_t *pmd, unsigned long addr,
			    unsigned long next, struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct inplace_scan *w = walk->private;
	unsigned long haddr = addr & HPAGE_PMD_MASK;
	bool promote = false;
	spinlock_t *ptl = pmd_lockptr(vma->vm_mm, pmd);
	struct inplace_dev *d;
	unsigned long pfn, ext;
	u8 heat;

	/* may miss a mapping being made: the next pass finds it */
	if (!pmd_is_inplace(vma, pmdp_get_lockless(pmd)))
		return inplace_scan_ptes(pmd, addr, next, walk);
	spin_lock(ptl);
	if (!pmd_is_inplace(vma, *pmd)) {
		spin_unlock(ptl);
		return inplace_scan_ptes(pmd, addr, next, walk);
	}
	pfn = pmd_pfn(*pmd);
	d = inplace_dev_of_pfn(pfn);
	if (!d)
		goto unlock;
	ext = inplace_extent(d, pfn);
	heat = READ_ONCE(d->heat[ext]);
	if (pmdp_clear_flush_young(vma, haddr, pmd))
		heat = min_t(unsigned int, heat + 1, U8_MAX);
	else
		heat = 0;
	WRITE_ONCE(d->heat[ext], heat);
	if (heat >= READ_ONCE(promote_threshold) && w->budget > 0 &&
	    !w->pressure && inplace_dram_free() &&
	    !huge_swap_memcg_tight(vma->vm_mm)) {
		pmswap_inplace_pmd_revert_locked(vma, haddr, pmd, true);
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

static const struct mm_walk_ops inplace_scan_ops = {
	.pmd_entry = inplace_scan_pmd,
	.walk_lock = PGWALK_RDLOCK,
};

static void inplace_scan_fn(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(promote_interval_ms);
	static unsigned long last_scans;
	struct inplace_scan w = { };
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
		inplace_walk_mms(&inplace_scan_ops, &w, false);
	}
	queue_delayed_work(system_unbound_wq, &inplace_scan_work,
			   msecs_to_jiffies(ms));
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

static struct kobj_attribute promote_interval_ms_attr =
	__ATTR_RW_MODE(promote_interval_ms, 0644);
static struct kobj_attribute promote_threshold_attr =
	__ATTR_RW_MODE(promote_threshold, 0644);
static struct kobj_attribute promote_rate_mb_attr =
	__ATTR_RW_MODE(promote_rate_mb, 0644);

static struct attribute *inplace_promote_attrs[] = {
	&promote_interval_ms_attr.attr,
	&promote_threshold_attr.attr,
	&promote_rate_mb_attr.attr,
	NULL,
};

/* merged into inplace_sysfs.c's /sys/kernel/mm/pmswap/inplace */
static const struct attribute_group inplace_promote_group = {
	.name = "inplace",
	.attrs = inplace_promote_attrs,
};

int __init inplace_promote_init(void)
{
	int err = sysfs_merge_group(pmswap_kobj, &inplace_promote_group);

	if (err)
		return err;
	queue_delayed_work(system_unbound_wq, &inplace_scan_work,
			   msecs_to_jiffies(promote_interval_ms));
	return 0;
}
