/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmswap: declarations shared by the pmswap files in mm/.
 *
 * Copyright (C) 2026 pmswap developers
 */
#ifndef _MM_PMSWAP_H
#define _MM_PMSWAP_H

struct folio;
struct kobject;
struct swap_info_struct;

/* /sys/kernel/mm/pmswap; NULL if it could not be created. */
extern struct kobject *pmswap_kobj;

#ifdef CONFIG_PMSWAP_PMEM
int pmswap_pmem_swapon(struct swap_info_struct *si, unsigned char *swap_map,
		       unsigned long maxpages);
void pmswap_pmem_swapoff(struct swap_info_struct *si);
bool pmswap_pmem_write_folio(struct swap_info_struct *si, struct folio *folio);
bool pmswap_pmem_read_folio(struct swap_info_struct *si, struct folio *folio);
#else
static inline int pmswap_pmem_swapon(struct swap_info_struct *si,
				     unsigned char *swap_map,
				     unsigned long maxpages)
{
	return 0;
}

static inline void pmswap_pmem_swapoff(struct swap_info_struct *si)
{
}

static inline bool pmswap_pmem_write_folio(struct swap_info_struct *si,
					   struct folio *folio)
{
	return false;
}

static inline bool pmswap_pmem_read_folio(struct swap_info_struct *si,
					  struct folio *folio)
{
	return false;
}
#endif

#endif /* _MM_PMSWAP_H */
