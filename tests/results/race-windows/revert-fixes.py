# Apply the pre-fix behaviour of issue 14 items 4 and 7 to a copy of mm/ (demo only)
import sys
d=sys.argv[1]
p=d+'/mm/huge_swap.c'; s=open(p).read()
old='''	pmswap_race_window(PMSWAP_RACE_UNUSE_PMD);
	do_huge_pmd_swap_page(&vmf);
	huge_swap_split_pmd(vma, pmd, haddr, vmf.orig_pmd);'''
new='''	pmswap_race_window(PMSWAP_RACE_UNUSE_PMD);
	/* REVERTED (f287e58): fault and split on the lockless read */
	handle_mm_fault(vma, haddr, 0, NULL);
	if (is_huge_swap_pmd(pmdp_get_lockless(pmd)))
		split_huge_pmd(vma, pmd, haddr);'''
assert old in s; s=s.replace(old,new); open(p,'w').write(s)
p=d+'/mm/swap_inplace.c'; s=open(p).read()
old='''	if (unlikely(!pmd_same(*vmf->pmd, vmf->orig_pmd) ||
		     !pmswap_pmem_use_dax(d->pd) ||'''
new='''	if (unlikely(!pmd_same(*vmf->pmd, vmf->orig_pmd) ||'''
assert old in s; s=s.replace(old,new)
old='''	if (!w->dev && !pmd_is_inplace(vma, pmdp_get_lockless(pmd)))'''
new='''	if (!pmd_is_inplace(vma, pmdp_get_lockless(pmd)))'''
assert old in s; s=s.replace(old,new); open(p,'w').write(s)
print("reverted")
