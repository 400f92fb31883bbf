// SPDX-License-Identifier: GPL-2.0
/*
 * Swap a THP-backed region out with MADV_PAGEOUT and read it back, one
 * access per 4 KiB, and check what the kernel did on the way: how the
 * THPs left (whole or split, PMD split or not), where their slots went,
 * how many faults brought them back and whether they came back huge.
 *
 * The expectations document stock 6.12: the folio leaves whole into 512
 * contiguous slots, the PMD is split, and the data returns 4 KiB per
 * fault. Usage: thp_swap_roundtrip [MiB] (default 256).
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
static char *mem;

int main(int argc, char **argv)
{
	struct pt_swapstat s0, s1, s2, d;
	struct pt_faults f0;
	unsigned long i, unaligned = 0, noncontig = 0, notswapped = 0;
	uint64_t *pm;
	long kb, faults, major, used0;
	int fd;

	size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 256) * PT_MIB;
	nr_thp = size / PT_PMD_SIZE;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	ksft_set_plan(10);

	used0 = pt_swap_used_kb();
	mem = pt_alloc_thp(size);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, size, 1);

	kb = pt_smaps_kb(mem, "AnonHugePages");
	ksft_test_result(kb == (long)(size >> 10),
			 "populated region is all THP (AnonHugePages %ld kB)\n", kb);

	pt_swapstat_now(&s0);
	if (pt_pageout(mem, size))
		ksft_exit_fail_perror("madvise(MADV_PAGEOUT)");
	pt_swapstat_now(&s1);
	pt_swapstat_delta(&s0, &s1, &d);
	pt_swapstat_print("swap-out", &d);

	ksft_test_result(d.thp_swpout == (long)nr_thp && d.thp_swpout_fallback == 0 &&
			 d.thp_split_page == 0,
			 "%lu THPs swapped out as whole folios (thp_swpout +%ld, fallback +%ld, split_page +%ld)\n",
			 nr_thp, d.thp_swpout, d.thp_swpout_fallback, d.thp_split_page);
	ksft_test_result(d.pswpout == (long)(size / PT_PAGE_SIZE),
			 "pswpout counts every 4 KiB page (+%ld)\n", d.pswpout);
	/* Stock 6.12: try_to_unmap() splits the PMD of every THP. */
	ksft_test_result(d.thp_split_pmd == (long)nr_thp,
			 "stock: every PMD split at swap-out (thp_split_pmd +%ld)\n",
			 d.thp_split_pmd);

	kb = pt_smaps_kb(mem, "Swap");
	ksft_test_result(kb == (long)(size >> 10) && pt_smaps_kb(mem, "Rss") == 0,
			 "smaps: Swap %ld kB, Rss %ld kB\n", kb, pt_smaps_kb(mem, "Rss"));

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
			 "pagemap: all pages swapped, each THP in 512 contiguous aligned slots (not swapped %lu, unaligned %lu, non-contiguous %lu)\n",
			 notswapped, unaligned, noncontig);

	pt_faults_now(&f0);
	pt_touch_read(mem, size);
	faults = pt_faults_since(&f0, &major);
	pt_swapstat_now(&s2);
	pt_swapstat_delta(&s1, &s2, &d);
	pt_swapstat_print("read-back", &d);
	printf("# read-back faults %ld (major %ld)\n", faults, major);

	/* Stock 6.12: one fault and one 4 KiB swap-in per page. */
	ksft_test_result(faults == (long)(size / PT_PAGE_SIZE) &&
			 d.pswpin == (long)(size / PT_PAGE_SIZE),
			 "stock: read-back takes one fault per 4 KiB (%ld faults, pswpin +%ld)\n",
			 faults, d.pswpin);
	kb = pt_smaps_kb(mem, "AnonHugePages");
	ksft_test_result(kb == 0, "stock: no THP after read-back (AnonHugePages %ld kB)\n", kb);

	ksft_test_result(pt_verify(mem, size, 1) == 0, "data intact after the round trip\n");

	pt_free_thp(mem, size);
	ksft_test_result(pt_swap_used_kb() <= used0,
			 "swap slots freed on munmap (used %ld kB, before %ld kB)\n",
			 pt_swap_used_kb(), used0);
	free(pm);
	close(fd);
	ksft_finished();
}
