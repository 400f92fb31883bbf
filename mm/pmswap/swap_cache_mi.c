// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap: PMD-size folios in the swap cache as one multi-index entry.
 *
 * The page cache stores a large folio as one multi-order XArray entry; the
 * 6.12 swap cache stores a 2 MiB folio in 512 separate slots, which costs
 * 512 stores on the way in, 512 on the way out, and leaf nodes for every
 * 64 slots. Here a PMD-size folio is stored once, with order
 * HPAGE_PMD_ORDER: a lookup at any of its 512 indices finds it under RCU,
 * and when it leaves after swap-out, one multi-index shadow entry keeps its
 * workingset information.
 *
 * Smaller folios keep the per-index layout. Both layouts can be in one
 * swap cache at once (the switch /sys/kernel/mm/pmswap/swap_cache_multi_index
 * only chooses how new PMD-size folios are stored), so removal, split and
 * migration look at the entry's order instead of assuming one layout.
 *
 * The helpers work on a bare XArray so that KUnit can test them without a
 * swap device (mm/pmswap/swap_cache_mi_kunit.c).
 *
 * Copyright (C) 2026 pmswap developers
 */

#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/kobject.h>
#include <linux/swap.h>
#include <linux/sysfs.h>
#include <linux/xarray.h>

#include "pmswap.h"

static bool swap_cache_mi_on __read_mostly = true;

/**
 * swap_cache_mi_wanted - should @folio go into the swap cache as one entry
 * @folio: a folio about to be added to the swap cache
 */
bool swap_cache_mi_wanted(struct folio *folio)
{
	/*
	 * Anonymous folios only: shmem's swap cache paths
	 * (shmem_replace_folio()) still walk one slot per page.
	 */
	return folio_order(folio) == HPAGE_PMD_ORDER && folio_test_anon(folio) &&
	       READ_ONCE(swap_cache_mi_on);
}

/**
 * swap_xas_store_multi - store a folio as one multi-index entry
 * @xas: set up with XA_STATE_ORDER() for the folio's first index and
 *	 order; the XArray locked
 * @folio: the folio (any non-NULL pointer for tests)
 * @shadowp: if not NULL, gets a shadow entry found in the range
 *
 * Shadow entries in the range (one multi-index shadow or per-index ones)
 * are replaced. On error (-EEXIST if a folio is stored anywhere in the
 * range, -ENOMEM: retry after xas_nomem()) @xas carries it.
 */
void swap_xas_store_multi(struct xa_state *xas, void *folio, void **shadowp)
{
	void *old;

	xas_for_each_conflict(xas, old) {
		if (!xa_is_value(old)) {
			xas_set_err(xas, -EEXIST);
			return;
		}
		if (shadowp)
			*shadowp = old;
	}
	xas_store(xas, folio);
}

/**
 * swap_xa_store_folio - swap_xas_store_multi() with locking and allocation
 * @xa: the XArray
 * @index: first index, aligned to 1 << @order
 * @folio: the entry
 * @order: its order
 * @gfp: for node allocations
 * @shadowp: as for swap_xas_store_multi()
 *
 * Return: 0, -EEXIST or -ENOMEM.
 */
int swap_xa_store_folio(struct xarray *xa, unsigned long index, void *folio,
			unsigned int order, gfp_t gfp, void **shadowp)
{
	XA_STATE_ORDER(xas, xa, index, order);

	do {
		xas_lock_irq(&xas);
		swap_xas_store_multi(&xas, folio, shadowp);
		xas_unlock_irq(&xas);
	} while (xas_nomem(&xas, gfp));
	return xas_error(&xas);
}

/**
 * swap_xa_split_shadow - make room for per-index entries in a huge shadow
 * @xa: the swap cache XArray
 * @index: where a folio smaller than PMD size is about to be stored
 * @gfp: for node allocations
 * @update: node update callback (workingset_update_node), may be NULL
 *
 * A THP that left the swap cache as one multi-index shadow entry and now
 * comes back in smaller pieces (huge swap entries off, or split) must
 * not have a 4 KiB folio stored over a slot that stands for 64 or 512
 * indices: split the shadow into per-index shadows first, so every
 * other page of the THP keeps its workingset information.
 *
 * Return: 0 (also when there was nothing to split), or -ENOMEM.
 */
int swap_xa_split_shadow(struct xarray *xa, unsigned long index, gfp_t gfp,
			 void (*update)(struct xa_node *node))
{
	XA_STATE(xas, xa, index);
	unsigned int order;
	void *old;

	rcu_read_lock();
	old = xas_load(&xas);
	order = xa_is_value(old) ? xas_get_order(&xas) : 0;
	rcu_read_unlock();
	if (!order)
		return 0;

	xas_set_update(&xas, update);
	xas_reset(&xas);
	xas_split_alloc(&xas, old, order, gfp);
	if (xas_error(&xas))
		return -ENOMEM;
	xas_lock_irq(&xas);
	xas_reset(&xas);
	/* the shadow may have gone meanwhile (slots freed): then nothing to do */
	if (xas_load(&xas) == old && xas_get_order(&xas) == order)
		xas_split(&xas, old, order);
	xas_unlock_irq(&xas);
	xas_destroy(&xas);
	return 0;
}

/**
 * swap_xa_entry_order - order of the swap cache entry at @xas
 * @xas: positioned at an index; the XArray lock or RCU held
 *
 * Return: 0 for a per-index entry or an empty slot.
 */
unsigned int swap_xa_entry_order(struct xa_state *xas)
{
	void *entry = xas_load(xas);

	if (!entry || xas_invalid(xas))
		return 0;
	return xas_get_order(xas);
}

/**
 * swap_xa_replace - replace a multi-index swap cache entry
 * @xa: the XArray, locked by the caller (xa_lock_irq)
 * @index: any index inside the entry
 * @expected: the folio that must be there
 * @entry: the new entry: a folio, a shadow (value) entry or NULL
 * @update: node update callback, may be NULL
 *
 * Return: true if @index held a multi-index entry and it was replaced;
 * false (nothing changed) if it holds a per-index entry, which the caller
 * then handles slot by slot.
 */
bool swap_xa_replace(struct xarray *xa, unsigned long index, void *expected,
		     void *entry, void (*update)(struct xa_node *node))
{
	XA_STATE(xas, xa, index);
	unsigned int order;
	void *old;

	order = swap_xa_entry_order(&xas);
	if (!order)
		return false;
	xas_set_order(&xas, index, order);
	xas_set_update(&xas, update);
	old = xas_store(&xas, entry);
	VM_WARN_ON_ONCE(old != expected);
	return true;
}

/**
 * swap_xa_split_prepare - allocate what splitting a multi-index entry needs
 * @xas: initialised here, for the XArray @xa at @index
 * @xa: the swap cache XArray
 * @index: first index of @folio's entry
 * @folio: the locked folio being split
 * @gfp: allocation flags
 * @update: node update callback (workingset_update_node), may be NULL
 *
 * Return: 1 if the entry is multi-index and @xas now holds the nodes for
 * swap_xa_split(); 0 if it is stored per index (nothing to do); -ENOMEM.
 * The caller calls xas_destroy(@xas) when done, whatever happened.
 */
int swap_xa_split_prepare(struct xa_state *xas, struct xarray *xa,
			  unsigned long index, void *folio, gfp_t gfp,
			  void (*update)(struct xa_node *node))
{
	unsigned int order;

	*xas = (struct xa_state)__XA_STATE(xa, index, 0, 0);
	rcu_read_lock();
	order = swap_xa_entry_order(xas);
	rcu_read_unlock();
	if (!order)
		return 0;
	xas_set(xas, index);
	xas_set_update(xas, update);
	xas_split_alloc(xas, folio, order, gfp);
	if (xas_error(xas))
		return -ENOMEM;
	return 1;
}

/**
 * swap_xa_split - split a multi-index entry into per-index entries
 * @xas: from swap_xa_split_prepare(), which returned 1
 * @folio: the entry
 * @order: its order
 *
 * Context: the XArray lock held. Afterwards every index of the range holds
 * @folio, as if it had been stored slot by slot.
 */
void swap_xa_split(struct xa_state *xas, void *folio, unsigned int order)
{
	xas_split(xas, folio, order);
}

#ifdef CONFIG_SYSFS
static ssize_t swap_cache_multi_index_show(struct kobject *kobj,
					   struct kobj_attribute *attr,
					   char *buf)
{
	return pmswap_show_bool(&swap_cache_mi_on, buf);
}

static ssize_t swap_cache_multi_index_store(struct kobject *kobj,
					    struct kobj_attribute *attr,
					    const char *buf, size_t count)
{
	return pmswap_store_bool(&swap_cache_mi_on, buf, count);
}

static struct kobj_attribute swap_cache_multi_index_attr =
	__ATTR_RW_MODE(swap_cache_multi_index, 0600);

static int __init swap_cache_mi_init(void)
{
	if (!pmswap_kobj)
		return -ENOMEM;
	return sysfs_create_file(pmswap_kobj, &swap_cache_multi_index_attr.attr);
}
subsys_initcall(swap_cache_mi_init);
#endif
