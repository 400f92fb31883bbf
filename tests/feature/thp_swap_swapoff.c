// SPDX-License-Identifier: GPL-2.0
/*
 * swapoff with swapped-out THPs: everything comes back with nothing lost,
 * as THPs when huge swap entries are in use, and swapon restores the
 * device. Works on whichever swap device is active (the first one in
 * /proc/swaps).
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
	char dev[256];
	long split0, kb;
	int huge, rc;
	char *mem;

	ksft_print_header();
	if (!pt_swap_active() || first_swap(dev, sizeof(dev)))
		ksft_exit_fail_msg("no swap device is active\n");
	huge = pt_huge_swap_mode() > 0;
	ksft_set_plan(5);

	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, SIZE, SEED);
	pt_pageout(mem, SIZE);
	kb = huge ? pt_smaps_kb(mem, "SwapPmdMapped") : pt_smaps_kb(mem, "Swap");
	ksft_test_result(kb == (long)(SIZE >> 10), "%lu MiB swapped out (%s entries, %ld kB)\n",
			 SIZE >> 20, huge ? "huge" : "PTE", kb);

	split0 = pt_vmstat("thp_split_swap_pmd");
	rc = swapoff(dev);
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
	rc = swapon(dev, 0);
	ksft_test_result(rc == 0 && pt_swap_active(), "swapon %s again\n", dev);
	pt_free_thp(mem, SIZE);
	ksft_finished();
}
