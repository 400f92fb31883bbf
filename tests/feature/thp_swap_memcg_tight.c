// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-THP swap-in only with 2 MiB of headroom in the memcg: a fault on
 * a huge swap entry in a memcg that is within 2 MiB of memory.high reads
 * only the faulting page (the entry is split; thp_swpin_pmd_fallback
 * counts it), so scattered accesses under memcg pressure do not pull in
 * and push out 2 MiB per touched page. With headroom the same region
 * comes back as whole THPs. Under memory.max, a sequential pass still
 * comes back whole (the fault continues a run, and its charge reclaims),
 * while random touches split. Data is checked every time.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest.h"
#include "pmswap_test.h"

#define CG	"pt_memcg_tight"
#define SIZE	(16 * PT_MIB)
#define THPS	(SIZE / PT_PMD_SIZE)
#define PSIZE	(32 * PT_MIB)	/* the pressure cases: 16 THPs ... */
#define PTHPS	(PSIZE / PT_PMD_SIZE)
#define ROOM	(6 * PT_MIB)	/* ... in a memcg with room for 3 */

/*
 * A fresh PSIZE region filled from @seed, all in huge swap entries, in
 * the memcg with memory.max ROOM above what it holds then.
 */
static char *tight_region(uint64_t seed)
{
	char val[32];
	char *mem;

	pt_memcg_set(CG, "memory.max", "max");
	mem = pt_alloc_thp(PSIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, PSIZE, seed);
	pt_pageout(mem, PSIZE);
	snprintf(val, sizeof(val), "%ld",
		 pt_memcg_read_long(CG, "memory.current") + (long)ROOM);
	pt_memcg_set(CG, "memory.max", val);
	return mem;
}

/* thp_swpin_pmd and thp_swpin_pmd_fallback */
struct swpin {
	long pmd, fb;
};

static struct swpin swpin_since(const struct swpin *before)
{
	struct swpin now = { pt_vmstat("thp_swpin_pmd"),
			     pt_vmstat("thp_swpin_pmd_fallback") };

	if (before) {
		now.pmd -= before->pmd;
		now.fb -= before->fb;
	}
	return now;
}

/* memory.max minus memory.current of the memcg, in bytes */
static long memcg_room(void)
{
	return pt_memcg_read_long(CG, "memory.max") -
	       pt_memcg_read_long(CG, "memory.current");
}

/*
 * The room a touch must have seen to come back whole: 2 MiB, less what
 * the memcg's per-cpu charge caches can give back between our read of
 * memory.current and the fault (64 pages per CPU, far below 1 MiB here).
 */
#define WHOLE_ROOM	(PT_PMD_SIZE - PT_MIB)

/*
 * Under memory.max a sequential pass over 16 swapped THPs comes back in
 * THPs: the first three fit, every later fault continues the run and its
 * charge reclaims an older THP. Before, the thirteen that did not fit
 * were split and read 4 KiB at a time. Random touches of one page in each
 * THP, in a fixed order with no two neighbours in a row, split each THP
 * that does not fit: each touch is judged by the room the memcg had just
 * before it. There is room for three at the start; a split fault's charge
 * at the limit may reclaim a whole THP and so make room for another, so
 * the count of whole THPs alone does not decide.
 */
static void pressure_cases(void)
{
	static const int order[PTHPS] = {
		9, 2, 14, 6, 0, 11, 4, 15, 7, 12, 1, 5, 13, 3, 10, 8 };
	int whole = 0, split = 0, odd = 0, unroomy = 0;
	struct swpin s0, d;
	size_t bad;
	char *mem;
	long room;
	int i;

	mem = tight_region(23);
	s0 = swpin_since(NULL);
	bad = pt_verify(mem, PSIZE, 23);	/* the sequential pass */
	d = swpin_since(&s0);
	ksft_test_result(d.pmd == (long)PTHPS && d.fb == 0,
			 "memory.max, sequential pass: %ld of %lu THPs swapped in whole, %ld split\n",
			 d.pmd, PTHPS, d.fb);
	ksft_test_result(bad == 0, "data intact after the sequential pass (%zu bad pages)\n",
			 bad);
	pt_free_thp(mem, PSIZE);

	/* a fresh region: all 16 THPs in huge swap entries again */
	mem = tight_region(24);
	for (i = 0; i < (int)PTHPS; i++) {
		room = memcg_room();
		s0 = swpin_since(NULL);
		pt_touch_read(mem + order[i] * PT_PMD_SIZE + 5 * PT_PAGE_SIZE,
			      PT_PAGE_SIZE);
		d = swpin_since(&s0);
		if (d.pmd == 1 && d.fb == 0) {
			whole++;
			ksft_print_msg("touch %d (THP %d): whole, room was %ld KiB\n",
				       i, order[i], room / 1024);
			if (room < (long)WHOLE_ROOM)
				unroomy++;
		} else if (d.pmd == 0 && d.fb == 1) {
			split++;
		} else {
			odd++;
			ksft_print_msg("touch %d (THP %d): thp_swpin_pmd +%ld, fallback +%ld, room was %ld KiB\n",
				       i, order[i], d.pmd, d.fb, room / 1024);
		}
	}
	ksft_test_result(unroomy == 0 && odd == 0 && whole >= 1 && split >= 1,
			 "memory.max, random touches: %d THPs whole (room for 3 at the start), %d split, %d whole without 2 MiB of room, %d odd\n",
			 whole, split, unroomy, odd);
	pt_memcg_set(CG, "memory.max", "max");
	bad = pt_verify(mem, PSIZE, 24);
	ksft_test_result(bad == 0, "data intact after the random touches (%zu bad pages)\n",
			 bad);
	pt_free_thp(mem, PSIZE);
}

int main(void)
{
	long pmd0, fb0, pmd1, fb1, cur;
	char val[32];
	char *mem;

	ksft_print_header();
	if (!pt_swap_active())
		ksft_exit_fail_msg("no swap device is active\n");
	if (pt_huge_swap_mode() <= 0)
		ksft_exit_skip("huge swap entries are not on\n");
	if (pt_memcg_create(CG) || pt_memcg_enter(CG))
		ksft_exit_fail_msg("cannot create and enter memcg %s\n", CG);
	ksft_set_plan(8);

	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");

	/* tight: memory.high 1 MiB above what the memcg holds after swap-out */
	pt_fill(mem, SIZE, 21);
	pt_pageout(mem, SIZE);
	cur = pt_memcg_read_long(CG, "memory.current");
	snprintf(val, sizeof(val), "%ld", cur + (long)PT_MIB);
	pt_memcg_set(CG, "memory.high", val);
	pmd0 = pt_vmstat("thp_swpin_pmd");
	fb0 = pt_vmstat("thp_swpin_pmd_fallback");
	pt_touch_read(mem, PT_PAGE_SIZE);	/* one page of the first THP */
	pmd1 = pt_vmstat("thp_swpin_pmd");
	fb1 = pt_vmstat("thp_swpin_pmd_fallback");
	ksft_test_result(pmd1 == pmd0 && fb1 == fb0 + 1,
			 "memory.high within 2 MiB: one touch reads one page, not the THP (thp_swpin_pmd +%ld, fallback +%ld)\n",
			 pmd1 - pmd0, fb1 - fb0);
	ksft_test_result(pt_verify(mem, SIZE, 21) == 0,
			 "data intact after 4 KiB swap-ins under the limit\n");

	/* headroom: the same region swapped out again comes back whole */
	pt_memcg_set(CG, "memory.high", "max");
	pt_free_thp(mem, SIZE);
	mem = pt_alloc_thp(SIZE);
	if (!mem)
		ksft_exit_fail_perror("mmap");
	pt_fill(mem, SIZE, 22);
	pt_pageout(mem, SIZE);
	pmd0 = pt_vmstat("thp_swpin_pmd");
	pt_touch_read(mem, SIZE);
	pmd1 = pt_vmstat("thp_swpin_pmd");
	ksft_test_result(pmd1 - pmd0 == (long)THPS,
			 "with headroom: %ld of %lu THPs swapped in whole\n",
			 pmd1 - pmd0, THPS);
	ksft_test_result(pt_verify(mem, SIZE, 22) == 0, "data intact\n");
	pt_free_thp(mem, SIZE);
	pressure_cases();
	pt_memcg_destroy(CG);
	ksft_finished();
}
