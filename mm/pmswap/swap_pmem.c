// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap pmem backend: swap on a DAX-capable persistent-memory namespace
 * by CPU copies through the DAX mapping instead of bios.
 *
 * At swapon, a block device whose disk offers DAX (a pmem namespace in
 * fsdax mode) is claimed through fs_dax_get_by_bdev(), with the swap
 * device as the DAX holder. If slot 0 of the swap area (the header page)
 * sits on a 2 MiB physical boundary, then, because clusters are 512
 * slots long and 512-aligned, every cluster is one physically 2 MiB
 * aligned extent of the pmem, and every THP the cluster allocator places
 * there owns one. A device that cannot do DAX, or whose swap area is not
 * 2 MiB aligned, stays plain block swap, and the console says why.
 *
 * Swap-out copies the folio into the pmem with memcpy_flushcache() and
 * a pmem write barrier; swap-in copies it back with copy_mc_to_kernel(),
 * so a machine check on poisoned media becomes a read error (the faulting
 * process gets SIGBUS) rather than a kernel crash. Known bad blocks of the
 * namespace are kept out of the swap area at swapon, and
 * dax_direct_access() refuses ranges that turned bad later, so reads of
 * them fail the same way; writes to them go to the block driver, which
 * knows how to clear poison.
 *
 * Each device gets /sys/kernel/mm/pmswap/pmem/<disk>/ with its io path
 * switch ("dax" or "bio"), its physical placement and its counters.
 *
 * Copyright (C) 2026 pmswap developers
 */

#define pr_fmt(fmt) "pmswap: " fmt

#include <linux/badblocks.h>
#include <linux/blkdev.h>
#include <linux/dax.h>
#include <linux/highmem.h>
#include <linux/huge_mm.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pfn_t.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/vmstat.h>

#include "pmswap.h"
#include "../swap.h"
#include "swap_pmem.h"

struct pmswap_pmem *pmswap_pmem_devs[MAX_SWAPFILES];
BLOCKING_NOTIFIER_HEAD(pmswap_pmem_failure_chain);
/* serialises publishing and tearing down devices against notify_failure */
DEFINE_MUTEX(pmswap_pmem_lock);
static struct kobject *pmswap_pmem_kobj;
static bool pmswap_pmem_enabled __read_mostly = true;

/*
 * The disk's bad block list is full: keep DAX page offsets @first..@last
 * as bad swap slots in pmswap's own record. Return: 0, or -ENOMEM.
 */
static int pmswap_pmem_record_bad(struct pmswap_pmem *pd, u64 first, u64 last)
{
	u64 pg;

	first = max_t(u64, first, pd->pgoff0);
	last = min_t(u64, last, pd->pgoff0 + pd->max - 1);
	for (pg = first; pg <= last; pg++)
		if (xa_err(xa_store(&pd->bad_slots, pg - pd->pgoff0,
				    xa_mk_value(1), GFP_KERNEL)))
			return -ENOMEM;
	if (first <= last)
		pr_warn("%pg: bad block list full, swap slots %llu-%llu kept as bad by pmswap\n",
			pd->si->bdev, first - pd->pgoff0, last - pd->pgoff0);
	return 0;
}

/*
 * A write is about to give slots new data: forget what pmswap's own record
 * says of them, and send the write to the block driver, which clears
 * poison where the platform can. Return: true if any was recorded.
 */
static bool pmswap_pmem_forget_bad(struct pmswap_pmem *pd, unsigned long off,
				   unsigned long nr)
{
	unsigned long idx;
	bool any = false;
	void *e;

	if (likely(xa_empty(&pd->bad_slots)))
		return false;
	xa_for_each_range(&pd->bad_slots, idx, e, off, off + nr - 1) {
		xa_erase(&pd->bad_slots, idx);
		any = true;
	}
	return any;
}

/*
 * Copy @folio to or from its swap slots through the DAX mapping. Returns
 * false, having copied nothing usable, if the range is (partly) poisoned
 * or a read hits a machine check.
 */
static bool pmswap_pmem_copy(struct pmswap_pmem *pd, struct folio *folio,
			     bool write)
{
	pgoff_t pgoff = pd->pgoff0 + swp_offset(folio->swap);
	long nr = folio_nr_pages(folio), done = 0;
	bool ok = true;
	int id;

	id = dax_read_lock();
	while (done < nr) {
		void *mem = folio_address(folio) + done * PAGE_SIZE;
		void *kaddr;
		long avail;

		avail = dax_direct_access(pd->dax_dev, pgoff + done, nr - done,
					  DAX_ACCESS, &kaddr, NULL);
		if (avail <= 0) {
			ok = false;
			break;
		}
		avail = min(avail, nr - done);
		if (write) {
			memcpy_flushcache(kaddr, mem, avail << PAGE_SHIFT);
		} else if (copy_mc_to_kernel(mem, kaddr, avail << PAGE_SHIFT)) {
			ok = false;
			break;
		}
		done += avail;
	}
	if (write && ok)
		pmem_wmb();
	dax_read_unlock(id);
	return ok;
}

/**
 * pmswap_pmem_write_folio - write a swap cache folio through the DAX mapping
 * @si: the swap device of @folio
 * @folio: the locked folio, in the swap cache
 *
 * Return: true if the data is on the pmem and the caller only has to do
 * the writeback bookkeeping; false if the caller must write it with a bio
 * (not a DAX swap device, the bio path selected, or a poisoned target).
 */
bool pmswap_pmem_write_folio(struct swap_info_struct *si, struct folio *folio)
{
	struct pmswap_pmem *pd = pmswap_pmem_get(si);

	if (!pd || !pmswap_pmem_use_dax(pd))
		return false;
	if (pmswap_pmem_forget_bad(pd, swp_offset(folio->swap),
				   folio_nr_pages(folio)) ||
	    !pmswap_pmem_copy(pd, folio, true)) {
		atomic_long_inc(&pd->write_fallbacks);
		return false;
	}
	atomic_long_add(folio_nr_pages(folio), &pd->pages_written);
	/* as submit_bio() counts them: in sectors */
	count_vm_events(PGPGOUT, folio_nr_pages(folio) << (PAGE_SHIFT - SECTOR_SHIFT));
	return true;
}

/**
 * pmswap_pmem_read_folio - read a folio from its swap slots on pmem
 * @si: the swap device of @folio
 * @folio: the locked, not uptodate folio
 *
 * Return: false if the caller must read with a bio. True if the read was
 * done here: the folio is then unlocked, and uptodate unless the slots are
 * poisoned, in which case the fault that wanted it gets SIGBUS.
 */
bool pmswap_pmem_read_folio(struct swap_info_struct *si, struct folio *folio)
{
	struct pmswap_pmem *pd = pmswap_pmem_get(si);
	long nr = folio_nr_pages(folio);

	if (!pd || !pmswap_pmem_use_dax(pd))
		return false;
	count_vm_events(PSWPIN, nr);
	count_vm_events(PGPGIN, nr << (PAGE_SHIFT - SECTOR_SHIFT));
	if (!pmswap_pmem_range_bad(pd, swp_offset(folio->swap), nr) &&
	    pmswap_pmem_copy(pd, folio, false)) {
		atomic_long_add(nr, &pd->pages_read);
		folio_mark_uptodate(folio);
	} else {
		atomic_long_inc(&pd->read_errors);
		pr_alert_ratelimited("%pg: poisoned swap slots %lu-%lu, read failed\n",
				     si->bdev, swp_offset(folio->swap),
				     swp_offset(folio->swap) + nr - 1);
	}
	folio_unlock(folio);
	return true;
}

/**
 * pmswap_pmem_range_bad - does a range of swap slots hold a known bad block?
 * @pd: the device
 * @offset: first swap slot
 * @nr: number of slots
 *
 * The bad block list is the disk's, and goes with it when the namespace
 * is removed: it is read only under the DAX SRCU lock while the DAX
 * device is alive, which kill_dax() waits for before the disk goes.
 * Callable in atomic context.
 */
bool pmswap_pmem_range_bad(struct pmswap_pmem *pd, unsigned long offset,
			   unsigned long nr)
{
	const int spp = PAGE_SIZE >> SECTOR_SHIFT;
	bool bad = false;
	sector_t first;
	int len, id;

	if (unlikely(!xa_empty(&pd->bad_slots))) {
		unsigned long idx = offset;

		if (xa_find(&pd->bad_slots, &idx, offset + nr - 1, XA_PRESENT))
			return true;
	}
	if (!pd->bb)
		return false;
	id = dax_read_lock();
	if (dax_alive(pd->dax_dev) && !READ_ONCE(pd->dead) &&
	    READ_ONCE(pd->bb->count))
		bad = badblocks_check(pd->bb, pd->sect0 + offset * spp,
				      nr * spp, &first, &len) != 0;
	dax_read_unlock(id);
	return bad;
}

/**
 * pmswap_swapin_error - the fault's answer to a swap-in read that failed
 * @entry: the slot whose read failed
 *
 * A slot on a known bad block of a pmem swap device is memory that
 * failed: the task gets what memory_failure() would give it, SIGBUS
 * BUS_MCEERR_AR for that one page (a VMM turns it into a machine check
 * for its guest, rather than dying of BUS_ADRERR). Any other read error
 * stays the plain SIGBUS it always was.
 */
vm_fault_t pmswap_swapin_error(swp_entry_t entry)
{
	struct swap_info_struct *si = swp_swap_info(entry);
	struct pmswap_pmem *pd = si ? pmswap_pmem_get(si) : NULL;

	if (pd && pmswap_pmem_range_bad(pd, swp_offset(entry), 1))
		return VM_FAULT_HWPOISON;
	return VM_FAULT_SIGBUS;
}

/*
 * Memory failure on a page of the namespace (a machine check, or
 * hwpoison-inject): record it in the disk's bad block list, which
 * dax_direct_access() checks, so the slot reads as poisoned from now on.
 */
static int pmswap_pmem_notify_failure(struct dax_device *dax_dev, u64 offset,
				      u64 len, int mf_flags)
{
	struct swap_info_struct *si = dax_holder(dax_dev);
	u64 first = offset >> PAGE_SHIFT, last = (offset + len - 1) >> PAGE_SHIFT;
	struct pmswap_pmem_failure f;
	struct pmswap_pmem *pd;
	int ret = 0;

	if (!si || !len)
		return -EOPNOTSUPP;
	/* swapoff frees pd only after clearing the pointer under this lock */
	mutex_lock(&pmswap_pmem_lock);
	pd = pmswap_pmem_get(si);
	if (!pd || pd->dax_dev != dax_dev) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (mf_flags & MF_MEM_PRE_REMOVE) {
		pr_warn("%pg: namespace is going away while in use as swap: swap data on it is lost\n",
			si->bdev);
		/*
		 * kill_dax() goes on whatever this returns, and the pmem is
		 * released after it: nothing may keep it mapped in place, map
		 * it, or copy to or from it again. The walk below reverts
		 * every mapping under its page table lock, where a fault
		 * that is about to map checks the flag again.
		 */
		WRITE_ONCE(pd->dead, true);
		WRITE_ONCE(pd->use_bio, true);
		f.si = si;
		f.first = 0;
		f.last = pd->max - 1;
		blocking_notifier_call_chain(&pmswap_pmem_failure_chain, 0, &f);
		ret = -EBUSY;
		goto out;
	}
	if (pd->bb && badblocks_set(pd->bb, offset >> SECTOR_SHIFT,
				    DIV_ROUND_UP(len, SECTOR_SIZE), 1) &&
	    pmswap_pmem_record_bad(pd, first, last)) {
		/*
		 * Unrecorded, the poison would be copied from or mapped in
		 * place again at every access: a loop of machine checks.
		 * The block driver reads it with a clean error instead.
		 */
		pr_warn("%pg: memory failure at offset %#llx not recorded: swapping through the block layer from now on\n",
			si->bdev, offset);
		WRITE_ONCE(pd->bb_full, true);
		WRITE_ONCE(pd->use_bio, true);
		/* and nothing stays mapped in place */
		f.si = si;
		f.first = 0;
		f.last = pd->max - 1;
		blocking_notifier_call_chain(&pmswap_pmem_failure_chain, 0, &f);
	}
	/*
	 * Outside the swap area (another partition of the disk) the page may
	 * be mapped by someone else: let the generic handler deal with it.
	 */
	if (first < pd->pgoff0 || last >= pd->pgoff0 + pd->max) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	atomic_long_inc(&pd->poison_notices);
	pr_warn("%pg: memory failure at offset %#llx, length %llu: swap slots %llu-%llu marked bad\n",
		si->bdev, offset, len, first - pd->pgoff0, last - pd->pgoff0);
	/* map in place: no mapping of those slots may stay */
	f.si = si;
	f.first = first - pd->pgoff0;
	f.last = last - pd->pgoff0;
	blocking_notifier_call_chain(&pmswap_pmem_failure_chain, 0, &f);
out:
	mutex_unlock(&pmswap_pmem_lock);
	return ret;
}

static const struct dax_holder_operations pmswap_pmem_holder_ops = {
	.notify_failure = pmswap_pmem_notify_failure,
};

/* Keep the disk's known bad blocks out of the swap area. */
static unsigned long pmswap_mark_badblocks(struct badblocks *bb,
					   sector_t sect0,
					   unsigned char *swap_map,
					   unsigned long maxpages)
{
	const int spp = PAGE_SIZE >> SECTOR_SHIFT;
	unsigned long off, n = 0;
	sector_t first;
	int len;

	if (!bb || !READ_ONCE(bb->count))
		return 0;
	for (off = 1; off < maxpages; off++) {
		if (swap_map[off] == SWAP_MAP_BAD)
			continue;
		if (badblocks_check(bb, sect0 + off * spp, spp, &first, &len)) {
			swap_map[off] = SWAP_MAP_BAD;
			n++;
		}
	}
	return n;
}

/* sysfs: /sys/kernel/mm/pmswap/pmem/<disk>/ */

#define to_pmswap_pmem(k) container_of(k, struct pmswap_pmem, kobj)

static ssize_t io_show(struct kobject *kobj, struct kobj_attribute *attr,
		       char *buf)
{
	struct pmswap_pmem *pd = to_pmswap_pmem(kobj);

	if (READ_ONCE(pd->dead))
		return sysfs_emit(buf, "removed\n");
	return sysfs_emit(buf, "%s\n", READ_ONCE(pd->use_bio) ? "bio" : "dax");
}

static ssize_t io_store(struct kobject *kobj, struct kobj_attribute *attr,
			const char *buf, size_t count)
{
	struct pmswap_pmem *pd = to_pmswap_pmem(kobj);
	int ret = count;

	if (sysfs_streq(buf, "bio")) {
		WRITE_ONCE(pd->use_bio, true);
		return count;
	}
	if (!sysfs_streq(buf, "dax"))
		return -EINVAL;
	/* serialised against notify_failure(), which may set these */
	mutex_lock(&pmswap_pmem_lock);
	if (pd->dead)
		ret = -ENODEV;	/* the namespace is gone */
	else if (pd->bb_full)
		ret = -EIO;	/* unrecorded poison */
	else
		WRITE_ONCE(pd->use_bio, false);
	mutex_unlock(&pmswap_pmem_lock);
	return ret;
}

static ssize_t swap_type_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", to_pmswap_pmem(kobj)->si->type);
}

static ssize_t phys_start_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%#llx\n",
			  (unsigned long long)to_pmswap_pmem(kobj)->phys0);
}

/*
 * Huge extents: clusters (512 slots, 2 MiB, physically 2 MiB aligned)
 * without a bad or header slot; free ones can take a THP, huge ones hold
 * one. The kobject is removed at swapoff before the swap map and
 * cluster_info are freed, and sysfs waits for readers, so both are there.
 */
static void pmswap_pmem_extents(struct pmswap_pmem *pd, unsigned long *total,
				unsigned long *free, unsigned long *huge)
{
	struct swap_info_struct *si = pd->si;
	struct swap_cluster_info *ci = READ_ONCE(si->cluster_info);
	unsigned char *map = READ_ONCE(si->swap_map);
	unsigned long i, nr = pd->max / HPAGE_PMD_NR;

	*total = 0;
	*free = 0;
	*huge = 0;
	if (!ci || !map)
		return;
	for (i = 0; i < nr; i++) {
		/* clusters are HPAGE_PMD_NR slots (SWAPFILE_CLUSTER with THP_SWAP) */
		unsigned long base = i * HPAGE_PMD_NR;
		bool bad;

		spin_lock(&ci[i].lock);
		bad = memchr(map + base, SWAP_MAP_BAD, HPAGE_PMD_NR);
		if (!bad) {
			(*total)++;
			if (ci[i].flags == CLUSTER_FLAG_FREE)
				(*free)++;
			else if (ci[i].order == HPAGE_PMD_ORDER && ci[i].count)
				(*huge)++;
		}
		spin_unlock(&ci[i].lock);
		/* a TiB of pmem is half a million clusters */
		if (!(i % 4096))
			cond_resched();
	}
}

/*
 * stats/: one counter per file, as mTHP's hugepages-<size>/stats/ has.
 * The in-place counters join the same directory while map in place runs
 * on the device (inplace_sysfs.c merges its group into "stats").
 */
enum pmem_stat {
	PS_PAGES_WRITTEN, PS_PAGES_READ, PS_READ_ERRORS, PS_WRITE_FALLBACKS,
	PS_POISON_NOTICES, PS_BAD_PAGES, PS_EXTENTS_TOTAL, PS_EXTENTS_FREE,
	PS_EXTENTS_HUGE,
};

static unsigned long pmem_stat(struct pmswap_pmem *pd, enum pmem_stat which)
{
	unsigned long total, free, huge;

	switch (which) {
	case PS_PAGES_WRITTEN:
		return atomic_long_read(&pd->pages_written);
	case PS_PAGES_READ:
		return atomic_long_read(&pd->pages_read);
	case PS_READ_ERRORS:
		return atomic_long_read(&pd->read_errors);
	case PS_WRITE_FALLBACKS:
		return atomic_long_read(&pd->write_fallbacks);
	case PS_POISON_NOTICES:
		return atomic_long_read(&pd->poison_notices);
	case PS_BAD_PAGES:
		return pd->bad_pages;
	case PS_EXTENTS_TOTAL:
	case PS_EXTENTS_FREE:
	case PS_EXTENTS_HUGE:
		break;
	}
	pmswap_pmem_extents(pd, &total, &free, &huge);
	return which == PS_EXTENTS_TOTAL ? total :
	       which == PS_EXTENTS_FREE ? free : huge;
}

#define PMEM_STAT_ATTR(_name, _which)					\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%lu\n",					\
			  pmem_stat(to_pmswap_pmem(kobj), _which));	\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

PMEM_STAT_ATTR(pages_written, PS_PAGES_WRITTEN);
PMEM_STAT_ATTR(pages_read, PS_PAGES_READ);
PMEM_STAT_ATTR(read_errors, PS_READ_ERRORS);
PMEM_STAT_ATTR(write_fallbacks, PS_WRITE_FALLBACKS);
PMEM_STAT_ATTR(poison_notices, PS_POISON_NOTICES);
PMEM_STAT_ATTR(bad_pages, PS_BAD_PAGES);
PMEM_STAT_ATTR(extents_total, PS_EXTENTS_TOTAL);
PMEM_STAT_ATTR(extents_free, PS_EXTENTS_FREE);
PMEM_STAT_ATTR(extents_huge, PS_EXTENTS_HUGE);

static struct kobj_attribute io_attr = __ATTR_RW_MODE(io, 0600);
static struct kobj_attribute swap_type_attr = __ATTR_RO(swap_type);
static struct kobj_attribute phys_start_attr = __ATTR_RO_MODE(phys_start, 0400);

static struct attribute *pmswap_pmem_dev_attrs[] = {
	&io_attr.attr,
	&swap_type_attr.attr,
	&phys_start_attr.attr,
	NULL,
};

static const struct attribute_group pmswap_pmem_dev_group = {
	.attrs = pmswap_pmem_dev_attrs,
};

static struct attribute *pmswap_pmem_stats_attrs[] = {
	&pages_written_attr.attr,
	&pages_read_attr.attr,
	&read_errors_attr.attr,
	&write_fallbacks_attr.attr,
	&poison_notices_attr.attr,
	&bad_pages_attr.attr,
	&extents_total_attr.attr,
	&extents_free_attr.attr,
	&extents_huge_attr.attr,
	NULL,
};

static const struct attribute_group pmswap_pmem_stats_group = {
	.name = "stats",
	.attrs = pmswap_pmem_stats_attrs,
};

static const struct attribute_group *pmswap_pmem_dev_groups[] = {
	&pmswap_pmem_dev_group,
	&pmswap_pmem_stats_group,
	NULL,
};

static void pmswap_pmem_release(struct kobject *kobj)
{
	struct pmswap_pmem *pd = to_pmswap_pmem(kobj);

	xa_destroy(&pd->bad_slots);
	kfree(pd);
}

static const struct kobj_type pmswap_pmem_ktype = {
	.release = pmswap_pmem_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = pmswap_pmem_dev_groups,
};

/*
 * Claim @si's block device for DAX swap if it can do it. Returns the
 * device, or NULL (with the reason on the console) to keep block I/O.
 */
static struct pmswap_pmem *pmswap_pmem_claim(struct swap_info_struct *si,
					     unsigned long maxpages)
{
	struct block_device *bdev = si->bdev;
	struct dax_device *dax_dev;
	struct pmswap_pmem *pd;
	pfn_t pfn, pfn_last;
	u64 start_off = 0;
	void *kaddr;
	long avail;
	int id;

	if (!blk_queue_dax(bdev_get_queue(bdev))) {
		if (bdev->bd_disk->bb ||
		    !strncmp(bdev->bd_disk->disk_name, "pmem", 4))
			pr_info("%pg: no DAX on this device (namespace not in fsdax mode?), swapping through the block layer\n",
				bdev);
		return NULL;
	}
	dax_dev = fs_dax_get_by_bdev(bdev, &start_off, si,
				     &pmswap_pmem_holder_ops);
	if (!dax_dev) {
		pr_info("%pg: DAX mapping not available (in use by another holder), swapping through the block layer\n",
			bdev);
		return NULL;
	}

	id = dax_read_lock();
	avail = dax_direct_access(dax_dev, start_off >> PAGE_SHIFT, 1,
				  DAX_ACCESS, &kaddr, &pfn);
	if (avail > 0)
		avail = dax_direct_access(dax_dev, (start_off >> PAGE_SHIFT) +
					  maxpages - 1, 1, DAX_ACCESS, &kaddr,
					  &pfn_last);
	dax_read_unlock(id);
	if (avail <= 0) {
		pr_info("%pg: cannot map the swap area through DAX (error %ld), swapping through the block layer\n",
			bdev, avail);
		goto put;
	}
	if (pfn_t_to_pfn(pfn_last) != pfn_t_to_pfn(pfn) + maxpages - 1) {
		pr_info("%pg: DAX mapping is not physically contiguous, swapping through the block layer\n",
			bdev);
		goto put;
	}
	if (!IS_ALIGNED(pfn_t_to_pfn(pfn), HPAGE_PMD_NR)) {
		pr_info("%pg: swap area starts at %#llx, not 2 MiB aligned (%s), swapping through the block layer\n",
			bdev, (unsigned long long)PFN_PHYS(pfn_t_to_pfn(pfn)),
			start_off ? "start the partition on a 2 MiB boundary" :
				    "create the namespace with --align 2M");
		goto put;
	}

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		goto put;
	pd->si = si;
	pd->dax_dev = dax_dev;
	pd->bb = bdev->bd_disk->bb;
	pd->pgoff0 = start_off >> PAGE_SHIFT;
	pd->phys0 = PFN_PHYS(pfn_t_to_pfn(pfn));
	pd->max = maxpages;
	xa_init(&pd->bad_slots);
	return pd;
put:
	fs_put_dax(dax_dev, si);
	return NULL;
}

/**
 * pmswap_pmem_swapon - set up a block swap device for pmswap at swapon
 * @si: the swap device being enabled
 * @swap_map: its new swap map, with the header's bad pages marked
 * @maxpages: its size in slots
 *
 * Marks the disk's known bad blocks SWAP_MAP_BAD (any block device with a
 * bad block list), then claims the device for DAX swap if it can do it.
 * Return: 0, or a negative errno if swapon must fail.
 */
int pmswap_pmem_swapon(struct swap_info_struct *si, unsigned char *swap_map,
		       unsigned long maxpages)
{
	struct pmswap_pmem *pd;
	unsigned long bad;
	sector_t sect0;
	int err;

	/* a swap file's slots are not the disk's pages: leave it alone */
	if (!si->bdev || !(si->flags & SWP_BLKDEV))
		return 0;
	sect0 = get_start_sect(si->bdev);
	bad = pmswap_mark_badblocks(si->bdev->bd_disk->bb, sect0, swap_map,
				    maxpages);
	if (bad) {
		if (bad >= si->pages) {
			pr_err("%pg: every page of the swap area is a known bad block\n",
			       si->bdev);
			return -EINVAL;
		}
		si->pages -= bad;
		pr_info("%pg: %lu known bad pages kept out of the swap area\n",
			si->bdev, bad);
	}

	if (!READ_ONCE(pmswap_pmem_enabled) || !pmswap_pmem_kobj)
		return 0;
	pd = pmswap_pmem_claim(si, maxpages);
	if (!pd)
		return 0;
	pd->sect0 = sect0;
	pd->bad_pages = bad;
	kobject_init(&pd->kobj, &pmswap_pmem_ktype);
	err = kobject_add(&pd->kobj, pmswap_pmem_kobj, "%pg", si->bdev);
	if (err) {
		pr_warn("%pg: no sysfs directory (%d), swapping through the block layer\n",
			si->bdev, err);
		fs_put_dax(pd->dax_dev, si);
		kobject_put(&pd->kobj);
		return 0;
	}
	mutex_lock(&pmswap_pmem_lock);
	/* pd is fully set up before the I/O paths can see it */
	smp_store_release(&pmswap_pmem_devs[si->type], pd);
	mutex_unlock(&pmswap_pmem_lock);
	kobject_uevent(&pd->kobj, KOBJ_ADD);
	pr_info("%pg: pmem swap through DAX, %lu slots from %pa, 2 MiB aligned extents\n",
		si->bdev, maxpages, &pd->phys0);
	return 0;
}

/**
 * pmswap_pmem_swapoff - release a device at swapoff, or after a failed swapon
 * @si: the swap device; no swap I/O can be in flight on it any more
 */
void pmswap_pmem_swapoff(struct swap_info_struct *si)
{
	struct pmswap_pmem *pd = pmswap_pmem_get(si);

	if (!pd)
		return;
	mutex_lock(&pmswap_pmem_lock);
	WRITE_ONCE(pmswap_pmem_devs[si->type], NULL);
	mutex_unlock(&pmswap_pmem_lock);
	fs_put_dax(pd->dax_dev, si);
	kobject_del(&pd->kobj);
	kobject_put(&pd->kobj);
}

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return pmswap_show_bool(&pmswap_pmem_enabled, buf);
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	return pmswap_store_bool(&pmswap_pmem_enabled, buf, count);
}

static struct kobj_attribute enabled_attr = __ATTR_RW_MODE(enabled, 0600);

static struct attribute *pmswap_pmem_attrs[] = {
	&enabled_attr.attr,
	NULL,
};

static const struct attribute_group pmswap_pmem_group = {
	.attrs = pmswap_pmem_attrs,
};

static int __init pmswap_pmem_init(void)
{
	struct kobject *kobj;
	int err;

	if (!pmswap_kobj)
		return -ENOMEM;
	kobj = kobject_create_and_add("pmem", pmswap_kobj);
	if (!kobj)
		return -ENOMEM;
	err = sysfs_create_group(kobj, &pmswap_pmem_group);
	if (err) {
		kobject_put(kobj);
		return err;
	}
	pmswap_pmem_kobj = kobj;
	return 0;
}
subsys_initcall(pmswap_pmem_init);
