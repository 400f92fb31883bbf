// SPDX-License-Identifier: GPL-2.0
/*
 * THP swap-out through cgroup v2 memory.reclaim, with the memcg's swap
 * accounting checked on the way out, back in and at munmap.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define CG	"pt_memcg"
#define SIZE	(64 * PT_MIB)

int main(void)
{
	struct pt_swapstat s0, s1, d;
	long swap0, swap1, swap2, swap3, cur0, cur1;
	char val[32];
	char *mem;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	if (pt_memcg_create(CG) || pt_memcg_enter(CG))
		ksft_exit_fail_msg("cannot create and enter memcg %s\n", CG);
	ksft_set_plan(6);

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
	snprintf(val, sizeof(val), "%lu", SIZE * 2);
	/* memory.reclaim returns -EAGAIN when it reclaims less than asked. */
	pt_memcg_set(CG, "memory.reclaim", val);
	pt_swapstat_now(&s1);
	pt_swapstat_delta(&s0, &s1, &d);
	pt_swapstat_print("memory.reclaim", &d);
	swap1 = pt_memcg_read_long(CG, "memory.swap.current");
	cur1 = pt_memcg_read_long(CG, "memory.current");
	ksft_test_result(d.thp_swpout == (long)(SIZE / PT_PMD_SIZE) &&
			 pt_smaps_kb(mem, "Swap") == (long)(SIZE >> 10),
			 "memory.reclaim swapped out all %lu THPs whole (thp_swpout +%ld)\n",
			 SIZE / PT_PMD_SIZE, d.thp_swpout);
	ksft_test_result(swap1 - swap0 == (long)SIZE && cur1 < cur0 - (long)SIZE / 2,
			 "memory.swap.current +%ld MiB, memory.current %ld -> %ld MiB\n",
			 (swap1 - swap0) >> 20, cur0 >> 20, cur1 >> 20);

	pt_touch_read(mem, SIZE);
	ksft_test_result(pt_verify(mem, SIZE, 3) == 0, "data intact after swap-in\n");
	/* Swapped-in pages stay in swap cache until written or freed. */
	pt_touch_write(mem, SIZE);
	swap2 = pt_memcg_read_long(CG, "memory.swap.current");
	pt_free_thp(mem, SIZE);
	swap3 = pt_memcg_read_long(CG, "memory.swap.current");
	ksft_test_result(swap2 <= swap1, "swap charge does not grow on swap-in (%ld -> %ld kB)\n",
			 swap1 >> 10, swap2 >> 10);
	ksft_test_result(swap3 == 0, "swap charge back to 0 after munmap (%ld kB)\n",
			 swap3 >> 10);
	pt_memcg_destroy(CG);
	ksft_finished();
}
