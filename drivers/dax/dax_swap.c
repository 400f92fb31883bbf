// SPDX-License-Identifier: GPL-2.0
/*
 * dax_swap: swap on a device-dax instance
 *
 * A device-dax instance (an NVDIMM namespace in devdax mode, a CXL or
 * soft-reserved memory range) has a character device and no block
 * device, and swapon needs a block device. Bound to this driver, the
 * instance's range becomes the block device /dev/daxswapX.Y, registered
 * as a DAX host, so that pmswap's DAX path (mm/pmswap/swap_pmem.c) claims
 * it at swapon the way it claims an fsdax namespace: copies through the
 * direct map, 2 MiB extents, map in place, and poison and removal
 * reported to the swap device through the DAX holder operations.
 *
 * The driver matches no device by type, only by id, so it never takes an
 * instance that nobody gave it:
 *
 *	echo dax0.0 > /sys/bus/dax/drivers/device_dax/unbind
 *	echo dax0.0 > /sys/bus/dax/drivers/dax_swap/new_id
 *
 * (`pmswap setup --dax dax0.0` does both). Unbinding it while the block
 * device is swap tells the swap device first (MF_MEM_PRE_REMOVE through
 * kill_dax()), which reverts every mapping in place and stops every copy
 * before the range is released, as for an fsdax namespace.
 *
 * The range must be one contiguous range. Its pages get a fresh memmap of
 * type MEMORY_DEVICE_FS_DAX, the type pmem gives an fsdax namespace, with
 * this driver's memory_failure operation; device_dax sets its own type
 * again when it is bound back.
 *
 * Known bad blocks: a device-dax instance has no bad block list of its
 * own. The list here starts empty and collects what memory_failure()
 * reports while the driver is bound; a read of a recorded block fails
 * with an I/O error and DAX access to it with -EHWPOISON. Poison known
 * before the bind (an NVDIMM's scrub results, a CXL poison list) is not
 * found. Nor are long-term pins that device_dax let users take (RDMA,
 * VFIO): hand the driver only an instance nobody has pinned.
 */
#include <linux/badblocks.h>
#include <linux/blkdev.h>
#include <linux/dax.h>
#include <linux/highmem.h>
#include <linux/kref.h>
#include <linux/memremap.h>
#include <linux/module.h>
#include <linux/pfn_t.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "dax-private.h"
#include "bus.h"

/**
 * struct dax_swap - one device-dax instance driven as a swap block device
 * @ref: references: the probe's, and the disk's once it is added
 * @dev_dax: the instance
 * @pgmap: its page map (the instance's own for a static instance)
 * @disk: the block device
 * @dax_dev: the DAX host of @disk
 * @bb: bad blocks, in 512-byte sectors from the start of the range
 * @phys: physical address of the range
 * @size: its size in bytes
 * @virt: its address in the direct map
 *
 * Set up at probe and constant until the devm actions of the unbind tear
 * it down. Everything memory_failure() uses (@bb, @dax_dev, @phys,
 * @size) is set up before the page map goes live and released after it
 * is gone: memory_failure() runs under a page map reference, which the
 * unmap waits for. The structure itself, with @bb, is referenced by the
 * probe (dropped by the last devm action) and by the disk once added
 * (dropped when the disk is freed): a swap device that keeps the dead
 * disk open still reads its bad block list at swapon.
 */
struct dax_swap {
	struct kref ref;
	struct dev_dax *dev_dax;
	struct dev_pagemap *pgmap;
	struct gendisk *disk;
	struct dax_device *dax_dev;
	struct badblocks bb;
	phys_addr_t phys;
	u64 size;
	void *virt;
};

/* badblocks_check() and badblocks_set() take an int of sectors */
#define DAX_SWAP_BB_CHUNK	BIT(30)

/* Does [@sector, @sector + @len bytes) hold a recorded bad block? */
static bool dax_swap_bad(struct dax_swap *ds, sector_t sector, u64 len)
{
	u64 nr = DIV_ROUND_UP(len, SECTOR_SIZE);
	sector_t first;
	int bad;

	if (!READ_ONCE(ds->bb.count))
		return false;
	while (nr) {
		int chunk = min_t(u64, nr, DAX_SWAP_BB_CHUNK);

		if (badblocks_check(&ds->bb, sector, chunk, &first, &bad))
			return true;
		sector += chunk;
		nr -= chunk;
	}
	return false;
}

static void dax_swap_free(struct kref *ref)
{
	struct dax_swap *ds = container_of(ref, struct dax_swap, ref);

	badblocks_exit(&ds->bb);
	kfree(ds);
}

static void dax_swap_free_disk(struct gendisk *disk)
{
	struct dax_swap *ds = disk->private_data;

	kref_put(&ds->ref, dax_swap_free);
}

static blk_status_t dax_swap_rw(struct dax_swap *ds, struct page *page,
				unsigned int off, sector_t sector,
				unsigned int len, bool write)
{
	void *addr = ds->virt + ((u64)sector << SECTOR_SHIFT);

	if (unlikely(dax_swap_bad(ds, sector, len)))
		return BLK_STS_IOERR;
	while (len) {
		unsigned int chunk = min_t(unsigned int, len, PAGE_SIZE - off);
		void *mem = kmap_local_page(page);
		unsigned long rem = 0;

		if (write)
			memcpy_flushcache(addr, mem + off, chunk);
		else
			rem = copy_mc_to_kernel(mem + off, addr, chunk);
		kunmap_local(mem);
		if (!write)
			flush_dcache_page(page);
		if (rem)
			return BLK_STS_IOERR;
		len -= chunk;
		addr += chunk;
		off = 0;
		page++;
	}
	return BLK_STS_OK;
}

static void dax_swap_submit_bio(struct bio *bio)
{
	struct dax_swap *ds = bio->bi_bdev->bd_disk->private_data;
	bool write = op_is_write(bio_op(bio)), do_acct;
	unsigned long start = 0;
	struct bvec_iter iter;
	struct bio_vec bvec;
	blk_status_t rc;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	case REQ_OP_FLUSH:
		/* writes are flushed from the CPU caches as they are done */
		bio_endio(bio);
		return;
	default:
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}
	/* iostat and /sys/block/<disk>/stat count the bios, as for pmem */
	do_acct = blk_queue_io_stat(bio->bi_bdev->bd_disk->queue);
	if (do_acct)
		start = bio_start_io_acct(bio);
	bio_for_each_segment(bvec, bio, iter) {
		rc = dax_swap_rw(ds, bvec.bv_page, bvec.bv_offset,
				 iter.bi_sector, bvec.bv_len, write);
		if (rc) {
			bio->bi_status = rc;
			break;
		}
	}
	if (do_acct)
		bio_end_io_acct(bio, start);
	bio_endio(bio);
}

static const struct block_device_operations dax_swap_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= dax_swap_submit_bio,
	.free_disk	= dax_swap_free_disk,
};

static long dax_swap_direct_access(struct dax_device *dax_dev, pgoff_t pgoff,
				   long nr_pages, enum dax_access_mode mode,
				   void **kaddr, pfn_t *pfn)
{
	struct dax_swap *ds = dax_get_private(dax_dev);
	u64 off = PFN_PHYS(pgoff);

	if (off >= ds->size)
		return -ERANGE;
	nr_pages = min_t(u64, nr_pages, PHYS_PFN(ds->size - off));
	if (kaddr)
		*kaddr = ds->virt + off;
	if (pfn)
		*pfn = phys_to_pfn_t(ds->phys + off, PFN_DEV | PFN_MAP);
	/* no recovery write: a bad block stays bad while the driver is bound */
	if (dax_swap_bad(ds, off >> SECTOR_SHIFT, PFN_PHYS(nr_pages)))
		return -EHWPOISON;
	if (READ_ONCE(ds->bb.count))
		return nr_pages;
	return PHYS_PFN(ds->size - off);
}

static int dax_swap_zero_page_range(struct dax_device *dax_dev, pgoff_t pgoff,
				    size_t nr_pages)
{
	struct dax_swap *ds = dax_get_private(dax_dev);
	u64 off = PFN_PHYS(pgoff), len = PFN_PHYS(nr_pages);

	if (off >= ds->size || len > ds->size - off)
		return -ERANGE;
	if (dax_swap_bad(ds, off >> SECTOR_SHIFT, len))
		return -EIO;
	for (; len; len -= PAGE_SIZE, off += PAGE_SIZE)
		memcpy_flushcache(ds->virt + off, page_address(ZERO_PAGE(0)),
				  PAGE_SIZE);
	return 0;
}

static const struct dax_operations dax_swap_dax_ops = {
	.direct_access		= dax_swap_direct_access,
	.zero_page_range	= dax_swap_zero_page_range,
};

/*
 * memory_failure() on a page of the range: record it, so that reads and
 * DAX access refuse it from now on (and a later swapon keeps it out of
 * the swap area), then tell the holder, the swap device, which takes the
 * slot out of use and reverts any mapping of it. Returns what the holder
 * returns, or 0 when there is none and the failure is recorded.
 */
static int dax_swap_memory_failure(struct dev_pagemap *pgmap,
				   unsigned long pfn, unsigned long nr_pages,
				   int mf_flags)
{
	struct dax_swap *ds = pgmap->owner;
	u64 phys = PFN_PHYS(pfn), len = PFN_PHYS(nr_pages), off, nr;
	bool recorded = true;
	int rc;

	if (!ds || phys < ds->phys || phys - ds->phys >= ds->size)
		return -EOPNOTSUPP;
	off = phys - ds->phys;
	len = min(len, ds->size - off);
	for (nr = len >> SECTOR_SHIFT; nr; ) {
		int chunk = min_t(u64, nr, DAX_SWAP_BB_CHUNK);

		if (badblocks_set(&ds->bb, off >> SECTOR_SHIFT, chunk, 1)) {
			dev_warn(&ds->dev_dax->dev,
				 "bad block list full: memory failure at %#llx not recorded\n",
				 (unsigned long long)phys);
			recorded = false;
			break;
		}
		off += (u64)chunk << SECTOR_SHIFT;
		nr -= chunk;
	}
	rc = dax_holder_notify_failure(ds->dax_dev, phys - ds->phys, len,
				       mf_flags);
	/*
	 * No holder (the disk is not swap): nothing maps the range, and the
	 * driver's own copies check the list. The failure is handled once
	 * it is recorded; the generic handler would only find no owner.
	 */
	if (rc == -EOPNOTSUPP && recorded)
		return 0;
	return rc;
}

static const struct dev_pagemap_ops dax_swap_pagemap_ops = {
	.memory_failure		= dax_swap_memory_failure,
};

/* after the page map is gone: leave it as device_dax expects to find it */
static void dax_swap_pgmap_reset(void *data)
{
	struct dax_swap *ds = data;

	ds->pgmap->ops = NULL;
	ds->pgmap->owner = NULL;
	if (!static_dev_dax(ds->dev_dax))
		ds->dev_dax->pgmap = NULL;
}

/* the probe's reference, last of all */
static void dax_swap_put(void *data)
{
	struct dax_swap *ds = data;

	kref_put(&ds->ref, dax_swap_free);
}

/*
 * After the page map is gone: no memory_failure() can reach the DAX
 * device any more. kill_dax() again is a no-op after dax_swap_release().
 */
static void dax_swap_put_dax(void *data)
{
	struct dax_swap *ds = data;

	kill_dax(ds->dax_dev);
	put_dax(ds->dax_dev);
}

/*
 * The unbind, before the page map goes: kill_dax() tells the swap device
 * (MF_MEM_PRE_REMOVE) and waits for every DAX access in progress, then
 * the disk goes; swap I/O to it fails from then on.
 */
static void dax_swap_release(void *data)
{
	struct dax_swap *ds = data;

	dax_remove_host(ds->disk);
	kill_dax(ds->dax_dev);
	del_gendisk(ds->disk);
	put_disk(ds->disk);
}

static int dax_swap_probe(struct dev_dax *dev_dax)
{
	struct queue_limits lim = {
		.logical_block_size	= SECTOR_SIZE,
		.physical_block_size	= PAGE_SIZE,
		.max_hw_sectors		= UINT_MAX,
		.features		= BLK_FEAT_SYNCHRONOUS | BLK_FEAT_DAX,
	};
	struct device *dev = &dev_dax->dev;
	struct dev_pagemap *pgmap;
	struct dax_device *dax_dev;
	struct gendisk *disk;
	struct dax_swap *ds;
	struct range *range;
	void *addr;
	int rc;

	if (dev_dax->nr_range != 1) {
		dev_err(dev, "%d ranges: swap needs one contiguous range\n",
			dev_dax->nr_range);
		return -EINVAL;
	}
	range = &dev_dax->ranges[0].range;

	ds = kzalloc(sizeof(*ds), GFP_KERNEL);
	if (!ds)
		return -ENOMEM;
	kref_init(&ds->ref);
	if (badblocks_init(&ds->bb, 1)) {
		kfree(ds);
		return -ENOMEM;
	}
	rc = devm_add_action_or_reset(dev, dax_swap_put, ds);
	if (rc)
		return rc;
	ds->dev_dax = dev_dax;
	ds->phys = range->start;
	ds->size = range_len(range);

	if (static_dev_dax(dev_dax)) {
		pgmap = dev_dax->pgmap;
	} else {
		if (dev_dax->pgmap) {
			dev_warn(dev, "dynamic-dax with pre-populated page map\n");
			return -EINVAL;
		}
		pgmap = devm_kzalloc(dev, sizeof(*pgmap), GFP_KERNEL);
		if (!pgmap)
			return -ENOMEM;
		pgmap->range = *range;
		pgmap->nr_range = 1;
		dev_dax->pgmap = pgmap;
	}
	ds->pgmap = pgmap;
	rc = devm_add_action_or_reset(dev, dax_swap_pgmap_reset, ds);
	if (rc)
		return rc;

	if (!devm_request_mem_region(dev, range->start, range_len(range),
				     dev_name(dev))) {
		dev_warn(dev, "%#llx-%#llx could not reserve range\n",
			 range->start, range->end);
		return -EBUSY;
	}

	/* before the page map: memory_failure() may tell it at once */
	dax_dev = alloc_dax(ds, &dax_swap_dax_ops);
	if (IS_ERR(dax_dev))
		return PTR_ERR(dax_dev);
	set_dax_nocache(dax_dev);
	set_dax_nomc(dax_dev);
	ds->dax_dev = dax_dev;
	rc = devm_add_action_or_reset(dev, dax_swap_put_dax, ds);
	if (rc)
		return rc;

	pgmap->type = MEMORY_DEVICE_FS_DAX;
	pgmap->vmemmap_shift = 0;
	pgmap->ops = &dax_swap_pagemap_ops;
	pgmap->owner = ds;
	addr = devm_memremap_pages(dev, pgmap);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	/* a static page map starts before the data (the info block) */
	ds->virt = addr + (range->start - pgmap->range.start);

	disk = blk_alloc_disk(&lim, dev_to_node(dev));
	if (IS_ERR(disk))
		return PTR_ERR(disk);
	disk->fops = &dax_swap_fops;
	disk->private_data = ds;
	disk->flags |= GENHD_FL_NO_PART;
	/* dax0.0 -> daxswap0.0 */
	snprintf(disk->disk_name, DISK_NAME_LEN, "daxswap%s",
		 dev_name(dev) + strlen("dax"));
	set_capacity(disk, ds->size >> SECTOR_SHIFT);
	disk->bb = &ds->bb;
	ds->disk = disk;

	rc = dax_add_host(dax_dev, disk);
	if (rc)
		goto out_disk;
	rc = device_add_disk(dev, disk, NULL);
	if (rc)
		goto out_host;
	/* dropped by dax_swap_free_disk(), once the disk is added */
	kref_get(&ds->ref);
	rc = devm_add_action_or_reset(dev, dax_swap_release, ds);
	if (rc)
		return rc;
	dev_info(dev, "swap block device %s: %llu MiB at %#llx\n",
		 disk->disk_name, ds->size >> 20, (unsigned long long)ds->phys);
	return 0;

out_host:
	dax_remove_host(disk);
out_disk:
	put_disk(disk);
	return rc;
}

static struct dax_device_driver dax_swap_driver = {
	.probe	= dax_swap_probe,
	.type	= DAXDRV_ID_ONLY_TYPE,
};

static int __init dax_swap_init(void)
{
	return dax_driver_register(&dax_swap_driver);
}
module_init(dax_swap_init);

static void __exit dax_swap_exit(void)
{
	dax_driver_unregister(&dax_swap_driver);
}
module_exit(dax_swap_exit);

MODULE_DESCRIPTION("Swap block device on a device-dax instance, for pmswap");
MODULE_LICENSE("GPL");
