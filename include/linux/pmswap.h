/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmswap: the hooks the core kernel calls, one section per feature.
 *
 * A feature's hooks are declared under its option of mm/pmswap/Kconfig,
 * with stubs for a kernel without it. Each option arrives with the patch
 * of the series that adds the feature's hooks to the core kernel, so the
 * tree at every prefix of the series builds: what is not in yet is a
 * stub. The implementations are in mm/pmswap/, a file per role; what
 * only those files share is in mm/pmswap/pmswap.h (and, for map in place,
 * mm/pmswap/inplace.h). Included by <linux/huge_mm.h>, from <linux/mm.h>:
 * its inline functions need what <linux/mm.h> has declared by then, so a
 * file includes <linux/mm.h> before it.
 *
 * Copyright (C) 2026 pmswap developers
 */
#ifndef _LINUX_PMSWAP_H
#define _LINUX_PMSWAP_H

#include <linux/mm_types.h>
#include <linux/types.h>

struct folio;
struct mm_struct;
struct mmu_gather;
struct page_vma_mapped_walk;
struct seq_file;
struct swap_info_struct;
struct vm_area_struct;
struct vm_fault;
struct xa_node;
struct xa_state;
struct xarray;

/*
 * Huge swap entries (CONFIG_PMSWAP_HUGE_SWAP, mm/pmswap/huge_swap.c): a PMD
 * mapping a swapped-out THP becomes one PMD swap entry.
 */
#ifdef CONFIG_PMSWAP_HUGE_SWAP
vm_fault_t do_huge_pmd_swap_page(struct vm_fault *vmf);
bool huge_swap_try_unmap_pmd(struct page_vma_mapped_walk *pvmw,
			     struct folio *folio);
void huge_swap_split_pmd_locked(struct vm_area_struct *vma, pmd_t *pmd,
				unsigned long haddr);
void huge_swap_zap_entry(struct mm_struct *mm, pmd_t orig);
int huge_swap_copy_pmd(struct mm_struct *dst_mm, struct mm_struct *src_mm,
		       pmd_t *dst_pmd, pmd_t *src_pmd, unsigned long addr,
		       struct vm_area_struct *dst_vma,
		       struct vm_area_struct *src_vma, pgtable_t pgtable);
bool huge_swap_zap_or_split(struct vm_area_struct *vma, pmd_t *pmd,
			    unsigned long addr, unsigned long next);
void huge_swap_unuse_pmd(struct vm_area_struct *vma, pmd_t *pmd,
			 unsigned long addr, unsigned int type);
int huge_swap_move_pmd(struct mm_struct *mm, pmd_t *dst_pmd, pmd_t *src_pmd,
		       struct vm_area_struct *dst_vma,
		       struct vm_area_struct *src_vma,
		       unsigned long dst_addr, unsigned long src_addr);
bool huge_swap_willneed(struct vm_area_struct *vma, unsigned long haddr,
			pmd_t *pmd);
#else
static inline vm_fault_t do_huge_pmd_swap_page(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static inline bool huge_swap_try_unmap_pmd(struct page_vma_mapped_walk *pvmw,
					   struct folio *folio)
{
	return false;
}

static inline void huge_swap_split_pmd_locked(struct vm_area_struct *vma,
					      pmd_t *pmd, unsigned long haddr)
{
}

static inline void huge_swap_zap_entry(struct mm_struct *mm, pmd_t orig)
{
}

static inline int huge_swap_copy_pmd(struct mm_struct *dst_mm,
				     struct mm_struct *src_mm, pmd_t *dst_pmd,
				     pmd_t *src_pmd, unsigned long addr,
				     struct vm_area_struct *dst_vma,
				     struct vm_area_struct *src_vma,
				     pgtable_t pgtable)
{
	return -EAGAIN;
}

static inline bool huge_swap_zap_or_split(struct vm_area_struct *vma,
					  pmd_t *pmd, unsigned long addr,
					  unsigned long next)
{
	return false;
}

static inline void huge_swap_unuse_pmd(struct vm_area_struct *vma,
				       pmd_t *pmd, unsigned long addr,
				       unsigned int type)
{
}

static inline int huge_swap_move_pmd(struct mm_struct *mm, pmd_t *dst_pmd,
				     pmd_t *src_pmd,
				     struct vm_area_struct *dst_vma,
				     struct vm_area_struct *src_vma,
				     unsigned long dst_addr,
				     unsigned long src_addr)
{
	return -EBUSY;
}

static inline bool huge_swap_willneed(struct vm_area_struct *vma,
				      unsigned long haddr, pmd_t *pmd)
{
	return false;
}
#endif

/* Swap on pmem through DAX (CONFIG_PMSWAP_PMEM, mm/pmswap/swap_pmem.c). */
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

/*
 * PMD-size folios as one multi-index swap cache entry
 * (CONFIG_PMSWAP_SWAP_CACHE_MI, mm/pmswap/swap_cache_mi.c).
 */
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

/*
 * Map in place (CONFIG_PMSWAP_INPLACE, mm/pmswap/inplace*.c): a fault on a
 * huge swap entry on pmem maps its 2 MiB extent with one PMD.
 */
#ifdef CONFIG_PMSWAP_INPLACE
/*
 * A PMD that maps a 2 MiB extent of a pmem swap device in place
 * (mm/pmswap/inplace_pmd.c). Nothing else puts a special PMD in an
 * anonymous VMA.
 */
static inline bool pmd_is_inplace(struct vm_area_struct *vma, pmd_t pmd)
{
	return !vma->vm_ops && pmd_present(pmd) && pmd_special(pmd);
}

pmd_t pmswap_inplace_pmd_revert_locked(struct vm_area_struct *vma,
				       unsigned long addr, pmd_t *pmd,
				       bool promote);
void pmswap_inplace_pmd_revert(struct vm_area_struct *vma, unsigned long addr,
			       pmd_t *pmd);
void pmswap_inplace_pmd_unuse(struct vm_area_struct *vma, unsigned long addr,
			      pmd_t *pmd, unsigned int type);
bool pmswap_inplace_pmd_peek(struct vm_area_struct *vma, pmd_t *pmd);
vm_fault_t pmswap_inplace_pmd_fault(struct vm_fault *vmf);
bool pmswap_inplace_rw_busy(swp_entry_t entry);
void pmswap_inplace_swapon(struct swap_info_struct *si);
void pmswap_inplace_swapoff(struct swap_info_struct *si);
void pmswap_inplace_meminfo(struct seq_file *m);
int pmswap_inplace_pmd_try_map(struct vm_fault *vmf,
			       struct swap_info_struct *si);
bool pmswap_inplace_active(struct swap_info_struct *si);
#else
static inline bool pmd_is_inplace(struct vm_area_struct *vma, pmd_t pmd)
{
	return false;
}

static inline pmd_t pmswap_inplace_pmd_revert_locked(struct vm_area_struct *vma,
						     unsigned long addr,
						     pmd_t *pmd, bool promote)
{
	return *pmd;
}

static inline void pmswap_inplace_pmd_revert(struct vm_area_struct *vma,
					     unsigned long addr, pmd_t *pmd)
{
}

static inline void pmswap_inplace_pmd_unuse(struct vm_area_struct *vma,
					    unsigned long addr, pmd_t *pmd,
					    unsigned int type)
{
}

static inline bool pmswap_inplace_pmd_peek(struct vm_area_struct *vma,
					   pmd_t *pmd)
{
	return false;
}

static inline vm_fault_t pmswap_inplace_pmd_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static inline bool pmswap_inplace_rw_busy(swp_entry_t entry)
{
	return false;
}

static inline void pmswap_inplace_swapon(struct swap_info_struct *si)
{
}

static inline void pmswap_inplace_swapoff(struct swap_info_struct *si)
{
}

static inline void pmswap_inplace_meminfo(struct seq_file *m)
{
}

static inline int pmswap_inplace_pmd_try_map(struct vm_fault *vmf,
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
 * Map in place of 4 KiB swap entries (CONFIG_PMSWAP_INPLACE_PTE, with
 * map in place, mm/pmswap/inplace_pte.c): one PTE per slot. The flags of
 * pmswap_inplace_pte_revert_locked() are defined in every configuration,
 * since callers name them in code that compiles either way.
 */
#define PMSWAP_REVERT_PROMOTE	0x1	/* the next fault copies to DRAM */
#define PMSWAP_REVERT_NOFLUSH	0x2	/* the mm is gone: no TLB flush */

#ifdef CONFIG_PMSWAP_INPLACE_PTE
/*
 * A PTE that maps one 4 KiB slot of a pmem swap device in place. The only
 * other special PTE an anonymous VMA has is the zero page.
 */
static inline bool pte_is_inplace(struct vm_area_struct *vma, pte_t pte)
{
	return !vma->vm_ops && pte_present(pte) && pte_special(pte) &&
	       !is_zero_pfn(pte_pfn(pte));
}

pte_t pmswap_inplace_pte_revert_locked(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int flags);
pte_t pmswap_inplace_pte_unuse(struct vm_area_struct *vma, pmd_t *pmd,
			       unsigned long addr, pte_t *ptep,
			       unsigned int type);
vm_fault_t pmswap_inplace_pte_fault(struct vm_fault *vmf);
bool pmswap_inplace_pte_try_map(struct vm_fault *vmf,
				struct swap_info_struct *si);
#else
static inline bool pte_is_inplace(struct vm_area_struct *vma, pte_t pte)
{
	return false;
}

static inline pte_t pmswap_inplace_pte_revert_locked(struct vm_area_struct *vma,
						     unsigned long addr,
						     pte_t *ptep,
						     unsigned int flags)
{
	return ptep_get(ptep);
}

static inline pte_t pmswap_inplace_pte_unuse(struct vm_area_struct *vma,
					     pmd_t *pmd, unsigned long addr,
					     pte_t *ptep, unsigned int type)
{
	return ptep_get(ptep);
}

static inline vm_fault_t pmswap_inplace_pte_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static inline bool pmswap_inplace_pte_try_map(struct vm_fault *vmf,
					      struct swap_info_struct *si)
{
	return false;
}
#endif

#endif /* _LINUX_PMSWAP_H */
