// SPDX-License-Identifier: GPL-2.0
/*
 * Swap a THP-backed region out with MADV_PAGEOUT and read it back, one
 * access per 4 KiB, and check what the kernel did on the way: how the
 * THPs left (whole or split, PMD split or not), where their slots went,
 * how many faults brought them back and whether they came back huge.
 *
 * Stock 6.12 (and pmswap with /sys/kernel/mm/pmswap/huge_swap = 0): the
 * folio leaves whole into 512 contiguous slots, the PMD is split, and the
 * data returns 4 KiB per fault. pmswap with huge_swap = 1: the PMD becomes
 * one huge swap entry and each THP returns whole in one fault. On a pmswap
 * kernel both modes are run. Usage: thp_swap_roundtrip [MiB] (default 256).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest.h"
#include "pmswap_test.h"

static size_t size;
static unsigned long nr_thp;
/* a pmswap kernel (the huge swap knob exists), whichever its setting */
static bool pmswap;

#define TESTS_PER_MODE 11
#define MAX_PTES_SWAP "/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_swap"

static void roundtrip(int huge)
{
	const char *m = huge ? "huge" : "stock";
	struct pt_swapstat s0, s1, s2, d;
	unsigned long i, unaligned = 0, noncontig = 0, notswapped = 0;
	long kb, faults, major, used0, pmd0, pmd1, in0, in1, st0, st1;
	long coll0, coll;
	struct pt_faults f0;
	uint64_t *pm;
	char *mem;
	int fd;

	used0 = pt_swap_held_kb();
	mem = pt_alloc_thp(size);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, size, 1);

	kb = pt_smaps_kb(mem, "AnonHugePages");
	ksft_test_result(kb == (long)(size >> 10),
			 "%s: populated region is all THP (AnonHugePages %ld kB)\n", m, kb);

	pt_swapstat_now(&s0);
	pmd0 = pt_vmstat("thp_swpout_pmd");
	st0 = pt_thp_size_stat(2048, "swpout_pmd");
	if (pt_pageout(mem, size))
		ksft_exit_fail_perror("madvise(MADV_PAGEOUT)");
	pt_swapstat_now(&s1);
	pmd1 = pt_vmstat("thp_swpout_pmd");
	st1 = pt_thp_size_stat(2048, "swpout_pmd");
	pt_swapstat_delta(&s0, &s1, &d);
	pt_swapstat_print("swap-out", &d);

	ksft_test_result(d.thp_swpout == (long)nr_thp && d.thp_swpout_fallback == 0 &&
			 d.thp_split_page == 0,
			 "%s: %lu THPs swapped out as whole folios (thp_swpout +%ld, fallback +%ld, split_page +%ld)\n",
			 m, nr_thp, d.thp_swpout, d.thp_swpout_fallback, d.thp_split_page);
	ksft_test_result(d.pswpout == (long)(size / PT_PAGE_SIZE),
			 "%s: pswpout counts every 4 KiB page (+%ld)\n", m, d.pswpout);
	if (huge)
		ksft_test_result(d.thp_split_pmd == 0 && pmd1 - pmd0 == (long)nr_thp &&
				 st1 - st0 == (long)nr_thp,
				 "huge: no PMD split, one huge swap entry per THP (thp_split_pmd +%ld, thp_swpout_pmd +%ld, hugepages-2048kB swpout_pmd +%ld)\n",
				 d.thp_split_pmd, pmd1 - pmd0, st1 - st0);
	else
		ksft_test_result(d.thp_split_pmd == (long)nr_thp && pmd1 == pmd0,
				 "stock: every PMD split at swap-out (thp_split_pmd +%ld)\n",
				 d.thp_split_pmd);

	kb = pt_smaps_kb(mem, "Swap");
	ksft_test_result(kb == (long)(size >> 10) && pt_smaps_kb(mem, "Rss") == 0,
			 "%s: smaps: Swap %ld kB, Rss %ld kB\n", m, kb, pt_smaps_kb(mem, "Rss"));
	kb = pt_smaps_kb(mem, "SwapPmdMapped");
	if (huge)
		ksft_test_result(kb == (long)(size >> 10),
				 "huge: smaps: SwapPmdMapped %ld kB\n", kb);
	else if (!pmswap)
		/* stock smaps has no SwapPmdMapped field to look at */
		ksft_test_result_skip("stock: smaps SwapPmdMapped: no huge swap entries in this kernel\n");
	else
		/* huge_swap = 0: the field is there and must say 0 */
		ksft_test_result(kb == 0 && pmd1 == pmd0,
				 "stock: smaps: no memory in huge swap entries (SwapPmdMapped %ld kB, thp_swpout_pmd +%ld)\n",
				 kb, pmd1 - pmd0);

	/* Each THP sits in 512 contiguous slots starting on a 512 boundary. */
	fd = pt_pagemap_open();
	pm = calloc(size / PT_PAGE_SIZE, sizeof(*pm));
	if (fd < 0 || !pm || pt_pagemap_range(fd, mem, size / PT_PAGE_SIZE, pm))
		ksft_exit_fail_perror("pagemap");
	for (i = 0; i < size / PT_PAGE_SIZE; i++) {
		uint64_t first = pm[i & ~(PT_PMD_PAGES - 1)];

		if (!(pm[i] & PT_PM_SWAP) || (pm[i] & PT_PM_PRESENT)) {
			notswapped++;
			continue;
		}
		if (i % PT_PMD_PAGES == 0 && PT_PM_SWP_OFFSET(pm[i]) % PT_PMD_PAGES)
			unaligned++;
		if (PT_PM_SWP_OFFSET(pm[i]) != PT_PM_SWP_OFFSET(first) + i % PT_PMD_PAGES ||
		    PT_PM_SWP_TYPE(pm[i]) != PT_PM_SWP_TYPE(first))
			noncontig++;
	}
	ksft_test_result(!notswapped && !unaligned && !noncontig,
			 "%s: pagemap: all pages swapped, each THP in 512 contiguous aligned slots (not swapped %lu, unaligned %lu, non-contiguous %lu)\n",
			 m, notswapped, unaligned, noncontig);
	free(pm);
	close(fd);

	in0 = pt_vmstat("thp_swpin_pmd");
	coll0 = pt_vmstat("thp_collapse_alloc");
	pt_faults_now(&f0);
	pt_touch_read(mem, size);
	faults = pt_faults_since(&f0, &major);
	pt_swapstat_now(&s2);
	in1 = pt_vmstat("thp_swpin_pmd");
	pt_swapstat_delta(&s1, &s2, &d);
	pt_swapstat_print("read-back", &d);
	printf("# %s: read-back faults %ld (major %ld), thp_swpin_pmd +%ld\n",
	       m, faults, major, in1 - in0);

	kb = pt_smaps_kb(mem, "AnonHugePages");
	/* read after smaps: every collapse that smaps can show is counted */
	coll = pt_vmstat("thp_collapse_alloc") - coll0;
	if (huge) {
		ksft_test_result(faults == (long)nr_thp && in1 - in0 == (long)nr_thp &&
				 d.pswpin == (long)(size / PT_PAGE_SIZE),
				 "huge: read-back takes one fault per THP (%ld faults, thp_swpin_pmd +%ld, pswpin +%ld)\n",
				 faults, in1 - in0, d.pswpin);
		ksft_test_result(kb == (long)(size >> 10),
				 "huge: all THP after read-back (AnonHugePages %ld kB)\n", kb);
	} else {
		/*
		 * One fault and one 4 KiB swap-in per page; a khugepaged
		 * collapse may swap in up to max_ptes_swap pages of a range
		 * the read has not reached yet, sparing their faults.
		 */
		long all = size / PT_PAGE_SIZE;
		long swp = pt_read_long(MAX_PTES_SWAP);
		long spare = coll * (swp > 0 ? swp : 0);

		ksft_test_result(faults <= all && faults >= all - spare && d.pswpin == all,
				 "stock: read-back takes one fault per 4 KiB (%ld faults, pswpin +%ld, khugepaged collapses +%ld)\n",
				 faults, d.pswpin, coll);
		/*
		 * The fault path maps 4 KiB. khugepaged may rebuild some THPs
		 * meanwhile (more on a slow host); those are the only THPs
		 * allowed, counted by thp_collapse_alloc.
		 */
		ksft_test_result(kb >= 0 && kb <= coll * (long)(PT_PMD_SIZE >> 10),
				 "stock: read-back does not bring THPs back (AnonHugePages %ld kB, khugepaged collapses +%ld)\n",
				 kb, coll);
	}

	ksft_test_result(pt_verify(mem, size, 1) == 0, "%s: data intact after the round trip\n", m);

	pt_free_thp(mem, size);
	ksft_test_result(pt_swap_held_kb() <= used0,
			 "%s: swap slots freed on munmap (used %ld kB, before %ld kB)\n",
			 m, pt_swap_held_kb(), used0);
}

int main(int argc, char **argv)
{
	int mode;

	size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 256) * PT_MIB;
	nr_thp = size / PT_PMD_SIZE;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	mode = pt_huge_swap_mode();
	pmswap = mode >= 0;
	ksft_print_msg("kernel: %s\n", mode < 0 ? "stock (no huge swap entries)" :
		       "pmswap (huge swap entries, both settings run)");
	ksft_set_plan(mode < 0 ? TESTS_PER_MODE : 2 * TESTS_PER_MODE);

	if (mode < 0) {
		roundtrip(0);
	} else {
		pt_huge_swap_set(0);
		roundtrip(0);
		pt_huge_swap_set(1);
		roundtrip(1);
		pt_huge_swap_set(mode);
	}
	ksft_finished();
}
