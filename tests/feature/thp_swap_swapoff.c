// SPDX-License-Identifier: GPL-2.0
/*
 * swapoff with swapped-out THPs: everything comes back with nothing lost,
 * as THPs when huge swap entries are in use, and swapon restores the
 * device. Works on whichever swap device is active (the first one in
 * /proc/swaps).
 *
 * Under map-in-place policy read or always on a pmem device, the region
 * is read back first, which maps its extents in place; swapoff must
 * revert every one of them and bring the data into DRAM before the
 * device goes.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/swap.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define SIZE	(32 * PT_MIB)
#define THPS	(SIZE / PT_PMD_SIZE)
#define SEED	11

static int first_swap(char *dev, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/swaps", "r");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f) &&
	    sscanf(line, "%255s", dev) == 1)
		ret = 0;
	fclose(f);
	(void)len;
	return ret;
}

int main(void)
{
	struct pt_inplace_dev ipd;
	const char *no_inplace = NULL;
	char dev[256];
	long split0, kb, now0 = 0, now1, mi0, mi1, unmap0, unmap1;
	int huge, rc, policy;
	char *mem;

	ksft_print_header();
	if (!pt_swap_active() || first_swap(dev, sizeof(dev)))
		ksft_exit_fail_msg("no swap device is active\n");
	huge = pt_huge_swap_mode() > 0;
	policy = pt_inplace_policy();
	if (pt_huge_swap_mode() < 0)
		no_inplace = "no huge swap entries in this kernel";
	else if (!huge)
		no_inplace = "huge swap entries are off";
	else if (policy < 0 || pt_inplace_dev_find(&ipd))
		no_inplace = "swap is not on a pmem device with map in place";
	else if (policy == 0)
		no_inplace = "under policy never nothing is mapped in place";
	else if (strcmp(ipd.dev, dev))
		no_inplace = "the first swap device is not the pmem device";
	ksft_set_plan(7);

	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, SIZE, SEED);
	pt_pageout(mem, SIZE);
	kb = huge ? pt_smaps_kb(mem, "SwapPmdMapped") : pt_smaps_kb(mem, "Swap");
	ksft_test_result(kb == (long)(SIZE >> 10), "%lu MiB swapped out (%s entries, %ld kB)\n",
			 SIZE >> 20, huge ? "huge" : "PTE", kb);

	mi0 = pt_meminfo_kb("PmswapInPlace");
	if (no_inplace) {
		ksft_test_result_skip("map in place before swapoff: %s\n", no_inplace);
	} else {
		now0 = pt_stat_key(ipd.stats, "mapped_now");
		/* a read maps each extent in place (policy read or always) */
		rc = pt_verify(mem, SIZE, SEED) == 0;
		kb = pt_smaps_kb(mem, "PmswapInPlace");
		now1 = pt_stat_key(ipd.stats, "mapped_now");
		mi1 = pt_meminfo_kb("PmswapInPlace");
		ksft_test_result(rc && kb == (long)(SIZE >> 10) && now1 > 0 &&
				 now1 - now0 == (long)THPS &&
				 mi1 - mi0 == (long)(SIZE >> 10),
				 "read back in place before swapoff: data %s, smaps PmswapInPlace %ld kB, mapped_now %ld -> %ld, meminfo PmswapInPlace %+ld kB\n",
				 rc ? "intact" : "WRONG", kb, now0, now1, mi1 - mi0);
	}

	split0 = pt_vmstat("thp_split_swap_pmd");
	unmap0 = pt_vmstat("pmswap_inplace_unmap");
	rc = swapoff(dev);
	unmap1 = pt_vmstat("pmswap_inplace_unmap");
	ksft_test_result(rc == 0, "swapoff %s with swapped THPs\n", dev);
	ksft_test_result(pt_smaps_kb(mem, "Swap") == 0 && pt_verify(mem, SIZE, SEED) == 0,
			 "all data back in memory and intact (Swap %ld kB)\n",
			 pt_smaps_kb(mem, "Swap"));
	kb = pt_smaps_kb(mem, "AnonHugePages");
	if (huge)
		ksft_test_result(kb == (long)(SIZE >> 10) &&
				 pt_vmstat("thp_split_swap_pmd") == split0,
				 "swapoff brought the THPs back whole (AnonHugePages %ld kB)\n", kb);
	else
		ksft_test_result(kb < (long)(SIZE >> 10),
				 "PTE entries: swapoff brings 4 KiB pages back (AnonHugePages %ld kB)\n",
				 kb);
	if (no_inplace) {
		ksft_test_result_skip("nothing left in place after swapoff: %s\n", no_inplace);
	} else {
		/* the device's inplace_stats go with it: gone, or 0 */
		now1 = pt_stat_key(ipd.stats, "mapped_now");
		kb = pt_smaps_kb(mem, "PmswapInPlace");
		mi1 = pt_meminfo_kb("PmswapInPlace");
		ksft_test_result(kb == 0 && mi1 == mi0 && now1 <= 0 &&
				 unmap1 - unmap0 == (long)THPS,
				 "nothing left in place after swapoff: smaps PmswapInPlace %ld kB, meminfo PmswapInPlace %ld kB (%ld before), mapped_now %ld (-1: gone with the device), %ld extents reverted (want %lu)\n",
				 kb, mi1, mi0, now1, unmap1 - unmap0, THPS);
	}
	rc = swapon(dev, 0);
	ksft_test_result(rc == 0 && pt_swap_active() &&
			 (no_inplace || pt_stat_key(ipd.stats, "mapped_now") == 0),
			 "swapon %s again\n", dev);
	pt_free_thp(mem, SIZE);
	ksft_finished();
}
