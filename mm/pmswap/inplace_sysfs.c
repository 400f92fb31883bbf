// SPDX-License-Identifier: GPL-2.0
/*
 * pmswap map in place, sysfs: per device, /sys/kernel/mm/pmswap/pmem/<disk>/
 * inplace (the policy) and stats/inplace_*; globally the directory
 * /sys/kernel/mm/pmswap/inplace with default_policy, where the scanner
 * (inplace_promote.c) and the PTE level (inplace_pte.c) add their knobs.
 *
 * Copyright (C) 2026 pmswap developers
 */

#define pr_fmt(fmt) "pmswap: " fmt

#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "inplace.h"
#include "pmswap.h"
#include "swap_pmem.h"

static const char * const inplace_policy_names[] = {
	[INPLACE_NEVER] = "never",
	[INPLACE_READ] = "read",
	[INPLACE_ALWAYS] = "always",
};

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

/* The device's inplace file and its stats/inplace_* counters, together. */
void inplace_sysfs_add(struct inplace_dev *d)
{
	struct pmswap_pmem *pd = d->pd;

	if (sysfs_create_group(&pd->kobj, &inplace_dev_group)) {
		pr_warn("%pg: no inplace file in sysfs\n", pd->si->bdev);
	} else if (sysfs_merge_group(&pd->kobj, &inplace_stats_group)) {
		sysfs_remove_group(&pd->kobj, &inplace_dev_group);
		pr_warn("%pg: no stats/inplace_* files in sysfs\n",
			pd->si->bdev);
	}
}

void inplace_sysfs_remove(struct inplace_dev *d)
{
	sysfs_unmerge_group(&d->pd->kobj, &inplace_stats_group);
	sysfs_remove_group(&d->pd->kobj, &inplace_dev_group);
}

/* sysfs: /sys/kernel/mm/pmswap/inplace/ */

ssize_t inplace_uint_show(const unsigned int *knob, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(*knob));
}

ssize_t inplace_uint_store(unsigned int *knob, const char *buf, size_t count,
			   unsigned int min, unsigned int max)
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
	return policy_show(&inplace_default_policy, buf);
}

static ssize_t default_policy_store(struct kobject *kobj,
				    struct kobj_attribute *attr,
				    const char *buf, size_t count)
{
	return policy_store(&inplace_default_policy, buf, count);
}

static struct kobj_attribute default_policy_attr =
	__ATTR_RW_MODE(default_policy, 0644);

static struct attribute *inplace_attrs[] = {
	&default_policy_attr.attr,
	NULL,
};

static const struct attribute_group inplace_group = {
	.name = "inplace",
	.attrs = inplace_attrs,
};

/* Before the knobs of the scanner and the PTE level are merged in. */
int __init inplace_sysfs_init(void)
{
	if (!pmswap_kobj)
		return -ENOMEM;
	return sysfs_create_group(pmswap_kobj, &inplace_group);
}
