// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the multi-index swap cache helpers
 * (mm/pmswap/swap_cache_mi.c): store, lookup at every index, conflicts,
 * shadows, split, and the XArray node count against the per-index layout.
 *
 * They run on a private XArray with stand-in pointers for folios, so they
 * need no swap device; the guest boot runs them with the other tests.
 *
 * Copyright (C) 2026 pmswap developers
 */

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/xarray.h>

#include "pmswap.h"

#define ORDER	HPAGE_PMD_ORDER
#define NR	BIT(ORDER)
/* the 6th huge extent of a swap address space: not at index 0 */
#define BASE	(5 * NR)

static long folio_a[4] __aligned(16);
static long folio_b[4] __aligned(16);

struct mi_ctx {
	struct xarray xa;
};

static int mi_init(struct kunit *test)
{
	struct mi_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	xa_init_flags(&ctx->xa, XA_FLAGS_LOCK_IRQ);
	test->priv = ctx;
	return 0;
}

static void mi_exit(struct kunit *test)
{
	struct mi_ctx *ctx = test->priv;

	xa_destroy(&ctx->xa);
}

/* Entries at every index of the extent equal @want (under RCU). */
static unsigned long count_equal(struct xarray *xa, void *want)
{
	unsigned long i, n = 0;

	rcu_read_lock();
	for (i = BASE; i < BASE + NR; i++)
		n += xa_load(xa, i) == want;
	rcu_read_unlock();
	return n;
}

static unsigned int order_at(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);
	unsigned int order;

	rcu_read_lock();
	order = swap_xa_entry_order(&xas);
	rcu_read_unlock();
	return order;
}

static unsigned long count_nodes(void *entry)
{
	struct xa_node *node;
	unsigned long i, n;

	if (!xa_is_node(entry))
		return 0;
	node = xa_to_node(entry);
	n = 1;
	for (i = 0; i < XA_CHUNK_SIZE; i++)
		n += count_nodes(rcu_dereference_raw(node->slots[i]));
	return n;
}

static void store_per_index(struct kunit *test, struct xarray *xa, void *entry)
{
	unsigned long i;

	for (i = BASE; i < BASE + NR; i++)
		KUNIT_ASSERT_EQ(test, xa_err(xa_store_irq(xa, i, entry, GFP_KERNEL)), 0);
}

static void mi_store_lookup_every_index(struct kunit *test)
{
	struct xarray *xa = &((struct mi_ctx *)test->priv)->xa;

	KUNIT_ASSERT_EQ(test, swap_xa_store_folio(xa, BASE, folio_a, ORDER,
						  GFP_KERNEL, NULL), 0);
	KUNIT_EXPECT_EQ(test, count_equal(xa, folio_a), NR);
	KUNIT_EXPECT_NULL(test, xa_load(xa, BASE - 1));
	KUNIT_EXPECT_NULL(test, xa_load(xa, BASE + NR));
	KUNIT_EXPECT_EQ(test, order_at(xa, BASE), ORDER);
	KUNIT_EXPECT_EQ(test, order_at(xa, BASE + NR - 1), ORDER);
}

static void mi_conflict_with_folio(struct kunit *test)
{
	struct xarray *xa = &((struct mi_ctx *)test->priv)->xa;

	KUNIT_ASSERT_EQ(test, xa_err(xa_store_irq(xa, BASE + 77, folio_b,
						  GFP_KERNEL)), 0);
	KUNIT_EXPECT_EQ(test, swap_xa_store_folio(xa, BASE, folio_a, ORDER,
						  GFP_KERNEL, NULL), -EEXIST);
	/* nothing changed */
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, BASE + 77), (void *)folio_b);
	KUNIT_EXPECT_NULL(test, xa_load(xa, BASE));
	KUNIT_EXPECT_EQ(test, count_equal(xa, folio_a), 0UL);
}

static void mi_store_over_shadows(struct kunit *test)
{
	struct xarray *xa = &((struct mi_ctx *)test->priv)->xa;
	void *shadow = xa_mk_value(0x1234), *found = NULL;

	/* 512 per-index shadows, as 4 KiB evictions leave them */
	store_per_index(test, xa, shadow);
	KUNIT_ASSERT_EQ(test, swap_xa_store_folio(xa, BASE, folio_a, ORDER,
						  GFP_KERNEL, &found), 0);
	KUNIT_EXPECT_PTR_EQ(test, found, shadow);
	KUNIT_EXPECT_EQ(test, count_equal(xa, folio_a), NR);
	KUNIT_EXPECT_EQ(test, order_at(xa, BASE + 300), ORDER);
}

static void mi_erase_leaves_one_shadow(struct kunit *test)
{
	struct xarray *xa = &((struct mi_ctx *)test->priv)->xa;
	void *shadow = xa_mk_value(0xbeef), *found = NULL;
	bool done;

	KUNIT_ASSERT_EQ(test, swap_xa_store_folio(xa, BASE, folio_a, ORDER,
						  GFP_KERNEL, NULL), 0);
	xa_lock_irq(xa);
	done = swap_xa_replace(xa, BASE + 200, folio_a, shadow, NULL);
	xa_unlock_irq(xa);
	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_EQ(test, count_equal(xa, shadow), NR);
	KUNIT_EXPECT_EQ(test, order_at(xa, BASE + 511), ORDER);

	/* a refault finds the one shadow at any index, and a new folio replaces it */
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, BASE + 5), shadow);
	KUNIT_ASSERT_EQ(test, swap_xa_store_folio(xa, BASE, folio_b, ORDER,
						  GFP_KERNEL, &found), 0);
	KUNIT_EXPECT_PTR_EQ(test, found, shadow);
	KUNIT_EXPECT_EQ(test, count_equal(xa, folio_b), NR);

	/* and erasing it outright (no shadow) empties the whole extent */
	xa_lock_irq(xa);
	done = swap_xa_replace(xa, BASE, folio_b, NULL, NULL);
	xa_unlock_irq(xa);
	KUNIT_EXPECT_TRUE(test, done);
	KUNIT_EXPECT_EQ(test, count_equal(xa, NULL), NR);
	KUNIT_EXPECT_TRUE(test, xa_empty(xa));
}

static void mi_clear_part_of_shadow(struct kunit *test)
{
	struct xarray *xa = &((struct mi_ctx *)test->priv)->xa;
	void *shadow = xa_mk_value(7);
	XA_STATE(xas, xa, BASE + 40);
	void *old;

	/*
	 * clear_shadow_from_swap_cache() freeing one slot of a huge extent:
	 * the shadow stands for the whole THP, so it goes as a whole.
	 */
	KUNIT_ASSERT_EQ(test, swap_xa_store_folio(xa, BASE, shadow, ORDER,
						  GFP_KERNEL, NULL), 0);
	xas_lock_irq(&xas);
	xas_for_each(&xas, old, BASE + 40) {
		if (xa_is_value(old))
			xas_store(&xas, NULL);
	}
	xas_unlock_irq(&xas);
	KUNIT_EXPECT_EQ(test, count_equal(xa, NULL), NR);
}

static void mi_small_folio_in_huge_shadow(struct kunit *test)
{
	struct xarray *xa = &((struct mi_ctx *)test->priv)->xa;
	void *shadow = xa_mk_value(99);

	/* a THP left one shadow; one of its pages comes back as 4 KiB */
	KUNIT_ASSERT_EQ(test, swap_xa_store_folio(xa, BASE, shadow, ORDER,
						  GFP_KERNEL, NULL), 0);
	KUNIT_ASSERT_EQ(test, swap_xa_split_shadow(xa, BASE + 10, GFP_KERNEL,
						   NULL), 0);
	KUNIT_EXPECT_EQ(test, order_at(xa, BASE + 10), 0U);
	KUNIT_EXPECT_EQ(test, count_equal(xa, shadow), NR);
	xa_store_irq(xa, BASE + 10, folio_a, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, BASE + 10), (void *)folio_a);
	/* the other 511 pages keep their shadow */
	KUNIT_EXPECT_EQ(test, count_equal(xa, shadow), NR - 1);
	/* nothing to split in per-index entries */
	KUNIT_EXPECT_EQ(test, swap_xa_split_shadow(xa, BASE + 11, GFP_KERNEL,
						   NULL), 0);
	KUNIT_EXPECT_EQ(test, count_equal(xa, shadow), NR - 1);
}

static void mi_per_index_left_alone(struct kunit *test)
{
	struct xarray *xa = &((struct mi_ctx *)test->priv)->xa;
	bool done;

	store_per_index(test, xa, folio_a);
	KUNIT_EXPECT_EQ(test, order_at(xa, BASE + 3), 0U);
	xa_lock_irq(xa);
	done = swap_xa_replace(xa, BASE, folio_a, NULL, NULL);
	xa_unlock_irq(xa);
	KUNIT_EXPECT_FALSE(test, done);
	KUNIT_EXPECT_EQ(test, count_equal(xa, folio_a), NR);
}

static void mi_split(struct kunit *test)
{
	struct xarray *xa = &((struct mi_ctx *)test->priv)->xa;
	struct xa_state xas;
	int ret;

	KUNIT_ASSERT_EQ(test, swap_xa_store_folio(xa, BASE, folio_a, ORDER,
						  GFP_KERNEL, NULL), 0);
	ret = swap_xa_split_prepare(&xas, xa, BASE, folio_a, GFP_KERNEL, NULL);
	KUNIT_ASSERT_EQ(test, ret, 1);
	xas_lock_irq(&xas);
	swap_xa_split(&xas, folio_a, ORDER);
	xas_unlock_irq(&xas);
	xas_destroy(&xas);
	KUNIT_EXPECT_EQ(test, count_equal(xa, folio_a), NR);
	KUNIT_EXPECT_EQ(test, order_at(xa, BASE + 100), 0U);
	/* after the split each index can take its own entry (tail pages) */
	xa_store_irq(xa, BASE + 100, folio_b, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(xa, BASE + 100), (void *)folio_b);
	KUNIT_EXPECT_EQ(test, count_equal(xa, folio_a), NR - 1);

	/* a per-index entry needs no split */
	ret = swap_xa_split_prepare(&xas, xa, BASE, folio_a, GFP_KERNEL, NULL);
	KUNIT_EXPECT_EQ(test, ret, 0);
	xas_destroy(&xas);
}

static void mi_fewer_nodes(struct kunit *test)
{
	struct xarray *xa = &((struct mi_ctx *)test->priv)->xa;
	unsigned long per_index, multi;

	store_per_index(test, xa, folio_a);
	per_index = count_nodes(rcu_dereference_raw(xa->xa_head));
	xa_destroy(xa);
	xa_init_flags(xa, XA_FLAGS_LOCK_IRQ);
	KUNIT_ASSERT_EQ(test, swap_xa_store_folio(xa, BASE, folio_a, ORDER,
						  GFP_KERNEL, NULL), 0);
	multi = count_nodes(rcu_dereference_raw(xa->xa_head));
	kunit_info(test, "XArray nodes for one 2 MiB folio: %lu per-index, %lu multi-index\n",
		   per_index, multi);
	KUNIT_EXPECT_LT(test, multi, per_index);
}

static struct kunit_case mi_cases[] = {
	KUNIT_CASE(mi_store_lookup_every_index),
	KUNIT_CASE(mi_conflict_with_folio),
	KUNIT_CASE(mi_store_over_shadows),
	KUNIT_CASE(mi_erase_leaves_one_shadow),
	KUNIT_CASE(mi_clear_part_of_shadow),
	KUNIT_CASE(mi_small_folio_in_huge_shadow),
	KUNIT_CASE(mi_per_index_left_alone),
	KUNIT_CASE(mi_split),
	KUNIT_CASE(mi_fewer_nodes),
	{}
};

static struct kunit_suite mi_suite = {
	.name = "pmswap_swap_cache_mi",
	.init = mi_init,
	.exit = mi_exit,
	.test_cases = mi_cases,
};

kunit_test_suite(mi_suite);

MODULE_DESCRIPTION("KUnit tests for pmswap's multi-index swap cache");
MODULE_LICENSE("GPL");
