/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmswap: declarations shared by the pmswap files in mm/.
 *
 * Copyright (C) 2026 pmswap developers
 */
#ifndef _MM_PMSWAP_H
#define _MM_PMSWAP_H

#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/types.h>

struct folio;
struct kobject;
struct mm_struct;
struct swap_info_struct;
struct vm_fault;

#ifdef CONFIG_PMSWAP_HUGE_SWAP
/*
 * x86-64 keeps the exclusive marker of a swap entry in _PAGE_SWP_EXCLUSIVE;
 * PMD and PTE entries share the layout.
 */
static inline pmd_t pmd_swp_mkexclusive(pmd_t pmd)
{
	return __pmd(pmd_val(pmd) | _PAGE_SWP_EXCLUSIVE);
}

static inline bool pmd_swp_exclusive(pmd_t pmd)
{
	return pmd_val(pmd) & _PAGE_SWP_EXCLUSIVE;
}

static inline pmd_t pmd_swp_clear_exclusive(pmd_t pmd)
{
	return __pmd(pmd_val(pmd) & ~_PAGE_SWP_EXCLUSIVE);
}

bool huge_swap_memcg_tight(struct mm_struct *mm);
bool huge_swap_willneed(struct vm_area_struct *vma, unsigned long haddr,
			pmd_t *pmd);
#else
static inline bool huge_swap_willneed(struct vm_area_struct *vma,
				      unsigned long haddr, pmd_t *pmd)
{
	return false;
}
#endif

/*
 * Map in place lives in swap_inplace.c, built once its hooks are in the
 * tree (patches/0010 defines pmd_is_inplace): each prefix of the patch
 * series builds with the whole configuration.
 */
#if defined(CONFIG_PMSWAP_INPLACE) && defined(pmd_is_inplace)
int pmswap_inplace_try_map(struct vm_fault *vmf, struct swap_info_struct *si);
bool pmswap_inplace_active(struct swap_info_struct *si);
#else
static inline int pmswap_inplace_try_map(struct vm_fault *vmf,
					 struct swap_info_struct *si)
{
	return 0;
}

static inline bool pmswap_inplace_active(struct swap_info_struct *si)
{
	return false;
}
#endif

/*
 * Race windows (CONFIG_PMSWAP_RACE_WINDOWS): points between a lockless
 * check and the locked step that depends on it, where a test may make
 * the path sleep so that the racing path runs inside the window. Each
 * caller may sleep there.
 */
enum pmswap_race {
	/* a fault mapping pmem in place: after its checks, before the PMD lock */
	PMSWAP_RACE_INPLACE_MAP,
	/* swapoff: after reading a huge swap entry, before acting on it */
	PMSWAP_RACE_UNUSE_PMD,
	PMSWAP_RACE_NR,
};

#ifdef CONFIG_PMSWAP_RACE_WINDOWS
void pmswap_race_window(enum pmswap_race id);
#else
static inline void pmswap_race_window(enum pmswap_race id)
{
}
#endif

/* /sys/kernel/mm/pmswap; NULL if it could not be created. */
extern struct kobject *pmswap_kobj;

ssize_t pmswap_show_bool(const bool *knob, char *buf);
ssize_t pmswap_store_bool(bool *knob, const char *buf, size_t count);

#ifdef CONFIG_PMSWAP_PMEM
int pmswap_pmem_swapon(struct swap_info_struct *si, unsigned char *swap_map,
		       unsigned long maxpages);
void pmswap_pmem_swapoff(struct swap_info_struct *si);
bool pmswap_pmem_write_folio(struct swap_info_struct *si, struct folio *folio);
bool pmswap_pmem_read_folio(struct swap_info_struct *si, struct folio *folio);
vm_fault_t pmswap_swapin_error(swp_entry_t entry);
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

static inline vm_fault_t pmswap_swapin_error(swp_entry_t entry)
{
	return VM_FAULT_SIGBUS;
}
#endif

struct xarray;
struct xa_state;
struct xa_node;

#ifdef CONFIG_PMSWAP_SWAP_CACHE_MI
bool swap_cache_mi_wanted(struct folio *folio);
void swap_xas_store_multi(struct xa_state *xas, void *folio, void **shadowp);
int swap_xa_store_folio(struct xarray *xa, unsigned long index, void *folio,
			unsigned int order, gfp_t gfp, void **shadowp);
int swap_xa_split_shadow(struct xarray *xa, unsigned long index, gfp_t gfp,
			 void (*update)(struct xa_node *node));
unsigned int swap_xa_entry_order(struct xa_state *xas);
bool swap_xa_replace(struct xarray *xa, unsigned long index, void *expected,
		     void *entry, void (*update)(struct xa_node *node));
int swap_xa_split_prepare(struct xa_state *xas, struct xarray *xa,
			  unsigned long index, void *folio, gfp_t gfp,
			  void (*update)(struct xa_node *node));
void swap_xa_split(struct xa_state *xas, void *folio, unsigned int order);
#else
static inline bool swap_cache_mi_wanted(struct folio *folio)
{
	return false;
}

static inline void swap_xas_store_multi(struct xa_state *xas, void *folio,
					void **shadowp)
{
}

static inline int swap_xa_split_shadow(struct xarray *xa, unsigned long index,
				       gfp_t gfp,
				       void (*update)(struct xa_node *node))
{
	return 0;
}

static inline unsigned int swap_xa_entry_order(struct xa_state *xas)
{
	return 0;
}

static inline bool swap_xa_replace(struct xarray *xa, unsigned long index,
				   void *expected, void *entry,
				   void (*update)(struct xa_node *node))
{
	return false;
}

static inline int swap_xa_split_prepare(struct xa_state *xas,
					struct xarray *xa, unsigned long index,
					void *folio, gfp_t gfp,
					void (*update)(struct xa_node *node))
{
	return 0;
}

static inline void swap_xa_split(struct xa_state *xas, void *folio,
				 unsigned int order)
{
}
#endif

#endif /* _MM_PMSWAP_H */
