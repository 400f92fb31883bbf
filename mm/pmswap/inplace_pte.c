// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap map in place, PTE level (CONFIG_PMSWAP_INPLACE_PTE): a fault on
 * a 4 KiB swap entry maps its slot's pmem page with one special PTE, and
 * with it the eligible swap entries around it (fault_around_kb). The
 * per-slot state lives in a record per extent (struct inplace_slots) that
 * exists only while some of its slots are mapped this way.
 *
 * Copyright (C) 2026 pmswap developers
 */

#define pr_fmt(fmt) "pmswap: " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/sysfs.h>
#include <linux/vmstat.h>

#include "../internal.h"
#include "../swap.h"
#include "inplace.h"
#include "pmswap.h"
#include "swap_pmem.h"

/* 4 KiB pages in the aligned window a PTE fault maps in place; 1: off */
static unsigned int fault_around_pages __read_mostly = 16;

atomic_long_t inplace_pte_pages = ATOMIC_LONG_INIT(0);

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
void inplace_drop_promote(swp_entry_t entry)
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
pte_t inplace_pte_revert(struct inplace_dev *d, struct vm_area_struct *vma,
			 unsigned long addr, pte_t *ptep, unsigned int flags)
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
 * pmswap_inplace_pte_try_map - map a 4 KiB swap entry's pmem page in place
 * @vmf: the fault on the swap entry vmf->orig_pte; vmf->pte unmapped
 * @si: its swap device, pinned by the caller
 *
 * Called by do_swap_page() when the swap cache holds no folio for the
 * slot. Return: true if the fault is done (mapped, or raced with another
 * change of the PTE); false to go on and read the page into DRAM.
 */
bool pmswap_inplace_pte_try_map(struct vm_fault *vmf,
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

static struct kobj_attribute fault_around_kb_attr =
	__ATTR_RW_MODE(fault_around_kb, 0644);

static struct attribute *inplace_pte_attrs[] = {
	&fault_around_kb_attr.attr,
	NULL,
};

/* merged into inplace_sysfs.c's /sys/kernel/mm/pmswap/inplace */
static const struct attribute_group inplace_pte_group = {
	.name = "inplace",
	.attrs = inplace_pte_attrs,
};

int __init inplace_pte_init(void)
{
	return sysfs_merge_group(pmswap_kobj, &inplace_pte_group);
}
