// SPDX-License-Identifier: GPL-2.0
/*
 * THP swap-out through cgroup v2 memory.reclaim, with the memcg's charges
 * checked on the way out, back in and at munmap: the THPs leave as huge
 * swap entries (when huge swap is on), memory.swap.current takes the
 * region and memory.current gives it up; reading it back turns that
 * around (or, mapped in place on pmem, keeps it in swap, where the memcg
 * reports it as pmswap_inplace).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define CG	"pt_memcg"
#define SIZE	(64 * PT_MIB)
#define THPS	(SIZE / PT_PMD_SIZE)
/*
 * memory.current moves by more than the region: page tables, the stack
 * and whatever else memory.reclaim took from the process.
 */
#define MEM_SLACK	((long)PT_PMD_SIZE)
/* memory.reclaim may swap out a few other pages of the process too */
#define SWAP_SLACK	(64L << 10)

int main(void)
{
	struct pt_swapstat s0, s1, d;
	long swap0, swap1, swap2, swap3, swapr, cur0, cur1, curr, pmd0, pmd1;
	long kb, inplace_b, swap_slack;
	int mode, policy;
	char val[32];
	char *mem;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	/*
	 * Before entering the memcg: glob() and stdio allocate, and pages of
	 * the process charged to the memcg would be swapped out with the
	 * region.
	 */
	mode = pt_huge_swap_mode();
	/* read back mapped in place: on pmem under policy read or always */
	policy = pt_inplace_policy();
	/*
	 * Slots freed by a swap-in wait in a per-CPU cache before they are
	 * uncharged from memory.swap.current.
	 */
	swap_slack = pt_swap_slot_cache_kb() << 10;
	ksft_print_msg("huge swap entries: %s, map in place: %s\n",
		       mode < 0 ? "not in this kernel" : mode ? "on" : "off",
		       policy == 2 ? "always" : policy == 1 ? "read" : "no");
	ksft_set_plan(8);
	if (pt_memcg_create(CG) || pt_memcg_enter(CG))
		ksft_exit_fail_msg("cannot create and enter memcg %s\n", CG);

	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, SIZE, 3);
	swap0 = pt_memcg_read_long(CG, "memory.swap.current");
	cur0 = pt_memcg_read_long(CG, "memory.current");
	ksft_test_result(pt_smaps_kb(mem, "AnonHugePages") == (long)(SIZE >> 10) &&
			 cur0 >= (long)SIZE,
			 "memcg charged for %lu MiB of THP (memory.current %ld)\n",
			 SIZE >> 20, cur0);

	pt_swapstat_now(&s0);
	pmd0 = pt_vmstat("thp_swpout_pmd");
	snprintf(val, sizeof(val), "%lu", SIZE * 2);
	/* memory.reclaim returns -EAGAIN when it reclaims less than asked. */
	pt_memcg_set(CG, "memory.reclaim", val);
	pt_swapstat_now(&s1);
	pmd1 = pt_vmstat("thp_swpout_pmd");
	pt_swapstat_delta(&s0, &s1, &d);
	pt_swapstat_print("memory.reclaim", &d);
	swap1 = pt_memcg_read_long(CG, "memory.swap.current");
	cur1 = pt_memcg_read_long(CG, "memory.current");
	ksft_test_result(d.thp_swpout == (long)THPS &&
			 pt_smaps_kb(mem, "Swap") == (long)(SIZE >> 10),
			 "memory.reclaim swapped out all %lu THPs whole (thp_swpout +%ld)\n",
			 THPS, d.thp_swpout);

	kb = pt_smaps_kb(mem, "SwapPmdMapped");
	if (mode < 0)
		ksft_test_result_skip("huge swap entries: no huge swap entries in this kernel\n");
	else if (mode)
		ksft_test_result(pmd1 - pmd0 == (long)THPS && kb == (long)(SIZE >> 10),
				 "memory.reclaim left %lu huge swap entries (thp_swpout_pmd +%ld, SwapPmdMapped %ld kB)\n",
				 THPS, pmd1 - pmd0, kb);
	else
		ksft_test_result(pmd1 == pmd0 && kb == 0,
				 "huge swap off: no huge swap entries (thp_swpout_pmd +%ld, SwapPmdMapped %ld kB)\n",
				 pmd1 - pmd0, kb);

	ksft_test_result(swap1 - swap0 >= (long)SIZE && swap1 - swap0 <= (long)SIZE + SWAP_SLACK &&
			 cur0 - cur1 >= (long)SIZE - MEM_SLACK,
			 "memory.swap.current +%ld kB (want %lu + at most %ld), memory.current -%ld kB (want at least %lu)\n",
			 (swap1 - swap0) >> 10, SIZE >> 10, SWAP_SLACK >> 10,
			 (cur0 - cur1) >> 10, (SIZE - MEM_SLACK) >> 10);

	pt_touch_read(mem, SIZE);
	swapr = pt_memcg_read_long(CG, "memory.swap.current");
	curr = pt_memcg_read_long(CG, "memory.current");
	inplace_b = pt_memcg_stat(CG, "memory.stat", "pmswap_inplace");
	ksft_test_result(pt_verify(mem, SIZE, 3) == 0, "data intact after swap-in\n");
	if (policy > 0)
		/* in place: still swap, and not DRAM */
		ksft_test_result(swapr == swap1 && curr - cur1 <= MEM_SLACK &&
				 inplace_b >= (long)SIZE && inplace_b <= (long)SIZE + SWAP_SLACK &&
				 pt_smaps_kb(mem, "PmswapInPlace") == (long)(SIZE >> 10),
				 "read back in place: memory.swap.current %+ld kB, memory.current %+ld kB, pmswap_inplace %ld kB\n",
				 (swapr - swap1) >> 10, (curr - cur1) >> 10,
				 inplace_b >> 10);
	else
		ksft_test_result(swapr - swap0 <= swap_slack &&
				 curr - cur1 >= (long)SIZE - MEM_SLACK &&
				 curr - cur1 <= (long)SIZE + MEM_SLACK,
				 "read back: memory.swap.current %+ld kB (to within %ld kB of before), memory.current %+ld kB (want %lu +- %ld)\n",
				 (swapr - swap1) >> 10, swap_slack >> 10,
				 (curr - cur1) >> 10, SIZE >> 10, MEM_SLACK >> 10);

	/* Written, the region leaves swap for good (policy always: stays in place). */
	pt_touch_write(mem, SIZE);
	swap2 = pt_memcg_read_long(CG, "memory.swap.current");
	pt_free_thp(mem, SIZE);
	swap3 = pt_memcg_read_long(CG, "memory.swap.current");
	ksft_test_result(swap2 <= swap1 && (policy == 2 || swap2 - swap0 <= swap_slack),
			 "swap charge does not grow on swap-in and write (%ld -> %ld kB, %ld before swap-out)\n",
			 swap1 >> 10, swap2 >> 10, swap0 >> 10);
	ksft_test_result(swap3 == 0, "swap charge back to 0 after munmap (%ld kB)\n",
			 swap3 >> 10);
	pt_memcg_destroy(CG);
	ksft_finished();
}
